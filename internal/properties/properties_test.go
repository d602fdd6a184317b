package properties

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

func readProps(t *testing.T, s string) map[string]string {
	t.Helper()
	props, err := Read(strings.NewReader(s))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	m := map[string]string{}
	for _, p := range props {
		m[p.Key] = p.Value
	}
	return m
}

func TestReadSyntax(t *testing.T) {
	cases := []struct {
		name, in string
		want     map[string]string
	}{
		{"separators", "a=1\nb:2\nc 3\nd\t4\ne = 5\nf : 6\n", map[string]string{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6"}},
		{"comments", "# x=1\n! y=2\n  # z=3\nk=v\n", map[string]string{"k": "v"}},
		{"crlf and cr", "a=1\r\nb=2\rc=3", map[string]string{"a": "1", "b": "2", "c": "3"}},
		{"continuation", "a=one \\\n    two\\\n three\n", map[string]string{"a": "one twothree"}},
		{"even backslashes do not continue", "a=x\\\\\nb=y\n", map[string]string{"a": `x\`, "b": "y"}},
		{"continuation keeps # lines", "a=1\\\n# not a comment\n", map[string]string{"a": "1# not a comment"}},
		{"empty value", "a=\nb\n", map[string]string{"a": "", "b": ""}},
		{"empty key", "=v\n", map[string]string{"": "v"}},
		{"escaped separators in key", `a\=b\:c\ d=1` + "\n", map[string]string{"a=b:c d": "1"}},
		{"escapes", `a=\t\n\r\f\\\q` + "\n", map[string]string{"a": "\t\n\r\f\\q"}},
		{"unicode", `a=\u00e9\u0041` + "\n", map[string]string{"a": "éA"}},
		{"trailing blanks trimmed", "a=1   \nb=2\t\n", map[string]string{"a": "1", "b": "2"}},
		{"escaped trailing blank kept", "a=x\\ \nb=y \\  \n", map[string]string{"a": "x ", "b": "y  "}},
		{"second separator is value", "a==b\nc=:d\n", map[string]string{"a": "=b", "c": ":d"}},
		{"duplicate keeps last", "a=1\na=2\n", map[string]string{"a": "2"}},
		{"latin1", "a=caf\xe9\n", map[string]string{"a": "café"}},
		{"continuation at EOF", "a=1\\", map[string]string{"a": "1"}},
		{"blank continuation ends value", "a=1\\\n\nb=2\n", map[string]string{"a": "1", "b": "2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := readProps(t, c.in)
			if len(got) != len(c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
			for k, v := range c.want {
				if g, ok := got[k]; !ok || g != v {
					t.Errorf("%q = %q (present %v), want %q", k, g, ok, v)
				}
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	for _, in := range []string{`a=\u12`, `a=\uZZZZ`, "ok=1\nb=\\u00g0\n"} {
		_, err := Read(strings.NewReader(in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Read(%q) = %v, want *SyntaxError", in, err)
		}
	}
}

func FuzzReadProperties(f *testing.F) {
	for _, s := range []string{"a=1\n", "a\\\n b", `x\u0041=\u00`, "#c\n!c\r\n k : v \\ \n", "=\n:\n \\"} {
		f.Add(s)
	}
	if b, err := os.ReadFile(filepath.Join("..", "..", "linkbench", "testdata", "java-syntax.properties")); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, s string) {
		props, err := Read(strings.NewReader(s))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, p := range props {
			if seen[p.Key] {
				t.Fatalf("key %q returned twice", p.Key)
			}
			seen[p.Key] = true
			if p.Line < 1 {
				t.Fatalf("line %d", p.Line)
			}
		}
	})
}

// textOnly reports whether s has no escaped or raw control bytes.
func textOnly(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return !strings.Contains(s, `\x`)
}

// TestReadBOM: a text with a UTF-8 byte order mark reads as without it
// (the first key is not "\ufeffmaxid1").
func TestReadBOM(t *testing.T) {
	got := readProps(t, "\xef\xbb\xbfmaxid1 = 1001\nloaders=2\n")
	if got["maxid1"] != "1001" || got["loaders"] != "2" || len(got) != 2 {
		t.Errorf("with a BOM: %q", got)
	}
}

// TestReadBinary: binary input is refused with its line and the offending
// byte, and the error never repeats the data.
func TestReadBinary(t *testing.T) {
	for _, c := range []struct {
		in   string
		line int
	}{
		{"\x7fELF\x02\x01\x01\x00\x00rest", 1},
		{"a=1\nb=2\nc=\x00\x01\x02\n", 3},
		{"a=1\r\nk\x1b[31m=red\n", 2},
	} {
		_, err := Read(strings.NewReader(c.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Read(%q) = %v, want *SyntaxError", c.in, err)
			continue
		}
		if se.Line != c.line || !strings.Contains(se.Msg, "binary data") {
			t.Errorf("Read(%q): line %d %q, want line %d and \"binary data\"", c.in, se.Line, se.Msg, c.line)
		}
		if !textOnly(err.Error()) {
			t.Errorf("the error echoes the data: %q", err)
		}
	}
	// Tabs, form feeds and all line endings are text.
	if got := readProps(t, "a\t=\f1\r\nb=2\rc=3"); len(got) != 3 {
		t.Errorf("text with tab, form feed, CR: %q", got)
	}
}

// TestSurrogatePairEscape: a character above U+FFFF written as two \u
// escapes (a UTF-16 surrogate pair, as Java writes it) reads as that one
// character; a lone surrogate stays U+FFFD.
func TestSurrogatePairEscape(t *testing.T) {
	for in, want := range map[string]string{
		`k=\ud83d\ude00x`: "😀x",
		`k=\ud83dx`:       "\uFFFDx",
		`k=\ude00`:        "\uFFFD",
		`k=\u00e4\u20ac`:  "ä€",
	} {
		props, err := Read(strings.NewReader(in + "\n"))
		if err != nil || len(props) != 1 || props[0].Value != want {
			t.Errorf("%s: %+v, %v; want %q", in, props, err, want)
		}
	}
}
