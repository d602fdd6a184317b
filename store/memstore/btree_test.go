package memstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/linkbench-go/linkbench/store"
)

// verify checks the structural invariants of t: counts, separators, key
// order, fill of non-root nodes, uniform leaf depth and the leaf chain.
func (t *btree) verify() error {
	var leaves []*leaf
	checkLeaf := func(lf *leaf, lo, hi *okey, root bool) (int, error) {
		if !root && lf.n < leafMin {
			return 0, fmt.Errorf("leaf with %d links", lf.n)
		}
		if lf.n > leafMax {
			return 0, fmt.Errorf("leaf overflow %d", lf.n)
		}
		for i := range lf.n {
			k := lf.keys[i]
			if i > 0 && !lf.keys[i-1].less(k) {
				return 0, fmt.Errorf("leaf out of order at %d", i)
			}
			if lo != nil && k.less(*lo) {
				return 0, fmt.Errorf("key %v below separator %v", k, *lo)
			}
			if hi != nil && !k.less(*hi) {
				return 0, fmt.Errorf("key %v not below separator %v", k, *hi)
			}
		}
		for i := lf.n; i < len(lf.vals); i++ {
			if lf.vals[i] != (lval{}) {
				return 0, fmt.Errorf("stale value past the end of a leaf")
			}
		}
		leaves = append(leaves, lf)
		return lf.n, nil
	}
	var walk func(nd *inner, h int, lo, hi *okey, root bool) (int, error)
	walk = func(nd *inner, h int, lo, hi *okey, root bool) (int, error) {
		if nd.leafKids != (h == 1) {
			return 0, fmt.Errorf("leafKids %v at height %d", nd.leafKids, h)
		}
		n := nd.n
		if (!root && n < innerMin) || (root && n < 2) || n > innerMax {
			return 0, fmt.Errorf("inner node with %d children (root %v)", n, root)
		}
		for i := n; i < len(nd.in); i++ {
			if nd.in[i] != nil || nd.lf[i] != nil {
				return 0, fmt.Errorf("stale child pointer past the end")
			}
		}
		sum := 0
		for i := range n {
			clo, chi := lo, hi
			if i > 0 {
				clo = &nd.keys[i]
				if i > 1 && !nd.keys[i-1].less(nd.keys[i]) {
					return 0, fmt.Errorf("separators out of order")
				}
			}
			if i+1 < n {
				chi = &nd.keys[i+1]
			}
			var c int
			var err error
			if nd.leafKids {
				if nd.in[i] != nil {
					return 0, fmt.Errorf("inner child under leafKids")
				}
				c, err = checkLeaf(nd.lf[i], clo, chi, false)
			} else {
				if nd.lf[i] != nil {
					return 0, fmt.Errorf("leaf child under inner kids")
				}
				if i > 0 && nd.in[i].keys[0] != nd.keys[i] {
					return 0, fmt.Errorf("inner child's keys[0] differs from its separator")
				}
				c, err = walk(nd.in[i], h-1, clo, chi, false)
			}
			if err != nil {
				return 0, err
			}
			if c != nd.cnt[i] {
				return 0, fmt.Errorf("cnt %d, subtree holds %d", nd.cnt[i], c)
			}
			sum += c
		}
		return sum, nil
	}
	var n int
	var err error
	switch {
	case t.height == 0 && t.iroot != nil:
		return fmt.Errorf("inner root at height 0")
	case t.height > 0 && t.lroot != nil:
		return fmt.Errorf("leaf root at height %d", t.height)
	case t.height == 0 && t.lroot == nil:
		n = 0
	case t.height == 0:
		n, err = checkLeaf(t.lroot, nil, nil, true)
	default:
		n, err = walk(t.iroot, t.height, nil, nil, true)
	}
	if err != nil {
		return err
	}
	if n != t.size {
		return fmt.Errorf("size %d, tree holds %d", t.size, n)
	}
	for i, lf := range leaves {
		var want *leaf
		if i+1 < len(leaves) {
			want = leaves[i+1]
		}
		if lf.next != want {
			return fmt.Errorf("leaf chain broken after leaf %d", i)
		}
	}
	return nil
}

// TestBTreeModel applies random inserts and deletes (growing the tree to
// height 2, then shrinking it to nothing) and compares every structure
// with a sorted slice after each phase, and rank/at/find/delete results
// after each operation.
func TestBTreeModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tr btree
	var ref []okey // sorted in list order
	pos := func(k okey) (int, bool) {
		return slices.BinarySearchFunc(ref, k, func(a, b okey) int {
			switch {
			case a.less(b):
				return -1
			case b.less(a):
				return 1
			}
			return 0
		})
	}
	randKey := func() okey { return okey{int64(rng.IntN(5000)), int64(rng.IntN(40))} }
	check := func(phase string) {
		t.Helper()
		if err := tr.verify(); err != nil {
			t.Fatalf("%s: %v", phase, err)
		}
		if tr.size != len(ref) {
			t.Fatalf("%s: size %d, want %d", phase, tr.size, len(ref))
		}
		i := 0
		if tr.size > 0 {
			for lf, j := tr.at(0); lf != nil; lf, j = lf.next, 0 {
				for ; j < lf.n; j++ {
					if lf.keys[j] != ref[i] {
						t.Fatalf("%s: entry %d is %v, want %v", phase, i, lf.keys[j], ref[i])
					}
					i++
				}
			}
		}
		if i != len(ref) {
			t.Fatalf("%s: scan found %d entries, want %d", phase, i, len(ref))
		}
	}
	op := func(insertBias int) {
		insert := rng.IntN(100) < insertBias
		k := randKey()
		if !insert && len(ref) > 0 && rng.IntN(5) > 0 {
			k = ref[rng.IntN(len(ref))]
		}
		i, found := pos(k)
		if insert {
			if found {
				if v := tr.find(k); v == nil || v.data != fmt.Sprint(k) {
					t.Fatalf("find(%v) = %v, want the entry", k, v)
				}
				return
			}
			tr.insert(entry{k, lval{data: fmt.Sprint(k)}})
			ref = slices.Insert(ref, i, k)
		} else {
			e, ok := tr.delete(k)
			if ok != found || (ok && (e.okey != k || e.data != fmt.Sprint(k))) {
				t.Fatalf("delete(%v) = %v, %v; want found %v", k, e.key(), ok, found)
			}
			if found {
				ref = slices.Delete(ref, i, i+1)
			}
		}
		if r := tr.rank(k); r != i {
			t.Fatalf("rank(%v) = %d, want %d", k, r, i)
		}
		if len(ref) > 0 {
			r := rng.IntN(len(ref))
			lf, j := tr.at(r)
			if lf.keys[j] != ref[r] {
				t.Fatalf("at(%d) = %v, want %v", r, lf.keys[j], ref[r])
			}
		}
	}
	for range 10000 {
		op(85)
	}
	check("grown")
	if tr.height < 2 {
		t.Fatalf("height %d after growth, want >= 2", tr.height)
	}
	for range 10000 {
		op(50)
	}
	check("churned")
	for len(ref) > 0 {
		op(10)
	}
	check("emptied")
	for range 3000 {
		op(70)
	}
	check("regrown")
}

// TestListRepresentations drives one list through promotion to a bigList
// and demotion back, comparing with a model after every operation.
func TestListRepresentations(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ls list
	m := map[int64]store.Link{}
	sawBig, sawDemote := false, false
	for step := range 20000 {
		id2 := int64(rng.IntN(120))
		// Grow to ~100 links, shrink to a handful, repeat.
		phase := (step / 2000) % 2
		switch r := rng.IntN(50); {
		case (phase == 0 && r < 35) || (phase == 1 && r < 1):
			l := store.Link{ID2: id2, Visibility: store.Visibility(rng.IntN(2)), Time: int64(rng.IntN(30)),
				Version: int32(step), Data: []byte(fmt.Sprint(step))}
			if existed := ls.put(&l); existed != (m[id2].Data != nil) {
				t.Fatalf("step %d: put existed = %v", step, existed)
			}
			m[id2] = l
		default:
			expunge := rng.IntN(5) < 2+2*phase
			l, ok := m[id2]
			if got := ls.remove(id2, expunge); got != ok {
				t.Fatalf("step %d: remove found = %v, want %v", step, got, ok)
			}
			if ok {
				if expunge {
					delete(m, id2)
				} else {
					l.Visibility = store.VisibilityHidden
					m[id2] = l
				}
			}
		}
		wasBig := sawBig
		if ls.big != nil {
			sawBig = true
			if err := ls.big.tree.verify(); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
		} else if wasBig {
			sawDemote = true
		}
		var want []store.Link
		for _, l := range m {
			if l.Visibility == store.VisibilityDefault {
				want = append(want, l)
			}
		}
		slices.SortFunc(want, func(a, b store.Link) int {
			if a.Time != b.Time {
				return -compare(a.Time, b.Time)
			}
			return compare(a.ID2, b.ID2)
		})
		if ls.count() != len(want) || ls.walkVisible() != int64(len(want)) {
			t.Fatalf("step %d: count %d, walk %d, want %d", step, ls.count(), ls.walkVisible(), len(want))
		}
		if step%50 == 0 {
			r := store.LinkRange{MinTime: int64(rng.IntN(30)), MaxTime: int64(rng.IntN(30) + 5), Offset: rng.IntN(20), Limit: 1 + rng.IntN(40)}
			got := ls.appendRange(nil, &r)
			var exp []store.Link
			for _, l := range want {
				if l.Time >= r.MinTime && l.Time <= r.MaxTime {
					exp = append(exp, l)
				}
			}
			exp = exp[min(r.Offset, len(exp)):]
			exp = exp[:min(r.Limit, len(exp))]
			if len(got) != len(exp) {
				t.Fatalf("step %d: range %+v: %d links, want %d", step, r, len(got), len(exp))
			}
			for i := range got {
				if !got[i].Equal(exp[i]) {
					t.Fatalf("step %d: range %+v: link %d = %+v, want %+v", step, r, i, got[i], exp[i])
				}
			}
		}
		for id2, l := range m {
			e, ok := ls.get(id2)
			if !ok || e.time != l.Time || e.vis != l.Visibility || e.version != l.Version || e.data != string(l.Data) {
				t.Fatalf("step %d: get(%d) = %+v, %v; want %+v", step, id2, e, ok, l)
			}
		}
	}
	if !sawBig || !sawDemote {
		t.Fatalf("promotion seen %v, demotion seen %v: the test did not exercise both", sawBig, sawDemote)
	}
}

func compare(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
