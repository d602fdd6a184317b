package mysqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/store"
)

// erSpecificAccessDenied is ER_SPECIFIC_ACCESS_DENIED_ERROR (1227): a
// statement needs a privilege the user lacks.
const erSpecificAccessDenied = 1227

// rowOverhead is the bytes counted per row, besides its payload, against
// Options.MaxStatementBytes.
const rowOverhead = 64

// bulkKind describes one kind of bulk insert.
type bulkKind struct {
	o    op
	full int                    // statement id of the BulkInsertCount-row statement
	sql  func(n int) string     // the statement for n rows
	size func(i int) int        // payload bytes of row i
	row  func([]any, int) []any // appends row i's parameters
	cols int
}

// AddBulkLinks inserts links with multi-row INSERTs of up to
// Options.BulkInsertCount rows without touching the count table
// (reference §3.3 addBulkLinks). An existing link is overwritten (an
// upsert, so that a re-load or a retried batch does not fail: reference
// §11.2-27). A call of more rows, or of more payload than
// Options.MaxStatementBytes, runs several INSERTs in one transaction. An
// empty slice does nothing. noInverse is ignored.
func (s *Store) AddBulkLinks(ctx context.Context, links []store.Link, noInverse bool) error {
	if err := s.check(ctx, "AddBulkLinks"); err != nil {
		return err
	}
	if len(links) == 0 {
		return nil
	}
	k := bulkKind{
		o: opAddBulkLinks, full: sBulkLinks, sql: s.q.bulkLinksSQL, cols: 7,
		size: func(i int) int { return len(links[i].Data) },
		row: func(a []any, i int) []any {
			l := &links[i]
			return append(a, l.ID1, l.ID2, l.LinkType, int64(l.Visibility), nonNil(l.Data), int64(l.Version), l.Time)
		},
	}
	return s.bulk(ctx, &k, len(links))
}

// AddBulkCounts writes count rows as given (absolute values), overwriting
// existing rows (FB's REPLACE; reference §11.2-27), with multi-row
// statements as AddBulkLinks. An empty slice does nothing.
func (s *Store) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	if err := s.check(ctx, "AddBulkCounts"); err != nil {
		return err
	}
	if len(counts) == 0 {
		return nil
	}
	for i := range counts {
		if counts[i].Count < 0 {
			return fmt.Errorf("mysqlstore: AddBulkCounts: negative count %d for (%d, %d)",
				counts[i].Count, counts[i].ID1, counts[i].LinkType)
		}
	}
	k := bulkKind{
		o: opAddBulkCounts, full: sBulkCounts, sql: s.q.bulkCountsSQL, cols: 5,
		size: func(int) int { return 0 },
		row: func(a []any, i int) []any {
			c := &counts[i]
			return append(a, c.ID1, c.LinkType, c.Count, c.Time, c.Version)
		},
	}
	return s.bulk(ctx, &k, len(counts))
}

// AddBulkNodes stores nodes under their own ids with multi-row INSERTs
// (INSERT ... (id, type, version, time, data)), overwriting existing nodes
// with the same id, all in one transaction when more than one statement
// is needed. The AUTO_INCREMENT counter moves past the largest id, so a
// later AddNode returns a fresh id. Ids must be >= 1 (an id of 0 would ask
// AUTO_INCREMENT for one). An empty slice does nothing.
func (s *Store) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	if err := s.check(ctx, "AddBulkNodes"); err != nil {
		return err
	}
	if len(nodes) == 0 {
		return nil
	}
	for i := range nodes {
		if nodes[i].ID < 1 {
			return fmt.Errorf("mysqlstore: AddBulkNodes: node id %d < 1", nodes[i].ID)
		}
	}
	k := bulkKind{
		o: opAddBulkNodes, full: sBulkNodes, sql: s.q.bulkNodesSQL, cols: 5,
		size: func(i int) int { return len(nodes[i].Data) },
		row: func(a []any, i int) []any {
			n := &nodes[i]
			return append(a, n.ID, int64(n.Type), n.Version, int64(n.Time), nonNil(n.Data))
		},
	}
	return s.bulk(ctx, &k, len(nodes))
}

// chunk is a range of rows sent in one statement.
type chunk struct{ lo, hi int }

// chunks splits n rows into statements of at most BulkInsertCount rows
// and about MaxStatementBytes of payload (never an empty one).
func (s *Store) chunks(k *bulkKind, n int) []chunk {
	o := &s.c.opts
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

func (s *Store) bulk(ctx context.Context, k *bulkKind, n int) error {
	cs := s.chunks(k, n)
	r := retrier{s: s, o: k.o}
	for {
		err := s.bulkOnce(ctx, k, cs)
		if err == nil {
			r.done()
			return nil
		}
		if err = r.fail(ctx, err, true); err != nil {
			return err
		}
	}
}

// exec runs st with the parameters of chunk c, built in a pooled slice.
func (s *Store) exec(ctx context.Context, st *sql.Stmt, k *bulkKind, c chunk) error {
	p, _ := s.c.argsPool.Get().(*[]any)
	if p == nil {
		p = new([]any)
	}
	a := (*p)[:0]
	for i := c.lo; i < c.hi; i++ {
		a = k.row(a, i)
	}
	_, err := st.ExecContext(ctx, a...)
	clear(a) // drop the references to the caller's payloads
	*p = a[:0]
	s.c.argsPool.Put(p)
	return err
}

// bulkOnce runs the chunks: a single chunk as one autocommit statement,
// several (or any with DisableBinlogLoad) in one transaction on one
// connection.
func (s *Store) bulkOnce(ctx context.Context, k *bulkKind, cs []chunk) error {
	full := s.q.bulkN
	if len(cs) == 1 && !s.c.opts.DisableBinlogLoad {
		c := cs[0]
		if c.hi-c.lo == full {
			st, err := s.q.stmt(ctx, s.c.db, k.full)
			if err != nil {
				return err
			}
			if err := s.inject(k.o, "insert"); err != nil {
				return err
			}
			return s.exec(ctx, st, k, c)
		}
		conn, err := s.c.db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		st, err := conn.PrepareContext(ctx, k.sql(c.hi-c.lo))
		if err != nil {
			return err
		}
		defer st.Close()
		if err := s.inject(k.o, "insert"); err != nil {
			return err
		}
		return s.exec(ctx, st, k, c)
	}

	var fullSt *sql.Stmt
	for _, c := range cs {
		if c.hi-c.lo == full {
			var err error
			if fullSt, err = s.q.stmt(ctx, s.c.db, k.full); err != nil {
				return err
			}
			break
		}
	}
	conn, err := s.c.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if s.c.opts.DisableBinlogLoad {
		if err := s.inject(k.o, "binlog"); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, "SET SESSION sql_log_bin=0"); err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) && me.Number == erSpecificAccessDenied {
				return binlogError(err)
			}
			return err
		}
		defer func() {
			if _, err := conn.ExecContext(context.WithoutCancel(ctx), "SET SESSION sql_log_bin=1"); err != nil {
				// Never hand a connection with the binary log off back to the pool.
				_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			}
		}()
	}
	if err := s.inject(k.o, "begin"); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback()
		}
	}()
	for _, c := range cs {
		if err := s.inject(k.o, "insert"); err != nil {
			return err
		}
		if c.hi-c.lo == full {
			if err := s.exec(ctx, tx.StmtContext(ctx, fullSt), k, c); err != nil {
				return err
			}
			continue
		}
		st, err := tx.PrepareContext(ctx, k.sql(c.hi-c.lo))
		if err != nil {
			return err
		}
		err = s.exec(ctx, st, k, c)
		st.Close()
		if err != nil {
			return err
		}
	}
	done = true
	return s.commit(tx, k.o)
}
