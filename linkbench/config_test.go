package linkbench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/internal/testref"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaultConfigIsValid(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if s := cfg.Mix.Sum(); s < 100-1e-9 || s > 100+1e-9 {
		t.Errorf("default mix sums to %v", s)
	}
}

func TestSetErrors(t *testing.T) {
	cases := []struct {
		key, value string
		wantKey    string
		wantIn     string
	}{
		{"maxid", "5", "maxid", `did you mean "maxid1"`},
		{"requesterz", "5", "requesterz", `did you mean "requesters"`},
		{"read_shap", "0.5", "read_shap", `did you mean "read_shape"`},
		{"maxid1", "1e9", "maxid1", "malformed integer"},
		{"maxid1", "12x", "maxid1", "malformed integer"},
		{"requesters", "99999999999", "requesters", "must be in 0..100000"},
		{"read_shape", "zero.8", "read_shape", "malformed number"},
		{"read_shape", "NaN", "read_shape", "malformed number"},
		{"generate_nodes", "yes", "generate_nodes", "true or false"},
		{"read_function", "com.example.Nope", "read_function", ""},
		{"link_add_datagen", "Nope", "link_add_datagen", "MotifDataGenerator"},
		{"dbload", "50,x", "dbload", "percentages"},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		err := cfg.Set(c.key, c.value)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("Set(%q, %q) = %v, want *ConfigError", c.key, c.value, err)
			continue
		}
		if ce.Key != c.wantKey || !strings.Contains(err.Error(), c.wantIn) {
			t.Errorf("Set(%q, %q) = %v (key %q), want key %q and %q", c.key, c.value, err, ce.Key, c.wantKey, c.wantIn)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("error spans lines: %q", err)
		}
	}
}

func TestSetAcceptsJavaNames(t *testing.T) {
	cfg := DefaultConfig()
	for k, v := range map[string]string{
		"read_function":           "com.facebook.LinkBench.distributions.UniformDistribution",
		"node_read_function":      "com.facebook.LinkBench.RealDistribution",
		"node_read_realdist":      "node_reads",
		"write_function":          "real",
		"link_add_datagen":        "com.facebook.LinkBench.generators.UniformDataGenerator",
		"linkstore":               "com.facebook.LinkBench.LinkStoreMysql",
		"MySQL_bulk_insert_batch": "512",
		"warmup_time":             "-5",
		"use_hdr_histogram":       "true",
		"url":                     "mongodb://x",
	} {
		if err := cfg.Set(k, v); err != nil {
			t.Errorf("Set(%q, %q): %v", k, v, err)
		}
	}
	if cfg.BulkInsertCount != 512 || cfg.WarmupTime != 0 || cfg.LinkAddData.Kind != DataGenUniform {
		t.Errorf("got %+v", cfg)
	}
}

func TestValidateErrors(t *testing.T) {
	cases := []struct {
		name    string
		mutate  func(*Config)
		wantKey string
	}{
		{"startid1 0", func(c *Config) { c.StartID1 = 0 }, "startid1"},
		{"maxid1 == startid1", func(c *Config) { c.MaxID1 = c.StartID1 }, "maxid1"},
		{"maxid1 < startid1", func(c *Config) { c.StartID1, c.MaxID1 = 10, 5 }, "maxid1"},
		{"requesters < 0", func(c *Config) { c.Requesters = -1 }, "requesters"},
		{"loaders 0", func(c *Config) { c.Loaders = 0 }, "loaders"},
		{"chunk 0", func(c *Config) { c.LoaderChunkSize = 0 }, "loader_chunk_size"},
		{"bulk 0", func(c *Config) { c.BulkInsertCount = 0 }, "bulk_insert_count"},
		{"link types 0", func(c *Config) { c.LinkTypeCount = 0 }, "link_type_count"},
		{"mix 99.9", func(c *Config) { c.Mix.GetNode -= 0.1 }, strings.Join(mixKeys[:], "+")},
		{"mix negative", func(c *Config) { c.Mix.AddLink = -1; c.Mix.GetNode += 6.35038 }, "addlink"},
		{"history > 100", func(c *Config) { c.GetLinkListHistory = 101 }, "getlinklist_history"},
		{"dbcount 101", func(c *Config) { c.DBCount = 101 }, "dbcount"},
		{"dbload count", func(c *Config) { c.DBCount = 2; c.DBLoad = []float64{100} }, "dbload"},
		{"dbload sum", func(c *Config) { c.DBCount = 2; c.DBLoad = []float64{50, 49} }, "dbload"},
		{"endbyte", func(c *Config) { c.LinkAddData.EndByte = 10 }, "link_add_datagen_endbyte"},
		// 0 <= startbyte < endbyte <= 255: startbyte 255 is refused as
		// startbyte (it was checked against 0..255 while documented 0..254).
		{"startbyte 255", func(c *Config) { c.LinkAddData.StartByte, c.LinkAddData.EndByte = 255, 255 }, "link_add_datagen_startbyte"},
		{"uniqueness", func(c *Config) { c.NodeUpData.Uniqueness = 2 }, "node_up_datagen_uniqueness"},
		{"datasize", func(c *Config) { c.LinkDataSize = 0 }, "link_datasize"},
		{"requestrate", func(c *Config) { c.RequestRate = -1 }, "requestrate"},
		{"hdr accuracy", func(c *Config) { c.HDRAccuracy = 6 }, "hdr_histogram_accuracy"},
		{"debuglevel", func(c *Config) { c.DebugLevel = "LOUD" }, "debuglevel"},
		{"multiget range", func(c *Config) { c.MultigetDistMax = 1 }, "link_multiget_dist_max"},
		{"engine", func(c *Config) { c.Store.Engine = "myisam" }, "engine"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.mutate(&cfg)
			err := cfg.Validate()
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Key != c.wantKey {
				t.Fatalf("Validate() = %v, want a *ConfigError for %q", err, c.wantKey)
			}
		})
	}
}

func TestParsePropertiesPrecedence(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "work.properties", "maxid1 = 111\nrequesters = 7\nloaders = 5\nread_shape = 0.5\n")
	main := writeFile(t, dir, "main.properties", "workload_file = work.properties\nmaxid1 = 222\nrequesters = 3\n")
	cfg, err := ParseProperties(main, PropertiesOptions{Overrides: map[string]string{"maxid1": "333"}, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// -D > main > workload > defaults.
	if cfg.MaxID1 != 333 || cfg.Requesters != 3 || cfg.Loaders != 5 || cfg.Read.Spec.Shape != 0.5 || cfg.LinkTypeCount != 2 {
		t.Errorf("maxid1=%d requesters=%d loaders=%d read_shape=%v link_type_count=%d",
			cfg.MaxID1, cfg.Requesters, cfg.Loaders, cfg.Read.Spec.Shape, cfg.LinkTypeCount)
	}
	if len(cfg.SourceFiles) != 2 {
		t.Errorf("SourceFiles = %v", cfg.SourceFiles)
	}
}

func TestParsePropertiesFileLookup(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, "config"), "W.properties", "requesters = 9\n")
	dir := t.TempDir()
	main := writeFile(t, dir, "main.properties", "workload_file = config/W.properties\n")
	// Found under LINKBENCH_HOME.
	cfg, err := ParseProperties(main, PropertiesOptions{Home: home, WorkDir: dir})
	if err != nil || cfg.Requesters != 9 {
		t.Fatalf("requesters=%d err=%v", cfg.Requesters, err)
	}
	// Not found anywhere: the error names the key and every path tried.
	_, err = ParseProperties(main, PropertiesOptions{Home: t.TempDir(), WorkDir: dir})
	var fe *FileError
	if !errors.As(err, &fe) || fe.Key != "workload_file" || len(fe.Tried) < 2 || !strings.Contains(err.Error(), "tried") {
		t.Fatalf("err = %v, want a *FileError for workload_file listing the paths tried", err)
	}
	// The main file missing.
	_, err = ParseProperties(filepath.Join(dir, "nope.properties"), PropertiesOptions{})
	if !errors.As(err, &fe) || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nope.properties") {
		t.Fatalf("err = %v", err)
	}
}

func TestParsePropertiesDataFile(t *testing.T) {
	dir := t.TempDir()
	// The shipped default path, absent: accepted (built-in model).
	main := writeFile(t, dir, "a.properties", "data_file = config/Distribution.dat\n")
	cfg, err := ParseProperties(main, PropertiesOptions{Home: t.TempDir(), WorkDir: dir})
	if err != nil || cfg.DataFile != DefaultDataFile {
		t.Fatalf("DataFile=%q err=%v", cfg.DataFile, err)
	}
	// Any other absent path: an error.
	main = writeFile(t, dir, "b.properties", "data_file = mine/Distribution.dat\n")
	_, err = ParseProperties(main, PropertiesOptions{Home: t.TempDir(), WorkDir: dir})
	var fe *FileError
	if !errors.As(err, &fe) || fe.Key != "data_file" {
		t.Fatalf("err = %v, want *FileError for data_file", err)
	}
	// A real one, relative to the including file.
	real := testref.File(t, "Distribution.dat")
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "D.dat", string(b))
	main = writeFile(t, dir, "c.properties", "data_file = D.dat\n")
	cfg, err = ParseProperties(main, PropertiesOptions{Home: t.TempDir(), WorkDir: t.TempDir()})
	if err != nil || cfg.DataFile != filepath.Join(dir, "D.dat") {
		t.Fatalf("DataFile=%q err=%v", cfg.DataFile, err)
	}
}

// TestBadMixCase is the field case ../shared/cases/properties/bad-mix.properties:
// a mix summing to 99.9 is refused with an error naming the mix keys.
func TestBadMixCase(t *testing.T) {
	cfg, err := ParseProperties(filepath.Join("testdata", "bad-mix.properties"), PropertiesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.Validate()
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(ce.Key, "getnode") || !strings.Contains(ce.Key, "addlink") ||
		!strings.Contains(err.Error(), "99.9") {
		t.Fatalf("Validate() = %v, want an error naming the mix keys and the sum", err)
	}
}

func TestParsePropertiesUnknownKeyNamesFile(t *testing.T) {
	dir := t.TempDir()
	main := writeFile(t, dir, "m.properties", "# comment\nmaxid1 = 10\nreqesters = 4\n")
	_, err := ParseProperties(main, PropertiesOptions{})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "reqesters" || !strings.Contains(err.Error(), "m.properties:3") ||
		!strings.Contains(err.Error(), `"requesters"`) {
		t.Fatalf("err = %v", err)
	}
}

// TestNLinksRealDistributionClass: nlinks_func may name LinkBench's
// RealDistribution class (with nlinks_realdist); the data file is then read
// (it was not: the check looked at NLinks.Set, which no key sets, and the
// run failed for want of the data file it had).
func TestNLinksRealDistributionClass(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxID1 = 1001
	cfg.DataFile = testref.File(t, "Distribution.dat")
	for k, v := range map[string]string{"nlinks_func": "com.facebook.LinkBench.RealDistribution", "nlinks_realdist": "links"} {
		if err := cfg.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := Check(cfg, false); err != nil {
		t.Fatalf("nlinks_func = RealDistribution with a data_file: %v", err)
	}
}

// TestNoWorkingDirectoryLookup: the library never reads the working
// directory on its own. A config/Distribution.dat there (here a malformed
// one) is not read by Check for DefaultConfig's data_file (which then
// means the built-in model), nor found by ParseProperties without WorkDir;
// with WorkDir (as the command-line tool passes it) it is.
func TestNoWorkingDirectoryLookup(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := writeFile(t, filepath.Join(dir, "config"), "Distribution.dat", "nlinks\n1 50\n2 40\n3 100\n")
	t.Chdir(dir)
	t.Setenv("LINKBENCH_HOME", t.TempDir())

	cfg := DefaultConfig()
	cfg.MaxID1 = 1001
	if err := Check(cfg, true); err != nil {
		t.Errorf("DefaultConfig read ./%s: %v", DefaultDataFile, err)
	}
	cfg.RNG = RNGJava
	var ce *ConfigError
	if err := Check(cfg, true); !errors.As(err, &ce) || ce.Key != "data_file" || !strings.Contains(err.Error(), "not found") {
		t.Errorf("rng = java with the default data_file: %v, want a data_file error", err)
	}

	p, err := ParseProperties("", PropertiesOptions{Overrides: map[string]string{"maxid1": "1001"}})
	if err != nil || p.DataFile != DefaultDataFile {
		t.Errorf("ParseProperties without WorkDir: data_file %q, %v; want %q", p.DataFile, err, DefaultDataFile)
	}
	p, err = ParseProperties("", PropertiesOptions{Overrides: map[string]string{"maxid1": "1001"}, WorkDir: dir})
	if err != nil || p.DataFile != bad {
		t.Errorf("ParseProperties with WorkDir: data_file %q, %v; want %q", p.DataFile, err, bad)
	}
	if err := Check(p, false); !errors.As(err, &ce) || ce.Key != "data_file" {
		t.Errorf("the file found in WorkDir is read: %v, want its data_file error", err)
	}
}

// TestDatabaseNames: dbprefix + index for each of dbcount databases, or
// dbid alone when it names the one database.
func TestDatabaseNames(t *testing.T) {
	for _, c := range []struct {
		prefix, dbid string
		count        int
		want         string
	}{
		{"linkdb", "", 1, "[linkdb0]"},
		{"lb_", "", 3, "[lb_0 lb_1 lb_2]"},
		{"linkdb", "foo", 1, "[foo]"},
		{"linkdb", "foo", 2, "[linkdb0 linkdb1]"}, // Validate refuses it; dbid names one database
	} {
		cfg := DefaultConfig()
		cfg.DBPrefix, cfg.Store.DBID, cfg.DBCount = c.prefix, c.dbid, c.count
		if got := fmt.Sprint(cfg.DatabaseNames()); got != c.want {
			t.Errorf("dbprefix %q, dbid %q, dbcount %d: %s, want %s", c.prefix, c.dbid, c.count, got, c.want)
		}
	}
}
