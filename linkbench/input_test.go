package linkbench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// textOnly reports whether s has no escaped or raw control bytes.
func textOnly(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return !strings.Contains(s, `\x`)
}

// TestParsePropertiesBOM: a file saved with a UTF-8 byte order mark reads
// as without it (the lexer's own tests are in internal/properties).
func TestParsePropertiesBOM(t *testing.T) {
	p := writeFile(t, t.TempDir(), "bom.properties", "\xef\xbb\xbf# comment\nmaxid1 = 1001\n")
	cfg, err := ParseProperties(p, PropertiesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxID1 != 1001 {
		t.Errorf("maxid1 = %d, want 1001", cfg.MaxID1)
	}
}

// TestParsePropertiesBinary: a binary configuration file is refused with
// its file:line and the offending byte (the lexer's own tests are in
// internal/properties).
func TestParsePropertiesBinary(t *testing.T) {
	// A file names file:line.
	dir := t.TempDir()
	p := writeFile(t, dir, "bin.properties", "maxid1=5\n\x00\x01\x02\x03")
	_, err := ParseProperties(p, PropertiesOptions{})
	if err == nil || !strings.Contains(err.Error(), p+":2: binary data (byte 0x00)") {
		t.Errorf("binary file: %v", err)
	}
}

// TestConfigErrorDescribesBinary: a value or key that is not printable is
// described by its length, not repeated.
func TestConfigErrorDescribesBinary(t *testing.T) {
	cfg := DefaultConfig()
	err := cfg.Set("maxid1", "12\x00\x01")
	if err == nil || strings.Contains(err.Error(), "\x00") || strings.Contains(err.Error(), `\x00`) ||
		!strings.Contains(err.Error(), "<4 bytes with non-printable characters>") {
		t.Errorf("binary value: %q", err)
	}
	err = cfg.Set("max\x01id1", "5")
	if err == nil || strings.Contains(err.Error(), "\x01") || strings.Contains(err.Error(), `\x01`) {
		t.Errorf("binary key: %q", err)
	}
	long := strings.Repeat("9", 300)
	if err := cfg.Set("maxid1", long); err == nil || strings.Contains(err.Error(), long) ||
		!strings.Contains(err.Error(), "<300 bytes>") {
		t.Errorf("long value: %q", err)
	}
}

// TestParsePropertiesNoKeys: a configuration file without keys (empty,
// /dev/null, comments only) is refused instead of running the default
// ten-million-node workload; so is such a workload_file.
func TestParsePropertiesNoKeys(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{
		writeFile(t, dir, "empty.properties", ""),
		writeFile(t, dir, "comments.properties", "# nothing here\n! nor here\n\n"),
		writeFile(t, dir, "bom-only.properties", "\xef\xbb\xbf"),
		os.DevNull,
	} {
		_, err := ParseProperties(p, PropertiesOptions{})
		var fe *FileError
		if !errors.Is(err, ErrNoKeys) || !errors.As(err, &fe) || fe.Path != p {
			t.Errorf("ParseProperties(%s) = %v, want a *FileError wrapping ErrNoKeys", p, err)
		}
	}
	main := writeFile(t, dir, "main.properties", "maxid1 = 1001\nworkload_file = "+filepath.Join(dir, "empty.properties")+"\n")
	_, err := ParseProperties(main, PropertiesOptions{})
	if !errors.Is(err, ErrNoKeys) || !strings.Contains(err.Error(), "workload_file") {
		t.Errorf("empty workload_file: %v", err)
	}
}

// TestRangeErrorsNameFileLine: a value that parses but is out of range
// names where it was set (file:line or -D), for Validate's checks and for
// the distributions' parameters checked by Check; a group key (the
// operation mix) names the lines of its members.
func TestRangeErrorsNameFileLine(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "range.properties", "maxid1 = 1001\n# a comment\nloaders = 0\n")
	cfg, err := ParseProperties(p, PropertiesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ce *ConfigError
	if err := cfg.Validate(); !errors.As(err, &ce) || ce.Key != "loaders" || ce.Where != p+":3" {
		t.Errorf("Validate: %v, want loaders at %s:3", err, p)
	}
	if err := Check(cfg, false); !errors.As(err, &ce) || ce.Where != p+":3" {
		t.Errorf("Check: %v, want %s:3", err, p)
	}

	// An alias key is located under the key Validate names.
	p = writeFile(t, dir, "alias.properties", "maxid1 = 1001\nmysql_bulk_insert_batch = 0\n")
	if cfg, err = ParseProperties(p, PropertiesOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); !errors.As(err, &ce) || ce.Key != "bulk_insert_count" || ce.Where != p+":2" {
		t.Errorf("alias: %v, want bulk_insert_count at %s:2", err, p)
	}

	// -D.
	if cfg, err = ParseProperties(p, PropertiesOptions{Overrides: map[string]string{"requesters": "-1", "mysql_bulk_insert_batch": "5"}}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); !errors.As(err, &ce) || ce.Key != "requesters" || ce.Where != "-D" {
		t.Errorf("-D: %v, want requesters at -D", err)
	}

	// A distribution parameter, checked when the distributions are built.
	p = writeFile(t, dir, "shape.properties", "maxid1 = 1001\nread_shape = -3\n")
	if cfg, err = ParseProperties(p, PropertiesOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Check(cfg, true); !errors.As(err, &ce) || ce.Key != "read_shape" || ce.Where != p+":2" {
		t.Errorf("distribution parameter: %v, want read_shape at %s:2", err, p)
	}

	// The mix: lines of the members, per file.
	mix := filepath.Join("testdata", "bad-mix.properties")
	if cfg, err = ParseProperties(mix, PropertiesOptions{Overrides: map[string]string{"getnode": "1"}}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); !errors.As(err, &ce) || !strings.HasPrefix(ce.Where, mix+":") || !strings.HasSuffix(ce.Where, ", -D") {
		t.Errorf("mix: %v, want the lines of %s and -D", err, mix)
	}
}

// TestDataFileErrorsNameLine: a malformed data_file names file:line, and a
// binary one is described without its bytes.
func TestDataFileErrorsNameLine(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.dat", "nlinks\n1 50\n\n  2 40\n3 100\n")
	bin := writeFile(t, dir, "bin.dat", "\x7fELF\x02\x01\x01\x00\x00\x00")
	for _, c := range []struct{ path, where string }{{bad, bad + ":4"}, {bin, bin + ":1"}} {
		cfg := DefaultConfig()
		cfg.MaxID1 = 1001
		cfg.DataFile = c.path
		err := Check(cfg, false)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Key != "data_file" || ce.Where != c.where {
			t.Errorf("%s: %v, want data_file at %s", c.path, err, c.where)
		}
		if err != nil && !textOnly(err.Error()) {
			t.Errorf("%s: the error echoes binary data: %q", c.path, err)
		}
	}
}

// TestEstimateGraph: an exact count equals the loaded graph of an
// arithmetic out-degree; the sample of a larger graph agrees with the
// exact count at the boundary; dbcount and generate_nodes are applied.
func TestEstimateGraph(t *testing.T) {
	cfg := smallConfig(1001)
	cfg.NLinksFunc, cfg.NLinksDefault = "const", 5 // 2 per type: 4 per id1
	e, err := EstimateGraph(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if e.Nodes != 1000 || e.Links != 4000 || e.Lists != 2000 || e.Sampled || e.LinkData <= 0 || e.NodeData <= 0 {
		t.Errorf("const 5, 1000 id1s: %+v", e)
	}
	cfg.DBCount, cfg.GenerateNodes = 3, false
	if e, err = EstimateGraph(cfg); err != nil || e.Nodes != 0 || e.Links != 12000 || e.NodeData != 0 {
		t.Errorf("dbcount 3, no nodes: %+v %v", e, err)
	}
	cfg.DBCount, cfg.GenerateNodes = 1, true
	cfg.MaxID1 = 1 + 3<<20
	if e, err = EstimateGraph(cfg); err != nil || !e.Sampled || e.Links != 4*(3<<20) || e.Lists != 2*(3<<20) {
		t.Errorf("const 5, sampled: %+v %v", e, err)
	}
	// The real out-degree (built-in model): sampled just above the
	// boundary, exact just below.
	real := smallConfig(1 + estimateExact)
	exact, err := EstimateGraph(real)
	if err != nil || exact.Sampled {
		t.Fatal(exact, err)
	}
	real.MaxID1++
	sampled, err := EstimateGraph(real)
	if err != nil || !sampled.Sampled {
		t.Fatal(sampled, err)
	}
	if d := float64(sampled.Links-exact.Links) / float64(exact.Links); d < -0.01 || d > 0.01 {
		t.Errorf("sampled %d links, exact %d (one id1 fewer)", sampled.Links, exact.Links)
	}
	if _, err := EstimateGraph(smallConfig(1)); err == nil {
		t.Error("maxid1 = startid1: no error")
	}
}
