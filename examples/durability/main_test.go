package main

import (
	"bufio"
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

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/results"
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

// needMariaDB gates the tests that start MariaDB servers of their own:
// they run only with LINKBENCH_CI=1 (CI) or LINKBENCH_TEST_START_MARIADB=1,
// and skip otherwise; without mariadbd they skip, except in CI, where a
// missing server is a failure.
func needMariaDB(t *testing.T) {
	t.Helper()
	ci := os.Getenv("LINKBENCH_CI") == "1"
	if !ci && os.Getenv("LINKBENCH_TEST_START_MARIADB") != "1" {
		t.Skip("skipped: starts throwaway MariaDB servers; set LINKBENCH_TEST_START_MARIADB=1 (or LINKBENCH_CI=1) to run it")
	}
	if _, err := findBinaries(""); err != nil {
		if ci {
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
	resDir := filepath.Join(t.TempDir(), "results")
	o, err := parseOptions([]string{"-transactions", "500", "-maxid1", "2001", "-tmpdir", tmp, "-results", resDir}, os.Stderr)
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
	checkResultFiles(t, resDir, results)
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

// checkResultFiles checks that dir holds one result file per measured
// cell of rs, and nothing else, that results.Read reads each back, and
// that each holds its cell's label, options, version and counters.
func checkResultFiles(t *testing.T, dir string, rs []result) {
	t.Helper()
	want := 0
	for _, r := range rs {
		if r.Workload != "linkbench" || r.Skip != "" || r.Err != nil {
			continue
		}
		want++
		f, err := results.Read(filepath.Join(dir, r.fileName()))
		if err != nil {
			t.Errorf("%s: %v", r.Cell, err)
			continue
		}
		c := r.Cell
		if f.Label != c.label() || !strings.HasPrefix(f.Label, c.Engine+"/binlog="+onOff(c.Binlog)+"/"+c.Durability+"/replica="+noneOne(c.Replica)) {
			t.Errorf("%s: label %q", c, f.Label)
		}
		if f.Phase != stats.PhaseRequest || f.Requests != r.Transactions || f.Seconds <= 0 || len(f.Ops) == 0 || f.Threads != 4 {
			t.Errorf("%s: phase %v, %d requests (want %d), %g s, %d ops, %d threads", c, f.Phase, f.Requests, r.Transactions, f.Seconds, len(f.Ops), f.Threads)
		}
		if f.Server == nil || !strings.HasPrefix(f.Server.Version, "10.") || f.Server.Settings["sync_binlog"] != r.MasterVars["sync_binlog"] ||
			f.Server.Settings["innodb_flush_log_at_trx_commit"] != r.MasterVars["innodb_flush_log_at_trx_commit"] {
			t.Errorf("%s: server %+v", c, f.Server)
		} else if c.Replica && f.Server.Settings["replica.server_id"] != "2" {
			t.Errorf("%s: replica settings missing: %v", c, f.Server.Settings)
		}
		if f.Config["durability.durability"] != c.Durability || f.Config["requesters"] != "4" {
			t.Errorf("%s: config durability %q, requesters %q", c, f.Config["durability.durability"], f.Config["requesters"])
		}
		if f.Counters["commits"] != r.Commits || f.Counters["com_commit"] != r.Delta["com_commit"] || f.Counters["binlog_group_commits"] != r.Delta["binlog_group_commits"] {
			t.Errorf("%s: counters %v", c, f.Counters)
		}
		if c.Replica && f.Counters["replica_catchup_us"] != r.CatchUp.Microseconds() {
			t.Errorf("%s: replica_catchup_us %d, want %d", c, f.Counters["replica_catchup_us"], r.CatchUp.Microseconds())
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != want {
		t.Errorf("%d files in -results, want %d (one per measured cell)", len(ents), want)
	}
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
	if !strings.Contains(stderr.String(), "interrupted by interrupt; servers stopped") {
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
		{[]string{"-catchup-timeout", "0s"}, `-catchup-timeout 0s: want > 0`},
		{[]string{"-catchup-timeout", "-1m"}, `-catchup-timeout -1m0s: want > 0`},
		{[]string{"-engines", "INNODB,innodb"}, `-engines "INNODB,innodb": "InnoDB" is listed twice`},
		{[]string{"-replica", "none,one,none"}, `"none" is listed twice`},
		{[]string{"-tmpdir", "/nonexistent-durability-dir"}, `-tmpdir "/nonexistent-durability-dir": not an existing directory`},
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

// TestHelp: -h prints the usage and exits 0.
func TestHelp(t *testing.T) {
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &bytes.Buffer{}, &stderr); code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
	if !strings.Contains(stderr.String(), "-catchup-timeout") || !strings.Contains(stderr.String(), "-results") {
		t.Errorf("-h: no usage:\n%s", stderr.String())
	}
}

// TestTmpdir: a relative -tmpdir is made absolute; one on tmpfs is
// flagged, on stderr and in the table.
func TestTmpdir(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("rel", 0o755); err != nil {
		t.Fatal(err)
	}
	o, err := parseOptions([]string{"-tmpdir", "rel"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if o.tmpdir != filepath.Join(wd, "rel") {
		t.Errorf("-tmpdir rel: %q, want %q", o.tmpdir, filepath.Join(wd, "rel"))
	}
	if !onTmpfs("/dev/shm") {
		t.Skip("/dev/shm is not tmpfs here")
	}
	if onTmpfs("/proc") {
		t.Error("onTmpfs(/proc) = true")
	}
	o, err = parseOptions([]string{"-tmpdir", "/dev/shm"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if !o.tmpfs {
		t.Fatal("-tmpdir /dev/shm: not seen as tmpfs")
	}
	var out bytes.Buffer
	writeTable(&out, o, []result{{Cell: cell{Engine: engineInnoDB, Durability: "worst"}, Workload: "linkbench", Transactions: 8, Elapsed: time.Second, Commits: 8}})
	if !strings.Contains(out.String(), "NOTE: the temporary directory /dev/shm is on tmpfs") || !strings.Contains(out.String(), "fsync costs are not measured") {
		t.Errorf("no tmpfs note in the table:\n%s", out.String())
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
	o, err = parseOptions([]string{"-transactions", "5001,10", "-requesters", "4"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if w, b := o.transactionsDone("worst"), o.transactionsDone("best"); w != 5004 || b != 12 {
		t.Errorf("transactions done %d, %d, want 5004, 12 (rounded up to a multiple of 4 requesters)", w, b)
	}
	var out bytes.Buffer
	writeSideBySide(&out, o, []result{{Cell: cell{Engine: engineInnoDB, Durability: "worst"}, Workload: "linkbench", Transactions: 5004, Elapsed: time.Second}})
	if !strings.Contains(out.String(), "worst (5004 tx)") {
		t.Errorf("side-by-side header does not show the 5004 transactions done:\n%s", out.String())
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

// TestSIGHUP: a hangup after the first of two cells was measured stops
// the second cell's server, removes the temporary directory and exits with
// 129; stdout keeps the first cell's row (and its result file is written)
// and says the table is partial.
func TestSIGHUP(t *testing.T) {
	needMariaDB(t)
	tmp := t.TempDir()
	resDir := filepath.Join(t.TempDir(), "results")
	var stdout, stderr syncBuffer
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "-engines", "innodb", "-binlog", "off", "-durability", "worst,best",
		"-replica", "none", "-transactions", "200,400000", "-maxid1", "2001", "-tmpdir", tmp, "-results", resDir)
	cmd.Env = append(os.Environ(), "DURABILITY_TEST_CHILD=1")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(stderr.String(), "InnoDB binlog=off best replica=none: loaded") {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the run did not get to its second cell:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	pids, ports := mariadbdUnder(tmp)
	if len(pids) != 1 {
		_ = cmd.Process.Kill()
		t.Fatalf("want one mariadbd running, found %v", pids)
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 129 {
			t.Errorf("exit: %v, want status 129\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("no exit 90 s after SIGHUP:\n%s", stderr.String())
	}
	out := stdout.String()
	t.Logf("stdout:\n%s", out)
	if !strings.Contains(out, "INTERRUPTED: 1 of 2 cells measured") {
		t.Errorf("stdout does not say 1 of 2 cells measured:\n%s", out)
	}
	first := false
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 8 && strings.Join(f[:6], " ") == "InnoDB off worst none linkbench 200" && f[6] != "-" {
			first = true
		}
	}
	if !first {
		t.Errorf("no measured row of the first cell:\n%s", out)
	}
	if _, err := results.Read(filepath.Join(resDir, "innodb.binlog-off.worst.replica-none.json")); err != nil {
		t.Errorf("the first cell's result file: %v", err)
	}
	if ents, _ := os.ReadDir(resDir); len(ents) != 1 {
		t.Errorf("%d result files, want 1", len(ents))
	}
	for _, p := range pids {
		if err := syscall.Kill(p, 0); err == nil {
			t.Errorf("mariadbd %d still exists", p)
		}
	}
	checkNothingLeft(t, tmp, ports)
}

// TestClosedOutput: the reader of the tool's stderr going away (as with
// durability 2>&1 | head -3) is an interruption like SIGPIPE's: the tool
// stops its server, removes its temporary directory and exits with 141.
func TestClosedOutput(t *testing.T) {
	needMariaDB(t)
	tmp := t.TempDir()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout syncBuffer
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "-engines", "innodb", "-binlog", "off", "-durability", "best",
		"-replica", "none", "-transactions", "400000", "-maxid1", "2001", "-tmpdir", tmp)
	cmd.Env = append(os.Environ(), "DURABILITY_TEST_CHILD=1")
	cmd.Stdout, cmd.Stderr = &stdout, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Read up to the servers' start, then go away.
	sc := bufio.NewScanner(pr)
	var seen []string
	var pids []int
	var ports []int
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if strings.Contains(sc.Text(), "servers up") {
			pids, ports = mariadbdUnder(tmp)
			break
		}
	}
	pr.Close()
	if len(pids) != 1 {
		_ = cmd.Process.Kill()
		t.Fatalf("want one mariadbd running at \"servers up\", found %v; stderr:\n%s", pids, strings.Join(seen, "\n"))
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 141 {
			t.Errorf("exit: %v, want status 141 (128 + SIGPIPE)", err)
		}
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("no exit 90 s after its stderr was closed")
	}
	if !strings.Contains(stdout.String(), "INTERRUPTED: 0 of 1 cells measured") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	for _, p := range pids {
		if err := syscall.Kill(p, 0); err == nil {
			t.Errorf("mariadbd %d still exists", p)
		}
	}
	checkNothingLeft(t, tmp, ports)
}
