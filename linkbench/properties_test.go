package linkbench

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
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
	var conn Connection
	cfg, err := ParseProperties(filepath.Join("testdata", "java-syntax.properties"), PropertiesOptions{Connection: &conn})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxID1 != 50001 || cfg.Requesters != 8 || cfg.Loaders != 3 || conn.Host != "127.0.0.1" ||
		cfg.DBPrefix != "link db" || conn.Password != "p=ss:w#rd" || cfg.Read.Spec.Shape != 0.8 ||
		cfg.ProgressFreq.Seconds() != 10 {
		t.Errorf("config from java-syntax.properties: %+v", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

// TestConnectionKeys: the connection keys (host, port, user, password) are
// not Config's: ParseProperties hands them over through
// PropertiesOptions.Connection (checked: port in 0..65535, empty = 3306),
// Config.Set refuses them, and neither Properties nor a trace prints them.
func TestConnectionKeys(t *testing.T) {
	conn := Connection{Port: 3306}
	cfg, err := ParseProperties("", PropertiesOptions{Overrides: map[string]string{
		"host": "db.example", "port": "5433", "user": "bench", "password": "s3cret", "maxid1": "2001"}, Connection: &conn})
	if err != nil {
		t.Fatal(err)
	}
	if conn != (Connection{Host: "db.example", Port: 5433, User: "bench", Password: "s3cret"}) || cfg.MaxID1 != 2001 {
		t.Errorf("connection %+v, maxid1 %d", conn, cfg.MaxID1)
	}
	for _, p := range cfg.Properties() {
		if slices.Contains(ConnectionKeys(), p.Key) {
			t.Errorf("Properties prints the connection key %s", p.Key)
		}
	}
	if _, err := ParseProperties("", PropertiesOptions{Overrides: map[string]string{"password": "x"}}); err != nil {
		t.Errorf("without PropertiesOptions.Connection the keys are dropped, not refused: %v", err)
	}
	empty := Connection{Port: 1}
	if _, err := ParseProperties("", PropertiesOptions{Overrides: map[string]string{"port": ""}, Connection: &empty}); err != nil || empty.Port != 3306 {
		t.Errorf("empty port: %v, port %d, want 3306", err, empty.Port)
	}
	for _, bad := range []string{"-1", "65536", "x"} {
		_, err := ParseProperties("", PropertiesOptions{Overrides: map[string]string{"port": bad}, Connection: &Connection{}})
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Key != "port" || ce.Where != "-D" {
			t.Errorf("port = %s: %v, want a ConfigError naming port and -D", bad, err)
		}
	}
	for _, k := range ConnectionKeys() {
		c := DefaultConfig()
		if err := c.Set(k, "1"); err == nil {
			t.Errorf("Config.Set(%s) accepted", k)
		}
	}
}
