package storetest

import (
	"math"
	"math/rand/v2"

	"github.com/linkbench-go/linkbench/store"
)

// now is the "current time" of the scenarios, in ms: fixed, so that runs
// are reproducible.
const now int64 = 1_700_000_000_000

// vis makes a visible link.
func vis(id1, linkType, id2 int64, data []byte, version int32, time int64) store.Link {
	return store.Link{ID1: id1, LinkType: linkType, ID2: id2, Visibility: store.VisibilityDefault,
		Data: data, Version: version, Time: time}
}

// hidden returns l hidden.
func hidden(l store.Link) store.Link {
	l.Visibility = store.VisibilityHidden
	return l
}

// rangeOf is a LinkRange.
func rangeOf(id1, linkType, minTime, maxTime int64, offset, limit int) store.LinkRange {
	return store.LinkRange{ID1: id1, LinkType: linkType, MinTime: minTime, MaxTime: maxTime, Offset: offset, Limit: limit}
}

// testMisses: reads of absent links and deletes of absent links.
func testMisses(h *harness) {
	const id1, lt = 1_000_000_001, 5
	h.wantNoLink(id1, lt, 1)
	h.wantFull(id1, lt)
	if got := h.multiget(id1, lt, 1, 2, 3); len(got) != 0 {
		h.t.Fatalf("MultigetLinks on an empty list = %s, want none", fmtLinks(got))
	}
	if h.del(id1, lt, 1, false) || h.del(id1, lt, 1, true) {
		h.t.Fatal("DeleteLink of an absent link reported found")
	}
	h.wantFull(id1, lt)
	// A miss in an existing list.
	l := vis(id1, lt, 7, []byte("x"), 0, now)
	h.add(l)
	h.wantNoLink(id1, lt, 8)
	h.wantNoLink(id1, lt+1, 7)
	h.wantNoLink(id1+1, lt, 7)
	if h.del(id1, lt, 8, false) || h.del(id1, lt, 8, true) {
		h.t.Fatal("DeleteLink of an absent id2 reported found")
	}
	h.wantFull(id1, lt, l)
	h.wantFull(id1, lt+1)
}

// testOneLink is reference §10.1 "one link".
func testOneLink(h *harness) {
	l := vis(1123, 321, 1124, []byte{1}, 1, 1994)
	if r := h.add(l); r != store.LinkInsert {
		h.t.Fatalf("AddLink of a new link = %v, want LINK_INSERT", r)
	}
	h.wantLink(l)
	h.wantFull(1123, 321, l)

	if !h.del(1123, 321, 1124, true) {
		h.t.Fatal("DeleteLink(expunge) of an existing link reported not found")
	}
	h.wantNoLink(1123, 321, 1124)
	h.wantFull(1123, 321)

	if r := h.add(l); r != store.LinkInsert {
		h.t.Fatalf("AddLink after expunge = %v, want LINK_INSERT", r)
	}
	h.wantFull(1123, 321, l)

	if !h.del(1123, 321, 1124, false) {
		h.t.Fatal("DeleteLink(hide) of an existing link reported not found")
	}
	h.wantLink(hidden(l))
	h.wantFull(1123, 321)

	if r := h.update(l); r != store.LinkUpdate {
		h.t.Fatalf("UpdateLink unhiding a link = %v, want LINK_UPDATE", r)
	}
	h.wantLink(l)
	h.wantFull(1123, 321, l)

	if r := h.update(l); r != store.LinkUpdate && r != store.LinkNoChange {
		h.t.Fatalf("UpdateLink with unchanged values = %v, want LINK_UPDATE or LINK_NO_CHANGE", r)
	}
	h.wantLink(l)
	h.wantFull(1123, 321, l)
}

// testManyLinks is reference §10.1 "many links", with more range queries.
func testManyLinks(h *harness) {
	const a, b, c, d = 5434, 5435, 9999, 9998
	const t = 10_000_000
	data := []byte{'f', 'a', 'c', 'e', 'b', 0, 0, 'c'}
	l0 := vis(a, 1, c, data, 1, now)
	l1 := vis(a, 2, c, data, 1, now)
	l2 := vis(b, 2, a, data, 1, t+1)
	l3 := vis(b, 2, b, data, 1, t)
	l4 := hidden(vis(b, 2, c, data, 1, t-2))
	l5 := vis(b, 2, d, data, 1, t+3)
	for _, l := range []store.Link{l0, l1, l2, l3, l4, l5} {
		h.add(l)
	}
	h.wantFull(a, 1, l0)
	h.wantFull(a, 2, l1)
	h.wantFull(b, 1)
	h.wantFull(b, 2, l5, l2, l3)
	h.wantLink(l4)

	h.wantList(rangeOf(b, 2, 0, t+100, 0, 1), l5)
	h.wantList(rangeOf(b, 2, 0, t+100, 1, 2), l2, l3)
	h.wantList(rangeOf(b, 2, t+1, t+2, 0, math.MaxInt32), l2)
	// Bounds are inclusive; the hidden link is never listed.
	h.wantList(rangeOf(b, 2, t, t, 0, 10), l3)
	h.wantList(rangeOf(b, 2, t-2, t-2, 0, 10))
	h.wantList(rangeOf(b, 2, t-5, t+3, 0, 10), l5, l2, l3)
	h.wantList(rangeOf(b, 2, t+1, math.MaxInt64, 0, 10), l5, l2)
	// Offsets at and past the end, a limit past the end, an empty window.
	h.wantList(rangeOf(b, 2, 0, math.MaxInt64, 2, 10), l3)
	h.wantList(rangeOf(b, 2, 0, math.MaxInt64, 3, 10))
	h.wantList(rangeOf(b, 2, 0, math.MaxInt64, math.MaxInt32, 10))
	h.wantList(rangeOf(b, 2, t+4, t+100, 0, 10))
	h.wantList(rangeOf(b, 2, t+3, t, 0, 10))
}

// testLargeList checks a list of a few hundred links, written in random
// order, against the model: exact list order (distinct times) and random
// range queries, before and after hiding, expunging and re-adding links,
// and after shrinking it to a few links.
func testLargeList(h *harness) {
	const id1, lt = 7_000_000_001, 77
	const n = 300
	rng := rand.New(rand.NewPCG(7, 77))
	m := model{}
	times := rng.Perm(n)
	order := rng.Perm(n)
	for _, i := range order {
		l := vis(id1, lt, int64(1000+i), randData(rng, 20), int32(i), 5_000_000+int64(times[i])*3)
		if rng.IntN(5) == 0 {
			l = hidden(l)
		}
		if r := h.add(l); r != store.LinkInsert {
			h.t.Fatalf("AddLink of a new link = %v, want LINK_INSERT", r)
		}
		m.put(l)
	}
	check := func(queries int) {
		h.t.Helper()
		h.wantFull(id1, lt, m.visible()...)
		for range queries {
			lo := 5_000_000 + int64(rng.IntN(3*n+20)) - 10
			hi := lo + int64(rng.IntN(3*n))
			if rng.IntN(4) == 0 {
				lo, hi = 0, math.MaxInt64
			}
			r := rangeOf(id1, lt, lo, hi, rng.IntN(60), 1+rng.IntN(80))
			h.wantList(r, m.query(r)...)
		}
	}
	check(30)

	for range 40 {
		id2 := int64(1000 + rng.IntN(n))
		expunge := rng.IntN(2) == 0
		if got, want := h.del(id1, lt, id2, expunge), m.remove(id2, expunge); got != want {
			h.t.Fatalf("DeleteLink(%d, expunge=%v) found = %v, want %v", id2, expunge, got, want)
		}
	}
	for j := range 30 {
		// Times 1 mod 3 stay distinct from each other and from the others.
		i := rng.IntN(n + 20)
		l := vis(id1, lt, int64(1000+i), randData(rng, 20), 9, 5_000_000+int64(j)*30+1)
		h.update(l)
		m.put(l)
	}
	check(30)
	for id2 := range m {
		h.wantLink(m[id2])
	}

	// Shrink to five links.
	kept := 0
	for id2 := range m {
		if kept < 5 {
			kept++
			continue
		}
		if !h.del(id1, lt, id2, true) {
			h.t.Fatalf("DeleteLink(%d, expunge) of an existing link reported not found", id2)
		}
		m.remove(id2, true)
	}
	check(10)
}

// randData returns 0..maxLen-1 random bytes.
func randData(rng *rand.Rand, maxLen int) []byte {
	b := make([]byte, rng.IntN(maxLen))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// testPayloadSizes is reference §10.1 "256 payload sizes".
func testPayloadSizes(h *harness) {
	const id1, lt = 3123, 321
	links := make([]store.Link, 256)
	for x := range links {
		data := make([]byte, x)
		for i := range data {
			data[i] = byte(i)
		}
		links[x] = vis(id1, lt, 3124+int64(x), data, 1, 1994)
		h.add(links[x])
	}
	for _, l := range links {
		h.wantLink(l)
	}
	h.wantCount(id1, lt, 256)
	if !h.del(id1, lt, 3124, true) {
		h.t.Fatal("DeleteLink(expunge) of an existing link reported not found")
	}
	h.wantNoLink(id1, lt, 3124)
	h.wantCount(id1, lt, 255)
	for _, l := range links[1:] {
		if !h.del(id1, lt, l.ID2, true) {
			h.t.Fatalf("DeleteLink(%d, expunge) of an existing link reported not found", l.ID2)
		}
	}
	h.wantFull(id1, lt)
	if h.del(id1, lt, 3124, true) {
		h.t.Fatal("DeleteLink(expunge) of an expunged link reported found")
	}
	h.wantCount(id1, lt, 0)
}

// testMultiget is reference §10.1 "multiget", plus repeated ids, hidden
// links, misses and appending after existing dst contents.
func testMultiget(h *harness) {
	const id1, lt = 99999999999, store.DefaultLinkType
	a := vis(id1, lt, 42, []byte{}, 1, now)
	b := vis(id1, lt, 43, []byte{7, 8}, 1, now)
	c := hidden(vis(id1, lt, 44, []byte{9}, 2, now-5))
	for _, l := range []store.Link{a, b, c} {
		h.add(l)
	}
	want := func(got []store.Link, want ...store.Link) {
		h.t.Helper()
		if msg := sameSet(got, want); msg != "" {
			h.t.Fatalf("MultigetLinks: %s\n got %s\nwant %s", msg, fmtLinks(got), fmtLinks(want))
		}
	}
	want(h.multiget(id1, lt, 42, 43, 1234), a, b)
	want(h.multiget(id1, lt, 42, 42, 43, 42, 1234, 44, 1234, 44), a, b, c)
	want(h.multiget(id1, lt, 1234))
	want(h.multiget(id1, lt))
	want(h.multiget(id1, lt+1, 42, 43))
	want(h.multiget(id1+1, lt, 42, 43))

	prefix := vis(1, 2, 3, []byte("keep me"), 4, 5)
	got, err := h.s.MultigetLinks(h.ctx, id1, lt, []int64{43}, []store.Link{prefix})
	if err != nil {
		h.t.Fatalf("MultigetLinks: %v", err)
	}
	if len(got) != 2 || !got[0].Equal(prefix) || !got[1].Equal(b) {
		h.t.Fatalf("MultigetLinks appending to a 1-link dst = %s, want [%s %s]", fmtLinks(got), fmtLink(prefix), fmtLink(b))
	}
}

// testHiding is reference §10.1 "hiding".
func testHiding(h *harness) {
	const id1, lt = 11_000_000_001, 1
	l := vis(id1, lt, 1, []byte("h"), 1, now)
	h.add(hidden(l))
	h.wantLink(hidden(l))
	h.wantFull(id1, lt)
	if !h.del(id1, lt, 1, false) {
		h.t.Fatal("DeleteLink(hide) of a hidden link reported not found")
	}
	h.wantLink(hidden(l))
	h.wantFull(id1, lt)
	h.add(l)
	h.wantFull(id1, lt, l)
	if !h.del(id1, lt, 1, true) {
		h.t.Fatal("DeleteLink(expunge) reported not found")
	}
	h.wantNoLink(id1, lt, 1)
	h.wantFull(id1, lt)
}

// testOverwrite is reference §10.1 "overwrite".
func testOverwrite(h *harness) {
	const id1, lt = 314214212421, 1
	l := vis(id1, lt, 1, []byte("111"), 0, 1)
	h.add(l)
	h.wantFull(id1, lt, l)
	l2 := vis(id1, lt, 1, []byte("222"), 1, 2)
	if r := h.add(l2); r != store.LinkUpdate {
		h.t.Fatalf("AddLink over an existing link = %v, want LINK_UPDATE", r)
	}
	h.wantLink(l2)
	h.wantFull(id1, lt, l2)
	if r := h.add(hidden(l)); r != store.LinkUpdate {
		h.t.Fatalf("AddLink hiding an existing link = %v, want LINK_UPDATE", r)
	}
	h.wantLink(hidden(l))
	h.wantFull(id1, lt)
}

// testEscaping is reference §10.1 "escaping", with more SQL-special bytes.
func testEscaping(h *harness) {
	const id1, lt = 12_000_000_001, 1
	l := vis(id1, lt, 1, []byte("' asdfasdf"), 1, now)
	h.add(l)
	h.wantLink(l)
	l.Data = []byte(`';\`)
	h.update(l)
	h.wantLink(l)
	for i, s := range []string{`"; DROP TABLE linktable; --`, "\x00\\0\\'\n\r\x1a%_", "  trailing spaces  ", `\`} {
		l := vis(id1, lt, int64(2+i), []byte(s), 1, now)
		h.add(l)
		h.wantLink(l)
	}
}

// testBinary is reference §10.1 "binary", plus the two halves of all byte
// values.
func testBinary(h *harness) {
	const id1, lt = 13_000_000_001, 1
	for i, r := range [][2]int{{0, 128}, {160, 96}, {128, 31}, {0, 255}, {128, 128}} {
		data := make([]byte, r[1])
		for j := range data {
			data[j] = byte(r[0] + j)
		}
		l := vis(id1, lt, int64(1+i), data, 1, now)
		h.add(l)
		h.wantLink(l)
		l.Data = data[:len(data)/2]
		h.update(l)
		h.wantLink(l)
	}
}

// testLimitZero: a range query with Limit 0 returns no links (fix of
// reference §11.2 item 20).
func testLimitZero(h *harness) {
	const id1, lt = 14_000_000_001, 1
	for i := range 3 {
		h.add(vis(id1, lt, int64(i), nil, 0, now+int64(i)))
	}
	h.wantList(rangeOf(id1, lt, 0, math.MaxInt64, 0, 0))
	h.wantList(rangeOf(id1, lt, 0, math.MaxInt64, 1, 0))
	h.wantCount(id1, lt, 3)
}

// testExpungeHidden: expunging a hidden link leaves the count at the number
// of visible links (fix of reference §11.2 item 6).
func testExpungeHidden(h *harness) {
	const id1, lt = 15_000_000_001, 1
	ls := make([]store.Link, 3)
	for i := range ls {
		ls[i] = vis(id1, lt, int64(i), []byte{byte(i)}, 0, now+int64(i))
		h.add(ls[i])
	}
	h.del(id1, lt, 0, false)
	h.wantFull(id1, lt, ls[2], ls[1])
	if !h.del(id1, lt, 0, true) {
		h.t.Fatal("DeleteLink(expunge) of a hidden link reported not found")
	}
	h.wantFull(id1, lt, ls[2], ls[1])
	h.del(id1, lt, 1, true)
	h.wantFull(id1, lt, ls[2])
	h.add(hidden(vis(id1, lt, 9, nil, 0, now)))
	h.wantFull(id1, lt, ls[2])
	h.del(id1, lt, 9, true)
	h.wantFull(id1, lt, ls[2])
	h.del(id1, lt, 2, false)
	h.del(id1, lt, 2, true)
	h.wantFull(id1, lt)
}

// testUpdateMissingInserts: UpdateLink of an absent link inserts it.
func testUpdateMissingInserts(h *harness) {
	const id1, lt = 16_000_000_001, 1
	l := vis(id1, lt, 1, []byte("u"), 3, now)
	if r := h.update(l); r != store.LinkInsert {
		h.t.Fatalf("UpdateLink of an absent link = %v, want LINK_INSERT", r)
	}
	h.wantLink(l)
	h.wantFull(id1, lt, l)
	l2 := hidden(vis(id1, lt, 2, []byte("v"), 3, now))
	if r := h.update(l2); r != store.LinkInsert {
		h.t.Fatalf("UpdateLink of an absent hidden link = %v, want LINK_INSERT", r)
	}
	h.wantLink(l2)
	h.wantFull(id1, lt, l)
}

// testUnchangedWrites: rewriting a link with its own values reports
// LINK_UPDATE or LINK_NO_CHANGE and changes nothing.
func testUnchangedWrites(h *harness) {
	const id1, lt = 17_000_000_001, 1
	l := vis(id1, lt, 1, []byte("same"), 2, now)
	o := vis(id1, lt, 2, []byte("other"), 2, now-1)
	h.add(l)
	h.add(o)
	for range 2 {
		if r := h.update(l); r != store.LinkUpdate && r != store.LinkNoChange {
			h.t.Fatalf("UpdateLink with unchanged values = %v, want LINK_UPDATE or LINK_NO_CHANGE", r)
		}
		h.wantLink(l)
		h.wantFull(id1, lt, l, o)
		if r := h.add(l); r != store.LinkUpdate && r != store.LinkNoChange {
			h.t.Fatalf("AddLink with unchanged values = %v, want LINK_UPDATE or LINK_NO_CHANGE", r)
		}
		h.wantLink(l)
		h.wantFull(id1, lt, l, o)
	}
	hl := hidden(o)
	h.add(hl)
	if r := h.update(hl); r != store.LinkUpdate && r != store.LinkNoChange {
		h.t.Fatalf("UpdateLink of a hidden link with unchanged values = %v, want LINK_UPDATE or LINK_NO_CHANGE", r)
	}
	h.wantLink(hl)
	h.wantFull(id1, lt, l)
}

// testAddHideUnhideDelete: adding a link twice, hiding (twice), unhiding,
// rewriting it hidden and visible, and deleting it keep count == visible
// links at every step.
func testAddHideUnhideDelete(h *harness) {
	const id1, lt = 18_000_000_001, 1
	other := vis(id1, lt, 2, []byte("o"), 0, now-10)
	h.add(other)
	l := vis(id1, lt, 1, []byte("l"), 0, now)
	h.add(l)
	h.add(l)
	h.wantFull(id1, lt, l, other)
	h.del(id1, lt, 1, false)
	h.wantFull(id1, lt, other)
	h.del(id1, lt, 1, false)
	h.wantFull(id1, lt, other)
	h.add(l)
	h.wantFull(id1, lt, l, other)
	h.update(hidden(l))
	h.wantFull(id1, lt, other)
	h.update(hidden(l))
	h.wantFull(id1, lt, other)
	l.Time++
	h.update(l)
	h.wantFull(id1, lt, l, other)
	h.add(hidden(l))
	h.wantFull(id1, lt, other)
	h.add(l)
	h.wantFull(id1, lt, l, other)
	if !h.del(id1, lt, 1, true) {
		h.t.Fatal("DeleteLink(expunge) reported not found")
	}
	h.wantFull(id1, lt, other)
	if h.del(id1, lt, 1, true) || h.del(id1, lt, 1, false) {
		h.t.Fatal("DeleteLink of an expunged link reported found")
	}
	h.wantFull(id1, lt, other)
}
