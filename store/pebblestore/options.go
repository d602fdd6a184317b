package pebblestore

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/linkbench-go/linkbench/internal/units"
)

// Options configure a Store, in the manner of Pebble's own Options: each
// field's zero value means its default, Open works on a copy with the
// defaults filled in and refuses options out of range, naming every
// problem at once. Fields set to non-zero values win over the OPTIONS
// file, which wins over the defaults. String writes the text form,
// which ParseOptions reads back.
type Options struct {
	// Dir is the database's directory, created if missing. Required.
	// Text key: dir.
	Dir string

	// Compression is the compression of the sstables' blocks, on every
	// level: "none", "snappy", "zstd" (level 3), "minlz", or one of
	// Pebble's profiles "fastest" (minlz, or snappy on arm64), "fast",
	// "balanced", "good" (zstd of growing levels for data blocks).
	// Default "snappy" (Pebble's default; MyRocks' is LZ4, of the same
	// class). Text key: compression.
	Compression string

	// BlockSize is the target uncompressed size of an sstable data block,
	// in bytes: 1 KiB to 16 MiB. Default 16 KiB (the block_size of
	// published MyRocks LinkBench set-ups; Pebble's default is 4 KiB).
	// Text key: block_size (bytes, or a number with a KiB, MiB or GiB
	// suffix).
	BlockSize int

	// CacheSize is the size of Pebble's block cache, in bytes: 1 MiB to
	// 1 TiB. Pebble reserves the memtables' memory in it (up to
	// MemTableStopWritesThreshold × MemTableSize, i.e. 2 × MemTableSize
	// unless the OPTIONS file says otherwise), so that the blocks get
	// what the memtables leave; Open refuses a CacheSize no larger than
	// that reservation, which would leave the cache no room for blocks at
	// all. Default DefaultBlockCacheSize (128 MiB) for blocks plus the
	// reservation: 256 MiB with the default memtables. Text key:
	// cache_size.
	CacheSize int64

	// BloomBitsPerKey is the number of bits per key of the bloom filter
	// of each sstable, which point lookups (GetNode, GetLink, CountLinks,
	// the read of a write) consult before reading a block: 1 to 32, or -1
	// for no filter. Default 10 (about 1 % false positives; MyRocks'
	// usual setting). Text key: bloom_bits_per_key.
	BloomBitsPerKey int

	// MemTableSize is the size of a memtable, in bytes: 1 MiB to 4 GiB
	// minus 1. Writes stall when two are full (Pebble's
	// MemTableStopWritesThreshold, settable in the OPTIONS file). Default
	// 64 MiB (RocksDB's write_buffer_size). Text key: mem_table_size.
	MemTableSize int64

	// L0CompactionThreshold is the read amplification of L0 (its number
	// of sublevels) at which an L0 compaction starts: 1 to 1000. Default
	// 4 (Pebble's, and RocksDB's level0_file_num_compaction_trigger).
	// Text key: l0_compaction_threshold.
	L0CompactionThreshold int

	// L0StopWritesThreshold is the read amplification of L0 at which
	// writes stop until compactions catch up: L0CompactionThreshold to
	// 1000. Default 12 (Pebble's). Text key: l0_stop_writes_threshold.
	L0StopWritesThreshold int

	// CompactionConcurrency is the most compactions Pebble runs at once
	// (it runs one, and more up to this bound when L0 or the compaction
	// debt grows): 1 to 64. Default 2. Text key: compaction_concurrency.
	CompactionConcurrency int

	// Sync says whether a write waits for the WAL to reach the disk
	// (fsync) before it returns: SyncOn, like MyRocks'
	// rocksdb_flush_log_at_trx_commit = 1 (pebble.Sync: an acknowledged
	// write survives a crash of the process or the machine), or SyncOff,
	// like = 2 (pebble.NoSync: the commit does not wait for the WAL,
	// which Pebble writes and syncs in the background, so a crash may
	// lose the last acknowledged writes; unlike MySQL's = 2, a crash of
	// the process too, since Pebble buffers the WAL in the process).
	// Default SyncOn. Text key: wal_sync (on, off).
	Sync SyncMode

	// OptionsFile is the path of a Pebble OPTIONS file (the text format
	// Pebble writes into a database directory and Pebble's
	// Options.Parse reads) for every engine setting without a field
	// here. The settings the fields above name are taken from the file
	// when the field is zero. The comparer and merger are the store's
	// own: the file's are ignored. Default none. Text key: options_file.
	OptionsFile string

	// Logger receives Pebble's log (flushes, compactions, write stalls,
	// background errors) through Pebble's logging event listener, its
	// events at slog.LevelDebug and its errors at slog.LevelError; nil
	// discards it. Not part of the text form.
	Logger *slog.Logger
}

// SyncMode is the WAL sync setting of Options.Sync.
type SyncMode uint8

const (
	// SyncDefault is the zero SyncMode: SyncOn.
	SyncDefault SyncMode = iota
	// SyncOn syncs the WAL at every commit (pebble.Sync).
	SyncOn
	// SyncOff leaves the WAL in the operating system's cache
	// (pebble.NoSync).
	SyncOff
)

// String returns "on", "off", or "default".
func (m SyncMode) String() string {
	switch m {
	case SyncDefault:
		return "default"
	case SyncOn:
		return "on"
	case SyncOff:
		return "off"
	}
	return fmt.Sprintf("SyncMode(%d)", uint8(m))
}

// Defaults and bounds.
const (
	// DefaultCompression is the default of Options.Compression.
	DefaultCompression = "snappy"
	// DefaultBlockSize is the default of Options.BlockSize, in bytes.
	DefaultBlockSize = 16 << 10
	// DefaultBlockCacheSize is the part of the default Options.CacheSize
	// left to blocks once the memtables are reserved, in bytes: the main
	// job's graph (maxid1 = 100001) fits in it.
	DefaultBlockCacheSize = 128 << 20
	// DefaultBloomBitsPerKey is the default of Options.BloomBitsPerKey.
	DefaultBloomBitsPerKey = 10
	// DefaultMemTableSize is the default of Options.MemTableSize, in bytes.
	DefaultMemTableSize = 64 << 20
	// DefaultL0CompactionThreshold is the default of
	// Options.L0CompactionThreshold.
	DefaultL0CompactionThreshold = 4
	// DefaultL0StopWritesThreshold is the default of
	// Options.L0StopWritesThreshold.
	DefaultL0StopWritesThreshold = 12
	// DefaultCompactionConcurrency is the default of
	// Options.CompactionConcurrency.
	DefaultCompactionConcurrency = 2

	minBlockSize    = 1 << 10
	maxBlockSize    = 16 << 20
	minCacheSize    = 1 << 20
	maxCacheSize    = 1 << 40
	maxBloomBits    = 32
	minMemTableSize = 1 << 20
	maxMemTableSize = 4<<30 - 1
	maxL0Threshold  = 1000
	maxCompactions  = 64
)

// compressions maps the names Options.Compression takes to Pebble's
// profiles.
var compressions = map[string]*sstable.CompressionProfile{
	"none":     sstable.NoCompression,
	"snappy":   sstable.SnappyCompression,
	"zstd":     sstable.ZstdCompression,
	"minlz":    sstable.MinLZCompression,
	"fastest":  sstable.FastestCompression,
	"fast":     sstable.FastCompression,
	"balanced": sstable.BalancedCompression,
	"good":     sstable.GoodCompression,
}

// compressionNames lists the keys of compressions in documentation order.
var compressionNames = []string{"none", "snappy", "zstd", "minlz", "fastest", "fast", "balanced", "good"}

// OptionError is a problem with one option: its field, the value given
// and the values it takes. Open and ParseOptions return every problem
// they find, joined (errors.Join); errors.As finds the first.
type OptionError struct {
	Field string // the Options field, e.g. "CacheSize"
	Key   string // its text key, e.g. "cache_size"
	Value string // the value given, as text
	Want  string // the values it takes, e.g. "0 (default 16384) or 1024..16777216"
}

// Error implements error.
func (e *OptionError) Error() string {
	return fmt.Sprintf("pebblestore: %s (%s) = %s: want %s", e.Field, e.Key, e.Value, e.Want)
}

// field describes one field of Options for its text form, checks and
// defaults: every field is declared once, here.
type field struct {
	name string // Go field name
	key  string // text key
	// get returns the field's text, "" when it is zero.
	get func(o *Options) string
	// set parses the text into the field.
	set func(o *Options, v string) error
	// check returns the allowed values if the field's (non-zero) value is
	// out of range, else "".
	check func(o *Options) string
}

// fields is the table of Options' fields, in text order.
var fields = []field{
	{
		name: "Dir", key: "dir",
		get: func(o *Options) string { return o.Dir },
		set: func(o *Options, v string) error { o.Dir = v; return nil },
		check: func(o *Options) string {
			if o.Dir == "" {
				return "a directory (required)"
			}
			return ""
		},
	},
	{
		name: "Compression", key: "compression",
		get: func(o *Options) string { return o.Compression },
		set: func(o *Options, v string) error { o.Compression = v; return nil },
		check: func(o *Options) string {
			if _, ok := compressions[strings.ToLower(o.Compression)]; o.Compression != "" && !ok {
				return "one of " + strings.Join(compressionNames, ", ") + " (default " + DefaultCompression + ")"
			}
			return ""
		},
	},
	intField("BlockSize", "block_size", func(o *Options) *int64 { v := int64(o.BlockSize); return &v },
		func(o *Options, v int64) { o.BlockSize = int(v) }, minBlockSize, maxBlockSize, DefaultBlockSize, true),
	intField("CacheSize", "cache_size", func(o *Options) *int64 { return &o.CacheSize },
		func(o *Options, v int64) { o.CacheSize = v }, minCacheSize, maxCacheSize, -1, true),
	{
		name: "BloomBitsPerKey", key: "bloom_bits_per_key",
		get: func(o *Options) string { return itoaNonZero(int64(o.BloomBitsPerKey)) },
		set: func(o *Options, v string) error {
			n, err := strconv.Atoi(v)
			o.BloomBitsPerKey = n
			return err
		},
		check: func(o *Options) string {
			if b := o.BloomBitsPerKey; b != 0 && b != -1 && (b < 1 || b > maxBloomBits) {
				return fmt.Sprintf("0 (default %d), 1..%d, or -1 (no filter)", DefaultBloomBitsPerKey, maxBloomBits)
			}
			return ""
		},
	},
	intField("MemTableSize", "mem_table_size", func(o *Options) *int64 { return &o.MemTableSize },
		func(o *Options, v int64) { o.MemTableSize = v }, minMemTableSize, maxMemTableSize, DefaultMemTableSize, true),
	intField("L0CompactionThreshold", "l0_compaction_threshold", func(o *Options) *int64 { v := int64(o.L0CompactionThreshold); return &v },
		func(o *Options, v int64) { o.L0CompactionThreshold = int(v) }, 1, maxL0Threshold, DefaultL0CompactionThreshold, false),
	intField("L0StopWritesThreshold", "l0_stop_writes_threshold", func(o *Options) *int64 { v := int64(o.L0StopWritesThreshold); return &v },
		func(o *Options, v int64) { o.L0StopWritesThreshold = int(v) }, 1, maxL0Threshold, DefaultL0StopWritesThreshold, false),
	intField("CompactionConcurrency", "compaction_concurrency", func(o *Options) *int64 { v := int64(o.CompactionConcurrency); return &v },
		func(o *Options, v int64) { o.CompactionConcurrency = int(v) }, 1, maxCompactions, DefaultCompactionConcurrency, false),
	{
		name: "Sync", key: "wal_sync",
		get: func(o *Options) string {
			if o.Sync == SyncDefault {
				return ""
			}
			return o.Sync.String()
		},
		set: func(o *Options, v string) error {
			switch v {
			case "on":
				o.Sync = SyncOn
			case "off":
				o.Sync = SyncOff
			case "default", "":
				o.Sync = SyncDefault
			default:
				return errors.New("not on or off")
			}
			return nil
		},
		check: func(o *Options) string {
			if o.Sync > SyncOff {
				return "SyncOn (on) or SyncOff (off); SyncDefault means on"
			}
			return ""
		},
	},
	{
		name: "OptionsFile", key: "options_file",
		get:   func(o *Options) string { return o.OptionsFile },
		set:   func(o *Options, v string) error { o.OptionsFile = v; return nil },
		check: func(o *Options) string { return "" }, // read by Open
	},
}

// intField declares an integer field with bounds lo..hi and a default
// (-1: one that depends on other fields); sizes take KiB, MiB and GiB
// suffixes in the text form.
func intField(name, key string, get func(o *Options) *int64, set func(o *Options, v int64), lo, hi, def int64, size bool) field {
	return field{
		name: name, key: key,
		get: func(o *Options) string { return itoaNonZero(*get(o)) },
		set: func(o *Options, v string) error {
			n, err := units.ParseInt(v, size)
			if err == nil {
				set(o, n)
			}
			return err
		},
		check: func(o *Options) string {
			if v := *get(o); v != 0 && (v < lo || v > hi) {
				if def < 0 {
					return fmt.Sprintf("0 (default) or %d..%d", lo, hi)
				}
				return fmt.Sprintf("0 (default %d) or %d..%d", def, lo, hi)
			}
			return ""
		},
	}
}

func itoaNonZero(v int64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

// String returns the text form of o: "key=value" pairs separated by
// spaces, in a fixed order, for the fields that are not zero (Logger
// aside); a value that is empty or holds a space, a quote or a backslash
// is a Go quoted string. ParseOptions reads it back.
func (o Options) String() string {
	var b strings.Builder
	for _, f := range fields {
		v := f.get(&o)
		if v == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f.key)
		b.WriteByte('=')
		if strings.ContainsAny(v, " \t\n\"\\") || !strconv.CanBackquote(v) {
			v = strconv.Quote(v)
		}
		b.WriteString(v)
	}
	return b.String()
}

// ParseOptions reads the text form String writes: "key=value" pairs
// separated by white space, a value optionally a Go quoted string. An
// unknown key, a repeated key or a value of the wrong type is an error;
// every problem is reported (errors.Join of *OptionError). Values are
// not range-checked: Open does that.
func ParseOptions(s string) (Options, error) {
	var o Options
	var errs []error
	seen := map[string]bool{}
	rest := strings.TrimSpace(s)
	for rest != "" {
		eq := strings.IndexByte(rest, '=')
		sp := strings.IndexAny(rest, " \t\n")
		if eq < 0 || (sp >= 0 && sp < eq) {
			word, _, _ := strings.Cut(rest, " ")
			errs = append(errs, fmt.Errorf("pebblestore: option %q: want key=value", word))
			if sp < 0 {
				break
			}
			rest = strings.TrimSpace(rest[sp:])
			continue
		}
		key := rest[:eq]
		rest = rest[eq+1:]
		var val string
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				errs = append(errs, fmt.Errorf("pebblestore: option %s: unterminated quoted value", key))
				break
			}
			val, _ = strconv.Unquote(q)
			rest = rest[len(q):]
		} else {
			end := strings.IndexAny(rest, " \t\n")
			if end < 0 {
				end = len(rest)
			}
			val, rest = rest[:end], rest[end:]
		}
		rest = strings.TrimSpace(rest)
		i := slices.IndexFunc(fields, func(f field) bool { return f.key == key })
		if i < 0 {
			keys := make([]string, len(fields))
			for j, f := range fields {
				keys[j] = f.key
			}
			errs = append(errs, fmt.Errorf("pebblestore: unknown option %q (options: %s)", key, strings.Join(keys, ", ")))
			continue
		}
		if seen[key] {
			errs = append(errs, fmt.Errorf("pebblestore: option %s given twice", key))
			continue
		}
		seen[key] = true
		if err := fields[i].set(&o, val); err != nil {
			errs = append(errs, &OptionError{Field: fields[i].name, Key: key, Value: strconv.Quote(val), Want: err.Error()})
		}
	}
	return o, errors.Join(errs...)
}

// check returns every out-of-range field of o (zero is always valid but
// for Dir).
func (o *Options) check() []error {
	var errs []error
	for _, f := range fields {
		if want := f.check(o); want != "" {
			v := f.get(o)
			if v == "" {
				v = `""`
			}
			errs = append(errs, &OptionError{Field: f.name, Key: f.key, Value: v, Want: want})
		}
	}
	return errs
}

// Validate reports every field of o out of range, joined; nil if none.
// It does not read OptionsFile: Open does, and checks the combined
// settings again (L0StopWritesThreshold >= L0CompactionThreshold, and
// Pebble's own Validate).
func (o Options) Validate() error {
	errs := o.check()
	if o.L0CompactionThreshold != 0 && o.L0StopWritesThreshold != 0 && o.L0StopWritesThreshold < o.L0CompactionThreshold {
		errs = append(errs, l0Error(o.L0StopWritesThreshold, o.L0CompactionThreshold))
	}
	return errors.Join(errs...)
}

func l0Error(stop, compaction int) error {
	return &OptionError{Field: "L0StopWritesThreshold", Key: "l0_stop_writes_threshold", Value: strconv.Itoa(stop),
		Want: fmt.Sprintf(">= L0CompactionThreshold (%d)", compaction)}
}

// levelSection matches the section of a level in an OPTIONS file, as
// Pebble's parser does.
var levelSection = regexp.MustCompile(`^Level\s*"?(\d+)"?\s*$`)

// fileKeys returns the settings an OPTIONS text names, as
// "Options.cache_size" or "Level 0.compression". Pebble has parsed the
// text already: this only tells which keys were there.
func fileKeys(text string) map[string]bool {
	keys := map[string]bool{}
	section := ""
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == ';' || line[0] == '#' {
			continue
		}
		if line[0] == '[' && line[len(line)-1] == ']' {
			section = line[1 : len(line)-1]
			if m := levelSection.FindStringSubmatch(section); m != nil {
				section = "Level " + m[1]
			} else if section == `CFOptions "default"` {
				section = "Options"
			}
			continue
		}
		if k, _, ok := strings.Cut(line, "="); ok {
			keys[section+"."+strings.TrimSpace(k)] = true
		}
	}
	return keys
}

// settings are the options a Store was opened with, as applied.
type settings struct {
	opts   Options         // the fields, with defaults and the OPTIONS file's values
	pebble *pebble.Options // what pebble.Open is given
	text   string          // Pebble's OPTIONS text of the options in effect
	sync   *pebble.WriteOptions
}

// resolve checks o, reads its OPTIONS file, and returns the Pebble
// options: o's non-zero fields, else the file's settings, else the
// defaults. Every problem is reported, joined.
func resolve(o Options) (*settings, error) {
	errs := o.check()
	p := &pebble.Options{}
	var named map[string]bool
	if o.OptionsFile != "" {
		text, err := os.ReadFile(o.OptionsFile)
		if err != nil {
			errs = append(errs, &OptionError{Field: "OptionsFile", Key: "options_file", Value: strconv.Quote(o.OptionsFile), Want: "a readable Pebble OPTIONS file: " + err.Error()})
		} else {
			bits := o.BloomBitsPerKey
			if bits <= 0 {
				bits = DefaultBloomBitsPerKey
			}
			hooks := &pebble.ParseHooks{
				NewFilterPolicy: func(name string) (pebble.FilterPolicy, error) {
					switch name {
					case bloom.FilterPolicy(0).Name():
						return bloom.FilterPolicy(bits), nil
					case pebble.NoFilterPolicy.Name():
						return pebble.NoFilterPolicy, nil
					}
					return nil, fmt.Errorf("unknown filter policy %q", name)
				},
				NewMerger: func(name string) (*pebble.Merger, error) {
					if name == mergerName {
						return maxMerger, nil
					}
					return nil, fmt.Errorf("unknown merger %q", name)
				},
			}
			if err := p.Parse(string(text), hooks); err != nil {
				errs = append(errs, &OptionError{Field: "OptionsFile", Key: "options_file", Value: strconv.Quote(o.OptionsFile), Want: "a Pebble OPTIONS file: " + err.Error()})
			}
			named = fileKeys(string(text))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	// The store's own comparer and merger, whatever the file says.
	p.Comparer = nil
	p.Merger = maxMerger
	if !named["Options.format_major_version"] {
		p.FormatMajorVersion = pebble.FormatNewest
	}
	if o.MemTableSize != 0 || !named["Options.mem_table_size"] {
		p.MemTableSize = uint64(or(o.MemTableSize, DefaultMemTableSize))
	}
	// The memtables Pebble reserves in the cache: what it allows queued.
	reserved := int64(p.MemTableSize) * int64(or(p.MemTableStopWritesThreshold, 2))
	if o.CacheSize != 0 || !named["Options.cache_size"] {
		p.CacheSize = or(o.CacheSize, DefaultBlockCacheSize+reserved)
	}
	if o.L0CompactionThreshold != 0 || !named["Options.l0_compaction_threshold"] {
		p.L0CompactionThreshold = or(o.L0CompactionThreshold, DefaultL0CompactionThreshold)
	}
	if o.L0StopWritesThreshold != 0 || !named["Options.l0_stop_writes_threshold"] {
		p.L0StopWritesThreshold = or(o.L0StopWritesThreshold, DefaultL0StopWritesThreshold)
	}
	if o.CompactionConcurrency != 0 || !named["Options.max_concurrent_compactions"] && !named["Options.concurrent_compactions"] {
		n := or(o.CompactionConcurrency, DefaultCompactionConcurrency)
		p.CompactionConcurrencyRange = func() (int, int) { return 1, n }
	}
	// Per level: a field set applies to every level; else the file's
	// levels stand, and level 0 (which the levels the file leaves out
	// inherit from) gets the default unless the file names it.
	for i := range p.Levels {
		l := &p.Levels[i]
		if o.Compression != "" || i == 0 && !named["Level 0.compression"] {
			prof := compressions[strings.ToLower(or(o.Compression, DefaultCompression))]
			l.Compression = func() *sstable.CompressionProfile { return prof }
		}
		if o.BlockSize != 0 || i == 0 && !named["Level 0.block_size"] {
			l.BlockSize = or(o.BlockSize, DefaultBlockSize)
		}
		if o.BloomBitsPerKey != 0 || i == 0 && !named["Level 0.filter_policy"] {
			switch bits := or(o.BloomBitsPerKey, DefaultBloomBitsPerKey); bits {
			case -1:
				l.FilterPolicy = pebble.NoFilterPolicy
			default:
				l.FilterPolicy = bloom.FilterPolicy(bits)
			}
		}
	}

	// What is in effect: Pebble's defaults filled into a copy (on the
	// plain file system: the disk-health checker is Open's).
	eff := p.Clone()
	eff.FS = vfs.Default
	eff.Logger = discardLogger{}
	eff.EnsureDefaults()
	if err := eff.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("pebblestore: Pebble refuses the options: %w", err))
	}
	if eff.L0StopWritesThreshold < eff.L0CompactionThreshold {
		errs = append(errs, l0Error(eff.L0StopWritesThreshold, eff.L0CompactionThreshold))
	}
	if reserved = int64(eff.MemTableSize) * int64(eff.MemTableStopWritesThreshold); eff.CacheSize <= reserved {
		errs = append(errs, &OptionError{Field: "CacheSize", Key: "cache_size", Value: strconv.FormatInt(eff.CacheSize, 10),
			Want: fmt.Sprintf("> %d, the memtables Pebble reserves in the cache (MemTableSize %d × MemTableStopWritesThreshold %d), or there is no room for blocks",
				reserved, eff.MemTableSize, eff.MemTableStopWritesThreshold)})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s := &settings{pebble: p, text: eff.String(), sync: pebble.Sync}
	s.opts = o
	s.opts.CacheSize = eff.CacheSize
	s.opts.MemTableSize = int64(eff.MemTableSize)
	s.opts.L0CompactionThreshold = eff.L0CompactionThreshold
	s.opts.L0StopWritesThreshold = eff.L0StopWritesThreshold
	_, s.opts.CompactionConcurrency = eff.CompactionConcurrencyRange()
	s.opts.Compression, s.opts.BlockSize, s.opts.BloomBitsPerKey = levelSettings(eff)
	if o.Sync == SyncOff {
		s.sync = pebble.NoSync
	} else {
		s.opts.Sync = SyncOn
	}
	return s, nil
}

// levelSettings returns the compression, block size and bloom bits of
// the levels when every level has the same, else zero values (the
// Pebble OPTIONS text has the levels' settings).
func levelSettings(p *pebble.Options) (compression string, blockSize, bloomBits int) {
	uniform := func(get func(l *pebble.LevelOptions) any) bool {
		for i := range p.Levels {
			if get(&p.Levels[i]) != get(&p.Levels[0]) {
				return false
			}
		}
		return true
	}
	if uniform(func(l *pebble.LevelOptions) any { return l.Compression() }) {
		prof := p.Levels[0].Compression()
		for name, c := range compressions {
			if c == prof {
				compression = name
			}
		}
	}
	if uniform(func(l *pebble.LevelOptions) any { return l.BlockSize }) {
		blockSize = p.Levels[0].BlockSize
	}
	if uniform(func(l *pebble.LevelOptions) any { return l.FilterPolicy }) {
		switch f := p.Levels[0].FilterPolicy.(type) {
		case bloom.FilterPolicy:
			bloomBits = int(f)
		default:
			if f == pebble.NoFilterPolicy {
				bloomBits = -1
			}
		}
	}
	return compression, blockSize, bloomBits
}

// or returns v, or def when v is zero.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
