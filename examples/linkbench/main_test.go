package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/internal/testref"
)

// runCLI runs the command in-process and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestBadInput: each bad input gives a one-line error naming the key or
// file, exit status 2, and writes nothing (the -csvstats file is not
// created).
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unknown := write("unknown.properties", "maxid1 = 1001\nrequesterz = 2\n")
	valid := write("valid.properties", "maxid1 = 1001\n")
	badMix := filepath.Join("..", "..", "linkbench", "testdata", "bad-mix.properties")
	cases := []struct {
		name  string
		args  []string
		names string // the error must mention this
	}{
		{"unknown key in file", []string{"-c", unknown, "-l"}, "requesterz"},
		{"unknown key in -D", []string{"-D", "maxidd1=5"}, "maxidd1"},
		{"op mix not summing to 100", []string{"-c", badMix, "-l", "-r"}, "getnode"},
		{"op mix via -D", []string{"-D", "getnode=40"}, "addlink+deletelink"},
		{"maxid1 <= startid1", []string{"-D", "maxid1=1"}, "maxid1"},
		{"maxid1 < startid1 glued", []string{"-Dstartid1=50", "-Dmaxid1=20"}, "maxid1"},
		{"requesters < 0", []string{"-D", "requesters=-1"}, "requesters"},
		{"malformed number", []string{"-D", "maxid1=10k"}, "maxid1"},
		{"malformed float", []string{"-D", "read_shape=.8.8"}, "read_shape"},
		{"missing config file", []string{"-c", filepath.Join(dir, "nope.properties"), "-l"}, "nope.properties"},
		{"missing data_file", []string{"-D", "data_file=/nonexistent/Distribution.dat"}, "data_file"},
		{"no mode with -c", []string{"-c", unknown}, "-l"},
		{"unknown store", []string{"-store", "oracle"}, "oracle"},
		{"unknown flag", []string{"-x"}, "-x"},
		{"bad -D", []string{"-D", "novalue"}, "novalue"},
		{"same file twice", []string{"-csvstream", "x.csv", "-trace", "x.csv"}, "same file"},
		{"empty -c", []string{"-c", "", "-l"}, "-c"},
		{"-verify alone on memory", []string{"-c", valid, "-verify"}, "-verify"},
		{"-verify on discard", []string{"-verify", "-l", "-store", "discard"}, "discard"},
		{"debuglevel", []string{"-D", "debuglevel=VERBOSE"}, "debuglevel"},
		{"maxid1 too large", []string{"-D", "maxid1=9223372036854775807"}, "maxid1"},
		{"maxid1 out of range", []string{"-D", "maxid1=99999999999999999999"}, "out of range"},
		{"REAL where LinkBench has none", []string{"-D", "read_uncorr_function=real"}, "read_uncorr_function"},
		{"workload_file via -D", []string{"-D", "workload_file=/nonexistent/W.properties"}, "workload_file"},
		{"dbid with dbcount", []string{"-D", "dbid=mydb", "-D", "dbcount=2"}, "dbid"},
		{"unknown key suggestion by prefix", []string{"-D", "warmup=5"}, "warmup_time"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			csv := filepath.Join(t.TempDir(), "stats.csv")
			args := append([]string{"-csvstats", csv}, c.args...)
			code, stdout, stderr := runCLI(t, args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2 (stderr %q)", code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, c.names) {
				t.Errorf("stderr %q does not name %q", stderr, c.names)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 {
				t.Errorf("error is %d lines, want 1: %q", len(lines), stderr)
			}
			if _, err := os.Stat(csv); err == nil {
				t.Errorf("-csvstats file was created")
			}
		})
	}
}

// checkReport asserts what the main job prints.
func checkReport(t *testing.T, out string, wantOutDegree string) {
	t.Helper()
	for _, re := range []string{
		`(?m)^out-degree: ` + regexp.QuoteMeta(wantOutDegree),
		`LOAD PHASE COMPLETED\. Loaded \d+ nodes \(Expected \d+\), \d+ links \([0-9.]+ /node\), \d+ counts \([0-9.]+ /node\)\. [0-9.]+ seconds, \d+ Links/s`,
		`(?m)^SUMMARY load ips=\d+ nodes/s=\d+ links/s=\d+ counts/s=\d+`,
		`REQUEST PHASE COMPLETED\. \d+ requests done in \d+ seconds\. Requests/second = \d+`,
		`(?m)^SUMMARY request tps=\d+ un=[0-9.]+ gn=[0-9.]+ ul=[0-9.]+ gl=[0-9.]+`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s", re)
		}
	}
	for _, op := range []string{"ADD_NODE", "UPDATE_NODE", "DELETE_NODE", "GET_NODE", "ADD_LINK", "DELETE_LINK",
		"UPDATE_LINK", "COUNT_LINK", "MULTIGET_LINK", "GET_LINKS_LIST"} {
		re := `(?m)^` + op + ` count = \d+  p25 = \d+us  p50 = \d+us  p75 = \d+us  p95 = \d+us  p99 = \d+us  max = \d+us mean = [0-9.]+us threads = \d+$`
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("no per-op line for %s", op)
		}
	}
}

// TestMainJobShort runs the main job scaled down (the README's command
// with -D overrides) and checks the report; the built-in out-degree model
// is used because no data file exists where it is looked for.
func TestMainJobShort(t *testing.T) {
	t.Setenv("LINKBENCH_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	code, out, stderr := runCLI(t, "-D", "maxid1=5001", "-D", "maxtime=2", "-D", "requesters=2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkReport(t, out, "built-in model")
}

// TestConfigPair runs the LinkBench-style driver + workload pair in
// testdata/ as the README shows, with the real data file when available.
func TestConfigPair(t *testing.T) {
	cfgFile, err := filepath.Abs(filepath.Join("..", "..", "testdata", "LinkConfigMemory.properties"))
	if err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(t.TempDir(), "stats.csv")
	stream := filepath.Join(t.TempDir(), "stream.csv")
	args := []string{"-c", cfgFile, "-l", "-r", "-D", "maxid1=20001", "-D", "requesters=4", "-D", "maxtime=3",
		"-D", "displayfreq=1", "-csvstats", csv, "-csvstream", stream}
	t.Run("built-in model", func(t *testing.T) {
		t.Setenv("LINKBENCH_HOME", t.TempDir())
		t.Chdir(t.TempDir())
		code, out, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		checkReport(t, out, "built-in model")
		b, err := os.ReadFile(csv)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "op,count,p25 (us)"); n != 2 {
			t.Errorf("-csvstats has %d header lines, want 2 (one per phase)", n)
		}
		s, err := os.ReadFile(stream)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(s), "threadID,timestamp,op,") || !strings.Contains(string(s), ",GET_NODE,") {
			t.Errorf("-csvstream content %.200q", s)
		}
	})
	t.Run("real data file", func(t *testing.T) {
		real := testref.File(t, "Distribution.dat")
		code, out, stderr := runCLI(t, append(args, "-D", "data_file="+real)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		checkReport(t, out, "real distribution nlinks from "+real)
	})
}

// TestTraceJavaMode writes a store-call trace of a Java-compatible run and
// checks its lines; two runs with the same seeds give the same trace.
func TestTraceJavaMode(t *testing.T) {
	trace := func() string {
		p := filepath.Join(t.TempDir(), "calls.trace")
		// A constant out-degree keeps the trace small (the real one gives an
		// id1 4.2 million links).
		code, out, stderr := runCLI(t, "-D", "rng=java", "-D", "nlinks_func=const", "-D", "nlinks_default=3",
			"-D", "nlinks_config=0", "-D", "maxid1=2001",
			"-D", "loaders=1", "-D", "requesters=1", "-D", "requests=300", "-D", "load_random_seed=5",
			"-D", "request_random_seed=6", "-D", "password=hunter2", "-trace", p)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(out, "random mode: java") {
			t.Errorf("report does not name the random mode:\n%s", out)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a := trace()
	for _, re := range []string{`(?m)^# config rng=java$`, `(?m)^l0 bulkLink id1=\d+ type=12345678[9] id2=\d+ len=\d+ data0=(-?\d+|-)$`,
		`(?m)^l1 bulkAddNode id=\d+ len=\d+ data0=`, `(?m)^t0 getNode id=\d+$`} {
		if !regexp.MustCompile(re).MatchString(a) {
			t.Errorf("trace lacks %s", re)
		}
	}
	if strings.Contains(a, "hunter2") {
		t.Error("the trace contains the password")
	}
	if strings.Count(a, "\nt0 ") != 300 {
		t.Errorf("%d request lines, want 300", strings.Count(a, "\nt0 "))
	}
	// Streams interleave in any order; within a stream, calls are in order.
	streams := func(tr string) map[string][]string {
		m := map[string][]string{}
		for _, l := range strings.Split(tr, "\n") {
			if tag, _, ok := strings.Cut(l, " "); ok && tag != "#" {
				m[tag] = append(m[tag], l)
			}
		}
		return m
	}
	sa, sb := streams(a), streams(trace())
	if len(sa) != 3 || len(sa) != len(sb) {
		t.Errorf("streams %d and %d, want 3 (l0, l1, t0)", len(sa), len(sb))
	}
	for tag, la := range sa {
		if strings.Join(la, "\n") != strings.Join(sb[tag], "\n") {
			t.Errorf("stream %s differs between two Java-compatible runs with the same seeds", tag)
		}
	}
}

func TestMaskToken(t *testing.T) {
	for _, c := range []struct{ in, tok, want string }{
		{"level=INFO msg=load phase completed", "e", "level=INFO msg=load phase completed"},
		{"password e rejected", "e", "password ***** rejected"},
		{"user:p=ss:w#rd@tcp", "p=ss:w#rd", "user:*****@tcp"},
		{"s3cret and s3cret2 and (s3cret)", "s3cret", "***** and s3cret2 and (*****)"},
		{"", "x", ""},
	} {
		if got := maskToken(c.in, c.tok); got != c.want {
			t.Errorf("maskToken(%q, %q) = %q, want %q", c.in, c.tok, got, c.want)
		}
	}
}
