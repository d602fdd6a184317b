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
	err = ss.calls.Run(ctx, sqlstore.OpGetNode, true, func(int) error {
		found = false
		return ss.read(ctx, sqlstore.OpGetNode, "get", sGetNode, func(d []driver.Value) error {
			if found {
				return nil
			}
			found = true
			return scanNode(d, &n)
		}, id)
	})
	if err != nil || !found || n.Type != nodeType {
		return store.Node{}, false, err
	}
	return n, true, nil
}

// scanNode converts a row of (id, type, version, time, data) into n.
func scanNode(d []driver.Value, n *store.Node) error {
	id, err := asInt64(d[0])
	if err != nil {
		return err
	}
	typ, err := asInt64(d[1])
	if err != nil {
		return err
	}
	version, err := asInt64(d[2])
	if err != nil {
		return err
	}
	tm, err := asInt64(d[3])
	if err != nil {
		return err
	}
	if typ < -1<<31 || typ > 1<<31-1 || tm < -1<<31 || tm > 1<<31-1 {
		return fmt.Errorf("mysqlstore: node %d: type %d or time %d out of range", id, typ, tm)
	}
	n.ID, n.Type, n.Version, n.Time = id, int32(typ), version, int32(tm)
	n.Data, err = appendData(n.Data[:0], d[4])
	return err
}

// UpdateNode overwrites Version, Time and Data of the node n.ID if its type
// is n.Type (S-upd-node, autocommit); found is false when there is no such
// node. The read connection reports matched rows, so an update that
// changes nothing still finds the node.
func (ss *Session) UpdateNode(ctx context.Context, n store.Node) (found bool, err error) {
	err = ss.calls.Run(ctx, sqlstore.OpUpdateNode, true, func(int) error {
		k, _, err := ss.writeR(ctx, sqlstore.OpUpdateNode, "update", sUpdNode, n.Version, int64(n.Time), nonNil(n.Data), n.ID, int64(n.Type))
		if err == nil && k > 1 {
			err = fmt.Errorf("update of node %d affected %d rows", n.ID, k)
		}
		found = k == 1
		return err
	})
	return found && err == nil, err
}

// DeleteNode deletes the node with that id if its type is nodeType
// (S-del-node, autocommit); found reports whether it did.
func (ss *Session) DeleteNode(ctx context.Context, nodeType int32, id int64) (found bool, err error) {
	err = ss.calls.Run(ctx, sqlstore.OpDeleteNode, true, func(int) error {
		k, _, err := ss.writeR(ctx, sqlstore.OpDeleteNode, "delete", sDelNode, id, int64(nodeType))
		if err == nil && k > 1 {
			err = fmt.Errorf("delete of node %d affected %d rows", id, k)
		}
		found = k == 1
		return err
	})
	return found && err == nil, err
}
