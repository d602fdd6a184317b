package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/internal/properties"
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
