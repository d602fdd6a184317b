package mysqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/linkbench-go/linkbench/store"
)

// maxPathSwitches bounds how often one attempt of AddLink or UpdateLink
// may switch between its insert and update paths (each switch means a
// concurrent writer inserted or expunged the link in between).
const maxPathSwitches = 32

// maxInList is the largest number of id2s in one MultigetLinks statement;
// longer lists are queried in chunks.
const maxInList = 4096

// AddLink inserts l, or overwrites the link with the same (ID1, LinkType,
// ID2), keeping the count of (ID1, LinkType) equal to its visible links
// (reference §2.1, MD's addLink of §3.3: insert first; on a duplicate key,
// a locked update). It returns store.LinkInsert, store.LinkUpdate, or
// store.LinkNoChange when the existing row already held l's values.
// noInverse is ignored. l.Data must be shorter than 256 bytes (the column
// is VARCHAR(255)); ids, LinkType and Time must be >= 0 (unsigned
// columns). Errors: see the package documentation.
func (s *Store) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	return s.writeLink(ctx, opAddLink, &l, true)
}

// UpdateLink has AddLink's end state, starting with the locked update and
// falling back to an insert when the link is absent (MD's updateLink): it
// returns store.LinkUpdate or store.LinkNoChange when the link existed,
// store.LinkInsert otherwise. After a retry that follows a lost commit the
// result may describe the second attempt (LinkNoChange), never a wrong
// state.
func (s *Store) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	return s.writeLink(ctx, opUpdateLink, &l, false)
}

func (s *Store) writeLink(ctx context.Context, o op, l *store.Link, insertFirst bool) (store.WriteResult, error) {
	if err := s.check(ctx, o.String()); err != nil {
		return 0, err
	}
	r := retrier{s: s, o: o}
	for {
		res, err := s.writeLinkOnce(ctx, o, l, insertFirst)
		if err == nil {
			r.done()
			return res, nil
		}
		if err = r.fail(ctx, err, true); err != nil {
			return 0, err
		}
	}
}

// writeLinkOnce is one attempt of AddLink (insertFirst) or UpdateLink.
func (s *Store) writeLinkOnce(ctx context.Context, o op, l *store.Link, insertFirst bool) (store.WriteResult, error) {
	insert := insertFirst
	for range maxPathSwitches {
		if insert {
			dup, err := s.insertLinkTx(ctx, o, l)
			if err != nil || !dup {
				return store.LinkInsert, err
			}
			s.c.ctr.addToUpd.Add(1)
			insert = false
			continue
		}
		res, missing, err := s.updateLinkTx(ctx, o, l)
		if err != nil || !missing {
			return res, err
		}
		s.c.ctr.updToAdd.Add(1)
		insert = true
	}
	return 0, fmt.Errorf("link (%d, %d, %d) kept appearing and disappearing under concurrent writers (%d tries)",
		l.ID1, l.LinkType, l.ID2, maxPathSwitches)
}

// visible reports whether a stored visibility counts.
func visible(v int64) bool { return v == int64(store.VisibilityDefault) }

// begin starts a transaction.
func (s *Store) begin(ctx context.Context, o op) (*sql.Tx, error) {
	if err := s.inject(o, "begin"); err != nil {
		return nil, err
	}
	return s.c.db.BeginTx(ctx, nil)
}

// commit commits tx (an injected failure rolls it back, as a server that
// refuses the commit would).
func (s *Store) commit(tx *sql.Tx, o op) error {
	if err := s.inject(o, "commit"); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// insertLinkTx inserts l and counts it, in one transaction. dup reports a
// duplicate key (nothing done).
func (s *Store) insertLinkTx(ctx context.Context, o op, l *store.Link) (dup bool, err error) {
	ins, err := s.q.stmt(ctx, s.c.db, sInsLink)
	if err != nil {
		return false, err
	}
	ups, err := s.q.stmt(ctx, s.c.db, sCntUpsert)
	if err != nil {
		return false, err
	}
	tx, err := s.begin(ctx, o)
	if err != nil {
		return false, err
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback()
		}
	}()
	if err := s.inject(o, "insert"); err != nil {
		return false, err
	}
	if _, err := tx.StmtContext(ctx, ins).ExecContext(ctx, l.ID1, l.ID2, l.LinkType, int64(l.Visibility),
		nonNil(l.Data), int64(l.Version), l.Time); err != nil {
		if isDup(err) {
			return true, nil
		}
		return false, err
	}
	var base int64
	if l.Visibility == store.VisibilityDefault {
		base = 1
	}
	if err := s.countUpsert(ctx, o, tx, ups, l.ID1, l.LinkType, base); err != nil {
		return false, err
	}
	done = true
	return false, s.commit(tx, o)
}

// countUpsert adds delta (0 or 1) to the count of (id1, linkType),
// creating the row with count delta when it is absent.
func (s *Store) countUpsert(ctx context.Context, o op, tx *sql.Tx, ups *sql.Stmt, id1, linkType, delta int64) error {
	if err := s.inject(o, "count"); err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	res, err := tx.StmtContext(ctx, ups).ExecContext(ctx, id1, linkType, delta, now, delta, now)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 && n != 2 {
		return fmt.Errorf("count upsert of (%d, %d) affected %d rows, want 1 or 2", id1, linkType, n)
	}
	return nil
}

// countDec subtracts one from the count of (id1, linkType), which must
// exist.
func (s *Store) countDec(ctx context.Context, o op, tx *sql.Tx, dec *sql.Stmt, id1, linkType int64) error {
	if err := s.inject(o, "count"); err != nil {
		return err
	}
	res, err := tx.StmtContext(ctx, dec).ExecContext(ctx, time.Now().UnixMilli(), id1, linkType)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("count of (%d, %d) is missing while a visible link exists (decrement affected %d rows)",
			id1, linkType, n)
	}
	return nil
}

// lockLink locks the link row and returns its visibility; found is false
// when there is no row.
func (s *Store) lockLink(ctx context.Context, o op, tx *sql.Tx, id1, linkType, id2 int64) (vis int64, found bool, err error) {
	lock, err := s.q.stmt(ctx, s.c.db, sLock)
	if err != nil {
		return 0, false, err
	}
	if err := s.inject(o, "lock"); err != nil {
		return 0, false, err
	}
	err = tx.StmtContext(ctx, lock).QueryRowContext(ctx, id1, id2, linkType).Scan((*scanI64)(&vis))
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return vis, err == nil, err
}

// lockedRow is the link row read by S-lock in the update path, compared
// field by field with the link being written.
type lockedRow struct {
	vis     int64
	version int64
	time    int64
	data    eqData
}

// eqData is a scan target that only records whether the column equals want.
type eqData struct {
	want []byte
	eq   bool
}

func (d *eqData) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		d.eq = bytes.Equal(v, d.want)
	case string:
		d.eq = v == string(d.want)
	case nil:
		d.eq = false
	default:
		return fmt.Errorf("mysqlstore: cannot scan %T into data", src)
	}
	return nil
}

// updateLinkTx overwrites the locked link with l and adjusts the count, in
// one transaction. missing reports that there was no such link (nothing
// done).
//
// MD decides LINK_NO_CHANGE from the UPDATE's affected rows; MyRocks
// reports a matched row as changed even when it is not, so the locking
// read returns the whole row and an unchanged link is detected here,
// which also saves the UPDATE.
func (s *Store) updateLinkTx(ctx context.Context, o op, l *store.Link) (res store.WriteResult, missing bool, err error) {
	lock, err := s.q.stmt(ctx, s.c.db, sLockRow)
	if err != nil {
		return 0, false, err
	}
	upd, err := s.q.stmt(ctx, s.c.db, sUpdLink)
	if err != nil {
		return 0, false, err
	}
	var cnt *sql.Stmt
	if l.Visibility == store.VisibilityDefault {
		cnt, err = s.q.stmt(ctx, s.c.db, sCntUpsert)
	} else {
		cnt, err = s.q.stmt(ctx, s.c.db, sCntDec)
	}
	if err != nil {
		return 0, false, err
	}
	tx, err := s.begin(ctx, o)
	if err != nil {
		return 0, false, err
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback()
		}
	}()
	if err := s.inject(o, "lock"); err != nil {
		return 0, false, err
	}
	row := lockedRow{data: eqData{want: nonNil(l.Data)}}
	err = tx.StmtContext(ctx, lock).QueryRowContext(ctx, l.ID1, l.ID2, l.LinkType).Scan(
		(*scanI64)(&row.vis), &row.data, (*scanI64)(&row.version), (*scanI64)(&row.time))
	if errors.Is(err, sql.ErrNoRows) {
		return 0, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	if row.vis == int64(l.Visibility) && row.data.eq && row.version == int64(l.Version) && row.time == l.Time {
		return store.LinkNoChange, false, nil // rolled back: nothing to keep
	}
	if err := s.inject(o, "update"); err != nil {
		return 0, false, err
	}
	r, err := tx.StmtContext(ctx, upd).ExecContext(ctx, int64(l.Visibility), nonNil(l.Data), int64(l.Version), l.Time,
		l.ID1, l.ID2, l.LinkType)
	if err != nil {
		return 0, false, err
	}
	n, err := r.RowsAffected()
	if err != nil {
		return 0, false, err
	}
	if n != 1 {
		return 0, false, fmt.Errorf("update of locked, changed link (%d, %d, %d) affected %d rows", l.ID1, l.LinkType, l.ID2, n)
	}
	was, now := visible(row.vis), l.Visibility == store.VisibilityDefault
	switch {
	case now && !was:
		err = s.countUpsert(ctx, o, tx, cnt, l.ID1, l.LinkType, 1)
	case was && !now:
		err = s.countDec(ctx, o, tx, cnt, l.ID1, l.LinkType)
	}
	if err != nil {
		return 0, false, err
	}
	done = true
	return store.LinkUpdate, false, s.commit(tx, o)
}

// DeleteLink hides the link (expunge == false) or removes it (expunge ==
// true), decrementing the count only if it was visible (reference §3.3
// deleteLink, with the fix of §11.2-6: expunging a hidden link leaves the
// count alone). found reports whether the link existed. After a retry that
// follows a lost commit, found describes the second attempt.
func (s *Store) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (found bool, err error) {
	if err := s.check(ctx, "DeleteLink"); err != nil {
		return false, err
	}
	r := retrier{s: s, o: opDeleteLink}
	for {
		found, err := s.deleteLinkOnce(ctx, id1, linkType, id2, expunge)
		if err == nil {
			r.done()
			return found, nil
		}
		if err = r.fail(ctx, err, true); err != nil {
			return false, err
		}
	}
}

func (s *Store) deleteLinkOnce(ctx context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	const o = opDeleteLink
	which := sHide
	if expunge {
		which = sDelLink
	}
	wr, err := s.q.stmt(ctx, s.c.db, which)
	if err != nil {
		return false, err
	}
	dec, err := s.q.stmt(ctx, s.c.db, sCntDec)
	if err != nil {
		return false, err
	}
	tx, err := s.begin(ctx, o)
	if err != nil {
		return false, err
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback()
		}
	}()
	vis, found, err := s.lockLink(ctx, o, tx, id1, linkType, id2)
	if err != nil || !found {
		return false, err
	}
	if !expunge && vis == int64(store.VisibilityHidden) {
		return true, nil // already hidden: nothing to change
	}
	if err := s.inject(o, "delete"); err != nil {
		return false, err
	}
	r, err := tx.StmtContext(ctx, wr).ExecContext(ctx, id1, id2, linkType)
	if err != nil {
		return false, err
	}
	if n, err := r.RowsAffected(); err != nil || n != 1 {
		if err == nil {
			err = fmt.Errorf("delete of locked link (%d, %d, %d) affected %d rows", id1, linkType, id2, n)
		}
		return false, err
	}
	if visible(vis) {
		if err := s.countDec(ctx, o, tx, dec, id1, linkType); err != nil {
			return false, err
		}
	}
	done = true
	return true, s.commit(tx, o)
}

// linkDest returns the scan destinations of the link columns (linkCols)
// into l.
func linkDest(l *store.Link, dest *[7]any) []any {
	dest[0] = (*scanI64)(&l.ID1)
	dest[1] = (*scanI64)(&l.ID2)
	dest[2] = (*scanI64)(&l.LinkType)
	dest[3] = (*scanI8)(&l.Visibility)
	dest[4] = (*scanData)(&l.Data)
	dest[5] = (*scanI32)(&l.Version)
	dest[6] = (*scanI64)(&l.Time)
	return dest[:]
}

// GetLink returns the link (hidden or visible); found is false when it is
// absent. Errors: see the package documentation.
func (s *Store) GetLink(ctx context.Context, id1, linkType, id2 int64) (l store.Link, found bool, err error) {
	if err := s.check(ctx, "GetLink"); err != nil {
		return l, false, err
	}
	r := retrier{s: s, o: opGetLink}
	var dest [7]any
	for {
		err := s.getLinkOnce(ctx, id1, linkType, id2, linkDest(&l, &dest))
		if err == nil {
			r.done()
			return l, true, nil
		}
		if errors.Is(err, sql.ErrNoRows) {
			r.done()
			return store.Link{}, false, nil
		}
		if err = r.fail(ctx, err, true); err != nil {
			return store.Link{}, false, err
		}
	}
}

func (s *Store) getLinkOnce(ctx context.Context, id1, linkType, id2 int64, dest []any) error {
	st, err := s.q.stmt(ctx, s.c.db, sGetLink)
	if err != nil {
		return err
	}
	if err := s.inject(opGetLink, "get"); err != nil {
		return err
	}
	return st.QueryRowContext(ctx, id1, linkType, id2).Scan(dest...)
}

// scanLinks appends the rows' links to dst, reusing the Data capacity of
// dst's spare elements.
func scanLinks(rows *sql.Rows, dst []store.Link) ([]store.Link, error) {
	var dest [7]any
	for rows.Next() {
		if len(dst) < cap(dst) {
			dst = dst[:len(dst)+1]
		} else {
			dst = append(dst, store.Link{})
		}
		if err := rows.Scan(linkDest(&dst[len(dst)-1], &dest)...); err != nil {
			rows.Close()
			return dst[:len(dst)-1], err
		}
	}
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return dst, err
}

// MultigetLinks appends to dst the links (hidden included) among id2s that
// exist, each once: repeated id2s are sent once (SQL's IN returns each row
// once anyway). Statements for up to MultigetCacheSizes distinct id2s are
// prepared once per size; longer lists are prepared for the call and
// queried in chunks of at most 4096 id2s. Errors: see the package
// documentation.
func (s *Store) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	if err := s.check(ctx, "MultigetLinks"); err != nil {
		return dst, err
	}
	if len(id2s) == 0 {
		return dst, nil
	}
	args := make([]any, 2, 2+min(len(id2s), maxInList))
	args[0], args[1] = id1, linkType
	var seen map[int64]struct{}
	if len(id2s) > 64 {
		seen = make(map[int64]struct{}, len(id2s))
	}
	base := len(dst)
	start := 0 // first id2 of the current chunk
	for start < len(id2s) {
		args = args[:2]
		i := start
		for ; i < len(id2s) && len(args)-2 < maxInList; i++ {
			v := id2s[i]
			if seen != nil {
				if _, dup := seen[v]; dup {
					continue
				}
				seen[v] = struct{}{}
			} else if dupBefore(id2s[:i], v) {
				continue
			}
			args = append(args, v)
		}
		start = i
		if len(args) == 2 {
			break
		}
		r := retrier{s: s, o: opMultigetLinks}
		chunkBase := len(dst)
		for {
			var err error
			dst, err = s.multigetOnce(ctx, args, dst[:chunkBase])
			if err == nil {
				r.done()
				break
			}
			if err = r.fail(ctx, err, true); err != nil {
				return dst[:base], err
			}
		}
	}
	return dst, nil
}

// dupBefore reports whether v occurs in prev.
func dupBefore(prev []int64, v int64) bool {
	for _, p := range prev {
		if p == v {
			return true
		}
	}
	return false
}

func (s *Store) multigetOnce(ctx context.Context, args []any, dst []store.Link) ([]store.Link, error) {
	n := len(args) - 2
	if err := s.inject(opMultigetLinks, "select"); err != nil {
		return dst, err
	}
	if n <= MultigetCacheSizes {
		p := &s.q.multi[n]
		st := p.Load()
		if st == nil {
			var err error
			if st, err = s.q.prepared(ctx, s.c.db, p, s.q.multigetSQL(n)); err != nil {
				return dst, err
			}
		}
		rows, err := st.QueryContext(ctx, args...)
		if err != nil {
			return dst, err
		}
		return scanLinks(rows, dst)
	}
	conn, err := s.c.db.Conn(ctx)
	if err != nil {
		return dst, err
	}
	defer conn.Close()
	st, err := conn.PrepareContext(ctx, s.q.multigetSQL(n))
	if err != nil {
		return dst, err
	}
	defer st.Close()
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return dst, err
	}
	return scanLinks(rows, dst)
}

// GetLinkList appends to dst the visible links of r.ID1 and r.LinkType
// with r.MinTime <= time <= r.MaxTime, newest first, after skipping
// r.Offset of them, at most r.Limit (MD's range query through the id1_type
// index: reference §3.3 S-range). Ties in time come in the index's order
// (id2 descending), not the reference store's. Limit <= 0 returns no
// links without a query (the fix of reference §11.2-20); a negative Offset
// counts as 0. Errors: see the package documentation.
func (s *Store) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	if err := s.check(ctx, "GetLinkList"); err != nil {
		return dst, err
	}
	if r.Limit <= 0 || r.MinTime > r.MaxTime {
		return dst, nil
	}
	rt := retrier{s: s, o: opGetLinkList}
	base := len(dst)
	for {
		out, err := s.rangeOnce(ctx, &r, dst[:base])
		if err == nil {
			rt.done()
			return out, nil
		}
		if err = rt.fail(ctx, err, true); err != nil {
			return dst[:base], err
		}
	}
}

func (s *Store) rangeOnce(ctx context.Context, r *store.LinkRange, dst []store.Link) ([]store.Link, error) {
	st, err := s.q.stmt(ctx, s.c.db, sRange)
	if err != nil {
		return dst, err
	}
	if err := s.inject(opGetLinkList, "select"); err != nil {
		return dst, err
	}
	rows, err := st.QueryContext(ctx, r.ID1, r.LinkType, r.MinTime, r.MaxTime, int64(r.Limit), int64(max(r.Offset, 0)))
	if err != nil {
		return dst, err
	}
	return scanLinks(rows, dst)
}

// CountLinks returns the count row of (id1, linkType), 0 when there is
// none. Errors: see the package documentation.
func (s *Store) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	if err := s.check(ctx, "CountLinks"); err != nil {
		return 0, err
	}
	r := retrier{s: s, o: opCountLinks}
	for {
		var n int64
		err := s.countOnce(ctx, id1, linkType, &n)
		if err == nil || errors.Is(err, sql.ErrNoRows) {
			r.done()
			return n, nil
		}
		if err = r.fail(ctx, err, true); err != nil {
			return 0, err
		}
	}
}

func (s *Store) countOnce(ctx context.Context, id1, linkType int64, n *int64) error {
	st, err := s.q.stmt(ctx, s.c.db, sCount)
	if err != nil {
		return err
	}
	if err := s.inject(opCountLinks, "select"); err != nil {
		return err
	}
	return st.QueryRowContext(ctx, id1, linkType).Scan((*scanI64)(n))
}
