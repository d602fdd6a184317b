// Package mysqlstore is a LinkBench store on MySQL, MariaDB and MyRocks
// (InnoDB or ROCKSDB tables) through github.com/go-sql-driver/mysql.
//
// The semantics are those of package store (the in-memory reference, with
// the fixes listed there); the statements and transactions are those of
// LinkBench's MD LinkStoreSql (reference §3.3), so that the server does
// the work it does under Java LinkBench.
//
// # Sessions
//
// The benchmark's loaders and requesters each open a Session (see
// store.Sessions) and keep it for the whole phase: two connections owned by
// the worker, as each of LinkBench's store objects owns two (reference
// §3.2), used through the driver's own interfaces (no database/sql pool
// lookups, no locks shared between workers):
//
//   - the read connection, autocommit on (MD's conn_ac1): reads, node
//     operations, bulk loads, ResetNodeStore;
//   - the write connection, autocommit off (MD's conn_ac0): AddLink,
//     UpdateLink and DeleteLink, whose transactions start with their first
//     statement and end with COMMIT or ROLLBACK, with no BEGIN round trip.
//
// Statements are server-side prepared on each connection on first use and
// kept. The Store's own methods, safe for concurrent use, borrow a session
// per call from a small pool (Options.MaxConns sessions).
//
// # Statements per operation
//
// S-... are the statements of reference §3.3; each line is one round trip.
//
//	AddLink, new link      S-ins-link, S-cnt-upsert (+1, or 0 for a hidden link), COMMIT
//	AddLink, existing      S-ins-link (duplicate key), ROLLBACK, then the update path
//	update path            S-lock (SELECT visibility ... FOR UPDATE); no row: ROLLBACK and the insert path;
//	                       S-upd-link; 0 rows changed: ROLLBACK (LinkNoChange); else S-cnt-inc (+1 or -1)
//	                       if the visibility changed, COMMIT (LinkUpdate)
//	UpdateLink             the update path first, the insert path when the link is missing
//	DeleteLink             S-lock; absent, or hidden and not expunged: ROLLBACK;
//	                       else S-hide or S-del, S-cnt-inc (-1) if it was visible, COMMIT
//	GetLink, CountLinks    S-get, S-count
//	MultigetLinks          S-multiget as a literal text query (not prepared), as LinkBench sends it
//	GetLinkList            S-range (FORCE INDEX(id1_type), ORDER BY time DESC LIMIT ? OFFSET ?)
//	AddNode, GetNode,      S-ins-node(1), S-get-node, S-upd-node, S-del-node, autocommit
//	UpdateNode, DeleteNode
//	ResetNodeStore         TRUNCATE TABLE, ALTER TABLE ... AUTO_INCREMENT
//	bulk loads             one multi-row INSERT per batch of Options.BulkInsertCount rows, autocommit
//
// TestStatementsPerPath checks these sequences on a real server from its
// per-connection statement counters (SHOW SESSION STATUS).
//
// Where the store differs from MD, deliberately:
//
//   - Expunging an already hidden link does not decrement the count (MD
//     does: reference §11.2-6); that path sends no S-cnt-inc.
//   - On ROCKSDB tables the link UPDATE and DELETE force the primary key:
//     without statistics (a fresh or small table) MariaDB's ROCKSDB cost
//     model picks id1_type, which scans, and locks, the whole (id1,
//     link_type) list. DELETE then takes the multi-table form (counted as
//     Com_delete_multi); the request phase never expunges. InnoDB tables get
//     MD's statements unchanged.
//   - A link made visible whose count row is missing (possible only in data
//     not written by LinkBench) gets one with S-cnt-upsert after S-cnt-inc
//     found no row, instead of failing, so counts stay exact.
//   - Bulk loads are upserts (a re-load or a retried batch does not fail on
//     duplicates: reference §11.2-27) and write nodes with explicit ids.
//   - The read connection reports found rows (CLIENT_FOUND_ROWS), so that
//     UpdateNode of a node that already held the values reports it found
//     (MD reports it missing); the statement is the same.
//   - MD's LINK_NO_CHANGE comes from the UPDATE's affected rows: InnoDB
//     reports 0 for an unchanged row, ROCKSDB reports it as changed, so on
//     ROCKSDB an unchanged rewrite commits and returns LinkUpdate, as it
//     does under Java LinkBench.
//   - Retries are bounded (Options.RetryAttempts) with an exponential,
//     jittered backoff, instead of MD's 1000 attempts 20 ms apart.
//   - Payloads go inline in the prepared statement's execution; MariaDB
//     Connector/J 2.7, with which Java LinkBench is run against MariaDB,
//     first sends each byte-array parameter in a COM_STMT_SEND_LONG_DATA
//     packet (about 0.16 per request of the FB mix): a difference of
//     protocol packets, not of statements.
//
// # Cancellation and transport
//
// A session honours the context of each call without the driver's
// per-statement watcher goroutine: it registers the context once (a
// worker passes the same context to every call) and, when it is done,
// sets a past deadline on both connections, which interrupts a statement
// waiting for the server; that connection is then closed and the next call
// opens a new one. For tcp and unix addresses the store dials itself and
// makes the socket's reads and writes as direct non-blocking system calls
// within the runtime's poller, which spares the scheduler's system-call
// bookkeeping on every round trip.
//
// Open connects and checks the connection but never creates or drops
// anything: CreateSchema, DropSchema, CreateSecondaryIndex and
// DropSecondaryIndex are the only methods that run DDL (ResetNodeStore
// truncates the node table, as LinkBench does). The only values formatted
// into SQL text are identifiers (database and table names, validated and
// back-quoted), the integer of ALTER TABLE ... AUTO_INCREMENT, which MySQL
// does not accept as a parameter, and the integer ids of the literal
// multiget.
//
// MyRocks in REPEATABLE READ reports write conflicts with the snapshot as
// deadlocks (1213, "snapshot conflict"), which the store retries; set
// Options.Isolation to "READ COMMITTED" (as MD's MyRocks runs did) to
// avoid them.
//
// Payloads are bytes: the store talks to the server in the binary
// character set, so any byte sequence up to the column size round-trips
// unchanged into the latin1 columns of the reference schema.
//
// Deadlocks (MySQL error 1213), lock wait timeouts (1205) and lost or
// refused connections are retried with bounded attempts; the retries are
// counted per operation and per error number (Counters). A write that
// returns nil is committed. An error that outlives the retries is returned
// wrapped in a *store.TransientError; any other server error is returned
// wrapped so that errors.As finds the *mysql.MySQLError (an unknown
// database or table, 1049 or 1146, also matches store.ErrNoSchema).
//
// # The engine and the dialect
//
// The store runs on the engine it shares with package pgstore
// (store/internal/sqlstore): the retry loop, the options every SQL store
// has and their defaults, the counters, the Store's session-borrowing
// methods, the database views, the context watch of a session and the
// registration. This package is MySQL's dialect of it: the statements and
// DDL, the error numbers sorted into the engine's classes (retry: 1213,
// 1205; connection: 1053, 1927, 4031, 2006, 2013 and lost sockets), the
// multi-row bulk INSERTs, the sessions' two connections and their
// transport, and KILL of abandoned statements.
package mysqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// Engine is a MySQL storage engine the schema methods can create tables in.
type Engine string

const (
	// InnoDB is MySQL's and MariaDB's default transactional engine: the
	// reference schema of LinkBench's README (reference §3.1).
	InnoDB Engine = "InnoDB"
	// RocksDB is MyRocks (MariaDB's ROCKSDB engine, from the
	// mariadb-plugin-rocksdb package, or Facebook's MySQL): binary
	// collation and column families per index (reference §3.1 notes).
	RocksDB Engine = "ROCKSDB"
	// Spider is MariaDB's sharding engine (package mariadb-plugin-spider,
	// loaded on the server the store connects to, the head): CreateSchema
	// creates InnoDB tables on each of Options.SpiderDataNodes and SPIDER
	// tables on the head, partitioned by HASH(id1) (links) and HASH(id)
	// (counts, nodes), a partition per data node (see CreateSchema).
	Spider Engine = "SPIDER"
)

// ParseEngine returns the Engine named s, case-insensitively: "innodb",
// "rocksdb" / "myrocks", or "spider". Any other name is an error.
func ParseEngine(s string) (Engine, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "innodb":
		return InnoDB, nil
	case "rocksdb", "myrocks":
		return RocksDB, nil
	case "spider":
		return Spider, nil
	}
	return "", fmt.Errorf("mysqlstore: unknown engine %q (want InnoDB, RocksDB or Spider)", s)
}

// Defaults of Options.
const (
	// DefaultHost is the server host when neither DSN nor Host is set.
	DefaultHost = sqlstore.DefaultHost
	// DefaultPort is the server's TCP port when neither DSN nor Port is
	// set (MySQL's 3306, reference §3.2).
	DefaultPort = 3306
	// DefaultDBPrefix is LinkBench's default dbprefix: databases linkdb0,
	// linkdb1, ...
	DefaultDBPrefix = sqlstore.DefaultDBPrefix
	// DefaultBulkInsertCount is the rows per bulk INSERT (LinkBench's
	// bulk_insert_count, 1024).
	DefaultBulkInsertCount = 1024
	// DefaultLinkTable, DefaultCountTable and DefaultNodeTable are the
	// table names of LinkBench's sample configuration.
	DefaultLinkTable  = sqlstore.DefaultLinkTable
	DefaultCountTable = sqlstore.DefaultCountTable
	DefaultNodeTable  = sqlstore.DefaultNodeTable
	// DefaultConnectTimeout is the dial timeout of one connection.
	DefaultConnectTimeout = sqlstore.DefaultConnectTimeout
	// DefaultWarmParallelism is the number of connections Warm opens at
	// once.
	DefaultWarmParallelism = sqlstore.DefaultWarmParallelism
	// DefaultMaxStatementBytes is the payload bytes per bulk INSERT (8 MiB,
	// half of MariaDB's default max_allowed_packet).
	DefaultMaxStatementBytes = 8 << 20
	// DefaultMaxConns is the default of Options.MaxConns.
	DefaultMaxConns = sqlstore.DefaultMaxConns
	// DefaultRetryAttempts is the attempts per call, the first included.
	DefaultRetryAttempts = sqlstore.DefaultRetryAttempts
	// DefaultRetryBackoff is the wait before the first retry; it doubles
	// up to DefaultRetryMaxBackoff. With the defaults a call waits at most
	// about 13.3 s in all (10+20+...+640 ms, then 12 waits of 1 s, each
	// drawn from [d/2, d]) before it gives up.
	DefaultRetryBackoff    = sqlstore.DefaultRetryBackoff
	DefaultRetryMaxBackoff = sqlstore.DefaultRetryMaxBackoff
)

// Options configure Open. The zero value of a field selects its default.
type Options struct {
	// DSN is a go-sql-driver/mysql data source name, e.g.
	// "user:password@tcp(127.0.0.1:3306)/". When it is empty the store
	// connects over TCP to Host:Port as User with Password. A database name
	// in the DSN becomes the default of Database (the store connects
	// without a default database and qualifies every table). The DSN must
	// not set clientFoundRows=true (the store decides insert vs update from
	// affected rows), nor a charset or collation other than binary.
	//
	// DSN may list the nodes of a multi-primary cluster (Galera),
	// comma-separated (see SplitDSN), all with the same user and password:
	// sessions are spread over them round-robin, each keeping its node,
	// and a session whose node refuses connections or is not ready (1047)
	// moves to the next one (counted as reconnects). DDL, checks and DB()
	// use the first.
	DSN string
	// Host and Port of the server when DSN is empty: DefaultHost and
	// DefaultPort (3306).
	Host string
	Port int
	// User and Password when DSN is empty; Password also when the DSN has
	// no password (so that it need not appear in a command line).
	User, Password string

	// DBPrefix is LinkBench's dbprefix: databases are named DBPrefix+"0",
	// DBPrefix+"1", ... (default DefaultDBPrefix, "linkdb").
	DBPrefix string
	// Database is the database the Store returned by Open serves
	// (default: the DSN's database, else DBPrefix+"0"). Other databases are
	// reached with Database.
	Database string
	// LinkTable, CountTable and NodeTable name the three tables (defaults
	// "linktable", "counttable", "nodetable"). Names are 1..64 characters
	// without a back-quote, dot, slash, backslash or NUL.
	LinkTable  string
	CountTable string
	NodeTable  string
	// Engine is the storage engine CreateSchema uses when its
	// SchemaOptions do not name one (default InnoDB).
	Engine Engine
	// SpiderDataNodes are the data nodes ("host:port", TCP) of a Spider
	// schema (Engine Spider): CreateSchema creates the tables on each,
	// reached with the head's user and password, and on the head a
	// SPIDER partition per node, in this order. DropSchema drops them
	// there too. Other engines ignore it.
	SpiderDataNodes []string
	// Isolation, when not empty, is set on every connection with
	// SET SESSION TRANSACTION ISOLATION LEVEL: "READ COMMITTED",
	// "REPEATABLE READ", "READ UNCOMMITTED" or "SERIALIZABLE". Empty keeps
	// the server's default (MD's README: REPEATABLE READ for InnoDB runs,
	// READ COMMITTED for MyRocks runs).
	Isolation string

	// BulkInsertCount is the largest number of rows in one bulk INSERT
	// (LinkBench's bulk_insert_count, default 1024, >= 1). The statement for
	// exactly this many rows is prepared once; other sizes are prepared
	// for the call.
	BulkInsertCount int
	// MaxStatementBytes caps the payload bytes (link or node data plus 64
	// per row) of one bulk INSERT, so that a batch of large nodes stays
	// under the server's max_allowed_packet (default 8 MiB). A batch over
	// the cap is split into several INSERTs of one transaction.
	MaxStatementBytes int
	// DisableBinlogLoad runs bulk loads (AddBulkLinks, AddBulkCounts,
	// AddBulkNodes) with SET SESSION sql_log_bin=0 on their connection
	// (FB's mysql_disable_binlog_load). It needs the SUPER or BINLOG ADMIN
	// privilege on MariaDB (SUPER or SYSTEM_VARIABLES_ADMIN on MySQL); Open
	// checks it and fails with an error naming the privilege.
	DisableBinlogLoad bool

	// Logger receives retries (Debug), abandoned calls and driver messages
	// (Warn). Nil discards them. Passwords are redacted.
	Logger *slog.Logger

	// ConnectTimeout is the dial timeout of one connection (default 10 s).
	ConnectTimeout time.Duration
	// MaxConns is the number of calls the Store's own methods run at once
	// (default 64), each on a borrowed session of up to two connections;
	// more wait. Sessions opened with Session (the benchmark's workers)
	// do not count against it. DB's pool holds up to MaxConns connections
	// too.
	MaxConns int
	// WarmParallelism is the number of connections Warm opens at once
	// (default 8).
	WarmParallelism int

	// RetryAttempts is the number of attempts of one call, the first
	// included (default 20, >= 1), for deadlocks (1213), lock wait
	// timeouts (1205) and lost connections.
	RetryAttempts int
	// RetryBackoff is the wait before the first retry (default 10 ms); it
	// doubles per retry up to RetryMaxBackoff (default 1 s). Each wait is
	// drawn uniformly from [d/2, d] so that deadlocked writers do not meet
	// again.
	RetryBackoff, RetryMaxBackoff time.Duration

	// inject is the fault-injection seam of the package's tests: when not
	// nil it is called before each statement (BEGIN and COMMIT included)
	// with a label "<Op>:<statement>", e.g. "AddLink:insert" or
	// "AddLink:commit"; a non-nil result is treated as that statement's
	// error (a *mysql.MySQLError with Number 1213 simulates a deadlock). It
	// must be safe for concurrent use.
	inject func(op string) error
	// injectCommitted, when not nil, is called with the operation's name
	// after each COMMIT that succeeded; a non-nil result is treated as the
	// COMMIT's error (a lost connection makes it ambiguous).
	injectCommitted func(op string) error
}

// withDefaults returns o with its zero fields defaulted, and checks it.
func (o Options) withDefaults() (Options, error) {
	if o.Engine == "" {
		o.Engine = InnoDB
	}
	if o.BulkInsertCount == 0 {
		o.BulkInsertCount = DefaultBulkInsertCount
	}
	if o.MaxStatementBytes == 0 {
		o.MaxStatementBytes = DefaultMaxStatementBytes
	}
	if err := sqlstore.Defaults(&o, "mysqlstore", DefaultPort, checkIdent); err != nil {
		return o, err
	}
	switch {
	case o.BulkInsertCount < 1:
		return o, fmt.Errorf("mysqlstore: Options.BulkInsertCount %d < 1", o.BulkInsertCount)
	case o.BulkInsertCount*7 > 65535:
		return o, fmt.Errorf("mysqlstore: Options.BulkInsertCount %d too large (a statement holds at most 65535 parameters)", o.BulkInsertCount)
	case o.MaxStatementBytes < 1:
		return o, fmt.Errorf("mysqlstore: Options.MaxStatementBytes %d < 1", o.MaxStatementBytes)
	case o.Engine != InnoDB && o.Engine != RocksDB && o.Engine != Spider:
		return o, fmt.Errorf("mysqlstore: Options.Engine %q: want InnoDB, ROCKSDB or SPIDER", o.Engine)
	}
	for _, a := range o.SpiderDataNodes {
		if err := checkDataNode(a); err != nil {
			return o, fmt.Errorf("mysqlstore: Options.SpiderDataNodes: %w", err)
		}
	}
	if err := checkDataNodeList(o.SpiderDataNodes); err != nil {
		return o, fmt.Errorf("mysqlstore: Options.SpiderDataNodes: %w", err)
	}
	switch strings.ToUpper(o.Isolation) {
	case "", "READ COMMITTED", "REPEATABLE READ", "READ UNCOMMITTED", "SERIALIZABLE":
		o.Isolation = strings.ToUpper(o.Isolation)
	default:
		return o, fmt.Errorf("mysqlstore: Options.Isolation %q: want READ COMMITTED, REPEATABLE READ, READ UNCOMMITTED or SERIALIZABLE", o.Isolation)
	}
	return o, nil
}

// checkIdent reports whether s can name a database or table: 1..64
// characters, none of them a back-quote, dot, slash, backslash or NUL.
func checkIdent(s string) error {
	return sqlstore.CheckName(s, 64, "characters", "`./\\\x00", "one of ` . / \\ NUL")
}

// quoteIdent back-quotes a name checked by checkIdent.
func quoteIdent(s string) string { return "`" + s + "`" }

// Store is a LinkBench store on one database of a MySQL-protocol server.
// It implements store.Store, store.BulkLinkLoader, store.BulkNodeLoader,
// store.Databases, store.Checker, store.Sessions and the capabilities of a
// store on a database server (store.SchemaCreator, store.Contents,
// store.CounterSource, store.ServerDescriber, store.ConnectionLimiter,
// store.IdleCloser), and is safe for concurrent use. The Store returned by
// Open serves Options.Database; Database returns Stores serving other
// databases over the same connection pool.
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
//
// Database returns the Store of another database (the same one for the
// same name; it neither checks nor creates it; errors: an invalid name,
// ctx's, store.ErrClosed). Warm connects up to n of the borrowed sessions
// ahead of a measured run, Options.WarmParallelism at a time. Counters
// returns the non-zero counters (see Counter), CloseIdle closes the idle
// borrowed sessions of every database (they reconnect when needed).
type Store struct {
	*pool // the Store's own methods, each on a session borrowed for the call
	c     *shared
	name  string // the database
	q     *queries
}

// pool is the engine's session pool of a view.
type pool = sqlstore.Pool[*Session]

// shared is what every database view of one Open shares.
type shared struct {
	eng  *sqlstore.Engine
	opts Options
	db   *sql.DB // DDL, checks and DB(); the operations run on sessions
	log  *slog.Logger
	cfg  *mysql.Config // the driver's configuration (Spider data nodes reuse its user and password)
	net  string        // the driver's network ("tcp", "unix", ...) and address,
	addr string        // to tell whether the server is on this host

	// eps are the servers the sessions connect to: one, or the nodes of
	// a cluster (a DSN list, see SplitDSN); next spreads new sessions
	// over them round-robin. initSQL runs on each new connection.
	eps     []endpoint
	next    atomic.Uint64
	initSQL []string

	// galera: the first server runs Galera replication (wsrep_on=1), read
	// at Open: a failed COMMIT with 1213 is a certification conflict, a
	// read-back after an ambiguous commit waits for the cluster
	// (wsrep_sync_wait), and ROCKSDB tables are refused.
	galera bool
}

// Open connects to the server described by o, checks the connection
// (ping) and, with DisableBinlogLoad, the privilege to switch the binary
// log off. It creates and drops nothing. The connection pool holds up to
// o.MaxConns connections; Warm opens them ahead of a measured run.
//
// Errors: invalid options or DSN (clientFoundRows=true, a non-binary
// charset or collation), a failed connection (the driver's error,
// wrapped; the password is redacted from every message), or a missing
// privilege for DisableBinlogLoad.
func Open(ctx context.Context, o Options) (*Store, error) {
	if err := CheckDSNList(o.DSN); err != nil {
		return nil, fmt.Errorf("mysqlstore: Options.DSN: %w", err)
	}
	list := SplitDSN(o.DSN)
	o.DSN = list[0]
	cfg, red, err := driverConfig(&o)
	if err != nil {
		return nil, err
	}
	if len(list) > 1 {
		red.DSN = RedactDSN(strings.Join(list, ","))
	}
	if o.Database == "" {
		o.Database = o.DBPrefix + "0"
	}
	if err := checkIdent(o.Database); err != nil {
		return nil, fmt.Errorf("mysqlstore: Options.Database: %w", err)
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, red.Err(fmt.Errorf("mysqlstore: open %s: %w", red.DSN, err))
	}
	c := &shared{opts: o, log: o.Logger, net: cfg.Net, addr: cfg.Addr, cfg: cfg.Clone()}
	if c.eps, err = endpoints(o, cfg, red, list); err != nil {
		return nil, err
	}
	c.eng = sqlstore.NewEngine(&o, &dialect, red, o.inject, func(name string) store.Store { return c.newView(name) })
	if o.Isolation != "" {
		c.initSQL = []string{"SET SESSION TRANSACTION ISOLATION LEVEL " + o.Isolation}
	}
	var conn driver.Connector = connector
	if o.Isolation != "" {
		conn = &initConnector{base: connector, init: c.initSQL}
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(o.MaxConns)
	db.SetMaxIdleConns(2)
	c.db = db
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, red.Err(fmt.Errorf("mysqlstore: open %s: %w", red.DSN, err))
	}
	if c.galera, err = c.wsrepOn(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if !c.galera && len(list) > 1 {
		db.Close()
		return nil, fmt.Errorf("mysqlstore: DSN list: node 1 (%s) is not a Galera node (@@wsrep_on is not 1): a DSN list names the nodes of one Galera cluster", cfg.Addr)
	}
	if c.galera && o.Engine == RocksDB {
		db.Close()
		return nil, errRocksDBGalera
	}
	if o.DisableBinlogLoad {
		if err := c.checkBinlogPrivilege(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	return c.view(o.Database), nil
}

// sessionConnectors returns the connectors of the sessions' read and
// write connections: copies of cfg that dial through the store's dialer
// (for tcp and unix networks; a network registered with
// mysql.RegisterDialContext keeps its dialer), the read one reporting
// found rows, the write one with autocommit off.
func sessionConnectors(cfg *mysql.Config) (read, write driver.Connector, err error) {
	rc := cfg.Clone()
	wc := cfg.Clone()
	switch cfg.Net {
	case "tcp", "tcp4", "tcp6", "unix":
		rc.DialFunc, wc.DialFunc = dialer(), dialer()
	}
	rc.ClientFoundRows = true
	if wc.Params == nil {
		wc.Params = map[string]string{}
	}
	wc.Params["autocommit"] = "0"
	if read, err = mysql.NewConnector(rc); err != nil {
		return nil, nil, err
	}
	if write, err = mysql.NewConnector(wc); err != nil {
		return nil, nil, err
	}
	return read, write, nil
}

// driverConfig defaults and checks o (withDefaults), builds the driver's
// configuration from it, and returns it with the redactor of its
// password.
func driverConfig(o *Options) (*mysql.Config, sqlstore.Redactor, error) {
	var cfg *mysql.Config
	red := sqlstore.Redactor{}
	d, err := o.withDefaults()
	if err != nil {
		return nil, red, err
	}
	*o = d
	if o.DSN != "" {
		red.DSN = RedactDSN(o.DSN)
		cfg, err = mysql.ParseDSN(o.DSN)
		if err != nil {
			r := sqlstore.Redactor{PW: dsnPassword(o.DSN), DSN: red.DSN}
			return nil, r, r.Err(fmt.Errorf("mysqlstore: DSN %s: %w", red.DSN, err))
		}
		if cfg.Passwd == "" {
			cfg.Passwd = o.Password
		}
		red.PW = cfg.Passwd
		if cfg.ClientFoundRows {
			return nil, red, fmt.Errorf("mysqlstore: DSN %s sets clientFoundRows=true: the store tells inserts, updates and unchanged rows apart by affected rows; remove it", red.DSN)
		}
		if cs := dsnParam(cfg, "charset"); cs != "" && cs != "binary" {
			return nil, red, fmt.Errorf("mysqlstore: DSN %s sets charset=%s: payloads are bytes and the store always uses the binary character set; remove it", red.DSN, cs)
		}
		if cfg.Collation != "" && cfg.Collation != "binary" {
			return nil, red, fmt.Errorf("mysqlstore: DSN %s sets collation=%s: payloads are bytes and the store always uses the binary collation; remove it", red.DSN, cfg.Collation)
		}
		if o.Database == "" && cfg.DBName != "" {
			o.Database = cfg.DBName
		}
		cfg.DBName = ""
	} else {
		cfg = mysql.NewConfig()
		cfg.User = o.User
		cfg.Passwd = o.Password
		cfg.Net = "tcp"
		cfg.Addr = net.JoinHostPort(o.Host, strconv.Itoa(o.Port))
		red.PW = o.Password
		red.DSN = RedactDSN(cfg.FormatDSN())
	}
	cfg.Collation = "binary"
	if cfg.Timeout == 0 {
		cfg.Timeout = o.ConnectTimeout
	}
	cfg.Logger = driverLogger{log: o.Logger, red: red}
	return cfg, red, nil
}

// dsnParam returns the value of a DSN parameter the driver keeps
// unexported (such as charset), read back from its normalised DSN.
func dsnParam(cfg *mysql.Config, key string) string {
	f := cfg.FormatDSN()
	i := strings.LastIndexByte(f, '?')
	if i < 0 {
		return ""
	}
	v, err := url.ParseQuery(f[i+1:])
	if err != nil {
		return ""
	}
	return v.Get(key)
}

// initConnector runs statements on every new connection.
type initConnector struct {
	base driver.Connector
	init []string
}

// Connect implements driver.Connector.
func (c *initConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, errors.New("mysqlstore: driver connection cannot execute statements")
	}
	for _, q := range c.init {
		if _, err := ex.ExecContext(ctx, q, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("mysqlstore: %s: %w", q, err)
		}
	}
	return conn, nil
}

// Driver implements driver.Connector.
func (c *initConnector) Driver() driver.Driver { return c.base.Driver() }

// checkBinlogPrivilege tries SET SESSION sql_log_bin=0 on one connection.
func (c *shared) checkBinlogPrivilege(ctx context.Context) error {
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return c.red().Err(fmt.Errorf("mysqlstore: open %s: %w", c.red().DSN, err))
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_log_bin=0"); err != nil {
		return c.red().Err(binlogError(err))
	}
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_log_bin=1"); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		return c.red().Err(fmt.Errorf("mysqlstore: SET SESSION sql_log_bin=1: %w", err))
	}
	return nil
}

// binlogError explains a refused SET SESSION sql_log_bin.
func binlogError(err error) error {
	return fmt.Errorf("mysqlstore: DisableBinlogLoad: SET SESSION sql_log_bin=0 refused; the user needs the SUPER or BINLOG ADMIN privilege (MariaDB) or SUPER or SYSTEM_VARIABLES_ADMIN (MySQL 8): %w", err)
}

// view returns the Store serving database name, creating it on first use.
func (c *shared) view(name string) *Store { return c.eng.View(name).(*Store) }

// newView makes the Store serving database name, with its session pool.
func (c *shared) newView(name string) *Store {
	s := &Store{c: c, name: name, q: newQueries(&c.opts, name)}
	s.pool = sqlstore.NewPool(c.eng, s.newSession, func(ctx context.Context, ss *Session) error {
		_, err := ss.conn(ctx, connRead)
		return err
	})
	return s
}

// newSession returns a session of s, not connected yet.
func (s *Store) newSession() *Session {
	ss := &Session{v: s}
	if n := len(s.c.eps); n > 1 {
		ss.ep = int((s.c.next.Add(1) - 1) % uint64(n))
		ss.calls.OnFail(ss.onFail)
	}
	ss.calls.Init(s.c.eng, s.name, ss.rearm, ss.interrupt)
	return ss
}

// red returns the redactor of the store's password.
func (c *shared) red() sqlstore.Redactor { return c.eng.Red() }

// Name returns the database this Store serves.
func (s *Store) Name() string { return s.name }

// Close closes the connections of every database view of this Open (Close
// on any view closes them all): the idle sessions of the Stores' own
// methods and the pool of DB. Sessions opened with Session belong to their
// openers: their calls fail after Close with errors wrapping
// store.ErrClosed, and their Close closes their connections. Later calls
// of the Store return errors wrapping store.ErrClosed. Close may be called
// more than once; it returns the pool's close error, if any, the first
// time.
func (s *Store) Close() error {
	if !s.c.eng.Close() {
		return nil
	}
	s.c.closeKillers()
	return s.c.db.Close()
}

// DB returns a database/sql pool on the same server, for tools that need
// to run their own statements (for example server variables in a
// report); the store uses it for DDL and checks only. The Store keeps
// ownership: do not close it.
func (s *Store) DB() *sql.DB { return s.c.db }

// check returns the error a call named op must return before doing
// anything: ctx's error or store.ErrClosed, wrapped.
func (s *Store) check(ctx context.Context, op string) error { return s.c.eng.Check(ctx, op) }

// The Store and Session implement every interface of a SQL store
// (sqlstore.StoreType, sqlstore.Session).
var _ = sqlstore.Implements[*Store, *Session]
