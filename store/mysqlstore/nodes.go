package mysqlstore

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strconv"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// ResetNodeStore deletes every node and makes startID the next id AddNode
// allocates: TRUNCATE TABLE, then ALTER TABLE ... AUTO_INCREMENT = startID
// (reference §3.3 reset), on the read connection. startID must be >= 1
// (AUTO_INCREMENT cannot produce 0 or negative ids).
func (ss *Session) ResetNodeStore(ctx context.Context, startID int64) error {
	if startID < 1 {
		return fmt.Errorf("mysqlstore: ResetNodeStore: start id %d < 1 (AUTO_INCREMENT ids start at 1)", startID)
	}
	return ss.calls.Run(ctx, sqlstore.OpResetNodeStore, true, func(int) error {
		c, err := ss.conn(ctx, connRead)
		if err != nil {
			return err
		}
		err = ss.v.c.eng.Inject(sqlstore.OpResetNodeStore, "truncate")
		if err == nil {
			_, err = c.execText(ctx, "TRUNCATE TABLE "+ss.v.q.node)
		}
		if err == nil {
			err = ss.v.c.eng.Inject(sqlstore.OpResetNodeStore, "alter")
		}
		if err == nil {
			// DDL takes no parameters: the integer is formatted by strconv.
			_, err = c.execText(ctx, "ALTER TABLE "+ss.v.q.node+" AUTO_INCREMENT = "+strconv.FormatInt(startID, 10))
		}
		ss.after(c, err)
		return err
	})
}

// writeR runs statement id with args on the read (autocommit) connection
// and returns its affected (for UPDATE: matched) rows and insert id.
func (ss *Session) writeR(ctx context.Context, o sqlstore.Op, label string, id int, args ...driver.Value) (n, lastID int64, err error) {
	c, err := ss.conn(ctx, connRead)
	if err != nil {
		return 0, 0, err
	}
	st, err := c.stmt(ctx, ss, id)
	if err == nil {
		err = ss.v.c.eng.Inject(o, label)
	}
	if err == nil {
		n, lastID, err = c.exec(ctx, st, c.setArgs(args...))
	}
	ss.after(c, err)
	return n, lastID, err
}

// AddNode stores n under the next AUTO_INCREMENT id and returns that id
// (n.ID is ignored), with S-ins-node(1) in autocommit. When the connection
// is lost after the statement may have reached the server, AddNode is not
// repeated (that could add the node twice) and returns a
// *store.TransientError. n.Data must be shorter than 16 MiB (MEDIUMTEXT);
// n.Type, n.Version and n.Time must be >= 0 (unsigned columns).
func (ss *Session) AddNode(ctx context.Context, n store.Node) (id int64, err error) {
	err = ss.calls.Run(ctx, sqlstore.OpAddNode, false, func(int) (err error) {
		_, id, err = ss.writeR(ctx, sqlstore.OpAddNode, "insert", sInsNode, int64(n.Type), n.Version, int64(n.Time), nonNil(n.Data))
		return err
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// GetNode returns the node with that id (S-get-node); found is false when
// it is absent or its type is not nodeType.
func (ss *Session) GetNode(ctx context.Context, nodeType int32, id int64) (n store.Node, found bool, err error) {
	err = ss.calls.Run(ctx, sqlstore.OpGetNode, true, func(int) (err error) {
		found, err = ss.read(ctx, sqlstore.OpGetNode, "get", sGetNode, true,
			func(d []driver.Value) error { return sqlstore.ScanNode(d, &n, asInt64, appendData) }, id)
		return err
	})
	if err != nil || !found || n.Type != nodeType {
		return store.Node{}, false, err
	}
	return n, true, nil
}

// UpdateNode overwrites Version, Time and Data of the node n.ID if its type
// is n.Type (S-upd-node, autocommit); found is false when there is no such
// node. The read connection reports matched rows, so an update that
// changes nothing still finds the node.
func (ss *Session) UpdateNode(ctx context.Context, n store.Node) (found bool, err error) {
	return ss.calls.WriteNode(ctx, sqlstore.OpUpdateNode, n.ID, func() (int64, error) {
		k, _, err := ss.writeR(ctx, sqlstore.OpUpdateNode, "update", sUpdNode, n.Version, int64(n.Time), nonNil(n.Data), n.ID, int64(n.Type))
		return k, err
	})
}

// DeleteNode deletes the node with that id if its type is nodeType
// (S-del-node, autocommit); found reports whether it did. On a Spider head,
// which reports 0 affected rows for every DELETE, it runs in a transaction
// on the write connection instead: SELECT ... FOR UPDATE of the node (found
// is whether it returned the row), S-del-node, COMMIT.
func (ss *Session) DeleteNode(ctx context.Context, nodeType int32, id int64) (found bool, err error) {
	return ss.calls.WriteNode(ctx, sqlstore.OpDeleteNode, id, func() (int64, error) {
		if ss.v.q.spider(ctx, ss.v.c.db) {
			return ss.deleteNodeLocked(ctx, nodeType, id)
		}
		k, _, err := ss.writeR(ctx, sqlstore.OpDeleteNode, "delete", sDelNode, id, int64(nodeType))
		return k, err
	})
}

// deleteNodeLocked is DeleteNode's Spider path: it returns 1 when the node
// existed (locked, deleted and committed), 0 when it did not (rolled back).
func (ss *Session) deleteNodeLocked(ctx context.Context, nodeType int32, id int64) (int64, error) {
	const o = sqlstore.OpDeleteNode
	c, err := ss.conn(ctx, connWrite)
	if err != nil {
		return 0, err
	}
	err = ss.v.c.eng.Inject(o, "lock")
	var rows driver.Rows
	if err == nil {
		// Integers only: formatted by strconv, sent as text.
		rows, err = c.queryText(ctx, "SELECT id FROM "+ss.v.q.node+" WHERE id = "+strconv.FormatInt(id, 10)+
			" AND type = "+strconv.FormatInt(int64(nodeType), 10)+" FOR UPDATE")
	}
	var found bool
	if err == nil {
		found, err = scanOne(c, rows, 1, func([]driver.Value) error { return nil })
	}
	if err != nil || !found {
		ss.rollback(ctx, c)
		return 0, err
	}
	if _, err := ss.execW(ctx, c, o, "delete", sDelNode, c.setArgs(id, int64(nodeType))); err != nil {
		return 0, err
	}
	return 1, ss.commit(ctx, c, o)
}
