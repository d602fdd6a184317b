// Package pgstore is a LinkBench store on PostgreSQL through
// github.com/jackc/pgx/v5, with a dialect option for CockroachDB and
// YugabyteDB (untested here: see Dialect).
//
// The semantics are those of package store (the in-memory reference, with
// the fixes listed there); the schema, statements and transactions are
// those of LinkBench's MD LinkStorePgsql (reference §3.1, §3.3, §3.5):
// AddLink inserts first and falls back to a locked (SELECT ... FOR UPDATE)
// update on a duplicate key (SQLSTATE 23505), UpdateLink locks first and
// falls back to the insert, DeleteLink locks first, and the count row
// changes in the same transaction as the link, so counts stay exact under
// any concurrency and at every isolation level.
//
// # Databases are schemas
//
// A LinkBench database (dbprefix + index, "linkdb0", ...) is a schema of
// the one PostgreSQL database the DSN names, as MD's README and unit tests
// do (one database "linkbench", one schema per dbid): a Store and all its
// per-database views (Database) share one server database, so one
// connection can serve any of them, a session needs no reconnection to
// switch, catalog and checks are one query away, and a benchmark user needs
// CREATE on one database, not CREATEDB. dbcount > 1 therefore means
// dbcount schemas.
//
// # Statements, round trips and transactions
//
// Every statement is a named prepared statement, prepared once per
// connection in one round trip (a pipeline of Parse/Describe messages) and
// executed with binary parameters and results (no text conversions, no
// statement text per call), except transaction control: BEGIN, COMMIT and
// ROLLBACK travel as text inside the batches (they have no plan to keep,
// and PostgreSQL 15's pg_stat_statements counts a prepared utility
// statement only at its first execution). The only values formatted into SQL text are
// identifiers (schema, table and sequence names, validated and quoted) and
// the integer of ALTER SEQUENCE ... RESTART, which takes no parameter.
//
// A transaction of several statements needs BEGIN on PostgreSQL. The store
// sends each step of a path as one batch (pgconn's ExecBatch: Bind/Execute
// messages for every statement and one Sync), so BEGIN and COMMIT ride
// with the statements around them and a path costs the round trips its
// data dependencies need, no more. Per path, with MD's statement names
// (reference §3.3; [ ... ] is one round trip):
//
//	AddLink, new link:      [BEGIN, S-ins-link, S-cnt-upsert, COMMIT]                          1 RTT
//	AddLink, existing link: [BEGIN, S-ins-link -> 23505]  [ROLLBACK, BEGIN, S-lock]
//	                        [S-upd-link, (S-cnt-upsert +1 | S-cnt-inc -1)?, COMMIT]            3 RTT
//	UpdateLink, existing:   [BEGIN, S-lock]  [S-upd-link, (count change)?, COMMIT]             2 RTT
//	UpdateLink, missing:    [BEGIN, S-lock -> no row]  [ROLLBACK, BEGIN, S-ins-link,
//	                        S-cnt-upsert, COMMIT]                                              2 RTT
//	DeleteLink, absent or hidden (not expunged): [BEGIN, S-lock]  [ROLLBACK]                   2 RTT
//	DeleteLink, otherwise:  [BEGIN, S-lock]  [S-hide | S-del, (S-cnt-inc -1)?, COMMIT]         2 RTT
//	GetLink, MultigetLinks, GetLinkList, CountLinks: [S-get | S-multiget | S-range | S-count]  1 RTT
//	AddNode: [S-ins-node RETURNING id]; GetNode, UpdateNode, DeleteNode: one statement         1 RTT
//	ResetNodeStore: [TRUNCATE]  [ALTER SEQUENCE ... RESTART startID]                           2 RTT
//	AddBulkLinks, AddBulkCounts: [COPY ... FROM STDIN (FORMAT binary)]                          1 COPY
//	AddBulkNodes: [COPY]  [advance the id sequence past the largest id]                         2 RTT
//
// The count change of an update is +1 when a hidden link becomes visible,
// -1 when a visible one becomes hidden, none otherwise; a delete
// decrements only a visible link (expunging a hidden link leaves the count
// alone: the fix of reference §11.2-6, where MD always decrements).
//
// Differences from MD's LinkStorePgsql, each for a reason:
//   - A link that becomes visible gets its +1 through S-cnt-upsert instead
//     of S-cnt-inc: the statement shares a batch with COMMIT, and the
//     upsert cannot miss the row (MD checks S-cnt-inc's row count before
//     committing, which would cost a round trip). A -1 is S-cnt-inc; it
//     always finds its row when the counts were exact before the call (a
//     visible link has a count row >= 1), and a call that finds none
//     reports an error naming the inconsistency it met.
//   - The count upsert names its conflict columns, ON CONFLICT (id,
//     link_type), instead of MD's ON CONFLICT ON CONSTRAINT <C>_pkey, which
//     depends on PostgreSQL's default constraint name.
//   - S-multiget is a prepared statement with id2 = ANY($3) (an int8 array
//     parameter) instead of MD's literal IN list: one statement for every
//     list length, the same rows (each at most once).
//   - PostgreSQL reports matched rows, not changed rows, so an UPDATE of an
//     unchanged link reports 1 and AddLink and UpdateLink of an existing link
//     return store.LinkUpdate, never store.LinkNoChange (as MD's
//     LinkStorePgsql).
//   - Bulk loads use COPY (binary format) instead of multi-row INSERTs; a
//     COPY that meets a duplicate key (a re-load), and every retry of a bulk
//     call (the first attempt may have committed), go through a temporary
//     table and INSERT ... ON CONFLICT DO UPDATE, so a bulk call is an
//     upsert (reference §11.2-27) and a retry never fails on its own rows.
//   - Nodes are loaded with explicit ids, and the id sequence moves past
//     the largest loaded id so that AddNode returns a fresh id.
//
// # Isolation and retries
//
// Connections run at READ COMMITTED unless Options.Isolation says
// REPEATABLE READ or SERIALIZABLE (set as default_transaction_isolation at
// connection start-up, so no statement is added). Serialization failures
// (40001), deadlocks (40P01; MD does not retry them) and lost or refused
// connections (class 08, 57P01..57P03, I/O errors) are retried with bounded
// attempts and a jittered exponential backoff; a lost connection is
// replaced by a new one (the session's statements are prepared on it
// again). Retries are counted per operation and failed statements per
// SQLSTATE (Counters). A write that returned nil is committed. A write
// whose connection was lost while its COMMIT may have run is repeated only
// when repeating cannot change the outcome (every link write, node update
// and delete, bulk loads); AddNode, which would allocate a second id, is
// not repeated then and returns a *store.TransientError. An error that
// outlives the retries is returned wrapped in a *store.TransientError; any
// other server error is returned wrapped so that errors.As finds the
// *pgconn.PgError.
//
// # Sessions
//
// The benchmark's loaders and requesters each open a Session
// (store.OpenSession), which owns one *pgx.Conn for the whole phase with
// its statements prepared on it and its own encoding buffers; the Store's
// own methods, safe for concurrent use, borrow sessions from a small pool.
//
// Open connects and checks the connection but never creates or drops
// anything: CreateSchema, DropSchema, CreateSecondaryIndex and
// DropSecondaryIndex are the only methods that run DDL (ResetNodeStore
// truncates the node table, as LinkBench does).
//
// # The engine and the dialect
//
// The store runs on the engine it shares with package mysqlstore
// (store/internal/sqlstore): the retry loop, the options every SQL store
// has and their defaults, the counters, the Store's session-borrowing
// methods, the schema views, the context watch of a session and the
// registration. This package is PostgreSQL's dialect of it: the
// statements and DDL, the SQLSTATEs sorted into the engine's classes
// (retry: 40001, 40P01; connection: class 08, 57P01..57P03, FATAL and lost
// sockets; 42P01 and 3F000 also match store.ErrNoSchema), the COPY bulk
// path, and the session's connection with its prepared statements and
// batches.
package pgstore

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// Dialect is the SQL dialect of the server: PostgreSQL, or a distributed
// database speaking its wire protocol. Only PostgreSQL is tested here.
type Dialect string

const (
	// PostgreSQL is the tested dialect (PostgreSQL 15 in CI; any version
	// from 11, for the covering index's INCLUDE, should do).
	PostgreSQL Dialect = "postgres"
	// CockroachDB is UNTESTED here, written from CockroachDB's
	// documentation: INT is 64-bit there, so the schema spells every width
	// (INT2, INT4, INT8); SERIAL does not give consecutive ids (it defaults
	// to unique_rowid()), so the node id is a column DEFAULT nextval() of a
	// sequence of its own; the covering index stores its extra columns with
	// STORING instead of INCLUDE; COPY (which CockroachDB splits into
	// batches of 100 committed rows outside a transaction) runs inside
	// BEGIN ... COMMIT. CockroachDB reports every transaction conflict as
	// 40001 ("restart transaction"), which the store retries as on
	// PostgreSQL. Options.Isolation is not sent: transactions run at the
	// cluster's default, SERIALIZABLE (READ COMMITTED needs a cluster
	// setting, from v23.2). ON CONFLICT (columns) DO UPDATE, SELECT ... FOR
	// UPDATE, TRUNCATE, setval and ALTER SEQUENCE ... RESTART are
	// documented as supported. Known gap: the bulk loads' upsert path (a
	// re-load, or a retried batch) uses a temporary table, which
	// CockroachDB allows only with experimental_enable_temp_tables = on;
	// and CockroachDB's documentation (v20.2 to stable) allows COPY to
	// members of the admin role only, so the bulk loads need such a user.
	CockroachDB Dialect = "cockroachdb"
	// YugabyteDB (YSQL) is UNTESTED here, written from YugabyteDB's
	// documentation: the PostgreSQL schema and statements, except that
	// each connection caches a block of sequence values: the larger of the
	// sequence's CACHE and the server flag ysql_sequence_cache_minval
	// (100 by default). The node id sequence is created with CACHE 1, which
	// keeps AddNode's ids consecutive only on a cluster started with
	// ysql_sequence_cache_minval=1 (a cost per AddNode); with the default,
	// ids after ResetNodeStore may skip ahead by up to 100 per connection,
	// which LinkBench tolerates (a node missing from a request's range
	// counts as not found) but changes GET_NODE's found ratio; transaction
	// conflicts are
	// reported as 40001 and deadlocks as 40P01, which the store retries;
	// ON CONFLICT, FOR UPDATE, COPY and temporary tables are those of
	// PostgreSQL 11, on which YSQL is built.
	YugabyteDB Dialect = "yugabytedb"
)

// ParseDialect returns the Dialect named s, case-insensitively:
// "postgres" / "postgresql" / "pg", "cockroachdb" / "cockroach" / "crdb",
// "yugabytedb" / "yugabyte" / "ysql". Any other name is an error.
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "postgres", "postgresql", "pg", "pgsql":
		return PostgreSQL, nil
	case "cockroachdb", "cockroach", "crdb":
		return CockroachDB, nil
	case "yugabytedb", "yugabyte", "ysql":
		return YugabyteDB, nil
	}
	return "", fmt.Errorf("pgstore: unknown dialect %q (want postgres, cockroachdb or yugabytedb)", s)
}

// Defaults of Options.
const (
	// DefaultHost is the server host when neither DSN nor Host is set.
	DefaultHost = sqlstore.DefaultHost
	// DefaultPort is PostgreSQL's TCP port (reference §3.2).
	DefaultPort = 5432
	// DefaultDBName is the server database when neither DSN nor DBName
	// names one: MD's LinkStorePgsql connects to "linkbench".
	DefaultDBName = "linkbench"
	// DefaultDBPrefix is LinkBench's default dbprefix: schemas linkdb0,
	// linkdb1, ...
	DefaultDBPrefix = sqlstore.DefaultDBPrefix
	// DefaultApplicationName is the application_name of every connection.
	DefaultApplicationName = "linkbench-go"
	// DefaultLinkTable, DefaultCountTable and DefaultNodeTable are the
	// table names of LinkBench's sample configuration.
	DefaultLinkTable  = sqlstore.DefaultLinkTable
	DefaultCountTable = sqlstore.DefaultCountTable
	DefaultNodeTable  = sqlstore.DefaultNodeTable
	// ServerApplicationName is the application_name of the connection
	// DescribeServer opens for its size queries (told apart from the
	// workers' backends).
	ServerApplicationName = "linkbench-hostmetrics"
	// DefaultMaxConns is the number of connections the Store's own methods
	// may hold at once (sessions opened with Session come on top).
	DefaultMaxConns = sqlstore.DefaultMaxConns
	// DefaultRetryAttempts is the attempts per call, the first included.
	DefaultRetryAttempts = sqlstore.DefaultRetryAttempts
	// DefaultRetryBackoff is the wait before the first retry; it doubles
	// up to DefaultRetryMaxBackoff, each wait drawn from [d/2, d].
	DefaultRetryBackoff    = sqlstore.DefaultRetryBackoff
	DefaultRetryMaxBackoff = sqlstore.DefaultRetryMaxBackoff
	// DefaultConnectTimeout is the timeout of one connection attempt.
	DefaultConnectTimeout = sqlstore.DefaultConnectTimeout
	// DefaultWarmParallelism is the number of connections Warm opens at
	// once.
	DefaultWarmParallelism = sqlstore.DefaultWarmParallelism
)

// Isolation levels of Options.Isolation.
const (
	ReadCommitted  = "READ COMMITTED"
	RepeatableRead = "REPEATABLE READ"
	Serializable   = "SERIALIZABLE"
)

// Options configure Open. The zero value of a field selects its default.
type Options struct {
	// DSN is a PostgreSQL connection string, a URL
	// ("postgres://user:password@host:5432/linkbench?sslmode=disable") or
	// keyword/value pairs ("host=... port=... dbname=..."), as pgx parses
	// it (libpq's environment variables fill what it leaves out). When it
	// is empty the store connects over TCP to Host:Port as User with
	// Password to database DBName. A DSN without a database name connects
	// to DefaultDBName.
	DSN string
	// Host and Port of the server when DSN is empty: DefaultHost and
	// DefaultPort (5432).
	Host string
	Port int
	// User and Password when DSN is empty.
	User     string
	Password string
	// DBName is the server database when DSN is empty (default
	// DefaultDBName, "linkbench").
	DBName string

	// DBPrefix is LinkBench's dbprefix: LinkBench databases, which are
	// schemas here, are named DBPrefix+"0", DBPrefix+"1", ... (default
	// DefaultDBPrefix, "linkdb").
	DBPrefix string
	// Schema is the schema the Store returned by Open serves (default
	// DBPrefix+"0"). Other schemas are reached with Database.
	Schema string
	// LinkTable, CountTable and NodeTable name the three tables (defaults
	// "linktable", "counttable", "nodetable"). Names are 1..63 bytes
	// without a double quote or NUL.
	LinkTable  string
	CountTable string
	NodeTable  string
	// Dialect of the server (default PostgreSQL).
	Dialect Dialect
	// Isolation is the transaction isolation of every connection:
	// ReadCommitted (the default), RepeatableRead or Serializable,
	// case-insensitive. With the CockroachDB dialect it is not sent and
	// must be empty or Serializable (the cluster's default).
	Isolation string

	// MaxConns is the number of connections the Store's own methods may
	// hold at once (default 64): size it to the goroutines that share the
	// Store. Sessions opened with Session have connections of their own.
	MaxConns int
	// ConnectTimeout is the timeout of one connection attempt (default
	// 10 s).
	ConnectTimeout time.Duration
	// WarmParallelism is the number of connections Warm opens at once
	// (default 8).
	WarmParallelism int

	// RetryAttempts is the number of attempts of one call, the first
	// included (default 20, >= 1), for serialization failures (40001),
	// deadlocks (40P01) and lost connections.
	RetryAttempts int
	// RetryBackoff is the wait before the first retry (default 10 ms); it
	// doubles per retry up to RetryMaxBackoff (default 1 s). Each wait is
	// drawn uniformly from [d/2, d].
	RetryBackoff    time.Duration
	RetryMaxBackoff time.Duration

	// Logger receives retries (Debug) and abandoned calls (Warn). Nil
	// discards them. Passwords are redacted.
	Logger *slog.Logger

	// inject is the fault-injection seam of the package's tests: when not
	// nil it is called before each round trip with a label "<Op>:<step>",
	// e.g. "AddLink:insert" or "UpdateLink:lock"; a non-nil result is
	// treated as that round trip's error (a *pgconn.PgError with Code
	// "40001" simulates a serialization failure). It must be safe for
	// concurrent use.
	inject func(op string) error
}

// withDefaults returns o with its zero fields defaulted, and checks it.
func (o Options) withDefaults() (Options, error) {
	if err := sqlstore.Defaults(&o, "pgstore", DefaultPort, checkIdent); err != nil {
		return o, err
	}
	if o.DBName == "" {
		o.DBName = DefaultDBName
	}
	if o.Schema == "" {
		o.Schema = o.DBPrefix + "0"
	}
	if err := checkIdent(o.Schema); err != nil {
		return o, fmt.Errorf("pgstore: Options.Schema: %w", err)
	}
	if o.Dialect == "" {
		o.Dialect = PostgreSQL
	}
	switch o.Dialect {
	case PostgreSQL, CockroachDB, YugabyteDB:
	default:
		return o, fmt.Errorf("pgstore: Options.Dialect %q: want %q, %q or %q", o.Dialect, PostgreSQL, CockroachDB, YugabyteDB)
	}
	iso, err := ParseIsolation(o.Isolation)
	if err != nil {
		return o, fmt.Errorf("pgstore: Options.Isolation: %w", err)
	}
	if o.Dialect == CockroachDB {
		// The store does not send an isolation level to CockroachDB: its
		// transactions run at the cluster's default, SERIALIZABLE.
		if o.Isolation != "" && iso != Serializable {
			return o, fmt.Errorf("pgstore: Options.Isolation %q: the cockroachdb dialect runs at the cluster's default, SERIALIZABLE (leave it empty or say SERIALIZABLE)", o.Isolation)
		}
		iso = Serializable
	}
	o.Isolation = iso
	return o, nil
}

// ParseIsolation returns the isolation level named s, case-insensitively,
// with spaces, dashes or underscores between words: ReadCommitted ("" and
// "rc" too), RepeatableRead ("rr") or Serializable. Any other name is an
// error.
func ParseIsolation(s string) (string, error) {
	norm := strings.ToUpper(strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '-' || r == '_' || r == '\t'
	}), " "))
	switch norm {
	case "", "RC", ReadCommitted:
		return ReadCommitted, nil
	case "RR", RepeatableRead:
		return RepeatableRead, nil
	case Serializable:
		return Serializable, nil
	}
	return "", fmt.Errorf("isolation %q: want READ COMMITTED, REPEATABLE READ or SERIALIZABLE", s)
}

// Isolation returns the transaction isolation of the store's connections.
func (s *Store) Isolation() string { return s.c.opts.Isolation }

// checkIdent reports whether s can name a schema or table: 1..63 bytes,
// no double quote or NUL.
func checkIdent(s string) error {
	return sqlstore.CheckName(s, 63, "bytes", "\"\x00", "a double quote or NUL")
}

// quoteIdent double-quotes a name checked by checkIdent.
func quoteIdent(s string) string { return `"` + s + `"` }

// Store is a LinkBench store on one schema of a PostgreSQL database. It
// implements store.Store, store.BulkLinkLoader, store.BulkNodeLoader,
// store.Databases, store.Checker, store.Sessions and the capabilities of a
// store on a database server (store.SchemaCreator, store.Contents,
// store.CounterSource, store.ServerDescriber, store.ConnectionLimiter,
// store.IdleCloser), and is safe for concurrent use. The Store returned by
// Open serves Options.Schema; Database returns Stores serving other
// schemas of the same database.
//
// The methods the Store shares with the other SQL store come from the
// engine they both run on (package store/internal/sqlstore), and go doc
// does not list them: the store.Store and bulk-load methods (AddLink, ...,
// AddBulkNodes), each run on a session borrowed for the call (at most
// Options.MaxConns at once; more wait), and
//
//	Database(ctx context.Context, name string) (store.Store, error)
//	Warm(ctx context.Context, n int) error
//	Counters() []Counter
//	CloseIdle()
//	Close() error
//
// Database returns the Store of another schema (the same one for the
// same name; it neither checks nor creates it; errors: an invalid name,
// ctx's, store.ErrClosed). Warm connects up to n of the borrowed sessions
// ahead of a measured run, Options.WarmParallelism at a time. Counters
// returns the non-zero counters (see Counter), CloseIdle closes the idle
// borrowed sessions of every schema (they reconnect when needed).
type Store struct {
	*pool // the Store's own methods, each on a session borrowed for the call
	c     *shared
	name  string // the schema
	q     *queries
}

// pool is the engine's session pool of a view.
type pool = sqlstore.Pool[*Session]

// shared is what every schema view of one Open shares.
type shared struct {
	eng  *sqlstore.Engine
	opts Options
	cfg  *pgx.ConnConfig // every connection's configuration (copied per connection)
	log  *slog.Logger
}

// dialect is PostgreSQL's for the engine: SQLSTATEs, messages' prefix.
var dialect = sqlstore.Dialect{Pkg: "pgstore", DBKey: "schema", ClassPrefix: "sqlstate",
	Classify: classify, Unsent: unsent, NoSchema: missingTable, CheckIdent: checkIdent}

// Open connects to the server described by o and checks the connection.
// It creates and drops nothing. The Store's own methods hold up to
// o.MaxConns connections; Warm opens them ahead of a measured run.
//
// Errors: invalid options or DSN, a failed connection (pgx's error,
// wrapped; the password is redacted from every message).
func Open(ctx context.Context, o Options) (*Store, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	cfg, red, err := connConfig(&o)
	if err != nil {
		return nil, err
	}
	c := &shared{opts: o, cfg: cfg, log: o.Logger}
	c.eng = sqlstore.NewEngine(&o, &dialect, red, o.inject, func(name string) store.Store { return c.newView(name) })
	s := c.view(o.Schema)
	// Check the connection with the first pooled session.
	ss, err := sqlstore.Borrow(ctx, s.pool, sqlstore.OpOpen)
	if err != nil {
		return nil, err
	}
	if _, err := ss.conn(ctx); err != nil {
		sqlstore.Return(s.pool, ss)
		s.Close()
		return nil, red.Err(fmt.Errorf("pgstore: open %s: %w", red.DSN, err))
	}
	sqlstore.Return(s.pool, ss)
	return s, nil
}

// view returns the Store serving schema name, creating it on first use.
func (c *shared) view(name string) *Store { return c.eng.View(name).(*Store) }

// newView makes the Store serving schema name, with its session pool.
func (c *shared) newView(name string) *Store {
	s := &Store{c: c, name: name, q: newQueries(&c.opts, name)}
	s.pool = sqlstore.NewPool(c.eng, s.newSession, func(ctx context.Context, ss *Session) error {
		_, err := ss.conn(ctx)
		return err
	})
	return s
}

// Name returns the schema this Store serves.
func (s *Store) Name() string { return s.name }

// DSN returns the store's connection string with its password redacted,
// for reports.
func (s *Store) DSN() string { return s.c.eng.Red().DSN }

// The Store and Session implement every interface of a SQL store
// (sqlstore.StoreType, sqlstore.Session).
var _ = sqlstore.Implements[*Store, *Session]
