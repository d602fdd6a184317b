package audit_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/audit"
	"github.com/linkbench-go/linkbench/store/memstore"
	"github.com/linkbench-go/linkbench/store/storetest"
)

const lt = store.DefaultLinkType

// TestConformance: the wrapper is the store it wraps, sessions included.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return newLog(t).Wrap(memstore.New())
	})
	t.Run("sessions", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) store.Store {
			return newLog(t).Wrap(newSessioned(memstore.New()))
		})
	})
}

// TestCapabilities: the wrapper keeps the capabilities of the store it
// wraps, and its views and sessions are wrapped (their writes logged,
// under the database's name).
func TestCapabilities(t *testing.T) {
	ctx := context.Background()
	inner := newSessioned(memstore.New())
	l := newLog(t)
	st := l.Wrap(inner)
	if got, want := store.Capabilities(st), store.Capabilities(inner); got != want {
		t.Fatalf("capabilities %v, want %v", got, want)
	}
	dbs, ok := store.AsDatabases(st)
	if !ok {
		t.Fatal("no Databases")
	}
	v, err := dbs.Database(ctx, "linkdb 1%")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := store.OpenSession(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.AddLink(ctx, store.Link{ID1: 1, LinkType: lt, ID2: 2, Visibility: 1, Data: []byte("x"), Time: 5}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := v.UpdateNode(ctx, store.Node{ID: 7, Type: 2048}); err != nil { // absent: not logged
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if inner.opened.Load() != 1 || inner.closed.Load() != 1 {
		t.Errorf("inner sessions opened %d, closed %d, want 1 and 1", inner.opened.Load(), inner.closed.Load())
	}
	if _, err := st.DeleteNode(ctx, 2048, 9); err != nil { // absent: not logged
		t.Fatal(err)
	}
	recs, err := audit.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].DB != "linkdb 1%" || recs[0].Op != audit.AddLink || !recs[0].Acked {
		t.Fatalf("records %+v, want one ADD_LINK of database %q", recs, "linkdb 1%")
	}
	b, _ := os.ReadFile(l.Path())
	if !strings.Contains(string(b), " linkdb%201%25 ") {
		t.Errorf("the database name is not escaped in the log:\n%s", b)
	}
}

// TestRecords: every write is in the log before its call returns, with
// the values written, and reads back as written.
func TestRecords(t *testing.T) {
	ctx := context.Background()
	m := memstore.New()
	if err := m.ResetNodeStore(ctx, 10); err != nil {
		t.Fatal(err)
	}
	l := newLog(t)
	st := l.Wrap(newPlanted(m, func(op string, id1, id2 int64, data []byte) action {
		if bytes.Equal(data, []byte("fail")) {
			return fail
		}
		return pass
	}))
	n := 0
	check := func(what string, want audit.Record) {
		t.Helper()
		n++
		recs, err := audit.ReadFile(l.Path())
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != n {
			t.Fatalf("%s: %d records in the log after the call returned, want %d", what, len(recs), n)
		}
		got := recs[n-1]
		if got.Start <= 0 || got.End < got.Start {
			t.Errorf("%s: start %d, end %d", what, got.Start, got.End)
		}
		got.Start, got.End = 0, 0
		if got != want {
			t.Errorf("%s: record\n%+v, want\n%+v", what, got, want)
		}
	}
	link := store.Link{ID1: 1, LinkType: lt, ID2: 2, Visibility: store.VisibilityDefault, Data: []byte("payload"), Version: 3, Time: 1764583200123}
	if _, err := st.AddLink(ctx, link, true); err != nil {
		t.Fatal(err)
	}
	check("AddLink", audit.Record{Acked: true, Op: audit.AddLink, ID: 1, LinkType: lt, ID2: 2, Visibility: 1, Version: 3, Time: 1764583200123, Len: 7, Hash: audit.Hash([]byte("payload"))})
	link.Data, link.Visibility = nil, store.VisibilityHidden
	if _, err := st.UpdateLink(ctx, link, true); err != nil {
		t.Fatal(err)
	}
	check("UpdateLink", audit.Record{Acked: true, Op: audit.UpdateLink, ID: 1, LinkType: lt, ID2: 2, Visibility: 0, Version: 3, Time: 1764583200123, Len: 0, Hash: audit.Hash(nil)})
	if _, err := st.DeleteLink(ctx, 1, lt, 2, true, true); err != nil {
		t.Fatal(err)
	}
	check("DeleteLink", audit.Record{Acked: true, Op: audit.DeleteLink, ID: 1, LinkType: lt, ID2: 2, Expunge: true})
	if found, err := st.DeleteLink(ctx, 1, lt, 2, true, false); err != nil || found {
		t.Fatal(found, err)
	}
	link.Data = []byte("fail")
	if _, err := st.AddLink(ctx, link, true); !errors.Is(err, errPlanted) {
		t.Fatal(err)
	}
	check("a failed AddLink", audit.Record{Op: audit.AddLink, ID: 1, LinkType: lt, ID2: 2, Visibility: 0, Version: 3, Time: 1764583200123, Len: 4, Hash: audit.Hash([]byte("fail"))})
	id, err := st.AddNode(ctx, store.Node{ID: -1, Type: 2048, Version: 1, Time: 1764583200, Data: []byte("node")})
	if err != nil || id != 10 {
		t.Fatal(id, err)
	}
	check("AddNode", audit.Record{Acked: true, Op: audit.AddNode, ID: 10, NodeType: 2048, Version: 1, Time: 1764583200, Len: 4, Hash: audit.Hash([]byte("node"))})
	if _, err := st.AddNode(ctx, store.Node{ID: -1, Type: 2048, Version: 1, Data: []byte("fail")}); !errors.Is(err, errPlanted) {
		t.Fatal(err)
	}
	check("a failed AddNode", audit.Record{Op: audit.AddNode, ID: -1, NodeType: 2048, Version: 1, Len: 4, Hash: audit.Hash([]byte("fail"))})
	if _, err := st.UpdateNode(ctx, store.Node{ID: 10, Type: 2048, Version: 2, Time: 7, Data: []byte("v2")}); err != nil {
		t.Fatal(err)
	}
	check("UpdateNode", audit.Record{Acked: true, Op: audit.UpdateNode, ID: 10, NodeType: 2048, Version: 2, Time: 7, Len: 2, Hash: audit.Hash([]byte("v2"))})
	if _, err := st.DeleteNode(ctx, 2048, 10); err != nil {
		t.Fatal(err)
	}
	check("DeleteNode", audit.Record{Acked: true, Op: audit.DeleteNode, ID: 10, NodeType: 2048})
	if err := st.ResetNodeStore(ctx, 1); err != nil {
		t.Fatal(err)
	}
	check("ResetNodeStore", audit.Record{Acked: true, Op: audit.ResetNodes, ID: 1})
	// Reads are not logged.
	if _, _, err := st.GetLink(ctx, 1, lt, 2); err != nil {
		t.Fatal(err)
	}
	if recs, _ := audit.ReadFile(l.Path()); len(recs) != n {
		t.Errorf("a read was logged: %d records", len(recs))
	}
	// After Close, writes fail and nothing is appended.
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	link.Data = []byte("ok")
	if _, err := st.AddLink(ctx, link, true); !errors.Is(err, audit.ErrClosed) {
		t.Errorf("AddLink after Close: %v, want ErrClosed", err)
	}
	// Append adds a segment; the records of both read back.
	l2, err := audit.Append(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l2.Wrap(m).DeleteLink(ctx, 1, lt, 999, true, false); err != nil {
		t.Fatal(err)
	}
	l2.Close()
	recs, err := audit.ReadFile(l.Path())
	if err != nil || len(recs) != n {
		t.Fatalf("after Append: %d records, %v; want %d (the DeleteLink found nothing)", len(recs), err, n)
	}
	b, _ := os.ReadFile(l.Path())
	if c := strings.Count(string(b), "# linkbench-audit v1 start="); c != 2 {
		t.Errorf("%d headers after Append, want 2", c)
	}
}

// TestReadErrors: a malformed log is an error naming the file and line.
func TestReadErrors(t *testing.T) {
	const h = "# linkbench-audit v1 start=2026-12-01T10:00:00Z pid=1\n"
	for _, c := range []struct{ log, want string }{
		{"", "x.audit: no header line"},
		{"A ADD_NODE - 1 2 - 5 2048 1 1 0 0000000000000000\n", "x.audit:1: a record before the first header line"},
		{"# linkbench-audit v2 start=2026-12-01T10:00:00Z\n", "x.audit:1: log format version \"2\""},
		{"# linkbench-audit v1 pid=1\n", "x.audit:1: header without start="},
		{h + "A ADD_NODE - 1 2 - 5 2048 1 1 0\n", "x.audit:2: record \"A ADD_NODE - 1 2 - 5 2048 1 1 0\": 11 fields, want 12"},
		{h + "X ADD_NODE - 1 2 - 5 2048 1 1 0 0\n", "x.audit:2: record \"X ADD_NODE - 1 2 - 5 2048 1 1 0 0\": kind \"X\""},
		{h + "A GET_NODE - 1 2 - 5 2048\n", "unknown operation \"GET_NODE\""},
		{h + "A DELETE_LINK - 1 2 - 5 6 7 2\n", "expunge \"2\""},
		{h + "A DELETE_NODE - 1 x - 5 6\n", "field \"x\": want an integer"},
		{h + "A DELETE_NODE - 3 2 - 5 6\n", "ends before it starts"},
		{h + "A ADD_NODE - 1 2 - 5 2048 1 1 0 zz\n", "hash: want 16 hex digits"},
	} {
		_, err := audit.Read(strings.NewReader(c.log), "x.audit")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.log, err, c.want)
		}
	}
	recs, err := audit.Read(strings.NewReader(h+"# a comment\n\nU ADD_NODE - 1 2 t3 - 2048 1 1 0 0000000000000000\n"), "x")
	if err != nil || len(recs) != 1 || recs[0].ID != -1 || recs[0].Worker != "t3" || recs[0].Acked {
		t.Errorf("records %+v, %v", recs, err)
	}
}

// scripted runs the writes of a script through the audit wrapper around a
// planted store on a loaded memstore and returns the verification.
func scriptedResult(t *testing.T, script func(ctx context.Context, st store.Store)) *audit.Result {
	t.Helper()
	ctx := context.Background()
	m := memstore.New()
	var nodes []store.Node
	for id := int64(1); id <= 10; id++ {
		nodes = append(nodes, store.Node{ID: id, Type: 2048, Version: 1, Time: 1, Data: []byte("loaded")})
	}
	if err := m.AddBulkNodes(ctx, nodes); err != nil {
		t.Fatal(err)
	}
	var links []store.Link
	for id2 := int64(1); id2 <= 10; id2++ {
		links = append(links, store.Link{ID1: 1, LinkType: lt, ID2: id2, Visibility: 1, Data: []byte("loaded"), Time: 1})
	}
	if err := m.AddBulkLinks(ctx, links, true); err != nil {
		t.Fatal(err)
	}
	l := newLog(t)
	// Payloads starting with D are dropped, L applied with a lost
	// acknowledgement, F failed; deletes of id 1000+k likewise by k%4.
	st := l.Wrap(newPlanted(m, func(op string, id1, id2 int64, data []byte) action {
		if len(data) > 0 {
			switch data[0] {
			case 'D':
				return drop
			case 'L':
				return ackLost
			case 'F':
				return fail
			}
			return pass
		}
		id := max(id1, id2)
		if id >= 1000 {
			return action((id - 1000) % 4)
		}
		return pass
	}))
	script(ctx, st)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := audit.VerifyFiles(ctx, m, audit.Options{}, l.Path())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := audit.WriteTable(&out, res); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out.String())
	return res
}

func must[T any](t *testing.T) func(T, error) {
	return func(_ T, err error) {
		t.Helper()
		if err != nil && !errors.Is(err, errPlanted) {
			t.Fatal(err)
		}
	}
}

// TestVerdicts: the planted faults of a sequential script are counted
// exactly: a dropped write with no later write is lost, one a later
// write overwrote is superseded, a value from an unacknowledged attempt
// explains the row.
func TestVerdicts(t *testing.T) {
	res := scriptedResult(t, func(ctx context.Context, st store.Store) {
		wl := must[store.WriteResult](t)
		wb := must[bool](t)
		wi := must[int64](t)
		link := func(id2 int64, data string) store.Link {
			return store.Link{ID1: 1, LinkType: lt, ID2: id2, Visibility: 1, Data: []byte(data), Time: 100 + id2}
		}
		wl(st.AddLink(ctx, link(1, "a"), true))          // present
		wl(st.AddLink(ctx, link(2, "Da"), true))         // lost (the loaded row shows)
		wl(st.AddLink(ctx, link(3, "Da"), true))         // superseded by:
		wl(st.UpdateLink(ctx, link(3, "u"), true))       // present
		wl(st.UpdateLink(ctx, link(4, "u1"), true))      // present (the next is dropped)
		wl(st.UpdateLink(ctx, link(4, "Du2"), true))     // lost
		wl(st.AddLink(ctx, link(5, "a5"), true))         // superseded by the hide (hidden, its values)
		wb(st.DeleteLink(ctx, 1, lt, 5, true, false))    // present
		wl(st.AddLink(ctx, link(6, "a6"), true))         // present
		wb(st.DeleteLink(ctx, 1, lt, 1001, true, false)) // dropped hide of a missing link: lost (acknowledged found)
		wb(st.DeleteLink(ctx, 1, lt, 7, true, true))     // expunge: present
		wl(st.AddLink(ctx, link(1005, "a"), true))       // present (the hide is dropped)
		wb(st.DeleteLink(ctx, 1, lt, 1005, true, false)) // dropped hide (1005%4 = 1): lost
		wl(st.AddLink(ctx, link(20, "x"), true))         // superseded by the attempt:
		wl(st.AddLink(ctx, link(20, "Lx2"), true))       // unacknowledged, applied
		wl(st.AddLink(ctx, link(21, "y"), true))         // present
		wl(st.UpdateLink(ctx, link(21, "Fy2"), true))    // unacknowledged, not applied
		wb(st.DeleteLink(ctx, 1, lt, 8, true, false))    // present
		wb(st.DeleteLink(ctx, 1, lt, 8, true, false))    // hide of a hidden link (found): present
		wb(st.DeleteLink(ctx, 1, lt, 99, true, false))   // absent: not logged
		wl(st.AddLink(ctx, link(1009, "a"), true))       // present (the expunge is dropped)
		wb(st.DeleteLink(ctx, 1, lt, 1009, true, true))  // 1009%4 = 1: dropped expunge: lost

		node := func(id int64, data string) store.Node {
			return store.Node{ID: id, Type: 2048, Version: 2, Time: int32(id), Data: []byte(data)}
		}
		wb(st.UpdateNode(ctx, node(1, "n")))    // present
		wb(st.UpdateNode(ctx, node(2, "Dn")))   // lost
		wb(st.UpdateNode(ctx, node(3, "Dn")))   // superseded by:
		wb(st.UpdateNode(ctx, node(3, "n3")))   // present
		wb(st.DeleteNode(ctx, 2048, 4))         // present
		wb(st.UpdateNode(ctx, node(6, "n6")))   // superseded by:
		wb(st.DeleteNode(ctx, 2048, 6))         // present
		wb(st.UpdateNode(ctx, node(7, "Ln")))   // unacknowledged
		wb(st.UpdateNode(ctx, node(99, "n")))   // absent: not logged
		wi(st.AddNode(ctx, node(0, "new")))     // present
		wi(st.AddNode(ctx, node(0, "Dnew")))    // reverted: lost
		wi(st.AddNode(ctx, node(0, "Fnew")))    // unacknowledged, no id
		wb(st.UpdateNode(ctx, node(1001, "x"))) // absent: not logged
		wb(st.DeleteNode(ctx, 2048, 1000))      // not found (1000%4 = 0: passed): not logged
		wb(st.UpdateNode(ctx, node(8, "n8")))   // present
		wb(st.DeleteNode(ctx, 2048, 1001))      // dropped delete of an absent node: present (absent)
	})
	want := map[audit.Op]audit.Counts{
		audit.AddLink:    {Acknowledged: 9, Present: 5, Superseded: 3, Lost: 1, Unacknowledged: 1},
		audit.UpdateLink: {Acknowledged: 3, Present: 2, Superseded: 0, Lost: 1, Unacknowledged: 1},
		audit.DeleteLink: {Acknowledged: 7, Present: 4, Superseded: 0, Lost: 3},
		audit.UpdateNode: {Acknowledged: 6, Present: 3, Superseded: 2, Lost: 1, Unacknowledged: 1},
		audit.DeleteNode: {Acknowledged: 3, Present: 3},
		audit.AddNode:    {Acknowledged: 2, Present: 1, Lost: 1, Unacknowledged: 1},
	}
	for op, w := range want {
		if got := res.Ops[op]; got != w {
			t.Errorf("%s: %+v, want %+v", op, got, w)
		}
	}
	if res.Total().Lost != 7 || len(res.Lost) != 7 || res.Reissued != 0 {
		t.Errorf("total lost %d, listed %d, reissued %d; want 7, 7, 0", res.Total().Lost, len(res.Lost), res.Reissued)
	}
}

// TestOrderRule: a write that returned before another started took
// effect before it; writes that overlapped may have taken effect in
// either order. Records are written by hand against a store whose row is
// set directly.
func TestOrderRule(t *testing.T) {
	ctx := context.Background()
	val := func(data string) audit.Record {
		return audit.Record{Acked: true, Op: audit.UpdateLink, ID: 1, LinkType: lt, ID2: 2, Visibility: 1, Time: 5,
			Len: len(data), Hash: audit.Hash([]byte(data))}
	}
	at := func(r audit.Record, start, end int64, acked bool) audit.Record {
		r.Start, r.End, r.Acked = start, end, acked
		return r
	}
	for _, c := range []struct {
		name       string
		recs       []audit.Record
		row        string // the store's payload; "" for no row
		want       [3]int64
		wantUnackd int64
	}{
		{"sequential, last shows", []audit.Record{at(val("a"), 0, 10, true), at(val("b"), 20, 30, true)}, "b", [3]int64{1, 1, 0}, 0},
		{"sequential, first shows: the second is lost", []audit.Record{at(val("a"), 0, 10, true), at(val("b"), 20, 30, true)}, "a", [3]int64{1, 0, 1}, 0},
		{"overlapping, first shows", []audit.Record{at(val("a"), 0, 10, true), at(val("b"), 5, 30, true)}, "a", [3]int64{1, 1, 0}, 0},
		{"overlapping, second shows", []audit.Record{at(val("a"), 0, 10, true), at(val("b"), 5, 30, true)}, "b", [3]int64{1, 1, 0}, 0},
		{"nested", []audit.Record{at(val("a"), 0, 100, true), at(val("b"), 5, 6, true)}, "b", [3]int64{1, 1, 0}, 0},
		{"touching ends: b returned when a started", []audit.Record{at(val("a"), 10, 20, true), at(val("b"), 0, 10, true)}, "b", [3]int64{1, 0, 1}, 0},
		{"a later attempt explains", []audit.Record{at(val("a"), 0, 10, true), at(val("b"), 20, 30, false)}, "b", [3]int64{0, 1, 0}, 1},
		{"an earlier attempt does not", []audit.Record{at(val("a"), 20, 30, true), at(val("b"), 0, 10, false)}, "b", [3]int64{0, 0, 1}, 1},
		{"neither shows", []audit.Record{at(val("a"), 0, 10, true), at(val("b"), 20, 30, true)}, "c", [3]int64{0, 0, 2}, 0},
		{"no row", []audit.Record{at(val("a"), 0, 10, true)}, "", [3]int64{0, 0, 1}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := memstore.New()
			if c.row != "" {
				if _, err := m.AddLink(ctx, store.Link{ID1: 1, LinkType: lt, ID2: 2, Visibility: 1, Time: 5, Data: []byte(c.row)}, true); err != nil {
					t.Fatal(err)
				}
			}
			res, err := audit.Verify(ctx, m, c.recs, audit.Options{Readers: 1})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Ops[audit.UpdateLink]
			if [3]int64{got.Present, got.Superseded, got.Lost} != c.want || got.Unacknowledged != c.wantUnackd {
				t.Errorf("present, superseded, lost = %d, %d, %d (unacknowledged %d), want %v (%d)",
					got.Present, got.Superseded, got.Lost, got.Unacknowledged, c.want, c.wantUnackd)
			}
		})
	}
}

// TestReissue: an id ADD_NODE returned twice, the store's sequence gone
// back under the first node, makes the first ADD_NODE lost even though a
// node with that id is there; with a logged reset between, it is not a
// reissue and the reset supersedes the first node.
func TestReissue(t *testing.T) {
	ctx := context.Background()
	for _, logged := range []bool{false, true} {
		m := memstore.New()
		if err := m.ResetNodeStore(ctx, 100); err != nil {
			t.Fatal(err)
		}
		l := newLog(t)
		st := l.Wrap(m)
		n := store.Node{Type: 2048, Version: 1, Time: 1, Data: []byte("first")}
		if id, err := st.AddNode(ctx, n); err != nil || id != 100 {
			t.Fatal(id, err)
		}
		if _, err := st.UpdateNode(ctx, store.Node{ID: 100, Type: 2048, Version: 2, Time: 2, Data: []byte("first, updated")}); err != nil {
			t.Fatal(err)
		}
		reset := m.ResetNodeStore // a crash: the node and the sequence's advance lost
		if logged {
			reset = st.ResetNodeStore
		}
		if err := reset(ctx, 100); err != nil {
			t.Fatal(err)
		}
		n.Data = []byte("second")
		if id, err := st.AddNode(ctx, n); err != nil || id != 100 {
			t.Fatal(id, err)
		}
		l.Close()
		res, err := audit.VerifyFiles(ctx, m, audit.Options{}, l.Path())
		if err != nil {
			t.Fatal(err)
		}
		add, upd := res.Ops[audit.AddNode], res.Ops[audit.UpdateNode]
		if logged {
			if res.Reissued != 0 || res.Resets != 1 || add != (audit.Counts{Acknowledged: 2, Present: 1, Superseded: 1}) || upd != (audit.Counts{Acknowledged: 1, Superseded: 1}) {
				t.Errorf("with a logged reset: reissued %d, resets %d, ADD_NODE %+v, UPDATE_NODE %+v", res.Reissued, res.Resets, add, upd)
			}
			continue
		}
		if res.Reissued != 1 || add != (audit.Counts{Acknowledged: 2, Present: 1, Lost: 1}) || upd != (audit.Counts{Acknowledged: 1, Lost: 1}) {
			t.Errorf("reissued %d, ADD_NODE %+v, UPDATE_NODE %+v; want 1, the first ADD_NODE and the UPDATE_NODE lost", res.Reissued, add, upd)
		}
		var out bytes.Buffer
		if err := audit.WriteTable(&out, res); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "audit: 1 node ids returned by two acknowledged ADD_NODEs") ||
			!strings.Contains(out.String(), "audit: 2 of 3 acknowledged writes LOST") {
			t.Errorf("table:\n%s", out.String())
		}
	}
}

// TestConcurrent: 8 workers (4 on sessions, 4 on the shared store) write
// shared keys concurrently, some with lost acknowledgements (applied, an
// error returned), and keys of their own, where chosen writes are
// dropped. Exactly the dropped writes that no later write overwrote are
// lost; none of the shared keys' writes is.
func TestConcurrent(t *testing.T) {
	ctx := context.Background()
	const workers, privLinks, privNodes, sharedKeys = 8, 40, 20, 4
	m := memstore.New()
	var nodes []store.Node
	for id := int64(1); id <= 1000+workers*privNodes; id++ {
		nodes = append(nodes, store.Node{ID: id, Type: 2048, Version: 1, Time: 1, Data: []byte("loaded")})
	}
	if err := m.AddBulkNodes(ctx, nodes); err != nil {
		t.Fatal(err)
	}
	var dropKeys sync.Map // "DeleteLink/id1/id2", "DeleteNode/id" of deletes to drop
	decide := func(op string, id1, id2 int64, data []byte) action {
		if len(data) > 0 {
			switch data[0] {
			case 'D':
				return drop
			case 'L':
				return ackLost
			}
			return pass
		}
		if _, ok := dropKeys.Load(fmt.Sprintf("%s/%d/%d", op, id1, id2)); ok {
			return drop
		}
		return pass
	}
	inner := newSessioned(m)
	l := newLog(t)
	st := l.Wrap(newPlanted(inner, decide))
	var expect [audit.NumOps]atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(1, uint64(w)))
			var s store.Store = st
			if w < workers/2 {
				sess, err := store.OpenSession(ctx, st)
				if err != nil {
					t.Error(err)
					return
				}
				defer sess.Close()
				s = sess
			}
			seq := 0
			payload := func(marker byte) []byte {
				seq++
				return fmt.Appendf([]byte{marker}, "w%d-%d", w, seq)
			}
			check := func(err error) {
				if err != nil && !errors.Is(err, errPlanted) {
					t.Error(err)
				}
			}
			shared := func() {
				marker := byte('p')
				if rng.IntN(10) == 0 {
					marker = 'L'
				}
				k := 1 + rng.Int64N(sharedKeys)
				switch rng.IntN(4) {
				case 0:
					_, err := s.AddLink(ctx, store.Link{ID1: 1, LinkType: lt, ID2: k, Visibility: 1, Time: int64(seq), Data: payload(marker)}, true)
					check(err)
				case 1:
					_, err := s.UpdateLink(ctx, store.Link{ID1: 1, LinkType: lt, ID2: k, Visibility: 1, Time: int64(seq), Data: payload(marker)}, true)
					check(err)
				case 2:
					_, err := s.DeleteLink(ctx, 1, lt, k, true, false)
					check(err)
				case 3:
					_, err := s.UpdateNode(ctx, store.Node{ID: k, Type: 2048, Version: 2, Time: int32(seq), Data: payload(marker)})
					check(err)
				}
			}
			// Writes to a private key: n writes; either the last is dropped
			// (then it is lost), or the last is an applied add or update
			// and earlier ones may be dropped (then they are superseded).
			type step struct {
				op   audit.Op
				drop bool
			}
			plan := func(node bool) []step {
				n := 1 + rng.IntN(4)
				var steps []step
				exists, visible := node, node
				for i := range n {
					var op audit.Op
					switch r := rng.IntN(4); {
					case node && i == n-1 && r == 0:
						op = audit.DeleteNode
					case node:
						op = audit.UpdateNode
					case i == n-1 && exists && r == 0:
						op = audit.DeleteLink // expunge
					case visible && r == 1 && i > 0:
						op = audit.DeleteLink // hide
					case r == 2:
						op = audit.UpdateLink
					default:
						op = audit.AddLink
					}
					if !node && op != audit.DeleteLink {
						exists, visible = true, true
					} else if !node {
						visible = false
					}
					steps = append(steps, step{op: op})
				}
				last := &steps[n-1]
				if rng.IntN(3) == 0 {
					last.drop = true
					expect[last.op].Add(1)
				} else if last.op == audit.AddLink || last.op == audit.UpdateLink || last.op == audit.UpdateNode {
					for i := range n - 1 {
						steps[i].drop = rng.IntN(3) == 0
					}
				}
				return steps
			}
			marker := func(d bool) byte {
				if d {
					return 'D'
				}
				return 'p'
			}
			for k := int64(1); k <= privLinks; k++ {
				id1 := int64(1000 + w)
				steps := plan(false)
				for i, sp := range steps {
					shared()
					l := store.Link{ID1: id1, LinkType: lt, ID2: k, Visibility: 1, Time: int64(seq), Data: payload(marker(sp.drop))}
					switch {
					case sp.op == audit.AddLink:
						_, err := s.AddLink(ctx, l, true)
						check(err)
					case sp.op == audit.UpdateLink:
						_, err := s.UpdateLink(ctx, l, true)
						check(err)
					default:
						key := fmt.Sprintf("DeleteLink/%d/%d", id1, k)
						if sp.drop {
							dropKeys.Store(key, true)
						}
						_, err := s.DeleteLink(ctx, id1, lt, k, true, i == len(steps)-1)
						check(err)
						dropKeys.Delete(key)
					}
				}
			}
			for k := int64(1); k <= privNodes; k++ {
				id := 1000 + int64(w)*privNodes + k
				for _, sp := range plan(true) {
					shared()
					if sp.op == audit.UpdateNode {
						_, err := s.UpdateNode(ctx, store.Node{ID: id, Type: 2048, Version: 2, Time: int32(seq), Data: payload(marker(sp.drop))})
						check(err)
						continue
					}
					key := fmt.Sprintf("DeleteNode/%d/0", id)
					if sp.drop {
						dropKeys.Store(key, true)
					}
					_, err := s.DeleteNode(ctx, 2048, id)
					check(err)
					dropKeys.Delete(key)
				}
				d := rng.IntN(4) == 0
				if d {
					expect[audit.AddNode].Add(1)
				}
				_, err := s.AddNode(ctx, store.Node{Type: 2048, Version: 1, Time: int32(seq), Data: payload(marker(d))})
				check(err)
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if inner.opened.Load() != workers/2 || inner.closed.Load() != workers/2 {
		t.Errorf("sessions opened %d, closed %d, want %d", inner.opened.Load(), inner.closed.Load(), workers/2)
	}
	res, err := audit.VerifyFiles(ctx, inner, audit.Options{Readers: 4, MaxLost: -1}, l.Path())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_ = audit.WriteTable(&out, res)
	t.Logf("\n%s", out.String())
	for op := range audit.NumOps {
		c := res.Ops[op]
		if c.Lost != expect[op].Load() {
			t.Errorf("%s: %d lost, want %d (the dropped writes no later write overwrote)", audit.Op(op), c.Lost, expect[op].Load())
		}
		if c.Present+c.Superseded+c.Lost != c.Acknowledged || c.Acknowledged == 0 {
			t.Errorf("%s: %+v do not add up, or nothing acknowledged", audit.Op(op), c)
		}
	}
	if res.Total().Unacknowledged == 0 || res.Total().Superseded == 0 || len(res.Lost) != 0 {
		t.Errorf("no unacknowledged attempt or superseded write, or lost writes listed with MaxLost -1: %+v, %d listed", res.Total(), len(res.Lost))
	}
}

// TestLinkbenchRun: a load and a request phase of the benchmark through
// the wrapper, two databases, sessions: every acknowledged write is
// judged, none is lost, and the records name their worker and database.
func TestLinkbenchRun(t *testing.T) {
	ctx := context.Background()
	cfg := linkbench.DefaultConfig()
	cfg.MaxID1 = 1001
	cfg.NLinksFunc = "const"
	cfg.NLinksDefault = 5
	cfg.DBCount = 2
	cfg.Loaders = 2
	cfg.Requesters = 4
	cfg.Requests = 3000
	cfg.MaxTime = linkbench.NoTimeLimit
	cfg.WarmupTime = 0
	cfg.LoadRandomSeed = linkbench.FixedSeed(1)
	cfg.RequestRandomSeed = linkbench.FixedSeed(2)
	inner := newSessioned(memstore.New())
	l := newLog(t)
	st := l.Wrap(inner)
	if _, err := linkbench.Load(ctx, cfg, st); err != nil {
		t.Fatal(err)
	}
	rep, err := linkbench.Request(ctx, cfg, st)
	if err != nil || rep.Request.Errors != 0 {
		t.Fatalf("request: %v, %+v", err, rep.Request)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if inner.opened.Load() == 0 || inner.opened.Load() != inner.closed.Load() {
		t.Errorf("sessions opened %d, closed %d", inner.opened.Load(), inner.closed.Load())
	}
	recs, err := audit.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	workers, dbs := map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		workers[r.Worker], dbs[r.DB] = true, true
	}
	for _, w := range []string{"t0", "t1", "t2", "t3"} {
		if !workers[w] {
			t.Errorf("no record of requester %s (workers %v)", w, workers)
		}
	}
	if len(dbs) != 2 || !dbs["linkdb0"] || !dbs["linkdb1"] {
		t.Errorf("databases %v, want linkdb0 and linkdb1", dbs)
	}
	res, err := audit.Verify(ctx, inner, recs, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_ = audit.WriteTable(&out, res)
	t.Logf("\n%s", out.String())
	for op := range audit.NumOps {
		if c := res.Ops[op]; c.Acknowledged == 0 || c.Lost != 0 || c.Present+c.Superseded != c.Acknowledged {
			t.Errorf("%s: %+v", audit.Op(op), c)
		}
	}
	if res.Keys == 0 || res.Records != int64(len(recs)) {
		t.Errorf("%d keys, %d records", res.Keys, res.Records)
	}
}
