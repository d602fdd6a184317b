package storetest

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"

	"github.com/linkbench-go/linkbench/store"
)

// testDstReuse: reads append into dst, reuse the Data capacity of its
// elements and never alias stored data; stores never keep the caller's
// Data slices.
func testDstReuse(h *harness) {
	const id1, lt = 19_000_000_001, 1
	buf := []byte("original payload")
	l := vis(id1, lt, 1, buf, 1, now)
	want := l.Clone()
	h.add(l)
	buf[0] = 'X'
	h.wantLink(want)

	l2 := vis(id1, lt, 2, []byte("second"), 1, now-1)
	l3 := vis(id1, lt, 3, nil, 1, now-2)
	l4 := vis(id1, lt, 4, []byte("x"), 1, now-3)
	for _, l := range []store.Link{l2, l3, l4} {
		h.add(l)
	}
	all := []store.Link{want, l2, l3, l4}

	got, _ := h.get(id1, lt, 1)
	got.Data[0] = 'Y'
	h.wantLink(want)

	// A dst whose spare elements carry payload capacity filled with junk.
	junk := func(n int) []store.Link {
		d := make([]store.Link, n)
		for i := range d {
			d[i] = store.Link{ID1: -1, ID2: -1, Time: -1, Data: bytes.Repeat([]byte{0xee}, 300)}
		}
		return d
	}
	for _, capacity := range []int{0, 2, 8} {
		dst := junk(capacity)[:0]
		res, err := h.s.GetLinkList(h.ctx, store.FullRange(id1, lt), dst)
		if err != nil {
			h.t.Fatalf("GetLinkList: %v", err)
		}
		if msg := sameList(res, all); msg != "" {
			h.t.Fatalf("GetLinkList into a dst of capacity %d: %s\n got %s\nwant %s", capacity, msg, fmtLinks(res), fmtLinks(all))
		}
		for i := range res {
			for j := range res[i].Data {
				res[i].Data[j] = 'Z'
			}
		}
		h.wantFull(id1, lt, all...)

		dst = junk(capacity)[:0]
		res, err = h.s.MultigetLinks(h.ctx, id1, lt, []int64{4, 3, 2, 1, 99}, dst)
		if err != nil {
			h.t.Fatalf("MultigetLinks: %v", err)
		}
		if msg := sameSet(res, all); msg != "" {
			h.t.Fatalf("MultigetLinks into a dst of capacity %d: %s\n got %s\nwant %s", capacity, msg, fmtLinks(res), fmtLinks(all))
		}
		for i := range res {
			for j := range res[i].Data {
				res[i].Data[j] = 'Z'
			}
		}
		for _, l := range all {
			h.wantLink(l)
		}
	}

	// Appending after existing elements keeps them.
	prefix := vis(5, 6, 7, []byte("prefix"), 8, 9)
	res, err := h.s.GetLinkList(h.ctx, rangeOf(id1, lt, 0, math.MaxInt64, 1, 2), []store.Link{prefix})
	if err != nil {
		h.t.Fatalf("GetLinkList: %v", err)
	}
	if len(res) != 3 || !res[0].Equal(prefix) || sameList(res[1:], all[1:3]) != "" {
		h.t.Fatalf("GetLinkList appending to a 1-link dst = %s, want [%s %s %s]", fmtLinks(res), fmtLink(prefix), fmtLink(l2), fmtLink(l3))
	}
	// An empty answer leaves dst as it was.
	res, err = h.s.GetLinkList(h.ctx, rangeOf(id1, lt, 0, 1, 0, 10), []store.Link{prefix})
	if err != nil {
		h.t.Fatalf("GetLinkList: %v", err)
	}
	if len(res) != 1 || !res[0].Equal(prefix) {
		h.t.Fatalf("empty GetLinkList appending to a 1-link dst = %s, want [%s]", fmtLinks(res), fmtLink(prefix))
	}

	// Nodes.
	h.reset(1)
	nbuf := []byte("node payload")
	n := store.Node{ID: -1, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: nbuf}
	nwant := n.Clone()
	nwant.ID = h.addNode(n)
	nbuf[0] = 'X'
	h.wantNode(nwant)
	got2, _ := h.getNode(nwant.Type, nwant.ID)
	got2.Data[0] = 'Y'
	h.wantNode(nwant)
	ubuf := []byte("updated payload")
	u := nwant
	u.Data = ubuf
	h.updateNode(u)
	uwant := u.Clone()
	ubuf[0] = 'X'
	h.wantNode(uwant)
}

// testCancelled: every call with an already-cancelled context returns an
// error matching context.Canceled and changes nothing.
func testCancelled(h *harness) {
	const id1, lt = 20_000_000_001, 1
	l := vis(id1, lt, 1, []byte("kept"), 1, now)
	h.add(l)
	h.reset(1)
	n := store.Node{ID: -1, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: []byte("kept")}
	n.ID = h.addNode(n)

	ctx, cancel := context.WithCancel(h.ctx)
	cancel()
	changed := vis(id1, lt, 1, []byte("changed"), 2, now+1)
	fresh := vis(id1, lt, 2, []byte("new"), 1, now)
	nchanged := store.Node{ID: n.ID, Type: n.Type, Version: 2, Time: 2, Data: []byte("changed")}
	s := h.s
	calls := []namedCall{
		{"AddLink", func() error { _, err := s.AddLink(ctx, fresh, true); return err }},
		{"AddLink(existing)", func() error { _, err := s.AddLink(ctx, changed, true); return err }},
		{"UpdateLink", func() error { _, err := s.UpdateLink(ctx, changed, true); return err }},
		{"DeleteLink(hide)", func() error { _, err := s.DeleteLink(ctx, id1, lt, 1, true, false); return err }},
		{"DeleteLink(expunge)", func() error { _, err := s.DeleteLink(ctx, id1, lt, 1, true, true); return err }},
		{"GetLink", func() error { _, _, err := s.GetLink(ctx, id1, lt, 1); return err }},
		{"MultigetLinks", func() error { _, err := s.MultigetLinks(ctx, id1, lt, []int64{1}, nil); return err }},
		{"GetLinkList", func() error { _, err := s.GetLinkList(ctx, store.FullRange(id1, lt), nil); return err }},
		{"CountLinks", func() error { _, err := s.CountLinks(ctx, id1, lt); return err }},
		{"ResetNodeStore", func() error { return s.ResetNodeStore(ctx, 1000) }},
		{"AddNode", func() error { _, err := s.AddNode(ctx, n); return err }},
		{"GetNode", func() error { _, _, err := s.GetNode(ctx, n.Type, n.ID); return err }},
		{"UpdateNode", func() error { _, err := s.UpdateNode(ctx, nchanged); return err }},
		{"DeleteNode", func() error { _, err := s.DeleteNode(ctx, n.Type, n.ID); return err }},
	}
	if bl, ok := store.AsBulkLinkLoader(s); ok {
		calls = append(calls,
			namedCall{"AddBulkLinks", func() error { return bl.AddBulkLinks(ctx, []store.Link{fresh}, true) }},
			namedCall{"AddBulkCounts", func() error {
				return bl.AddBulkCounts(ctx, []store.LinkCount{{ID1: id1, LinkType: lt, Time: now, Count: 5}})
			}})
	}
	if bn, ok := store.AsBulkNodeLoader(s); ok {
		calls = append(calls, namedCall{"AddBulkNodes", func() error { return bn.AddBulkNodes(ctx, []store.Node{nchanged}) }})
	}
	if dbs, ok := store.AsDatabases(s); ok {
		calls = append(calls, namedCall{"Database", func() error { _, err := dbs.Database(ctx, "storetest_cancelled"); return err }})
	}
	if ck, ok := store.AsChecker(s); ok {
		calls = append(calls,
			namedCall{"NodeStats", func() error { _, err := ck.NodeStats(ctx); return err }},
			namedCall{"CheckCounts", func() error { _, _, err := ck.CheckCounts(ctx, 0); return err }})
	}
	for _, c := range calls {
		if err := c.call(); !errors.Is(err, context.Canceled) {
			h.t.Errorf("%s with a cancelled context: error %v, want one matching context.Canceled", c.name, err)
		}
	}
	h.wantLink(l)
	h.wantNoLink(id1, lt, 2)
	h.wantFull(id1, lt, l)
	h.wantNode(n)
	h.wantNoNode(n.Type, n.ID+1)
}

// namedCall is a store call for testCancelled.
type namedCall struct {
	name string
	call func() error
}

// testBulkLinks is reference §10.1 "bulk": links and count rows loaded in
// bulk read back and count as loaded, then expunge normally; plus one list
// of 300 links (a tenth hidden) loaded in three batches. Skipped when the
// store is not a store.BulkLinkLoader.
func testBulkLinks(h *harness) {
	bl, ok := store.AsBulkLinkLoader(h.s)
	if !ok {
		h.t.Skip("store does not implement store.BulkLinkLoader")
	}
	const k = 1024
	links := make([]store.Link, k)
	counts := make([]store.LinkCount, k)
	for x := range links {
		links[x] = vis(33123+int64(x), 323, 33124+int64(x), []byte{1, 2, byte(x)}, 7777+int32(x), 1111+int64(x))
		counts[x] = store.LinkCount{ID1: 33123 + int64(x), LinkType: 323, Time: 1111 + int64(x), Version: 7777 + int64(x), Count: 1}
	}
	if err := bl.AddBulkLinks(h.ctx, links, true); err != nil {
		h.t.Fatalf("AddBulkLinks: %v", err)
	}
	if err := bl.AddBulkCounts(h.ctx, counts); err != nil {
		h.t.Fatalf("AddBulkCounts: %v", err)
	}
	for _, l := range links {
		h.wantLink(l)
		h.wantCount(l.ID1, l.LinkType, 1)
	}

	const id1, lt = 21_000_000_001, 5
	m := model{}
	var big []store.Link
	visible := int64(0)
	for x := range 300 {
		l := vis(id1, lt, int64(x), []byte{byte(x), byte(x >> 8)}, 0, 9_000_000+int64((x*7919)%300))
		if x%10 == 3 {
			l = hidden(l)
		} else {
			visible++
		}
		big = append(big, l)
		m.put(l)
	}
	for i := 0; i < len(big); i += 100 {
		if err := bl.AddBulkLinks(h.ctx, big[i:i+100], true); err != nil {
			h.t.Fatalf("AddBulkLinks: %v", err)
		}
	}
	if err := bl.AddBulkCounts(h.ctx, []store.LinkCount{{ID1: id1, LinkType: lt, Time: 9_000_299, Count: visible}}); err != nil {
		h.t.Fatalf("AddBulkCounts: %v", err)
	}
	h.wantFull(id1, lt, m.visible()...)
	for _, l := range big[:20] {
		h.wantLink(l)
	}
	if ck, ok := store.AsChecker(h.base); ok {
		mm, checked, err := ck.CheckCounts(h.ctx, 0)
		if err != nil {
			h.t.Fatalf("CheckCounts: %v", err)
		}
		if len(mm) != 0 || checked < k+1 {
			h.t.Fatalf("CheckCounts after bulk load = %v mismatches, %d checked; want none, >= %d checked", mm, checked, k+1)
		}
	}

	for _, l := range links {
		if !h.del(l.ID1, l.LinkType, l.ID2, true) {
			h.t.Fatalf("DeleteLink(%d, %d, %d, expunge) of a bulk-loaded link reported not found", l.ID1, l.LinkType, l.ID2)
		}
		h.wantNoLink(l.ID1, l.LinkType, l.ID2)
		h.wantCount(l.ID1, l.LinkType, 0)
	}
}

// testChecker: NodeStats and CheckCounts agree with what was written.
// Skipped when the store is not a store.Checker.
func testChecker(h *harness) {
	ck, ok := store.AsChecker(h.base)
	if !ok {
		h.t.Skip("store does not implement store.Checker")
	}
	stats := func(want store.NodeStats) {
		h.t.Helper()
		got, err := ck.NodeStats(h.ctx)
		if err != nil {
			h.t.Fatalf("NodeStats: %v", err)
		}
		if got != want {
			h.t.Fatalf("NodeStats = %+v, want %+v", got, want)
		}
	}
	h.reset(100)
	stats(store.NodeStats{})
	for range 5 {
		h.addNode(store.Node{ID: -1, Type: store.DefaultNodeType, Version: 1, Time: 1})
	}
	stats(store.NodeStats{Count: 5, MinID: 100, MaxID: 104})
	h.deleteNode(store.DefaultNodeType, 100)
	h.deleteNode(store.DefaultNodeType, 104)
	stats(store.NodeStats{Count: 3, MinID: 101, MaxID: 103})

	const a, b = 22_000_000_001, 22_000_000_002
	for i := range 3 {
		h.add(vis(a, 1, int64(i), nil, 0, now))
	}
	h.add(vis(a, 2, 1, nil, 0, now))
	h.add(hidden(vis(a, 2, 2, nil, 0, now)))
	h.add(hidden(vis(b, 1, 1, nil, 0, now)))
	h.add(vis(b, 2, 1, nil, 0, now))
	h.del(b, 2, 1, false)
	h.add(vis(b, 3, 1, nil, 0, now))
	h.del(b, 3, 1, true)
	for _, limit := range []int{0, 1} {
		mm, checked, err := ck.CheckCounts(h.ctx, limit)
		if err != nil {
			h.t.Fatalf("CheckCounts(%d): %v", limit, err)
		}
		if len(mm) != 0 || checked < 4 {
			h.t.Fatalf("CheckCounts(%d) = %v mismatches, %d checked; want none, >= 4 checked", limit, mm, checked)
		}
	}
}

// testNodeProber: HasNodeIn finds a node in a range exactly when one of
// the store's nodes has an id there (lo inclusive, hi exclusive), sees
// additions and deletions, and answers false for an empty range. Skipped
// when the store is not a store.NodeProber.
func testNodeProber(h *harness) {
	p, ok := store.AsNodeProber(h.base)
	if !ok {
		h.t.Skip("store does not implement store.NodeProber")
	}
	has := func(lo, hi int64, want bool) {
		h.t.Helper()
		got, err := p.HasNodeIn(h.ctx, lo, hi)
		if err != nil {
			h.t.Fatalf("HasNodeIn(%d, %d): %v", lo, hi, err)
		}
		if got != want {
			h.t.Fatalf("HasNodeIn(%d, %d) = %v, want %v", lo, hi, got, want)
		}
	}
	h.reset(100)
	has(0, 1<<62, false)
	for range 5 {
		h.addNode(store.Node{ID: -1, Type: store.DefaultNodeType, Version: 1, Time: 1})
	}
	// Nodes 100..104.
	has(100, 105, true)
	has(0, 101, true)
	has(104, 105, true)
	has(0, 100, false)
	has(105, 1<<62, false)
	has(102, 102, false)
	has(103, 101, false)
	h.deleteNode(store.DefaultNodeType, 100)
	h.deleteNode(store.DefaultNodeType, 104)
	has(100, 101, false)
	has(104, 200, false)
	has(100, 102, true)
	h.reset(1)
	has(0, 1<<62, false)
}

// testDatabases: two databases of a store.Databases are independent, and
// asking for a name again serves the same data. Skipped when the store is
// not a store.Databases.
func testDatabases(h *harness, names [2]string) {
	dbs, ok := store.AsDatabases(h.s)
	if !ok {
		h.t.Skip("store does not implement store.Databases")
	}
	open := func(name string) *harness {
		h.t.Helper()
		s, err := dbs.Database(h.ctx, name)
		if err != nil {
			h.t.Fatalf("Database(%q): %v", name, err)
		}
		return &harness{t: h.t, ctx: h.ctx, s: s, base: s}
	}
	a, b := open(names[0]), open(names[1])
	const id1, lt = 23_000_000_001, 1
	// Databases with these names may outlive a store: start from no links.
	for _, d := range []*harness{a, b} {
		d.del(id1, lt, 1, true)
		d.del(id1, lt, 2, true)
	}
	la := vis(id1, lt, 1, []byte("in a"), 1, now)
	lb := vis(id1, lt, 1, []byte("in b"), 2, now+1)
	a.add(la)
	b.wantNoLink(id1, lt, 1)
	b.wantFull(id1, lt)
	b.add(lb)
	b.add(vis(id1, lt, 2, nil, 0, now))
	a.wantLink(la)
	a.wantFull(id1, lt, la)
	b.wantLink(lb)
	b.wantCount(id1, lt, 2)
	open(names[0]).wantLink(la)

	a.reset(1)
	b.reset(1)
	na := store.Node{ID: -1, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: []byte("node in a")}
	na.ID = a.addNode(na)
	b.wantNoNode(na.Type, na.ID)
	nb := store.Node{ID: -1, Type: store.DefaultNodeType, Version: 2, Time: 2, Data: []byte("node in b")}
	nb.ID = b.addNode(nb)
	if nb.ID != na.ID {
		h.t.Fatalf("first AddNode after ResetNodeStore(1) in two databases = %d and %d, want equal ids", na.ID, nb.ID)
	}
	a.wantNode(na)
	b.wantNode(nb)
	open(names[0]).wantNode(na)
}

// testContents: a store.Contents says a fresh store holds no graph, and
// one that holds a link does (a load refuses to mix two graphs on its
// word). Skipped when the store is not a store.Contents.
func testContents(h *harness) {
	c, ok := store.AsContents(h.base)
	if !ok {
		h.t.Skip("store does not implement store.Contents")
	}
	has := func(want bool, when string) {
		h.t.Helper()
		got, err := c.HasData(h.ctx)
		if err != nil {
			h.t.Fatalf("HasData %s: %v", when, err)
		}
		if got != want {
			h.t.Fatalf("HasData %s = %v, want %v", when, got, want)
		}
	}
	has(false, "on a fresh store")
	h.add(vis(24_000_000_001, 1, 1, nil, 0, now))
	has(true, "after AddLink")
}

// testCounters: a store.CounterSource's counters come sorted by name, and
// none decreases while the store works (a "max_" counter aside: a
// maximum). Skipped when the store is not a store.CounterSource.
func testCounters(h *harness) {
	cs, ok := store.AsCounterSource(h.base)
	if !ok {
		h.t.Skip("store does not implement store.CounterSource")
	}
	snapshot := func() map[string]int64 {
		h.t.Helper()
		m := map[string]int64{}
		cnt := cs.Counters()
		for i, c := range cnt {
			if i > 0 && cnt[i-1].Name >= c.Name {
				h.t.Fatalf("Counters not sorted by name (or repeated): %q before %q", cnt[i-1].Name, c.Name)
			}
			m[c.Name] = c.Value
		}
		return m
	}
	before := snapshot()
	const id1 = 25_000_000_001
	l := vis(id1, 1, 1, []byte("x"), 0, now)
	h.add(l)
	h.add(l)
	h.del(id1, 1, 1, false)
	h.wantCount(id1, 1, 0)
	h.reset(1)
	h.addNode(store.Node{Type: store.DefaultNodeType, Version: 1, Time: 1})
	after := snapshot()
	for name, v := range before {
		if after[name] < v && !strings.HasPrefix(name, "max_") {
			h.t.Fatalf("counter %s went from %d down to %d", name, v, after[name])
		}
	}
}
