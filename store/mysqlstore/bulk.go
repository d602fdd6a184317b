package mysqlstore

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// erSpecificAccessDenied is ER_SPECIFIC_ACCESS_DENIED_ERROR (1227): a
// statement needs a privilege the user lacks.
const erSpecificAccessDenied = 1227

// rowOverhead is the bytes counted per row, besides its payload, against
// Options.MaxStatementBytes.
const rowOverhead = 64

// bulkKind describes one kind of bulk insert.
type bulkKind struct {
	o    sqlstore.Op
	full int                                      // statement id of the BulkInsertCount-row statement
	sql  func(n int) string                       // the statement for n rows
	size func(i int) int                          // payload bytes of row i
	row  func([]driver.Value, int) []driver.Value // appends row i's parameters
}

// AddBulkLinks inserts links with multi-row INSERTs of up to
// Options.BulkInsertCount rows on the read (autocommit) connection,
// without touching the count table (reference §3.3 addBulkLinks). An
// existing link is overwritten (an upsert, so that a re-load or a retried
// batch does not fail: reference §11.2-27). A call of more rows, or of
// more payload than Options.MaxStatementBytes, runs several INSERTs in one
// transaction. An empty slice does nothing. noInverse is ignored.
func (ss *Session) AddBulkLinks(ctx context.Context, links []store.Link, noInverse bool) error {
	if len(links) == 0 {
		return ss.calls.Enter(ctx, sqlstore.OpAddBulkLinks)
	}
	k := bulkKind{
		o: sqlstore.OpAddBulkLinks, full: sBulkLinks, sql: ss.v.q.bulkLinksSQL,
		size: func(i int) int { return len(links[i].Data) },
		row: func(a []driver.Value, i int) []driver.Value {
			l := &links[i]
			return append(a, l.ID1, l.ID2, l.LinkType, int64(l.Visibility), nonNil(l.Data), int64(l.Version), l.Time)
		},
	}
	return ss.bulk(ctx, &k, len(links))
}

// AddBulkCounts writes count rows as given (absolute values), overwriting
// existing rows (FB's REPLACE; reference §11.2-27), with multi-row
// statements as AddBulkLinks. An empty slice does nothing.
func (ss *Session) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	if _, err := ss.v.c.eng.CheckBulk(counts, nil); err != nil {
		return err
	}
	if len(counts) == 0 {
		return ss.calls.Enter(ctx, sqlstore.OpAddBulkCounts)
	}
	k := bulkKind{
		o: sqlstore.OpAddBulkCounts, full: sBulkCounts, sql: ss.v.q.bulkCountsSQL,
		size: func(int) int { return 0 },
		row: func(a []driver.Value, i int) []driver.Value {
			c := &counts[i]
			return append(a, c.ID1, c.LinkType, c.Count, c.Time, c.Version)
		},
	}
	return ss.bulk(ctx, &k, len(counts))
}

// AddBulkNodes stores nodes under their own ids with multi-row INSERTs
// (INSERT ... (id, type, version, time, data)), overwriting existing nodes
// with the same id, all in one transaction when more than one statement
// is needed. The AUTO_INCREMENT counter moves past the largest id, so a
// later AddNode returns a fresh id. Ids must be >= 1 (an id of 0 would ask
// AUTO_INCREMENT for one). An empty slice does nothing.
func (ss *Session) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	if _, err := ss.v.c.eng.CheckBulk(nil, nodes); err != nil {
		return err
	}
	if len(nodes) == 0 {
		return ss.calls.Enter(ctx, sqlstore.OpAddBulkNodes)
	}
	k := bulkKind{
		o: sqlstore.OpAddBulkNodes, full: sBulkNodes, sql: ss.v.q.bulkNodesSQL,
		size: func(i int) int { return len(nodes[i].Data) },
		row: func(a []driver.Value, i int) []driver.Value {
			n := &nodes[i]
			return append(a, n.ID, int64(n.Type), n.Version, int64(n.Time), nonNil(n.Data))
		},
	}
	return ss.bulk(ctx, &k, len(nodes))
}

// chunk is a range of rows sent in one statement.
type chunk struct{ lo, hi int }

// chunks splits n rows into statements of at most BulkInsertCount rows
// and about MaxStatementBytes of payload (never an empty one).
func chunks(o *Options, k *bulkKind, n int) []chunk {
	var out []chunk
	lo, bytes := 0, 0
	for i := range n {
		b := k.size(i) + rowOverhead
		if i > lo && (i-lo == o.BulkInsertCount || bytes+b > o.MaxStatementBytes) {
			out = append(out, chunk{lo, i})
			lo, bytes = i, 0
		}
		bytes += b
	}
	return append(out, chunk{lo, n})
}

func (ss *Session) bulk(ctx context.Context, k *bulkKind, n int) error {
	cs := chunks(&ss.v.c.opts, k, n)
	return ss.calls.Run(ctx, k.o, true, func(int) error {
		c, err := ss.bulkConn(ctx, k.o)
		if err != nil {
			return err
		}
		err = ss.bulkOnce(ctx, c, k, cs)
		ss.after(c, err)
		return err
	})
}

// bulkConn returns the read connection, with the binary log off when
// Options.DisableBinlogLoad asks for it (FB's mysql_disable_binlog_load).
func (ss *Session) bulkConn(ctx context.Context, o sqlstore.Op) (*conn, error) {
	c, err := ss.connRaw(ctx, connRead)
	if err != nil || !ss.v.c.opts.DisableBinlogLoad || c.binlogOff {
		return c, err
	}
	if err := ss.v.c.eng.Inject(o, "binlog"); err != nil {
		return nil, err
	}
	if _, err := c.execText(ctx, "SET SESSION sql_log_bin=0"); err != nil {
		ss.after(c, err)
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == erSpecificAccessDenied {
			return nil, binlogError(err)
		}
		return nil, err
	}
	c.binlogOff = true
	return c, nil
}

// bulkOnce runs the chunks: a single chunk as one autocommit statement,
// several in one transaction.
func (ss *Session) bulkOnce(ctx context.Context, c *conn, k *bulkKind, cs []chunk) error {
	tx := len(cs) > 1
	if tx {
		if err := ss.v.c.eng.Inject(k.o, "begin"); err != nil {
			return err
		}
		if _, err := c.execText(ctx, "BEGIN"); err != nil {
			return err
		}
	}
	for _, ch := range cs {
		if err := ss.bulkExec(ctx, c, k, ch); err != nil {
			if tx && c.valid() {
				if _, rerr := c.execText(ctx, "ROLLBACK"); rerr != nil {
					ss.drop(c.kind)
				}
			}
			return err
		}
	}
	if !tx {
		return nil
	}
	if err := ss.v.c.eng.Inject(k.o, "commit"); err != nil {
		if _, rerr := c.execText(ctx, "ROLLBACK"); rerr != nil {
			ss.drop(c.kind)
		}
		return err
	}
	_, err := c.execText(ctx, "COMMIT")
	return err
}

// bulkExec sends the rows of chunk ch: with the statement prepared once
// for BulkInsertCount rows, or one prepared for this size and closed after.
func (ss *Session) bulkExec(ctx context.Context, c *conn, k *bulkKind, ch chunk) error {
	var st driver.Stmt
	var err error
	adhoc := ch.hi-ch.lo != ss.v.q.bulkN
	if adhoc {
		st, err = c.prepare(ctx, k.sql(ch.hi-ch.lo))
	} else {
		st, err = c.stmt(ctx, ss, k.full)
	}
	if err != nil {
		return err
	}
	if adhoc {
		defer st.Close()
	}
	if err := ss.v.c.eng.Inject(k.o, "insert"); err != nil {
		return err
	}
	a := c.args[:0]
	for i := ch.lo; i < ch.hi; i++ {
		a = k.row(a, i)
	}
	c.args = a
	_, _, err = c.exec(ctx, st, a)
	clear(a) // drop the references to the caller's payloads
	return err
}
