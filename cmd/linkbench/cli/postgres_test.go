package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/store/pgstore"
)

// testPGDSN returns the DSN of the PostgreSQL test server, or skips (fails
// in CI, $LINKBENCH_CI=1, where .ci/run starts the server).
func testPGDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("LINKBENCH_TEST_PG_DSN")
	if dsn == "" {
		msg := "PostgreSQL tests need a server: set LINKBENCH_TEST_PG_DSN to the URL of a database whose user may " +
			"create schemas (`eval \"$(bash .ci/postgres.sh start)\"` prints one)"
		if os.Getenv("LINKBENCH_CI") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dsn
}

// dropPGAfter drops the schemas prefix0..prefix(n-1) when the test ends.
func dropPGAfter(t *testing.T, dsn, prefix string, n int) {
	t.Cleanup(func() {
		ctx := context.Background()
		s, err := pgstore.Open(ctx, pgstore.Options{DSN: dsn, DBPrefix: prefix})
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

// logCounters logs the report's store counter lines.
func logCounters(t *testing.T, out string) {
	for _, l := range strings.Split(out, "\n") {
		for _, p := range []string{"errors.", "retries.", "failures.", "transient.", "reconnects", "SUMMARY", "VERIFY"} {
			if strings.HasPrefix(l, p) {
				t.Log(l)
			}
		}
	}
}

// TestPostgresEndToEnd: load maxid1 = 20001 (10 links per id1: the real
// out-degree's giant list alone has 4.2 M links, too many for CI) into two
// schemas (dbcount 2), then 16 requesters for 10 s, through the
// command-line tool, then -verify passes on both; with -defer-index the
// index comes after the load; the linkstore key's Java class name selects
// the store. (The run at maxid1 = 200001 with the real out-degree
// is in the README.)
func TestPostgresEndToEnd(t *testing.T) {
	dsn := testPGDSN(t)
	prefix := uniquePrefix("pg")
	dropPGAfter(t, dsn, prefix, 2)
	maxtime := "10"
	if testing.Short() {
		maxtime = "3"
	}
	code, out, stderr := runCLI(t, "-D", "linkstore=com.facebook.LinkBench.LinkStorePgsql", "-dsn", dsn, "-create-schema",
		"-defer-index", "-D", "dbprefix="+prefix, "-D", "dbcount=2", "-D", "maxid1=20001", "-D", "nlinks_func=const", "-D", "nlinks_default=10",
		"-D", "nlinks_config=0", "-l", "-r",
		"-D", "requesters=16", "-D", "maxtime="+maxtime, "-verify")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	checkReport(t, out, "CONST out-degree")
	for i := range 2 {
		if !regexp.MustCompile(`(?m)^VERIFY ` + prefix + fmt.Sprint(i) + `: nodes=\d+ .* counts OK$`).MatchString(out) {
			t.Errorf("no VERIFY OK line for schema %d:\n%s", i, out)
		}
	}
	if !strings.Contains(out, "dialect=postgres isolation=read-committed") {
		t.Errorf("report does not name the store's dialect and isolation:\n%s", out)
	}
	logCounters(t, out)
}

// TestPostgresTerminateBackend is the fault case through the
// tool: requesters' backends are killed with pg_terminate_backend in the
// middle of the request phase; the calls are retried on new connections
// and counted, the run goes on to its end, and -verify passes.
func TestPostgresTerminateBackend(t *testing.T) {
	dsn := testPGDSN(t)
	prefix := uniquePrefix("pgkill")
	dropPGAfter(t, dsn, prefix, 1)
	base := []string{"-store", "postgres", "-dsn", dsn, "-D", "dbprefix=" + prefix, "-D", "maxid1=2001",
		"-D", "nlinks_func=const", "-D", "nlinks_default=4", "-D", "nlinks_config=0"}
	if code, out, stderr := runCLI(t, append(base, "-create-schema", "-l")...); code != 0 {
		t.Fatalf("load: exit %d\n%s\n%s", code, out, stderr)
	}
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["application_name"] = "lbtest-killer"
	killer, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(ctx)
	done := make(chan [3]string, 1)
	go func() {
		code, out, stderr := runCLI(t, append(base, "-r", "-D", "requesters=8", "-D", "maxtime=8",
			"-D", "max_failed_requests=1000000", "-verify")...)
		done <- [3]string{fmt.Sprint(code), out, stderr}
	}()
	var killed atomic.Int64
	time.Sleep(2 * time.Second)
	for range 8 {
		var n int64
		// One requester's backend at a time (the tool's connections are
		// application_name linkbench-go).
		err := killer.QueryRow(ctx, "SELECT COUNT(pg_terminate_backend(pid)) FROM (SELECT pid FROM pg_stat_activity "+
			"WHERE application_name = $1 AND datname = current_database() ORDER BY random() LIMIT 1) AS p",
			pgstore.DefaultApplicationName).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		killed.Add(n)
		time.Sleep(500 * time.Millisecond)
	}
	res := <-done
	if res[0] != "0" {
		t.Fatalf("request phase with killed backends: exit %s\n%s\n%s", res[0], res[1], res[2])
	}
	out := res[1]
	if !strings.Contains(out, "REQUEST PHASE COMPLETED") {
		t.Errorf("no completion line:\n%s", out)
	}
	if killed.Load() < 4 {
		t.Fatalf("only %d backends killed", killed.Load())
	}
	if !regexp.MustCompile(`(?m)^errors\.57P01 = [1-9]`).MatchString(out) || !regexp.MustCompile(`(?m)^reconnects = [1-9]`).MatchString(out) {
		t.Errorf("the report shows no terminated connection (errors.57P01, reconnects): the kills went unnoticed\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^VERIFY ` + prefix + `0: .* counts OK$`).MatchString(out) {
		t.Errorf("no VERIFY OK line:\n%s", out)
	}
	logCounters(t, out)
}

// TestPostgresPasswordNeverPrinted: a password in -dsn or in the password
// key never appears in the output when the connection fails.
func TestPostgresPasswordNeverPrinted(t *testing.T) {
	const secret = "s3cret-Pa55word"
	for _, args := range [][]string{
		{"-store", "postgres", "-dsn", "postgres://lb:" + secret + "@127.0.0.1:1/linkbench?connect_timeout=2", "-D", "maxid1=101", "-l"},
		{"-store", "postgres", "-dsn", "host=127.0.0.1 port=1 user=lb password=" + secret + " connect_timeout=2", "-D", "maxid1=101", "-l"},
		{"-store", "postgres", "-D", "host=127.0.0.1", "-D", "port=1", "-D", "user=lb", "-D", "password=" + secret, "-D", "maxid1=101", "-l"},
		{"-store", "postgres", "-dsn", "postgres://lb:" + secret + "@127.0.0.1:notaport/x", "-l"},
	} {
		code, out, stderr := runCLI(t, args...)
		if code == 0 {
			t.Fatalf("%v: connected to a closed port", args)
		}
		if strings.Contains(out+stderr, secret) {
			t.Errorf("password printed: %s %s", out, stderr)
		}
		if !strings.Contains(stderr, "*****") && !strings.Contains(stderr, "-dsn") {
			t.Errorf("%v: stderr %q does not show the redacted DSN", args, stderr)
		}
	}
}

// TestPostgresOptions: the port key defaults to 5432 for the postgres
// store unless written out; the schema is dbprefix0 (or dbid); -isolation
// and -dialect are checked.
func TestPostgresOptions(t *testing.T) {
	cfg := linkbench.DefaultConfig()
	o := &options{defs: overrides{}, conn: linkbench.Connection{Port: 3306}} // as buildConfig leaves it
	opts, err := pgOptions(o, &cfg)
	if err != nil || opts.Port != 5432 || opts.Schema != "linkdb0" {
		t.Fatalf("defaults: port %d schema %q, %v", opts.Port, opts.Schema, err)
	}
	o.defs["port"] = "3306"
	if opts, _ := pgOptions(o, &cfg); opts.Port != 3306 {
		t.Fatalf("port written out: %d", opts.Port)
	}
	cfg.Store.DBID = "mydb"
	if opts, _ := pgOptions(o, &cfg); opts.Schema != "mydb" {
		t.Fatalf("dbid: schema %q", opts.Schema)
	}
	for _, bad := range []*options{{isolation: "snapshot"}, {dialect: "oracle"}, {dsn: "user:pw@tcp(h:3306)/"},
		{dialect: "cockroachdb", isolation: "read-committed"}} {
		bad.defs = overrides{}
		if _, err := pgOptions(bad, &cfg); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	code, _, stderr := runCLI(t, "-isolation", "serializable")
	if code != 2 || !strings.Contains(stderr, "-store postgres") {
		t.Errorf("-isolation without -store postgres: exit %d, %s", code, stderr)
	}
}

// TestIsPostgresDSN tells the two stores' DSNs apart.
func TestIsPostgresDSN(t *testing.T) {
	for dsn, want := range map[string]bool{
		"postgres://u:p@h/db":                 true,
		"postgresql://h/db":                   true,
		"host=h port=5432 dbname=db":          true,
		"user:pw@tcp(127.0.0.1:3306)/":        false,
		"user:pw@/db?parseTime=true":          false,
		"/db":                                 false,
		"root@unix(/run/mysqld/mysqld.sock)/": false,
	} {
		if got := isPostgresDSN(dsn); got != want {
			t.Errorf("isPostgresDSN(%q) = %v", dsn, got)
		}
	}
	if got := redact("dial user:pw1@/db?x=1 failed", "user:pw1@/db?x=1", ""); strings.Contains(got, "pw1") {
		t.Errorf("MySQL password left in %q", got)
	}
	if got := redact("connect host=h password=pw2 failed", "host=h password=pw2", ""); strings.Contains(got, "pw2") {
		t.Errorf("PostgreSQL password left in %q", got)
	}
}

// TestPostgresBadInput is the part of the bad-input corpus for the
// postgres store: a request phase on fresh or missing tables and a load
// without tables are refused in one line naming the flags, exit status 2,
// before anything is written.
func TestPostgresBadInput(t *testing.T) {
	dsn := testPGDSN(t)
	fresh := uniquePrefix("pgbad_fresh")
	dropPGAfter(t, dsn, fresh, 1)
	if code, out, stderr := runCLI(t, "-store", "postgres", "-dsn", dsn, "-create-schema", "-D", "dbprefix="+fresh, "-verify"); code != 0 {
		t.Fatalf("fresh tables: exit %d\n%s\n%s", code, out, stderr)
	}
	missing := uniquePrefix("pgbad_none")
	dropPGAfter(t, dsn, missing, 1)
	pg := func(prefix string, args ...string) []string {
		return append([]string{"-store", "postgres", "-dsn", dsn, "-D", "dbprefix=" + prefix, "-D", "maxid1=101", "-D", "maxtime=5"}, args...)
	}
	stillEmpty := func(t *testing.T) {
		code, out, stderr := runCLI(t, pg(fresh, "-verify")...)
		if code != 0 || !strings.Contains(out, "nodes=0 min_id=0 max_id=0 (id1,link_type) pairs=0 counts OK") {
			t.Errorf("the fresh tables changed: exit %d\n%s\n%s", code, out, stderr)
		}
	}
	runBadInput(t, []badCase{
		{"-r on fresh tables", pg(fresh, "-r"), []string{"-r", "-l", "allow_empty_store"}, stillEmpty},
		{"-r without tables", pg(missing, "-r"), []string{"-r", "-create-schema -l"}, nil},
		{"-l without tables", pg(missing, "-l"), []string{"-l", "-create-schema"}, nil},
	})
}

// TestPostgresConnections: a request phase that needs more connections
// than the PostgreSQL server accepts is refused before it starts, with
// both numbers (it used to retry, then fail with "sorry, too many clients
// already"); during a run the server holds one backend per requester and
// none more (the store's idle sessions are closed before the phase).
func TestPostgresConnections(t *testing.T) {
	dsn := testPGDSN(t)
	prefix := uniquePrefix("pgconns")
	dropPGAfter(t, dsn, prefix, 1)
	base := []string{"-store", "postgres", "-dsn", dsn, "-D", "dbprefix=" + prefix, "-D", "maxid1=2001",
		"-D", "nlinks_func=const", "-D", "nlinks_default=4", "-D", "nlinks_config=0"}
	if code, out, stderr := runCLI(t, append(base, "-create-schema", "-l")...); code != 0 {
		t.Fatalf("load: exit %d\n%s\n%s", code, out, stderr)
	}
	ctx := context.Background()
	probe, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close(ctx)
	var limit int64
	if err := probe.QueryRow(ctx, "SELECT current_setting('max_connections')::int8").Scan(&limit); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, append(base, "-r", "-D", fmt.Sprintf("requesters=%d", limit+10), "-D", "maxtime=2")...)
	if code != 2 || !strings.Contains(stderr, "requesters") || !strings.Contains(stderr, "max_connections - superuser_reserved_connections = ") ||
		strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("requesters = max_connections + 10: exit %d, want 2 and one line naming requesters and the limit\n%s\n%s", code, out, stderr)
	}

	// The run's connections carry an application_name of their own (the
	// store keeps one given in the DSN): other packages' tests, running
	// at the same time on the same server, are not counted.
	const requesters = 4
	app := prefix + "_run"
	runBase := slices.Clone(base)
	runBase[3] = withPGParam(dsn, "application_name", app)
	done := make(chan [3]string, 1)
	go func() {
		code, out, stderr := runCLI(t, append(runBase, "-r", "-D", fmt.Sprintf("requesters=%d", requesters), "-D", "maxtime=3")...)
		done <- [3]string{fmt.Sprint(code), out, stderr}
	}()
	time.Sleep(1500 * time.Millisecond)
	var backends int64
	if err := probe.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "+
		"AND application_name = $1", app).Scan(&backends); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r[0] != "0" {
		t.Fatalf("request: exit %s\n%s\n%s", r[0], r[1], r[2])
	}
	if backends != requesters {
		t.Errorf("%d backends during a run of %d requesters, want one per requester (besides the host metrics' connection)", backends, requesters)
	}
}

// withPGParam returns the PostgreSQL DSN dsn (a postgres:// URL or
// keyword/value pairs) with the run-time parameter key=value added.
func withPGParam(dsn, key, value string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + url.QueryEscape(key) + "=" + url.QueryEscape(value)
	}
	return dsn + " " + key + "=" + value
}
