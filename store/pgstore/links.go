package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// send runs batch b on c after the injection point o:step; on an error
// the transaction is rolled back (or the connection dropped) unless keep
// says the caller handles it.
func (ss *Session) send(ctx context.Context, c *conn, o sqlstore.Op, step string, b *batch, row func(int, [][]byte) error) error {
	err := ss.v.c.eng.Inject(o, step)
	if err == nil {
		_, err = c.run(ctx, b, row)
	}
	if err != nil && !isDup(err) {
		ss.after(c, err)
	}
	return err
}

// isDup reports whether err is a duplicate-key error (23505).
func isDup(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == stateUniqueViolate
}

// begin starts a write batch: ROLLBACK first when the connection is still
// in a transaction block (the failed insert of AddLink's duplicate path,
// the empty lock of UpdateLink's missing path), then BEGIN.
func begin(c *conn, b *batch) error {
	if c.txOpen() {
		if err := c.add(b, sRollback); err != nil {
			return err
		}
	}
	return c.add(b, sBegin)
}

// AddLink inserts l, or overwrites the link with the same (ID1, LinkType,
// ID2), keeping the count of (ID1, LinkType) equal to its visible links,
// with MD's statements (reference §3.3 addLink): one round trip of BEGIN,
// S-ins-link, S-cnt-upsert, COMMIT; on a duplicate key (23505) the update
// path (S-lock, then S-upd-link, the count's change when the visibility
// changes, COMMIT). It returns store.LinkInsert or store.LinkUpdate (see
// the package documentation for why never store.LinkNoChange). noInverse
// is ignored. The integer fields must fit the columns (visibility a
// SMALLINT, version an INT).
func (ss *Session) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	return ss.writeLink(ctx, sqlstore.OpAddLink, &l, true)
}

// writeLink runs AddLink (insertFirst) or UpdateLink: each attempt on the
// session's connection, with its statements prepared.
func (ss *Session) writeLink(ctx context.Context, o sqlstore.Op, l *store.Link, insertFirst bool) (res store.WriteResult, err error) {
	err = ss.calls.Run(ctx, o, true, func(int) error {
		c, err := ss.prepared(ctx)
		if err == nil {
			res, err = ss.calls.WriteLink(l, insertFirst,
				func() (bool, error) { return ss.insertLink(ctx, c, o, l) },
				func() (store.WriteResult, bool, error) { return ss.updateLink(ctx, c, o, l) },
				func() { ss.after(c, errConnLost) }) // ends the transaction left open
		}
		return err
	})
	return res, err
}

// UpdateLink has AddLink's end state, starting with the locked update and
// falling back to the insert when the link is absent (MD's updateLink): it
// returns store.LinkUpdate when the link existed, store.LinkInsert
// otherwise. After a retry that follows a lost commit the result may
// describe the second attempt, never a wrong state.
func (ss *Session) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	return ss.writeLink(ctx, sqlstore.OpUpdateLink, &l, false)
}

// visible reports whether a stored visibility counts.
func visible(v int64) bool { return v == int64(store.VisibilityDefault) }

// insertLink inserts l and counts it, in one round trip: [ROLLBACK?,
// BEGIN, S-ins-link, S-cnt-upsert, COMMIT] (the insert path of MD's
// addLink). dup reports a duplicate key: the transaction failed, nothing
// was done, and the connection is left in the failed transaction block
// for the update path's batch to roll back.
func (ss *Session) insertLink(ctx context.Context, c *conn, o sqlstore.Op, l *store.Link) (dup bool, err error) {
	var b batch
	if err := begin(c, &b); err != nil {
		ss.after(c, err)
		return false, err
	}
	c.args(sInsLink).int(l.ID1).int(l.ID2).int(l.LinkType).int(int64(l.Visibility)).bytes(l.Data).int(int64(l.Version)).int(l.Time)
	if err := c.add(&b, sInsLink); err != nil {
		ss.after(c, err)
		return false, err
	}
	var base int64
	if l.Visibility == store.VisibilityDefault {
		base = 1
	}
	ci := b.n
	c.args(sCntUpsert).int(l.ID1).int(l.LinkType).int(base).int(time.Now().UnixMilli())
	if err := c.add(&b, sCntUpsert); err != nil {
		ss.after(c, err)
		return false, err
	}
	if err := c.add(&b, sCommit); err != nil {
		ss.after(c, err)
		return false, err
	}
	if err := ss.send(ctx, c, o, "insert", &b, nil); err != nil {
		if isDup(err) {
			return true, nil
		}
		return false, err
	}
	if n := c.affected[ci]; n != 1 {
		// Committed: the upsert cannot affect another number of rows.
		return false, fmt.Errorf("count upsert of (%d, %d) affected %d rows, want 1", l.ID1, l.LinkType, n)
	}
	return false, nil
}

// lockLink starts a transaction and reads the visibility of the link row
// with S-lock (SELECT ... FOR UPDATE): one round trip of [ROLLBACK?,
// BEGIN, S-lock]. found is false when there is no row; the transaction is
// left open either way. On an error it is rolled back.
func (ss *Session) lockLink(ctx context.Context, c *conn, o sqlstore.Op, id1, linkType, id2 int64) (vis int64, found bool, err error) {
	var b batch
	if err := begin(c, &b); err != nil {
		ss.after(c, err)
		return 0, false, err
	}
	li := b.n
	c.args(sLock).int(id1).int(id2).int(linkType)
	if err := c.add(&b, sLock); err != nil {
		ss.after(c, err)
		return 0, false, err
	}
	err = ss.send(ctx, c, o, "lock", &b, func(i int, vals [][]byte) (err error) {
		if i == li && !found {
			found = true
			vis, err = getInt(vals[0])
		}
		return err
	})
	if err != nil {
		if isDup(err) { // not possible for a SELECT; never leave the transaction open
			ss.after(c, errConnLost)
		}
		return 0, false, err
	}
	return vis, found, nil
}

// addCountChange appends the count change of a link whose visibility goes
// from was to now: S-cnt-upsert with +1 (it cannot miss the row) or
// S-cnt-inc with -1; it returns the statement's index, -1 when the
// visibility does not change.
func addCountChange(c *conn, b *batch, id1, linkType int64, was, now bool) (int, error) {
	if was == now {
		return -1, nil
	}
	i := b.n
	ms := time.Now().UnixMilli()
	if now {
		c.args(sCntUpsert).int(id1).int(linkType).int(1).int(ms)
		return i, c.add(b, sCntUpsert)
	}
	c.args(sCntInc).int(-1).int(ms).int(id1).int(linkType)
	return i, c.add(b, sCntInc)
}

// checkDecrement reports a count decrement that found no count row: the
// counts were already wrong before the call (a visible link without a
// count row), and the write has been committed.
func checkDecrement(c *conn, ci int, id1, linkType int64) error {
	if ci >= 0 && c.affected[ci] != 1 {
		return fmt.Errorf("count of (%d, %d) was missing while a visible link existed (the link write is committed; the counts were inconsistent before it)",
			id1, linkType)
	}
	return nil
}

// updateLink overwrites the link with l and adjusts the count (the update
// path of MD's addLink and updateLink): [.., S-lock] then [S-upd-link,
// count change?, COMMIT]. missing reports that there was no such link:
// the transaction is left open (and empty) for the insert path's batch to
// roll back.
func (ss *Session) updateLink(ctx context.Context, c *conn, o sqlstore.Op, l *store.Link) (res store.WriteResult, missing bool, err error) {
	vis, found, err := ss.lockLink(ctx, c, o, l.ID1, l.LinkType, l.ID2)
	if err != nil {
		return 0, false, err
	}
	if !found {
		return 0, true, nil
	}
	var b batch
	ui := b.n
	c.args(sUpdLink).int(int64(l.Visibility)).bytes(l.Data).int(int64(l.Version)).int(l.Time).int(l.ID1).int(l.ID2).int(l.LinkType)
	err = c.add(&b, sUpdLink)
	ci := -1
	if err == nil {
		ci, err = addCountChange(c, &b, l.ID1, l.LinkType, visible(vis), l.Visibility == store.VisibilityDefault)
	}
	if err == nil {
		err = c.add(&b, sCommit)
	}
	if err != nil {
		ss.after(c, err)
		return 0, false, err
	}
	if err := ss.send(ctx, c, o, "update", &b, nil); err != nil {
		return 0, false, err
	}
	if n := c.affected[ui]; n != 1 {
		return 0, false, fmt.Errorf("update of locked link (%d, %d, %d) affected %d rows", l.ID1, l.LinkType, l.ID2, n)
	}
	if vis == int64(store.VisibilityDefault) && l.Visibility != store.VisibilityDefault {
		if err := checkDecrement(c, ci, l.ID1, l.LinkType); err != nil {
			return 0, false, err
		}
	}
	return store.LinkUpdate, false, nil
}

// DeleteLink hides the link (expunge == false) or removes it (expunge ==
// true), decrementing the count only if it was visible, with MD's
// statements (reference §3.3 deleteLink): [BEGIN, S-lock]; ROLLBACK when
// the link is absent, or hidden and not expunged; else [S-hide or S-del,
// S-cnt-inc -1 when it was visible, COMMIT]. Unlike MD, expunging a hidden
// link leaves the count alone (the fix of reference §11.2-6). found
// reports whether the link existed. After a retry that follows a lost
// commit, found describes the second attempt.
func (ss *Session) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (found bool, err error) {
	err = ss.calls.Run(ctx, sqlstore.OpDeleteLink, true, func(int) error {
		c, err := ss.prepared(ctx)
		if err == nil {
			found, err = ss.deleteLinkOn(ctx, c, id1, linkType, id2, expunge)
		}
		return err
	})
	return found, err
}

// deleteLinkOn is one attempt of DeleteLink on connection c.
func (ss *Session) deleteLinkOn(ctx context.Context, c *conn, id1, linkType, id2 int64, expunge bool) (bool, error) {
	const o = sqlstore.OpDeleteLink
	vis, found, err := ss.lockLink(ctx, c, o, id1, linkType, id2)
	if err != nil {
		return false, err
	}
	var b batch
	if !found || (!expunge && vis == int64(store.VisibilityHidden)) {
		if err := c.add(&b, sRollback); err != nil {
			ss.after(c, err)
			return false, err
		}
		return found, ss.send(ctx, c, o, "rollback", &b, nil)
	}
	which := sHide
	if expunge {
		which = sDelLink
	}
	di := b.n
	c.args(which).int(id1).int(id2).int(linkType)
	err = c.add(&b, which)
	ci := -1
	if err == nil {
		ci, err = addCountChange(c, &b, id1, linkType, visible(vis), false)
	}
	if err == nil {
		err = c.add(&b, sCommit)
	}
	if err != nil {
		ss.after(c, err)
		return false, err
	}
	if err := ss.send(ctx, c, o, "delete", &b, nil); err != nil {
		return false, err
	}
	if n := c.affected[di]; n != 1 {
		return false, fmt.Errorf("delete of locked link (%d, %d, %d) affected %d rows", id1, linkType, id2, n)
	}
	return true, checkDecrement(c, ci, id1, linkType)
}

// read runs statement id, with the parameters set by args, on the
// session's connection outside any transaction block, and calls row for
// each row (with the row's values, valid until the next row).
func (ss *Session) read(ctx context.Context, o sqlstore.Op, id int, args func(*encoder), row func([][]byte) error) error {
	c, err := ss.prepared(ctx)
	if err != nil {
		return err
	}
	if c.txOpen() { // not after a completed call; kept as a guard
		ss.rollback(c)
		if c, err = ss.prepared(ctx); err != nil {
			return err
		}
	}
	if err := ss.v.c.eng.Inject(o, "select"); err != nil {
		return err
	}
	args(c.args(id))
	_, err = c.query(ctx, id, row)
	ss.after(c, err)
	return err
}

// scanLink converts a row of linkCols into l, reusing l.Data's capacity.
func scanLink(vals [][]byte, l *store.Link) error {
	return sqlstore.ScanLink(vals, l, getInt, appendBytes)
}

// appendLink appends the link of row vals to dst, reusing the Data
// capacity of dst's spare element.
func appendLink(dst []store.Link, vals [][]byte) ([]store.Link, error) {
	return sqlstore.AppendLink(dst, vals, getInt, appendBytes)
}

// appendBytes appends a bytea value to dst.
func appendBytes(dst, v []byte) ([]byte, error) { return append(dst, v...), nil }

// GetLink returns the link (hidden or visible) with S-get; found is false
// when it is absent.
func (ss *Session) GetLink(ctx context.Context, id1, linkType, id2 int64) (l store.Link, found bool, err error) {
	err = ss.calls.Run(ctx, sqlstore.OpGetLink, true, func(int) error {
		found = false
		return ss.read(ctx, sqlstore.OpGetLink, sGetLink, func(e *encoder) { e.int(id1).int(linkType).int(id2) },
			func(vals [][]byte) error {
				if found {
					return nil
				}
				found = true
				return scanLink(vals, &l)
			})
	})
	if err != nil || !found {
		return store.Link{}, false, err
	}
	return l, true, nil
}

// CountLinks returns the count row of (id1, linkType) with S-count, 0 when
// there is none.
func (ss *Session) CountLinks(ctx context.Context, id1, linkType int64) (n int64, err error) {
	err = ss.calls.Run(ctx, sqlstore.OpCountLinks, true, func(int) error {
		n = 0
		return ss.read(ctx, sqlstore.OpCountLinks, sCount, func(e *encoder) { e.int(id1).int(linkType) },
			func(vals [][]byte) (err error) {
				n, err = getInt(vals[0])
				return err
			})
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// MultigetLinks appends to dst the links (hidden included) among id2s
// that exist, each once, with S-multiget (id2 = ANY($3), the id2s as one
// int8 array parameter).
func (ss *Session) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	if len(id2s) == 0 {
		return dst, ss.calls.Enter(ctx, sqlstore.OpMultigetLinks)
	}
	base := len(dst)
	err := ss.calls.Run(ctx, sqlstore.OpMultigetLinks, true, func(int) error {
		dst = dst[:base]
		return ss.read(ctx, sqlstore.OpMultigetLinks, sMultiget, func(e *encoder) { e.int(id1).int(linkType).int8Array(id2s) },
			func(vals [][]byte) (err error) {
				dst, err = appendLink(dst, vals)
				return err
			})
	})
	if err != nil {
		return dst[:base], err
	}
	return dst, nil
}

// GetLinkList appends to dst the visible links of r.ID1 and r.LinkType
// with r.MinTime <= time <= r.MaxTime, newest first, after skipping
// r.Offset of them, at most r.Limit, with S-range (through the id1_type
// index). Ties in time come in the index's order (id2 descending), not the
// reference store's. Limit <= 0 returns no links without a query (the fix
// of reference §11.2-20); a negative Offset counts as 0.
func (ss *Session) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	if r.Limit <= 0 || r.MinTime > r.MaxTime {
		return dst, ss.calls.Enter(ctx, sqlstore.OpGetLinkList)
	}
	base := len(dst)
	err := ss.calls.Run(ctx, sqlstore.OpGetLinkList, true, func(int) error {
		dst = dst[:base]
		return ss.read(ctx, sqlstore.OpGetLinkList, sRange, func(e *encoder) {
			e.int(r.ID1).int(r.LinkType).int(r.MinTime).int(r.MaxTime).int(int64(r.Limit)).int(int64(max(r.Offset, 0)))
		}, func(vals [][]byte) (err error) {
			dst, err = appendLink(dst, vals)
			return err
		})
	})
	if err != nil {
		return dst[:base], err
	}
	return dst, nil
}
