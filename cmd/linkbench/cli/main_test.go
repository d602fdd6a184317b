package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/linkbench-go/linkbench/internal/testref"
	"github.com/linkbench-go/linkbench/linkbench"
)

// runCLI runs the command in-process and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// badCase is one bad input of the corpus: the command line (with %D
// standing for the case's temporary directory) and what its one-line error
// must name: a key, a flag or file:line.
type badCase struct {
	name  string
	args  []string
	names []string
	// after, if not nil, checks that nothing was written to the store.
	after func(t *testing.T)
}

// runBadInput runs the corpus: each bad input gives exactly one line on
// standard error that names the key, flag or file:line, exit status 2,
// nothing on standard output, and creates none of the output files it
// was given (-csvstats, -csvstream, -trace, -L).
func runBadInput(t *testing.T, cases []badCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			outs := []string{filepath.Join(dir, "stats.csv"), filepath.Join(dir, "stream.csv"),
				filepath.Join(dir, "calls.trace"), filepath.Join(dir, "run.log")}
			args := []string{"-csvstats", outs[0], "-csvstream", outs[1], "-trace", outs[2], "-L", outs[3]}
			for _, a := range c.args {
				args = append(args, strings.ReplaceAll(a, "%D", dir))
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2 (stderr %q)", code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.HasSuffix(stderr, "\n") || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "linkbench: ") {
				t.Errorf("stderr is not one line \"linkbench: ...\": %q", stderr)
			}
			for _, n := range c.names {
				if !strings.Contains(stderr, strings.ReplaceAll(n, "%D", dir)) {
					t.Errorf("stderr %q does not name %q", stderr, n)
				}
			}
			for _, r := range stderr {
				if !unicode.IsPrint(r) && r != '\n' {
					t.Errorf("stderr echoes a non-printable character %q: %q", r, stderr)
					break
				}
			}
			for _, f := range outs {
				if _, err := os.Stat(f); err == nil {
					t.Errorf("%s was created", filepath.Base(f))
				}
			}
			if c.after != nil {
				c.after(t)
			}
		})
	}
}

// TestBadInput is the bad-input corpus of flags, configuration files, data
// files and DSNs that need no server (TestMySQLBadInput adds those that
// do).
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
	empty := write("empty.properties", "")
	comments := write("comments.properties", "# maxid1 = 1001\n! nothing else\n")
	binary := write("binary.properties", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00")
	binaryLate := write("binary-late.properties", "maxid1 = 1001\nloaders = 2\nrequesters = \x00\x01\x02\n")
	rangeFile := write("range.properties", "maxid1 = 1001\n# the loaders:\nloaders = 0\n")
	bom := write("bom.properties", "\xef\xbb\xbfmaxid1 = 1001\nloaders = 0\n")
	escape := write("escape.properties", "maxid1 = 1001\nhost = \\u12zz\n")
	shape := write("shape.properties", "maxid1 = 1001\nread_shape = -3\n")
	workload := write("workload.properties", "maxid1 = 1001\nnlinks_funk = const\n")
	withWorkload := write("main.properties", "requesters = 2\nworkload_file = "+workload+"\n")
	withEmptyWorkload := write("main-empty-workload.properties", "requesters = 2\nworkload_file = "+empty+"\n")
	badDat := write("bad.dat", "nlinks\n1 50\n2 40\n3 100\n")
	binDat := write("bin.dat", "\x00\x01\x02\x03nlinks")
	badMix := filepath.Join("..", "..", "..", "linkbench", "testdata", "bad-mix.properties")
	cases := []badCase{
		// Flags.
		{"unknown flag", []string{"-x"}, []string{"-x"}, nil},
		{"bad -D", []string{"-D", "novalue"}, []string{"novalue"}, nil},
		{"same file twice", []string{"-cpuprofile", "%D/x.out", "-D", "maxid1=1001", "-L", "%D/x.out"}, []string{"same file"}, nil},
		{"empty -c", []string{"-c", "", "-l"}, []string{"-c"}, nil},
		{"no mode with -c", []string{"-c", unknown}, []string{"-l"}, nil},
		{"unexpected argument", []string{"-l", "extra"}, []string{"extra"}, nil},
		{"-gomaxprocs", []string{"-gomaxprocs", "-5"}, []string{"-gomaxprocs"}, nil},
		{"-steps 0", []string{"-steps", "0"}, []string{"-steps"}, nil},
		{"-steps without -r", []string{"-l", "-steps", "2"}, []string{"-steps", "-r"}, nil},
		{"-table", []string{"-table", "xml"}, []string{"-table"}, nil},
		{"-server-pid", []string{"-server-pid", "-1"}, []string{"-server-pid"}, nil},
		{"bad sweep", []string{"-D", "requesters=1,x"}, []string{"requesters"}, nil},
		{"sweep with 0", []string{"-D", "requesters=4,0"}, []string{"requesters"}, nil},
		{"unknown store", []string{"-store", "oracle"}, []string{"oracle"}, nil},
		{"-verify alone on memory", []string{"-c", valid, "-verify"}, []string{"-verify"}, nil},
		{"-verify on discard", []string{"-verify", "-l", "-store", "discard"}, []string{"discard"}, nil},
		{"-r on an empty memory store", []string{"-c", valid, "-r"}, []string{"-l", "allow_empty_store"}, nil},
		{"-l -r without nodes", []string{"-c", valid, "-l", "-r", "-D", "generate_nodes=false"}, []string{"generate_nodes", "allow_empty_store"}, nil},
		// -D values.
		{"unknown key in -D", []string{"-D", "maxidd1=5"}, []string{"maxidd1"}, nil},
		{"unknown key suggestion by prefix", []string{"-D", "warmup=5"}, []string{"warmup_time"}, nil},
		{"op mix via -D", []string{"-D", "getnode=40"}, []string{"addlink+deletelink", "-D"}, nil},
		{"maxid1 <= startid1", []string{"-D", "maxid1=1"}, []string{"maxid1", "(-D)"}, nil},
		{"maxid1 < startid1 glued", []string{"-Dstartid1=50", "-Dmaxid1=20"}, []string{"maxid1"}, nil},
		{"requesters < 0", []string{"-D", "requesters=-1"}, []string{"requesters"}, nil},
		{"malformed number", []string{"-D", "maxid1=10k"}, []string{"maxid1"}, nil},
		{"malformed float", []string{"-D", "read_shape=.8.8"}, []string{"read_shape"}, nil},
		{"binary value", []string{"-D", "maxid1=1\x00\x1b[2J"}, []string{"maxid1", "non-printable"}, nil},
		{"debuglevel", []string{"-D", "debuglevel=VERBOSE"}, []string{"debuglevel"}, nil},
		{"maxid1 too large", []string{"-D", "maxid1=9223372036854775807"}, []string{"maxid1"}, nil},
		{"maxid1 out of range", []string{"-D", "maxid1=99999999999999999999"}, []string{"out of range"}, nil},
		{"REAL where LinkBench has none", []string{"-D", "read_uncorr_function=real"}, []string{"read_uncorr_function"}, nil},
		{"dbid with dbcount", []string{"-D", "dbid=mydb", "-D", "dbcount=2"}, []string{"dbid"}, nil},
		{"allow_empty_store malformed", []string{"-D", "allow_empty_store=yes"}, []string{"allow_empty_store"}, nil},
		{"memory_limit_mb < 0", []string{"-D", "memory_limit_mb=-1"}, []string{"memory_limit_mb"}, nil},
		{"memory store too small", []string{"-store", "memory", "-D", "maxid1=1000001", "-D", "memory_limit_mb=64"}, []string{"maxid1", "memory_limit_mb"}, nil},
		{"memory store larger than the machine", []string{"-store", "memory", "-D", "maxid1=10000000001"}, []string{"maxid1", "memory_limit_mb", "GiB"}, nil},
		// Configuration files.
		{"missing config file", []string{"-c", filepath.Join(dir, "nope.properties"), "-l"}, []string{"nope.properties"}, nil},
		{"config file is a directory", []string{"-c", dir, "-l"}, []string{dir}, nil},
		{"empty config file", []string{"-c", empty, "-l", "-r"}, []string{empty, "no configuration keys"}, nil},
		{"config file /dev/null", []string{"-c", os.DevNull, "-l", "-r"}, []string{os.DevNull}, nil},
		{"comments only", []string{"-c", comments, "-l"}, []string{comments}, nil},
		{"binary config file", []string{"-c", binary, "-l"}, []string{binary + ":1:", "binary data"}, nil},
		{"binary line in a config file", []string{"-c", binaryLate, "-l"}, []string{binaryLate + ":3:", "binary data"}, nil},
		{"unknown key in file", []string{"-c", unknown, "-l"}, []string{"requesterz", unknown + ":2"}, nil},
		{"BOM then a range error", []string{"-c", bom, "-l"}, []string{"config: loaders = \"0\" (" + bom + ":2)"}, nil},
		{"range error in file", []string{"-c", rangeFile, "-l"}, []string{"loaders", rangeFile + ":3"}, nil},
		{"distribution parameter in file", []string{"-c", shape, "-l", "-r"}, []string{"read_shape", shape + ":2"}, nil},
		{"malformed escape", []string{"-c", escape, "-l"}, []string{escape + ":2"}, nil},
		{"op mix not summing to 100", []string{"-c", badMix, "-l", "-r"}, []string{"getnode", badMix + ":"}, nil},
		{"unknown key in workload_file", []string{"-c", withWorkload, "-l"}, []string{"nlinks_funk", workload + ":2"}, nil},
		{"empty workload_file", []string{"-c", withEmptyWorkload, "-l"}, []string{"workload_file", empty}, nil},
		{"workload_file via -D", []string{"-D", "workload_file=/nonexistent/W.properties"}, []string{"workload_file"}, nil},
		// Data files.
		{"missing data_file", []string{"-D", "data_file=/nonexistent/Distribution.dat"}, []string{"data_file"}, nil},
		{"malformed data_file", []string{"-D", "data_file=" + badDat}, []string{"data_file", badDat + ":3"}, nil},
		{"binary data_file", []string{"-D", "data_file=" + binDat}, []string{"data_file", binDat + ":1", "binary data"}, nil},
		{"data_file is a directory", []string{"-D", "data_file=" + dir}, []string{"data_file"}, nil},
		// DSNs and MySQL settings (refused before connecting).
		{"malformed DSN", []string{"-store", "mysql", "-dsn", "user:pw@tcp(127.0.0.1:1)", "-l"}, []string{"-dsn"}, nil},
		{"binary DSN", []string{"-store", "mysql", "-dsn", "u\x00\x01@tcp(h:1)", "-l"}, []string{"-dsn", "non-printable"}, nil},
		{"DSN without the mysql store", []string{"-dsn", "u@tcp(127.0.0.1:1)/", "-l"}, []string{"-dsn"}, nil},
		{"-create-schema without the mysql store", []string{"-create-schema", "-l"}, []string{"-create-schema"}, nil},
		{"engine", []string{"-store", "mysql", "-D", "engine=myisam", "-l"}, []string{"engine"}, nil},
		{"port", []string{"-store", "mysql", "-D", "port=70000", "-l"}, []string{"port"}, nil},
	}
	if len(cases) < 30 {
		t.Fatalf("the corpus has %d cases, want at least 30", len(cases))
	}
	runBadInput(t, cases)
}

// checkReport asserts what the main job prints.
func checkReport(t *testing.T, out string, wantOutDegree string) {
	t.Helper()
	// A request phase whose preparation (opening the sessions, preparing
	// the statements) took more than a second of its time is reported
	// OVERRAN, honestly: its requests ran for less than maxtime. On a
	// loaded machine (go test runs packages side by side, beside the
	// database servers) 32 sessions can take that long; what these tests
	// check is the rest of the report. Calls cut at the phase's bound
	// remain a failure.
	if strings.Contains(out, "REQUEST PHASE OVERRAN") && strings.Contains(out, "detail=\"preparing the phase (sessions, statements) took") {
		t.Logf("the request phase's preparation took more than a second of its time (a loaded machine): %s",
			regexp.MustCompile(`(?m)^SUMMARY request .*$`).FindString(out))
		out = strings.Replace(out, "REQUEST PHASE OVERRAN", "REQUEST PHASE COMPLETED", 1)
	}
	for _, re := range []string{
		`(?m)^out-degree: ` + regexp.QuoteMeta(wantOutDegree),
		`LOAD PHASE COMPLETED\. Loaded \d+ nodes \(Expected \d+\), \d+ links \([0-9.]+ /node\), \d+ counts \([0-9.]+ /node\)\. [0-9.]+ seconds, \d+ Links/s`,
		`(?m)^SUMMARY load ips=\d+ nodes/s=\d+ links/s=\d+ counts/s=\d+`,
		`REQUEST PHASE COMPLETED\. \d+ requests done in \d+ seconds\. Requests/second = \d+`,
		`(?m)^SUMMARY request tps=\d+ goodput=\d+ un=[0-9.]+ gn=[0-9.]+ ul=[0-9.]+ gl=[0-9.]+`,
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
	code, out, stderr := runCLI(t, "-store", "memory", "-D", "maxid1=5001", "-D", "maxtime=2", "-D", "requesters=2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkReport(t, out, "built-in model")
}

// TestConfigPair runs the LinkBench-style driver + workload pair in
// testdata/ as the README shows, with the real data file when available.
func TestConfigPair(t *testing.T) {
	cfgFile, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "LinkConfigMemory.properties"))
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
		code, out, stderr := runCLI(t, "-store", "memory", "-D", "rng=java", "-D", "nlinks_func=const", "-D", "nlinks_default=3",
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

// TestKeysFlag: -keys lists every configuration key, one line each with
// its default, allowed values and doc, and exits with 0, whatever else
// the command line says.
func TestKeysFlag(t *testing.T) {
	for _, args := range [][]string{{"-keys"}, {"-c", "/nonexistent.properties", "-keys"}} {
		code, out, stderr := runCLI(t, args...)
		if code != 0 || stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		known := linkbench.KnownKeys()
		if len(lines) != len(known)+1 || !strings.HasPrefix(lines[0], "KEY ") {
			t.Fatalf("%d lines for %d keys; first %q", len(lines), len(known), lines[0])
		}
		byKey := map[string]string{}
		for _, l := range lines[1:] {
			byKey[strings.Fields(l)[0]] = l
		}
		for _, k := range known {
			if _, ok := byKey[k]; !ok {
				t.Errorf("-keys does not list %s", k)
			}
		}
		for k, want := range map[string][]string{
			"maxid1":                     {"10000001", "> startid1", "one past the last node id"},
			"link_add_datagen_startbyte": {"32", "0..254"},
			"engine":                     {"innodb", "myrocks"},
			"load_random_seed":           {" - ", "drawn at random"},
			"dbload":                     {`""`},
		} {
			for _, w := range want {
				if !strings.Contains(byKey[k], w) {
					t.Errorf("-keys line of %s lacks %q: %q", k, w, byKey[k])
				}
			}
		}
	}
}

// TestDataFileInWorkingDirectory: the tool, unlike the library, looks for
// LinkBench's default data_file (config/Distribution.dat) in its working
// directory, as the Java tool run from a LinkBench checkout finds it.
func TestDataFileInWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	dat := filepath.Join(dir, "config", "Distribution.dat")
	if err := os.WriteFile(dat, []byte("nlinks\n1 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LINKBENCH_HOME", t.TempDir())
	t.Chdir(dir)
	cfg, err := buildConfig(&options{defs: overrides{}})
	if err != nil || cfg.DataFile != dat {
		t.Errorf("data_file %q, %v; want %q", cfg.DataFile, err, dat)
	}
}

// TestRequestersZeroSkips: requesters = 0 skips the request phase, as the
// key's help says (it used to print "REQUEST PHASE COMPLETED. 0
// requests"); a mix off 100 names the tolerance.
func TestRequestersZeroSkips(t *testing.T) {
	code, out, stderr := runCLI(t, "-store", "memory", "-D", "maxid1=1001", "-r", "-D", "requesters=0")
	if code != 0 || !strings.Contains(out, "NO REQUEST PHASE CONFIGURED") || strings.Contains(out, "REQUEST PHASE COMPLETED") {
		t.Errorf("-r with requesters = 0: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "-store", "memory", "-D", "maxid1=1001", "-r", "-D", "addlink=50")
	if code != 2 || !strings.Contains(stderr, "must add to 100 within 0.00001") {
		t.Errorf("a mix adding to 144.6: exit %d, want 2 naming the tolerance\n%s\n%s", code, out, stderr)
	}
}
