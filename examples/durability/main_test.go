package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run the tool in a child process (the test binary
// itself, with DURABILITY_TEST_CHILD=1 and the tool's arguments after
// "--"), so that it can be sent SIGINT.
func TestMain(m *testing.M) {
	if os.Getenv("DURABILITY_TEST_CHILD") == "1" {
		args := os.Args[1:]
		for i, a := range args {
			if a == "--" {
				args = args[i+1:]
				break
			}
		}
		os.Args = append(os.Args[:1], args...)
		main()
	}
	os.Exit(m.Run())
}

// needMariaDB skips the test without mariadbd, except in CI
// (LINKBENCH_CI=1), where a missing server is a failure.
func needMariaDB(t *testing.T) {
	t.Helper()
	if _, err := findBinaries(""); err != nil {
		if os.Getenv("LINKBENCH_CI") == "1" {
			t.Fatalf("LINKBENCH_CI=1 and %v", err)
		}
		t.Skipf("skipped: %v (install mariadb-server and mariadb-plugin-rocksdb to run it)", err)
	}
}

// wantVars are the published option sets, as SHOW VARIABLES shows them,
// written out here independently of the tool's tables: key "<durability>
// master" or "<durability> replica".
var wantVars = map[string]map[string]string{
	"worst master":  {"sync_binlog": "1", "innodb_flush_log_at_trx_commit": "1", "rocksdb_flush_log_at_trx_commit": "1", "server_id": "1", "log_slave_updates": "OFF"},
	"worst replica": {"sync_binlog": "1", "innodb_flush_log_at_trx_commit": "1", "rocksdb_flush_log_at_trx_commit": "1", "server_id": "2", "log_slave_updates": "ON"},
	"best master":   {"sync_binlog": "0", "innodb_flush_log_at_trx_commit": "0", "rocksdb_flush_log_at_trx_commit": "0", "server_id": "1", "log_slave_updates": "OFF"},
	"best replica":  {"sync_binlog": "0", "innodb_flush_log_at_trx_commit": "2", "rocksdb_flush_log_at_trx_commit": "2", "server_id": "2", "log_slave_updates": "ON"},
}

// checkVars checks a server's recorded variables against the published
// options of cell c.
func checkVars(t *testing.T, c cell, role string, got map[string]string) {
	t.Helper()
	want := map[string]string{
		"binlog_format":           "ROW",
		"tx_isolation":            "READ-COMMITTED",
		"innodb_buffer_pool_size": "524288000",
		"innodb_log_file_size":    "1048576000",
		"log_bin":                 map[bool]string{false: "OFF", true: "ON"}[c.Binlog],
	}
	for k, v := range wantVars[c.Durability+" "+role] {
		if k == "rocksdb_flush_log_at_trx_commit" && c.Engine != engineRocksDB {
			continue
		}
		want[k] = v
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s %s: %s = %q, want %q", c, role, k, got[k], v)
		}
	}
}

// TestCISizedRun runs the whole matrix at CI size (500 transactions per
// cell) and checks every cell: measured values where it runs, the reason
// where it does not, the servers' options, the replica's catch-up, the
// time bound, and that nothing is left behind.
func TestCISizedRun(t *testing.T) {
	needMariaDB(t)
	tmp := t.TempDir()
	o, err := parseOptions([]string{"-transactions", "500", "-maxid1", "2001", "-tmpdir", tmp}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	results, err := runMatrix(context.Background(), o, t.Logf)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	writeTable(&out, o, results)
	t.Logf("whole matrix in %.1f s:\n%s", took.Seconds(), out.String())
	if took > 3*time.Minute {
		t.Errorf("the CI-sized run took %v, want under 3 minutes", took)
	}
	if len(results) != 24 {
		t.Fatalf("%d results, want 24 (3 engines x 2 binlog x 2 durability x 2 replica)", len(results))
	}
	ran := 0
	for _, r := range results {
		c := r.Cell
		switch {
		case c.Engine == engineTokuDB:
			if !strings.Contains(r.Skip, "not available in MariaDB 10.11") {
				t.Errorf("%s: skip %q, want not available in MariaDB 10.11", c, r.Skip)
			}
			continue
		case c.Replica && !c.Binlog:
			if !strings.Contains(r.Skip, "not applicable") {
				t.Errorf("%s: skip %q, want not applicable", c, r.Skip)
			}
			continue
		}
		ran++
		if r.Err != nil || r.Skip != "" {
			t.Errorf("%s: err %v, skip %q", c, r.Err, r.Skip)
			continue
		}
		if r.Transactions != 500 || r.Elapsed <= 0 || r.Commits < 400 {
			t.Errorf("%s: %d transactions, %d commits in %v", c, r.Transactions, r.Commits, r.Elapsed)
		}
		checkVars(t, c, "master", r.MasterVars)
		in, rk, bl := r.fsyncs()
		if c.Binlog {
			if r.Delta["binlog_commits"] < r.Commits*9/10 || r.Delta["binlog_group_commits"] < 1 {
				t.Errorf("%s: Binlog_commits +%d, Binlog_group_commits +%d for %d commits", c, r.Delta["binlog_commits"], r.Delta["binlog_group_commits"], r.Commits)
			}
		} else if r.Delta["binlog_commits"] != 0 {
			t.Errorf("%s: Binlog_commits +%d without a binary log", c, r.Delta["binlog_commits"])
		}
		if c.Durability == "worst" {
			// Sync on commit: the engine's log is synced at least once per
			// ten commits even with group commit of 4 requesters, and the
			// binary log once per group commit.
			engine := in
			if c.Engine == engineRocksDB {
				engine = rk
			}
			if engine*10 < r.Commits {
				t.Errorf("%s: %d engine fsyncs for %d commits with sync on commit", c, engine, r.Commits)
			}
			if c.Binlog && bl == 0 {
				t.Errorf("%s: no binlog sync with sync_binlog=1", c)
			}
		} else if c.Engine == engineRocksDB && rk*10 > r.Commits {
			// No sync on commit: a WAL sync only now and then (a memtable
			// flush, a background sync).
			t.Errorf("%s: %d RocksDB WAL syncs for %d commits with rocksdb_flush_log_at_trx_commit=0", c, rk, r.Commits)
		}
		if !c.Replica {
			continue
		}
		checkVars(t, c, "replica", r.ReplicaVars)
		if !r.CaughtUp || r.MasterGTID == "" || r.MasterGTID != r.ReplicaGTID {
			t.Errorf("%s: caught up %v, master @@gtid_binlog_pos %q, replica @@gtid_slave_pos %q", c, r.CaughtUp, r.MasterGTID, r.ReplicaGTID)
		}
		if r.MasterRows != r.ReplicaRows || r.MasterRows[0] == 0 || r.MasterRows[2] == 0 {
			t.Errorf("%s: rows (link, count, node) master %v, replica %v", c, r.MasterRows, r.ReplicaRows)
		}
	}
	if ran != 12 {
		t.Errorf("%d cells ran, want 12", ran)
	}
	// The text: a row per cell with measured values.
	for _, r := range results {
		c := r.Cell
		prefix := strings.Join([]string{c.Engine, onOff(c.Binlog), c.Durability, noneOne(c.Replica), "linkbench"}, " ")
		found := false
		for _, line := range strings.Split(out.String(), "\n") {
			f := strings.Fields(line)
			if len(f) >= 14 && strings.Join(f[:5], " ") == prefix {
				found = true
				if r.Skip == "" && (f[5] != "500" || f[6] == "-" || f[7] == "-") {
					t.Errorf("row %q: no measured values", line)
				}
			}
		}
		if !found {
			t.Errorf("no row for %s", prefix)
		}
	}
	checkNothingLeft(t, tmp, nil)
}

// mariadbdUnder returns the pids and ports of the mariadbd processes
// whose command line mentions dir.
func mariadbdUnder(dir string) (pids []int, ports []int) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(dir)) {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if !strings.HasSuffix(args[0], "mariadbd") {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:])); len(f) > 0 && f[0] == "Z" {
				continue // exited, not yet reaped
			}
		}
		pids = append(pids, pid)
		for _, a := range args {
			if p, ok := strings.CutPrefix(a, "--port="); ok {
				n, _ := strconv.Atoi(p)
				ports = append(ports, n)
			}
		}
	}
	return pids, ports
}

// checkNothingLeft checks that no mariadbd of dir runs, that nothing
// listens on ports, and that dir is empty.
func checkNothingLeft(t *testing.T, dir string, ports []int) {
	t.Helper()
	if pids, _ := mariadbdUnder(dir); len(pids) > 0 {
		t.Errorf("mariadbd processes left running: %v", pids)
	}
	for _, p := range ports {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p), time.Second); err == nil {
			c.Close()
			t.Errorf("something still listens on 127.0.0.1:%d", p)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("left in the temporary directory: %s", e.Name())
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSIGINT interrupts the tool while a master and a replica run: it
// exits with status 130, its servers are gone, nothing listens on their
// ports and its temporary directory is removed.
func TestSIGINT(t *testing.T) {
	needMariaDB(t)
	tmp := t.TempDir()
	var stdout, stderr syncBuffer
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "-engines", "innodb", "-binlog", "on", "-durability", "worst",
		"-replica", "one", "-transactions", "400000", "-maxid1", "2001", "-tmpdir", tmp)
	cmd.Env = append(os.Environ(), "DURABILITY_TEST_CHILD=1")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait for the measured transactions (the replica applied the load).
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(stderr.String(), "replica applied the load") {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the run did not get to its transactions:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	pids, ports := mariadbdUnder(tmp)
	if len(pids) != 2 || len(ports) != 2 {
		_ = cmd.Process.Kill()
		t.Fatalf("want a master and a replica running, found mariadbd %v on ports %v", pids, ports)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("exit: %v, want status 130\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("no exit 90 s after SIGINT:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted; servers stopped") {
		t.Errorf("stderr does not say the run was interrupted:\n%s", stderr.String())
	}
	for _, p := range pids {
		if err := syscall.Kill(p, 0); err == nil {
			t.Errorf("mariadbd %d still exists", p)
		}
	}
	checkNothingLeft(t, tmp, ports)
}

// TestSysbench runs one cell with -sysbench when sysbench is installed.
func TestSysbench(t *testing.T) {
	needMariaDB(t)
	if _, err := findSysbench(); err != nil {
		t.Skipf("skipped: %v", err)
	}
	if testing.Short() {
		t.Skip("skipped in -short mode")
	}
	tmp := t.TempDir()
	o, err := parseOptions([]string{"-engines", "rocksdb", "-binlog", "on", "-durability", "best", "-replica", "one",
		"-transactions", "300", "-maxid1", "1001", "-sysbench", "-sysbench-table-size", "10000", "-tmpdir", tmp}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	results, err := runMatrix(context.Background(), o, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	writeTable(&out, o, results)
	t.Logf("\n%s", out.String())
	if len(results) != 2 || results[1].Workload != "sysbench" {
		t.Fatalf("want a linkbench and a sysbench row, got %d rows", len(results))
	}
	r := results[1]
	if r.Err != nil || r.Transactions != 300 || r.Elapsed <= 0 || r.Commits < 300 || !r.CaughtUp || r.MasterGTID != r.ReplicaGTID {
		t.Errorf("sysbench: err %v, %d transactions, %d commits, %v, caught up %v, GTIDs %q %q",
			r.Err, r.Transactions, r.Commits, r.Elapsed, r.CaughtUp, r.MasterGTID, r.ReplicaGTID)
	}
	checkNothingLeft(t, tmp, nil)
}

// TestBadCommandLine: bad values are one-line errors naming the flag,
// exit status 2.
func TestBadCommandLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-engines", "innodb,myisam"}, `-engines "innodb,myisam": "myisam" is not one of InnoDB, ROCKSDB, TokuDB`},
		{[]string{"-durability", "medium"}, `-durability "medium"`},
		{[]string{"-transactions", "0"}, `-transactions "0": want whole numbers >= 1`},
		{[]string{"-transactions", "1,2,3"}, `want N or WORST,BEST`},
		{[]string{"-mix", "addlink=50,getnode=50"}, `"getnode=50": want op=percent with op one of addlink`},
		{[]string{"-mix", "addlink=50,updatelink=40"}, `sum to 90, want 100`},
		{[]string{"-requesters", "0"}, `-requesters`},
		{[]string{"-maxid1", "1"}, `maxid1`},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), c.args, &bytes.Buffer{}, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(stderr.String(), c.want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
			t.Errorf("%v: stderr %q, want one line with %q", c.args, stderr.String(), c.want)
		}
	}
}

// TestOptions: the transactions, the mix and the server options of each
// cell.
func TestOptions(t *testing.T) {
	o, err := parseOptions([]string{"-transactions", "5000,400000", "-mix", "addlink=60,updatelink=30,deletenode=10"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if o.transactions("worst") != 5000 || o.transactions("best") != 400000 {
		t.Errorf("transactions %d, %d", o.transactions("worst"), o.transactions("best"))
	}
	if cfg := o.config("best"); cfg.Requests != 100000 || cfg.Requesters != 4 || cfg.Mix.AddLink != 60 || cfg.Mix.DeleteNode != 10 || cfg.Mix.GetNode != 0 {
		t.Errorf("config: %d requests x %d, mix %+v", cfg.Requests, cfg.Requesters, cfg.Mix)
	}
	m := defaultMix()
	if s := m.Sum(); s < 100-1e-9 || s > 100+1e-9 || m.GetNode != 0 || m.AddLink <= m.UpdateLink {
		t.Errorf("default mix %+v (sum %g)", m, s)
	}
	got := strings.Join(serverOptions(cell{Engine: engineRocksDB, Binlog: true, Durability: "best", Replica: true}, true, true), " ")
	want := "--log-bin=mariadb-bin --binlog-format=row --transaction-isolation=READ-COMMITTED --innodb-buffer-pool-size=500M --innodb-log-file-size=1000M " +
		"--server-id=2 --log-slave-updates --skip-slave-start --sync-binlog=0 --innodb-flush-log-at-trx-commit=2 --rocksdb-flush-log-at-trx-commit=2"
	if got != want {
		t.Errorf("best replica options:\n%s\nwant\n%s", got, want)
	}
	got = strings.Join(serverOptions(cell{Engine: engineInnoDB, Binlog: false, Durability: "worst"}, false, false), " ")
	want = "--skip-log-bin --binlog-format=row --transaction-isolation=READ-COMMITTED --innodb-buffer-pool-size=500M --innodb-log-file-size=1000M " +
		"--server-id=1 --sync-binlog=1 --innodb-flush-log-at-trx-commit=1"
	if got != want {
		t.Errorf("worst master options:\n%s\nwant\n%s", got, want)
	}
}

// TestGTIDs: positions compare per domain.
func TestGTIDs(t *testing.T) {
	for _, c := range []struct {
		got, want string
		reached   bool
	}{
		{"0-1-10", "0-1-10", true},
		{"0-1-9", "0-1-10", false},
		{"0-1-11", "0-1-10", true},
		{"0-1-10,1-2-5", "0-1-10,1-2-6", false},
		{"1-2-6,0-1-10", "0-1-10,1-2-6", true},
		{"", "0-1-1", false},
		{"", "", true},
	} {
		g, err1 := parseGTIDs(c.got)
		w, err2 := parseGTIDs(c.want)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if reached(g, w) != c.reached {
			t.Errorf("reached(%q, %q) = %v", c.got, c.want, !c.reached)
		}
	}
	if _, err := parseGTIDs("0-1"); err == nil {
		t.Error("parseGTIDs(0-1): no error")
	}
}
