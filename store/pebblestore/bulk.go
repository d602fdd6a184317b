package pebblestore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cockroachdb/pebble/v2"

	"github.com/linkbench-go/linkbench/store"
)

// AddBulkLinks writes links and their id1_type index entries in one
// batch, sorted by key, without touching the count rows (the loader
// writes them with AddBulkCounts). A link that already exists is
// overwritten as AddLink would (its old index entry removed), so the index
// stays exact; its count row is left as it is. The writers of the links'
// id1s wait for the batch. Errors: ctx's, Pebble's, or store.ErrClosed,
// wrapped.
func (s *Store) AddBulkLinks(ctx context.Context, links []store.Link, noInverse bool) error {
	w := getScratch()
	defer putScratch(w)
	return s.addBulkLinks(ctx, w, links)
}

// AddBulkCounts writes the count rows as given (absolute values) in one
// batch. Errors as AddBulkLinks'.
func (s *Store) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	g, err := s.enter(ctx, "AddBulkCounts")
	if err != nil {
		return err
	}
	defer leave(g)
	if len(counts) == 0 {
		return nil
	}
	held := s.lockID1s(len(counts), func(i int) int64 { return counts[i].ID1 })
	if err := ctx.Err(); err != nil {
		held.Unlock()
		return fmt.Errorf("pebblestore: AddBulkCounts: %w", err)
	}
	w := getScratch()
	defer putScratch(w)
	b := s.db.NewBatchWithSize(len(counts) * (countKeyLen + countValLen + 8))
	for i := range counts {
		c := &counts[i]
		w.val = countRow{count: c.Count, time: c.Time, version: c.Version}.append(w.val[:0])
		_ = b.Set(countKey(&w.ck, c.ID1, c.LinkType), w.val, nil)
	}
	if err := s.commit(b, held); err != nil {
		return fmt.Errorf("pebblestore: AddBulkCounts: %w", err)
	}
	return nil
}

// AddBulkNodes writes the nodes under their own ids in one batch and
// advances the sequence past the largest id (never back). Errors as
// AddBulkLinks'.
func (s *Store) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	g, err := s.enter(ctx, "AddBulkNodes")
	if err != nil {
		return err
	}
	defer leave(g)
	if len(nodes) == 0 {
		return nil
	}
	w := getScratch()
	defer putScratch(w)
	size := 0
	top := nodes[0].ID
	for i := range nodes {
		size += nodeKeyLen + nodeValHead + len(nodes[i].Data) + 8
		top = max(top, nodes[i].ID)
	}
	b := s.db.NewBatchWithSize(size + 32)
	for i := range nodes {
		n := &nodes[i]
		w.val = appendNodeVal(w.val[:0], n)
		_ = b.Set(nodeKey(&w.nk, n.ID), w.val, nil)
	}
	_ = b.Merge(metaNextNodeID, sequenceValueOf(top+1), nil)
	for {
		next := s.nextNode.Load()
		if next > top || s.nextNode.CompareAndSwap(next, top+1) {
			break
		}
	}
	if err := s.commit(b, nil); err != nil {
		return fmt.Errorf("pebblestore: AddBulkNodes: %w", err)
	}
	return nil
}

func (s *Store) addBulkLinks(ctx context.Context, w *scratch, links []store.Link) error {
	g, err := s.enter(ctx, "AddBulkLinks")
	if err != nil {
		return err
	}
	defer leave(g)
	if len(links) == 0 {
		return nil
	}
	held := s.lockID1s(len(links), func(i int) int64 { return links[i].ID1 })
	if err := ctx.Err(); err != nil {
		held.Unlock()
		return fmt.Errorf("pebblestore: AddBulkLinks: %w", err)
	}
	// Write in key order: the loader's batches mostly are already.
	order := make([]int32, len(links))
	for i := range order {
		order[i] = int32(i)
	}
	byKey := func(a, b int32) int {
		x, y := &links[a], &links[b]
		return cmp.Or(cmp.Compare(x.ID1, y.ID1), cmp.Compare(x.LinkType, y.LinkType), cmp.Compare(x.ID2, y.ID2))
	}
	if !slices.IsSortedFunc(order, byKey) {
		slices.SortStableFunc(order, byKey)
	}
	size := 0
	for i := range links {
		size += linkKeyLen + linkValHead + indexKeyLen + indexValHead + 2*len(links[i].Data) + 16
	}
	// The stored links among the batch's: one iterator over the batch's
	// primary key range, sought to each key in order. A load into an
	// empty range (the usual case: the loaders' id1 chunks are disjoint)
	// costs one seek.
	var lo, hi [linkKeyLen]byte
	fl, ll := &links[order[0]], &links[order[len(order)-1]]
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{
		LowerBound: linkKey(&lo, fl.ID1, fl.LinkType, fl.ID2),
		UpperBound: successor(linkKey(&hi, ll.ID1, ll.LinkType, ll.ID2)),
	})
	if err != nil {
		held.Unlock()
		return fmt.Errorf("pebblestore: AddBulkLinks: %w", err)
	}
	b := s.db.NewBatchWithSize(size)
	fail := func(err error) error {
		held.Unlock()
		_ = b.Close()
		_ = it.Close()
		return fmt.Errorf("pebblestore: AddBulkLinks: %w", err)
	}
	valid := it.First()
	for k, i := range order {
		l := &links[i]
		pk := linkKey(&w.pk, l.ID1, l.LinkType, l.ID2)
		// The same link twice in the batch: the later wins, and only its
		// index entry is written (below); the earlier one removed the
		// stored link's.
		dup := k > 0 && byKey(order[k-1], i) == 0
		c := 1
		if valid && !dup {
			if c = bytes.Compare(it.Key(), pk); c < 0 {
				if valid = it.SeekGE(pk); valid {
					c = bytes.Compare(it.Key(), pk)
				}
			}
		}
		if valid && !dup && c == 0 {
			v, err := it.ValueAndErr()
			if err != nil {
				return fail(err)
			}
			ov, err := decodeLinkVal(v)
			if err != nil {
				return fail(err)
			}
			oik := indexKey(&w.ik2, l.ID1, l.LinkType, ov.vis, ov.time, l.ID2)
			if !bytes.Equal(oik, indexKey(&w.ik, l.ID1, l.LinkType, l.Visibility, l.Time, l.ID2)) {
				_ = b.Delete(oik, nil)
			}
		}
		w.val = appendLinkVal(w.val[:0], l)
		_ = b.Set(pk, w.val, nil)
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		held.Unlock()
		_ = b.Close()
		return fmt.Errorf("pebblestore: AddBulkLinks: %w", err)
	}
	// The index entries, in index order (time descending within a list),
	// which the memtable takes faster than random order.
	iorder := make([]int32, 0, len(order))
	for k, i := range order {
		if k+1 < len(order) && byKey(i, order[k+1]) == 0 {
			continue // superseded by the next
		}
		iorder = append(iorder, i)
	}
	slices.SortFunc(iorder, func(a, b int32) int {
		x, y := &links[a], &links[b]
		return cmp.Or(cmp.Compare(x.ID1, y.ID1), cmp.Compare(x.LinkType, y.LinkType),
			cmp.Compare(uint8(x.Visibility), uint8(y.Visibility)), cmp.Compare(y.Time, x.Time), cmp.Compare(x.ID2, y.ID2))
	})
	for _, i := range iorder {
		l := &links[i]
		w.val = appendIndexVal(w.val[:0], l)
		_ = b.Set(indexKey(&w.ik, l.ID1, l.LinkType, l.Visibility, l.Time, l.ID2), w.val, nil)
	}
	if err := s.commit(b, held); err != nil {
		return fmt.Errorf("pebblestore: AddBulkLinks: %w", err)
	}
	return nil
}

// lockID1s locks the link stripes of the n id1s id(0..n-1), in stripe
// order, and returns them to unlock.
func (s *Store) lockID1s(n int, id func(int) int64) stripeSet {
	idx := make([]int, 0, 16)
	for i := range n {
		idx = append(idx, stripeOf(id(i)))
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	set := make(stripeSet, len(idx))
	for i, j := range idx {
		set[i] = &s.links[j]
	}
	set.Lock()
	return set
}
