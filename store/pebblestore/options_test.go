package pebblestore_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/store/pebblestore"
)

// Every field survives String and ParseOptions, quoted values included.
func TestOptionsRoundTrip(t *testing.T) {
	for _, o := range []pebblestore.Options{
		{},
		{Dir: "/data/lb"},
		{
			Dir: `/tmp/a dir "quoted" \ here`, Compression: "zstd", BlockSize: 32 << 10, CacheSize: 1 << 30,
			BloomBitsPerKey: -1, MemTableSize: 128 << 20, L0CompactionThreshold: 8, L0StopWritesThreshold: 20,
			CompactionConcurrency: 3, Sync: pebblestore.SyncOff, OptionsFile: "/etc/pebble/OPTIONS",
		},
		{Dir: "x", Sync: pebblestore.SyncOn, BloomBitsPerKey: 16},
	} {
		text := o.String()
		got, err := pebblestore.ParseOptions(text)
		if err != nil {
			t.Errorf("ParseOptions(%q): %v", text, err)
			continue
		}
		if got != o {
			t.Errorf("ParseOptions(%q) = %+v, want %+v", text, got, o)
		}
	}
	if s := (pebblestore.Options{}).String(); s != "" {
		t.Errorf("zero Options.String() = %q, want empty", s)
	}
	if s := (pebblestore.Options{Dir: "/d", CacheSize: 1 << 20, Sync: pebblestore.SyncOff}).String(); s != "dir=/d cache_size=1048576 wal_sync=off" {
		t.Errorf("String() = %q", s)
	}
}

func TestParseOptions(t *testing.T) {
	o, err := pebblestore.ParseOptions("  dir=/d\tcache_size=64MiB block_size=4KiB  mem_table_size=1GiB wal_sync=on ")
	if err != nil {
		t.Fatal(err)
	}
	want := pebblestore.Options{Dir: "/d", CacheSize: 64 << 20, BlockSize: 4 << 10, MemTableSize: 1 << 30, Sync: pebblestore.SyncOn}
	if o != want {
		t.Errorf("got %+v, want %+v", o, want)
	}
	// Every problem is reported.
	_, err = pebblestore.ParseOptions(`cache_size=lots nosuch=1 dir=a dir=b wal_sync=maybe bloom_bits_per_key=x junk dir2="open`)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"CacheSize (cache_size)", `unknown option "nosuch"`, "dir given twice", "Sync (wal_sync)",
		"BloomBitsPerKey", `"junk": want key=value`, "unterminated"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	var oe *pebblestore.OptionError
	if !errors.As(err, &oe) || oe.Field != "CacheSize" {
		t.Errorf("errors.As: %+v", oe)
	}
}

// Open reports every option out of range at once, naming field, value
// and bound, and creates nothing.
func TestOpenRefusesBadOptions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	_, err := pebblestore.Open(t.Context(), pebblestore.Options{
		Dir: dir, Compression: "lz77", BlockSize: 100, CacheSize: -1, BloomBitsPerKey: 99, MemTableSize: 1 << 40,
		L0CompactionThreshold: 2000, L0StopWritesThreshold: -3, CompactionConcurrency: 65, Sync: 7,
	})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"Compression (compression) = lz77: want one of none, snappy, zstd, minlz, fastest, fast, balanced, good",
		"BlockSize (block_size) = 100: want 0 (default 16384) or 1024..16777216",
		"CacheSize (cache_size) = -1",
		"BloomBitsPerKey (bloom_bits_per_key) = 99: want 0 (default 10), 1..32, or -1 (no filter)",
		"MemTableSize (mem_table_size) = 1099511627776",
		"L0CompactionThreshold (l0_compaction_threshold) = 2000: want 0 (default 4) or 1..1000",
		"L0StopWritesThreshold (l0_stop_writes_threshold) = -3",
		"CompactionConcurrency (compaction_concurrency) = 65: want 0 (default 2) or 1..64",
		"Sync (wal_sync) = SyncMode(7)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
		t.Errorf("the directory was created: %v", serr)
	}
	if _, err := pebblestore.Open(t.Context(), pebblestore.Options{}); err == nil || !strings.Contains(err.Error(), "Dir (dir)") {
		t.Errorf("Open without Dir: %v", err)
	}
	_, err = pebblestore.Open(t.Context(), pebblestore.Options{Dir: dir, L0CompactionThreshold: 10, L0StopWritesThreshold: 5})
	if err == nil || !strings.Contains(err.Error(), "L0StopWritesThreshold (l0_stop_writes_threshold) = 5: want >= L0CompactionThreshold (10)") {
		t.Errorf("stop below compaction threshold: %v", err)
	}
	// Against the default: 20 > 12.
	_, err = pebblestore.Open(t.Context(), pebblestore.Options{Dir: dir, L0CompactionThreshold: 20})
	if err == nil || !strings.Contains(err.Error(), "= 12: want >= L0CompactionThreshold (20)") {
		t.Errorf("compaction threshold above the default stop: %v", err)
	}
}

// The zero Options give the documented defaults, which Options reports,
// and Pebble's OPTIONS text shows them.
func TestDefaults(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, pebblestore.Options{Dir: dir})
	want := pebblestore.Options{
		Dir: dir, Compression: pebblestore.DefaultCompression, BlockSize: pebblestore.DefaultBlockSize,
		CacheSize: pebblestore.DefaultBlockCacheSize + 2*pebblestore.DefaultMemTableSize, BloomBitsPerKey: pebblestore.DefaultBloomBitsPerKey,
		MemTableSize: pebblestore.DefaultMemTableSize, L0CompactionThreshold: pebblestore.DefaultL0CompactionThreshold,
		L0StopWritesThreshold: pebblestore.DefaultL0StopWritesThreshold, CompactionConcurrency: pebblestore.DefaultCompactionConcurrency,
		Sync: pebblestore.SyncOn,
	}
	if got := s.Options(); got != want {
		t.Errorf("Options() = %+v\nwant %+v", got, want)
	}
	text := s.PebbleOptions()
	for _, want := range []string{"cache_size=268435456", "mem_table_size=67108864", "l0_compaction_threshold=4",
		"l0_stop_writes_threshold=12", "max_concurrent_compactions=2", "merger=linkbench.pebblestore.max.v1",
		"block_size=16384", "compression=Snappy", "filter_policy=rocksdb.BuiltinBloomFilter"} {
		if !strings.Contains(text, want) {
			t.Errorf("PebbleOptions lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "filter_policy=none") {
		t.Errorf("a level without a filter:\n%s", text)
	}
}

// An OPTIONS file sets what the fields leave at zero; a field set wins.
func TestOptionsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "OPTIONS")
	text := `[Version]
  pebble_version=0.1

[Options]
  cache_size=41943040
  mem_table_size=8388608
  l0_compaction_threshold=6
  max_concurrent_compactions=3
  mem_table_stop_writes_threshold=4

[Level "0"]
  compression=ZSTD
  block_size=8192
  filter_policy=none
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openTest(t, pebblestore.Options{OptionsFile: file, CacheSize: 48 << 20, BlockSize: 4096})
	got := s.Options()
	if got.CacheSize != 48<<20 || got.MemTableSize != 8<<20 || got.L0CompactionThreshold != 6 ||
		got.CompactionConcurrency != 3 || got.Compression != "zstd" || got.BlockSize != 4096 || got.BloomBitsPerKey != -1 {
		t.Errorf("Options() = %+v", got)
	}
	pt := s.PebbleOptions()
	for _, want := range []string{"cache_size=50331648", "mem_table_size=8388608", "mem_table_stop_writes_threshold=4",
		"l0_compaction_threshold=6", "compression=ZSTD", "block_size=4096", "filter_policy=none"} {
		if !strings.Contains(pt, want) {
			t.Errorf("PebbleOptions lacks %q:\n%s", want, pt)
		}
	}

	// Without CacheSize, the file's cache_size stands.
	s2 := openTest(t, pebblestore.Options{OptionsFile: file})
	if got := s2.Options(); got.CacheSize != 40<<20 || got.BlockSize != 8192 {
		t.Errorf("Options() = %+v", got)
	}
	// The default cache leaves 128 MiB to blocks beside the file's
	// memtables (4 of 8 MiB).
	if err := os.WriteFile(file, []byte("[Options]\n  mem_table_size=8388608\n  mem_table_stop_writes_threshold=4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s3 := openTest(t, pebblestore.Options{OptionsFile: file})
	if got := s3.Options(); got.CacheSize != pebblestore.DefaultBlockCacheSize+32<<20 {
		t.Errorf("Options().CacheSize = %d", got.CacheSize)
	}

	// A file Pebble refuses, and one that is missing.
	bad := filepath.Join(t.TempDir(), "BAD")
	if err := os.WriteFile(bad, []byte("[Options]\n  no_such_option=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{bad, filepath.Join(t.TempDir(), "missing")} {
		_, err := pebblestore.Open(t.Context(), pebblestore.Options{Dir: t.TempDir(), OptionsFile: f})
		if err == nil || !strings.Contains(err.Error(), "OptionsFile (options_file) = \""+f) {
			t.Errorf("OptionsFile %s: %v", f, err)
		}
	}
	// Pebble's own checks apply to the file's settings.
	if err := os.WriteFile(bad, []byte("[Options]\n  mem_table_stop_writes_threshold=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := pebblestore.Open(t.Context(), pebblestore.Options{Dir: t.TempDir(), OptionsFile: bad}); err == nil ||
		!strings.Contains(err.Error(), "MemTableStopWritesThreshold (1) must be >= 2") {
		t.Errorf("mem_table_stop_writes_threshold=1: %v", err)
	}
}

// Pebble reserves the memtables in the block cache: a cache they would
// fill is refused.
func TestCacheHoldsMemtables(t *testing.T) {
	_, err := pebblestore.Open(t.Context(), pebblestore.Options{Dir: t.TempDir(), CacheSize: 64 << 20, MemTableSize: 32 << 20})
	if err == nil || !strings.Contains(err.Error(), "CacheSize (cache_size) = 67108864: want > 67108864, the memtables Pebble reserves") {
		t.Errorf("cache of 2 memtables: %v", err)
	}
	s := openTest(t, pebblestore.Options{MemTableSize: 32 << 20})
	if got := s.Options().CacheSize; got != pebblestore.DefaultBlockCacheSize+64<<20 {
		t.Errorf("default CacheSize with 32 MiB memtables = %d", got)
	}
}

// The OPTIONS file Pebble writes into a store's directory is a valid
// OptionsFile for another store.
func TestOptionsFileFromDirectory(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, pebblestore.Options{Dir: dir, Compression: "zstd", MemTableSize: 2 << 20})
	files, err := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no OPTIONS file in %s: %v", dir, err)
	}
	s2 := openTest(t, pebblestore.Options{OptionsFile: files[0]})
	if got := s2.Options(); got.Compression != "zstd" || got.MemTableSize != 2<<20 {
		t.Errorf("Options() = %+v", got)
	}
	_ = s
}
