package cli

import (
	"context"
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/linkbench-go/linkbench/internal/testdb"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/results"
)

// TestMySQLResults is issue 9's acceptance on a local MariaDB server
// (ROCKSDB when the server has it): a load, then -steps 2, write a result
// file per phase; every column of the load and query tables has a
// measured value; ips equals the rows in the database ÷ the load's
// seconds within 1 %; the HDR interval logs read back with hdrhistogram's
// log reader and hold the phase's values.
func TestMySQLResults(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("host metrics need Linux")
	}
	dsn := testDSN(t)
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var datadir string
	if err := db.QueryRowContext(ctx, "SELECT @@datadir").Scan(&datadir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(datadir); err != nil {
		if testdb.CI() {
			t.Fatalf("the CI server's datadir %s is not on this host: %v", datadir, err)
		}
		t.Skipf("the server's datadir %s is not on this host: host metrics cannot be checked", datadir)
	}
	engine := "innodb"
	var support string
	if db.QueryRowContext(ctx, "SELECT support FROM information_schema.engines WHERE engine = 'ROCKSDB'").Scan(&support) == nil &&
		(support == "YES" || support == "DEFAULT") {
		engine = "rocksdb"
	} else if os.Getenv("LINKBENCH_TEST_MYSQL_REQUIRE_ROCKSDB") == "1" {
		t.Fatal("the server has no ROCKSDB engine")
	}
	prefix := uniquePrefix("results")
	dropAfter(t, dsn, prefix, 1)
	dir := t.TempDir()
	common := []string{"-store", "mysql", "-dsn", dsn, "-D", "engine=" + engine, "-D", "dbprefix=" + prefix,
		"-D", "maxid1=2001", "-D", "nlinks_func=const", "-D", "nlinks_default=20", "-D", "nlinks_config=0",
		"-D", "progressfreq=1", "-label", engine, "-results", dir}
	code, out, stderr := runCLI(t, append(common, "-create-schema", "-l", "-D", "loaders=2")...)
	if code != 0 {
		t.Fatalf("load: exit %d\n%s\n%s", code, out, stderr)
	}
	// The rows in the database after the load, for ips.
	var rows int64
	for _, tbl := range []string{"nodetable", "linktable", "counttable"} {
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+prefix+"0."+tbl).Scan(&n); err != nil {
			t.Fatal(err)
		}
		rows += n
		t.Logf("%s: %d rows", tbl, n)
	}
	code, out2, stderr := runCLI(t, append(common, "-r", "-steps", "2", "-D", "requesters=4", "-D", "maxtime=2")...)
	if code != 0 {
		t.Fatalf("request steps: exit %d\n%s\n%s", code, out2, stderr)
	}
	noPassword(t, dsn, out+out2+stderr)
	for _, want := range []string{"load:", "ips", "Mcpu/i", engine} {
		if !strings.Contains(out, want) {
			t.Errorf("load output has no %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"query:", "tps", "L1.P4", "L2.P4"} {
		if !strings.Contains(out2, want) {
			t.Errorf("request output has no %q:\n%s", want, out2)
		}
	}

	var files []results.File
	for _, name := range []string{engine + ".load.json", engine + ".request.L1.P4.json", engine + ".request.L2.P4.json"} {
		f, err := results.Read(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, *f)
	}
	load, query := results.Tables(files)
	if len(load.Rows) != 1 || len(query.Rows) != 2 {
		t.Fatalf("tables: %d load rows, %d query rows; want 1 and 2", len(load.Rows), len(query.Rows))
	}
	for _, tab := range []results.Table{load, query} {
		for _, r := range tab.Rows {
			for i, c := range tab.Columns {
				v := r.Values[i]
				if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0 {
					t.Errorf("%s table, %s: column %s not measured (%v)", tab.Name, r.Tag, c.Name, v)
				}
			}
			if r.Label != engine {
				t.Errorf("%s table: label %q, want %q", tab.Name, r.Label, engine)
			}
		}
	}
	// Not measured is missing, never 0: ROCKSDB's intervals have no size
	// (information_schema leaves out the memtables between flushes).
	for _, f := range files {
		for i, iv := range f.Intervals {
			if iv.Host != nil && iv.Host.SizeGB != nil && *iv.Host.SizeGB <= 0 {
				t.Errorf("%s %s interval %d: size %v GB", f.Phase, f.Tag, i, *iv.Host.SizeGB)
			}
		}
	}
	lf := files[0]
	if lf.Host == nil || len(lf.Host.Devices) == 0 || lf.Host.ServerPID == 0 {
		t.Errorf("load host metrics: %+v", lf.Host)
	}
	if lf.Server == nil || lf.Server.Version == "" || lf.Server.Settings["datadir"] == "" ||
		!strings.EqualFold(lf.Server.Settings["table_engine"], engine) {
		t.Errorf("load server: %+v", lf.Server)
	}
	if _, ok := lf.Config["password"]; ok {
		t.Error("the result file holds the password key")
	}
	if len(lf.Seeds) == 0 {
		t.Error("the load's result file has no seed")
	}
	// ips = the rows in the database ÷ the load's seconds, within 1 %.
	t.Logf("the load wrote %d nodes, %d links, %d counts", lf.Nodes, lf.Links, lf.Counts)
	ips := *load.Rows[0].Values[0]
	if want := float64(rows) / lf.Seconds; math.Abs(ips-want) > 0.01*want {
		t.Errorf("ips %.1f, want rows %d ÷ %.3f s = %.1f within 1 %%", ips, rows, lf.Seconds, want)
	}
	t.Logf("load: %d rows in %.3f s, ips %.0f; tables:\n%s%s", rows, lf.Seconds, ips, out[strings.LastIndex(out, "load:"):], out2[strings.LastIndex(out2, "query:"):])

	// InnoDB's size is the databases' directories on disk, not
	// information_schema's stale statistics: at least 40 bytes a row.
	iprefix := uniquePrefix("resinno")
	dropAfter(t, dsn, iprefix, 1)
	code, out, stderr = runCLI(t, "-store", "mysql", "-dsn", dsn, "-D", "engine=innodb", "-D", "dbprefix="+iprefix,
		"-D", "maxid1=2001", "-D", "nlinks_func=const", "-D", "nlinks_default=20", "-D", "nlinks_config=0",
		"-D", "progressfreq=1", "-label", "innodb", "-results", dir, "-create-schema", "-l")
	if code != 0 {
		t.Fatalf("innodb load: exit %d\n%s\n%s", code, out, stderr)
	}
	inno, err := results.Read(filepath.Join(dir, "innodb.load.json"))
	if err != nil {
		t.Fatal(err)
	}
	if g := inno.Host.Summary.SizeGB; g == nil {
		t.Errorf("innodb load: no size")
	} else if *g*1e9 < 40*float64(inno.Rows) {
		t.Errorf("innodb load: size %.4f GB for %d rows, want >= 40 bytes a row", *g, inno.Rows)
	} else {
		t.Logf("innodb load: %.4f GB for %d rows", *g, inno.Rows)
	}

	// linkbench compare prints every column of both tables, and plot draws them.
	checkCompareAndPlot(t, []string{filepath.Join(dir, engine+".load.json"), filepath.Join(dir, engine+".request.L1.P4.json"), filepath.Join(dir, engine+".request.L2.P4.json")})

	// Each request step's HDR logs hold its GET_NODE values.
	for _, f := range files[1:] {
		if f.Phase != stats.PhaseRequest || len(f.Intervals) == 0 {
			t.Fatalf("%s: phase %v, %d intervals", f.Tag, f.Phase, len(f.Intervals))
		}
		// The intervals' ends are seconds since the measured window's
		// start: the last one is its end.
		if last := f.Intervals[len(f.Intervals)-1]; math.Abs(last.T-f.Seconds) > 0.2 || last.Host == nil {
			t.Errorf("%s: last interval ends at %.3f s (host %v), the window at %.3f s", f.Tag, last.T, last.Host, f.Seconds)
		}
		var op *results.Op
		for i := range f.Ops {
			if f.Ops[i].Op == stats.GetNode {
				op = &f.Ops[i]
			}
		}
		if op == nil || op.HDRLog == "" {
			t.Fatalf("%s: no GET_NODE HDR log", f.Tag)
		}
		checkHDRLogs(t, dir, f)
	}
}

// checkHDRLogs fails t unless every op of f with values has an HDR
// interval log whose values add up to the op's count in the report, and
// the last interval is not a short tail (under half the one before it).
func checkHDRLogs(t *testing.T, dir string, f results.File) {
	t.Helper()
	for _, op := range f.Ops {
		if op.Sizes != nil || op.Count == 0 {
			continue
		}
		if op.HDRLog == "" {
			t.Errorf("%s %s: %s has %d values and no HDR log", f.Phase, f.Tag, op.Op, op.Count)
			continue
		}
		lf, err := os.Open(filepath.Join(dir, op.HDRLog))
		if err != nil {
			t.Fatal(err)
		}
		rd := hdr.NewHistogramLogReader(lf)
		var n int64
		for {
			h, err := rd.NextIntervalHistogram()
			if err != nil {
				t.Fatalf("%s: %v", op.HDRLog, err)
			}
			if h == nil {
				break
			}
			n += h.TotalCount()
		}
		lf.Close()
		if n != op.Count {
			t.Errorf("%s: %d values in the HDR log, the report counts %d", op.HDRLog, n, op.Count)
		}
	}
	if k := len(f.Intervals); k > 1 && f.Intervals[k-1].Seconds < f.Intervals[k-2].Seconds/2 {
		t.Errorf("%s %s: the last interval lasts %.3f s, the one before %.3f s", f.Phase, f.Tag, f.Intervals[k-1].Seconds, f.Intervals[k-2].Seconds)
	}
}

// TestStepsAndSweep: on the memory store, -steps 2 with -D requesters=1,2
// runs four request phases on the same data, tagged L1.P1, L2.P1, L1.P2,
// L2.P2, each with its requesters, its result file and its row in the
// query table; a sweep alone tags P1, P2.
func TestStepsAndSweep(t *testing.T) {
	dir := t.TempDir()
	graph := []string{"-store", "memory", "-D", "maxid1=501", "-D", "nlinks_func=const", "-D", "nlinks_default=3", "-D", "nlinks_config=0",
		"-D", "maxtime=1", "-D", "progressfreq=1", "-results", dir, "-java-percentiles", "-table", "csv"}
	code, out, stderr := runCLI(t, append(graph, "-l", "-r", "-steps", "2", "-D", "requesters=1,2", "-label", "mem")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for i, tag := range []string{"L1.P1", "L2.P1", "L1.P2", "L2.P2"} {
		f, err := results.Read(filepath.Join(dir, "mem.request."+tag+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 + i/2; f.Tag != tag || f.Threads != want || f.Requests == 0 || f.Label != "mem" {
			t.Errorf("%s: tag %q, %d requesters (want %d), %d requests, label %q", tag, f.Tag, f.Threads, want, f.Requests, f.Label)
		}
		if !strings.Contains(out, ","+tag+",mem\n") {
			t.Errorf("no query table CSV row for %s:\n%s", tag, out)
		}
	}
	lf, err := results.Read(filepath.Join(dir, "mem.load.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkHDRLogs(t, dir, *lf)
	for _, tag := range []string{"L1.P1", "L2.P2"} {
		f, err := results.Read(filepath.Join(dir, "mem.request."+tag+".json"))
		if err != nil {
			t.Fatal(err)
		}
		checkHDRLogs(t, dir, *f)
		if f.Derived.ServerMcpuPerOp != nil || f.Derived.McpuPerOp == nil && f.Host != nil {
			t.Errorf("%s: sMcpu %v without a server process (Mcpu %v)", tag, f.Derived.ServerMcpuPerOp, f.Derived.McpuPerOp)
		}
	}
	if !strings.Contains(out, "tps,r/t,rkb/t,wkb/t,Mcpu/t,sMcpu/t,size,rss,un,gn,ul,gl,r/s,rMB/s,wMB/s,cpu,tag,label\n") {
		t.Errorf("no query table CSV header:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^GET_NODE count = \d+  p25 = \[[0-9.]+,[0-9.]+\]ms  p50 = .*threads = \d+$`).MatchString(out) {
		t.Errorf("no bucket-range percentile line:\n%s", out)
	}
	code, out, stderr = runCLI(t, append(graph, "-l", "-r", "-D", "requesters=1,2")...)
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, tag := range []string{"P1", "P2"} {
		if _, err := results.Read(filepath.Join(dir, "request."+tag+".json")); err != nil {
			t.Error(err)
		}
	}
}

// TestResultFileGuards: -steps is bounded, a sweep names each value once,
// and a run does not overwrite an earlier run's result file unless
// -overwrite is given; each refusal is a usage error (exit 2) before
// anything runs.
func TestResultFileGuards(t *testing.T) {
	dir := t.TempDir()
	graph := []string{"-store", "memory", "-D", "maxid1=101", "-D", "nlinks_func=const", "-D", "nlinks_default=1", "-D", "nlinks_config=0",
		"-D", "maxtime=0", "-D", "requests=10", "-results", dir}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-steps", "1000000"}, "-steps 1000000: want a number of request phases from 1 to 10000"},
		{[]string{"-D", "requesters=2,2"}, "2 is there twice"},
	} {
		code, _, stderr := runCLI(t, append(append(graph, "-l", "-r"), c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if code, out, stderr := runCLI(t, append(graph, "-l", "-r", "-label", "x")...); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr := runCLI(t, append(graph, "-l", "-r", "-label", "x")...)
	if want := filepath.Join(dir, "x.load.json") + " exists"; code != 2 || !strings.Contains(stderr, want) || strings.Contains(out, "REQUEST") {
		t.Errorf("rerun: exit %d, stderr %q; want 2 and %q before anything runs", code, stderr, want)
	}
	if code, out, stderr := runCLI(t, append(graph, "-l", "-r", "-label", "x", "-overwrite")...); code != 0 {
		t.Fatalf("-overwrite: exit %d\n%s\n%s", code, out, stderr)
	}
}
