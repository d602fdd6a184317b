package memstore

import "github.com/linkbench-go/linkbench/store"

// okey is the order of an adjacency list: Time descending, then ID2
// ascending (reference §2.4, MemoryLinkStore's comparator).
type okey struct {
	time int64
	id2  int64
}

// less reports whether a sorts before b in list order.
func (a okey) less(b okey) bool {
	return a.time > b.time || (a.time == b.time && a.id2 < b.id2)
}

// lval is the part of a stored link that is not its key. Data is kept as
// an immutable string so that readers copy it out and never alias it.
type lval struct {
	data    string
	version int32
	vis     store.Visibility
}

// entry is one stored link of an (id1, link_type) list.
type entry struct {
	okey
	lval
}

func (e *entry) key() okey { return e.okey }

// B+tree fan-out. A leaf holds up to leafMax links (2.6 KiB); an inner
// node up to innerMax children. A non-root node that falls below a quarter
// of its capacity is merged with, or refilled from, a sibling.
const (
	leafMax  = 64
	leafMin  = leafMax / 4
	innerMax = 64
	innerMin = innerMax / 4
)

// leaf is a B+tree leaf: n links in list order, keys apart from values so
// that a binary search touches few cache lines. Arrays have one spare slot
// so that an insertion can overflow by one before the leaf splits.
type leaf struct {
	n    int
	next *leaf // the next leaf in list order
	keys [leafMax + 1]okey
	vals [leafMax + 1]lval
}

// inner is a B+tree inner node with n children: leaves (lf) when
// leafKids, inner nodes (in) otherwise. keys[i] (i >= 1) is a separator:
// every link under child i-1 sorts before keys[i] and no link under child
// i does; keys[0] is not used for routing. cnt[i] is the number of links
// under child i.
type inner struct {
	n        int
	leafKids bool
	keys     [innerMax + 1]okey
	cnt      [innerMax + 1]int
	in       [innerMax + 1]*inner
	lf       [innerMax + 1]*leaf
}

// btree is an order-statistic B+tree of links in list order with unique
// keys: insert, delete, find, rank and select cost O(log n); leaves are
// chained for in-order scans. The zero value is an empty tree. Not safe
// for concurrent use.
type btree struct {
	iroot *inner // the root when height > 0
	lroot *leaf  // the root when height == 0 (nil when never used)
	// height is the number of inner levels.
	height int
	size   int
}

func (nd *inner) total() int {
	s := 0
	for _, c := range nd.cnt[:nd.n] {
		s += c
	}
	return s
}

// childIndex returns the child of nd whose range holds k.
func (nd *inner) childIndex(k okey) int {
	lo, hi := 1, nd.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if k.less(nd.keys[m]) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo - 1
}

// lowerBound returns the index of the first link of lf not sorting before
// k.
func (lf *leaf) lowerBound(k okey) int {
	lo, hi := 0, lf.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if lf.keys[m].less(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// entry returns the link at index i of lf.
func (lf *leaf) entry(i int) entry { return entry{lf.keys[i], lf.vals[i]} }

// insertChild inserts a child (separator k, c links, node in or lf) at
// index i of nd.
func (nd *inner) insertChild(i int, k okey, c int, in *inner, lf *leaf) {
	copy(nd.keys[i+1:nd.n+1], nd.keys[i:nd.n])
	copy(nd.cnt[i+1:nd.n+1], nd.cnt[i:nd.n])
	copy(nd.in[i+1:nd.n+1], nd.in[i:nd.n])
	copy(nd.lf[i+1:nd.n+1], nd.lf[i:nd.n])
	nd.keys[i], nd.cnt[i], nd.in[i], nd.lf[i] = k, c, in, lf
	nd.n++
}

// removeChild deletes child i of nd.
func (nd *inner) removeChild(i int) {
	n := nd.n - 1
	copy(nd.keys[i:n], nd.keys[i+1:nd.n])
	copy(nd.cnt[i:n], nd.cnt[i+1:nd.n])
	copy(nd.in[i:n], nd.in[i+1:nd.n])
	copy(nd.lf[i:n], nd.lf[i+1:nd.n])
	nd.in[n], nd.lf[n] = nil, nil
	nd.n = n
}

// moveChildren appends children [from, to) of src to dst.
func moveChildren(dst, src *inner, from, to int) {
	k := to - from
	copy(dst.keys[dst.n:dst.n+k], src.keys[from:to])
	copy(dst.cnt[dst.n:dst.n+k], src.cnt[from:to])
	copy(dst.in[dst.n:dst.n+k], src.in[from:to])
	copy(dst.lf[dst.n:dst.n+k], src.lf[from:to])
	dst.n += k
}

// truncate drops the children of nd from index n on.
func (nd *inner) truncate(n int) {
	clear(nd.in[n:nd.n])
	clear(nd.lf[n:nd.n])
	nd.n = n
}

// insert adds e, whose key must not be in the tree.
func (t *btree) insert(e entry) {
	t.size++
	if t.height == 0 {
		if t.lroot == nil {
			t.lroot = &leaf{}
		}
		if r := insLeaf(t.lroot, e); r != nil {
			nr := &inner{leafKids: true}
			nr.insertChild(0, okey{}, t.lroot.n, nil, t.lroot)
			nr.insertChild(1, r.keys[0], r.n, nil, r)
			t.iroot, t.lroot, t.height = nr, nil, 1
		}
		return
	}
	if r := insInner(t.iroot, e); r != nil {
		nr := &inner{}
		nr.insertChild(0, okey{}, t.iroot.total(), t.iroot, nil)
		nr.insertChild(1, r.keys[0], r.total(), r, nil)
		t.iroot = nr
		t.height++
	}
}

// insLeaf inserts e into lf and returns lf's new right sibling when lf had
// to split.
func insLeaf(lf *leaf, e entry) *leaf {
	pos := lf.lowerBound(e.okey)
	copy(lf.keys[pos+1:lf.n+1], lf.keys[pos:lf.n])
	copy(lf.vals[pos+1:lf.n+1], lf.vals[pos:lf.n])
	lf.keys[pos], lf.vals[pos] = e.okey, e.lval
	lf.n++
	if lf.n <= leafMax {
		return nil
	}
	r := &leaf{next: lf.next}
	mid := lf.n / 2
	r.n = copy(r.keys[:], lf.keys[mid:lf.n])
	copy(r.vals[:], lf.vals[mid:lf.n])
	clear(lf.vals[mid:lf.n])
	lf.n = mid
	lf.next = r
	return r
}

// insInner inserts e under nd and returns nd's new right sibling when nd
// had to split; the sibling's keys[0] is its separator.
func insInner(nd *inner, e entry) *inner {
	i := nd.childIndex(e.okey)
	nd.cnt[i]++
	if nd.leafKids {
		r := insLeaf(nd.lf[i], e)
		if r == nil {
			return nil
		}
		nd.cnt[i] -= r.n
		nd.insertChild(i+1, r.keys[0], r.n, nil, r)
	} else {
		r := insInner(nd.in[i], e)
		if r == nil {
			return nil
		}
		rc := r.total()
		nd.cnt[i] -= rc
		nd.insertChild(i+1, r.keys[0], rc, r, nil)
	}
	if nd.n <= innerMax {
		return nil
	}
	s := &inner{leafKids: nd.leafKids}
	mid := nd.n / 2
	moveChildren(s, nd, mid, nd.n)
	nd.truncate(mid)
	return s
}

// findLeaf returns the leaf whose range holds k.
func (t *btree) findLeaf(k okey) *leaf {
	if t.height == 0 {
		return t.lroot
	}
	nd := t.iroot
	for !nd.leafKids {
		nd = nd.in[nd.childIndex(k)]
	}
	return nd.lf[nd.childIndex(k)]
}

// find returns a pointer to the value of the link with key k, or nil. The
// pointer is valid until the tree is next modified.
func (t *btree) find(k okey) *lval {
	lf := t.findLeaf(k)
	if lf == nil {
		return nil
	}
	if pos := lf.lowerBound(k); pos < lf.n && lf.keys[pos] == k {
		return &lf.vals[pos]
	}
	return nil
}

// delete removes and returns the link with key k, if present.
func (t *btree) delete(k okey) (entry, bool) {
	var e entry
	var ok bool
	if t.height == 0 {
		if t.lroot == nil {
			return entry{}, false
		}
		e, ok = delLeaf(t.lroot, k)
	} else {
		e, ok = delInner(t.iroot, k)
	}
	if !ok {
		return entry{}, false
	}
	t.size--
	for t.height > 0 && t.iroot.n == 1 {
		if t.iroot.leafKids {
			t.lroot, t.iroot = t.iroot.lf[0], nil
		} else {
			t.iroot = t.iroot.in[0]
		}
		t.height--
	}
	return e, true
}

func delLeaf(lf *leaf, k okey) (entry, bool) {
	pos := lf.lowerBound(k)
	if pos == lf.n || lf.keys[pos] != k {
		return entry{}, false
	}
	e := lf.entry(pos)
	copy(lf.keys[pos:lf.n-1], lf.keys[pos+1:lf.n])
	copy(lf.vals[pos:lf.n-1], lf.vals[pos+1:lf.n])
	lf.n--
	lf.vals[lf.n] = lval{}
	return e, true
}

func delInner(nd *inner, k okey) (entry, bool) {
	i := nd.childIndex(k)
	var e entry
	var ok, under bool
	if nd.leafKids {
		e, ok = delLeaf(nd.lf[i], k)
		under = ok && nd.lf[i].n < leafMin
	} else {
		e, ok = delInner(nd.in[i], k)
		under = ok && nd.in[i].n < innerMin
	}
	if !ok {
		return entry{}, false
	}
	nd.cnt[i]--
	if under && nd.n > 1 {
		j := i
		if j+1 == nd.n {
			j--
		}
		if nd.leafKids {
			rebalanceLeaves(nd, j)
		} else {
			rebalanceInner(nd, j)
		}
	}
	return e, true
}

// rebalanceLeaves merges leaf children j and j+1 of p when they fit in
// one leaf, and otherwise shares their links evenly.
func rebalanceLeaves(p *inner, j int) {
	l, r := p.lf[j], p.lf[j+1]
	n := l.n + r.n
	if n <= leafMax {
		copy(l.keys[l.n:n], r.keys[:r.n])
		copy(l.vals[l.n:n], r.vals[:r.n])
		l.n = n
		l.next = r.next
		p.cnt[j] = n
		p.removeChild(j + 1)
		return
	}
	target := n / 2
	if l.n < target {
		k := target - l.n
		copy(l.keys[l.n:target], r.keys[:k])
		copy(l.vals[l.n:target], r.vals[:k])
		copy(r.keys[:r.n-k], r.keys[k:r.n])
		copy(r.vals[:r.n-k], r.vals[k:r.n])
		clear(r.vals[r.n-k : r.n])
		l.n, r.n = target, r.n-k
	} else {
		k := l.n - target
		copy(r.keys[k:r.n+k], r.keys[:r.n])
		copy(r.vals[k:r.n+k], r.vals[:r.n])
		copy(r.keys[:k], l.keys[target:l.n])
		copy(r.vals[:k], l.vals[target:l.n])
		clear(l.vals[target:l.n])
		l.n, r.n = target, r.n+k
	}
	p.cnt[j], p.cnt[j+1] = l.n, r.n
	p.keys[j+1] = r.keys[0]
}

// rebalanceInner merges inner children j and j+1 of p when they fit in
// one node, and otherwise shares their children evenly.
func rebalanceInner(p *inner, j int) {
	l, r := p.in[j], p.in[j+1]
	// r's first child is bounded below by p's separator (verify checks that
	// r.keys[0] already equals it; restated so the moves below are local).
	r.keys[0] = p.keys[j+1]
	n := l.n + r.n
	if n <= innerMax {
		moveChildren(l, r, 0, r.n)
		p.cnt[j] += p.cnt[j+1]
		p.removeChild(j + 1)
		return
	}
	target := n / 2
	if l.n < target {
		k := target - l.n
		moveChildren(l, r, 0, k)
		m := r.n - k
		copy(r.keys[:m], r.keys[k:r.n])
		copy(r.cnt[:m], r.cnt[k:r.n])
		copy(r.in[:m], r.in[k:r.n])
		copy(r.lf[:m], r.lf[k:r.n])
		r.truncate(m)
	} else {
		k := l.n - target
		copy(r.keys[k:r.n+k], r.keys[:r.n])
		copy(r.cnt[k:r.n+k], r.cnt[:r.n])
		copy(r.in[k:r.n+k], r.in[:r.n])
		copy(r.lf[k:r.n+k], r.lf[:r.n])
		copy(r.keys[:k], l.keys[target:l.n])
		copy(r.cnt[:k], l.cnt[target:l.n])
		copy(r.in[:k], l.in[target:l.n])
		copy(r.lf[:k], l.lf[target:l.n])
		r.n += k
		l.truncate(target)
	}
	p.cnt[j], p.cnt[j+1] = l.total(), r.total()
	p.keys[j+1] = r.keys[0]
}

// rank returns the number of links sorting before k.
func (t *btree) rank(k okey) int {
	if t.height == 0 {
		if t.lroot == nil {
			return 0
		}
		return t.lroot.lowerBound(k)
	}
	r := 0
	nd := t.iroot
	for {
		i := nd.childIndex(k)
		for _, c := range nd.cnt[:i] {
			r += c
		}
		if nd.leafKids {
			return r + nd.lf[i].lowerBound(k)
		}
		nd = nd.in[i]
	}
}

// at returns the leaf holding the link of rank r (0 <= r < size) and the
// link's index in that leaf.
func (t *btree) at(r int) (*leaf, int) {
	if t.height == 0 {
		return t.lroot, r
	}
	nd := t.iroot
	for {
		i := 0
		for r >= nd.cnt[i] {
			r -= nd.cnt[i]
			i++
		}
		if nd.leafKids {
			return nd.lf[i], r
		}
		nd = nd.in[i]
	}
}
