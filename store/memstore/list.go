package memstore

import (
	"github.com/linkbench-go/linkbench/store"
)

// Representation thresholds of an adjacency list: a list is a sorted
// slice while it holds at most smallMax links (hidden included); above
// that it becomes a bigList, which turns back into a slice when it falls
// to demoteAt links (the gap avoids flapping at the boundary).
const (
	smallMax = 32
	demoteAt = 8
)

// list holds the links of one (id1, link_type). Exactly one representation
// is in use: small (big == nil), every link sorted in list order with
// hidden ones included; or big.
type list struct {
	small []entry
	big   *bigList
}

// bigList keeps visible links in an order-statistic B+tree and an
// id2 -> time index, and hidden links apart (they are never listed).
type bigList struct {
	tree   btree
	vis    map[int64]int64 // id2 -> time of every link in tree
	hidden map[int64]entry
}

// visibleEntry reports whether e counts and is listed.
func visibleEntry(e *entry) bool { return e.vis == store.VisibilityDefault }

// setVal fills v from l, reusing v's payload when it is unchanged (no
// allocation) and copying l.Data otherwise.
func setVal(v *lval, l *store.Link) {
	v.version, v.vis = l.Version, l.Visibility
	if v.data != string(l.Data) {
		v.data = string(l.Data)
	}
}

// setEntry fills e from l as setVal does.
func setEntry(e *entry, l *store.Link) {
	e.okey = okey{l.Time, l.ID2}
	setVal(&e.lval, l)
}

// empty reports whether the list holds no link at all.
func (ls *list) empty() bool {
	if ls.big != nil {
		return ls.big.tree.size == 0 && len(ls.big.hidden) == 0
	}
	return len(ls.small) == 0
}

// count returns the number of visible links.
func (ls *list) count() int {
	if ls.big != nil {
		return ls.big.tree.size
	}
	n := 0
	for i := range ls.small {
		if visibleEntry(&ls.small[i]) {
			n++
		}
	}
	return n
}

// findSmall returns the index of id2 in the small slice, or -1.
func (ls *list) findSmall(id2 int64) int {
	for i := range ls.small {
		if ls.small[i].id2 == id2 {
			return i
		}
	}
	return -1
}

// get returns a copy of the stored link id2.
func (ls *list) get(id2 int64) (entry, bool) {
	if b := ls.big; b != nil {
		if t, ok := b.vis[id2]; ok {
			k := okey{t, id2}
			return entry{k, *b.tree.find(k)}, true
		}
		e, ok := b.hidden[id2]
		return e, ok
	}
	if i := ls.findSmall(id2); i >= 0 {
		return ls.small[i], true
	}
	return entry{}, false
}

// insertSmall inserts e into the sorted small slice (e.id2 must be
// absent), growing the backing array one slot at a time while it is tiny
// (most lists hold 1-3 links) and geometrically afterwards.
func (ls *list) insertSmall(e entry) {
	k := e.key()
	pos := len(ls.small)
	for i := range ls.small {
		if k.less(ls.small[i].key()) {
			pos = i
			break
		}
	}
	if len(ls.small) == cap(ls.small) && len(ls.small) < 4 {
		s := make([]entry, len(ls.small), len(ls.small)+1)
		copy(s, ls.small)
		ls.small = s
	}
	ls.small = append(ls.small, entry{})
	copy(ls.small[pos+1:], ls.small[pos:])
	ls.small[pos] = e
}

// removeSmall removes index i from the small slice.
func (ls *list) removeSmall(i int) entry {
	e := ls.small[i]
	copy(ls.small[i:], ls.small[i+1:])
	ls.small[len(ls.small)-1] = entry{}
	ls.small = ls.small[:len(ls.small)-1]
	return e
}

// promote converts a small list to a bigList.
func (ls *list) promote() {
	b := &bigList{vis: make(map[int64]int64, 2*smallMax)}
	for _, e := range ls.small {
		if visibleEntry(&e) {
			b.tree.insert(e)
			b.vis[e.id2] = e.time
		} else {
			if b.hidden == nil {
				b.hidden = make(map[int64]entry)
			}
			b.hidden[e.id2] = e
		}
	}
	ls.small = nil
	ls.big = b
}

// maybeDemote converts a bigList that has shrunk to demoteAt links back to
// a small slice.
func (ls *list) maybeDemote() {
	b := ls.big
	if b == nil || b.tree.size+len(b.hidden) > demoteAt {
		return
	}
	s := make([]entry, 0, b.tree.size+len(b.hidden))
	if b.tree.size > 0 {
		for lf, i := b.tree.at(0); lf != nil; lf, i = lf.next, 0 {
			for ; i < lf.n; i++ {
				s = append(s, lf.entry(i))
			}
		}
	}
	ls.big, ls.small = nil, s
	for _, e := range b.hidden {
		ls.insertSmall(e)
	}
}

// put stores a copy of l (an upsert) and reports whether a link with that
// id2 existed.
func (ls *list) put(l *store.Link) (existed bool) {
	if ls.big == nil {
		if i := ls.findSmall(l.ID2); i >= 0 {
			e := &ls.small[i]
			if e.time == l.Time {
				setEntry(e, l)
				return true
			}
			old := ls.removeSmall(i)
			setEntry(&old, l)
			ls.insertSmall(old)
			return true
		}
		if len(ls.small) < smallMax {
			var e entry
			setEntry(&e, l)
			ls.insertSmall(e)
			return false
		}
		ls.promote()
	}
	b := ls.big
	var e entry
	if t, ok := b.vis[l.ID2]; ok {
		existed = true
		if t == l.Time && l.Visibility == store.VisibilityDefault {
			setVal(b.tree.find(okey{t, l.ID2}), l)
			return true
		}
		e, _ = b.tree.delete(okey{t, l.ID2})
		delete(b.vis, l.ID2)
	} else if h, ok := b.hidden[l.ID2]; ok {
		existed = true
		e = h
		delete(b.hidden, l.ID2)
	}
	setEntry(&e, l)
	if visibleEntry(&e) {
		b.tree.insert(e)
		b.vis[e.id2] = e.time
	} else {
		if b.hidden == nil {
			b.hidden = make(map[int64]entry)
		}
		b.hidden[e.id2] = e
	}
	return existed
}

// remove hides (expunge == false) or removes the link id2 and reports
// whether it existed.
func (ls *list) remove(id2 int64, expunge bool) bool {
	if ls.big == nil {
		i := ls.findSmall(id2)
		if i < 0 {
			return false
		}
		if expunge {
			ls.removeSmall(i)
		} else {
			ls.small[i].vis = store.VisibilityHidden
		}
		return true
	}
	b := ls.big
	if t, ok := b.vis[id2]; ok {
		e, _ := b.tree.delete(okey{t, id2})
		delete(b.vis, id2)
		if !expunge {
			e.vis = store.VisibilityHidden
			if b.hidden == nil {
				b.hidden = make(map[int64]entry)
			}
			b.hidden[id2] = e
		}
	} else if _, ok := b.hidden[id2]; ok {
		if expunge {
			delete(b.hidden, id2)
		}
	} else {
		return false
	}
	ls.maybeDemote()
	return true
}

// appendLink appends the link (id1, linkType, k, v) to dst, reusing the
// Data capacity of the slot past len(dst) when dst has spare capacity.
func appendLink(dst []store.Link, id1, linkType int64, k okey, v *lval) []store.Link {
	var data []byte
	if len(dst) < cap(dst) {
		data = dst[:len(dst)+1][len(dst)].Data[:0]
	}
	if len(v.data) > 0 || data != nil {
		data = append(data, v.data...)
	}
	return append(dst, store.Link{
		ID1: id1, LinkType: linkType, ID2: k.id2, Visibility: v.vis,
		Data: data, Version: v.version, Time: k.time,
	})
}

// appendRange appends the visible links selected by r to dst (r.Limit > 0).
func (ls *list) appendRange(dst []store.Link, r *store.LinkRange) []store.Link {
	if r.MinTime > r.MaxTime {
		return dst
	}
	if b := ls.big; b != nil {
		start := b.tree.rank(okey{r.MaxTime, -1 << 63})
		if r.Offset >= b.tree.size-start {
			return dst
		}
		start += r.Offset
		n := 0
		for lf, i := b.tree.at(start); lf != nil; lf, i = lf.next, 0 {
			for ; i < lf.n; i++ {
				if lf.keys[i].time < r.MinTime {
					return dst
				}
				dst = appendLink(dst, r.ID1, r.LinkType, lf.keys[i], &lf.vals[i])
				if n++; n == r.Limit {
					return dst
				}
			}
		}
		return dst
	}
	skip, n := r.Offset, 0
	for i := range ls.small {
		e := &ls.small[i]
		if e.time > r.MaxTime || !visibleEntry(e) {
			continue
		}
		if e.time < r.MinTime {
			break
		}
		if skip > 0 {
			skip--
			continue
		}
		dst = appendLink(dst, r.ID1, r.LinkType, e.okey, &e.lval)
		if n++; n == r.Limit {
			break
		}
	}
	return dst
}
