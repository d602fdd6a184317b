package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// SchemaOptions configure CreateSchema.
type SchemaOptions struct {
	// DeferSecondaryIndex creates the link table without its id1_type
	// index, for a faster load (LinkBench README's tip): add it with
	// CreateSecondaryIndex before the request phase.
	DeferSecondaryIndex bool
	// FullKeyIndex makes id1_type MD's index verbatim, every column a key
	// column: (id1, link_type, visibility, time, id2, version, data).
	// Without it, version and data are INCLUDEd columns (see CreateSchema).
	FullKeyIndex bool
	// IfNotExists leaves existing tables and indexes alone instead of
	// failing.
	IfNotExists bool
}

// CreateSchema creates schema name (name == "" means this Store's schema)
// if it does not exist, and LinkBench's three tables in it, named by
// Options.LinkTable, CountTable and NodeTable, after the PostgreSQL schema
// of MD's README and unit tests (reference §3.1): BIGINT ids, times and
// counts, SMALLINT visibility, INT version, BYTEA payloads, link primary
// key (link_type, id1, id2), count primary key (id, link_type), node id a
// BIGSERIAL, and the link table's covering index id1_type.
//
// id1_type is (id1, link_type, visibility, time, id2) INCLUDE (version,
// data): the same columns as MD's (id1, link_type, visibility, time, id2,
// version, data), so GetLinkList's range scan (equality on id1,
// link_type, visibility, then time descending) is answered from the index
// alone when the heap pages are all-visible, in the same order (ties by
// id2). The two trailing columns are stored in the leaf entries only:
// they never served the scan's order or filter, and keeping them out of
// the key keeps the payload out of the inner pages and out of every key
// comparison. SchemaOptions.FullKeyIndex creates MD's form instead.
//
// CockroachDB: the same tables with explicit integer widths, a sequence
// for the node id, STORING for the index's extra columns. YugabyteDB: the
// PostgreSQL schema with a node id sequence of CACHE 1 (see Dialect).
// Errors: an existing table (unless opts.IfNotExists), or the server's
// error, wrapped.
func (s *Store) CreateSchema(ctx context.Context, name string, opts SchemaOptions) error {
	if name == "" {
		name = s.name
	}
	if err := checkIdent(name); err != nil {
		return fmt.Errorf("pgstore: CreateSchema: %w", err)
	}
	q := newQueries(&s.c.opts, name)
	stmts := createStatements(q, &s.c.opts, opts)
	err := s.admin(ctx, sqlstore.OpSchema, func(c *conn) error {
		for _, st := range stmts {
			if err := c.exec(ctx, st); err != nil {
				return fmt.Errorf("%s: %w", firstLine(st), err)
			}
		}
		return nil
	})
	if err != nil {
		return s.ddlErr("CreateSchema", err)
	}
	return nil
}

// EnsureSchema creates schema name and LinkBench's tables in it if they do
// not exist (store.SchemaCreator): CreateSchema with IfNotExists, without
// id1_type when o.DeferIndex.
func (s *Store) EnsureSchema(ctx context.Context, name string, o store.SchemaOptions) error {
	return s.CreateSchema(ctx, name, SchemaOptions{IfNotExists: true, DeferSecondaryIndex: o.DeferIndex})
}

// CreateDeferredIndex adds the link table's id1_type index in schema name,
// if it is missing, after a load into tables EnsureSchema created with
// DeferIndex (store.SchemaCreator): CreateSecondaryIndex with IfNotExists.
func (s *Store) CreateDeferredIndex(ctx context.Context, name string) error {
	return s.CreateSecondaryIndex(ctx, name, SchemaOptions{IfNotExists: true})
}

// createStatements returns the DDL of CreateSchema.
func createStatements(q *queries, o *Options, opts SchemaOptions) []string {
	ine := ""
	if opts.IfNotExists {
		ine = "IF NOT EXISTS "
	}
	i2, i4, i8 := "SMALLINT", "INT", "BIGINT"
	if o.Dialect == CockroachDB {
		i2, i4, i8 = "INT2", "INT4", "INT8"
	}
	out := []string{"CREATE SCHEMA IF NOT EXISTS " + q.schema}
	out = append(out, "CREATE TABLE "+ine+q.link+" (\n"+
		"  id1 "+i8+" NOT NULL DEFAULT 0,\n"+
		"  id2 "+i8+" NOT NULL DEFAULT 0,\n"+
		"  link_type "+i8+" NOT NULL DEFAULT 0,\n"+
		"  visibility "+i2+" NOT NULL DEFAULT 0,\n"+
		"  data BYTEA NOT NULL,\n"+
		"  time "+i8+" NOT NULL DEFAULT 0,\n"+
		"  version "+i4+" NOT NULL DEFAULT 0,\n"+
		"  PRIMARY KEY (link_type, id1, id2)\n)")
	out = append(out, "CREATE TABLE "+ine+q.cnt+" (\n"+
		"  id "+i8+" NOT NULL DEFAULT 0,\n"+
		"  link_type "+i8+" NOT NULL DEFAULT 0,\n"+
		"  count "+i8+" NOT NULL DEFAULT 0,\n"+
		"  time "+i8+" NOT NULL DEFAULT 0,\n"+
		"  version "+i8+" NOT NULL DEFAULT 0,\n"+
		"  PRIMARY KEY (id, link_type)\n)")
	idCol := "id BIGSERIAL NOT NULL"
	if o.Dialect != PostgreSQL {
		seq := q.schema + "." + quoteIdent(q.nodeTable+"_id_seq")
		cache := ""
		if o.Dialect == YugabyteDB {
			cache = " CACHE 1"
		}
		out = append(out, "CREATE SEQUENCE "+ine+seq+cache)
		idCol = "id " + i8 + " NOT NULL DEFAULT nextval('" + strings.ReplaceAll(seq, "'", "''") + "')"
	}
	out = append(out, "CREATE TABLE "+ine+q.node+" (\n"+
		"  "+idCol+",\n"+
		"  type "+i4+" NOT NULL,\n"+
		"  version "+i8+" NOT NULL,\n"+
		"  time "+i4+" NOT NULL,\n"+
		"  data BYTEA NOT NULL,\n"+
		"  PRIMARY KEY (id)\n)")
	if !opts.DeferSecondaryIndex {
		out = append(out, indexStatement(q, o.Dialect, opts))
	}
	return out
}

// indexStatement is the CREATE INDEX of id1_type.
func indexStatement(q *queries, d Dialect, opts SchemaOptions) string {
	ine := ""
	if opts.IfNotExists {
		ine = "IF NOT EXISTS "
	}
	st := "CREATE INDEX " + ine + "id1_type ON " + q.link
	switch {
	case opts.FullKeyIndex:
		return st + " (id1, link_type, visibility, time, id2, version, data)"
	case d == CockroachDB:
		return st + " (id1, link_type, visibility, time DESC, id2) STORING (version, data)"
	}
	return st + " (id1, link_type, visibility, time, id2) INCLUDE (version, data)"
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
	return s.c.eng.Red().Err(fmt.Errorf("pgstore: %s: %w", what, err))
}

// CreateSecondaryIndex adds the link table's id1_type index in schema name
// (name == "" means this Store's schema), after a load into a schema
// created with DeferSecondaryIndex. opts.FullKeyIndex and
// opts.IfNotExists apply; the other fields are ignored. Errors: a missing
// table, an existing index (without IfNotExists), or the server's error,
// wrapped.
func (s *Store) CreateSecondaryIndex(ctx context.Context, name string, opts SchemaOptions) error {
	if name == "" {
		name = s.name
	}
	if err := checkIdent(name); err != nil {
		return fmt.Errorf("pgstore: CreateSecondaryIndex: %w", err)
	}
	st := indexStatement(newQueries(&s.c.opts, name), s.c.opts.Dialect, opts)
	if err := s.admin(ctx, sqlstore.OpSchema, func(c *conn) error { return c.exec(ctx, st) }); err != nil {
		return s.ddlErr("CreateSecondaryIndex", err)
	}
	return nil
}

// DropSecondaryIndex drops the link table's id1_type index in schema name
// (name == "" means this Store's schema), LinkBench README's tip before a
// load. GetLinkList then scans the table until CreateSecondaryIndex
// restores it.
func (s *Store) DropSecondaryIndex(ctx context.Context, name string) error {
	if name == "" {
		name = s.name
	}
	if err := checkIdent(name); err != nil {
		return fmt.Errorf("pgstore: DropSecondaryIndex: %w", err)
	}
	st := "DROP INDEX " + quoteIdent(name) + ".id1_type"
	if err := s.admin(ctx, sqlstore.OpSchema, func(c *conn) error { return c.exec(ctx, st) }); err != nil {
		return s.ddlErr("DropSecondaryIndex", err)
	}
	return nil
}

// DropSchema drops the three tables of schema name (name == "" means this
// Store's schema) if they exist, then the schema itself if nothing else
// is left in it. Errors: the server's error, wrapped.
func (s *Store) DropSchema(ctx context.Context, name string) error {
	if name == "" {
		name = s.name
	}
	if err := checkIdent(name); err != nil {
		return fmt.Errorf("pgstore: DropSchema: %w", err)
	}
	q := newQueries(&s.c.opts, name)
	stmts := []string{"DROP TABLE IF EXISTS " + q.link + ", " + q.cnt + ", " + q.node}
	if s.c.opts.Dialect != PostgreSQL {
		stmts = append(stmts, "DROP SEQUENCE IF EXISTS "+q.schema+"."+quoteIdent(q.nodeTable+"_id_seq"))
	}
	err := s.admin(ctx, sqlstore.OpSchema, func(c *conn) error {
		for _, st := range stmts {
			if err := c.exec(ctx, st); err != nil {
				return err
			}
		}
		err := c.exec(ctx, "DROP SCHEMA IF EXISTS "+q.schema)
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "2BP01" { // dependent_objects_still_exist: other tables
			return nil
		}
		return err
	})
	if err != nil {
		return s.ddlErr("DropSchema", err)
	}
	return nil
}
