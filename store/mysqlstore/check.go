package mysqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// NodeStats returns the number of nodes and their smallest and largest id
// (0, 0 when there are none), in one query. Errors: see the package
// documentation.
func (s *Store) NodeStats(ctx context.Context) (store.NodeStats, error) {
	if err := s.check(ctx, "NodeStats"); err != nil {
		return store.NodeStats{}, err
	}
	q := "SELECT COUNT(*), COALESCE(MIN(id), 0), COALESCE(MAX(id), 0) FROM " + s.q.node
	var st store.NodeStats
	err := s.c.eng.Retry(ctx, sqlstore.OpNodeStats, s.name, true, func(int) error {
		return s.c.db.QueryRowContext(ctx, q).Scan((*scanI64)(&st.Count), (*scanI64)(&st.MinID), (*scanI64)(&st.MaxID))
	})
	if err != nil {
		return store.NodeStats{}, err
	}
	return st, nil
}

// HasNodeIn reports whether the node table holds a node with an id in
// [lo, hi): one lookup of the primary key (SELECT id ... LIMIT 1), which
// reads at most one row. Errors: see the package documentation.
func (s *Store) HasNodeIn(ctx context.Context, lo, hi int64) (bool, error) {
	if err := s.check(ctx, "HasNodeIn"); err != nil {
		return false, err
	}
	if lo >= hi {
		return false, nil
	}
	q := "SELECT id FROM " + s.q.node + " WHERE id >= ? AND id < ? ORDER BY id LIMIT 1"
	var found bool
	err := s.c.eng.Retry(ctx, sqlstore.OpHasNodeIn, s.name, true, func(int) error {
		var id int64
		err := s.c.db.QueryRowContext(ctx, q, lo, hi).Scan((*scanI64)(&id))
		found = err == nil
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return false, err
	}
	return found, nil
}

// pairsSQL selects every (id1, link_type) with a link or a count row.
func (s *Store) pairsSQL() string {
	return "SELECT id1, link_type FROM " + s.q.link + " GROUP BY id1, link_type" +
		" UNION SELECT id, link_type FROM " + s.q.cnt
}

// CheckCounts compares, for every (id1, link_type) with links or a count
// row, the count row (0 when absent) with the number of visible links,
// aggregated by the server in one read-only REPEATABLE READ transaction
// (so both queries see one snapshot). It returns the mismatches ordered by
// (id1, link_type), at most limit of them (all when limit <= 0), and the
// number of pairs checked. Errors: see the package documentation.
func (s *Store) CheckCounts(ctx context.Context, limit int) (mismatches []store.CountMismatch, checked int64, err error) {
	if err := s.check(ctx, "CheckCounts"); err != nil {
		return nil, 0, err
	}
	err = s.c.eng.Retry(ctx, sqlstore.OpCheckCounts, s.name, true, func(int) (err error) {
		mismatches, checked, err = s.checkCountsOnce(ctx, limit)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return mismatches, checked, nil
}

func (s *Store) checkCountsOnce(ctx context.Context, limit int) ([]store.CountMismatch, int64, error) {
	q := "SELECT k.id1, k.link_type, COALESCE(c.count, 0), COALESCE(v.visible, 0) FROM (" + s.pairsSQL() + ") AS k" +
		" LEFT JOIN (SELECT id1, link_type, COUNT(CASE WHEN visibility = 1 THEN 1 END) AS visible FROM " + s.q.link +
		" GROUP BY id1, link_type) AS v ON v.id1 = k.id1 AND v.link_type = k.link_type" +
		" LEFT JOIN " + s.q.cnt + " AS c ON c.id = k.id1 AND c.link_type = k.link_type" +
		" WHERE COALESCE(c.count, 0) <> COALESCE(v.visible, 0) ORDER BY k.id1, k.link_type"
	var args []any
	if limit > 0 {
		q += " LIMIT ?"
		args = append(args, int64(limit))
	}
	tx, err := s.c.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	var checked int64
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM ("+s.pairsSQL()+") AS k").Scan((*scanI64)(&checked)); err != nil {
		return nil, 0, err
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []store.CountMismatch
	for rows.Next() {
		var m store.CountMismatch
		if err := rows.Scan((*scanI64)(&m.ID1), (*scanI64)(&m.LinkType), (*scanI64)(&m.Count), (*scanI64)(&m.Visible)); err != nil {
			return nil, 0, err
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	return out, checked, tx.Commit()
}

// HasData reports whether the database this Store serves already holds
// links, count rows or nodes, so that a load can refuse to mix a new graph
// with an old one (LinkBench loads into empty tables; store.Contents).
// Errors: the server's (a missing database or table wraps
// store.ErrNoSchema), ctx's, store.ErrClosed.
func (s *Store) HasData(ctx context.Context) (bool, error) {
	if err := s.check(ctx, "HasData"); err != nil {
		return false, err
	}
	for _, t := range []string{s.q.link, s.q.cnt, s.q.node} {
		var one int
		err := s.c.db.QueryRowContext(ctx, "SELECT 1 FROM "+t+" LIMIT 1").Scan(&one)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return false, s.c.eng.Wrap("HasData", err)
		}
	}
	return false, nil
}
