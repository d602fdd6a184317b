package main

import (
	"os"
	"testing"
)

// TestRowsWithoutLoad checks that a pair measured with -skip-load (no load
// measurement) prints its request rows and leaves the load rows out
// instead of dereferencing the missing load measurement.
func TestRowsWithoutLoad(t *testing.T) {
	q := &measurement{requests: 100, reportRate: 50, user: 1e6, sys: 1e6}
	for _, r := range rows(statusVars) {
		v, ok := r.val(nil, q)
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
