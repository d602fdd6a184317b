package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/store/audit"
)

// TestGate: without LINKBENCH_CI=1 or LINKBENCH_TEST_START_MARIADB=1 a
// test that would start MariaDB servers skips, even where mariadbd is
// installed.
func TestGate(t *testing.T) {
	var skipped bool
	t.Run("unset", func(t *testing.T) {
		t.Setenv("LINKBENCH_CI", "")
		t.Setenv("LINKBENCH_TEST_START_MARIADB", "")
		defer func() { skipped = t.Skipped() }()
		needMariaDB(t)
	})
	if !skipped {
		t.Error("needMariaDB did not skip without LINKBENCH_CI=1 or LINKBENCH_TEST_START_MARIADB=1")
	}
}

// TestCrashOptions: -crash's defaults, its cells' order and server
// options, and its bad command lines (exit 2, one line).
func TestCrashOptions(t *testing.T) {
	o, err := parseOptions([]string{"-crash"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, c := range o.crashCells() {
		cells = append(cells, c.String())
	}
	want := "crash InnoDB innodb_flush_log_at_trx_commit=1,crash ROCKSDB rocksdb_flush_log_at_trx_commit=1," +
		"crash InnoDB innodb_flush_log_at_trx_commit=0,crash ROCKSDB rocksdb_flush_log_at_trx_commit=0"
	if got := strings.Join(cells, ","); got != want || o.requesters != 16 {
		t.Errorf("cells %s, %d requesters; want %s, 16", got, o.requesters, want)
	}
	if cfg := o.crashConfig(); cfg.Requesters != 16 || cfg.MaxFailedRequests != -1 || cfg.Mix.GetNode != 0 {
		t.Errorf("config: %d requesters, max_failed_requests %d, mix %+v", cfg.Requesters, cfg.MaxFailedRequests, cfg.Mix)
	}
	got := strings.Join(crashServerOptions(crashCell{Engine: engineRocksDB, Flush: 0}), " ")
	if !strings.HasPrefix(got, "--skip-log-bin --server-id=1 --binlog-format=row") || !strings.HasSuffix(got, " --rocksdb-flush-log-at-trx-commit=0") {
		t.Errorf("ROCKSDB flush 0 options: %s", got)
	}
	if o, err := parseOptions([]string{"-crash", "-requesters", "4", "-engines", "rocksdb", "-crash-flush", "0"}, os.Stderr); err != nil ||
		o.requesters != 4 || len(o.crashCells()) != 1 || o.crashCells()[0] != (crashCell{Engine: engineRocksDB, Flush: 0}) {
		t.Errorf("-crash -requesters 4 -engines rocksdb -crash-flush 0: %+v, %v", o, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-crash", "-binlog", "on"}, "-binlog applies to the matrix, not to -crash"},
		{[]string{"-crash", "-transactions", "10"}, "-transactions applies to the matrix"},
		{[]string{"-crash", "-engines", "tokudb"}, `"tokudb" is not one of InnoDB, ROCKSDB (with -crash)`},
		{[]string{"-crash", "-crash-flush", "2"}, `-crash-flush "2": "2" is not one of 1, 0`},
		{[]string{"-crash", "-crash-at", "0s"}, "-crash-at 0s, -crash-after 3s: want > 0"},
		{[]string{"-crash-at", "1s"}, "-crash-at needs -crash"},
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

// TestCrashExit: a loss with flush at commit 1 fails the run, one with 0
// does not (it is the measurement).
func TestCrashExit(t *testing.T) {
	lost := &audit.Result{}
	lost.Ops[audit.AddLink] = audit.Counts{Acknowledged: 10, Present: 7, Lost: 3}
	none := &audit.Result{}
	none.Ops[audit.AddLink] = audit.Counts{Acknowledged: 10, Present: 10}
	for _, c := range []struct {
		rs   []crashResult
		want int
	}{
		{[]crashResult{{Cell: crashCell{engineInnoDB, 1}, Audit: none}, {Cell: crashCell{engineInnoDB, 0}, Audit: lost}}, 0},
		{[]crashResult{{Cell: crashCell{engineInnoDB, 1}, Audit: lost}}, 1},
		{[]crashResult{{Cell: crashCell{engineRocksDB, 0}, Err: os.ErrNotExist}}, 1},
	} {
		if got := crashExit(c.rs); got != c.want {
			t.Errorf("crashExit(%+v) = %d, want %d", c.rs, got, c.want)
		}
	}
}

// TestCrash runs the crash measurement at CI size: for InnoDB and
// ROCKSDB, flush at commit 1 then 0, mariadbd is killed during a
// 16-requester request phase through the audit wrapper and restarted;
// the acknowledged writes of the phase (before the kill and after the
// restart) are verified. With flush 1 none may be lost; with 0 the
// figures must add up (the number lost is the measurement). ROCKSDB with
// flush 0 sometimes refuses its WAL at the restart; the tool then
// restarts it with point-in-time recovery (logged, not a failure).
func TestCrash(t *testing.T) {
	needMariaDB(t)
	tmp := t.TempDir()
	o, err := parseOptions([]string{"-crash", "-maxid1", "2001", "-crash-at", "1500ms", "-crash-after", "1500ms", "-tmpdir", tmp}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := runCrashMatrix(context.Background(), o, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	writeCrashTable(&out, o, rs)
	t.Logf("\n%s", out.String())
	if len(rs) != 4 {
		t.Fatalf("%d cells, want 4", len(rs))
	}
	for i, r := range rs {
		if want := o.crashCells()[i]; r.Cell != want {
			t.Errorf("cell %d is %s, want %s", i, r.Cell, want)
		}
		if r.Err != nil || r.Audit == nil {
			t.Errorf("%s: %v", r.Cell, r.Err)
			continue
		}
		tot := r.Audit.Total()
		if tot.Acknowledged == 0 || tot.Present+tot.Superseded+tot.Lost != tot.Acknowledged {
			t.Errorf("%s: %+v: nothing acknowledged, or the verdicts do not add up", r.Cell, tot)
		}
		if r.AckBeforeKill == 0 || r.AckAfter == 0 || r.Downtime <= 0 || r.Requests == 0 {
			t.Errorf("%s: %d acknowledged before the kill, %d after the restart, downtime %v, %d requests: the phase did not span the crash",
				r.Cell, r.AckBeforeKill, r.AckAfter, r.Downtime, r.Requests)
		}
		if r.Vars[r.Cell.flushVariable()] != map[int]string{0: "0", 1: "1"}[r.Cell.Flush] || r.Vars["log_bin"] != "OFF" {
			t.Errorf("%s: variables %v", r.Cell, r.Vars)
		}
		if r.RecoveryError != "" {
			t.Logf("%s: ROCKSDB refused its WAL at the first restart; restarted with point-in-time recovery", r.Cell)
			if r.Cell.Engine != engineRocksDB || !strings.Contains(r.RecoveryError, "RocksDB") {
				t.Errorf("%s: recovery error %q", r.Cell, r.RecoveryError)
			}
		}
		if r.Cell.Flush == 1 {
			if tot.Lost != 0 || r.Audit.Reissued != 0 || r.CountMismatches != 0 {
				t.Errorf("%s: %d acknowledged writes lost, %d ids reissued, %d count mismatches with flush at commit 1",
					r.Cell, tot.Lost, r.Audit.Reissued, r.CountMismatches)
			}
		}
	}
	if !strings.Contains(out.String(), "acknowledged = present + superseded + lost") {
		t.Errorf("no legend:\n%s", out.String())
	}
	checkNothingLeft(t, tmp, nil)
}

// TestRestartErrors: the lines of the last start that say why ROCKSDB did
// not load.
func TestRestartErrors(t *testing.T) {
	log := "2026-12-01 1 [Note] Starting MariaDB 10.11.19 as process 1\n" +
		"2026-12-01 1 [ERROR] RocksDB: an old error\n" +
		"2026-12-01 2 [Note] Starting MariaDB 10.11.19 as process 2\n" +
		"2026-12-01 2 [Note] InnoDB: 128 rollback segments are active.\n" +
		"2026-12-01 2 [ERROR] RocksDB: Error opening instance, Status Code: 2, Status: Corruption: truncated record body\n" +
		"2026-12-01 2 [ERROR] Plugin 'ROCKSDB' registration as a STORAGE ENGINE failed.\n"
	want := "2026-12-01 2 [ERROR] RocksDB: Error opening instance, Status Code: 2, Status: Corruption: truncated record body\n" +
		"2026-12-01 2 [ERROR] Plugin 'ROCKSDB' registration as a STORAGE ENGINE failed."
	if got := restartErrors(log); got != want {
		t.Errorf("restartErrors:\n%s\nwant\n%s", got, want)
	}
}
