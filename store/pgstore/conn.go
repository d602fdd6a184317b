package pgstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// PostgreSQL type OIDs of the integers the store encodes in binary
// (bytea values are their bytes).
const (
	oidInt8 = 20
	oidInt2 = 21
	oidInt4 = 23
)

// Binary format codes.
var (
	fmtBinary = []int16{1}
)

// conn is the connection of a session: a *pgx.Conn whose statements are
// prepared once and executed through pgconn (binary parameters and
// results, no per-call statement lookup), with reusable buffers. A conn is
// used by one goroutine at a time.
type conn struct {
	pc *pgx.Conn
	pg *pgconn.PgConn
	q  *queries
	sd [numStmts]*pgconn.StatementDescription

	enc encoder
	// Results of the last batch: rows affected per statement.
	affected [8]int64
	seq      string // the node id sequence, qualified and quoted ("" until needed)
	// watch is the session's context watch: calls with the context it
	// follows reach pgconn as context.Background() (see Session.calls).
	watch   *sqlstore.Watch
	temps   [3]bool
	copyBuf []byte
}

// prepared reports whether the statements are prepared.
func (c *conn) prepared() bool { return c.sd[0] != nil }

// prepare prepares every statement of the schema in one round trip (a
// pipeline of Parse and Describe messages and one Sync).
func (c *conn) prepare(ctx context.Context) error {
	p := c.pg.StartPipeline(ctx)
	for i, text := range c.q.text {
		p.SendPrepare(stmtNames[i], text, nil)
	}
	if err := p.Sync(); err != nil {
		p.Close()
		return err
	}
	var sds [numStmts]*pgconn.StatementDescription
	var firstErr error
	for i := 0; i <= numStmts; i++ {
		res, err := p.GetResults()
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				break
			}
			continue
		}
		switch r := res.(type) {
		case *pgconn.StatementDescription:
			if i < numStmts {
				// The pipeline's description leaves the name out.
				r.Name, r.SQL = stmtNames[i], c.q.text[i]
				sds[i] = r
			}
		case *pgconn.PipelineSync:
			i = numStmts
		case nil:
			i = numStmts
		}
	}
	if err := p.Close(); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		if !c.pg.IsClosed() {
			// Names of statements that were prepared before the failure
			// would collide on the next attempt.
			_ = c.pg.Exec(ctx, "DEALLOCATE ALL").Close()
		}
		return firstErr
	}
	for i, sd := range sds {
		if sd == nil {
			return fmt.Errorf("pgstore: statement %d was not prepared", i)
		}
	}
	c.sd = sds
	return nil
}

// pctx returns the context to pass to pgconn for a call with ctx:
// context.Background() when the session's watch covers ctx.
func (c *conn) pctx(ctx context.Context) context.Context {
	if c.watch.Current(ctx) {
		return context.Background()
	}
	return ctx
}

// txOpen reports whether the connection is inside a transaction block
// (open or failed), as of its last ReadyForQuery.
func (c *conn) txOpen() bool { return c.pg.TxStatus() != 'I' }

// encoder builds the binary parameters of one statement in a reusable
// buffer: integers in the type the server gave each parameter.
type encoder struct {
	buf  []byte
	offs []int
	vals [][]byte
	oids []uint32 // the statement's parameter types
	err  error
}

// args starts the parameters of statement id.
func (c *conn) args(id int) *encoder {
	e := &c.enc
	if e.buf == nil {
		e.buf = make([]byte, 0, 512)
	}
	e.buf = e.buf[:0]
	e.offs = e.offs[:0]
	e.err = nil
	e.oids = c.sd[id].ParamOIDs
	return e
}

// next records the end of a parameter.
func (e *encoder) next() { e.offs = append(e.offs, len(e.buf)) }

// params returns the parameters encoded since args, valid until the next
// args; the error of any of them, if one did not fit its type or their
// number is not the statement's.
func (e *encoder) params() ([][]byte, error) {
	e.vals = e.vals[:0]
	start := 0
	for _, end := range e.offs {
		e.vals = append(e.vals, e.buf[start:end:end])
		start = end
	}
	if e.err == nil && len(e.vals) != len(e.oids) {
		e.err = fmt.Errorf("pgstore: statement takes %d parameters, %d given", len(e.oids), len(e.vals))
	}
	return e.vals, e.err
}

// int appends v as the integer type of the next parameter (int2, int4 or
// int8).
func (e *encoder) int(v int64) *encoder {
	var oid uint32
	if k := len(e.offs); k < len(e.oids) {
		oid = e.oids[k]
	}
	var err error
	e.buf, err = appendInt(e.buf, oid, v)
	if err != nil && e.err == nil {
		e.err = err
	}
	e.next()
	return e
}

// bytes appends b as a bytea.
func (e *encoder) bytes(b []byte) *encoder {
	e.buf = append(e.buf, b...)
	e.next()
	return e
}

// int8Array appends vs as a one-dimensional int8[] without NULLs.
func (e *encoder) int8Array(vs []int64) *encoder {
	e.buf = binary.BigEndian.AppendUint32(e.buf, 1) // dimensions
	e.buf = binary.BigEndian.AppendUint32(e.buf, 0) // no NULLs
	e.buf = binary.BigEndian.AppendUint32(e.buf, oidInt8)
	e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(len(vs)))
	e.buf = binary.BigEndian.AppendUint32(e.buf, 1) // lower bound
	for _, v := range vs {
		e.buf = binary.BigEndian.AppendUint32(e.buf, 8)
		e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(v))
	}
	e.next()
	return e
}

// appendInt appends v in the binary format of integer type oid.
func appendInt(b []byte, oid uint32, v int64) ([]byte, error) {
	switch oid {
	case oidInt8:
		return binary.BigEndian.AppendUint64(b, uint64(v)), nil
	case oidInt4:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return binary.BigEndian.AppendUint32(b, 0), fmt.Errorf("pgstore: value %d out of range of an int4 column", v)
		}
		return binary.BigEndian.AppendUint32(b, uint32(int32(v))), nil
	case oidInt2:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return binary.BigEndian.AppendUint16(b, 0), fmt.Errorf("pgstore: value %d out of range of an int2 column", v)
		}
		return binary.BigEndian.AppendUint16(b, uint16(int16(v))), nil
	}
	return b, fmt.Errorf("pgstore: column of type OID %d where an integer (int2, int4, int8) is expected", oid)
}

// getInt decodes a binary int2, int4 or int8 value.
func getInt(v []byte) (int64, error) {
	switch len(v) {
	case 8:
		return int64(binary.BigEndian.Uint64(v)), nil
	case 4:
		return int64(int32(binary.BigEndian.Uint32(v))), nil
	case 2:
		return int64(int16(binary.BigEndian.Uint16(v))), nil
	}
	if v == nil {
		return 0, errors.New("pgstore: unexpected NULL")
	}
	return 0, fmt.Errorf("pgstore: integer value of %d bytes", len(v))
}

// batch is a group of statements sent in one round trip.
type batch struct {
	b pgconn.Batch
	n int
}

// add appends statement id to the batch, with the parameters encoded
// since c.args(id) (none for a statement without parameters).
// Transaction control (BEGIN, COMMIT, ROLLBACK) is sent as text in the
// batch (Parse, Bind, Execute of an unnamed statement): it has no plan to
// keep, and pg_stat_statements counts a prepared utility statement only
// at its first execution, which would hide it from the statement test.
func (c *conn) add(b *batch, id int) error {
	if id <= sRollback {
		b.b.ExecParams(c.q.text[id], nil, nil, nil, nil)
		b.n++
		return nil
	}
	var vals [][]byte
	if len(c.sd[id].ParamOIDs) > 0 {
		var err error
		if vals, err = c.enc.params(); err != nil {
			return err
		}
	}
	b.b.ExecStatement(c.sd[id], vals, fmtBinary, fmtBinary)
	b.n++
	return nil
}

// run sends the batch and reads its results: row(i, values) is called for
// each row of statement i; c.affected[i] holds the rows affected by
// statement i. It returns the first error, and the index of the statement
// that failed (-1 if none or unknown).
func (c *conn) run(ctx context.Context, b *batch, row func(i int, vals [][]byte) error) (failed int, err error) {
	mrr := c.pg.ExecBatch(c.pctx(ctx), &b.b)
	i := 0
	failed = -1
	var rowErr error
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		for rr.NextRow() {
			if row != nil && rowErr == nil {
				rowErr = row(i, rr.Values())
			}
		}
		tag, err := rr.Close()
		if err != nil && failed < 0 {
			failed = i
		}
		if i < len(c.affected) {
			c.affected[i] = tag.RowsAffected()
		}
		i++
	}
	err = mrr.Close()
	if err != nil && failed < 0 {
		failed = i
	}
	if err == nil {
		err = rowErr
	}
	if err == nil && i != b.n {
		err = fmt.Errorf("pgstore: batch of %d statements returned %d results", b.n, i)
	}
	if err != nil && c.pg.IsClosed() && classifyConnless(err) {
		err = fmt.Errorf("%w: %w", errConnLost, err)
	}
	return failed, err
}

// classifyConnless reports whether err, from a closed connection, carries
// no SQLSTATE or network cause of its own.
func classifyConnless(err error) bool {
	cl, _ := classify(err)
	return cl == classFatal
}

// query runs the single statement id, with the parameters encoded since
// c.args(id), and calls row for each row.
func (c *conn) query(ctx context.Context, id int, row func(vals [][]byte) error) (int64, error) {
	vals, err := c.enc.params()
	if err != nil {
		return 0, err
	}
	rr := c.pg.ExecStatement(c.pctx(ctx), c.sd[id], vals, fmtBinary, fmtBinary)
	var rowErr error
	for rr.NextRow() {
		if row != nil && rowErr == nil {
			rowErr = row(rr.Values())
		}
	}
	tag, err := rr.Close()
	if err == nil {
		err = rowErr
	}
	if err != nil && c.pg.IsClosed() && classifyConnless(err) {
		err = fmt.Errorf("%w: %w", errConnLost, err)
	}
	return tag.RowsAffected(), err
}

// exec runs SQL text with the simple protocol (DDL, utility statements).
func (c *conn) exec(ctx context.Context, sql string) error {
	_, err := c.pg.Exec(c.pctx(ctx), sql).ReadAll()
	if err != nil && c.pg.IsClosed() && classifyConnless(err) {
		err = fmt.Errorf("%w: %w", errConnLost, err)
	}
	return err
}

// close closes the connection.
func (c *conn) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*1e9)
	defer cancel()
	_ = c.pc.Close(ctx)
}

// connConfig builds pgx's connection configuration from o and returns it
// with the redactor of its password.
func connConfig(o *Options) (*pgx.ConnConfig, sqlstore.Redactor, error) {
	dsn := o.DSN
	red := sqlstore.Redactor{}
	if dsn == "" {
		u := url.URL{Scheme: "postgres", Host: net.JoinHostPort(o.Host, strconv.Itoa(o.Port)), Path: "/" + o.DBName}
		if o.Password != "" {
			u.User = url.UserPassword(o.User, o.Password)
		} else if o.User != "" {
			u.User = url.User(o.User)
		}
		dsn = u.String()
		red.PW = o.Password
	} else {
		red.PW = dsnPassword(dsn)
	}
	red.DSN = RedactDSN(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, red, red.Err(fmt.Errorf("pgstore: DSN %s: %w", red.DSN, err))
	}
	if cfg.Password != "" {
		red.PW = cfg.Password
	}
	if cfg.Database == "" || (o.DSN != "" && !dsnNamesDatabase(o.DSN)) {
		cfg.Database = DefaultDBName
	}
	if o.DSN == "" && o.DBName != "" {
		cfg.Database = o.DBName
	}
	if cfg.ConnectTimeout == 0 || o.ConnectTimeout < cfg.ConnectTimeout {
		cfg.ConnectTimeout = o.ConnectTimeout
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = DefaultApplicationName
	}
	if o.Dialect != CockroachDB {
		cfg.RuntimeParams["default_transaction_isolation"] = strings.ToLower(o.Isolation)
	}
	// The store prepares and describes its statements itself and talks to
	// pgconn directly: pgx's caches would only hold memory.
	// pgx's own queries (checks, DDL) run as unnamed statements.
	cfg.StatementCacheCapacity = 0
	cfg.DescriptionCacheCapacity = 0
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	return cfg, red, nil
}

// dsnNamesDatabase reports whether a DSN names a database (a URL path or a
// dbname keyword); pgx would otherwise default it to the user name.
func dsnNamesDatabase(dsn string) bool {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		return err == nil && strings.TrimPrefix(u.Path, "/") != ""
	}
	for _, f := range strings.Fields(dsn) {
		if strings.HasPrefix(f, "dbname=") && len(f) > len("dbname=") {
			return true
		}
	}
	return false
}
