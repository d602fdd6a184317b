package linkbench

import (
	"os"
	"path/filepath"
	"testing"
)

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
