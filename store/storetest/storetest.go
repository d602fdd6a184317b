// Package storetest is the conformance suite of LinkBench stores: Run
// checks a store.Store against the semantics package store documents
// (reference §10.1 "Store semantics" and "Node store semantics", with the
// fixes of reference §11.2), its optional capabilities when it has them
// (bulk loads, checks, databases, sessions, contents, counters), and the
// exactness of counts under concurrent writes. Package memstore,
// the reference store, passes it; every other store must.
//
// Every case uses its own id1 range, so a store whose newStore function
// hands out one shared database still passes, provided nothing else
// writes to it. Node cases call ResetNodeStore and so need a node table no
// other test uses at the same time.
package storetest

import (
	"context"
	"testing"

	"github.com/linkbench-go/linkbench/store"
)

// RunOptions scales the suite. The zero value gives the defaults.
type RunOptions struct {
	// Goroutines is the number of goroutines of the concurrent case
	// (default 16).
	Goroutines int
	// OpsPerGoroutine is the number of operations each of them does
	// (default 400, or 100 with go test -short).
	OpsPerGoroutine int
	// DatabaseNames are the two databases the Databases case opens when the
	// store implements store.Databases (default "storetest_a" and
	// "storetest_b"). The case writes links of id1 23000000001 and resets
	// their node tables; nothing else may use them during the run.
	DatabaseNames [2]string
}

// Run runs the whole suite against the stores newStore returns, one
// subtest per scenario, with the default RunOptions. newStore must return
// a fresh, empty store (it is called once per subtest); stores that need
// cleanup register it with t.Cleanup.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	RunWithOptions(t, newStore, RunOptions{})
}

// RunWithOptions is Run with the scale and names set by o.
func RunWithOptions(t *testing.T, newStore func(t *testing.T) store.Store, o RunOptions) {
	if o.Goroutines <= 0 {
		o.Goroutines = 16
	}
	if o.OpsPerGoroutine <= 0 {
		o.OpsPerGoroutine = 400
		if testing.Short() {
			o.OpsPerGoroutine = 100
		}
	}
	if o.DatabaseNames == [2]string{} {
		o.DatabaseNames = [2]string{"storetest_a", "storetest_b"}
	}
	cases := []struct {
		name string
		fn   func(h *harness)
	}{
		{"Misses", testMisses},
		{"OneLink", testOneLink},
		{"ManyLinks", testManyLinks},
		{"LargeList", testLargeList},
		{"PayloadSizes", testPayloadSizes},
		{"Multiget", testMultiget},
		{"Hiding", testHiding},
		{"Overwrite", testOverwrite},
		{"Escaping", testEscaping},
		{"Binary", testBinary},
		{"LimitZero", testLimitZero},
		{"ExpungeHidden", testExpungeHidden},
		{"UpdateMissingInserts", testUpdateMissingInserts},
		{"UnchangedWrites", testUnchangedWrites},
		{"AddHideUnhideDelete", testAddHideUnhideDelete},
		{"DstReuse", testDstReuse},
		{"Cancelled", testCancelled},
		{"BulkLinks", testBulkLinks},
		{"NodeIDs", testNodeIDs},
		{"NodeUpdate", testNodeUpdate},
		{"NodeBulk", testNodeBulk},
		{"NodeBinary", testNodeBinary},
		{"Checker", testChecker},
		{"NodeProber", testNodeProber},
		{"Contents", testContents},
		{"Counters", testCounters},
		{"Databases", func(h *harness) { testDatabases(h, o.DatabaseNames) }},
		{"Concurrent", func(h *harness) { testConcurrent(h, o.Goroutines, o.OpsPerGoroutine) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newStore(t)
			c.fn(&harness{t: t, ctx: t.Context(), s: s, base: s})
		})
	}
	// A store with sessions passes every case on a session too (the
	// Databases case aside: sessions serve one database). The checks a
	// case makes through store.Checker go to the store the session came
	// from, and the concurrent case opens a session per goroutine.
	t.Run("Session", func(t *testing.T) {
		for _, c := range cases {
			if c.name == "Databases" {
				continue
			}
			t.Run(c.name, func(t *testing.T) {
				s := newStore(t)
				ss, ok := store.AsSessions(s)
				if !ok {
					t.Skip("store does not implement store.Sessions")
				}
				sess, err := ss.Session(t.Context())
				if err != nil {
					t.Fatalf("Session: %v", err)
				}
				defer func() {
					if err := sess.Close(); err != nil {
						t.Errorf("Session.Close: %v", err)
					}
				}()
				c.fn(&harness{t: t, ctx: t.Context(), s: sess, base: s})
			})
		}
	})
}

// harness wraps a store with calls that fail the test on error. s is the
// store under test (a session, in the Session cases), base the store it
// came from.
type harness struct {
	t    *testing.T
	ctx  context.Context
	s    store.Store
	base store.Store
}

func (h *harness) add(l store.Link) store.WriteResult {
	h.t.Helper()
	r, err := h.s.AddLink(h.ctx, l, true)
	if err != nil {
		h.t.Fatalf("AddLink(%+v): %v", l, err)
	}
	return r
}

func (h *harness) update(l store.Link) store.WriteResult {
	h.t.Helper()
	r, err := h.s.UpdateLink(h.ctx, l, true)
	if err != nil {
		h.t.Fatalf("UpdateLink(%+v): %v", l, err)
	}
	return r
}

func (h *harness) del(id1, linkType, id2 int64, expunge bool) bool {
	h.t.Helper()
	found, err := h.s.DeleteLink(h.ctx, id1, linkType, id2, true, expunge)
	if err != nil {
		h.t.Fatalf("DeleteLink(%d, %d, %d, expunge=%v): %v", id1, linkType, id2, expunge, err)
	}
	return found
}

func (h *harness) get(id1, linkType, id2 int64) (store.Link, bool) {
	h.t.Helper()
	l, found, err := h.s.GetLink(h.ctx, id1, linkType, id2)
	if err != nil {
		h.t.Fatalf("GetLink(%d, %d, %d): %v", id1, linkType, id2, err)
	}
	return l, found
}

func (h *harness) count(id1, linkType int64) int64 {
	h.t.Helper()
	n, err := h.s.CountLinks(h.ctx, id1, linkType)
	if err != nil {
		h.t.Fatalf("CountLinks(%d, %d): %v", id1, linkType, err)
	}
	return n
}

func (h *harness) list(r store.LinkRange) []store.Link {
	h.t.Helper()
	got, err := h.s.GetLinkList(h.ctx, r, nil)
	if err != nil {
		h.t.Fatalf("GetLinkList(%+v): %v", r, err)
	}
	return got
}

func (h *harness) multiget(id1, linkType int64, id2s ...int64) []store.Link {
	h.t.Helper()
	got, err := h.s.MultigetLinks(h.ctx, id1, linkType, id2s, nil)
	if err != nil {
		h.t.Fatalf("MultigetLinks(%d, %d, %v): %v", id1, linkType, id2s, err)
	}
	return got
}

// wantLink checks that the stored link equals want.
func (h *harness) wantLink(want store.Link) {
	h.t.Helper()
	got, found := h.get(want.ID1, want.LinkType, want.ID2)
	if !found {
		h.t.Fatalf("GetLink(%d, %d, %d): not found, want %s", want.ID1, want.LinkType, want.ID2, fmtLink(want))
	}
	if !got.Equal(want) {
		h.t.Fatalf("GetLink(%d, %d, %d) = %s, want %s", want.ID1, want.LinkType, want.ID2, fmtLink(got), fmtLink(want))
	}
}

// wantNoLink checks that the link is absent.
func (h *harness) wantNoLink(id1, linkType, id2 int64) {
	h.t.Helper()
	if got, found := h.get(id1, linkType, id2); found {
		h.t.Fatalf("GetLink(%d, %d, %d) = %s, want not found", id1, linkType, id2, fmtLink(got))
	}
}

// wantCount checks CountLinks.
func (h *harness) wantCount(id1, linkType, want int64) {
	h.t.Helper()
	if got := h.count(id1, linkType); got != want {
		h.t.Fatalf("CountLinks(%d, %d) = %d, want %d", id1, linkType, got, want)
	}
}

// wantList checks that GetLinkList(r) returns want (see sameList).
func (h *harness) wantList(r store.LinkRange, want ...store.Link) {
	h.t.Helper()
	got := h.list(r)
	if msg := sameList(got, want); msg != "" {
		h.t.Fatalf("GetLinkList(%+v): %s\n got %s\nwant %s", r, msg, fmtLinks(got), fmtLinks(want))
	}
}

// wantFull checks the plain link list of (id1, linkType) and that the
// count equals its length.
func (h *harness) wantFull(id1, linkType int64, want ...store.Link) {
	h.t.Helper()
	h.wantList(store.FullRange(id1, linkType), want...)
	h.wantCount(id1, linkType, int64(len(want)))
}
