package memstore

import (
	"context"
	"fmt"

	"github.com/linkbench-go/linkbench/store"
)

// put upserts l in its list; the caller holds sh.mu for writing.
func (sh *linkShard) put(l *store.Link) bool {
	k := lkey{l.ID1, l.LinkType}
	ls := sh.lists[k]
	existed := ls.put(l)
	sh.lists[k] = ls
	return existed
}

func writeResult(existed bool) store.WriteResult {
	if existed {
		return store.LinkUpdate
	}
	return store.LinkInsert
}

// AddLink inserts l or overwrites every field of the existing link with
// its (ID1, LinkType, ID2); the count follows the visibility. It returns
// store.LinkInsert for a new link and store.LinkUpdate otherwise (even
// when nothing changed, as LinkBench's memory store does). noInverse is
// ignored. Errors: ctx's error or store.ErrClosed, wrapped.
// Cost: O(log n) for a list of n links.
func (s *Store) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	if err := s.check(ctx, "AddLink"); err != nil {
		return 0, err
	}
	sh := s.db.linkShard(l.ID1, l.LinkType)
	sh.mu.Lock()
	existed := sh.put(&l)
	sh.mu.Unlock()
	return writeResult(existed), nil
}

// UpdateLink is AddLink under another name (an upsert): store.LinkUpdate
// when the link existed, store.LinkInsert when it was inserted.
func (s *Store) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	if err := s.check(ctx, "UpdateLink"); err != nil {
		return 0, err
	}
	sh := s.db.linkShard(l.ID1, l.LinkType)
	sh.mu.Lock()
	existed := sh.put(&l)
	sh.mu.Unlock()
	return writeResult(existed), nil
}

// DeleteLink hides the link (expunge == false; a hidden link stays hidden)
// or removes it (expunge == true) and reports whether it existed, hidden
// or not. Errors: ctx's error or store.ErrClosed, wrapped. Cost: O(log n).
func (s *Store) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (bool, error) {
	if err := s.check(ctx, "DeleteLink"); err != nil {
		return false, err
	}
	sh := s.db.linkShard(id1, linkType)
	k := lkey{id1, linkType}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	ls, ok := sh.lists[k]
	if !ok || !ls.remove(id2, expunge) {
		return false, nil
	}
	if ls.empty() {
		delete(sh.lists, k)
	} else {
		sh.lists[k] = ls
	}
	return true, nil
}

// GetLink returns a copy of the link, hidden or visible; found is false
// when it does not exist. A non-empty Data is freshly allocated.
// Errors: ctx's error or store.ErrClosed, wrapped. Cost: O(log n).
func (s *Store) GetLink(ctx context.Context, id1, linkType, id2 int64) (store.Link, bool, error) {
	if err := s.check(ctx, "GetLink"); err != nil {
		return store.Link{}, false, err
	}
	sh := s.db.linkShard(id1, linkType)
	sh.mu.RLock()
	ls := sh.lists[lkey{id1, linkType}]
	e, ok := ls.get(id2)
	sh.mu.RUnlock()
	if !ok {
		return store.Link{}, false, nil
	}
	l := store.Link{ID1: id1, LinkType: linkType, ID2: id2, Visibility: e.vis, Version: e.version, Time: e.time}
	if len(e.data) > 0 {
		l.Data = []byte(e.data)
	}
	return l, true, nil
}

// multigetQuadratic is the largest id2s for which MultigetLinks detects
// repeated ids by scanning (no allocation); longer inputs use a set.
const multigetQuadratic = 64

// MultigetLinks appends to dst the existing links (hidden included) among
// id2s, in the order of their first occurrence in id2s, each at most once.
// Errors: ctx's error or store.ErrClosed, wrapped.
// Cost: O(len(id2s) log n), plus O(len(id2s)^2) id comparisons for up to
// 64 ids.
func (s *Store) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	if err := s.check(ctx, "MultigetLinks"); err != nil {
		return dst, err
	}
	var seen map[int64]struct{}
	if len(id2s) > multigetQuadratic {
		seen = make(map[int64]struct{}, len(id2s))
	}
	sh := s.db.linkShard(id1, linkType)
	sh.mu.RLock()
	defer sh.mu.RUnlock()
	ls, ok := sh.lists[lkey{id1, linkType}]
	if !ok {
		return dst, nil
	}
outer:
	for i, id2 := range id2s {
		if seen != nil {
			if _, dup := seen[id2]; dup {
				continue
			}
			seen[id2] = struct{}{}
		} else {
			for _, prev := range id2s[:i] {
				if prev == id2 {
					continue outer
				}
			}
		}
		if e, ok := ls.get(id2); ok {
			dst = appendLink(dst, id1, linkType, e.okey, &e.lval)
		}
	}
	return dst, nil
}

// GetLinkList appends to dst the visible links of (r.ID1, r.LinkType) with
// r.MinTime <= Time <= r.MaxTime, Time descending then ID2 ascending,
// skipping r.Offset of them and returning at most r.Limit; Limit 0, an
// absent list or MinTime > MaxTime append nothing. Errors: ctx's error,
// store.ErrClosed (wrapped), or an error when Offset or Limit is negative.
// Cost: O(log n + returned links) on a list of n links.
func (s *Store) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	if err := s.check(ctx, "GetLinkList"); err != nil {
		return dst, err
	}
	if r.Offset < 0 || r.Limit < 0 {
		return dst, fmt.Errorf("memstore: GetLinkList: negative offset %d or limit %d", r.Offset, r.Limit)
	}
	if r.Limit == 0 {
		return dst, nil
	}
	sh := s.db.linkShard(r.ID1, r.LinkType)
	sh.mu.RLock()
	defer sh.mu.RUnlock()
	ls, ok := sh.lists[lkey{r.ID1, r.LinkType}]
	if !ok {
		return dst, nil
	}
	return ls.appendRange(dst, &r), nil
}

// CountLinks returns the number of visible links of (id1, linkType).
// Errors: ctx's error or store.ErrClosed, wrapped. Cost: O(1) for big
// lists, O(n) for lists of n <= 32 links.
func (s *Store) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	if err := s.check(ctx, "CountLinks"); err != nil {
		return 0, err
	}
	sh := s.db.linkShard(id1, linkType)
	sh.mu.RLock()
	ls := sh.lists[lkey{id1, linkType}]
	n := ls.count()
	sh.mu.RUnlock()
	return int64(n), nil
}

// AddBulkLinks upserts every link as AddLink does (loading over existing
// links overwrites them), taking each stripe's lock once per run of
// consecutive links of the same (ID1, LinkType). Errors: ctx's error or
// store.ErrClosed, wrapped (checked once, before any write).
func (s *Store) AddBulkLinks(ctx context.Context, links []store.Link, noInverse bool) error {
	if err := s.check(ctx, "AddBulkLinks"); err != nil {
		return err
	}
	for i := 0; i < len(links); {
		k := lkey{links[i].ID1, links[i].LinkType}
		j := i + 1
		for j < len(links) && links[j].ID1 == k.id1 && links[j].LinkType == k.linkType {
			j++
		}
		sh := s.db.linkShard(k.id1, k.linkType)
		sh.mu.Lock()
		ls := sh.lists[k]
		for ; i < j; i++ {
			ls.put(&links[i])
		}
		sh.lists[k] = ls
		sh.mu.Unlock()
	}
	return nil
}

// AddBulkCounts ignores counts: memstore derives counts from the links.
// Errors: ctx's error or store.ErrClosed, wrapped.
func (s *Store) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	return s.check(ctx, "AddBulkCounts")
}
