package cli

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/internal/testdb"
	"github.com/linkbench-go/linkbench/store/mysqlstore"
)

// testDSN returns the DSN of the shared test server, or skips (fails in
// CI, see package testdb).
func testDSN(t *testing.T) string {
	t.Helper()
	return testdb.MySQLDSN(t)
}

// dropAfter drops the databases prefix0..prefix(n-1) when the test ends.
func dropAfter(t *testing.T, dsn, prefix string, n int) {
	t.Cleanup(func() {
		ctx := context.Background()
		s, err := mysqlstore.Open(ctx, mysqlstore.Options{DSN: dsn, DBPrefix: prefix})
		if err != nil {
			t.Logf("cleanup: %v", err)
			return
		}
		defer s.Close()
		for i := range n {
			if err := s.DropSchema(ctx, fmt.Sprintf("%s%d", prefix, i)); err != nil {
				t.Logf("cleanup: %v", err)
			}
		}
	})
}

func uniquePrefix(name string) string {
	return fmt.Sprintf("lbcli_%s_%d_", name, time.Now().UnixNano()%1_000_000_000)
}

// noPassword fails the test if the DSN's password appears in s.
func noPassword(t *testing.T, dsn, s string) {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Passwd != "" && strings.Contains(s, cfg.Passwd) {
		t.Errorf("the password appears in the output")
	}
}

// TestMySQLEndToEnd is the end-to-end case on each engine: load
// maxid1 = 20001, then 16 requesters for 20 s, through the command-line
// tool, then -verify passes; the password is never printed. The graph has
// 20 links per node (400,000 links): the real out-degree's 4.2 million
// links took 90 s per engine to load, too long for CI; the heavy-node path
// is covered by the load tests and the paired benchmark.
func TestMySQLEndToEnd(t *testing.T) {
	dsn := testDSN(t)
	for _, engine := range []string{"innodb", "rocksdb"} {
		t.Run(engine, func(t *testing.T) {
			prefix := uniquePrefix(engine)
			dropAfter(t, dsn, prefix, 1)
			code, out, stderr := runCLI(t, "-store", "mysql", "-dsn", dsn, "-create-schema", "-D", "engine="+engine,
				"-D", "dbprefix="+prefix, "-D", "maxid1=20001", "-D", "nlinks_func=const", "-D", "nlinks_default=20", "-D", "nlinks_config=0",
				"-l", "-r", "-D", "requesters=16", "-D", "maxtime=8", "-verify")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			checkReport(t, out, "CONST out-degree (nlinks_default 20, nlinks_config 0)")
			if !regexp.MustCompile(`(?m)^VERIFY ` + prefix + `0: nodes=\d+ .* counts OK$`).MatchString(out) {
				t.Errorf("no VERIFY OK line:\n%s", out)
			}
			if !strings.Contains(out, "engine="+map[string]string{"innodb": "InnoDB", "rocksdb": "ROCKSDB"}[engine]) {
				t.Errorf("report does not name the engine")
			}
			noPassword(t, dsn, out+stderr)
		})
	}
}

// TestMySQLPasswordNeverPrinted: a wrong password, and a password given
// with LinkBench's keys, never appear in the output.
func TestMySQLPasswordNeverPrinted(t *testing.T) {
	dsn := testDSN(t)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	const secret = "s3cret-Pa55word"
	bad := *cfg
	bad.Passwd = secret
	code, out, stderr := runCLI(t, "-store", "mysql", "-dsn", bad.FormatDSN(), "-D", "maxid1=101", "-l")
	if code == 0 {
		t.Fatalf("wrong password accepted")
	}
	if strings.Contains(out+stderr, secret) {
		t.Errorf("password printed: %s %s", out, stderr)
	}
	if !strings.Contains(stderr, "Access denied") {
		t.Errorf("stderr %q does not say why", stderr)
	}
	// LinkBench's keys.
	host, port, _ := strings.Cut(cfg.Addr, ":")
	code, out, stderr = runCLI(t, "-store", "mysql", "-D", "host="+host, "-D", "port="+port, "-D", "user="+cfg.User,
		"-D", "password="+secret, "-D", "maxid1=101", "-l")
	if code == 0 {
		t.Fatalf("wrong password accepted")
	}
	if strings.Contains(out+stderr, secret) {
		t.Errorf("password printed: %s %s", out, stderr)
	}
}

// TestMySQLPasswordFromEnvironment: a DSN without a password takes it from
// MYSQL_PWD (the MySQL client's variable), so that it need not appear in a
// command line; a wrong one there is refused and never printed.
func TestMySQLPasswordFromEnvironment(t *testing.T) {
	dsn := testDSN(t)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Passwd == "" {
		t.Skip("the test server's DSN has no password")
	}
	noPW := *cfg
	noPW.Passwd = ""
	prefix := uniquePrefix("pwenv")
	dropAfter(t, dsn, prefix, 1)
	t.Setenv("MYSQL_PWD", cfg.Passwd)
	code, out, stderr := runCLI(t, "-store", "mysql", "-dsn", noPW.FormatDSN(), "-create-schema", "-D", "dbprefix="+prefix, "-verify")
	if code != 0 {
		t.Fatalf("password from MYSQL_PWD: exit %d\n%s\n%s", code, out, stderr)
	}
	const secret = "s3cret-Pa55word"
	t.Setenv("MYSQL_PWD", secret)
	code, out, stderr = runCLI(t, "-store", "mysql", "-dsn", noPW.FormatDSN(), "-D", "dbprefix="+prefix, "-verify")
	if code == 0 || !strings.Contains(stderr, "Access denied") {
		t.Errorf("wrong MYSQL_PWD: exit %d, stderr %q; want a refusal", code, stderr)
	}
	if strings.Contains(out+stderr, secret) {
		t.Errorf("password printed: %s %s", out, stderr)
	}
}

// TestMySQLServerRestart: the server restarts in the middle of a request
// phase; the run goes on (or stops with a clear error once
// max_failed_requests is exceeded) and -verify passes afterwards. It runs
// on the server reserved for restart tests, never the shared one.
func TestMySQLServerRestart(t *testing.T) {
	dsn, restart := testdb.RestartableMySQL(t)
	prefix := uniquePrefix("restart")
	dropAfter(t, dsn, prefix, 1)
	base := []string{"-store", "mysql", "-dsn", dsn, "-D", "dbprefix=" + prefix, "-D", "maxid1=2001",
		"-D", "nlinks_func=const", "-D", "nlinks_default=4", "-D", "nlinks_config=0"}
	if code, out, stderr := runCLI(t, append(base, "-create-schema", "-l")...); code != 0 {
		t.Fatalf("load: exit %d\n%s\n%s", code, out, stderr)
	}
	done := make(chan [3]string, 1)
	go func() {
		code, out, stderr := runCLI(t, append(base, "-r", "-D", "requesters=8", "-D", "maxtime=12",
			"-D", "max_failed_requests=1000000")...)
		done <- [3]string{fmt.Sprint(code), out, stderr}
	}()
	time.Sleep(4 * time.Second)
	if out, err := exec.Command("bash", "-c", restart).CombinedOutput(); err != nil {
		t.Fatalf("restart: %v\n%s", err, out)
	}
	res := <-done
	if res[0] != "0" {
		t.Fatalf("request phase across a restart: exit %s\n%s\n%s", res[0], res[1], res[2])
	}
	if !strings.Contains(res[1], "REQUEST PHASE COMPLETED") {
		t.Errorf("no completion line:\n%s", res[1])
	}
	// The restart must have been seen: lost connections retried or failed.
	if !regexp.MustCompile(`(?m)^(errors\.conn|retries\.\w+) = [1-9]`).MatchString(res[1]) {
		t.Errorf("the report shows no retried or failed connection: the restart went unnoticed\n%s", res[1])
	}
	for _, l := range strings.Split(res[1], "\n") {
		if strings.HasPrefix(l, "errors.") || strings.HasPrefix(l, "retries.") || strings.HasPrefix(l, "failures.") ||
			strings.HasPrefix(l, "transient.") || strings.HasPrefix(l, "SUMMARY") {
			t.Log(l)
		}
	}
	code, out, stderr := runCLI(t, append(base, "-verify")...)
	if code != 0 || !strings.Contains(out, "counts OK") {
		t.Fatalf("verify after restart: exit %d\n%s\n%s", code, out, stderr)
	}
	noPassword(t, dsn, res[1]+res[2]+out+stderr)
}

// TestMySQLHotGraph is the field case: 16 requesters on a hot graph
// (maxid1 = 101, only link writes) for 20 s end with exact counts, on each
// engine.
func TestMySQLHotGraph(t *testing.T) {
	dsn := testDSN(t)
	maxtime := "8" // 16 requesters on 100 nodes: thousands of lock waits and deadlocks already
	if testing.Short() {
		maxtime = "3"
	}
	for _, engine := range []string{"innodb", "rocksdb"} {
		t.Run(engine, func(t *testing.T) {
			prefix := uniquePrefix("hot_" + engine)
			dropAfter(t, dsn, prefix, 1)
			code, out, stderr := runCLI(t, "-store", "mysql", "-dsn", dsn, "-create-schema", "-D", "engine="+engine,
				"-D", "dbprefix="+prefix, "-D", "maxid1=101", "-D", "nlinks_func=const", "-D", "nlinks_default=6",
				"-D", "nlinks_config=0", "-l", "-r", "-D", "requesters=16", "-D", "maxtime="+maxtime,
				"-D", "addlink=40", "-D", "deletelink=20", "-D", "updatelink=40", "-D", "countlink=0",
				"-D", "getlink=0", "-D", "getlinklist=0", "-D", "getnode=0", "-D", "addnode=0",
				"-D", "updatenode=0", "-D", "deletenode=0", "-verify")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			if !regexp.MustCompile(`(?m)^VERIFY ` + prefix + `0: .* counts OK$`).MatchString(out) {
				t.Errorf("no VERIFY OK line:\n%s", out)
			}
			m := regexp.MustCompile(`REQUEST PHASE COMPLETED\. (\d+) requests`).FindStringSubmatch(out)
			if m == nil || m[1] == "0" {
				t.Errorf("no requests done:\n%s", out)
			}
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "errors.") || strings.HasPrefix(l, "retries.") || strings.HasPrefix(l, "SUMMARY request") {
					t.Log(l)
				}
			}
		})
	}
}

// databaseExists reports whether the server of dsn has the database.
func databaseExists(t *testing.T, dsn, name string) bool {
	t.Helper()
	s, err := mysqlstore.Open(context.Background(), mysqlstore.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.DB().QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// TestMySQLBadInput is the part of the bad-input corpus that needs a
// server: a request phase on fresh or missing tables, a load without
// tables or over a graph, phases whose sessions exceed the server's free
// connections. Each is refused in one line naming the flag or key, with
// exit status 2, before anything is written: no database is created, the
// loaded graph is left as it was.
func TestMySQLBadInput(t *testing.T) {
	dsn := testDSN(t)
	loaded := uniquePrefix("bad_loaded")
	dropAfter(t, dsn, loaded, 2)
	graph := []string{"-D", "maxid1=101", "-D", "nlinks_func=const", "-D", "nlinks_default=4", "-D", "nlinks_config=0"}
	if code, out, stderr := runCLI(t, append([]string{"-store", "mysql", "-dsn", dsn, "-create-schema", "-D", "dbprefix=" + loaded, "-l"}, graph...)...); code != 0 {
		t.Fatalf("load: exit %d\n%s\n%s", code, out, stderr)
	}
	// The second database of the prefix exists with empty tables.
	if code, out, stderr := runCLI(t, append([]string{"-store", "mysql", "-dsn", dsn, "-create-schema", "-D", "dbprefix=" + loaded,
		"-D", "dbcount=2", "-verify"}, graph...)...); code != 0 {
		t.Fatalf("schema of %s1: exit %d\n%s\n%s", loaded, code, out, stderr)
	}
	unchanged := func(t *testing.T) {
		code, out, stderr := runCLI(t, "-store", "mysql", "-dsn", dsn, "-D", "dbprefix="+loaded, "-D", "maxid1=101", "-verify")
		if code != 0 || !strings.Contains(out, "nodes=100 min_id=1 max_id=100 (id1,link_type) pairs=200 counts OK") {
			t.Errorf("the loaded graph changed: exit %d\n%s\n%s", code, out, stderr)
		}
	}
	fresh := func(name string) (string, func(t *testing.T)) {
		p := uniquePrefix(name)
		dropAfter(t, dsn, p, 1)
		return p, func(t *testing.T) {
			if databaseExists(t, dsn, p+"0") {
				t.Errorf("database %s0 was created", p)
			}
		}
	}
	my := func(prefix string, args ...string) []string {
		return append([]string{"-store", "mysql", "-dsn", dsn, "-D", "dbprefix=" + prefix, "-D", "maxid1=101", "-D", "maxtime=5"}, args...)
	}
	p1, _ := fresh("bad_r")
	if code, out, stderr := runCLI(t, "-store", "mysql", "-dsn", dsn, "-create-schema", "-D", "dbprefix="+p1, "-verify"); code != 0 {
		t.Fatalf("fresh tables: exit %d\n%s\n%s", code, out, stderr)
	}
	empty1 := func(t *testing.T) {
		code, out, stderr := runCLI(t, "-store", "mysql", "-dsn", dsn, "-D", "dbprefix="+p1, "-verify")
		if code != 0 || !strings.Contains(out, "nodes=0 min_id=0 max_id=0 (id1,link_type) pairs=0 counts OK") {
			t.Errorf("the fresh tables changed: exit %d\n%s\n%s", code, out, stderr)
		}
	}
	p6, none6 := fresh("bad_cr")
	p7, none7 := fresh("bad_vf")
	p2, none2 := fresh("bad_rnt")
	p3, none3 := fresh("bad_lnt")
	p4, none4 := fresh("bad_req")
	p5, none5 := fresh("bad_ld")
	cases := []badCase{
		{"-r on fresh tables", my(p1, "-r"), []string{"-r", "-l", "allow_empty_store"}, empty1},
		{"-r on a database -create-schema would create", my(p6, "-create-schema", "-r"), []string{"-r", "-create-schema would create", "-create-schema -l -r"}, none6},
		{"-verify without tables", my(p7, "-verify"), []string{"-verify", "-create-schema -l"}, none7},
		{"-r without tables", my(p2, "-r"), []string{"-r", "-create-schema"}, none2},
		{"-l without tables", my(p3, "-l"), []string{"-l", "-create-schema"}, none3},
		{"requesters over max_connections", my(p4, "-create-schema", "-l", "-r", "-D", "requesters=300"),
			[]string{"requesters", "max_connections = ", "600 connections"}, none4},
		{"loaders over max_connections", my(p5, "-create-schema", "-l", "-D", "loaders=1000"), []string{"loaders", "max_connections = "}, none5},
		{"-r with an empty second database", my(loaded, "-r", "-D", "dbcount=2"), []string{loaded + "1", "-l", "allow_empty_store"}, unchanged},
		{"-l over a loaded graph", my(loaded, "-l"), []string{"-l", loaded + "0", "already holds a graph"}, unchanged},
		{"engine=rocksdb on InnoDB tables", my(loaded, "-create-schema", "-r", "-D", "engine=rocksdb"),
			[]string{"engine", "is InnoDB", "engine=innodb"}, unchanged},
		{"-r outside the loaded ids", my(loaded, "-r", "-D", "startid1=1000", "-D", "maxid1=2000"), []string{"[1000, 2000)", "allow_empty_store"}, unchanged},
	}
	runBadInput(t, cases)
}

// TestMySQLRandomID2Verify: with randomid2max > 0 an id1's id2s repeat;
// the loader's count rows are the distinct links, so -verify passes on
// MySQL (and on the memory store) after the load.
func TestMySQLRandomID2Verify(t *testing.T) {
	dsn := testDSN(t)
	graph := []string{"-D", "maxid1=2001", "-D", "nlinks_func=const", "-D", "nlinks_default=20", "-D", "nlinks_config=0",
		"-D", "randomid2max=30", "-l", "-verify"}
	prefix := uniquePrefix("rid2")
	dropAfter(t, dsn, prefix, 1)
	for _, args := range [][]string{
		append([]string{"-store", "mysql", "-dsn", dsn, "-create-schema", "-D", "dbprefix=" + prefix}, graph...),
		graph,
	} {
		code, out, stderr := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "counts OK") {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, stderr)
		}
		m := regexp.MustCompile(`Loaded \d+ nodes \(Expected \d+\), (\d+) links`).FindStringSubmatch(out)
		if m == nil || m[1] == "40000" {
			t.Errorf("the report does not count distinct links: %v", m)
		}
	}
}

// TestMySQLLockedTables is issue 8's stall case, scaled for CI: another
// session holds SELECT ... FOR UPDATE on the count and node tables while
// 64 requesters run with maxtime = 3 s: the tool still ends within maxtime
// + grace_time + 2 s, its report names the abandoned operations, and once
// the lock is released -verify passes.
func TestMySQLLockedTables(t *testing.T) {
	dsn := testDSN(t)
	prefix := uniquePrefix("locked")
	dropAfter(t, dsn, prefix, 1)
	base := []string{"-store", "mysql", "-dsn", dsn, "-D", "dbprefix=" + prefix, "-D", "maxid1=2001",
		"-D", "nlinks_func=const", "-D", "nlinks_default=3", "-D", "nlinks_config=1"}
	if code, out, stderr := runCLI(t, append(base, "-create-schema", "-l")...); code != 0 {
		t.Fatalf("load: exit %d\n%s\n%s", code, out, stderr)
	}
	ctx := context.Background()
	s, err := mysqlstore.Open(ctx, mysqlstore.Options{DSN: dsn, DBPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	db := "`" + prefix + "0`"
	for _, q := range []string{"BEGIN",
		"SELECT COUNT(*) FROM (SELECT * FROM " + db + ".counttable FOR UPDATE) x",
		"SELECT COUNT(*) FROM (SELECT * FROM " + db + ".nodetable FOR UPDATE) x"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	start := time.Now()
	code, out, stderr := runCLI(t, append(base, "-r", "-D", "requesters=64", "-D", "maxtime=3", "-D", "grace_time=1")...)
	took := time.Since(start)
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("request: exit %d\n%s\n%s", code, out, stderr)
	}
	// Sessions connect before the clock starts; the phase itself ends by
	// maxtime + grace_time. Allow 2 s more, plus the connecting.
	if took > 3*time.Second+time.Second+2*time.Second+5*time.Second {
		t.Errorf("the tool took %v with locked tables, maxtime 3 s and grace 1 s", took)
	}
	if !strings.Contains(out, "REQUEST PHASE OVERRAN") || !regexp.MustCompile(`abandoned = \d+`).MatchString(out) ||
		!strings.Contains(out, "status=OVERRAN") {
		t.Errorf("the report does not name the abandoned operations:\n%s", out)
	}
	if code, out, stderr := runCLI(t, append(base, "-verify")...); code != 0 || !strings.Contains(out, "counts OK") {
		t.Errorf("-verify after the stall: exit %d\n%s\n%s", code, out, stderr)
	}
}

// lockedGraph loads a small graph under a fresh prefix and returns the
// CLI's base arguments, the database's quoted name and a connection of
// another session (closed by the test's cleanup).
func lockedGraph(t *testing.T, name string) (base []string, db string, conn *sql.Conn) {
	t.Helper()
	dsn := testDSN(t)
	prefix := uniquePrefix(name)
	dropAfter(t, dsn, prefix, 1)
	base = []string{"-store", "mysql", "-dsn", dsn, "-D", "dbprefix=" + prefix, "-D", "maxid1=2001",
		"-D", "nlinks_func=const", "-D", "nlinks_default=3", "-D", "nlinks_config=1"}
	if code, out, stderr := runCLI(t, append(base, "-create-schema", "-l")...); code != 0 {
		t.Fatalf("load: exit %d\n%s\n%s", code, out, stderr)
	}
	ctx := context.Background()
	s, err := mysqlstore.Open(ctx, mysqlstore.Options{DSN: dsn, DBPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	conn, err = s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return base, "`" + prefix + "0`", conn
}

// TestMySQLTimedOutStatementsKilled: with row locks held by another
// session, every call that reaches its request_timeout is killed on the
// server: when the tool exits no statement of it is left waiting (they
// used to pile up until max_connections, and to be applied once the lock
// went).
func TestMySQLTimedOutStatementsKilled(t *testing.T) {
	base, db, conn := lockedGraph(t, "killed")
	ctx := context.Background()
	for _, q := range []string{"BEGIN",
		"SELECT COUNT(*) FROM (SELECT * FROM " + db + ".counttable FOR UPDATE) x",
		"SELECT COUNT(*) FROM (SELECT * FROM " + db + ".nodetable FOR UPDATE) x"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	code, out, stderr := runCLI(t, append(base, "-r", "-D", "requesters=16", "-D", "maxtime=3", "-D", "grace_time=1",
		"-D", "request_timeout=0.3")...)
	if code != 0 {
		t.Fatalf("request: exit %d\n%s\n%s", code, out, stderr)
	}
	if !regexp.MustCompile(`abandoned = [1-9]`).MatchString(out) {
		t.Fatalf("no call was abandoned behind the locks:\n%s", out)
	}
	var left int
	name := strings.Trim(db, "`")
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE (DB = ? OR INFO LIKE ?) "+
		"AND COMMAND <> 'Sleep' AND ID <> CONNECTION_ID()", name, "%"+name+"%").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d statements of the tool still run on the server after it exited", left)
	}
}

// TestMySQLLockTablesBound: LOCK TABLES ... WRITE held by another session
// stalls the request phase before its first request (the check that the
// graph is loaded waits for the node table): the tool still ends within
// maxtime + grace_time + 2 s, says why, and sends no request (it used to
// wait for the lock, then run its full maxtime and say COMPLETED).
func TestMySQLLockTablesBound(t *testing.T) {
	base, db, conn := lockedGraph(t, "locktables")
	ctx := context.Background()
	if _, err := conn.ExecContext(ctx, "LOCK TABLES "+db+".counttable WRITE, "+db+".nodetable WRITE"); err != nil {
		t.Fatal(err)
	}
	// Unlocked after 15 s at the latest, so that a tool that waits for
	// the lock fails the test rather than hanging it.
	var once sync.Once
	unlock := func() { once.Do(func() { _, _ = conn.ExecContext(ctx, "UNLOCK TABLES") }) }
	timer := time.AfterFunc(15*time.Second, unlock)
	start := time.Now()
	code, out, stderr := runCLI(t, append(base, "-r", "-D", "maxtime=2", "-D", "grace_time=1")...)
	took := time.Since(start)
	timer.Stop()
	unlock()
	if took > 5*time.Second {
		t.Errorf("the tool took %v with locked tables, maxtime 2 s and grace 1 s", took)
	}
	if code == 0 || strings.Contains(out, "COMPLETED") || !strings.Contains(stderr, "node table is locked") {
		t.Errorf("exit %d: want a failure naming the stall\n%s\n%s", code, out, stderr)
	}
}

// TestMySQLCreateSchemaRequest: -create-schema -r on a fresh database is
// refused (the tables it would create are empty) with a message that
// asks for -l, not for the -create-schema it was given.
func TestMySQLCreateSchemaRequest(t *testing.T) {
	dsn := testDSN(t)
	prefix := uniquePrefix("csr")
	dropAfter(t, dsn, prefix, 1)
	code, out, stderr := runCLI(t, "-store", "mysql", "-dsn", dsn, "-D", "dbprefix="+prefix, "-D", "maxid1=1001", "-create-schema", "-r")
	if code != 2 || !strings.Contains(stderr, "add -l") || strings.Contains(stderr, "create and load it first with -create-schema") {
		t.Errorf("-create-schema -r on a fresh database: exit %d\n%s\n%s", code, out, stderr)
	}
}
