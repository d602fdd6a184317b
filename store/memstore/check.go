package memstore

import (
	"context"

	"github.com/linkbench-go/linkbench/store"
)

// NodeStats returns the number of nodes of the database and their
// smallest and largest ids (0 and 0 when there are none). It locks one
// stripe at a time, so concurrent writes may or may not be seen.
// Errors: ctx's error or store.ErrClosed, wrapped.
func (s *Store) NodeStats(ctx context.Context) (store.NodeStats, error) {
	if err := s.check(ctx, "NodeStats"); err != nil {
		return store.NodeStats{}, err
	}
	var st store.NodeStats
	for i := range s.db.nodes {
		sh := &s.db.nodes[i]
		sh.mu.RLock()
		for id := range sh.m {
			if st.Count == 0 || id < st.MinID {
				st.MinID = id
			}
			if st.Count == 0 || id > st.MaxID {
				st.MaxID = id
			}
			st.Count++
		}
		sh.mu.RUnlock()
	}
	return st, nil
}

// HasNodeIn reports whether the database holds a node with an id in
// [lo, hi). It locks one stripe at a time and stops at the first such
// node. Errors: ctx's error or store.ErrClosed, wrapped.
func (s *Store) HasNodeIn(ctx context.Context, lo, hi int64) (bool, error) {
	if err := s.check(ctx, "HasNodeIn"); err != nil {
		return false, err
	}
	for i := range s.db.nodes {
		sh := &s.db.nodes[i]
		sh.mu.RLock()
		found := false
		for id := range sh.m {
			if id >= lo && id < hi {
				found = true
				break
			}
		}
		sh.mu.RUnlock()
		if found {
			return true, nil
		}
	}
	return false, nil
}

// CheckCounts verifies, for every (id1, link_type) holding links (hidden
// ones included), that the count CountLinks reports equals the number of
// visible links found by walking the whole list, and that the list's
// internal indexes agree with each other. Mismatches are reported with
// Count the reported count and Visible the walked one, or -1 when the
// list's internal structures disagree (a bug); at most limit of them (all
// when limit <= 0). checked is the number of lists examined.
// Cost: O(total links). Errors: ctx's error (checked between stripes) or
// store.ErrClosed, wrapped.
func (s *Store) CheckCounts(ctx context.Context, limit int) ([]store.CountMismatch, int64, error) {
	if err := s.check(ctx, "CheckCounts"); err != nil {
		return nil, 0, err
	}
	var out []store.CountMismatch
	var checked int64
	for i := range s.db.links {
		if err := s.check(ctx, "CheckCounts"); err != nil {
			return out, checked, err
		}
		sh := &s.db.links[i]
		sh.mu.RLock()
		for k, ls := range sh.lists {
			checked++
			count, visible := int64(ls.count()), ls.walkVisible()
			if count != visible && (limit <= 0 || len(out) < limit) {
				out = append(out, store.CountMismatch{ID1: k.id1, LinkType: k.linkType, Count: count, Visible: visible})
			}
		}
		sh.mu.RUnlock()
	}
	return out, checked, nil
}

// walkVisible counts the visible links by visiting every stored link. For
// a big list it returns -1 when its indexes disagree: the tree, the leaf
// chain, the id2 index and the hidden set must describe the same links,
// in strictly increasing list order, with the right visibilities.
func (ls *list) walkVisible() int64 {
	b := ls.big
	if b == nil {
		var n int64
		for i := range ls.small {
			if visibleEntry(&ls.small[i]) {
				n++
			}
			if i > 0 && !ls.small[i-1].key().less(ls.small[i].key()) {
				return -1
			}
		}
		return n
	}
	var n int64
	var prev *okey
	if b.tree.size > 0 {
		for lf, i := b.tree.at(0); lf != nil; lf, i = lf.next, 0 {
			for ; i < lf.n; i++ {
				k := &lf.keys[i]
				if lf.vals[i].vis != store.VisibilityDefault || (prev != nil && !prev.less(*k)) {
					return -1
				}
				if t, ok := b.vis[k.id2]; !ok || t != k.time {
					return -1
				}
				if _, ok := b.hidden[k.id2]; ok {
					return -1
				}
				prev = k
				n++
			}
		}
	}
	if n != int64(len(b.vis)) {
		return -1
	}
	for _, e := range b.hidden {
		if visibleEntry(&e) {
			return -1
		}
	}
	return n
}
