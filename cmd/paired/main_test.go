package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/internal/properties"
	"github.com/linkbench-go/linkbench/internal/testdb"
)

// TestRowsWithoutLoad checks that a pair measured with -skip-load (no load
// measurement) prints its request rows and leaves the load rows out
// instead of dereferencing the missing load measurement.
func TestRowsWithoutLoad(t *testing.T) {
	q := &measurement{requests: 100, reportRate: 50, user: 1e6, sys: 1e6}
	for _, r := range rows(statusNames(nil)) {
		v, ok := r.value(nil, q)
		switch {
		case len(r.name) >= 4 && r.name[:4] == "load":
			if ok {
				t.Errorf("%s: got %v with no load measured, want it left out", r.name, v)
			}
		case r.name == "request tps":
			if !ok || v != 50 {
				t.Errorf("%s = %v, %v; want 50, true", r.name, v, ok)
			}
		}
	}
}

// TestParseChecksBeforeTheServer: arguments that would fail a tool are
// refused by parse, before any table is created or truncated.
func TestParseChecksBeforeTheServer(t *testing.T) {
	dsn := []string{"-dsn", "u:p@tcp(127.0.0.1:1)/"}
	for _, args := range [][]string{
		{"-java", "/nonexistent/linkbench-java"},
		{"-linkbench", "/nonexistent/linkbench"},
		{"-config", "/nonexistent/x.properties"},
		{"-D", "foo=bar"},
		{"-D", "maxid1"},
		{"-db", "a-b"},
		{"-db", "x`y"},
		// Values linkbench-go's validation refuses: refused here, before
		// paired truncates the tables (they were refused by the tools
		// after it).
		{"-D", "nlinks_func=bogus"},
		{"-D", "requestrate=-5"},
		{"-D", "link_type_count=0"},
		// Tables other than the ones paired creates and truncates.
		{"-D", "linktable=lt2"},
		// A level that hides the result lines paired reads.
		{"-D", "debuglevel=WARN"},
	} {
		if _, err := parse(append(append([]string(nil), dsn...), args...)); err == nil {
			t.Errorf("%v accepted", args)
		} else if _, ok := err.(usageErr); !ok {
			t.Errorf("%v: %v is not a usage error", args, err)
		}
	}
	o, err := parse(append(dsn, "-D", "requesters=4"))
	if err != nil || o.db != "lbpaired" {
		t.Errorf("parse = %+v, %v; want the default prefix lbpaired", o, err)
	}
}

// TestPrivateConfig: Java's copy of the configuration file ends with the
// password, escaped for a .properties file, and only its owner can read it.
func TestPrivateConfig(t *testing.T) {
	dir := t.TempDir()
	src := dir + "/c.properties"
	if err := os.WriteFile(src, []byte("maxid1=10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := privateConfig(dir, src, `p=w:#\x`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "maxid1=10\n\npassword=p\\=w\\:\\#\\\\x\n"; string(b) != want {
		t.Errorf("copy = %q, want %q", b, want)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if got := lastLines("a\n\nb\nc\n\n", 2); got != "b | c" {
		t.Errorf("lastLines = %q", got)
	}
}

// TestPairToolsSameCredentials: with a configuration file holding a
// password of its own, both tools read the same private copy of the file,
// whose last password is -dsn's (a .properties file's last value wins, in
// Java and in linkbench-go), and linkbench-go's -dsn carries none. Before,
// linkbench-go read the original file and sent its password (1045 from a
// server that knows -dsn's).
func TestPairToolsSameCredentials(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "LinkConfigMysql.properties")
	if err := os.WriteFile(config, []byte("user=fileuser\npassword=filepw\nmaxid1=10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := mysql.ParseDSN("dsnuser:dsnpw@tcp(127.0.0.1:3306)/")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{cfg: cfg, host: "127.0.0.1", port: "3306"}
	o := &options{java: filepath.Join(dir, "linkbench-java"), config: config, engine: "innodb"}
	tmp := t.TempDir()
	tools, err := pairTools(o, s, tmp, "/bin/linkbench-go", func(argv []string, extra ...string) []string {
		for _, d := range extra {
			argv = append(argv, "-D", d)
		}
		return argv
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 {
		t.Fatalf("got %d tools, want java and go", len(tools))
	}
	configOf := func(argv []string) string {
		for i, a := range argv {
			if a == "-c" && i+1 < len(argv) {
				return argv[i+1]
			}
		}
		t.Fatalf("no -c in %q", argv)
		return ""
	}
	java, goArgv := tools[0].argv("request"), tools[1].argv("request")
	if jc, gc := configOf(java), configOf(goArgv); jc != gc || filepath.Dir(gc) != tmp {
		t.Fatalf("java reads %s, go reads %s: want the same private copy in %s", jc, gc, tmp)
	}
	f, err := os.Open(configOf(goArgv))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	props, err := properties.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]string{}
	for _, p := range props {
		last[p.Key] = p.Value
	}
	if last["password"] != "dsnpw" {
		t.Errorf("the tools' configuration gives password %q, want -dsn's", last["password"])
	}
	for _, a := range append(java, goArgv...) {
		if strings.Contains(a, "dsnpw") || strings.Contains(a, "filepw") {
			t.Errorf("a password on a command line: %q", a)
		}
	}
	if !slices.Contains(java, "user=dsnuser") || !slices.Contains(goArgv, "dsnuser@tcp(127.0.0.1:3306)/") {
		t.Errorf("both tools must connect as -dsn's user: java %q, go %q", java, goArgv)
	}
}

// TestPairToolsNoPassword: a -dsn without a password and a configuration
// file holding one (Java's shipped file has password=MySQLpass): both
// tools read a private copy whose last password is empty, and
// linkbench-go's MYSQL_PWD is emptied too. Before, both read the file's
// password and were refused by a server whose account has none.
func TestPairToolsNoPassword(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "LinkConfigMysql.properties")
	if err := os.WriteFile(config, []byte("user=MySQLuser\npassword=MySQLpass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := mysql.ParseDSN("root@tcp(127.0.0.1:3306)/")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{cfg: cfg, host: "127.0.0.1", port: "3306"}
	o := &options{java: filepath.Join(dir, "linkbench-java"), config: config, engine: "innodb"}
	tools, err := pairTools(o, s, t.TempDir(), "/bin/linkbench-go", func(argv []string, _ ...string) []string { return argv })
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		argv := tl.argv("request")
		c := argv[slices.Index(argv, "-c")+1]
		f, err := os.Open(c)
		if err != nil {
			t.Fatal(err)
		}
		props, err := properties.Read(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		last := "unset"
		for _, p := range props {
			if p.Key == "password" {
				last = p.Value
			}
		}
		if last != "" {
			t.Errorf("%s: the configuration gives password %q, want -dsn's (none)", tl.name, last)
		}
	}
	if goEnv := tools[1].env; !slices.Contains(goEnv, "MYSQL_PWD=") {
		t.Errorf("linkbench-go's environment %q: want MYSQL_PWD emptied", goEnv)
	}
}

// TestFlagKeysWithD: a -D of a key that one of paired's flags owns sets
// the flag (so that the header, paired's own checks and both tools
// agree), a -D that disagrees with the flag is refused, and the
// connection keys and dbcount are refused without echoing a value. Before,
// -D dbprefix=x was passed to the tools after paired had truncated its
// -db tables, and -D requesters=2 ran 2 requesters under a header saying 16.
func TestFlagKeysWithD(t *testing.T) {
	dsn := []string{"-dsn", "u:p@tcp(127.0.0.1:1)/"}
	o, err := parse(append(slices.Clone(dsn), "-D", "requesters=4", "-D", "maxtime=7", "-D", "dbprefix=x", "-D", "maxid1=501",
		"-D", "loaders=3", "-D", "engine=ROCKSDB", "-D", "nlinks_default=5"))
	if err != nil {
		t.Fatal(err)
	}
	if o.requesters != 4 || o.maxtime != 7*time.Second || o.db != "x" || o.maxid1 != 501 || o.loaders != 3 || o.engine != "rocksdb" {
		t.Errorf("parse = %+v: want requesters 4, maxtime 7s, db x, maxid1 501, loaders 3, engine rocksdb", o)
	}
	if want := (defs{"nlinks_default=5"}); !slices.Equal(o.defs, want) {
		t.Errorf("defs %q, want %q (the flags' keys are the flags now)", o.defs, want)
	}
	if o, err := parse(append(slices.Clone(dsn), "-requesters", "4", "-D", "requesters=4")); err != nil || o.requesters != 4 {
		t.Errorf("-requesters 4 -D requesters=4: %+v, %v", o, err)
	}
	for _, args := range [][]string{
		{"-requesters", "16", "-D", "requesters=2"},
		{"-maxtime", "4s", "-D", "maxtime=2"},
		{"-db", "a", "-D", "dbprefix=b"},
		{"-D", "dbprefix=a-b"},
		{"-D", "requesters=two"},
		{"-D", "requesters=0"},
		{"-D", "maxtime=0"},
		{"-D", "engine=myisam"},
		{"-D", "dbcount=2"},
		{"-D", "password=s3cret-value"},
		{"-D", "user=s3cret-value"},
		{"-D", "host=s3cret-value"},
		{"-D", "port=s3cret-value"},
	} {
		_, err := parse(append(slices.Clone(dsn), args...))
		if _, ok := err.(usageErr); !ok {
			t.Errorf("%v: %v, want a usage error", args, err)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%v: the error echoes the value: %v", args, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: the error is not one line: %q", args, err)
		}
	}
}

// TestBadFlagOneLine: a flag that does not parse gets one line naming it,
// not the flag package's whole usage.
func TestBadFlagOneLine(t *testing.T) {
	for _, args := range [][]string{{"-requesters", "abc"}, {"-bogus"}, {"-maxtime", "x"}} {
		_, err := parse(append([]string{"-dsn", "u@tcp(127.0.0.1:1)/"}, args...))
		if _, ok := err.(usageErr); !ok {
			t.Errorf("%v: %v, want a usage error", args, err)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, strings.TrimPrefix(args[0], "-")) {
			t.Errorf("%v: %q, want one line naming the flag", args, msg)
		}
	}
}

// TestEscapePropertyNonASCII: Java reads a .properties file as ISO-8859-1,
// so a password's characters outside printable ASCII are written as
// \uXXXX escapes (a surrogate pair above U+FFFF); the properties reader
// both tools' copies go through gives the password back. Before, "pä" was
// written as UTF-8 bytes and Java was refused access.
func TestEscapePropertyNonASCII(t *testing.T) {
	for _, pw := range []string{"pä", "€uro", "a\tb", "😀x", " lead", `Zq#:= x!\`} {
		esc := escapeProperty(pw)
		for _, c := range esc {
			if c < 0x20 || c > 0x7e {
				t.Errorf("%q: escaped %q holds %q", pw, esc, c)
			}
		}
		props, err := properties.Read(strings.NewReader("password=" + esc + "\n"))
		if err != nil || len(props) != 1 || props[0].Value != pw {
			t.Errorf("%q: escaped %q reads back as %+v, %v", pw, esc, props, err)
		}
	}
	if got := escapeProperty("pä"); got != `p\u00e4` {
		t.Errorf("escapeProperty(pä) = %q, want p\\u00e4", got)
	}
}

// TestConfigHome: a configuration file whose relative workload_file is
// not under the LinkBench home linkbench-go would get is refused before
// the server is touched, saying where it looked; LINKBENCH_HOME fixes it.
// The default configuration is found beside the launcher or in the
// checkout above bin/.
func TestConfigHome(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"FBWorkload.properties", "LinkConfigMysql.properties"} {
		if err := os.WriteFile(filepath.Join(home, "config", f), []byte("workload_file=config/FBWorkload.properties\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(t.TempDir(), "mine.properties")
	if err := os.WriteFile(other, []byte("workload_file = config/FBWorkload.properties\nmaxid1=10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LINKBENCH_HOME", "")
	if err := checkHome(filepath.Join(home, "config", "LinkConfigMysql.properties")); err != nil {
		t.Errorf("the home's own config: %v", err)
	}
	err := checkHome(other)
	if err == nil || !strings.Contains(err.Error(), "workload_file") || !strings.Contains(err.Error(), "LINKBENCH_HOME") {
		t.Errorf("config outside a home: %v, want a refusal naming workload_file and LINKBENCH_HOME", err)
	}
	if _, err := parse([]string{"-dsn", "u@tcp(127.0.0.1:1)/", "-config", other}); err == nil {
		t.Error("parse accepted a -config outside a LinkBench home")
	}
	t.Setenv("LINKBENCH_HOME", home)
	if err := checkHome(other); err != nil {
		t.Errorf("with LINKBENCH_HOME: %v", err)
	}

	bin := filepath.Join(home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, want := defaultConfig(filepath.Join(bin, "linkbench")), filepath.Join(home, "config", "LinkConfigMysql.properties"); got != want {
		t.Errorf("defaultConfig(bin/linkbench) = %s, want %s", got, want)
	}
	if got, want := defaultConfig(filepath.Join(home, "linkbench-java")), filepath.Join(home, "config", "LinkConfigMysql.properties"); got != want {
		t.Errorf("defaultConfig(launcher beside config/) = %s, want %s", got, want)
	}
}

// TestDSNPasswordFromEnv: a -dsn without a password takes MYSQL_PWD's (so
// that it need not be on paired's command line), as linkbench-go does;
// before, paired connected without one (1045). Needs the MySQL test
// server, and a password on its DSN.
func TestDSNPasswordFromEnv(t *testing.T) {
	cfg, err := mysql.ParseDSN(testdb.MySQLDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Passwd == "" {
		t.Skip("the test server's DSN has no password")
	}
	pw := cfg.Passwd
	cfg.Passwd = ""
	t.Setenv("MYSQL_PWD", pw)
	s, err := openServer(t.Context(), cfg.FormatDSN(), false)
	if err != nil {
		t.Fatalf("with MYSQL_PWD: %v", err)
	}
	s.db.Close()
	if s.cfg.Passwd != pw {
		t.Error("the server's config does not hold MYSQL_PWD's password (the tools would not get it)")
	}
	t.Setenv("MYSQL_PWD", "")
	if s, err := openServer(t.Context(), cfg.FormatDSN(), false); err == nil {
		s.db.Close()
		t.Error("connected without a password")
	}
}

// TestDSNPasswordFromEnvTables: with -dsn without a password and
// MYSQL_PWD, paired creates the tables with MYSQL_PWD's password; it
// opened them with -dsn as given (1045, "using password: NO"). Needs the
// MySQL test server, and a password on its DSN.
func TestDSNPasswordFromEnvTables(t *testing.T) {
	cfg, err := mysql.ParseDSN(testdb.MySQLDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Passwd == "" {
		t.Skip("the test server's DSN has no password")
	}
	t.Setenv("MYSQL_PWD", cfg.Passwd)
	cfg.Passwd = ""
	s, err := openServer(t.Context(), cfg.FormatDSN(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.db.Close()
	o := &options{db: "lbpairedpwtest", engine: "innodb"}
	defer s.db.Exec("DROP DATABASE IF EXISTS lbpairedpwtest0")
	if err := createTables(t.Context(), s, o); err != nil {
		t.Fatalf("createTables with MYSQL_PWD: %v", err)
	}
	var n int
	if err := s.db.QueryRow("SELECT COUNT(*) FROM lbpairedpwtest0.nodetable").Scan(&n); err != nil {
		t.Errorf("no node table: %v", err)
	}
}

// TestDefNeverEchoesPassword: a connection key in another case is refused
// as the connection key it is, without its value.
func TestDefNeverEchoesPassword(t *testing.T) {
	_, err := parse([]string{"-dsn", "u@tcp(127.0.0.1:1)/", "-D", "PASSWORD=s3cretvalue"})
	if err == nil {
		t.Fatal("-D PASSWORD accepted")
	}
	if strings.Contains(err.Error(), "s3cretvalue") {
		t.Errorf("the error shows the value: %v", err)
	}
}

// TestRelativeLauncher: a launcher named relative to the working directory
// is run as that file (exec looked a bare name up in PATH, after the
// tables were truncated and loaded).
func TestRelativeLauncher(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lb-java"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config", "LinkConfigMysql.properties"), []byte("maxid1=1001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	o, err := parse([]string{"-dsn", "u@tcp(127.0.0.1:1)/", "-java", "lb-java"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "lb-java"); o.java != want {
		t.Errorf("-java lb-java: runs %q, want %q", o.java, want)
	}
}

// TestPhaseWithoutResult: a tool that exits 0 without its phase's result
// line fails the phase (its column was "-" and its ratios meaningless).
func TestPhaseWithoutResult(t *testing.T) {
	var log strings.Builder
	if _, err := runPhase(t.Context(), nil, "java request", []string{"/bin/sh", "-c", "echo done", "sh", "-r"}, nil, &log); err == nil ||
		!strings.Contains(err.Error(), "REQUEST PHASE COMPLETED") {
		t.Errorf("no result line: err = %v", err)
	}
	if _, err := runPhase(t.Context(), nil, "java load", []string{"/bin/sh", "-c", "echo done", "sh", "-l"}, nil, &log); err == nil ||
		!strings.Contains(err.Error(), "LOAD PHASE COMPLETED") {
		t.Errorf("no load line: err = %v", err)
	}
	m, err := runPhase(t.Context(), nil, "go request",
		[]string{"/bin/sh", "-c", "echo 'REQUEST PHASE COMPLETED. 50 requests done in 1 seconds. Requests/second = 50'", "sh", "-r"}, nil, &log)
	if err != nil || m.requests != 50 {
		t.Errorf("with the result line: %+v, %v", m, err)
	}
}

// TestConfigDebugLevel: a configuration file whose debuglevel hides the
// result lines is refused before the server is touched, as -D's is.
func TestConfigDebugLevel(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config", "LinkConfigMysql.properties")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, level := range []string{"WARN", "info"} {
		if err := os.WriteFile(cfg, []byte("maxid1=1001\ndebuglevel="+level+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := parse([]string{"-dsn", "u@tcp(127.0.0.1:1)/", "-config", cfg})
		if level == "WARN" && (err == nil || !strings.Contains(err.Error(), "debuglevel")) {
			t.Errorf("debuglevel=WARN in the file: err = %v", err)
		}
		if level == "info" && err != nil {
			t.Errorf("debuglevel=info in the file: %v", err)
		}
	}
}
