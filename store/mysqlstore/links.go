package mysqlstore

import (
	"context"
	"database/sql/driver"
	"fmt"
	"time"
	"unsafe"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// maxInList is the largest number of id2s in one MultigetLinks statement;
// longer lists are queried in chunks.
const maxInList = 4096

// AddLink inserts l, or overwrites the link with the same (ID1, LinkType,
// ID2), keeping the count of (ID1, LinkType) equal to its visible links,
// with MD's statements (reference §3.3 addLink): on the write connection,
// INSERT the link and upsert its count, then COMMIT; on a duplicate key,
// ROLLBACK and take the update path (SELECT ... FOR UPDATE, UPDATE, the
// count's UPDATE when the visibility changes, COMMIT). It returns
// store.LinkInsert, store.LinkUpdate, or store.LinkNoChange when the
// server reports that the UPDATE changed nothing (InnoDB does; ROCKSDB
// reports a matched row as changed, hence LinkUpdate there). noInverse is
// ignored. l.Data must be shorter than 256 bytes (the column is
// VARCHAR(255)); ids, LinkType and Time must be >= 0 (unsigned columns).
func (ss *Session) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	return ss.writeLink(ctx, sqlstore.OpAddLink, &l, true)
}

// UpdateLink has AddLink's end state, starting with the locked update and
// falling back to an insert when the link is absent (MD's updateLink): it
// returns store.LinkUpdate or store.LinkNoChange when the link existed,
// store.LinkInsert otherwise. After a retry that follows a lost commit the
// result may describe the second attempt, never a wrong state.
func (ss *Session) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	return ss.writeLink(ctx, sqlstore.OpUpdateLink, &l, false)
}

func (ss *Session) writeLink(ctx context.Context, o sqlstore.Op, l *store.Link, insertFirst bool) (res store.WriteResult, err error) {
	err = ss.calls.Run(ctx, o, true, func(attempt int) error {
		if attempt == 0 {
			ss.ambiguous = false
		} else if done, err := ss.resolveAmbiguous(ctx, o, l, false, false); err != nil || done {
			// The previous attempt's commit took effect: not written again.
			res = store.LinkUpdate
			return err
		}
		var err error
		res, err = ss.writeLinkOnce(ctx, o, l, insertFirst)
		return err
	})
	return res, err
}

// writeLinkOnce is one attempt of AddLink (insertFirst) or UpdateLink, on
// the write connection.
func (ss *Session) writeLinkOnce(ctx context.Context, o sqlstore.Op, l *store.Link, insertFirst bool) (store.WriteResult, error) {
	c, err := ss.conn(ctx, connWrite)
	if err != nil {
		return 0, err
	}
	return ss.calls.WriteLink(l, insertFirst,
		func() (bool, error) { return ss.insertLink(ctx, c, o, l) },
		func() (store.WriteResult, bool, error) { return ss.updateLink(ctx, c, o, l) }, nil)
}

// visible reports whether a stored visibility counts.
func visible(v int64) bool { return v == int64(store.VisibilityDefault) }

// execW runs statement id on the write connection c, inside its open
// transaction; on failure the transaction is rolled back.
func (ss *Session) execW(ctx context.Context, c *conn, o sqlstore.Op, label string, id int, args []driver.Value) (int64, error) {
	st, err := c.stmt(ctx, ss, id)
	if err == nil {
		err = ss.v.c.eng.Inject(o, label)
	}
	var n int64
	if err == nil {
		n, _, err = c.exec(ctx, st, args)
	}
	if err != nil {
		ss.rollback(ctx, c)
	}
	return n, err
}

// insertLink inserts l and counts it, in one transaction (the insert path
// of MD's addLink). dup reports a duplicate key (rolled back, nothing done).
func (ss *Session) insertLink(ctx context.Context, c *conn, o sqlstore.Op, l *store.Link) (dup bool, err error) {
	_, err = ss.execW(ctx, c, o, "insert", sInsLink, c.setArgs(l.ID1, l.ID2, l.LinkType, int64(l.Visibility),
		nonNil(l.Data), int64(l.Version), l.Time))
	if err != nil {
		return isDup(err), ignoreDup(err)
	}
	var base int64
	if l.Visibility == store.VisibilityDefault {
		base = 1
	}
	now := time.Now().UnixMilli()
	n, err := ss.execW(ctx, c, o, "count", sCntUpsert, c.setArgs(l.ID1, l.LinkType, base, now, base, now))
	if err != nil {
		return false, err
	}
	if n != 1 && n != 2 {
		ss.rollback(ctx, c)
		return false, fmt.Errorf("count upsert of (%d, %d) affected %d rows, want 1 or 2", l.ID1, l.LinkType, n)
	}
	return false, ss.commit(ctx, c, o)
}

// ignoreDup returns nil for a duplicate-key error, err otherwise.
func ignoreDup(err error) error {
	if isDup(err) {
		return nil
	}
	return err
}

// lockLink reads the visibility of the link row with S-lock (SELECT ...
// FOR UPDATE) on the write connection; found is false when there is no
// row. On an error the transaction is rolled back.
func (ss *Session) lockLink(ctx context.Context, c *conn, o sqlstore.Op, id1, linkType, id2 int64) (vis int64, found bool, err error) {
	st, err := c.stmt(ctx, ss, sLock)
	if err == nil {
		err = ss.v.c.eng.Inject(o, "lock")
	}
	var rows driver.Rows
	if err == nil {
		rows, err = c.query(ctx, st, c.setArgs(id1, id2, linkType))
	}
	if err == nil {
		found, err = scanOne(c, rows, 1, func(d []driver.Value) (err error) {
			vis, err = asInt64(d[0])
			return err
		})
	}
	if err != nil {
		ss.rollback(ctx, c)
	}
	return vis, found, err
}

// updateLink overwrites the locked link with l and adjusts the count, in
// one transaction (the update path of MD's addLink and updateLink).
// missing reports that there was no such link (rolled back, nothing done).
func (ss *Session) updateLink(ctx context.Context, c *conn, o sqlstore.Op, l *store.Link) (res store.WriteResult, missing bool, err error) {
	vis, found, err := ss.lockLink(ctx, c, o, l.ID1, l.LinkType, l.ID2)
	if err != nil {
		return 0, false, err
	}
	if !found {
		ss.rollback(ctx, c)
		return 0, true, nil
	}
	n, err := ss.execW(ctx, c, o, "update", sUpdLink, c.setArgs(int64(l.Visibility), nonNil(l.Data), int64(l.Version), l.Time,
		l.ID1, l.ID2, l.LinkType))
	if err != nil {
		return 0, false, err
	}
	switch n {
	case 0:
		ss.rollback(ctx, c) // nothing differed (MD: LINK_NO_CHANGE)
		return store.LinkNoChange, false, nil
	case 1:
	default:
		ss.rollback(ctx, c)
		return 0, false, fmt.Errorf("update of locked link (%d, %d, %d) affected %d rows", l.ID1, l.LinkType, l.ID2, n)
	}
	was, now := visible(vis), l.Visibility == store.VisibilityDefault
	if was != now {
		delta := int64(1)
		if was {
			delta = -1
		}
		if err := ss.countInc(ctx, c, o, l.ID1, l.LinkType, delta); err != nil {
			return 0, false, err
		}
	}
	return store.LinkUpdate, false, ss.commit(ctx, c, o)
}

// countInc adds delta (+1 or -1) to the count of (id1, linkType) with
// S-cnt-inc, which must find the row. A link made visible whose count row
// is missing (possible only in data not written by LinkBench) gets one
// from S-cnt-upsert, so counts stay exact. On an error the transaction is
// rolled back.
func (ss *Session) countInc(ctx context.Context, c *conn, o sqlstore.Op, id1, linkType, delta int64) error {
	now := time.Now().UnixMilli()
	n, err := ss.execW(ctx, c, o, "count", sCntInc, c.setArgs(delta, now, id1, linkType))
	if err != nil {
		return err
	}
	if n == 0 && delta > 0 {
		if n, err = ss.execW(ctx, c, o, "count", sCntUpsert, c.setArgs(id1, linkType, delta, now, delta, now)); err != nil {
			return err
		}
	}
	if n != 1 {
		ss.rollback(ctx, c)
		return fmt.Errorf("count of (%d, %d) is missing while a visible link exists (count update affected %d rows)",
			id1, linkType, n)
	}
	return nil
}

// DeleteLink hides the link (expunge == false) or removes it (expunge ==
// true), decrementing the count only if it was visible, with MD's
// statements (reference §3.3 deleteLink): S-lock; ROLLBACK when the link
// is absent, or hidden and not expunged; else S-hide or S-del, S-cnt-inc
// with -1 when it was visible, COMMIT. Unlike MD, expunging a hidden link
// leaves the count alone (the fix of reference §11.2-6). found reports
// whether the link existed. After a retry that follows a lost commit,
// found describes the second attempt.
func (ss *Session) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (found bool, err error) {
	err = ss.calls.Run(ctx, sqlstore.OpDeleteLink, true, func(attempt int) error {
		if attempt == 0 {
			ss.ambiguous = false
		} else if ss.ambiguous {
			want := store.Link{ID1: id1, LinkType: linkType, ID2: id2}
			if done, err := ss.resolveAmbiguous(ctx, sqlstore.OpDeleteLink, &want, true, expunge); err != nil || done {
				found = true // the previous attempt's commit took effect
				return err
			}
		}
		var err error
		found, err = ss.deleteLinkOnce(ctx, id1, linkType, id2, expunge)
		return err
	})
	return found, err
}

func (ss *Session) deleteLinkOnce(ctx context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	const o = sqlstore.OpDeleteLink
	c, err := ss.conn(ctx, connWrite)
	if err != nil {
		return false, err
	}
	vis, found, err := ss.lockLink(ctx, c, o, id1, linkType, id2)
	if err != nil {
		return false, err
	}
	if !found || (!expunge && vis == int64(store.VisibilityHidden)) {
		ss.rollback(ctx, c)
		return found, nil
	}
	which := sHide
	if expunge {
		which = sDelLink
	}
	n, err := ss.execW(ctx, c, o, "delete", which, c.setArgs(id1, id2, linkType))
	if err != nil {
		return false, err
	}
	if n == 0 && expunge && ss.v.q.spider(ctx, ss.v.c.db) {
		n = 1 // a Spider head reports 0 for every DELETE; the row is locked above
	}
	if n != 1 {
		ss.rollback(ctx, c)
		return false, fmt.Errorf("delete of locked link (%d, %d, %d) affected %d rows", id1, linkType, id2, n)
	}
	if visible(vis) {
		if err := ss.countInc(ctx, c, o, id1, linkType, -1); err != nil {
			return false, err
		}
	}
	return true, ss.commit(ctx, c, o)
}

// read runs the prepared statement id with args on the read connection
// and calls row for each row (with the row's values, valid until the next
// row), or, when one is true, for the first row only; found reports
// whether there was a row.
func (ss *Session) read(ctx context.Context, o sqlstore.Op, label string, id int, one bool, row func([]driver.Value) error, args ...driver.Value) (found bool, err error) {
	c, err := ss.conn(ctx, connRead)
	if err != nil {
		return false, err
	}
	st, err := c.stmt(ctx, ss, id)
	if err == nil {
		err = ss.v.c.eng.Inject(o, label)
	}
	var rows driver.Rows
	if err == nil {
		rows, err = c.query(ctx, st, c.setArgs(args...))
	}
	switch {
	case err == nil && one:
		found, err = scanOne(c, rows, stmtCols[id], row)
	case err == nil:
		err = scanAll(c, rows, stmtCols[id], func(d []driver.Value) error {
			found = true
			return row(d)
		})
	}
	ss.after(c, err)
	return found, err
}

// scanAll calls row for each row of rows, of ncol columns, then closes
// them.
func scanAll(c *conn, rows driver.Rows, ncol int, row func([]driver.Value) error) error {
	n := ncol
	for {
		done, err := c.next(rows, n)
		if err == nil && !done {
			err = row(c.dest[:n])
		}
		if err != nil || done {
			if cerr := rows.Close(); err == nil {
				err = cerr
			}
			return err
		}
	}
}

// scanOne calls row for the first row of rows, if any, and closes them;
// found reports whether there was a row.
func scanOne(c *conn, rows driver.Rows, ncol int, row func([]driver.Value) error) (found bool, err error) {
	err = scanAll(c, rows, ncol, func(d []driver.Value) error {
		if found {
			return nil
		}
		found = true
		return row(d)
	})
	return found, err
}

// GetLink returns the link (hidden or visible) with S-get on the read
// connection; found is false when it is absent.
func (ss *Session) GetLink(ctx context.Context, id1, linkType, id2 int64) (l store.Link, found bool, err error) {
	err = ss.calls.Run(ctx, sqlstore.OpGetLink, true, func(int) (err error) {
		found, err = ss.read(ctx, sqlstore.OpGetLink, "get", sGetLink, true,
			func(d []driver.Value) error { return scanLink(d, &l) }, id1, linkType, id2)
		return err
	})
	if err != nil || !found {
		return store.Link{}, false, err
	}
	return l, true, nil
}

// scanLink converts a row of linkCols into l, reusing l.Data's capacity.
func scanLink(d []driver.Value, l *store.Link) error {
	return sqlstore.ScanLink(d, l, asInt64, appendData)
}

// appendLink appends the link of row d to dst, reusing the Data capacity
// of dst's spare element.
func appendLink(dst []store.Link, d []driver.Value) ([]store.Link, error) {
	return sqlstore.AppendLink(dst, d, asInt64, appendData)
}

// MultigetLinks appends to dst the links (hidden included) among id2s
// that exist, each once, with MD's literal statement (S-multiget: a text
// query with the ids in an IN list, not a prepared statement) on the read
// connection. Lists longer than 4096 id2s are queried in chunks of
// distinct id2s.
func (ss *Session) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	if len(id2s) == 0 {
		if err := ss.calls.Enter(ctx, sqlstore.OpMultigetLinks); err != nil {
			return dst, err
		}
		return dst, nil
	}
	if len(id2s) > maxInList {
		id2s = distinct(id2s)
	}
	base := len(dst)
	for start := 0; start < len(id2s); start += maxInList {
		part := id2s[start:min(start+maxInList, len(id2s))]
		chunkBase := len(dst)
		err := ss.calls.Run(ctx, sqlstore.OpMultigetLinks, true, func(int) error {
			var err error
			dst, err = ss.multigetOnce(ctx, id1, linkType, part, dst[:chunkBase])
			return err
		})
		if err != nil {
			return dst[:base], err
		}
	}
	return dst, nil
}

// distinct returns ids without repeats, in first-seen order.
func distinct(ids []int64) []int64 {
	seen := make(map[int64]struct{}, len(ids))
	out := make([]int64, 0, len(ids))
	for _, v := range ids {
		if _, dup := seen[v]; !dup {
			seen[v] = struct{}{}
			out = append(out, v)
		}
	}
	return out
}

func (ss *Session) multigetOnce(ctx context.Context, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	c, err := ss.conn(ctx, connRead)
	if err != nil {
		return dst, err
	}
	if err := ss.v.c.eng.Inject(sqlstore.OpMultigetLinks, "select"); err != nil {
		return dst, err
	}
	ss.lit = ss.v.q.appendMultiget(ss.lit[:0], id1, linkType, id2s)
	// The driver copies the text into its packet buffer and keeps no
	// reference to it, so the session's buffer is lent without a copy.
	rows, err := c.queryText(ctx, unsafe.String(unsafe.SliceData(ss.lit), len(ss.lit)))
	if err == nil {
		err = scanAll(c, rows, 7, func(d []driver.Value) (err error) {
			dst, err = appendLink(dst, d)
			return err
		})
	}
	ss.after(c, err)
	return dst, err
}

// GetLinkList appends to dst the visible links of r.ID1 and r.LinkType
// with r.MinTime <= time <= r.MaxTime, newest first, after skipping
// r.Offset of them, at most r.Limit, with S-range (through the id1_type
// index) on the read connection. Ties in time come in the index's order
// (id2 descending), not the reference store's. Limit <= 0 returns no
// links without a query (the fix of reference §11.2-20); a negative
// Offset counts as 0.
func (ss *Session) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	if r.Limit <= 0 || r.MinTime > r.MaxTime {
		if err := ss.calls.Enter(ctx, sqlstore.OpGetLinkList); err != nil {
			return dst, err
		}
		return dst, nil
	}
	base := len(dst)
	err := ss.calls.Run(ctx, sqlstore.OpGetLinkList, true, func(int) error {
		dst = dst[:base]
		_, err := ss.read(ctx, sqlstore.OpGetLinkList, "select", sRange, false, func(d []driver.Value) (err error) {
			dst, err = appendLink(dst, d)
			return err
		}, r.ID1, r.LinkType, r.MinTime, r.MaxTime, int64(r.Limit), int64(max(r.Offset, 0)))
		return err
	})
	if err != nil {
		return dst[:base], err
	}
	return dst, nil
}

// CountLinks returns the count row of (id1, linkType) with S-count on the
// read connection, 0 when there is none.
func (ss *Session) CountLinks(ctx context.Context, id1, linkType int64) (n int64, err error) {
	err = ss.calls.Run(ctx, sqlstore.OpCountLinks, true, func(int) error {
		n = 0
		_, err := ss.read(ctx, sqlstore.OpCountLinks, "select", sCount, true, func(d []driver.Value) (err error) {
			n, err = asInt64(d[0])
			return err
		}, id1, linkType)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
