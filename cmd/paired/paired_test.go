package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestParseStrace reads a summary strace 6.1 wrote (strace -f -c over a
// linkbench-go request phase on MariaDB): every line but total, the empty
// errors cells as 0.
func TestParseStrace(t *testing.T) {
	c := parseStraceFile(t, "testdata/strace-go-6.1.txt")
	if len(c) != 48 {
		t.Errorf("%d system calls, want 48", len(c))
	}
	if _, ok := c["total"]; ok {
		t.Error("the total line was counted as a system call")
	}
	var calls, errs int64
	for _, v := range c {
		calls += v.calls
		errs += v.errors
	}
	if calls != 13439 || errs != 2492 {
		t.Errorf("sum %d calls %d errors, want the total line's 13439 and 2492", calls, errs)
	}
	for name, want := range map[string]syscallCount{
		"futex": {144, 7}, "read": {5246, 2448}, "write": {2819, 0}, "epoll_pwait": {4079, 0}, "connect": {5, 5}, "prctl": {1, 1},
	} {
		if c[name] != want {
			t.Errorf("%s = %+v, want %+v", name, c[name], want)
		}
	}
}

// TestParseStraceTotals: in the summaries strace 6.1 wrote over
// linkbench-go's and Java LinkBench's request phases (the JVM's many
// threads and kinds of calls), the calls and errors read add up to the
// total line's.
func TestParseStraceTotals(t *testing.T) {
	for _, name := range []string{"testdata/strace-go-6.1.txt", "testdata/strace-java-6.1.txt"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseStrace(strings.NewReader(string(b)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		f := strings.Fields(lines[len(lines)-1])
		if len(f) != 6 || f[5] != "total" {
			t.Fatalf("%s: last line %q", name, lines[len(lines)-1])
		}
		var calls, errs int64
		for _, v := range c {
			calls += v.calls
			errs += v.errors
		}
		if got := fmt.Sprint(calls, " ", errs); got != f[3]+" "+f[4] {
			t.Errorf("%s: calls and errors %s, want the total line's %s %s", name, got, f[3], f[4])
		}
	}
}

// TestParseStraceTables: the tables of several personalities are summed,
// a syscall column wider than LinkBench's names is read whole, and a value
// wider than its column (older strace's fixed widths) is read from the
// line's fields instead of being cut.
func TestParseStraceTables(t *testing.T) {
	c := parseStraceFile(t, "testdata/strace-personalities.txt")
	want := map[string]syscallCount{
		"read":                   {1010, 999},
		"futex":                  {123456799, 100002},
		"clock_nanosleep_time64": {3, 0},
		"epoll_pwait":            {1234567890, 100000},
		"write":                  {1000, 0},
	}
	if len(c) != len(want) {
		t.Errorf("got %v, want %v", c, want)
	}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("%s = %+v, want %+v", k, c[k], v)
		}
	}
	for _, bad := range []string{
		"",
		"strace: exec: No such file or directory\n",
		"% time     seconds  usecs/call     calls    errors syscall\n------ ----------- ----------- --------- --------- ------\n 1.00 0.1 1 x 1 read\n",
	} {
		if _, err := parseStrace(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestSyscallRows: calls per request, sorted by their sum over the tools,
// the total first, rare calls (start-up) left out and counted.
func TestSyscallRows(t *testing.T) {
	java := map[string]syscallCount{"read": {6000, 0}, "futex": {2000, 0}, "execve": {1, 0}}
	goc := map[string]syscallCount{"read": {4000, 2000}, "epoll_pwait": {8000, 0}, "execve": {1, 0}}
	rows, left := syscallRows([]map[string]syscallCount{java, goc}, []int64{2000, 4000})
	var names []string
	for _, r := range rows {
		names = append(names, r.name)
	}
	if want := []string{"total", "read", "epoll_pwait", "futex"}; !slices.Equal(names, want) || left != 1 {
		t.Fatalf("rows %v (left out %d), want %v (left out 1)", names, left, want)
	}
	if r := rows[1]; r.calls[0] != 3 || r.calls[1] != 1 || r.errs[1] != 0.5 {
		t.Errorf("read: %+v, want 3 and 1 calls per request, go 0.5 errors", r)
	}
	if tot := rows[0]; math.Abs(tot.calls[0]-4.0005) > 1e-9 || math.Abs(tot.calls[1]-3.00025) > 1e-9 {
		t.Errorf("total: %+v", tot)
	}
}

func TestMedianSpread(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want string
	}{
		{[]float64{1.32, 1.08, 1.15}, "1.15 (1.08-1.32)"},
		{[]float64{1.2, 1.0}, "1.10 (1.00-1.20)"},
		{[]float64{0.9}, "0.90"},
	} {
		if got := medianSpread(c.v, 2); got != c.want {
			t.Errorf("medianSpread(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// TestPrintMedians: with both tools, each tool's median and the median of
// the per-pair ratios with their spread; levels (dirty pages) get no ratio.
func TestPrintMedians(t *testing.T) {
	pair := func(j, g float64) result {
		return result{
			"java": {nil, &measurement{requests: 100, reportRate: j, start: map[string]int64{"Innodb_buffer_pool_pages_dirty": 5}}},
			"go":   {nil, &measurement{requests: 100, reportRate: g, start: map[string]int64{"Innodb_buffer_pool_pages_dirty": 7}}},
		}
	}
	var b strings.Builder
	printMedians(&b, []string{"java", "go"}, []result{pair(1000, 1150), pair(1000, 1320), pair(1000, 1080)})
	lines := map[string]string{}
	for _, l := range strings.Split(b.String(), "\n") {
		if len(l) > 30 {
			lines[strings.TrimSpace(l[:30])] = strings.Join(strings.Fields(l[30:]), " ")
		}
	}
	if got := lines["request tps"]; got != "1000 1150 1.15 (1.08-1.32)" {
		t.Errorf("request tps: %q\n%s", got, b.String())
	}
	if got := lines["server dirty pages at start"]; got != "5 7 -" {
		t.Errorf("dirty pages: %q", got)
	}
	if _, ok := lines["load rows/s"]; ok {
		t.Error("load rows printed with no load measured")
	}
	b.Reset()
	printMedians(&b, []string{"go"}, []result{pair(1, 3), pair(1, 2), pair(1, 9)})
	if !strings.Contains(b.String(), "request tps                               3  (2-9)") {
		t.Errorf("go alone:\n%s", b.String())
	}
}

// TestPairOrder: pair 1 runs java then go, pair 2 go then java, and so on.
func TestPairOrder(t *testing.T) {
	tools := []tool{{name: "java"}, {name: "go"}}
	for p, want := range [][]string{{"java", "go"}, {"go", "java"}, {"java", "go"}, {"go", "java"}} {
		if got := toolNames(pairOrder(p, tools)); !slices.Equal(got, want) {
			t.Errorf("pair %d: %v, want %v", p+1, got, want)
		}
	}
	if got := toolNames(pairOrder(1, tools[1:])); !slices.Equal(got, []string{"go"}) {
		t.Errorf("go alone: %v", got)
	}
	if toolNames(tools)[0] != "java" {
		t.Error("pairOrder changed the tools' slice")
	}
}

// TestParseMethod: the defaults (load once with go, 3 pairs, settle 120s,
// the real graph), the graphs' keys, and the method's flags refused
// together or with bad values, as usage errors naming the flag.
func TestParseMethod(t *testing.T) {
	dsn := []string{"-dsn", "u:p@tcp(127.0.0.1:1)/"}
	o, err := parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if o.loadWith != "go" || o.pairs != 3 || o.settle != 120*time.Second || o.graph != "real" || o.maxid1 != 200001 {
		t.Errorf("defaults: %+v", o)
	}
	if got := graphDefs(o); !slices.Equal(got, []string{"maxid1=200001"}) {
		t.Errorf("real graph: %v", got)
	}
	o, err = parse(append(dsn, "-graph", "small"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := graphDefs(o), []string{"maxid1=20001", "nlinks_func=const", "nlinks_default=10", "nlinks_config=0"}; !slices.Equal(got, want) {
		t.Errorf("small graph: %v, want %v", got, want)
	}
	o, err = parse(append(dsn, "-graph", "small", "-maxid1", "5001"))
	if err != nil || graphDefs(o)[0] != "maxid1=5001" {
		t.Errorf("-maxid1 does not override the graph's: %v, %v", o, err)
	}
	if o, err := parse(append(dsn, "-skip-load")); err != nil || o.loadWith != "" {
		t.Errorf("-skip-load: %+v, %v", o, err)
	}
	if o, err := parse(append(dsn, "-load-each")); err != nil || o.loadWith != "" || !o.loadEach {
		t.Errorf("-load-each: %+v, %v", o, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-graph", "big"}, `-graph "big": want real or small`},
		{[]string{"-load-with", "python"}, `-load-with "python": want go or java`},
		{[]string{"-load-with", "java"}, "-load-with java: needs -java"},
		{[]string{"-skip-load", "-load-each"}, "-skip-load and -load-each"},
		{[]string{"-load-each", "-load-with", "go"}, "-load-with: not with"},
		{[]string{"-skip-load", "-load-with", "go"}, "-load-with: not with"},
		{[]string{"-settle", "-1s"}, "-settle -1s: want >= 0"},
		{[]string{"-pairs", "0"}, "-pairs"},
		{[]string{"-maxid1", "1"}, "-maxid1 1: want >= 2"},
	} {
		_, err := parse(append(append([]string(nil), dsn...), c.args...))
		var ue usageErr
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a usage error containing %q", c.args, err, c.want)
		}
	}
}

// TestRunBadGraph: a bad -graph fails run (exit 2 in main) before the
// server is touched (-dsn names a port nothing listens on).
func TestRunBadGraph(t *testing.T) {
	err := run([]string{"-dsn", "u:p@tcp(127.0.0.1:1)/", "-graph", "huge"}, io.Discard)
	var ue usageErr
	if !errors.As(err, &ue) || err.Error() != `-graph "huge": want real or small` {
		t.Errorf("run = %v, want the usage error naming -graph and its values", err)
	}
}

// TestQuiet: the settling rule on sequences of samples one second apart.
func TestQuiet(t *testing.T) {
	s := func(sec int, dirty, written, flushed int64) flushSample {
		return flushSample{at: time.Duration(sec) * time.Second, dirty: dirty, total: 8000, written: written, flushed: flushed}
	}
	for _, c := range []struct {
		name string
		w    []flushSample
		want bool
	}{
		{"too few samples", []flushSample{s(0, 0, 0, 0), s(1, 0, 0, 0)}, false},
		{"idle, no dirty pages", []flushSample{s(0, 0, 0, 0), s(1, 0, 0, 0), s(2, 0, 0, 0)}, true},
		{"a trickle", []flushSample{s(0, 10, 0, 0), s(1, 10, 1000, 0), s(2, 10, 2000, 0)}, true},
		{"flushing", []flushSample{s(0, 5000, 0, 0), s(1, 4800, 200<<14, 200), s(2, 4600, 400<<14, 400)}, false},
		{"flushing then idle, dirty high but no longer falling", []flushSample{s(0, 5000, 0, 0), s(1, 4000, 1000<<14, 1000), s(2, 4000, 1000<<14, 1000), s(3, 4000, 1000<<14, 1000)}, true},
		{"only the last window counts", []flushSample{s(0, 5000, 0, 0), s(1, 4000, 1000<<14, 1000), s(2, 4000, 1000<<14, 1000)}, false},
	} {
		if got := quiet(c.w); got != c.want {
			t.Errorf("%s: quiet = %v, want %v", c.name, got, c.want)
		}
	}
	r := []flushSample{s(0, 0, 0, 0), s(1, 0, 0, 0), s(2, 0, 0, 0)}
	for i := range r {
		r[i].rocks = true
		r[i].rocksBG = int64(i) * 100
	}
	if quiet(r) {
		t.Error("quiet while ROCKSDB compacts")
	}
	st := map[string]int64{"Innodb_buffer_pool_pages_dirty": 3, "Rocksdb_flush_write_bytes": 5, "Rocksdb_compact_write_bytes": 7}
	if got := sampleOf(0, st); got.dirty != 3 || !got.rocks || got.rocksBG != 12 {
		t.Errorf("sampleOf = %+v", got)
	}
	if sampleOf(0, map[string]int64{}).rocks {
		t.Error("ROCKSDB's counters seen on a server without them")
	}
}

func TestCtxSwitchesOf(t *testing.T) {
	status := "Name:\tmariadbd\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t120\nnonvoluntary_ctxt_switches:\t7\n"
	if got := ctxSwitchesOf(status); got != 127 {
		t.Fatalf("ctxSwitchesOf = %d, want 127", got)
	}
	if got := ctxSwitchesOf("Name:\tx\n"); got != 0 {
		t.Fatalf("ctxSwitchesOf without the lines = %d, want 0", got)
	}
}

// TestStatusNamesExtraCom: a statement counter only one tool moves (a
// client's extra statements) gets a row; one that did not move does not.
func TestStatusNamesExtraCom(t *testing.T) {
	java := &measurement{requests: 100, status: map[string]int64{"Com_stmt_execute": 100, "Com_set_option": 16, "Com_show_status": 0}}
	goM := &measurement{requests: 100, status: map[string]int64{"Com_stmt_execute": 100, "Com_stmt_close": 2}}
	got := statusNames([]result{{"java": {nil, java}, "go": {nil, goM}}})
	want := append(append([]string(nil), statusVars...), "Com_set_option", "Com_stmt_close")
	if !slices.Equal(got, want) {
		t.Fatalf("statusNames = %v, want %v", got, want)
	}
}

// TestStatementRowsWithoutServer: with no server (-generator) the
// statement rows have no value, instead of zeros.
func TestStatementRowsWithoutServer(t *testing.T) {
	m := &measurement{requests: 1000, user: time.Millisecond, reportRate: 100}
	for _, r := range rows(statusNames(nil)) {
		if !strings.HasPrefix(r.name, "stmts/req") && !strings.HasPrefix(r.name, "server ") {
			continue
		}
		if v, ok := r.value(nil, m); ok {
			t.Errorf("row %q = %v without a server, want no value", r.name, v)
		}
	}
}

func TestGeneratorFlags(t *testing.T) {
	dir := t.TempDir()
	java := filepath.Join(dir, "linkbench-java")
	if err := os.WriteFile(java, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config", "LinkConfigMysql.properties")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("maxid1=10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parse([]string{"-generator", "-java", java, "-requesters", "2"})
	if err != nil {
		t.Fatalf("-generator without -dsn: %v", err)
	}
	if !o.skipLoad || o.loadWith != "" || o.settle != 0 {
		t.Fatalf("-generator: skipLoad %v loadWith %q settle %v, want true, \"\", 0", o.skipLoad, o.loadWith, o.settle)
	}
	tools := generatorTools(o, "/bin/lb", func(argv []string, extra ...string) []string {
		for _, d := range extra {
			argv = append(argv, "-D", d)
		}
		return argv
	})
	if len(tools) != 2 || tools[0].name != "java" || tools[1].name != "go" {
		t.Fatalf("tools = %v", toolNames(tools))
	}
	j := strings.Join(tools[0].argv("request"), " ")
	for _, want := range []string{"-c " + cfg, "linkstore=com.facebook.LinkBench.DummyLinkStore", "nodestore=com.facebook.LinkBench.DummyLinkStore"} {
		if !strings.Contains(j, want) {
			t.Errorf("java argv %q lacks %q", j, want)
		}
	}
	if g := strings.Join(tools[1].argv("request"), " "); !strings.Contains(g, "-store discard -c "+cfg) {
		t.Errorf("go argv %q: want -store discard with the configuration file", g)
	}
	for _, args := range [][]string{
		{"-generator", "-dsn", "root@tcp(127.0.0.1:3306)/"},
		{"-generator", "-engine", "rocksdb"},
		{"-generator", "-load-each"},
		{"-generator", "-settle", "5s"},
	} {
		_, err := parse(args)
		var ue usageErr
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "-generator") {
			t.Errorf("parse(%q) = %v, want a usage error naming -generator", args, err)
		}
	}
	if _, err := parse(nil); err == nil || !strings.Contains(err.Error(), "-dsn is required") {
		t.Errorf("no -dsn, no -generator: %v, want -dsn is required", err)
	}
}

// TestCheckGoArgs: a -go-args flag linkbench-go refuses fails before the
// server is touched, as a usage error.
func TestCheckGoArgs(t *testing.T) {
	lb := filepath.Join(t.TempDir(), "lb")
	script := "#!/bin/sh\nfor a in \"$@\"; do case $a in -bogus) echo 'flag provided but not defined: -bogus' >&2; exit 2;; esac; done\nexit 0\n"
	if err := os.WriteFile(lb, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := checkGoArgs(ctx, lb, "-gomaxprocs 2"); err != nil {
		t.Fatalf("good -go-args: %v", err)
	}
	err := checkGoArgs(ctx, lb, "-gomaxprocs 2 -bogus")
	var ue usageErr
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "-bogus") {
		t.Fatalf("bad -go-args: %v, want a usage error naming -bogus", err)
	}
}

// TestUnixDSN: a unix socket is refused with -java (Java connects over
// TCP) and accepted without it.
func TestUnixDSN(t *testing.T) {
	dsn := "root@unix(" + filepath.Join(t.TempDir(), "no.sock") + ")/"
	_, err := openServer(t.Context(), dsn, true)
	var ue usageErr
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "with -java") {
		t.Fatalf("unix DSN with -java: %v, want a usage error", err)
	}
	_, err = openServer(t.Context(), dsn, false)
	if err == nil || errors.As(err, &ue) {
		t.Fatalf("unix DSN without -java: %v, want a connection error, not a usage error", err)
	}
}

func TestPerFlagLimits(t *testing.T) {
	for flagName, want := range map[string]string{"-pairs": "1..1000", "-requesters": "1..1024", "-loaders": "1..1024"} {
		_, err := parse([]string{"-dsn", "root@tcp(127.0.0.1:1)/", flagName, "0"})
		if err == nil || !strings.Contains(err.Error(), flagName+" 0: want "+want) {
			t.Errorf("%s 0: %v", flagName, err)
		}
	}
	if _, err := parse([]string{"-dsn", "root@tcp(127.0.0.1:1)/", "-java-dummy", "X"}); err == nil || !strings.Contains(err.Error(), "only with -generator") {
		t.Errorf("-java-dummy without -generator: %v", err)
	}
}

// TestNoRatioOfZeros: values that print as zero get no ratio (a
// counter moved by the tools' own status polls, not by requests).
func TestNoRatioOfZeros(t *testing.T) {
	if !bothZero([]float64{0.0001, 0.0004}, 3) || bothZero([]float64{0.0001, 0.002}, 3) || bothZero([]float64{0, 10}, 0) {
		t.Fatal("bothZero")
	}
	mk := func(tmp int64) *measurement {
		return &measurement{requests: 100000, reportRate: 1000, status: map[string]int64{"Created_tmp_tables": tmp}}
	}
	var b strings.Builder
	printTable(&b, "t", []string{"java", "go"}, result{"java": {nil, mk(3)}, "go": {nil, mk(20)}})
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "server Created_tmp_tables/req") && !strings.HasSuffix(strings.TrimSpace(l), "-") {
			t.Errorf("ratio printed beside zeros: %q", l)
		}
	}
}

// parseStraceFile parses the strace summary in file, failing the test on
// an error.
func parseStraceFile(t *testing.T, file string) map[string]syscallCount {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := parseStrace(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBusyAndLockRows: the cores' busy share is the client's and the
// server's CPU over the run's wall time and the machine's cores, and the
// row lock waits are reported per request.
func TestBusyAndLockRows(t *testing.T) {
	m := &measurement{requests: 1000, reportRate: 100, hasServer: true, wall: 10 * time.Second,
		user: 2 * time.Second, sys: time.Second, serverCPU: 5 * time.Second,
		status: map[string]int64{"Innodb_row_lock_waits": 250, "Innodb_row_lock_time": 4000}}
	want := map[string]float64{
		fmt.Sprintf("request client+server CPU %% of %d cores", runtime.NumCPU()): 80 / float64(runtime.NumCPU()),
		"server Innodb_row_lock_waits/req":                                        0.25,
		"server Innodb_row_lock_time/req":                                         4,
	}
	for _, r := range rows(nil) {
		w, ok := want[r.name]
		if !ok {
			continue
		}
		delete(want, r.name)
		if got, ok := r.value(nil, m); !ok || math.Abs(got-w) > 1e-9 {
			t.Errorf("%s = %v, %v; want %v", r.name, got, ok, w)
		}
	}
	for name := range want {
		t.Errorf("no row %q", name)
	}
}
