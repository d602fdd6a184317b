package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/memstore"
	"github.com/linkbench-go/linkbench/store/mysqlstore"
	"github.com/linkbench-go/linkbench/store/pgstore"
)

// builtinStores are the stores this tool is built with, in the order its
// messages list them; a build that imports another store's package (whose
// init calls store.Register) can use that one too.
var builtinStores = []string{memstore.Name, discard.Name, mysqlstore.Name, pgstore.Name}

// storeNames lists the stores registered with the store package: the
// built-in ones first.
func storeNames() string {
	names := slices.Clone(builtinStores)
	for _, n := range store.Drivers() {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// storeName returns the store selected by -store or, without it, by the
// linkstore key: a name or alias registered with the store package
// (LinkBench class names accepted); memory by default.
func storeName(o *options, cfg *linkbench.Config) (string, error) {
	name := o.store
	key := "-store"
	if name == "" && cfg.Store.LinkStore != "" {
		name, key = cfg.Store.LinkStore, "linkstore"
	}
	if name == "" {
		return memstore.Name, nil
	}
	if reg, ok := store.Lookup(name); ok {
		return reg, nil
	}
	return "", usageError{fmt.Errorf("%s %q: unknown store (available: %s)", key, name, storeNames())}
}

// openedStore is a store with what the tool needs around it.
type openedStore struct {
	store.Store
	name  string // the registered name: memory, discard, mysql, postgres or another
	desc  string // for the report: never contains a password
	close func() error
	mysql *mysqlstore.Store // nil for the other stores
	pg    *pgstore.Store    // nil for the other stores
}

// mysqlOptions builds the MySQL store's options from -dsn or LinkBench's
// host, port, user, password keys, and the table, prefix and engine keys.
// Errors are usage errors (exit status 2): a malformed DSN, an unknown
// engine.
func mysqlOptions(o *options, cfg *linkbench.Config) (mysqlstore.Options, error) {
	opts := mysqlstore.Options{
		DSN:             o.dsn,
		Host:            cfg.Store.Host,
		Port:            cfg.Store.Port,
		User:            cfg.Store.User,
		Password:        cfg.Store.Password,
		DBPrefix:        cfg.DBPrefix,
		Database:        cfg.DBPrefix + "0",
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
		if _, err := mysql.ParseDSN(o.dsn); err != nil {
			return opts, usageError{fmt.Errorf("-dsn %s: %v", describe(mysqlstore.RedactDSN(o.dsn)), redact(err.Error(), o.dsn, cfg.Store.Password))}
		}
	}
	if cfg.Store.DBID != "" {
		// The original benchmark's dbid key names its single database.
		opts.Database = cfg.Store.DBID
	}
	engine := cfg.Store.Engine
	if engine == "" {
		engine = "innodb"
	}
	e, err := mysqlstore.ParseEngine(engine)
	if err != nil {
		return opts, usageError{&linkbench.ConfigError{Key: "engine", Value: engine, Reason: "must be innodb, rocksdb or myrocks"}}
	}
	opts.Engine = e
	if e == mysqlstore.RocksDB {
		// MyRocks LinkBench runs use READ COMMITTED (reference §3.1): in
		// REPEATABLE READ, MyRocks reports snapshot conflicts as deadlocks.
		opts.Isolation = "READ COMMITTED"
	}
	return opts, nil
}

// redact removes the password and the DSN from a message: the DSN is
// replaced by its redacted form, and the password wherever it stands as a
// token of its own (not inside a longer word, so that a short password does
// not mangle every message that happens to contain its letters).
func redact(msg, dsn, password string) string {
	if dsn != "" {
		redacted := mysqlstore.RedactDSN(dsn)
		if isPostgresDSN(dsn) {
			redacted = pgstore.RedactDSN(dsn)
		}
		msg = strings.ReplaceAll(msg, dsn, redacted)
		// Whichever store the DSN is for, every password it may hold is
		// masked.
		if cfg, err := mysql.ParseDSN(dsn); err == nil && cfg.Passwd != "" {
			msg = maskToken(msg, cfg.Passwd)
		}
		if pw := pgDSNPassword(dsn); pw != "" {
			msg = maskToken(msg, pw)
		}
	}
	if password != "" {
		msg = maskToken(msg, password)
	}
	return msg
}

// maskToken replaces each occurrence of tok in s that is not part of a
// longer run of letters and digits by "*****".
func maskToken(s, tok string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, tok)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(tok)
		inWord := (i > 0 && isWordByte(s[i-1]) && isWordByte(tok[0])) ||
			(end < len(s) && isWordByte(s[end]) && isWordByte(tok[len(tok)-1]))
		b.WriteString(s[:i])
		if inWord {
			b.WriteString(tok)
		} else {
			b.WriteString("*****")
		}
		s = s[end:]
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// openStore opens the store registered as name through the store
// registry (store.Open): the SQL stores with the options the keys and
// flags give, any other with -dsn.
func openStore(ctx context.Context, name string, o *options, cfg *linkbench.Config) (*openedStore, error) {
	switch name {
	case memstore.Name, discard.Name:
		s, err := store.Open(ctx, name, "")
		if err != nil {
			return nil, err
		}
		desc := "memory (in-process reference store)"
		if name == discard.Name {
			desc = "discard (stores nothing)"
		}
		return &openedStore{Store: s, name: name, desc: desc, close: func() error { return store.Close(s) }}, nil
	case mysqlstore.Name:
		opts, err := mysqlOptions(o, cfg)
		if err != nil {
			return nil, err
		}
		st, err := store.Open(ctx, name, "", store.WithDriverOptions(opts))
		if err != nil {
			return nil, fmt.Errorf("mysql store: %s", redact(err.Error(), o.dsn, cfg.Store.Password))
		}
		s := st.(*mysqlstore.Store)
		if err := checkTableEngines(ctx, s, opts, cfg); err != nil {
			s.Close()
			return nil, err
		}
		where := mysqlstore.RedactDSN(o.dsn)
		if o.dsn == "" {
			where = fmt.Sprintf("%s@%s:%d", opts.User, opts.Host, opts.Port)
		}
		return &openedStore{Store: s, name: name, mysql: s, close: s.Close,
			desc: fmt.Sprintf("mysql %s engine=%s databases=%s0..%s%d", where, opts.Engine, cfg.DBPrefix, cfg.DBPrefix, cfg.DBCount-1)}, nil
	case pgstore.Name:
		opts, err := pgOptions(o, cfg)
		if err != nil {
			return nil, err
		}
		st, err := store.Open(ctx, name, "", store.WithDriverOptions(opts))
		if err != nil {
			return nil, fmt.Errorf("postgres store: %s", redact(err.Error(), o.dsn, cfg.Store.Password))
		}
		s := st.(*pgstore.Store)
		return &openedStore{Store: s, name: name, pg: s, close: s.Close,
			desc: fmt.Sprintf("postgres %s dialect=%s isolation=%s schemas=%s0..%s%d", s.DSN(), opts.Dialect,
				strings.ToLower(strings.ReplaceAll(s.Isolation(), " ", "-")), cfg.DBPrefix, cfg.DBPrefix, cfg.DBCount-1)}, nil
	}
	// A store of another package registered by name: it gets -dsn and the
	// log. The DSN is never printed (it may hold a password).
	s, err := store.Open(ctx, name, o.dsn, store.WithLogger(cfg.Logger))
	if err != nil {
		// Its DSN's form is the store's own: the message never repeats it.
		msg := err.Error()
		if o.dsn != "" {
			msg = strings.ReplaceAll(msg, o.dsn, "<the -dsn>")
		}
		return nil, fmt.Errorf("%s store: %s", name, redact(msg, o.dsn, cfg.Store.Password))
	}
	desc := name
	if o.dsn != "" {
		desc += " (with -dsn)"
	}
	return &openedStore{Store: s, name: name, desc: desc, close: func() error { return store.Close(s) }}, nil
}

// databaseNames returns the names of the run's databases (MySQL
// databases, PostgreSQL schemas).
func databaseNames(cfg *linkbench.Config) []string {
	if cfg.DBCount == 1 && cfg.Store.DBID != "" {
		return []string{cfg.Store.DBID}
	}
	names := make([]string, cfg.DBCount)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", cfg.DBPrefix, i)
	}
	return names
}

// createSchema creates the databases and tables (IF NOT EXISTS) for every
// database of the run.
func (s *openedStore) createSchema(ctx context.Context, cfg *linkbench.Config, deferIndex bool) error {
	if s.pg != nil {
		for _, db := range databaseNames(cfg) {
			if err := s.pg.CreateSchema(ctx, db, pgstore.SchemaOptions{IfNotExists: true, DeferSecondaryIndex: deferIndex}); err != nil {
				return fmt.Errorf("create schema %s: %w", db, err)
			}
		}
		return nil
	}
	if s.mysql == nil {
		return nil // the embedded stores need no schema
	}
	for i := range cfg.DBCount {
		db := fmt.Sprintf("%s%d", cfg.DBPrefix, i)
		if err := s.mysql.CreateSchema(ctx, db, mysqlstore.SchemaOptions{IfNotExists: true, DeferSecondaryIndex: deferIndex}); err != nil {
			return fmt.Errorf("create schema %s: %w", db, err)
		}
	}
	return nil
}

// createSecondaryIndex adds id1_type after a load made with -defer-index.
func (s *openedStore) createSecondaryIndex(ctx context.Context, cfg *linkbench.Config) error {
	if s.pg != nil {
		for _, db := range databaseNames(cfg) {
			if err := s.pg.CreateSecondaryIndex(ctx, db, pgstore.SchemaOptions{IfNotExists: true}); err != nil {
				return fmt.Errorf("create index id1_type in %s: %w", db, err)
			}
		}
		return nil
	}
	if s.mysql == nil {
		return nil
	}
	for i := range cfg.DBCount {
		db := fmt.Sprintf("%s%d", cfg.DBPrefix, i)
		if err := s.mysql.CreateSecondaryIndex(ctx, db); err != nil {
			return fmt.Errorf("create index id1_type in %s: %w", db, err)
		}
	}
	return nil
}

// hasData reports whether a MySQL database of the run already holds a
// graph, and which (the embedded stores start empty).
func (s *openedStore) hasData(ctx context.Context, cfg *linkbench.Config) (string, bool, error) {
	if s.pg != nil {
		for _, db := range databaseNames(cfg) {
			v, err := s.pg.Database(ctx, db)
			if err != nil {
				return "", false, err
			}
			full, err := v.(*pgstore.Store).HasData(ctx)
			if err != nil || full {
				return db, full, err
			}
		}
		return "", false, nil
	}
	if s.mysql == nil {
		return "", false, nil
	}
	dbs := []*mysqlstore.Store{s.mysql}
	for i := 1; i < cfg.DBCount; i++ {
		v, err := s.mysql.Database(ctx, fmt.Sprintf("%s%d", cfg.DBPrefix, i))
		if err != nil {
			return "", false, err
		}
		dbs = append(dbs, v.(*mysqlstore.Store))
	}
	for _, db := range dbs {
		full, err := db.HasData(ctx)
		if err != nil || full {
			return db.Name(), full, err
		}
	}
	return "", false, nil
}

// counters returns the store's event counters (retries, errors by number).
func (s *openedStore) counters() map[string]int64 {
	m := map[string]int64{}
	if s.pg != nil {
		for _, c := range s.pg.Counters() {
			m[c.Name] = c.Value
		}
		return m
	}
	if s.mysql == nil {
		return nil
	}
	for _, c := range s.mysql.Counters() {
		m[c.Name] = c.Value
	}
	return m
}

// counterDelta returns the counters that grew between two snapshots, in
// name order (max_retries.* counters are maxima: their new value is kept).
func counterDelta(before, after map[string]int64) []stats.Counter {
	var out []stats.Counter
	for name, v := range after {
		d := v - before[name]
		if strings.HasPrefix(name, "max_retries.") {
			d = v
		}
		if d != 0 {
			out = append(out, stats.Counter{Name: name, Value: d})
		}
	}
	slices.SortFunc(out, func(a, b stats.Counter) int { return strings.Compare(a.Name, b.Name) })
	return out
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
	for _, db := range databaseNames(cfg) {
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

// isBuiltinStore reports whether name is one of the stores this tool is
// built with (those take no -dsn unless they are SQL stores).
func isBuiltinStore(name string) bool { return slices.Contains(builtinStores, name) }
