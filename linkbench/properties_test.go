package linkbench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readProps(t *testing.T, s string) map[string]string {
	t.Helper()
	props, err := ReadProperties(strings.NewReader(s))
	if err != nil {
		t.Fatalf("ReadProperties: %v", err)
	}
	m := map[string]string{}
	for _, p := range props {
		m[p.Key] = p.Value
	}
	return m
}

// TestJavaSyntaxCase is the field case ../shared/cases/properties/java-syntax.properties:
// the whole Java format, with exactly these keys and values.
func TestJavaSyntaxCase(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "java-syntax.properties"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	props, err := ReadProperties(f)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"maxid1":        "50001",
		"requesters":    "8",
		"loaders":       "3",
		"host":          "127.0.0.1",
		"dbprefix":      "link db",
		"password":      "p=ss:w#rd",
		"read_function": "com.facebook.LinkBench.distributions.ZipfDistribution",
		"read_shape":    "0.8",
		"progressfreq":  "10",
	}
	got := map[string]string{}
	for _, p := range props {
		got[p.Key] = p.Value
	}
	if len(got) != len(want) {
		t.Errorf("got %d keys %v, want %d", len(got), got, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// And the configuration it yields.
	cfg, err := ParseProperties(filepath.Join("testdata", "java-syntax.properties"), PropertiesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxID1 != 50001 || cfg.Requesters != 8 || cfg.Loaders != 3 || cfg.Store.Host != "127.0.0.1" ||
		cfg.DBPrefix != "link db" || cfg.Store.Password != "p=ss:w#rd" || cfg.Read.Spec.Shape != 0.8 ||
		cfg.ProgressFreq.Seconds() != 10 {
		t.Errorf("config from java-syntax.properties: %+v", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestReadPropertiesSyntax(t *testing.T) {
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

func TestReadPropertiesErrors(t *testing.T) {
	for _, in := range []string{`a=\u12`, `a=\uZZZZ`, "ok=1\nb=\\u00g0\n"} {
		_, err := ReadProperties(strings.NewReader(in))
		var se *PropertySyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ReadProperties(%q) = %v, want *PropertySyntaxError", in, err)
		}
	}
}

func FuzzReadProperties(f *testing.F) {
	for _, s := range []string{"a=1\n", "a\\\n b", `x\u0041=\u00`, "#c\n!c\r\n k : v \\ \n", "=\n:\n \\"} {
		f.Add(s)
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "java-syntax.properties")); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, s string) {
		props, err := ReadProperties(strings.NewReader(s))
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
