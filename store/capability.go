package store

import (
	"context"
	"errors"
	"time"
)

// The optional capabilities of a store on a database server (or of any
// store that has what they describe): a caller finds them with the As...
// helpers (a wrapper built on Forward keeps them) and never needs the
// store's concrete type. The command-line tool drives a store registered
// with Register from another module exactly as it drives the SQL stores
// when the store implements them: -create-schema and -defer-index
// (SchemaCreator), the refusal to load over an existing graph and to
// request from a missing one (Contents, ErrNoSchema), the counters of its
// reports (CounterSource), host metrics and the server in result files
// (ServerDescriber), the connection check before a phase
// (ConnectionLimiter), and the closing of idle connections before a
// phase (IdleCloser).

// ErrNoSchema is the error class of a call that found no LinkBench tables:
// the database, schema or table it needs does not exist. Stores wrap their
// own error with it (errors.Is(err, ErrNoSchema) holds, and errors.As
// still finds the driver's error), so that a caller can tell "create the
// schema first" from other failures without knowing the store.
var ErrNoSchema = errors.New("store: no LinkBench tables")

// SchemaOptions configure SchemaCreator.EnsureSchema.
type SchemaOptions struct {
	// DeferIndex creates the link table without its secondary index
	// (LinkBench's id1_type), which a load does not need and which slows
	// it down (LinkBench README's tip); CreateDeferredIndex adds it before
	// the request phase.
	DeferIndex bool
}

// SchemaCreator is an optional capability of a store whose databases and
// tables the benchmark can create (the tool's -create-schema and
// -defer-index).
type SchemaCreator interface {
	// EnsureSchema creates the database name (a MySQL database, a
	// PostgreSQL schema: the names of linkbench.Config.DatabaseNames) if it does
	// not exist, and LinkBench's tables in it if they do not exist.
	// Existing tables are left alone; a store may refuse ones it cannot
	// run on (tables of another storage engine). Errors: the store's.
	EnsureSchema(ctx context.Context, name string, o SchemaOptions) error
	// CreateDeferredIndex adds, in database name, the index that
	// EnsureSchema with DeferIndex left out: after the load, before the
	// requests. Errors: a missing table, an index that exists (on stores
	// that cannot tell), the store's.
	CreateDeferredIndex(ctx context.Context, name string) error
}

// Contents is an optional capability of a store whose data outlives the
// process (a database server): it can tell whether a graph is there
// already.
type Contents interface {
	// HasData reports whether the database this store serves holds any
	// node, link or count row: a load refuses to mix a new graph with an
	// old one (LinkBench loads into empty tables). Errors: one wrapping
	// ErrNoSchema when the database or its tables do not exist; the
	// store's.
	HasData(ctx context.Context) (bool, error)
}

// Counter is a named event count of a store (retries, errors by server
// error number, ...).
type Counter struct {
	Name  string
	Value int64
}

// CounterSource is an optional capability of a store that counts events
// the benchmark's reports show beside their latencies (per phase: the
// difference of the counters before and after it).
type CounterSource interface {
	// Counters returns the store's counters since it was opened (all its
	// database views and sessions together), the non-zero ones, sorted by
	// name. Values never decrease; a counter whose name starts with
	// "max_" is a maximum, not a count (a phase reports its value, not
	// its growth). Safe to call at any time, after Close too.
	Counters() []Counter
}

// Server is what a ServerDescriber says of its server: what a result file
// records and what host metrics sample.
type Server struct {
	// Kind is the server's product as messages name it ("MySQL",
	// "PostgreSQL").
	Kind string
	// Version is the server's version string.
	Version string
	// Settings are the server's settings a result file keeps (those that
	// matter to a comparison: engine, caches, flush at commit, ...), by
	// the server's names; "table_engine" is the link table's storage
	// engine, when the store knows it.
	Settings map[string]string
	// Datadir is the server's data directory as the server reports it
	// ("" when unknown).
	Datadir string
	// Local reports that the store reaches the server on this host (a
	// unix socket or a loopback address): Datadir and PIDFile are paths
	// of this host, and the server's process runs here.
	Local bool
	// PIDFile is the file whose first line holds the server's process id
	// ("" when unknown).
	PIDFile string
	// MorePIDFiles are the pid files of the other servers the store uses
	// that run on this host (the other nodes of a cluster; absolute
	// paths): their processes' CPU and memory are added to the server's.
	MorePIDFiles []string
	// Size returns the bytes the databases described take on the server;
	// nil when the store cannot tell.
	Size func(ctx context.Context) (int64, error)
	// SizeAtEnd says that Size is exact only after Flush (ROCKSDB leaves
	// its memtables out between flushes): read it at a phase's end, after
	// Flush, not at every interval.
	SizeAtEnd bool
	// SizeSource says where Size comes from, for logs.
	SizeSource string
	// Flush makes the server write out what Size does not count yet
	// (memtables); nil when there is nothing to flush.
	Flush func(ctx context.Context) error
	// DataDirs, when not empty, are the directories under Datadir that
	// hold exactly the databases described, one file per table: on this
	// host their files' sizes are the databases' size, more exact than
	// Size (whose figures may be statistics refreshed now and then).
	DataDirs []string
	// Close releases what the description holds (a connection of its
	// own, for Size and Flush); nil when nothing.
	Close func()
}

// ServerDescriber is an optional capability of a store on a database
// server: it says what the server is, for result files and host metrics.
type ServerDescriber interface {
	// DescribeServer describes the server and how to measure the size of
	// the databases named (linkbench.Config.DatabaseNames). The caller calls the
	// result's Close, if any, when done with it. Errors: the store's (the
	// caller then records no server).
	DescribeServer(ctx context.Context, databases []string) (*Server, error)
}

// Connections is what a server accepts, for the check that a phase's
// sessions fit (ConnectionLimiter).
type Connections struct {
	Server     string // the server's product as messages name it ("MySQL")
	Limit      int64  // the connections it accepts in all from the store's user
	LimitName  string // what Limit is, by the server's names ("max_connections")
	Connected  int64  // the connections open now, the store's own included
	PerSession int64  // the connections one session (OpenSession) holds, >= 1
}

// ConnectionLimiter is an optional capability of a store on a server with
// a connection limit: a tool checks, before a phase, that the sessions it
// will open (one per worker and database) fit.
type ConnectionLimiter interface {
	// Connections returns the server's limit and the connections open on
	// it now. Errors: the store's.
	Connections(ctx context.Context) (Connections, error)
}

// IdleCloser is an optional capability of a store that keeps connections
// for its own methods (a pool shared by the goroutines that call the
// Store directly).
type IdleCloser interface {
	// CloseIdle closes the connections of the store (of all its database
	// views) that no call is using; later calls open them again. The
	// benchmark calls it before a phase whose workers open sessions of
	// their own, so that the server holds only theirs.
	CloseIdle()
}

// The names of an EngineSnapshot's metrics. A store gives those its
// engine has; a caller never reads a missing one as 0.
const (
	// Counters (EngineSnapshot.Counters): cumulative since the engine
	// was opened; they never decrease.

	// EngineWALBytes is the bytes written to the write-ahead log.
	EngineWALBytes = "wal_bytes"
	// EngineFlushBytes is the bytes of the files flushes wrote
	// (memtables to sstables).
	EngineFlushBytes = "flush_bytes"
	// EngineCompactionBytes is the bytes of the files compactions wrote.
	EngineCompactionBytes = "compaction_bytes"
	// EngineIngestBytes is the bytes of the files ingested whole.
	EngineIngestBytes = "ingest_bytes"
	// EngineCacheHits and EngineCacheMisses are the block cache's
	// lookups that found and did not find the block.
	EngineCacheHits   = "block_cache_hits"
	EngineCacheMisses = "block_cache_misses"
	// EngineWriteStalls is the number of write stalls that began, and
	// EngineWriteStallSeconds the time writes were stalled (the stall in
	// progress included).
	EngineWriteStalls       = "write_stalls"
	EngineWriteStallSeconds = "write_stall_seconds"
	// EngineWALFsyncs is the number of fsyncs of the write-ahead log, and
	// EngineWALFsyncSeconds their total time (a commit that syncs waits
	// for one; concurrent commits share one).
	EngineWALFsyncs       = "wal_fsyncs"
	EngineWALFsyncSeconds = "wal_fsync_seconds"
	// EngineFlushes and EngineCompactions count flushes and compactions.
	EngineFlushes     = "flushes"
	EngineCompactions = "compactions"

	// Gauges (EngineSnapshot.Gauges): the state at the snapshot's time.

	// EngineReadAmp is the read amplification: the sorted runs a point
	// read may consult (an LSM's L0 sublevels plus its non-empty levels).
	EngineReadAmp = "read_amp"
	// EngineLiveBytes is the bytes of the live data files on disk
	// (compressed).
	EngineLiveBytes = "live_bytes"
	// EngineDiskBytes is the bytes of every file of the database on
	// disk (live and obsolete data files, log, manifest).
	EngineDiskBytes = "disk_bytes"
	// EngineCompactionDebt is the engine's estimate of the bytes
	// compactions must rewrite to bring the levels to their target
	// sizes.
	EngineCompactionDebt = "compaction_debt_bytes"
	// EngineMemTableBytes is the bytes held by the memtables.
	EngineMemTableBytes = "memtable_bytes"
)

// EngineSnapshot is what a storage engine says of itself at one time
// (EngineMetrics): its counters since it was opened and its state, by the
// Engine... names (a store may add others). A metric the engine does not
// give is absent from the maps, never 0.
type EngineSnapshot struct {
	// Engine names the engine ("pebble").
	Engine string
	// Time is when the snapshot was taken.
	Time time.Time
	// Counters are cumulative since the engine was opened (a phase
	// reports their growth); values never decrease.
	Counters map[string]float64
	// Gauges are the state at Time (a phase reports the value at its
	// end).
	Gauges map[string]float64
}

// EngineMetrics is an optional capability of a store on an engine that
// measures itself (an embedded LSM): the benchmark puts the engine's
// figures (bytes written by the log, flushes and compactions, read
// amplification, cache hit rate, size on disk, compaction debt, write
// stalls) in the phase's report, result files and tables, per interval
// and for the phase.
type EngineMetrics interface {
	// EngineMetrics returns a snapshot of the engine's metrics. Safe to
	// call at any time while the store is open, concurrently with its
	// other calls. Errors: the store's (store.ErrClosed after Close).
	EngineMetrics(ctx context.Context) (EngineSnapshot, error)
}
