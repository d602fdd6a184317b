package pgstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// copySignature starts a COPY binary stream: the signature, the flags
// field (0) and the header extension length (0).
var copySignature = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// copyEncoder builds a COPY binary stream in a reusable buffer.
type copyEncoder struct {
	buf  []byte
	oids []uint32 // column types, in COPY column order
	col  int
	err  error
}

func (e *copyEncoder) start(buf []byte, oids []uint32) {
	e.buf, e.oids, e.err = append(buf[:0], copySignature...), oids, nil
}

// row starts a tuple.
func (e *copyEncoder) row() *copyEncoder {
	e.buf = binary.BigEndian.AppendUint16(e.buf, uint16(len(e.oids)))
	e.col = 0
	return e
}

// int appends an integer field in its column's type.
func (e *copyEncoder) int(v int64) *copyEncoder {
	var oid uint32
	if e.col < len(e.oids) {
		oid = e.oids[e.col]
	}
	at := len(e.buf)
	e.buf = append(e.buf, 0, 0, 0, 0)
	var err error
	e.buf, err = appendInt(e.buf, oid, v)
	if err != nil && e.err == nil {
		e.err = err
	}
	binary.BigEndian.PutUint32(e.buf[at:], uint32(len(e.buf)-at-4))
	e.col++
	return e
}

// bytes appends a bytea field.
func (e *copyEncoder) bytes(b []byte) *copyEncoder {
	e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(len(b)))
	e.buf = append(e.buf, b...)
	e.col++
	return e
}

// finish appends the trailer and returns the stream.
func (e *copyEncoder) finish() ([]byte, error) {
	e.buf = binary.BigEndian.AppendUint16(e.buf, 0xffff)
	return e.buf, e.err
}

// bulkKind describes one kind of bulk load.
type bulkKind struct {
	o      sqlstore.Op
	target bulkTarget
	rows   int
	encode func(e *copyEncoder, i int) // appends row i
	maxID  int64                       // nodes: the largest id
}

// AddBulkLinks inserts links with one COPY ... FROM STDIN (FORMAT binary)
// on the session's connection, without touching the count table
// (reference §3.3 addBulkLinks). A link that already exists makes the
// COPY fail with a duplicate key; the call then overwrites the existing
// rows through the upsert path (a temporary table and INSERT ... ON
// CONFLICT DO UPDATE, in one transaction), which every retry takes too,
// so a re-load or a retried batch does not fail (reference §11.2-27).
// Links repeated within one call are an error. An empty slice does
// nothing. noInverse is ignored.
func (ss *Session) AddBulkLinks(ctx context.Context, links []store.Link, noInverse bool) error {
	if len(links) == 0 {
		return ss.calls.Enter(ctx, sqlstore.OpAddBulkLinks)
	}
	return ss.bulk(ctx, &bulkKind{o: sqlstore.OpAddBulkLinks, target: targetLinks, rows: len(links),
		encode: func(e *copyEncoder, i int) {
			l := &links[i]
			e.row().int(l.ID1).int(l.ID2).int(l.LinkType).int(int64(l.Visibility)).bytes(l.Data).int(int64(l.Version)).int(l.Time)
		}})
}

// AddBulkCounts writes count rows as given (absolute values) with one
// COPY, overwriting existing rows through the upsert path as AddBulkLinks
// does. An empty slice does nothing.
func (ss *Session) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	if _, err := ss.v.c.eng.CheckBulk(counts, nil); err != nil {
		return err
	}
	if len(counts) == 0 {
		return ss.calls.Enter(ctx, sqlstore.OpAddBulkCounts)
	}
	return ss.bulk(ctx, &bulkKind{o: sqlstore.OpAddBulkCounts, target: targetCounts, rows: len(counts),
		encode: func(e *copyEncoder, i int) {
			c := &counts[i]
			e.row().int(c.ID1).int(c.LinkType).int(c.Count).int(c.Time).int(c.Version)
		}})
}

// AddBulkNodes stores nodes under their own ids with one COPY
// (overwriting existing nodes with the same id through the upsert path as
// AddBulkLinks does), then moves the node id sequence past the largest id
// (setval, only when the sequence would otherwise hand it out), so that a
// later AddNode returns a fresh id. Ids must be >= 1. An empty slice does
// nothing.
func (ss *Session) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	maxID, err := ss.v.c.eng.CheckBulk(nil, nodes)
	if err != nil {
		return err
	}
	if len(nodes) == 0 {
		return ss.calls.Enter(ctx, sqlstore.OpAddBulkNodes)
	}
	return ss.bulk(ctx, &bulkKind{o: sqlstore.OpAddBulkNodes, target: targetNodes, rows: len(nodes), maxID: maxID,
		encode: func(e *copyEncoder, i int) {
			n := &nodes[i]
			e.row().int(n.ID).int(int64(n.Type)).int(n.Version).int(int64(n.Time)).bytes(n.Data)
		}})
}

// copyTarget returns the table and column list a bulk load of kind t
// writes, and the prepared statement whose parameters have the columns'
// types.
func (c *conn) copyTarget(t bulkTarget) (table, cols string, typesOf int) {
	switch t {
	case targetLinks:
		return c.q.link, linkCols, sInsLink
	case targetCounts:
		return c.q.cnt, countCols, sColsCount
	}
	return c.q.node, nodeCols, sColsNode
}

func (ss *Session) bulk(ctx context.Context, k *bulkKind) error {
	var enc copyEncoder
	return ss.calls.Run(ctx, k.o, true, func(attempt int) error {
		c, err := ss.prepared(ctx)
		if err != nil {
			return err
		}
		table, cols, typesOf := c.copyTarget(k.target)
		enc.start(c.copyBuf, c.sd[typesOf].ParamOIDs)
		for i := range k.rows {
			k.encode(&enc, i)
		}
		data, err := enc.finish()
		c.copyBuf = data[:0]
		if err != nil {
			return err
		}
		if attempt == 0 {
			// The first attempt COPYs into the table itself; a duplicate
			// key, or any retry (the first attempt may have committed),
			// takes the upsert path.
			err = ss.copyDirect(ctx, c, k, table, cols, data)
			if !isDup(err) {
				return err
			}
		}
		ss.v.c.eng.Events.BulkUpserts.Add(1)
		return ss.upsert(ctx, c, k, cols, data)
	})
}

// copyFrom runs one COPY of data into table and checks the rows copied.
func (ss *Session) copyFrom(ctx context.Context, c *conn, k *bulkKind, table, cols string, data []byte) error {
	if err := ss.v.c.eng.Inject(k.o, "copy"); err != nil {
		return err
	}
	tag, err := c.pg.CopyFrom(c.pctx(ctx), bytes.NewReader(data), copySQL(table, cols))
	if err == nil && tag.RowsAffected() != int64(k.rows) {
		err = fmt.Errorf("COPY into %s copied %d rows, want %d", table, tag.RowsAffected(), k.rows)
	}
	return err
}

// copyDirect is the first attempt of a bulk load: one COPY into the table
// (inside BEGIN ... COMMIT for CockroachDB, which otherwise commits COPY in
// batches), then, for nodes, the sequence's move.
func (ss *Session) copyDirect(ctx context.Context, c *conn, k *bulkKind, table, cols string, data []byte) error {
	tx := c.q.dialect == CockroachDB
	var err error
	if tx {
		err = c.exec(ctx, "BEGIN")
	}
	if err == nil {
		err = ss.copyFrom(ctx, c, k, table, cols, data)
	}
	if err == nil && k.target == targetNodes {
		err = ss.advanceSequence(ctx, c, k.maxID)
	}
	if err == nil && tx {
		err = c.exec(ctx, "COMMIT")
	}
	ss.after(c, err)
	return err
}

// upsert is the upsert path of a bulk load, in one transaction: COPY into
// the session's temporary table (created on first use), INSERT ... SELECT
// ... ON CONFLICT DO UPDATE into the table, and for nodes the sequence's
// move.
func (ss *Session) upsert(ctx context.Context, c *conn, k *bulkKind, cols string, data []byte) error {
	create, move := c.q.upsertSQL(k.target)
	var err error
	if !c.temps[k.target] {
		if err = c.exec(ctx, create); err == nil {
			c.temps[k.target] = true
		}
	}
	if err == nil {
		err = c.exec(ctx, "BEGIN")
	}
	if err == nil {
		err = ss.copyFrom(ctx, c, k, tempTable(k.target), cols, data)
	}
	if err == nil {
		err = ss.v.c.eng.Inject(k.o, "upsert")
	}
	if err == nil {
		err = c.exec(ctx, move)
	}
	if err == nil && k.target == targetNodes {
		err = ss.advanceSequence(ctx, c, k.maxID)
	}
	if err == nil {
		err = c.exec(ctx, "COMMIT")
	}
	ss.after(c, err)
	return err
}

// advanceSequence makes the node id sequence hand out ids above maxID:
// setval(seq, maxID) when its next value is not above maxID already.
func (ss *Session) advanceSequence(ctx context.Context, c *conn, maxID int64) error {
	seq, err := ss.sequence(ctx, c)
	if err != nil {
		return err
	}
	sql := "SELECT setval($2::regclass, $1::bigint, true) FROM " + seq +
		" WHERE $1::bigint >= CASE WHEN is_called THEN last_value + 1 ELSE last_value END"
	_, err = c.pg.ExecParams(c.pctx(ctx), sql, [][]byte{strconv.AppendInt(nil, maxID, 10), []byte(seq)}, nil, nil, nil).Close()
	return err
}
