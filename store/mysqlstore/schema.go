package mysqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/linkbench-go/linkbench/store"
)

// DefaultInnoDBPartitions is the number of KEY(id1) partitions of the
// InnoDB link table in LinkBench's README schema (reference §3.1).
const DefaultInnoDBPartitions = 16

// SchemaOptions configure CreateSchema.
type SchemaOptions struct {
	// Engine of the three tables (default: Options.Engine).
	Engine Engine
	// Partitions is the number of PARTITION BY KEY(id1) partitions of the
	// link table: 0 selects the engine's default (DefaultInnoDBPartitions
	// for InnoDB, as LinkBench's README; none for ROCKSDB, as the MyRocks
	// schema), a negative value none. With ROCKSDB and partitions, every
	// partition gets the column families (per-partition "pN_cfname=" index
	// comments; MariaDB ignores a plain index comment on a partitioned
	// table).
	Partitions int
	// DeferSecondaryIndex creates the link table without its id1_type
	// index, for a faster load (LinkBench README's tip): add it with
	// CreateSecondaryIndex before the request phase (GetLinkList needs it).
	DeferSecondaryIndex bool
	// IfNotExists leaves existing tables alone instead of failing.
	IfNotExists bool
}

// CreateSchema creates database db (db == "" means this Store's database)
// if it does not exist, and LinkBench's three tables in it, named by
// Options.LinkTable, CountTable and NodeTable:
//
//   - InnoDB: the schema of LinkBench's README (reference §3.1): latin1,
//     link primary key (link_type, id1, id2), secondary key id1_type
//     (id1, link_type, visibility, time, id2, version, data), link table
//     partitioned by KEY(id1) into 16.
//   - ROCKSDB (MyRocks): the same columns and keys with the binary
//     collation latin1_bin, the primary key in column family cf_link_pk
//     and id1_type in the reverse-ordered column family
//     rev:cf_link_id1_type (after the MyRocks documentation's LinkBench
//     schema, without its two unused columns id1_type and id2_type).
//   - SPIDER (the server is a Spider head): the InnoDB schema in database
//     db of each of Options.SpiderDataNodes, and on the head SPIDER tables
//     partitioned by HASH(id1) (links) and HASH(id) (counts, nodes), a
//     partition per data node, so that a link and its count row live on
//     one node (see docs/spider.md). DeferSecondaryIndex is refused.
//
// Display widths (BIGINT(20)) are left out: they change nothing and MySQL
// 8 deprecates them. Errors: an existing table (unless opts.IfNotExists),
// an engine the server lacks, or the server's error, wrapped.
func (s *Store) CreateSchema(ctx context.Context, db string, opts SchemaOptions) error {
	if err := s.check(ctx, "CreateSchema"); err != nil {
		return err
	}
	if db == "" {
		db = s.name
	}
	if err := checkIdent(db); err != nil {
		return fmt.Errorf("mysqlstore: CreateSchema: %w", err)
	}
	if opts.Engine == "" {
		opts.Engine = s.c.opts.Engine
	}
	if opts.Engine != InnoDB && opts.Engine != RocksDB && opts.Engine != Spider {
		return fmt.Errorf("mysqlstore: CreateSchema: engine %q: want InnoDB, ROCKSDB or SPIDER", opts.Engine)
	}
	if opts.Engine == RocksDB && s.c.galera {
		return errRocksDBGalera
	}
	parts := opts.Partitions
	if parts == 0 && opts.Engine == InnoDB {
		parts = DefaultInnoDBPartitions
	}
	parts = max(parts, 0)
	// Check the engine first, so that a server without it is refused
	// before anything is created.
	var support string
	err := s.c.db.QueryRowContext(ctx, "SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE = ?",
		string(opts.Engine)).Scan(&support)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return s.ddlErr("CreateSchema", err)
	}
	if support != "YES" && support != "DEFAULT" {
		if opts.Engine == Spider {
			return fmt.Errorf("mysqlstore: CreateSchema: the server has no SPIDER engine (MariaDB: install mariadb-plugin-spider and start the server with --plugin-load-add=ha_spider.so)")
		}
		return fmt.Errorf("mysqlstore: CreateSchema: the server has no %s engine (MariaDB: install mariadb-plugin-rocksdb and load ha_rocksdb)", opts.Engine)
	}
	q := newQueries(&s.c.opts, db)
	if opts.Engine == Spider {
		if err := s.createSpider(ctx, q, db, opts); err != nil {
			return s.ddlErr("CreateSchema", err)
		}
		s.resetStatements(db)
		return s.checkExisting(ctx, db, opts)
	}
	stmts := []string{"CREATE DATABASE IF NOT EXISTS " + q.db}
	stmts = append(stmts, createTables(q, opts.Engine, parts, !opts.DeferSecondaryIndex, opts.IfNotExists)...)
	conn, err := s.c.db.Conn(ctx)
	if err != nil {
		return s.ddlErr("CreateSchema", err)
	}
	defer conn.Close()
	for _, st := range stmts {
		if _, err := conn.ExecContext(ctx, st); err != nil {
			return s.ddlErr("CreateSchema", fmt.Errorf("%s: %w", firstLine(st), err))
		}
	}
	s.resetStatements(db)
	if err := s.awaitNodes(ctx, q); err != nil {
		return s.ddlErr("CreateSchema", err)
	}
	return s.checkExisting(ctx, db, opts)
}

// checkExisting refuses, with opts.IfNotExists, tables that were already
// there in another engine than the one asked for: a run on them is
// labelled and configured (isolation) by it.
func (s *Store) checkExisting(ctx context.Context, db string, opts SchemaOptions) error {
	if !opts.IfNotExists {
		return nil
	}
	e, err := s.TableEngine(ctx, db)
	if err != nil {
		return s.ddlErr("CreateSchema", err)
	}
	if e != opts.Engine {
		return fmt.Errorf("mysqlstore: CreateSchema: %w", &EngineMismatchError{Table: db + "." + s.c.opts.LinkTable, Have: e, Want: opts.Engine})
	}
	return nil
}

// EnsureSchema creates database name and LinkBench's tables in it if they
// do not exist (store.SchemaCreator): CreateSchema with IfNotExists, in
// Options.Engine, without id1_type when o.DeferIndex. Existing tables of
// another engine are refused with an *EngineMismatchError.
func (s *Store) EnsureSchema(ctx context.Context, name string, o store.SchemaOptions) error {
	return s.CreateSchema(ctx, name, SchemaOptions{IfNotExists: true, DeferSecondaryIndex: o.DeferIndex})
}

// CreateDeferredIndex adds the link table's id1_type index in database
// name after a load into tables EnsureSchema created with DeferIndex
// (store.SchemaCreator): CreateSecondaryIndex.
func (s *Store) CreateDeferredIndex(ctx context.Context, name string) error {
	return s.CreateSecondaryIndex(ctx, name)
}

// EngineMismatchError reports a link table whose storage engine is not the
// one the run was configured for (Options.Engine, LinkBench's engine key).
type EngineMismatchError struct {
	Table string // database.table
	Have  Engine // the table's engine, as information_schema names it
	Want  Engine
}

// Error implements error.
func (e *EngineMismatchError) Error() string {
	return fmt.Sprintf("table %s exists with engine %s, not %s: set the engine to match or drop the tables", e.Table, e.Have, e.Want)
}

// TableEngine returns the storage engine of db's link table (db == "" means
// this Store's database): InnoDB, RocksDB, or the server's name of another
// engine; "" with a nil error when the table does not exist. Errors: the
// server's error, wrapped.
func (s *Store) TableEngine(ctx context.Context, db string) (Engine, error) {
	if db == "" {
		db = s.name
	}
	var eng string
	err := s.c.db.QueryRowContext(ctx,
		"SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
		db, s.c.opts.LinkTable).Scan(&eng)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("mysqlstore: TableEngine: %w", err)
	case strings.EqualFold(eng, string(RocksDB)):
		return RocksDB, nil
	case strings.EqualFold(eng, string(InnoDB)):
		return InnoDB, nil
	case strings.EqualFold(eng, string(Spider)):
		return Spider, nil
	}
	return Engine(eng), nil
}

// createTables returns the CREATE TABLE statements.
func createTables(q *queries, e Engine, parts int, index, ifNotExists bool) []string {
	create := "CREATE TABLE "
	if ifNotExists {
		create += "IF NOT EXISTS "
	}
	tail := ") ENGINE=" + string(e) + " DEFAULT CHARSET=latin1"
	if e == RocksDB {
		tail += " COLLATE=latin1_bin"
	}
	link := create + q.link + " (\n" +
		"  id1 BIGINT UNSIGNED NOT NULL DEFAULT '0',\n" +
		"  id2 BIGINT UNSIGNED NOT NULL DEFAULT '0',\n" +
		"  link_type BIGINT UNSIGNED NOT NULL DEFAULT '0',\n" +
		"  visibility TINYINT NOT NULL DEFAULT '0',\n" +
		"  data VARCHAR(255) NOT NULL DEFAULT '',\n" +
		"  time BIGINT UNSIGNED NOT NULL DEFAULT '0',\n" +
		"  version INT UNSIGNED NOT NULL DEFAULT '0',\n" +
		"  PRIMARY KEY (link_type, id1, id2)" + cfComment(e, parts, "cf_link_pk")
	if index {
		link += ",\n  " + id1TypeKey(e, parts)
	}
	link += "\n" + tail
	if parts > 0 {
		link += " PARTITION BY KEY(id1) PARTITIONS " + strconv.Itoa(parts)
	}
	count := create + q.cnt + " (\n" +
		"  id BIGINT UNSIGNED NOT NULL DEFAULT '0',\n" +
		"  link_type BIGINT UNSIGNED NOT NULL DEFAULT '0',\n" +
		"  count INT UNSIGNED NOT NULL DEFAULT '0',\n" +
		"  time BIGINT UNSIGNED NOT NULL DEFAULT '0',\n" +
		"  version BIGINT UNSIGNED NOT NULL DEFAULT '0',\n" +
		"  PRIMARY KEY (id, link_type)\n" + tail
	node := create + q.node + " (\n" +
		"  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,\n" +
		"  type INT UNSIGNED NOT NULL,\n" +
		"  version BIGINT UNSIGNED NOT NULL,\n" +
		"  time INT UNSIGNED NOT NULL,\n" +
		"  data MEDIUMTEXT NOT NULL,\n" +
		"  PRIMARY KEY (id)\n" + tail
	return []string{link, count, node}
}

// id1TypeKey is the link table's secondary key definition.
func id1TypeKey(e Engine, parts int) string {
	return "KEY id1_type (id1, link_type, visibility, time, id2, version, data)" +
		cfComment(e, parts, "rev:cf_link_id1_type")
}

// cfComment is the COMMENT that puts a ROCKSDB index into column family
// cf ("" for InnoDB).
func cfComment(e Engine, parts int, cf string) string {
	if e != RocksDB {
		return ""
	}
	if parts <= 0 {
		return " COMMENT '" + cf + "'"
	}
	var b strings.Builder
	b.WriteString(" COMMENT '")
	for i := range parts {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString("p" + strconv.Itoa(i) + "_cfname=" + cf)
	}
	b.WriteByte('\'')
	return b.String()
}

// firstLine returns the first line of a statement, for error messages.
func firstLine(st string) string {
	if i := strings.IndexByte(st, '\n'); i >= 0 {
		st = st[:i]
	}
	return strings.TrimRight(st, " (")
}

// ddlErr wraps a schema method's error.
func (s *Store) ddlErr(what string, err error) error {
	return s.c.red().Err(fmt.Errorf("mysqlstore: %s: %w", what, err))
}

// resetStatements makes the sessions of database db's view (if any)
// prepare their statements again after DDL.
func (s *Store) resetStatements(db string) {
	if v, ok := s.c.eng.Made(db).(*Store); ok {
		v.q.gen.Add(1)
	}
}

// tableInfo returns the engine and number of partitions of the link table
// of db.
func (s *Store) tableInfo(ctx context.Context, db string) (Engine, int, error) {
	var eng string
	err := s.c.db.QueryRowContext(ctx,
		"SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
		db, s.c.opts.LinkTable).Scan(&eng)
	if err == sql.ErrNoRows {
		return "", 0, fmt.Errorf("no table %s.%s", db, s.c.opts.LinkTable)
	}
	if err != nil {
		return "", 0, err
	}
	var parts int
	err = s.c.db.QueryRowContext(ctx,
		"SELECT COUNT(*) FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND PARTITION_NAME IS NOT NULL",
		db, s.c.opts.LinkTable).Scan(&parts)
	if err != nil {
		return "", 0, err
	}
	if strings.EqualFold(eng, string(RocksDB)) {
		return RocksDB, parts, nil
	}
	return Engine(eng), parts, nil
}

// CreateSecondaryIndex adds the link table's id1_type index of db (db ==
// "" means this Store's database), in the form CreateSchema uses for the
// table's engine and partitioning: after a load into a schema created
// with DeferSecondaryIndex. Errors: a missing table, an existing index, or
// the server's error, wrapped.
func (s *Store) CreateSecondaryIndex(ctx context.Context, db string) error {
	return s.alterIndex(ctx, "CreateSecondaryIndex", db, true)
}

// DropSecondaryIndex drops the link table's id1_type index of db (db ==
// "" means this Store's database), LinkBench README's tip before a load.
// GetLinkList fails until CreateSecondaryIndex restores it.
func (s *Store) DropSecondaryIndex(ctx context.Context, db string) error {
	return s.alterIndex(ctx, "DropSecondaryIndex", db, false)
}

func (s *Store) alterIndex(ctx context.Context, what, db string, add bool) error {
	if err := s.check(ctx, what); err != nil {
		return err
	}
	if db == "" {
		db = s.name
	}
	if err := checkIdent(db); err != nil {
		return fmt.Errorf("mysqlstore: %s: %w", what, err)
	}
	q := newQueries(&s.c.opts, db)
	e, parts, err := s.tableInfo(ctx, db)
	if err != nil {
		return s.ddlErr(what, err)
	}
	if strings.EqualFold(string(e), string(Spider)) {
		return fmt.Errorf("mysqlstore: %s: %s.%s is a SPIDER table: ALTER TABLE on it copies the remote rows through the head; change the index on the data nodes", what, db, s.c.opts.LinkTable)
	}
	st := "ALTER TABLE " + q.link + " DROP KEY id1_type"
	if add {
		st = "ALTER TABLE " + q.link + " ADD " + id1TypeKey(e, parts)
	}
	if _, err := s.c.db.ExecContext(ctx, st); err != nil {
		return s.ddlErr(what, err)
	}
	s.resetStatements(db)
	return nil
}

// DropSchema drops the three tables of db (db == "" means this Store's
// database) if they exist, then the database itself if no other table is
// left in it. When the link table is a SPIDER table (dropping it leaves the
// remote tables), it does the same on each of Options.SpiderDataNodes and
// drops the head's servers of db. Errors: the server's error, wrapped.
func (s *Store) DropSchema(ctx context.Context, db string) error {
	if err := s.check(ctx, "DropSchema"); err != nil {
		return err
	}
	if db == "" {
		db = s.name
	}
	if err := checkIdent(db); err != nil {
		return fmt.Errorf("mysqlstore: DropSchema: %w", err)
	}
	q := newQueries(&s.c.opts, db)
	s.resetStatements(db)
	conn, err := s.c.db.Conn(ctx)
	if err != nil {
		return s.ddlErr("DropSchema", err)
	}
	defer conn.Close()
	var n int
	err = conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", db).Scan(&n)
	if err != nil {
		return s.ddlErr("DropSchema", err)
	}
	if n == 0 {
		return nil
	}
	eng, err := s.TableEngine(ctx, db)
	if err != nil {
		return s.ddlErr("DropSchema", err)
	}
	if _, err := conn.ExecContext(ctx, "DROP TABLE IF EXISTS "+q.link+", "+q.cnt+", "+q.node); err != nil {
		return s.ddlErr("DropSchema", err)
	}
	if eng == Spider {
		if err := s.dropSpider(ctx, q, db); err != nil {
			return s.ddlErr("DropSchema", err)
		}
	}
	err = conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", db).Scan(&n)
	if err != nil {
		return s.ddlErr("DropSchema", err)
	}
	if n == 0 {
		if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+q.db); err != nil {
			return s.ddlErr("DropSchema", err)
		}
	}
	return nil
}
