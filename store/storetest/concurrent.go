package storetest

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/linkbench-go/linkbench/store"
)

// testConcurrent runs g goroutines doing ops random operations each
// (AddLink, UpdateLink, DeleteLink hiding and expunging, GetLink,
// MultigetLinks, GetLinkList, CountLinks) on a hot set of 4 id1 x 2 link
// types x 6 id2, then checks for every (id1, link_type) that CountLinks
// equals the number of visible links found by GetLinkList, by GetLink per
// id2 and by MultigetLinks, and that CheckCounts (when implemented) finds
// no mismatch. Each goroutine works on a session of its own
// (store.OpenSession). Reads during the run are checked for well-formedness. Run
// it under go test -race. Errors that store.IsTransient accepts (e.g.
// deadlocks that outlived the store's retries) are tolerated and counted;
// the test fails if every write failed so.
func testConcurrent(h *harness, g, ops int) {
	const base, firstType = 24_000_000_001, 100
	const nID1, nTypes, nID2 = 4, 2, 6
	var transient, writes atomic.Int64
	// report handles an error: false means stop this goroutine.
	report := func(op string, err error) bool {
		if store.IsTransient(err) {
			transient.Add(1)
			return true
		}
		h.t.Errorf("%s: %v", op, err)
		return false
	}
	allID2 := []int64{1, 2, 3, 4, 5, 6, 3, 1}
	var wg sync.WaitGroup
	for w := range g {
		wg.Go(func() {
			// Each goroutine works on a session of its own, as the
			// benchmark's workers do (the store itself when it has none).
			s, err := store.OpenSession(h.ctx, h.base)
			if err != nil {
				h.t.Errorf("OpenSession: %v", err)
				return
			}
			defer s.Close()
			rng := rand.New(rand.NewPCG(uint64(w), 0x5eed))
			var dst []store.Link
			for range ops {
				id1 := base + int64(rng.IntN(nID1))
				lt := firstType + int64(rng.IntN(nTypes))
				id2 := 1 + int64(rng.IntN(nID2))
				l := vis(id1, lt, id2, randData(rng, 16), int32(rng.IntN(3)), now+int64(rng.IntN(4)))
				if rng.IntN(4) == 0 {
					l = hidden(l)
				}
				switch op := rng.IntN(10); op {
				case 0, 1, 2:
					writes.Add(1)
					if _, err := s.AddLink(h.ctx, l, true); err != nil && !report("AddLink", err) {
						return
					}
				case 3:
					writes.Add(1)
					if _, err := s.UpdateLink(h.ctx, l, true); err != nil && !report("UpdateLink", err) {
						return
					}
				case 4, 5:
					writes.Add(1)
					if _, err := s.DeleteLink(h.ctx, id1, lt, id2, true, op == 5); err != nil && !report("DeleteLink", err) {
						return
					}
				case 6:
					got, found, err := s.GetLink(h.ctx, id1, lt, id2)
					if err != nil {
						if !report("GetLink", err) {
							return
						}
					} else if found && (got.ID1 != id1 || got.LinkType != lt || got.ID2 != id2) {
						h.t.Errorf("GetLink(%d, %d, %d) = %s", id1, lt, id2, fmtLink(got))
						return
					}
				case 7:
					n, err := s.CountLinks(h.ctx, id1, lt)
					if err != nil {
						if !report("CountLinks", err) {
							return
						}
					} else if n < 0 || n > nID2 {
						h.t.Errorf("CountLinks(%d, %d) = %d, want 0..%d", id1, lt, n, nID2)
						return
					}
				case 8:
					var err error
					dst, err = s.GetLinkList(h.ctx, store.FullRange(id1, lt), dst[:0])
					if err != nil {
						if !report("GetLinkList", err) {
							return
						}
					} else if msg := wellFormed(dst, id1, lt, true); msg != "" {
						h.t.Errorf("GetLinkList(%d, %d): %s: %s", id1, lt, msg, fmtLinks(dst))
						return
					}
				case 9:
					var err error
					dst, err = s.MultigetLinks(h.ctx, id1, lt, allID2, dst[:0])
					if err != nil {
						if !report("MultigetLinks", err) {
							return
						}
					} else if msg := wellFormed(dst, id1, lt, false); msg != "" {
						h.t.Errorf("MultigetLinks(%d, %d): %s: %s", id1, lt, msg, fmtLinks(dst))
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if h.t.Failed() {
		return
	}
	if n := transient.Load(); n > 0 {
		h.t.Logf("%d of %d operations failed with transient errors", n, int64(g)*int64(ops))
		if n >= writes.Load() {
			h.t.Fatalf("every write failed with a transient error")
		}
	}

	for i := range int64(nID1) {
		for j := range int64(nTypes) {
			id1, lt := base+i, firstType+j
			count := h.count(id1, lt)
			list := h.list(store.FullRange(id1, lt))
			if msg := wellFormed(list, id1, lt, true); msg != "" {
				h.t.Errorf("GetLinkList(%d, %d): %s: %s", id1, lt, msg, fmtLinks(list))
			}
			var byGet []store.Link
			for id2 := int64(1); id2 <= nID2; id2++ {
				if l, found := h.get(id1, lt, id2); found {
					byGet = append(byGet, l)
				}
			}
			multi := h.multiget(id1, lt, allID2...)
			if msg := sameSet(multi, byGet); msg != "" {
				h.t.Errorf("(%d, %d): MultigetLinks and GetLink disagree: %s\nmultiget %s\ngetlink  %s", id1, lt, msg, fmtLinks(multi), fmtLinks(byGet))
			}
			var visible []store.Link
			for _, l := range byGet {
				if l.Visibility == store.VisibilityDefault {
					visible = append(visible, l)
				}
			}
			if msg := sameList(list, visible); msg != "" {
				h.t.Errorf("(%d, %d): GetLinkList and the visible links by GetLink disagree: %s\nlist    %s\ngetlink %s", id1, lt, msg, fmtLinks(list), fmtLinks(visible))
			}
			if count != int64(len(visible)) || count != int64(len(list)) {
				h.t.Errorf("(%d, %d): CountLinks = %d, GetLinkList has %d links, GetLink finds %d visible", id1, lt, count, len(list), len(visible))
			}
		}
	}
	if ck, ok := store.AsChecker(h.base); ok {
		mm, _, err := ck.CheckCounts(h.ctx, 0)
		if err != nil {
			h.t.Fatalf("CheckCounts: %v", err)
		}
		if len(mm) != 0 {
			h.t.Errorf("CheckCounts after the concurrent run: %+v", mm)
		}
	}
}

// wellFormed returns "" when links all belong to (id1, lt) with distinct
// id2s, and, for a list query (listed), are visible and newest first.
func wellFormed(links []store.Link, id1, lt int64, listed bool) string {
	for i, l := range links {
		if l.ID1 != id1 || l.LinkType != lt {
			return "link of another list"
		}
		if listed && l.Visibility != store.VisibilityDefault {
			return "hidden link listed"
		}
		if listed && i > 0 && l.Time > links[i-1].Time {
			return "not newest first"
		}
		for _, p := range links[:i] {
			if p.ID2 == l.ID2 {
				return "id2 repeated"
			}
		}
	}
	return ""
}
