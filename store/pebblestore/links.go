package pebblestore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/linkbench-go/linkbench/store"
)

// scratch holds a call's key and value buffers: a Session owns one, the
// Store's own methods take one from a pool.
type scratch struct {
	pk       [linkKeyLen]byte
	ik, ik2  [indexKeyLen]byte
	lo, hi   [indexKeyLen]byte
	ck       [countKeyLen]byte
	nk       [nodeKeyLen]byte
	old, val []byte
	ids      []int64
	iterOpts pebble.IterOptions
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(w *scratch) {
	if cap(w.old) > 1<<16 || cap(w.val) > 1<<16 {
		w.old, w.val = nil, nil // a big node's buffers are not kept
	}
	scratchPool.Put(w)
}

// nowMillis is the time written into count rows, ms since the epoch (the
// SQL stores' now_ms).
func nowMillis() int64 { return time.Now().UnixMilli() }

// AddLink inserts l or overwrites the link with its (ID1, LinkType, ID2),
// updating the id1_type index entry and the count of (ID1, LinkType) in
// the same batch, with the writers of ID1 serialised: LinkInsert,
// LinkUpdate, or LinkNoChange when the stored link already had l's
// values (nothing is written then). Errors: ctx's, Pebble's, or
// store.ErrClosed, wrapped.
func (s *Store) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	w := getScratch()
	defer putScratch(w)
	return s.writeLink(ctx, w, "AddLink", &l)
}

// UpdateLink is AddLink (an upsert; LinkInsert when the link was absent).
func (s *Store) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	w := getScratch()
	defer putScratch(w)
	return s.writeLink(ctx, w, "UpdateLink", &l)
}

// DeleteLink hides the link (expunge == false) or removes it (expunge ==
// true) with its index entry, decrementing the count if it was visible,
// and reports whether it existed. Errors as AddLink's.
func (s *Store) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (bool, error) {
	w := getScratch()
	defer putScratch(w)
	return s.deleteLink(ctx, w, id1, linkType, id2, expunge)
}

// GetLink returns the link, hidden or visible. Errors: ctx's, Pebble's,
// or store.ErrClosed, wrapped.
func (s *Store) GetLink(ctx context.Context, id1, linkType, id2 int64) (store.Link, bool, error) {
	w := getScratch()
	defer putScratch(w)
	return s.getLink(ctx, w, id1, linkType, id2)
}

// MultigetLinks appends to dst the links among id2s that exist (hidden
// included), each once, in id2s' order of first appearance. Errors as
// GetLink's.
func (s *Store) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	w := getScratch()
	defer putScratch(w)
	return s.multigetLinks(ctx, w, id1, linkType, id2s, dst)
}

// GetLinkList appends to dst the visible links selected by r, newest
// first (ties by id2 ascending), read from the id1_type index with one
// iterator positioned at (ID1, LinkType, visible, MaxTime). Errors:
// ctx's, Pebble's, store.ErrClosed (wrapped), or a negative Offset or
// Limit.
func (s *Store) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	w := getScratch()
	defer putScratch(w)
	return s.getLinkList(ctx, w, r, dst)
}

// CountLinks returns the count row's count of (id1, linkType), 0 when
// there is none. Errors as GetLink's.
func (s *Store) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	w := getScratch()
	defer putScratch(w)
	return s.countLinks(ctx, w, id1, linkType)
}

func (s *Store) writeLink(ctx context.Context, w *scratch, op string, l *store.Link) (store.WriteResult, error) {
	g, err := s.enter(ctx, op)
	if err != nil {
		return 0, err
	}
	defer leave(g)
	mu := &s.linkStripe(l.ID1).mu
	mu.Lock()
	res, err := s.writeLinkLocked(ctx, w, l, mu)
	if err != nil {
		return 0, fmt.Errorf("pebblestore: %s: %w", op, err)
	}
	return res, nil
}

// writeLinkLocked is writeLink under mu, which it unlocks.
func (s *Store) writeLinkLocked(ctx context.Context, w *scratch, l *store.Link, mu *sync.Mutex) (store.WriteResult, error) {
	if err := ctx.Err(); err != nil { // after the wait for the lock
		mu.Unlock()
		return 0, err
	}
	pk := linkKey(&w.pk, l.ID1, l.LinkType, l.ID2)
	old, found, err := s.get(pk, w.old)
	w.old = old
	if err != nil {
		mu.Unlock()
		return 0, err
	}
	var ov linkVal
	if found {
		if ov, err = decodeLinkVal(old); err != nil {
			mu.Unlock()
			return 0, err
		}
		if ov.vis == l.Visibility && ov.version == l.Version && ov.time == l.Time && bytes.Equal(ov.data, l.Data) {
			mu.Unlock()
			return store.LinkNoChange, nil
		}
	}
	b := s.db.NewBatch()
	w.val = appendLinkVal(w.val[:0], l)
	_ = b.Set(pk, w.val, nil)
	ik := indexKey(&w.ik, l.ID1, l.LinkType, l.Visibility, l.Time, l.ID2)
	if found {
		if oik := indexKey(&w.ik2, l.ID1, l.LinkType, ov.vis, ov.time, l.ID2); !bytes.Equal(oik, ik) {
			_ = b.Delete(oik, nil)
		}
	}
	w.val = appendIndexVal(w.val[:0], l)
	_ = b.Set(ik, w.val, nil)
	// The count row changes as in LinkBench's SQL stores: an inserted
	// link upserts it (+1 if visible), a visibility change adds +-1.
	wasVisible := found && ov.vis == store.VisibilityDefault
	isVisible := l.Visibility == store.VisibilityDefault
	if !found || wasVisible != isVisible {
		delta := int64(0)
		switch {
		case isVisible && !wasVisible:
			delta = 1
		case wasVisible && !isVisible:
			delta = -1
		}
		if err := s.addCount(w, b, l.ID1, l.LinkType, delta); err != nil {
			mu.Unlock()
			_ = b.Close()
			return 0, err
		}
	}
	if err := s.commit(b, mu); err != nil {
		return 0, err
	}
	if found {
		return store.LinkUpdate, nil
	}
	return store.LinkInsert, nil
}

// addCount adds to b the count row of (id1, linkType) read and changed
// by delta (version + 1, time now): the caller holds id1's stripe.
func (s *Store) addCount(w *scratch, b *pebble.Batch, id1, linkType, delta int64) error {
	ck := countKey(&w.ck, id1, linkType)
	v, found, err := s.get(ck, w.old)
	w.old = v
	if err != nil {
		return err
	}
	var c countRow
	if found {
		if c, err = decodeCount(v); err != nil {
			return err
		}
	}
	c.count += delta
	c.version++
	c.time = nowMillis()
	w.val = c.append(w.val[:0])
	return b.Set(ck, w.val, nil)
}

func (s *Store) deleteLink(ctx context.Context, w *scratch, id1, linkType, id2 int64, expunge bool) (bool, error) {
	g, err := s.enter(ctx, "DeleteLink")
	if err != nil {
		return false, err
	}
	defer leave(g)
	mu := &s.linkStripe(id1).mu
	mu.Lock()
	found, err := s.deleteLinkLocked(ctx, w, id1, linkType, id2, expunge, mu)
	if err != nil {
		return false, fmt.Errorf("pebblestore: DeleteLink: %w", err)
	}
	return found, nil
}

func (s *Store) deleteLinkLocked(ctx context.Context, w *scratch, id1, linkType, id2 int64, expunge bool, mu *sync.Mutex) (bool, error) {
	if err := ctx.Err(); err != nil {
		mu.Unlock()
		return false, err
	}
	pk := linkKey(&w.pk, id1, linkType, id2)
	old, found, err := s.get(pk, w.old)
	w.old = old
	if err != nil || !found {
		mu.Unlock()
		return false, err
	}
	ov, err := decodeLinkVal(old)
	if err != nil {
		mu.Unlock()
		return false, err
	}
	wasVisible := ov.vis == store.VisibilityDefault
	if !wasVisible && !expunge { // hidden stays hidden
		mu.Unlock()
		return true, nil
	}
	b := s.db.NewBatch()
	oik := indexKey(&w.ik2, id1, linkType, ov.vis, ov.time, id2)
	_ = b.Delete(oik, nil)
	if expunge {
		_ = b.Delete(pk, nil)
	} else {
		hidden := store.Link{ID1: id1, LinkType: linkType, ID2: id2, Visibility: store.VisibilityHidden,
			Data: ov.data, Version: ov.version, Time: ov.time}
		w.val = appendLinkVal(w.val[:0], &hidden)
		_ = b.Set(pk, w.val, nil)
		w.val = appendIndexVal(w.val[:0], &hidden)
		_ = b.Set(indexKey(&w.ik, id1, linkType, store.VisibilityHidden, ov.time, id2), w.val, nil)
	}
	if wasVisible {
		// addCount reuses w.old, which ov.data aliases: its last use
		// was above.
		if err := s.addCount(w, b, id1, linkType, -1); err != nil {
			mu.Unlock()
			_ = b.Close()
			return false, err
		}
	}
	if err := s.commit(b, mu); err != nil {
		return false, err
	}
	return true, nil
}

// readLink reads the link row at pk into *l (Data copied into l.Data's
// spare capacity, or a new slice).
func (s *Store) readLink(pk []byte, l *store.Link) (bool, error) {
	v, closer, err := s.db.Get(pk)
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer closer.Close()
	lv, err := decodeLinkVal(v)
	if err != nil {
		return false, err
	}
	l.Visibility, l.Version, l.Time = lv.vis, lv.version, lv.time
	if len(lv.data) > 0 || l.Data != nil {
		l.Data = append(l.Data[:0], lv.data...)
	}
	return true, nil
}

func (s *Store) getLink(ctx context.Context, w *scratch, id1, linkType, id2 int64) (store.Link, bool, error) {
	g, err := s.enter(ctx, "GetLink")
	if err != nil {
		return store.Link{}, false, err
	}
	defer leave(g)
	l := store.Link{ID1: id1, LinkType: linkType, ID2: id2}
	found, err := s.readLink(linkKey(&w.pk, id1, linkType, id2), &l)
	if err != nil {
		return store.Link{}, false, fmt.Errorf("pebblestore: GetLink: %w", err)
	}
	if !found {
		return store.Link{}, false, nil
	}
	return l, true, nil
}

func (s *Store) multigetLinks(ctx context.Context, w *scratch, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	g, err := s.enter(ctx, "MultigetLinks")
	if err != nil {
		return dst, err
	}
	defer leave(g)
	for i, id2 := range id2s {
		if i > 0 && seenBefore(w, id2s, i) {
			continue
		}
		l := store.Link{ID1: id1, LinkType: linkType, ID2: id2}
		if len(dst) < cap(dst) {
			l.Data = dst[:len(dst)+1][len(dst)].Data[:0]
		}
		found, err := s.readLink(linkKey(&w.pk, id1, linkType, id2), &l)
		if err != nil {
			return dst, fmt.Errorf("pebblestore: MultigetLinks: %w", err)
		}
		if found {
			dst = append(dst, l)
		}
	}
	return dst, nil
}

// seenBefore reports whether id2s[i] is in id2s[:i]: a scan for the short
// lists LinkBench sends, a sorted copy for long ones.
func seenBefore(w *scratch, id2s []int64, i int) bool {
	if len(id2s) <= 32 {
		return slices.Contains(id2s[:i], id2s[i])
	}
	if i == 1 {
		w.ids = append(w.ids[:0], id2s[0])
	}
	// w.ids holds id2s[:i] sorted.
	j, found := slices.BinarySearch(w.ids, id2s[i])
	if !found {
		w.ids = slices.Insert(w.ids, j, id2s[i])
	}
	return found
}

func (s *Store) getLinkList(ctx context.Context, w *scratch, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	if r.Offset < 0 || r.Limit < 0 {
		return dst, fmt.Errorf("pebblestore: GetLinkList: offset %d and limit %d must be >= 0", r.Offset, r.Limit)
	}
	g, err := s.enter(ctx, "GetLinkList")
	if err != nil {
		return dst, err
	}
	defer leave(g)
	lo, hi, ok := listBounds(&w.lo, &w.hi, r.ID1, r.LinkType, r.MinTime, r.MaxTime)
	if !ok || r.Limit == 0 {
		return dst, nil
	}
	w.iterOpts = pebble.IterOptions{LowerBound: lo, UpperBound: hi}
	it, err := s.db.NewIterWithContext(ctx, &w.iterOpts)
	if err != nil {
		return dst, fmt.Errorf("pebblestore: GetLinkList: %w", err)
	}
	valid := it.First()
	for skip := r.Offset; valid && skip > 0; skip-- {
		if skip%4096 == 0 && ctx.Err() != nil {
			break
		}
		valid = it.Next()
	}
	var verr error
	for n := 0; valid && n < r.Limit; n++ {
		k := it.Key()
		v, err := it.ValueAndErr()
		if err == nil && (len(k) != indexKeyLen || len(v) < indexValHead) {
			err = fmt.Errorf("%w: index entry of %d+%d bytes", errCorrupt, len(k), len(v))
		}
		if err == nil && n%4096 == 4095 {
			err = ctx.Err()
		}
		if err != nil {
			verr = err
			break
		}
		dst = appendLink(dst, store.Link{
			ID1: r.ID1, LinkType: r.LinkType, ID2: getInt(k[26:]), Visibility: store.VisibilityDefault,
			Version: int32(binary.BigEndian.Uint32(v)), Time: getDesc(k[18:26]),
		}, v[indexValHead:])
		valid = it.Next()
	}
	if err := errors.Join(verr, ctx.Err(), it.Error(), it.Close()); err != nil {
		return dst, fmt.Errorf("pebblestore: GetLinkList: %w", err)
	}
	return dst, nil
}

func (s *Store) countLinks(ctx context.Context, w *scratch, id1, linkType int64) (int64, error) {
	g, err := s.enter(ctx, "CountLinks")
	if err != nil {
		return 0, err
	}
	defer leave(g)
	v, closer, err := s.db.Get(countKey(&w.ck, id1, linkType))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("pebblestore: CountLinks: %w", err)
	}
	c, err := decodeCount(v)
	_ = closer.Close()
	if err != nil {
		return 0, fmt.Errorf("pebblestore: CountLinks: %w", err)
	}
	return c.count, nil
}
