package linkbench

import (
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/stats"
)

// ConfigError is a configuration value the benchmark cannot run with. Key is
// the LinkBench configuration key (e.g. "maxid1"), or several keys joined
// by "+" when the problem involves a group (the operation mix).
type ConfigError struct {
	Key    string
	Value  string
	Reason string // what is wrong, with the allowed range
	Where  string // optional: "file:line" or "-D" where the value was set
}

// Error implements error, in one line.
func (e *ConfigError) Error() string {
	where := ""
	if e.Where != "" {
		where = " (" + e.Where + ")"
	}
	if e.Value == "" {
		return fmt.Sprintf("config: %s%s: %s", e.Key, where, e.Reason)
	}
	// A value that is binary or very long is described, not repeated.
	return fmt.Sprintf("config: %s = %s%s: %s", e.Key, describe(e.Value), where, e.Reason)
}

// Seed is an optional random seed (LinkBench's load_random_seed and
// request_random_seed). When Set is false the driver draws a seed and
// reports it, so that the run can be repeated.
type Seed struct {
	Value int64
	Set   bool
}

// FixedSeed returns a Seed that is set to v.
func FixedSeed(v int64) Seed { return Seed{Value: v, Set: true} }

// Mix is the request-phase operation mix: the percentage of requests of
// each kind. The ten shares must sum to 100 (within 1e-5), as in LinkBench.
// GetLink is LinkBench's "getlink" key, performed as MULTIGET_LINK.
type Mix struct {
	AddLink     float64 // addlink
	DeleteLink  float64 // deletelink
	UpdateLink  float64 // updatelink
	CountLink   float64 // countlink
	GetLink     float64 // getlink (MULTIGET_LINK)
	GetLinkList float64 // getlinklist
	AddNode     float64 // addnode
	UpdateNode  float64 // updatenode
	DeleteNode  float64 // deletenode
	GetNode     float64 // getnode
}

// mixKeys are the mix keys in LinkBench's cumulative-threshold order.
var mixKeys = [10]string{"addlink", "deletelink", "updatelink", "countlink", "getlink",
	"getlinklist", "addnode", "updatenode", "deletenode", "getnode"}

func (m *Mix) shares() [10]*float64 {
	return [10]*float64{&m.AddLink, &m.DeleteLink, &m.UpdateLink, &m.CountLink, &m.GetLink,
		&m.GetLinkList, &m.AddNode, &m.UpdateNode, &m.DeleteNode, &m.GetNode}
}

// Sum returns the sum of the ten shares, in percent.
func (m Mix) Sum() float64 {
	s := 0.0
	for _, p := range m.shares() {
		s += *p
	}
	return s
}

// HasNodeOps reports whether any node operation has a non-zero share.
func (m Mix) HasNodeOps() bool {
	return m.AddNode > 0 || m.UpdateNode > 0 || m.DeleteNode > 0 || m.GetNode > 0
}

// DistConfig configures one of LinkBench's distributions from the keys
// "<prefix>function" (Function, the name as written: a built-in mode such
// as "real" or a Java class name) and "<prefix>shape", "<prefix>mean", ...
// (Spec's parameters). Set reports whether the function key was given.
type DistConfig struct {
	Function string
	Spec     distributions.Spec
	Set      bool
}

// RNGMode selects how a run draws its random numbers (the rng key).
type RNGMode string

// The random modes.
const (
	// RNGFast is the default mode: every random source is a
	// pgregory.net/rand stream derived from the seed and the source's role
	// (a load chunk, the node loader of a database, a requester), so a load
	// is a pure function of (config, load_random_seed) for any number of
	// loaders, and a requester's calls a pure function of (config,
	// request_random_seed, requester index). Most quirks of reference
	// §11.2 are fixed (docs/behaviour.md says which, item by item).
	RNGFast RNGMode = "fast"
	// RNGJava is the Java-compatible mode: java.util.Random sources seeded
	// from a SHA1PRNG master as LinkBench seeds them (reference §5.1, §6.1,
	// Appendix A), LinkBench's chunk order and draw order (Appendix B) and
	// its quirks that shape the streams (§11.1, and of §11.2 those that
	// change draws or ids: 11.2-2, 11.2-13, 11.2-14, 11.2-15 and 11.2-24),
	// so that a run's store calls match the Java benchmark's with
	// the same seeds call for call. As in Java, a load is reproducible only
	// with loaders = 1 (all chunks share one generator), and REAL access
	// distributions only with requesters = 1 (their cursors are shared). It
	// needs LinkBench's real data file wherever the workload uses it (never
	// the built-in model).
	RNGJava RNGMode = "java"
)

// Java reports whether the mode is RNGJava.
func (m RNGMode) Java() bool { return m == RNGJava }

// DataGenKind names a payload generator.
type DataGenKind string

// The payload generators (reference §8).
const (
	DataGenMotif   DataGenKind = "motif"   // com.facebook.LinkBench.generators.MotifDataGenerator
	DataGenUniform DataGenKind = "uniform" // com.facebook.LinkBench.generators.UniformDataGenerator
)

// DataGenConfig configures a payload generator from the keys "<gen>",
// "<gen>_startbyte", "<gen>_endbyte" and "<gen>_uniqueness" (for example
// gen = link_add_datagen). Bytes are drawn in [StartByte, EndByte],
// 0 <= StartByte < EndByte <= 255; Uniqueness in [0, 1] is the share of
// fresh 128-byte chunks (Motif only).
type DataGenConfig struct {
	Kind       DataGenKind
	StartByte  int
	EndByte    int
	Uniqueness float64
	Set        bool
}

// StoreConfig holds LinkBench's store connection keys. The library does not
// use them: the caller builds the store (the command-line tool does so from
// these values). Password is never printed.
type StoreConfig struct {
	LinkStore  string // linkstore: store name or Java class name as written
	NodeStore  string // nodestore
	Host       string // host
	Port       int    // port (3306)
	User       string // user
	Password   string // password
	DBID       string // dbid (the original benchmark's database name key)
	LinkTable  string // linktable ("linktable")
	CountTable string // counttable ("counttable")
	NodeTable  string // nodetable ("nodetable")
	Engine     string // engine: "innodb" or "rocksdb" for MySQL stores ("innodb")
	// CheckCount is check_count. LinkBench's stores compare, after every
	// link write, the count row with the links they count; linkbench-go's
	// stores keep counts exact in each write's own transaction, and
	// Validate refuses check_count = true (verify the counts after a run
	// instead: Verify, the tool's -verify).
	CheckCount bool
	// DisableBinlogLoad is MySQL_disable_binlog_load (also accepted in
	// lower case): turn the binary log off for load sessions.
	DisableBinlogLoad bool
	// MemoryLimitMB is memory_limit_mb (a linkbench-go key): the in-memory
	// store refuses a load whose estimated size (EstimateGraph) exceeds this
	// many MiB; 0 (the default) means the machine's memory. Set it above
	// the machine's memory to try a load anyway.
	MemoryLimitMB int64
}

// Config is a LinkBench run's configuration: the workload (graph shape,
// payloads, operation mix, access distributions) and the drivers' settings.
// Field comments give the LinkBench key; DefaultConfig documents the
// defaults. Validate checks the values; Load and Request call it.
type Config struct {
	// Graph and load phase.

	StartID1        int64 // startid1: first node id, >= 1 (1)
	MaxID1          int64 // maxid1: one past the last loaded node id, > startid1 (10000001)
	Loaders         int   // loaders: link loader goroutines, 1..4096 (10)
	GenerateNodes   bool  // generate_nodes: also load nodes (true)
	LoaderChunkSize int64 // loader_chunk_size: id1s per work chunk, >= 1 (2048)
	BulkInsertCount int   // bulk_insert_count: rows per bulk insert, 1..1000000 (1024)
	BulkInsertKB    int   // bulk_insert_kb: also flush node batches at this many KiB; 0 = off (0)
	LoadRandomSeed  Seed  // load_random_seed

	// Out-degree and payloads.

	DataFile string // data_file: LinkBench's Distribution.dat ("config/Distribution.dat")
	// DataVintage is data_vintage (a linkbench-go key): which built-in model
	// replaces data_file when the file is not found, 2017 (the default: the
	// maintained fork's Distribution.dat) or 2011 (the original benchmark's).
	DataVintage   distributions.Vintage
	LinkTypeCount int64         // link_type_count: link types per id1, 1..1000 (2)
	NLinksFunc    string        // nlinks_func: real, const, reciprocal, multiples, exponential, perfect_squares or a distribution class ("real")
	NLinks        DistConfig    // nlinks_shape, nlinks_mean, ... for a class-based nlinks_func
	NLinksConfig  int64         // nlinks_config (arithmetic modes)
	NLinksDefault int64         // nlinks_default (arithmetic modes)
	RandomID2Max  int64         // randomid2max: if > 0, id2s are uniform in [0, randomid2max) (0)
	LinkDataSize  float64       // link_datasize: median link payload, bytes, > 0 (23)
	NodeDataSize  float64       // node_datasize: median node payload, bytes, > 0 (168)
	LinkAddData   DataGenConfig // link_add_datagen
	LinkUpData    DataGenConfig // link_up_datagen
	NodeAddData   DataGenConfig // node_add_datagen
	NodeUpData    DataGenConfig // node_up_datagen

	// Request phase.

	Requesters        int           // requesters: request goroutines, 0..100000; 0 skips the phase (100)
	Requests          int64         // requests: requests per requester after warm-up, >= 0 (500000)
	RequestRate       float64       // requestrate: mean requests/s per requester; 0 = unthrottled (0)
	MaxTime           time.Duration // maxtime: measured time limit, whole seconds (100000 s)
	WarmupTime        time.Duration // warmup_time: unmeasured warm-up, whole seconds (0)
	MaxFailedRequests int64         // max_failed_requests: per requester; negative = never abort (100)
	// GraceTime is grace_time (a linkbench-go key, seconds): how long the
	// calls still waiting for the store when maxtime passes may take
	// before they are cancelled and abandoned (5 s; 0 cancels at once).
	GraceTime time.Duration
	// RequestTimeout is request_timeout (a linkbench-go key, seconds,
	// fractions allowed): a call that waits longer for the store is
	// cancelled and abandoned, and the requester goes on (0: none).
	RequestTimeout     time.Duration
	RequestRandomSeed  Seed       // request_random_seed
	Mix                Mix        // addlink ... getnode (the maintained fork's FB mix)
	GetLinkListHistory float64    // getlinklist_history: percent of list reads that page into history, 0..100 (0.3)
	ID2GenConfig       int        // id2gen_config: 0, or 1 for per-requester disjoint id2s (0)
	Read               DistConfig // read_function, read_shape, ...: link reads (Zipf 0.8)
	ReadUncorr         DistConfig // read_uncorr_function, ...: uncorrelated link reads and writes (Zipf 0.8)
	ReadUncorrBlend    float64    // read_uncorr_blend: percent of link reads AND writes using ReadUncorr (99.5)
	Write              DistConfig // write_function, write_shape, ...: link writes (Zipf 0.741)
	WriteUncorr        DistConfig // write_uncorr_*: accepted for compatibility, never read (LinkBench quirk)
	WriteUncorrBlend   float64    // write_uncorr_blend: accepted, never read (LinkBench quirk)
	NodeRead           DistConfig // node_read_function, ...: (Zipf 0.625)
	NodeUpdate         DistConfig // node_update_function, ...: (Zipf 0.606)
	NodeDelete         DistConfig // node_delete_function, ...: (Uniform)
	MultigetDist       DistConfig // link_multiget_dist, link_multiget_dist_prob, ...: ids per multiget (Geometric 0.382)
	MultigetDistMin    int64      // link_multiget_dist_min (1)
	MultigetDistMax    int64      // link_multiget_dist_max (128)
	NeverChange        bool       // never_change: the legacy (original 2011) workload rules (false)
	// AllowEmptyStore is allow_empty_store (a linkbench-go key): run the
	// request phase even when a database holds no node in [startid1,
	// maxid1), that is, on a graph that was not loaded (false: Request
	// refuses, see ErrEmptyStore).
	AllowEmptyStore bool

	// RNG is rng: the random mode, RNGFast (the default) or RNGJava (draw
	// for draw LinkBench's streams). "" means RNGFast.
	RNG RNGMode

	// Databases.

	DBPrefix string    // dbprefix: database name prefix; databases are dbprefix0.. ("linkdb")
	DBCount  int       // dbcount: number of databases, 1..100 (1)
	DBLoad   []float64 // dbload: percent of requests per database, dbcount entries summing to 100; empty = equal (empty)

	// Reporting.

	ProgressFreq         time.Duration // progressfreq: request progress log period, whole seconds (300 s)
	DisplayFreq          time.Duration // displayfreq: -csvstream period, whole seconds (1800 s)
	LoadProgressInterval int64         // load_progress_interval: log load progress every this many links (50000)
	ReqProgressInterval  int64         // req_progress_interval: (10000)
	MaxSamples           int64         // maxsamples: accepted for compatibility; HDR histograms need no reservoir (10000)
	HDRAccuracy          int           // hdr_histogram_accuracy: significant digits, 1..5 (3)
	HDRMaxLatency        int64         // hdr_histogram_max_latency: us, >= 1000; larger values are clamped and counted (3600000000)
	DebugLevel           string        // debuglevel: TRACE, DEBUG, INFO, WARN or ERROR ("INFO")

	// Store keys, for the caller that builds the store.
	Store StoreConfig

	// Logger receives progress and diagnostics; nil discards them.
	Logger *slog.Logger `json:"-"`
	// Now is the wall clock (time.Now when nil); tests pin it. Latencies
	// always use the monotonic clock. The request phase reads Now once, at
	// its start; the times of the links and nodes it writes are that wall
	// clock plus the monotonic time elapsed since.
	Now func() time.Time `json:"-"`
	// Stream, when not nil, receives each requester's interval statistics
	// every displayfreq seconds (LinkBench's -csvstream).
	Stream *stats.StreamWriter `json:"-"`
	// OnProgress, when not nil, receives a running phase's progress every
	// progressfreq seconds and once at its end (Progress.Final), from a
	// goroutine of its own: it must not block the phase for long.
	OnProgress func(Progress) `json:"-"`

	// SourceFiles lists the files the configuration was read from (the
	// main file first), for reports; ParseProperties fills it.
	SourceFiles []string

	// hooks, set only by this package's tests, replace the Java mode's
	// master-seeded sources and chunk list.
	hooks *javaHooks
	// monotonic, set only by this package's tests, replaces the request
	// phase's monotonic clock: it returns the time elapsed since the start
	// of the phase (requesters call it from their own goroutines).
	monotonic func() time.Duration
	// origins maps each key ParseProperties set to where it was set
	// ("file:line" or "-D"), so that range errors name it too.
	origins map[string]string
}

// DefaultConfig returns the configuration of the maintained LinkBench fork
// as shipped (LinkConfigMysql.properties with FBWorkload.properties,
// reference §4.5), minus the store connection keys: maxid1 = 10000001,
// 100 requesters of 500000 requests for at most 100000 s, 10 loaders, the
// 2017 Distribution.dat out-degree (data_file = config/Distribution.dat;
// when that file is not found the built-in model of it is used), the FB
// operation mix and Zipf access distributions.
func DefaultConfig() Config {
	motif := func(start, end int, uniq float64) DataGenConfig {
		return DataGenConfig{Kind: DataGenMotif, StartByte: start, EndByte: end, Uniqueness: uniq, Set: true}
	}
	zipf := func(shape float64) DistConfig {
		return DistConfig{Function: "com.facebook.LinkBench.distributions.ZipfDistribution",
			Spec: distributions.Spec{Kind: distributions.KindZipf, Shape: shape}, Set: true}
	}
	return Config{
		StartID1:        1,
		MaxID1:          10000001,
		Loaders:         10,
		GenerateNodes:   true,
		LoaderChunkSize: 2048,
		BulkInsertCount: 1024,

		DataFile:      DefaultDataFile,
		LinkTypeCount: 2,
		NLinksFunc:    "real",
		LinkDataSize:  23,
		NodeDataSize:  168,
		LinkAddData:   motif(32, 100, 0.225),
		LinkUpData:    motif(32, 100, 0.225),
		NodeAddData:   motif(50, 220, 0.63),
		NodeUpData:    motif(50, 220, 0.63),

		Requesters:        100,
		Requests:          500000,
		MaxTime:           100000 * time.Second,
		MaxFailedRequests: 100, // Quirk §11.2-11 (0 when the key is absent): fixed, the shipped 100 is the default.
		GraceTime:         5 * time.Second,
		Mix: Mix{AddLink: 5.35038, DeleteLink: 0.98401, UpdateLink: 4.75589, CountLink: 4.27898,
			GetLink: 12.14725, GetLinkList: 22.57039, GetNode: 43.9869, AddNode: 2.61198,
			UpdateNode: 3.06256, DeleteNode: 0.25166},
		GetLinkListHistory: 0.3,
		Read:               zipf(0.8),
		ReadUncorr:         zipf(0.8),
		ReadUncorrBlend:    99.5,
		Write:              zipf(0.741),
		WriteUncorr:        DistConfig{Spec: distributions.Spec{Shape: 0.741, Config: 1}},
		WriteUncorrBlend:   95,
		NodeRead:           zipf(0.625),
		NodeUpdate:         zipf(0.606),
		NodeDelete: DistConfig{Function: "com.facebook.LinkBench.distributions.UniformDistribution",
			Spec: distributions.Spec{Kind: distributions.KindUniform}, Set: true},
		MultigetDist: DistConfig{Function: "com.facebook.LinkBench.distributions.GeometricDistribution",
			Spec: distributions.Spec{Kind: distributions.KindGeometric, Prob: 0.382}, Set: true},
		MultigetDistMin: 1,
		MultigetDistMax: 128,

		RNG: RNGFast,

		DBPrefix: "linkdb",
		DBCount:  1,

		ProgressFreq:         300 * time.Second,
		DisplayFreq:          1800 * time.Second,
		LoadProgressInterval: 50000,
		ReqProgressInterval:  10000,
		MaxSamples:           10000,
		HDRAccuracy:          3,
		HDRMaxLatency:        3_600_000_000,
		DebugLevel:           "INFO",

		Store: StoreConfig{Port: 3306, LinkTable: "linktable", CountTable: "counttable",
			NodeTable: "nodetable", Engine: "innodb"},
	}
}

// maxIDs is the largest id range (maxid1 - startid1) the workload
// supports: the invertible shuffler needs n < 2^61 and id arithmetic some
// headroom.
const maxIDs = 1 << 60

// DefaultDataFile is the data_file value of LinkBench's shipped workload.
// When a file of that name is not found (see ParseProperties for where it
// is looked for), the built-in out-degree model is used instead; any other
// data_file value must name a readable file.
const DefaultDataFile = "config/Distribution.dat"

// Validate checks every value against its allowed range and the
// consistency rules LinkBench enforces, returning the first problem as a
// *ConfigError naming the key (and, for a configuration ParseProperties
// read, the file:line or -D that set it). It does not read the data file or
// build the distributions: Load and Request do that (and report errors the
// same way).
func (c *Config) Validate() error {
	return c.locate(c.validate())
}

func (c *Config) validate() error {
	bad := func(key string, v any, reason string) error {
		return &ConfigError{Key: key, Value: fmt.Sprint(v), Reason: reason}
	}
	switch {
	case c.StartID1 < 1:
		return bad("startid1", c.StartID1, "must be >= 1")
	case c.MaxID1 <= c.StartID1:
		return bad("maxid1", c.MaxID1, fmt.Sprintf("must be greater than startid1 (%d)", c.StartID1))
	case c.MaxID1-c.StartID1 > maxIDs:
		return bad("maxid1", c.MaxID1, fmt.Sprintf("must be at most startid1 + %d (2^60 ids)", int64(maxIDs)))
	case c.Loaders < 1 || c.Loaders > 4096:
		return bad("loaders", c.Loaders, "must be in 1..4096")
	case c.LoaderChunkSize < 1:
		return bad("loader_chunk_size", c.LoaderChunkSize, "must be >= 1")
	case c.BulkInsertCount < 1 || c.BulkInsertCount > 1_000_000:
		return bad("bulk_insert_count", c.BulkInsertCount, "must be in 1..1000000")
	case c.BulkInsertKB < 0:
		return bad("bulk_insert_kb", c.BulkInsertKB, "must be >= 0 (0 = no KiB cap)")
	case c.LinkTypeCount < 1 || c.LinkTypeCount > 1000:
		return bad("link_type_count", c.LinkTypeCount, "must be in 1..1000")
	case c.RandomID2Max < 0 || c.RandomID2Max > math.MaxInt32:
		return bad("randomid2max", c.RandomID2Max, "must be in 0..2147483647")
	case !(c.LinkDataSize > 0) || c.LinkDataSize > 1e9:
		return bad("link_datasize", c.LinkDataSize, "must be a median size in bytes > 0")
	case !(c.NodeDataSize > 0) || c.NodeDataSize > 1e9:
		return bad("node_datasize", c.NodeDataSize, "must be a median size in bytes > 0")
	case c.Requesters < 0 || c.Requesters > 100000:
		return bad("requesters", c.Requesters, "must be in 0..100000 (0 skips the request phase)")
	case c.Requests < 0:
		return bad("requests", c.Requests, "must be >= 0")
	case c.RequestRate < 0 || math.IsNaN(c.RequestRate) || math.IsInf(c.RequestRate, 0):
		return bad("requestrate", c.RequestRate, "must be >= 0 requests/s (0 = unthrottled)")
	case c.MaxTime < 0:
		return bad("maxtime", int64(c.MaxTime/time.Second), "must be >= 0 seconds")
	case c.WarmupTime < 0:
		return bad("warmup_time", int64(c.WarmupTime/time.Second), "must be >= 0 seconds")
	case c.GraceTime < 0:
		return bad("grace_time", int64(c.GraceTime/time.Second), "must be >= 0 seconds")
	case c.RequestTimeout < 0:
		return bad("request_timeout", c.RequestTimeout.Seconds(), "must be >= 0 seconds (0: no timeout)")
	case c.Store.CheckCount:
		return bad("check_count", true, "is not supported: the stores keep counts exact in each write's transaction; check them after a run with -verify (linkbench.Verify)")
	case !(c.GetLinkListHistory >= 0 && c.GetLinkListHistory <= 100):
		return bad("getlinklist_history", c.GetLinkListHistory, "must be a percentage in 0..100")
	case c.ID2GenConfig != 0 && c.ID2GenConfig != 1:
		return bad("id2gen_config", c.ID2GenConfig, "must be 0 or 1")
	case !(c.ReadUncorrBlend >= 0 && c.ReadUncorrBlend <= 100):
		return bad("read_uncorr_blend", c.ReadUncorrBlend, "must be a percentage in 0..100")
	case c.DBCount < 1 || c.DBCount > 100:
		return bad("dbcount", c.DBCount, "must be in 1..100")
	case c.DBPrefix == "":
		return bad("dbprefix", "", "must not be empty")
	case c.ProgressFreq < 0:
		return bad("progressfreq", int64(c.ProgressFreq/time.Second), "must be >= 0 seconds")
	case c.DisplayFreq < 0:
		return bad("displayfreq", int64(c.DisplayFreq/time.Second), "must be >= 0 seconds")
	case c.LoadProgressInterval < 0:
		return bad("load_progress_interval", c.LoadProgressInterval, "must be >= 0")
	case c.ReqProgressInterval < 0:
		return bad("req_progress_interval", c.ReqProgressInterval, "must be >= 0")
	case c.HDRAccuracy < 1 || c.HDRAccuracy > 5:
		return bad("hdr_histogram_accuracy", c.HDRAccuracy, "must be in 1..5 significant digits")
	case c.HDRMaxLatency < 1000:
		return bad("hdr_histogram_max_latency", c.HDRMaxLatency, "must be >= 1000 us")
	case c.RNG != "" && c.RNG != RNGFast && c.RNG != RNGJava:
		return bad("rng", c.RNG, "must be fast or java")
	}
	if _, err := parseLogLevel(c.DebugLevel); err != nil {
		return bad("debuglevel", c.DebugLevel, err.Error())
	}
	if err := c.validateMix(); err != nil {
		return err
	}
	if len(c.DBLoad) > 0 {
		if len(c.DBLoad) != c.DBCount {
			return bad("dbload", formatFloats(c.DBLoad), fmt.Sprintf("must have dbcount (%d) entries", c.DBCount))
		}
		sum := 0.0
		for _, p := range c.DBLoad {
			if !(p >= 0) {
				return bad("dbload", formatFloats(c.DBLoad), "entries must be percentages >= 0")
			}
			sum += p
		}
		if math.Abs(sum-100) > 1e-5 {
			return bad("dbload", formatFloats(c.DBLoad), fmt.Sprintf("entries must sum to 100 (they sum to %g)", sum))
		}
	}
	for _, g := range []struct {
		key string
		cfg DataGenConfig
		use bool
	}{
		{"link_add_datagen", c.LinkAddData, true},
		{"link_up_datagen", c.LinkUpData, true},
		{"node_add_datagen", c.NodeAddData, c.GenerateNodes || c.Mix.HasNodeOps()},
		{"node_up_datagen", c.NodeUpData, c.Mix.HasNodeOps()},
	} {
		if err := g.cfg.validate(g.key, g.use); err != nil {
			return err
		}
	}
	if c.MultigetDist.Set && c.MultigetDistMax <= c.MultigetDistMin {
		return bad("link_multiget_dist_max", c.MultigetDistMax,
			fmt.Sprintf("must be greater than link_multiget_dist_min (%d)", c.MultigetDistMin))
	}
	if c.Store.Engine != "" {
		switch strings.ToLower(c.Store.Engine) {
		case "innodb", "rocksdb":
		default:
			return bad("engine", c.Store.Engine, "must be innodb or rocksdb")
		}
	}
	if c.Store.Port < 0 || c.Store.Port > 65535 {
		return bad("port", c.Store.Port, "must be in 0..65535")
	}
	if c.Store.MemoryLimitMB < 0 {
		return bad("memory_limit_mb", c.Store.MemoryLimitMB, "must be >= 0 MiB (0: the machine's memory)")
	}
	return nil
}

func (c *Config) validateMix() error {
	keys := strings.Join(mixKeys[:], "+")
	for i, p := range c.Mix.shares() {
		if !(*p >= 0 && *p <= 100) {
			return &ConfigError{Key: mixKeys[i], Value: fmt.Sprint(*p), Reason: "must be a percentage in 0..100"}
		}
	}
	if sum := c.Mix.Sum(); math.Abs(sum-100) > 1e-5 {
		return &ConfigError{Key: keys, Reason: fmt.Sprintf(
			"percentages of request types must add to 100 (they add to %.6g)", sum)}
	}
	return nil
}

func (g DataGenConfig) validate(key string, used bool) error {
	if !g.Set {
		if used {
			return &ConfigError{Key: key, Reason: "must be set (a MotifDataGenerator or UniformDataGenerator class)"}
		}
		return nil
	}
	if g.Kind != DataGenMotif && g.Kind != DataGenUniform {
		return &ConfigError{Key: key, Value: string(g.Kind), Reason: "must be MotifDataGenerator or UniformDataGenerator"}
	}
	if g.StartByte < 0 || g.StartByte > 255 {
		return &ConfigError{Key: key + "_startbyte", Value: fmt.Sprint(g.StartByte), Reason: "must be in 0..254"}
	}
	if g.EndByte <= g.StartByte || g.EndByte > 255 {
		return &ConfigError{Key: key + "_endbyte", Value: fmt.Sprint(g.EndByte),
			Reason: fmt.Sprintf("must be in %d..255 (greater than %s_startbyte)", g.StartByte+1, key)}
	}
	if g.Kind == DataGenMotif && !(g.Uniqueness >= 0 && g.Uniqueness <= 1) {
		return &ConfigError{Key: key + "_uniqueness", Value: fmt.Sprint(g.Uniqueness), Reason: "must be in 0..1"}
	}
	return nil
}

func parseLogLevel(s string) (slog.Level, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "TRACE":
		return slog.LevelDebug - 4, nil
	case "DEBUG":
		return slog.LevelDebug, nil
	case "INFO", "":
		return slog.LevelInfo, nil
	case "WARN":
		return slog.LevelWarn, nil
	case "ERROR":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("must be TRACE, DEBUG, INFO, WARN or ERROR")
}

// LogLevel returns the slog level named by DebugLevel (debuglevel); TRACE
// maps to slog.LevelDebug-4. It returns an error for an unknown name.
func (c *Config) LogLevel() (slog.Level, error) { return parseLogLevel(c.DebugLevel) }

func formatFloats(v []float64) string {
	s := make([]string, len(v))
	for i, f := range v {
		s[i] = fmt.Sprint(f)
	}
	return strings.Join(s, ",")
}

func (c *Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// Properties returns the configuration as LinkBench key/value pairs, the
// keys in a fixed order (graph and load, out-degree and payloads, request
// phase, databases, reporting, store), values as ParseProperties would
// read them back: every typed field, a seed only when set, a distribution's
// parameters only when non-zero, never the password. Line is 0.
func (c *Config) Properties() []Property {
	var p []Property
	add := func(k, v string) { p = append(p, Property{Key: k, Value: v}) }
	i64 := func(k string, v int64) { add(k, strconv.FormatInt(v, 10)) }
	f64 := func(k string, v float64) { add(k, strconv.FormatFloat(v, 'g', -1, 64)) }
	boolean := func(k string, v bool) { add(k, strconv.FormatBool(v)) }
	secs := func(k string, d time.Duration) { i64(k, int64(d/time.Second)) }
	seed := func(k string, s Seed) {
		if s.Set {
			i64(k, s.Value)
		}
	}
	dist := func(prefix, fnKey string, d DistConfig) {
		if !d.Set {
			return
		}
		switch fnKey {
		case "":
			add(prefix+"function", d.Function)
		case "-": // nlinks_: the function is nlinks_func
		default:
			add(fnKey, d.Function)
		}
		s := d.Spec
		for _, kv := range []struct {
			k string
			v float64
		}{{"shape", s.Shape}, {"prob", s.Prob}, {"median", s.Median}, {"sigma", s.Sigma}} {
			if kv.v != 0 {
				f64(prefix+kv.k, kv.v)
			}
		}
		if s.HasMean {
			f64(prefix+"mean", s.Mean)
		}
		if s.Config != 0 {
			i64(prefix+"config", s.Config)
		}
		if s.RealDist != distributions.SectionNone {
			add(prefix+"realdist", s.RealDist.String())
		}
		if len(s.Points) > 0 {
			pts := make([]string, len(s.Points))
			for i, pt := range s.Points {
				pts[i] = strconv.FormatInt(pt.Value, 10) + " " + strconv.FormatFloat(pt.Prob*100, 'g', -1, 64)
			}
			add(prefix+"points", strings.Join(pts, ", "))
		}
	}
	gen := func(k string, g DataGenConfig) {
		if !g.Set {
			return
		}
		add(k, string(g.Kind))
		i64(k+"_startbyte", int64(g.StartByte))
		i64(k+"_endbyte", int64(g.EndByte))
		if g.Kind == DataGenMotif {
			f64(k+"_uniqueness", g.Uniqueness)
		}
	}

	i64("startid1", c.StartID1)
	i64("maxid1", c.MaxID1)
	i64("loaders", int64(c.Loaders))
	boolean("generate_nodes", c.GenerateNodes)
	i64("loader_chunk_size", c.LoaderChunkSize)
	i64("bulk_insert_count", int64(c.BulkInsertCount))
	i64("bulk_insert_kb", int64(c.BulkInsertKB))
	seed("load_random_seed", c.LoadRandomSeed)
	rng := c.RNG
	if rng == "" {
		rng = RNGFast
	}
	add("rng", string(rng))

	add("data_file", c.DataFile)
	add("data_vintage", c.DataVintage.String())
	i64("link_type_count", c.LinkTypeCount)
	add("nlinks_func", c.NLinksFunc)
	dist("nlinks_", "-", c.NLinks)
	i64("nlinks_config", c.NLinksConfig)
	i64("nlinks_default", c.NLinksDefault)
	i64("randomid2max", c.RandomID2Max)
	f64("link_datasize", c.LinkDataSize)
	f64("node_datasize", c.NodeDataSize)
	gen("link_add_datagen", c.LinkAddData)
	gen("link_up_datagen", c.LinkUpData)
	gen("node_add_datagen", c.NodeAddData)
	gen("node_up_datagen", c.NodeUpData)

	i64("requesters", int64(c.Requesters))
	i64("requests", c.Requests)
	f64("requestrate", c.RequestRate)
	secs("maxtime", c.MaxTime)
	secs("warmup_time", c.WarmupTime)
	i64("max_failed_requests", c.MaxFailedRequests)
	secs("grace_time", c.GraceTime)
	add("request_timeout", strconv.FormatFloat(c.RequestTimeout.Seconds(), 'f', -1, 64))
	seed("request_random_seed", c.RequestRandomSeed)
	for i, s := range c.Mix.shares() {
		f64(mixKeys[i], *s)
	}
	f64("getlinklist_history", c.GetLinkListHistory)
	i64("id2gen_config", int64(c.ID2GenConfig))
	dist("read_", "", c.Read)
	dist("read_uncorr_", "", c.ReadUncorr)
	f64("read_uncorr_blend", c.ReadUncorrBlend)
	dist("write_", "", c.Write)
	dist("node_read_", "", c.NodeRead)
	dist("node_update_", "", c.NodeUpdate)
	dist("node_delete_", "", c.NodeDelete)
	dist("link_multiget_dist_", "link_multiget_dist", c.MultigetDist)
	i64("link_multiget_dist_min", c.MultigetDistMin)
	i64("link_multiget_dist_max", c.MultigetDistMax)
	boolean("never_change", c.NeverChange)
	boolean("allow_empty_store", c.AllowEmptyStore)

	add("dbprefix", c.DBPrefix)
	i64("dbcount", int64(c.DBCount))
	add("dbload", formatFloats(c.DBLoad))

	secs("progressfreq", c.ProgressFreq)
	secs("displayfreq", c.DisplayFreq)
	i64("load_progress_interval", c.LoadProgressInterval)
	i64("req_progress_interval", c.ReqProgressInterval)
	i64("maxsamples", c.MaxSamples)
	i64("hdr_histogram_accuracy", int64(c.HDRAccuracy))
	i64("hdr_histogram_max_latency", c.HDRMaxLatency)
	add("debuglevel", c.DebugLevel)

	st := &c.Store
	for _, kv := range [][2]string{{"linkstore", st.LinkStore}, {"nodestore", st.NodeStore}, {"host", st.Host},
		{"user", st.User}, {"dbid", st.DBID}, {"linktable", st.LinkTable}, {"counttable", st.CountTable},
		{"nodetable", st.NodeTable}, {"engine", st.Engine}} {
		if kv[1] != "" {
			add(kv[0], kv[1])
		}
	}
	i64("port", int64(st.Port))
	boolean("check_count", st.CheckCount)
	boolean("mysql_disable_binlog_load", st.DisableBinlogLoad)
	i64("memory_limit_mb", st.MemoryLimitMB)
	return p
}
