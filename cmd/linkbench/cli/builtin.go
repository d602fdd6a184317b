package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/memstore"
	"github.com/linkbench-go/linkbench/store/mysqlstore"
	"github.com/linkbench-go/linkbench/store/pebblestore"
	"github.com/linkbench-go/linkbench/store/pgstore"
)

// The stores this tool is built with, and how its flags and keys make
// their options. This is the one file of the tool that knows a store's
// package: everything else drives a store through the store package's
// registry (store.Open) and its optional capabilities (store.As...), so
// that a store registered by another package (a build of the tool that
// imports it) gets -create-schema, the loaded-graph check, counters and
// host metrics as the built-in SQL stores do.

// builtin is a store this tool is built with.
type builtin struct {
	name string
	// server: a store on a database server. It takes -dsn, -create-schema
	// and -defer-index, -verify alone (its data outlives a run), and
	// -gomaxprocs -1 gives the client a quarter of the CPUs.
	server bool
	// pgFlags: it takes -isolation and -dialect.
	pgFlags bool
	// dir: an embedded store in a directory. -dsn names the directory
	// (kept, so that a load once and request runs later work, and -verify
	// alone checks it); without -dsn a temporary directory, removed at
	// the end.
	dir bool
	// desc describes a store without options (memory, discard).
	desc string
	// options builds its options from the flags and keys, before anything
	// is opened; its errors are usage errors. nil: none.
	options func(o *options, cfg *linkbench.Config) error
	// open opens it with those options and returns the report's
	// description of it and what to do after closing it (nil: nothing);
	// nil: store.Open(name, "").
	open func(ctx context.Context, o *options, cfg *linkbench.Config) (store.Store, string, func() error, error)
}

// builtins are the stores this tool is built with, in the order its
// messages list them.
var builtins = []builtin{
	{name: pebblestore.Name, dir: true, open: openPebble, options: func(o *options, cfg *linkbench.Config) error {
		_, err := pebbleOptions(o, cfg)
		return err
	}},
	{name: memstore.Name, desc: "memory (in-process reference store)"},
	{name: discard.Name, desc: "discard (stores nothing)"},
	{name: mysqlstore.Name, server: true, open: openMySQL, options: func(o *options, cfg *linkbench.Config) error {
		_, err := mysqlOptions(o, cfg)
		return err
	}},
	{name: pgstore.Name, server: true, pgFlags: true, open: openPostgres, options: func(o *options, cfg *linkbench.Config) error {
		_, err := pgOptions(o, cfg)
		return err
	}},
}

// builtinStore returns the built-in store registered as name.
func builtinStore(name string) (builtin, bool) {
	i := slices.IndexFunc(builtins, func(b builtin) bool { return b.name == name })
	if i < 0 {
		return builtin{}, false
	}
	return builtins[i], true
}

// serverStores names the built-in stores on a database server, for
// messages: "mysql or postgres".
func serverStores() string {
	var names []string
	for _, b := range builtins {
		if b.server {
			names = append(names, b.name)
		}
	}
	return strings.Join(names, " or ")
}

// redactDSN returns a -dsn with its password redacted, in the form of the
// store it is for (a PostgreSQL URL or keyword/value pairs, else a MySQL
// DSN), and the passwords it may hold in either form.
func redactDSN(dsn string) (string, []string) {
	redacted := mysqlstore.RedactDSN(dsn)
	if isPostgresDSN(dsn) {
		redacted = pgstore.RedactDSN(dsn)
	}
	var pws []string
	for _, d := range mysqlstore.SplitDSN(dsn) { // the nodes of a cluster
		if cfg, err := mysql.ParseDSN(d); err == nil && cfg.Passwd != "" {
			pws = append(pws, cfg.Passwd)
		}
	}
	if pw := pgDSNPassword(dsn); pw != "" {
		pws = append(pws, pw)
	}
	return redacted, pws
}

// databasesDesc describes the run's databases for a store's description:
// "linkdb0..linkdb3".
func databasesDesc(cfg *linkbench.Config) string {
	names := cfg.DatabaseNames()
	return names[0] + ".." + names[len(names)-1]
}

// mysqlOptions builds the MySQL store's options from -dsn or LinkBench's
// host, port, user, password keys, and the table, prefix and engine keys.
// Errors are usage errors (exit status 2): a malformed DSN, an unknown
// engine.
func mysqlOptions(o *options, cfg *linkbench.Config) (mysqlstore.Options, error) {
	opts := mysqlstore.Options{
		DSN:             o.dsn,
		Host:            o.conn.Host,
		Port:            o.conn.Port,
		User:            o.conn.User,
		Password:        o.conn.Password,
		DBPrefix:        cfg.DBPrefix,
		Database:        cfg.DatabaseNames()[0], // dbid, or dbprefix0
		LinkTable:       cfg.Store.LinkTable,
		CountTable:      cfg.Store.CountTable,
		NodeTable:       cfg.Store.NodeTable,
		BulkInsertCount: cfg.BulkInsertCount,
		// A connection per loader, the node loader and every requester.
		MaxConns:          max(cfg.Loaders+1, cfg.Requesters, 1) + 2,
		DisableBinlogLoad: cfg.Store.DisableBinlogLoad,
		Logger:            cfg.Logger,
	}
	if opts.Password == "" {
		// The MySQL client's variable: a password kept out of the
		// command line (paired passes it so).
		opts.Password = os.Getenv("MYSQL_PWD")
	}
	if o.dsn != "" {
		// A comma-separated list names the nodes of a cluster (Galera).
		if err := mysqlstore.CheckDSNList(o.dsn); err != nil {
			return opts, usageError{fmt.Errorf("-dsn: %v", err)}
		}
		for _, d := range mysqlstore.SplitDSN(o.dsn) {
			if _, err := mysql.ParseDSN(d); err != nil {
				return opts, usageError{fmt.Errorf("-dsn %s: %v", describe(mysqlstore.RedactDSN(o.dsn)), redact(err.Error(), o.dsn, o.conn.Password))}
			}
		}
	}
	engine := cfg.Store.Engine
	if engine == "" {
		engine = "innodb"
	}
	e, err := mysqlstore.ParseEngine(engine)
	if err != nil {
		return opts, usageError{&linkbench.ConfigError{Key: "engine", Value: engine, Reason: "must be innodb, rocksdb, myrocks or spider"}}
	}
	opts.Engine = e
	opts.SpiderDataNodes = cfg.SpiderDataNodeList()
	if raw := cfg.Store.SpiderDataNodes; strings.TrimSpace(raw) != "" {
		for i, a := range strings.Split(raw, ",") {
			if strings.TrimSpace(a) == "" {
				return opts, usageError{&linkbench.ConfigError{Key: "spider_data_nodes", Value: raw,
					Reason: fmt.Sprintf("element %d is empty: want host:port,host:port", i+1)}}
			}
		}
	}
	if err := mysqlstore.CheckDataNodes(opts.SpiderDataNodes); err != nil {
		return opts, usageError{&linkbench.ConfigError{Key: "spider_data_nodes", Value: cfg.Store.SpiderDataNodes, Reason: err.Error()}}
	}
	if e == mysqlstore.Spider && o.createSchema && len(opts.SpiderDataNodes) == 0 {
		return opts, usageError{&linkbench.ConfigError{Key: "spider_data_nodes", Value: "",
			Reason: "engine=spider with -create-schema needs the data nodes: host:port,host:port"}}
	}
	if e == mysqlstore.RocksDB {
		// MyRocks LinkBench runs use READ COMMITTED (reference §3.1): in
		// REPEATABLE READ, MyRocks reports snapshot conflicts as deadlocks.
		opts.Isolation = "READ COMMITTED"
	}
	return opts, nil
}

// openMySQL opens the MySQL store with the options of mysqlOptions and
// refuses existing tables of another engine than the engine key's.
func openMySQL(ctx context.Context, o *options, cfg *linkbench.Config) (store.Store, string, func() error, error) {
	opts, err := mysqlOptions(o, cfg)
	if err != nil {
		return nil, "", nil, err
	}
	st, err := store.Open(ctx, mysqlstore.Name, "", store.WithDriverOptions(opts))
	if err != nil {
		return nil, "", nil, fmt.Errorf("mysql store: %s", redact(err.Error(), o.dsn, o.conn.Password))
	}
	s := st.(*mysqlstore.Store)
	if err := checkTableEngines(ctx, s, opts, cfg); err != nil {
		s.Close()
		return nil, "", nil, err
	}
	where := mysqlstore.RedactDSN(o.dsn)
	if o.dsn == "" {
		where = fmt.Sprintf("%s@%s:%d", opts.User, opts.Host, opts.Port)
	}
	return s, fmt.Sprintf("mysql %s engine=%s databases=%s", where, opts.Engine, databasesDesc(cfg)), nil, nil
}

// checkTableEngines refuses a run on existing link tables whose engine is
// not the engine key's (default innodb): the run would be configured
// (MyRocks runs use READ COMMITTED) and labelled by the key, not by the
// tables. Missing tables pass (-create-schema makes them).
func checkTableEngines(ctx context.Context, s *mysqlstore.Store, opts mysqlstore.Options, cfg *linkbench.Config) error {
	want, table := opts.Engine, opts.LinkTable
	if table == "" {
		table = "linktable"
	}
	for _, db := range cfg.DatabaseNames() {
		have, err := s.TableEngine(ctx, db)
		if err != nil {
			return err
		}
		if have != "" && have != want {
			return usageError{&linkbench.ConfigError{Key: "engine", Value: strings.ToLower(string(want)),
				Reason: fmt.Sprintf("table %s.%s is %s: set engine=%s or drop the tables", db, table, have, strings.ToLower(string(have)))}}
		}
	}
	return nil
}

// isPostgresDSN reports whether a -dsn is a PostgreSQL connection string:
// a postgres:// URL or keyword/value pairs.
func isPostgresDSN(dsn string) bool {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return true
	}
	// Keyword/value pairs: every field is key=value, and there is none of
	// the '@' every MySQL DSN with a user has. (A quoted value may hold
	// spaces: only the first field has to be checked strictly.)
	f := strings.Fields(dsn)
	return len(f) > 0 && !strings.Contains(dsn, "@") && strings.Contains(f[0], "=") &&
		!strings.HasPrefix(f[0], "=") && !strings.ContainsAny(f[0][:strings.IndexByte(f[0], '=')], "/:(")
}

// pgDSNPassword returns the password a PostgreSQL DSN holds ("" if none).
func pgDSNPassword(dsn string) string {
	if cfg, err := pgx.ParseConfig(dsn); err == nil {
		return cfg.Password
	}
	return ""
}

// pgOptions builds the PostgreSQL store's options from -dsn or LinkBench's
// host, port, user, password keys, and the table and prefix keys. The
// port key's default is MySQL's 3306: unless the port was written out,
// PostgreSQL's 5432 is used. Errors are usage errors (exit status 2).
func pgOptions(o *options, cfg *linkbench.Config) (pgstore.Options, error) {
	port := o.conn.Port
	if port == 3306 && !portGiven(o) {
		port = pgstore.DefaultPort
	}
	opts := pgstore.Options{
		DSN:        o.dsn,
		Host:       o.conn.Host,
		Port:       port,
		User:       o.conn.User,
		Password:   o.conn.Password,
		DBPrefix:   cfg.DBPrefix,
		Schema:     cfg.DatabaseNames()[0], // dbid, or dbprefix0
		LinkTable:  cfg.Store.LinkTable,
		CountTable: cfg.Store.CountTable,
		NodeTable:  cfg.Store.NodeTable,
		Isolation:  o.isolation,
		// The Store's own calls: Verify, Warm; workers open sessions.
		MaxConns: max(cfg.Loaders+1, cfg.Requesters, 1) + 2,
		Logger:   cfg.Logger,
	}
	d, err := pgstore.ParseDialect(o.dialect)
	if err != nil {
		return opts, usageError{fmt.Errorf("-dialect %q: want postgres, cockroachdb or yugabytedb", o.dialect)}
	}
	opts.Dialect = d
	if o.dsn != "" {
		if !isPostgresDSN(o.dsn) {
			return opts, usageError{fmt.Errorf("-dsn %q: want a postgres:// URL or host=... keyword/value pairs", pgstore.RedactDSN(o.dsn))}
		}
		if _, err := pgx.ParseConfig(o.dsn); err != nil {
			return opts, usageError{fmt.Errorf("-dsn %q: %v", pgstore.RedactDSN(o.dsn), redact(err.Error(), o.dsn, o.conn.Password))}
		}
	}
	iso, err := pgstore.ParseIsolation(o.isolation)
	if err != nil {
		return opts, usageError{fmt.Errorf("-isolation %q: want read-committed, repeatable-read or serializable", o.isolation)}
	}
	if d == pgstore.CockroachDB && o.isolation != "" && iso != pgstore.Serializable {
		return opts, usageError{fmt.Errorf("-isolation %q: the cockroachdb dialect runs at the cluster's default, serializable", o.isolation)}
	}
	return opts, nil
}

// openPostgres opens the PostgreSQL store with the options of pgOptions.
func openPostgres(ctx context.Context, o *options, cfg *linkbench.Config) (store.Store, string, func() error, error) {
	opts, err := pgOptions(o, cfg)
	if err != nil {
		return nil, "", nil, err
	}
	st, err := store.Open(ctx, pgstore.Name, "", store.WithDriverOptions(opts))
	if err != nil {
		return nil, "", nil, fmt.Errorf("postgres store: %s", redact(err.Error(), o.dsn, o.conn.Password))
	}
	s := st.(*pgstore.Store)
	return s, fmt.Sprintf("postgres %s dialect=%s isolation=%s schemas=%s", s.DSN(), opts.Dialect,
		strings.ToLower(strings.ReplaceAll(s.Isolation(), " ", "-")), databasesDesc(cfg)), nil, nil
}

// portGiven reports whether the port key was written out (in -D or the -c
// file), rather than left at its default.
func portGiven(o *options) bool {
	if v, ok := o.defs["port"]; ok && strings.TrimSpace(v) != "" {
		return true
	}
	if o.config == "" {
		return false
	}
	f, err := os.Open(o.config)
	if err != nil {
		return false
	}
	defer f.Close()
	props, err := linkbench.ReadProperties(f)
	if err != nil {
		return false
	}
	for _, p := range props {
		if p.Key == "port" && strings.TrimSpace(p.Value) != "" {
			return true
		}
	}
	return false
}

// pebbleOptions builds the Pebble store's options from the pebble_* keys
// (the directory is -dsn's, or a temporary one: Dir is left empty).
// Errors are usage errors (exit status 2) naming the key and the values
// it takes.
func pebbleOptions(o *options, cfg *linkbench.Config) (pebblestore.Options, error) {
	if d := o.dsn; d != "" && (isPostgresDSN(d) || strings.Contains(d, "@tcp(") || strings.Contains(d, "@unix(") || strings.HasSuffix(d, "@/")) {
		// A server's DSN given to the default store: a forgotten -store.
		return pebblestore.Options{}, usageError{fmt.Errorf("-dsn %s: a database server's DSN, but the store is pebble (a directory): add -store mysql or -store postgres", describe(redactedDSN(d)))}
	}
	k := cfg.Store.Pebble
	var text []string
	for _, kv := range []struct{ key, value string }{
		{"compression", k.Compression}, {"block_size", k.BlockSize}, {"cache_size", k.CacheSize},
		{"bloom_bits_per_key", k.BloomBitsPerKey}, {"mem_table_size", k.MemTableSize},
		{"l0_compaction_threshold", k.L0CompactionThreshold}, {"l0_stop_writes_threshold", k.L0StopWritesThreshold},
		{"compaction_concurrency", k.CompactionConcurrency}, {"wal_sync", k.WALSync}, {"options_file", k.OptionsFile},
	} {
		if v := strings.TrimSpace(kv.value); v != "" {
			text = append(text, kv.key+"="+strconv.Quote(v))
		}
	}
	opts, err := pebblestore.ParseOptions(strings.Join(text, " "))
	if err == nil {
		// The directory is openPebble's: any stands in for the check.
		opts.Dir = "."
		err = opts.Validate()
		opts.Dir = ""
	}
	if err != nil {
		return opts, usageError{pebbleKeyError(err)}
	}
	opts.Logger = cfg.Logger
	return opts, nil
}

// openPebble opens the Pebble store in -dsn's directory (created if
// missing, kept), or in a fresh temporary directory removed once the store
// is closed. A directory another process (or store) has open is refused
// with a usage error.
func openPebble(ctx context.Context, o *options, cfg *linkbench.Config) (store.Store, string, func() error, error) {
	opts, err := pebbleOptions(o, cfg)
	if err != nil {
		return nil, "", nil, err
	}
	dir, temp := o.dsn, o.dsn == ""
	if !temp && !o.load {
		// -r or -verify alone: the database must be there (an empty one
		// would be created, then refused).
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil, "", nil, usageError{fmt.Errorf("-dsn %s: no such directory: load a graph into it first with -store pebble -dsn %s -l", dir, dir)}
		}
	}
	if temp {
		if dir, err = os.MkdirTemp("", "linkbench-pebble-"); err != nil {
			return nil, "", nil, fmt.Errorf("pebble store: temporary directory: %w", err)
		}
	}
	removeTemp := func() error {
		if !temp {
			return nil
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("pebble store: remove the temporary directory: %w", err)
		}
		return nil
	}
	opts.Dir = dir
	st, err := store.Open(ctx, pebblestore.Name, "", store.WithDriverOptions(opts))
	if err != nil {
		_ = removeTemp()
		if errors.Is(err, pebblestore.ErrLocked) {
			return nil, "", nil, usageError{fmt.Errorf("-dsn %s: the directory is in use by another linkbench (or Pebble) process; wait for it to end or use another directory", dir)}
		}
		var oe *pebblestore.OptionError
		if errors.As(err, &oe) {
			return nil, "", nil, usageError{pebbleKeyError(err)}
		}
		return nil, "", nil, fmt.Errorf("pebble store: %w", err)
	}
	s := st.(*pebblestore.Store)
	eff := s.Options()
	desc := fmt.Sprintf("pebble %s compression=%s block_size=%d cache_size=%d wal_sync=%s", dir, eff.Compression, eff.BlockSize, eff.CacheSize, eff.Sync)
	if temp {
		desc = fmt.Sprintf("pebble %s (a temporary directory, removed at the end; -dsn DIR keeps the database) compression=%s block_size=%d cache_size=%d wal_sync=%s",
			dir, eff.Compression, eff.BlockSize, eff.CacheSize, eff.Sync)
	}
	return s, desc, removeTemp, nil
}

// pebbleKeyError turns the Pebble store's option errors into one error
// naming the first option's pebble_* key, the value and the values it
// takes.
func pebbleKeyError(err error) error {
	var oe *pebblestore.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	key := "pebble_" + oe.Key
	value := oe.Value
	if v, uerr := strconv.Unquote(value); uerr == nil {
		value = v
	}
	reason := "must be " + oe.Want
	if strings.HasPrefix(oe.Want, "not ") || strings.HasPrefix(oe.Want, "out of") {
		// A malformed value: the key's allowed values say more.
		reason = "is " + oe.Want
		for _, k := range linkbench.Keys() {
			if k.Name == key {
				reason += "; allowed: " + k.Allowed
			}
		}
	}
	return &linkbench.ConfigError{Key: key, Value: value, Reason: reason}
}

// redactedDSN returns a DSN with its password redacted, in the form of
// the store it is for.
func redactedDSN(dsn string) string {
	r, _ := redactDSN(dsn)
	return r
}
