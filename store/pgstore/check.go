package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// opSchema is the op of DDL run through admin.
const opSchema = sqlstore.OpSchema

// admin runs f on the connection of a borrowed session (checks and DDL),
// retrying as the operations do; f must be repeatable.
func (s *Store) admin(ctx context.Context, o sqlstore.Op, f func(c *conn) error) error {
	ss, err := sqlstore.Borrow(ctx, s.pool, o)
	if err != nil {
		return err
	}
	defer sqlstore.Return(s.pool, ss)
	if err := ss.calls.Enter(ctx, o); err != nil {
		return err
	}
	return s.c.eng.Retry(ctx, o, s.name, true, func(int) error {
		c, err := ss.conn(ctx)
		if err == nil {
			err = f(c)
			ss.after(c, err)
		}
		return err
	})
}

// NodeStats returns the number of nodes and their smallest and largest id
// (0, 0 when there are none), in one query. Errors: see the package
// documentation.
func (s *Store) NodeStats(ctx context.Context) (store.NodeStats, error) {
	var st store.NodeStats
	err := s.admin(ctx, sqlstore.OpNodeStats, func(c *conn) error {
		return c.pc.QueryRow(ctx, "SELECT COUNT(*), COALESCE(MIN(id), 0), COALESCE(MAX(id), 0) FROM "+s.q.node).
			Scan(&st.Count, &st.MinID, &st.MaxID)
	})
	return st, err
}

// HasNodeIn reports whether the node table holds a node with an id in
// [lo, hi): one lookup of the primary key (SELECT id ... LIMIT 1), which
// reads at most one row. Errors: see the package documentation.
func (s *Store) HasNodeIn(ctx context.Context, lo, hi int64) (bool, error) {
	var found bool
	err := s.admin(ctx, sqlstore.OpHasNodeIn, func(c *conn) error {
		if lo >= hi {
			return nil
		}
		var id int64
		err := c.pc.QueryRow(ctx, "SELECT id FROM "+s.q.node+" WHERE id >= $1 AND id < $2 ORDER BY id LIMIT 1", lo, hi).Scan(&id)
		found = err == nil
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	return found, err
}

// visibleSQL aggregates the visible links of every (id1, link_type) with
// links, hidden ones included, and joins the count rows to them.
func (s *Store) pairsSQL() string {
	return "(SELECT id1, link_type, COUNT(*) FILTER (WHERE visibility = 1) AS visible FROM " + s.q.link +
		" GROUP BY id1, link_type) AS v FULL OUTER JOIN " + s.q.cnt + " AS c ON c.id = v.id1 AND c.link_type = v.link_type"
}

// CheckCounts compares, for every (id1, link_type) with links or a count
// row, the count row (0 when absent) with the number of visible links,
// aggregated by the server in one read-only REPEATABLE READ transaction
// (so both queries see one snapshot). It returns the mismatches ordered by
// (id1, link_type), at most limit of them (all when limit <= 0), and the
// number of pairs checked. Errors: see the package documentation.
func (s *Store) CheckCounts(ctx context.Context, limit int) (mismatches []store.CountMismatch, checked int64, err error) {
	err = s.admin(ctx, sqlstore.OpCheckCounts, func(c *conn) error {
		mismatches, checked = nil, 0
		tx, err := c.pc.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM "+s.pairsSQL()).Scan(&checked); err != nil {
			return err
		}
		q := "SELECT COALESCE(v.id1, c.id), COALESCE(v.link_type, c.link_type), COALESCE(c.count, 0), COALESCE(v.visible, 0) FROM " +
			s.pairsSQL() + " WHERE COALESCE(c.count, 0) <> COALESCE(v.visible, 0) ORDER BY 1, 2"
		if limit > 0 {
			q += " LIMIT " + strconv.Itoa(limit)
		}
		rows, err := tx.Query(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m store.CountMismatch
			if err := rows.Scan(&m.ID1, &m.LinkType, &m.Count, &m.Visible); err != nil {
				return err
			}
			mismatches = append(mismatches, m)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return tx.Commit(ctx)
	})
	if err != nil {
		return nil, 0, err
	}
	return mismatches, checked, nil
}

// HasData reports whether the schema this Store serves already holds
// links, count rows or nodes, so that a load can refuse to mix a new graph
// with an old one (LinkBench loads into empty tables; store.Contents).
// Errors: the server's (a missing schema or table wraps
// store.ErrNoSchema), ctx's, store.ErrClosed.
func (s *Store) HasData(ctx context.Context) (bool, error) {
	var full bool
	err := s.admin(ctx, sqlstore.OpCheckCounts, func(c *conn) error {
		return c.pc.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+s.q.link+") OR EXISTS (SELECT 1 FROM "+s.q.cnt+
			") OR EXISTS (SELECT 1 FROM "+s.q.node+")").Scan(&full)
	})
	if err != nil {
		return false, fmt.Errorf("pgstore: HasData: %w", err)
	}
	return full, nil
}
