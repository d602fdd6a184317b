package linkbench

import (
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/stats"
)

// ConfigError is a configuration value the benchmark cannot run with. Key is
// the LinkBench configuration key (e.g. "maxid1"), or several keys joined
// by "+" when the problem involves a group (the operation mix).
type ConfigError struct {
	Key    string // the key (or keys joined by "+"), as written
	Value  string // the value, as the key writes it ("" when none applies)
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
	Value int64 // the seed, when Set
	Set   bool  // false: draw a seed at run time
}

// FixedSeed returns a Seed that is set to v.
func FixedSeed(v int64) Seed { return Seed{Value: v, Set: true} }

// Mix is the request-phase operation mix: the percentage of requests of
// each kind (its fields in LinkBench's cumulative-threshold order). The ten shares must sum to 100 (within 1e-5), as in LinkBench.
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
// as "real" or a Java class name, parsed into Spec.Kind) and
// "<prefix>shape", "<prefix>mean", ... (Spec's parameters). Set reports
// whether the function key was given. The zero DistConfig is "none":
// Validate and the run refuse it where a distribution is required.
type DistConfig struct {
	Function string             // the distribution's name as written ("" with Set: Spec.Kind's name)
	Spec     distributions.Spec // the kind (meaningful when Set) and the parameters
	Set      bool               // the function key was given: the distribution exists
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
// fresh 128-byte chunks (Motif only). The zero DataGenConfig (Set false) is
// "none": Validate refuses it where the run needs the generator.
type DataGenConfig struct {
	Kind       DataGenKind // DataGenMotif or DataGenUniform (meaningful when Set)
	StartByte  int         // <gen>_startbyte: the smallest payload byte
	EndByte    int         // <gen>_endbyte: the largest payload byte
	Uniqueness float64     // <gen>_uniqueness (Motif only)
	Set        bool        // the generator key was given: the generator exists
}

// StoreConfig holds LinkBench's store connection keys. The library does not
// use them: the caller builds the store (the command-line tool does so from
// these values). Password is never printed. Every zero value means "the
// store's default" (mysqlstore and pgstore fill in port, table names and
// engine).
type StoreConfig struct {
	LinkStore  string // linkstore: store name or Java class name as written
	NodeStore  string // nodestore
	DBID       string // dbid (the original benchmark's database name key)
	LinkTable  string // linktable
	CountTable string // counttable
	NodeTable  string // nodetable
	Engine     string // engine: the MySQL storage engine, innodb, rocksdb, myrocks or spider (any case)
	// SpiderDataNodes is spider_data_nodes (a linkbench-go key): with
	// engine=spider, the data nodes ("host:port,host:port") the schema is
	// sharded over; SpiderDataNodeList splits it.
	SpiderDataNodes string
	// CheckCount is check_count. LinkBench's stores compare, after every
	// link write, the count row with the links they count; linkbench-go's
	// stores keep counts exact in each write's own transaction, and
	// Validate refuses true (check the counts after a run with Verify, the
	// tool's -verify).
	CheckCount bool
	// DisableBinlogLoad is mysql_disable_binlog_load (also accepted as
	// MySQL_disable_binlog_load): turn the binary log off for load sessions.
	DisableBinlogLoad bool
	// MemoryLimitMB is memory_limit_mb (a linkbench-go key): the in-memory
	// store refuses a load whose estimated size (EstimateGraph) exceeds this
	// many MiB; 0 means the machine's memory. Set it above the machine's
	// memory to try a load anyway.
	MemoryLimitMB int64
	// Pebble holds the pebble_* keys (linkbench-go keys): the Pebble
	// store's engine knobs, as written; "" is the store's default. The
	// library does not check them: the caller that builds the store does
	// (the tool refuses a bad one naming the key and its range).
	Pebble PebbleConfig
}

// PebbleConfig holds the pebble_* keys, each as written ("" for the
// store's default): the text of pebblestore's options of the same name
// without the prefix.
type PebbleConfig struct {
	Compression           string // pebble_compression
	BlockSize             string // pebble_block_size
	CacheSize             string // pebble_cache_size
	BloomBitsPerKey       string // pebble_bloom_bits_per_key
	MemTableSize          string // pebble_mem_table_size
	L0CompactionThreshold string // pebble_l0_compaction_threshold
	L0StopWritesThreshold string // pebble_l0_stop_writes_threshold
	CompactionConcurrency string // pebble_compaction_concurrency
	WALSync               string // pebble_wal_sync
	OptionsFile           string // pebble_options_file
}

// Connection is how a store reaches its server: LinkBench's host, port,
// user and password keys. It is not part of Config (the workload and the
// drivers never use it, and a Config is printed, traced and recorded in
// result files): ParseProperties hands it over through
// PropertiesOptions.Connection, to the code that opens the store.
type Connection struct {
	Host     string // host; "" is the store's default (a local server)
	Port     int    // port: 0..65535; an empty port key means 3306, LinkBench's default
	User     string // user
	Password string // password: never printed
}

// ConnectionKeys are the keys of a Connection, which Config.Set refuses
// (ParseProperties routes them to PropertiesOptions.Connection).
func ConnectionKeys() []string { return []string{"host", "port", "user", "password"} }

// setConnection stores the connection key key = v (white space trimmed)
// in cn: a malformed or out-of-range port is a *ConfigError.
func setConnection(cn *Connection, key, v string) error {
	switch key {
	case "host":
		cn.Host = v
	case "user":
		cn.User = v
	case "password":
		cn.Password = v
	case "port":
		if v == "" { // LinkBench: absent or empty means the default port
			cn.Port = 3306
			return nil
		}
		n, err := parseInt(key, v)
		if err != nil {
			return err
		}
		if n < 0 || n > 65535 {
			return &ConfigError{Key: key, Value: v, Reason: "must be in 0..65535"}
		}
		cn.Port = n
	}
	return nil
}

// Config is a LinkBench run's configuration: the workload (graph shape,
// payloads, operation mix, access distributions) and the drivers' settings.
//
// Each field comment names the LinkBench key that sets the field and says
// what the field's zero value means. Defaults and allowed ranges are
// declared once, in the package's table of keys: Keys lists them (the
// command-line tool prints it with -keys), DefaultConfig applies the
// defaults, Validate checks the ranges, Set and Properties read and write
// the keys. Start from DefaultConfig: the zero Config is not valid (its
// id range, loaders and mix are empty).
type Config struct {
	// Graph and load phase.

	StartID1        int64 // startid1: first node id loaded; 0 is invalid (>= 1)
	MaxID1          int64 // maxid1: one past the last node id loaded; must exceed StartID1
	Loaders         int   // loaders: link loader goroutines; 0 is invalid
	GenerateNodes   bool  // generate_nodes: also load the nodes; false: links and counts only
	LoaderChunkSize int64 // loader_chunk_size: id1s per load work chunk; 0 is invalid
	BulkInsertCount int   // bulk_insert_count: rows per bulk insert; 0 is invalid
	BulkInsertKB    int   // bulk_insert_kb: also flush node batches at this many KiB; 0: no KiB cap
	LoadRandomSeed  Seed  // load_random_seed; unset: a seed is drawn and reported

	// Shard is shard: this process's share of a run driven by Shard.Count
	// processes (client hosts). The zero value is one process (0/1).
	Shard Shard

	// Out-degree and payloads.

	// DataFile is data_file: the path of LinkBench's Distribution.dat. ""
	// means the built-in model of it (of DataVintage); Java mode then
	// refuses a workload that needs the file. A relative path is opened
	// relative to the working directory, except DefaultDataFile, which
	// Load and Request never look for (ParseProperties and ResolveDataFile
	// do): unresolved, it also means the built-in model.
	DataFile string
	// DataVintage is data_vintage (a linkbench-go key): which built-in
	// model stands in for the data file; the zero value is
	// distributions.Vintage2017 (the maintained fork's file).
	DataVintage   distributions.Vintage
	LinkTypeCount int64  // link_type_count: link types per id1; 0 is invalid
	NLinksFunc    string // nlinks_func: the out-degree model (real, const, ... or a distribution class); "" is invalid
	// NLinks holds nlinks_shape, nlinks_mean, ...: the parameters of a
	// class-based nlinks_func. Its Function, Spec.Kind and Set are not used
	// (nlinks_func names the class).
	NLinks        DistConfig
	NLinksConfig  int64         // nlinks_config: parameter of the arithmetic out-degree models
	NLinksDefault int64         // nlinks_default: base out-degree of the arithmetic models
	RandomID2Max  int64         // randomid2max: if > 0, id2s are uniform in [0, randomid2max); 0: id2s follow id1
	LinkDataSize  float64       // link_datasize: median link payload in bytes; 0 is invalid
	NodeDataSize  float64       // node_datasize: median node payload in bytes; 0 is invalid
	LinkAddData   DataGenConfig // link_add_datagen, link_add_datagen_startbyte, ...; zero: none (invalid)
	LinkUpData    DataGenConfig // link_up_datagen, ...; zero: none (invalid)
	NodeAddData   DataGenConfig // node_add_datagen, ...; zero: none (invalid if nodes are loaded or added)
	NodeUpData    DataGenConfig // node_up_datagen, ...; zero: none (invalid if nodes are updated)

	// Request phase.

	Requesters int // requesters: request goroutines; 0: no request phase
	// Requests is requests: the requests each requester does after the
	// warm-up; 0: none. Unlimited: no limit, MaxTime (or the context given
	// to Request) ends the phase; RunFor says both at once.
	Requests int64
	// RequestRate is requestrate: each requester's mean rate in requests/s
	// (Poisson arrivals, open loop); 0: unthrottled (closed loop).
	RequestRate float64
	// TotalRequestRate is total_requestrate (a linkbench-go key): the mean
	// rate of the whole request phase in requests/s, shared equally by the
	// requesters (each gets TotalRequestRate/Requesters, as if RequestRate
	// said so); 0: none, RequestRate decides. Setting both is an error.
	TotalRequestRate float64
	// MaxTime is maxtime: the time limit of the measured requests, counted
	// from the end of the warm-up and tested after each request (the key
	// is in seconds). NoTimeLimit: none, Requests (or the context) ends the
	// phase. 0 keeps LinkBench's meaning of maxtime = 0: the limit is
	// reached at once, so each requester stops after its first measured
	// request.
	MaxTime           time.Duration
	WarmupTime        time.Duration // warmup_time: unmeasured warm-up before the measured requests; 0: none
	MaxFailedRequests int64         // max_failed_requests: a requester aborts when its failures exceed it (0: at the first); negative: never
	// GraceTime is grace_time (a linkbench-go key, seconds): how long the
	// calls still waiting for the store when MaxTime passes may take
	// before they are cancelled and abandoned; 0: cancelled at once.
	GraceTime time.Duration
	// RequestTimeout is request_timeout (a linkbench-go key, seconds,
	// fractions allowed): a call that waits longer for the store is
	// cancelled and abandoned, and the requester goes on; 0: no timeout.
	RequestTimeout     time.Duration
	RequestRandomSeed  Seed       // request_random_seed; unset: a seed is drawn and reported
	Mix                Mix        // addlink ... getnode: the operation mix; zero is invalid (the shares must sum to 100)
	GetLinkListHistory float64    // getlinklist_history: percent of link-list reads that page into history; 0: none
	ID2GenConfig       int        // id2gen_config: 1 for per-requester disjoint id2s; 0: shared
	Read               DistConfig // read_function, read_shape, ...: link reads; zero: none (invalid)
	ReadUncorr         DistConfig // read_uncorr_function, ...: uncorrelated link reads and writes; zero: none (invalid if ReadUncorrBlend > 0)
	ReadUncorrBlend    float64    // read_uncorr_blend: percent of link reads AND writes using ReadUncorr; 0: none
	Write              DistConfig // write_function, write_shape, ...: link writes; zero: none (invalid)
	WriteUncorr        DistConfig // write_uncorr_*: accepted for compatibility, never read (LinkBench quirk §11.1-1)
	WriteUncorrBlend   float64    // write_uncorr_blend: accepted, never read (LinkBench quirk §11.1-1)
	NodeRead           DistConfig // node_read_function, ...: node reads; zero: none (invalid if the mix reads nodes)
	NodeUpdate         DistConfig // node_update_function, ...: node updates; zero: none (invalid if the mix updates nodes)
	NodeDelete         DistConfig // node_delete_function, ...: node deletes; zero: none (invalid if the mix deletes nodes)
	MultigetDist       DistConfig // link_multiget_dist, link_multiget_dist_prob, ...: ids per multiget; zero: one id per multiget
	MultigetDistMin    int64      // link_multiget_dist_min: the fewest ids per multiget (with MultigetDist)
	MultigetDistMax    int64      // link_multiget_dist_max: one past the most ids per multiget (with MultigetDist)
	NeverChange        bool       // never_change: the legacy (original 2011) workload rules; false: the maintained fork's
	// AllowEmptyStore is allow_empty_store (a linkbench-go key): run the
	// request phase even when a database holds no node in [startid1,
	// maxid1), that is, on a graph that was not loaded; false: Request
	// refuses (see ErrEmptyStore).
	AllowEmptyStore bool

	// RNG is rng: the random mode, RNGFast or RNGJava (draw for draw
	// LinkBench's streams); "" means RNGFast.
	RNG RNGMode

	// Databases.

	DBPrefix string    // dbprefix: database name prefix, the databases are dbprefix0..; "" is invalid
	DBCount  int       // dbcount: number of databases; 0 is invalid
	DBLoad   []float64 // dbload: percent of requests per database, dbcount entries summing to 100; nil: equal shares

	// Reporting.

	ProgressFreq         time.Duration // progressfreq: period of the progress lines and of OnProgress; 0: none
	DisplayFreq          time.Duration // displayfreq: period of the -csvstream statistics (Stream); 0: never
	LoadProgressInterval int64         // load_progress_interval: log load progress every this many links; 0: never
	ReqProgressInterval  int64         // req_progress_interval: log request progress every this many requests; 0: only at the end
	MaxSamples           int64         // maxsamples: accepted, no effect (HDR histograms need no reservoir)
	HDRAccuracy          int           // hdr_histogram_accuracy: significant digits of the latency histograms; 0 is invalid
	HDRMaxLatency        int64         // hdr_histogram_max_latency: largest latency recorded as is, in µs; 0 is invalid
	DebugLevel           string        // debuglevel: TRACE, DEBUG, INFO, WARN or ERROR; "": INFO

	// Store keys, for the caller that builds the store.
	Store StoreConfig

	// Logger receives progress and diagnostics; nil discards them.
	Logger *slog.Logger `json:"-"`
	// Now is the wall clock (time.Now when nil); tests pin it. Latencies
	// always use the monotonic clock. The request phase reads Now once, at
	// its start; the times of the links and nodes it writes are that wall
	// clock plus the monotonic time elapsed since.
	Now func() time.Time `json:"-"`
	// StartAt, when not zero, is the instant the phase's measured window
	// starts (the tool's -start-at): the phase prepares (sessions,
	// statements), then waits for it, so that the processes of a sharded
	// run measure the same window; a phase whose preparation overran it
	// starts at once, with a warning. Run applies it to its first phase
	// only. A load's rows take their times from it (not from the clock
	// of each process), so that shards write what one process writes.
	StartAt time.Time `json:"-"`
	// Step and Sweep identify a request phase within a run (Run sets
	// them: the step 1..Plan.Steps, and the requesters value of a sweep,
	// 0 without one). With Step > 1 or Sweep > 0 the requesters' random
	// streams derive from request_random_seed, Step and Sweep
	// (RequestStreamSeed), so that no two phases of a run replay one
	// sequence of requests.
	Step, Sweep int `json:"-"`
	// Stream, when not nil, receives each requester's interval statistics
	// every displayfreq seconds (LinkBench's -csvstream); nil: none.
	Stream *stats.StreamWriter `json:"-"`
	// OnProgress, when not nil, receives a running phase's progress every
	// progressfreq seconds and once at its end (Progress.Final), from a
	// goroutine of its own: it must not block the phase for long.
	OnProgress func(Progress) `json:"-"`
	// OnInterval, when not nil, receives a running phase's figures every
	// IntervalFreq (one second when 0), whatever ProgressFreq is, and the
	// rest at its end (Progress.Final), from the goroutine that calls
	// OnProgress: the per-interval samples of result files. Its intervals
	// tile the phase: their counts add up to the report's.
	OnInterval func(Progress) `json:"-"`
	// IntervalFreq is the period of OnInterval; 0 means
	// DefaultIntervalFreq (one second).
	IntervalFreq time.Duration `json:"-"`

	// SourceFiles lists the files the configuration was read from (the
	// main file first), for reports; ParseProperties fills it. nil: none.
	SourceFiles []string

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
// 2017 Distribution.dat out-degree (data_file = DefaultDataFile, which
// stands for the built-in model of that file unless ParseProperties or
// ResolveDataFile finds it), the FB operation mix and Zipf access
// distributions. Keys lists every default.
func DefaultConfig() Config {
	var c Config
	for _, d := range keyTable() {
		if !d.hasDef {
			continue
		}
		if err := d.set(&c, d.name, d.def); err != nil {
			panic(fmt.Sprintf("linkbench: the default of %s: %v", d.name, err)) // a bug in the key table
		}
	}
	return c
}

// Unlimited, as Config.Requests, puts no limit on the number of requests:
// MaxTime, or the context given to Request, ends the request phase. It is
// the largest int64, so that the requests key says it too
// (requests = 9223372036854775807), with LinkBench's meaning.
const Unlimited int64 = math.MaxInt64

// NoTimeLimit, as Config.MaxTime, puts no limit on the time of the request
// phase: Requests, or the context given to Request, ends it. It is the
// largest time.Duration, which the maxtime key writes 9223372036.854775807
// (seconds).
const NoTimeLimit time.Duration = math.MaxInt64

// RunFor makes the request phase last d after the warm-up, however many
// requests that is: it sets Requests to Unlimited and MaxTime to d. With
// d = NoTimeLimit the phase runs until the context given to Request is
// cancelled.
func (c *Config) RunFor(d time.Duration) {
	c.Requests, c.MaxTime = Unlimited, d
}

// DatabaseNames returns the names of the run's databases (MySQL
// databases, PostgreSQL schemas), in index order: dbprefix + index for
// each of the dbcount databases ("linkdb0", "linkdb1", ...), or, with
// dbcount = 1 and the dbid key set, dbid alone (the original benchmark's
// single database). This is the one place the rule is written: the
// drivers, the command-line tool's schema creation and checks, and the
// stores' options all take their names from here.
func (c *Config) DatabaseNames() []string {
	if c.DBCount == 1 && c.Store.DBID != "" {
		return []string{c.Store.DBID}
	}
	names := make([]string, max(c.DBCount, 0))
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", c.DBPrefix, i)
	}
	return names
}

// totalRequests is the number of requests of the whole request phase when
// no time limit ends it first: Requests per requester, Unlimited when that
// product does not fit an int64.
func (c *Config) totalRequests() int64 {
	r := int64(max(c.Requesters, 0))
	if r > 0 && c.Requests > Unlimited/r {
		return Unlimited
	}
	return c.Requests * r
}

// timeLimitEnd returns the time (in the caller's unit, ns) at which
// MaxTime ends for a phase whose measured part starts at start: start +
// MaxTime, or the largest int64 when that would overflow (NoTimeLimit
// with a warm-up).
func (c *Config) timeLimitEnd(start int64) int64 {
	if d := int64(c.MaxTime); d > 0 && start > math.MaxInt64-d {
		return math.MaxInt64
	}
	return start + int64(c.MaxTime)
}

// maxIDs is the largest id range (maxid1 - startid1) the workload
// supports: the invertible shuffler needs n < 2^61 and id arithmetic some
// headroom.
const maxIDs = 1 << 60

// DefaultDataFile is the data_file value of LinkBench's shipped workload,
// relative to $LINKBENCH_HOME. ParseProperties and ResolveDataFile look
// for it (see ParseProperties for where) and store the absolute path of
// the file found; Load and Request never look for it themselves: left as
// it is, it means the built-in out-degree model. Any other data_file value
// must name a readable file.
const DefaultDataFile = "config/Distribution.dat"

// Validate checks every value against its allowed range (Keys lists them)
// and the consistency rules LinkBench enforces, returning the first
// problem as a *ConfigError naming the key (and, for a configuration
// ParseProperties read, the file:line or -D that set it). It does not read
// the data file or build the distributions: Load and Request do that (and
// report errors the same way).
func (c *Config) Validate() error {
	return c.locate(c.validate())
}

func (c *Config) validate() error {
	for _, d := range keyTable() {
		if d.check == nil {
			continue
		}
		if reason := d.check(c); reason != "" {
			v := ""
			if d.get != nil {
				v, _ = d.get(c)
			}
			return &ConfigError{Key: d.name, Value: v, Reason: reason}
		}
	}
	// The mix as a whole (each share is checked by its key).
	if sum := c.Mix.Sum(); math.Abs(sum-100) > 1e-5 {
		return &ConfigError{Key: strings.Join(mixKeys[:], "+"), Reason: fmt.Sprintf(
			"percentages of request types must add to 100 within 0.00001 (they add to %.10g)", sum)}
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

// Properties returns the configuration as LinkBench key/value pairs, in a
// fixed order (graph and load, out-degree and payloads, request phase,
// databases, reporting, store; that of Keys), values as Set reads them
// back: setting every pair on DefaultConfig() gives back c, except for the
// password, which is never included, the fields no key sets (Logger, Now,
// Stream, SourceFiles; NLinks' Function, Kind and Set), and the Function
// and Kind of a distribution or generator that is not Set (they read back
// as their zero values). A key is left out when writing it would change
// nothing: a seed that is not set, a distribution parameter or store key
// that is zero (or empty) with a zero (or empty) default, keys without
// effect or field. Line is 0.
func (c *Config) Properties() []Property {
	var p []Property
	for _, d := range keyTable() {
		if d.get == nil {
			continue
		}
		if v, ok := d.get(c); ok {
			p = append(p, Property{Key: d.name, Value: v})
		}
	}
	return p
}

// SpiderDataNodeList returns the spider_data_nodes key's entries, trimmed,
// without empty ones: nil when the key is empty.
func (c *Config) SpiderDataNodeList() []string {
	var out []string
	for _, a := range strings.Split(c.Store.SpiderDataNodes, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}
