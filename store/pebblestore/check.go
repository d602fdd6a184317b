package pebblestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/linkbench-go/linkbench/store"
)

// ErrIndexMismatch is wrapped by the error of CheckCounts when the
// id1_type index does not hold one entry per link row, with its
// visibility.
var ErrIndexMismatch = errors.New("id1_type index disagrees with the link rows")

// NodeStats returns the number of nodes and the smallest and largest id,
// from one scan of the node rows at one snapshot. Errors: ctx's,
// Pebble's, or store.ErrClosed, wrapped.
func (s *Store) NodeStats(ctx context.Context) (store.NodeStats, error) {
	g, err := s.enter(ctx, "NodeStats")
	if err != nil {
		return store.NodeStats{}, err
	}
	defer leave(g)
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: []byte{prefixNode}, UpperBound: prefixEnd(prefixNode)})
	if err != nil {
		return store.NodeStats{}, fmt.Errorf("pebblestore: NodeStats: %w", err)
	}
	var st store.NodeStats
	for valid := it.First(); valid; valid = it.Next() {
		id := getInt(it.Key()[1:])
		if st.Count == 0 {
			st.MinID = id
		}
		st.MaxID = id
		if st.Count++; st.Count%4096 == 0 && ctx.Err() != nil {
			break
		}
	}
	if err := errors.Join(ctx.Err(), it.Error(), it.Close()); err != nil {
		return store.NodeStats{}, fmt.Errorf("pebblestore: NodeStats: %w", err)
	}
	return st, nil
}

// HasNodeIn reports whether a node row has an id in [lo, hi): one seek of
// an iterator bounded to that range. Errors: ctx's, Pebble's, or
// store.ErrClosed, wrapped.
func (s *Store) HasNodeIn(ctx context.Context, lo, hi int64) (bool, error) {
	g, err := s.enter(ctx, "HasNodeIn")
	if err != nil {
		return false, err
	}
	defer leave(g)
	if lo >= hi {
		return false, nil
	}
	var lk, hk [nodeKeyLen]byte
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: nodeKey(&lk, lo), UpperBound: nodeKey(&hk, hi)})
	if err != nil {
		return false, fmt.Errorf("pebblestore: HasNodeIn: %w", err)
	}
	found := it.First()
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return false, fmt.Errorf("pebblestore: HasNodeIn: %w", err)
	}
	return found, nil
}

// CheckCounts compares, for every (id1, link_type) with links or a count
// row, the count row with the visible link rows, and checks that the
// id1_type index has as many entries, visible and hidden, as the link
// rows: three ordered scans merged at one snapshot. It returns at most
// limit mismatches (all when limit <= 0) and the number of pairs
// checked; an index that disagrees is an error wrapping
// ErrIndexMismatch. Errors: ctx's, Pebble's, or store.ErrClosed, wrapped.
func (s *Store) CheckCounts(ctx context.Context, limit int) ([]store.CountMismatch, int64, error) {
	g, err := s.enter(ctx, "CheckCounts")
	if err != nil {
		return nil, 0, err
	}
	defer leave(g)
	snap := s.db.NewSnapshot()
	defer snap.Close()
	var its [3]*groupIter
	for i, p := range []byte{prefixLink, prefixCount, prefixIndex} {
		it, err := snap.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: []byte{p}, UpperBound: prefixEnd(p)})
		if err != nil {
			for _, gi := range its[:i] {
				_ = gi.it.Close()
			}
			return nil, 0, fmt.Errorf("pebblestore: CheckCounts: %w", err)
		}
		its[i] = &groupIter{it: it, kind: p}
		its[i].valid = it.First()
	}
	links, counts, index := its[0], its[1], its[2]
	var out []store.CountMismatch
	var checked int64
	var cerr error
	for cerr == nil {
		for _, gi := range its {
			if !gi.have && gi.valid {
				cerr = errors.Join(cerr, gi.next())
			}
		}
		// The smallest (id1, link_type) among the heads.
		var key []byte
		for _, gi := range its {
			if gi.have && (key == nil || bytes.Compare(gi.key[:], key) < 0) {
				key = gi.key[:]
			}
		}
		if key == nil || cerr != nil {
			break
		}
		var l, c, x groupIter // the group's figures, zero when absent
		cur := *(*[16]byte)(key)
		for _, p := range []struct {
			gi  *groupIter
			dst *groupIter
		}{{links, &l}, {counts, &c}, {index, &x}} {
			if p.gi.have && p.gi.key == cur {
				*p.dst = *p.gi
				p.gi.have = false
			}
		}
		checked++
		id1, lt := getInt(cur[:8]), getInt(cur[8:])
		if x.visible != l.visible || x.total != l.total {
			cerr = fmt.Errorf("%w: (%d, %d) has %d link rows (%d visible), %d index entries (%d visible)",
				ErrIndexMismatch, id1, lt, l.total, l.visible, x.total, x.visible)
			break
		}
		if c.count != l.visible && (limit <= 0 || len(out) < limit) {
			out = append(out, store.CountMismatch{ID1: id1, LinkType: lt, Count: c.count, Visible: l.visible})
		}
		if checked%1024 == 0 {
			cerr = ctx.Err()
		}
	}
	for _, gi := range its {
		cerr = errors.Join(cerr, gi.it.Error(), gi.it.Close())
	}
	if cerr = errors.Join(cerr, ctx.Err()); cerr != nil {
		return out, checked, fmt.Errorf("pebblestore: CheckCounts: %w", cerr)
	}
	return out, checked, nil
}

// groupIter reads one table or index grouped by (id1, link_type): the
// link rows (total, visible), the count rows (count), or the index
// entries (total, visible).
type groupIter struct {
	it    *pebble.Iterator
	kind  byte
	valid bool // it is positioned on a key
	have  bool // key and the figures hold a group not yet consumed

	key            [16]byte
	total, visible int64
	count          int64
}

// next reads the group at the iterator's position.
func (g *groupIter) next() error {
	k := g.it.Key()
	if len(k) < 17 {
		return fmt.Errorf("%w: key of %d bytes", errCorrupt, len(k))
	}
	g.key = [16]byte(k[1:17])
	g.total, g.visible, g.count, g.have = 0, 0, 0, true
	for g.valid && bytes.Equal(g.it.Key()[1:17], g.key[:]) {
		k := g.it.Key()
		switch g.kind {
		case prefixCount:
			v, err := g.it.ValueAndErr()
			if err != nil {
				return err
			}
			c, err := decodeCount(v)
			if err != nil {
				return err
			}
			g.count = c.count
		case prefixIndex:
			if len(k) != indexKeyLen {
				return fmt.Errorf("%w: index key of %d bytes", errCorrupt, len(k))
			}
			g.total++
			if store.Visibility(k[17]) == store.VisibilityDefault {
				g.visible++
			}
		case prefixLink:
			v, err := g.it.ValueAndErr()
			if err != nil {
				return err
			}
			lv, err := decodeLinkVal(v)
			if err != nil {
				return err
			}
			g.total++
			if lv.vis == store.VisibilityDefault {
				g.visible++
			}
		}
		g.valid = g.it.Next()
	}
	return nil
}
