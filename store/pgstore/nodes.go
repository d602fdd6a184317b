package pgstore

import (
	"context"
	"strconv"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// sequence returns the node table's id sequence, qualified and quoted,
// asking the server once per connection (pg_get_serial_sequence; the
// CockroachDB and YugabyteDB schemas name it <nodetable>_id_seq).
func (ss *Session) sequence(ctx context.Context, c *conn) (string, error) {
	if c.seq != "" {
		return c.seq, nil
	}
	var seq *string
	err := c.pc.QueryRow(ctx, "SELECT pg_get_serial_sequence($1, 'id')", c.q.node).Scan(&seq)
	if err != nil && c.q.dialect == PostgreSQL {
		return "", err
	}
	if seq == nil || *seq == "" {
		c.seq = c.q.schema + "." + quoteIdent(c.q.nodeTable+"_id_seq")
	} else {
		c.seq = *seq
	}
	return c.seq, nil
}

// ResetNodeStore deletes every node and makes startID the next id AddNode
// allocates: TRUNCATE TABLE, then ALTER SEQUENCE ... RESTART startID
// (reference §3.5), each in its own round trip, as MD does.
func (ss *Session) ResetNodeStore(ctx context.Context, startID int64) error {
	return ss.calls.Run(ctx, sqlstore.OpResetNodeStore, true, func(int) error {
		c, err := ss.prepared(ctx)
		if err != nil {
			return err
		}
		seq, err := ss.sequence(ctx, c)
		if err == nil {
			err = ss.v.c.eng.Inject(sqlstore.OpResetNodeStore, "truncate")
		}
		if err == nil {
			err = c.exec(ctx, "TRUNCATE TABLE "+c.q.node)
		}
		if err == nil {
			err = ss.v.c.eng.Inject(sqlstore.OpResetNodeStore, "restart")
		}
		if err == nil {
			// DDL takes no parameters: the integer is formatted by strconv.
			err = c.exec(ctx, "ALTER SEQUENCE "+seq+" RESTART "+strconv.FormatInt(startID, 10))
		}
		ss.after(c, err)
		return err
	})
}

// AddNode stores n under the next value of the node id sequence and
// returns that id (n.ID is ignored), with S-ins-node(1) ... RETURNING id
// in autocommit. When the connection is lost after the statement may have
// reached the server, AddNode is not repeated (that could add the node
// twice) and returns a *store.TransientError.
func (ss *Session) AddNode(ctx context.Context, n store.Node) (id int64, err error) {
	err = ss.calls.Run(ctx, sqlstore.OpAddNode, false, func(int) error {
		id = 0
		return ss.read(ctx, sqlstore.OpAddNode, sInsNode, func(e *encoder) {
			e.int(int64(n.Type)).int(n.Version).int(int64(n.Time)).bytes(n.Data)
		}, func(vals [][]byte) (err error) {
			id, err = getInt(vals[0])
			return err
		})
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// GetNode returns the node with that id (S-get-node); found is false when
// it is absent or its type is not nodeType.
func (ss *Session) GetNode(ctx context.Context, nodeType int32, id int64) (n store.Node, found bool, err error) {
	err = ss.calls.Run(ctx, sqlstore.OpGetNode, true, func(int) error {
		found = false
		return ss.read(ctx, sqlstore.OpGetNode, sGetNode, func(e *encoder) { e.int(id) }, func(vals [][]byte) error {
			if found {
				return nil
			}
			found = true
			return scanNode(vals, &n)
		})
	})
	if err != nil || !found || n.Type != nodeType {
		return store.Node{}, false, err
	}
	return n, true, nil
}

// scanNode converts a row of (id, type, version, time, data) into n.
func scanNode(vals [][]byte, n *store.Node) error {
	return sqlstore.ScanNode(vals, n, getInt, appendBytes)
}

// UpdateNode overwrites Version, Time and Data of the node n.ID if its type
// is n.Type (S-upd-node, autocommit); found is false when there is no such
// node. PostgreSQL reports matched rows, so an update that changes nothing
// still finds the node.
func (ss *Session) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	return ss.calls.WriteNode(ctx, sqlstore.OpUpdateNode, n.ID, func() (int64, error) {
		return ss.write(ctx, sqlstore.OpUpdateNode, sUpdNode, func(e *encoder) {
			e.int(n.Version).int(int64(n.Time)).bytes(n.Data).int(n.ID).int(int64(n.Type))
		})
	})
}

// DeleteNode deletes the node with that id if its type is nodeType
// (S-del-node, autocommit); found reports whether it did.
func (ss *Session) DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error) {
	return ss.calls.WriteNode(ctx, sqlstore.OpDeleteNode, id, func() (int64, error) {
		return ss.write(ctx, sqlstore.OpDeleteNode, sDelNode, func(e *encoder) { e.int(id).int(int64(nodeType)) })
	})
}

// write runs statement id in autocommit and returns its affected rows.
func (ss *Session) write(ctx context.Context, o sqlstore.Op, id int, args func(*encoder)) (int64, error) {
	c, err := ss.prepared(ctx)
	if err != nil {
		return 0, err
	}
	if err := ss.v.c.eng.Inject(o, "write"); err != nil {
		return 0, err
	}
	args(c.args(id))
	n, err := c.query(ctx, id, nil)
	ss.after(c, err)
	return n, err
}
