package storetest

import (
	"fmt"

	"github.com/linkbench-go/linkbench/store"
)

func (h *harness) reset(start int64) {
	h.t.Helper()
	if err := h.s.ResetNodeStore(h.ctx, start); err != nil {
		h.t.Fatalf("ResetNodeStore(%d): %v", start, err)
	}
}

func (h *harness) addNode(n store.Node) int64 {
	h.t.Helper()
	id, err := h.s.AddNode(h.ctx, n)
	if err != nil {
		h.t.Fatalf("AddNode(%s): %v", fmtNode(n), err)
	}
	return id
}

func (h *harness) getNode(nodeType int32, id int64) (store.Node, bool) {
	h.t.Helper()
	n, found, err := h.s.GetNode(h.ctx, nodeType, id)
	if err != nil {
		h.t.Fatalf("GetNode(%d, %d): %v", nodeType, id, err)
	}
	return n, found
}

func (h *harness) updateNode(n store.Node) bool {
	h.t.Helper()
	found, err := h.s.UpdateNode(h.ctx, n)
	if err != nil {
		h.t.Fatalf("UpdateNode(%s): %v", fmtNode(n), err)
	}
	return found
}

func (h *harness) deleteNode(nodeType int32, id int64) bool {
	h.t.Helper()
	found, err := h.s.DeleteNode(h.ctx, nodeType, id)
	if err != nil {
		h.t.Fatalf("DeleteNode(%d, %d): %v", nodeType, id, err)
	}
	return found
}

// wantNode checks that the stored node equals want.
func (h *harness) wantNode(want store.Node) {
	h.t.Helper()
	got, found := h.getNode(want.Type, want.ID)
	if !found {
		h.t.Fatalf("GetNode(%d, %d): not found, want %s", want.Type, want.ID, fmtNode(want))
	}
	if !got.Equal(want) {
		h.t.Fatalf("GetNode(%d, %d) = %s, want %s", want.Type, want.ID, fmtNode(got), fmtNode(want))
	}
}

// wantNoNode checks that GetNode misses.
func (h *harness) wantNoNode(nodeType int32, id int64) {
	h.t.Helper()
	if got, found := h.getNode(nodeType, id); found {
		h.t.Fatalf("GetNode(%d, %d) = %s, want not found", nodeType, id, fmtNode(got))
	}
}

// withID returns n with its ID set.
func withID(n store.Node, id int64) store.Node {
	n.ID = id
	return n
}

// testNodeIDs is reference §10.1 node "id allocation".
func testNodeIDs(h *harness) {
	h.reset(4)
	n := store.Node{ID: -1, Type: store.DefaultNodeType, Version: 1, Time: 1_700_000_000, Data: []byte{'b', 'e', 'a', 5, 7}}
	orig := n.Clone()
	if id := h.addNode(n); id != 4 {
		h.t.Fatalf("first AddNode after ResetNodeStore(4) = %d, want 4", id)
	}
	if !n.Equal(orig) {
		h.t.Fatalf("AddNode modified its argument: %s, want %s", fmtNode(n), fmtNode(orig))
	}
	if id := h.addNode(n); id != 5 {
		h.t.Fatalf("second AddNode = %d, want 5", id)
	}
	h.wantNode(withID(n, 4))
	h.wantNode(withID(n, 5))
	if !h.deleteNode(store.DefaultNodeType, 5) {
		h.t.Fatal("DeleteNode(5) of an existing node reported not found")
	}
	h.wantNoNode(store.DefaultNodeType, 5)
	if h.deleteNode(store.DefaultNodeType, 5) {
		h.t.Fatal("DeleteNode(5) of a deleted node reported found")
	}
	if h.deleteNode(store.DefaultNodeType, 8) {
		h.t.Fatal("DeleteNode(8) of an absent node reported found")
	}
	if h.deleteNode(store.DefaultNodeType+1, 4) {
		h.t.Fatal("DeleteNode with the wrong type reported found")
	}
	h.wantNode(withID(n, 4))
	h.wantNoNode(store.DefaultNodeType+1, 4)

	h.reset(3)
	h.wantNoNode(store.DefaultNodeType, 3)
	h.wantNoNode(store.DefaultNodeType, 4)
	if id := h.addNode(n); id != 3 {
		h.t.Fatalf("first AddNode after ResetNodeStore(3) = %d, want 3", id)
	}
	if id := h.addNode(n); id != 4 {
		h.t.Fatalf("second AddNode after ResetNodeStore(3) = %d, want 4", id)
	}
	h.wantNode(withID(n, 3))
	h.wantNode(withID(n, 4))
	h.wantNoNode(store.DefaultNodeType, 5)
}

// testNodeUpdate is reference §10.1 node "update", plus updates that miss.
func testNodeUpdate(h *harness) {
	h.reset(1)
	n := store.Node{ID: -1, Type: 1234, Version: 3, Time: 3, Data: []byte("the quick brown fox")}
	n.ID = h.addNode(n)
	h.wantNode(n)
	n.Data = []byte("jumped over the lazy dog")
	n.Version, n.Time = 4, 5
	if !h.updateNode(n) {
		h.t.Fatal("UpdateNode of an existing node reported not found")
	}
	h.wantNode(n)
	wrongType := n
	wrongType.Type = 1235
	wrongType.Data = []byte("wrong type")
	if h.updateNode(wrongType) {
		h.t.Fatal("UpdateNode with the wrong type reported found")
	}
	absent := n
	absent.ID = n.ID + 1000
	if h.updateNode(absent) {
		h.t.Fatal("UpdateNode of an absent node reported found")
	}
	h.wantNode(n)
	h.wantNoNode(1235, n.ID)
	h.wantNoNode(1234, absent.ID)
	n.Data = nil
	if !h.updateNode(n) {
		h.t.Fatal("UpdateNode to an empty payload reported not found")
	}
	h.wantNode(n)
}

// testNodeBulk is reference §10.1 node "bulk", with explicit ids (not
// contiguous) followed by AddNode, which must return a fresh id. Skipped
// when the store is not a store.BulkNodeLoader.
func testNodeBulk(h *harness) {
	bl, ok := store.AsBulkNodeLoader(h.s)
	if !ok {
		h.t.Skip("store does not implement store.BulkNodeLoader")
	}
	h.reset(1)
	const k = 256
	nodes := make([]store.Node, k)
	for x := range nodes {
		nodes[x] = store.Node{ID: 10 + 3*int64(x), Type: 1234 + int32(x), Version: 3 + int64(x), Time: 3 + int32(x),
			Data: fmt.Appendf(nil, "the quick brown fox:%d", x)}
	}
	for i := 0; i < k; i += 100 {
		if err := bl.AddBulkNodes(h.ctx, nodes[i:min(i+100, k)]); err != nil {
			h.t.Fatalf("AddBulkNodes: %v", err)
		}
	}
	for _, n := range nodes {
		h.wantNode(n)
	}
	top := nodes[k-1].ID
	n := store.Node{ID: -1, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: []byte("after bulk")}
	id := h.addNode(n)
	if id <= top {
		h.t.Fatalf("AddNode after bulk-loading ids up to %d = %d, want a fresh id > %d", top, id, top)
	}
	h.wantNode(withID(n, id))
	for _, n := range nodes {
		h.wantNode(n)
	}
	// Loading a lower id must not move the sequence back.
	low := store.Node{ID: 2, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: []byte("low")}
	if err := bl.AddBulkNodes(h.ctx, []store.Node{low}); err != nil {
		h.t.Fatalf("AddBulkNodes: %v", err)
	}
	h.wantNode(low)
	if id2 := h.addNode(n); id2 <= id {
		h.t.Fatalf("AddNode after bulk-loading a low id = %d, want > %d", id2, id)
	}
}

// testNodeBinary is reference §10.1 node "binary".
func testNodeBinary(h *harness) {
	h.reset(1)
	data := make([]byte, 4096)
	for i := range data {
		data[i] = byte(i)
	}
	n := store.Node{ID: -1, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: data}
	n.ID = h.addNode(n)
	h.wantNode(n)
	n.Data = make([]byte, 8192)
	for i := range n.Data {
		n.Data[i] = byte(i + 52)
	}
	if !h.updateNode(n) {
		h.t.Fatal("UpdateNode reported not found")
	}
	h.wantNode(n)
}
