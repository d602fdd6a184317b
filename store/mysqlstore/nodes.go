package mysqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/linkbench-go/linkbench/store"
)

// ResetNodeStore deletes every node and makes startID the next id AddNode
// allocates: TRUNCATE TABLE, then ALTER TABLE ... AUTO_INCREMENT = startID
// (reference §3.3 reset). startID must be >= 1 (AUTO_INCREMENT cannot
// produce 0 or negative ids). Errors: see the package documentation.
func (s *Store) ResetNodeStore(ctx context.Context, startID int64) error {
	if err := s.check(ctx, "ResetNodeStore"); err != nil {
		return err
	}
	if startID < 1 {
		return fmt.Errorf("mysqlstore: ResetNodeStore: start id %d < 1 (AUTO_INCREMENT ids start at 1)", startID)
	}
	r := retrier{s: s, o: opResetNodeStore}
	for {
		err := s.resetOnce(ctx, startID)
		if err == nil {
			r.done()
			return nil
		}
		if err = r.fail(ctx, err, true); err != nil {
			return err
		}
	}
}

func (s *Store) resetOnce(ctx context.Context, startID int64) error {
	if err := s.inject(opResetNodeStore, "truncate"); err != nil {
		return err
	}
	conn, err := s.c.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "TRUNCATE TABLE "+s.q.node); err != nil {
		return err
	}
	if err := s.inject(opResetNodeStore, "alter"); err != nil {
		return err
	}
	// DDL takes no parameters: the integer is formatted by strconv.
	_, err = conn.ExecContext(ctx, "ALTER TABLE "+s.q.node+" AUTO_INCREMENT = "+strconv.FormatInt(startID, 10))
	return err
}

// AddNode stores n under the next AUTO_INCREMENT id and returns that id
// (n.ID is ignored). The insert is a single autocommit statement; when the
// connection is lost after it may have reached the server, AddNode is not
// repeated (that could add the node twice) and returns a
// *store.TransientError. n.Data must be shorter than 16 MiB (MEDIUMTEXT);
// n.Type, n.Version and n.Time must be >= 0 (unsigned columns).
func (s *Store) AddNode(ctx context.Context, n store.Node) (int64, error) {
	if err := s.check(ctx, "AddNode"); err != nil {
		return 0, err
	}
	r := retrier{s: s, o: opAddNode}
	for {
		id, err := s.addNodeOnce(ctx, &n)
		if err == nil {
			r.done()
			return id, nil
		}
		if err = r.fail(ctx, err, false); err != nil {
			return 0, err
		}
	}
}

func (s *Store) addNodeOnce(ctx context.Context, n *store.Node) (int64, error) {
	st, err := s.q.stmt(ctx, s.c.db, sInsNode)
	if err != nil {
		return 0, err
	}
	if err := s.inject(opAddNode, "insert"); err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, int64(n.Type), n.Version, int64(n.Time), nonNil(n.Data))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// GetNode returns the node with that id; found is false when it is absent
// or its type is not nodeType. Errors: see the package documentation.
func (s *Store) GetNode(ctx context.Context, nodeType int32, id int64) (n store.Node, found bool, err error) {
	if err := s.check(ctx, "GetNode"); err != nil {
		return n, false, err
	}
	r := retrier{s: s, o: opGetNode}
	for {
		err := s.getNodeOnce(ctx, id, &n)
		if err == nil {
			r.done()
			if n.Type != nodeType {
				return store.Node{}, false, nil
			}
			return n, true, nil
		}
		if errors.Is(err, sql.ErrNoRows) {
			r.done()
			return store.Node{}, false, nil
		}
		if err = r.fail(ctx, err, true); err != nil {
			return store.Node{}, false, err
		}
	}
}

func (s *Store) getNodeOnce(ctx context.Context, id int64, n *store.Node) error {
	st, err := s.q.stmt(ctx, s.c.db, sGetNode)
	if err != nil {
		return err
	}
	if err := s.inject(opGetNode, "get"); err != nil {
		return err
	}
	return st.QueryRowContext(ctx, id).Scan((*scanI64)(&n.ID), (*scanI32)(&n.Type), (*scanI64)(&n.Version),
		(*scanI32)(&n.Time), (*scanData)(&n.Data))
}

// UpdateNode overwrites Version, Time and Data of the node n.ID if its type
// is n.Type; found is false when there is no such node. An update that
// changes nothing (MySQL then reports 0 affected rows) is told apart from
// a missing node by a second query. Errors: see the package documentation.
func (s *Store) UpdateNode(ctx context.Context, n store.Node) (found bool, err error) {
	if err := s.check(ctx, "UpdateNode"); err != nil {
		return false, err
	}
	r := retrier{s: s, o: opUpdateNode}
	for {
		found, err := s.updateNodeOnce(ctx, &n)
		if err == nil {
			r.done()
			return found, nil
		}
		if err = r.fail(ctx, err, true); err != nil {
			return false, err
		}
	}
}

func (s *Store) updateNodeOnce(ctx context.Context, n *store.Node) (bool, error) {
	st, err := s.q.stmt(ctx, s.c.db, sUpdNode)
	if err != nil {
		return false, err
	}
	if err := s.inject(opUpdateNode, "update"); err != nil {
		return false, err
	}
	res, err := st.ExecContext(ctx, n.Version, int64(n.Time), nonNil(n.Data), n.ID, int64(n.Type))
	if err != nil {
		return false, err
	}
	k, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	switch k {
	case 1:
		return true, nil
	case 0:
	default:
		return false, fmt.Errorf("update of node %d affected %d rows", n.ID, k)
	}
	// No row changed: the node is absent, of another type, or already
	// held these values.
	ex, err := s.q.stmt(ctx, s.c.db, sNodeExists)
	if err != nil {
		return false, err
	}
	if err := s.inject(opUpdateNode, "exists"); err != nil {
		return false, err
	}
	var one int64
	err = ex.QueryRowContext(ctx, n.ID, int64(n.Type)).Scan((*scanI64)(&one))
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// DeleteNode deletes the node with that id if its type is nodeType; found
// reports whether it did. Errors: see the package documentation.
func (s *Store) DeleteNode(ctx context.Context, nodeType int32, id int64) (found bool, err error) {
	if err := s.check(ctx, "DeleteNode"); err != nil {
		return false, err
	}
	r := retrier{s: s, o: opDeleteNode}
	for {
		found, err := s.deleteNodeOnce(ctx, nodeType, id)
		if err == nil {
			r.done()
			return found, nil
		}
		if err = r.fail(ctx, err, true); err != nil {
			return false, err
		}
	}
}

func (s *Store) deleteNodeOnce(ctx context.Context, nodeType int32, id int64) (bool, error) {
	st, err := s.q.stmt(ctx, s.c.db, sDelNode)
	if err != nil {
		return false, err
	}
	if err := s.inject(opDeleteNode, "delete"); err != nil {
		return false, err
	}
	res, err := st.ExecContext(ctx, id, int64(nodeType))
	if err != nil {
		return false, err
	}
	k, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	if k > 1 {
		return false, fmt.Errorf("delete of node %d affected %d rows", id, k)
	}
	return k == 1, nil
}
