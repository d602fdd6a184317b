package linkbench

import (
	"context"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
)

// numRequestOps is the number of request operations.
const numRequestOps = 10

// requestOp is one of the ten request operations: its mix key and share,
// the operation it records, its column in -csvstream, and how a requester
// performs it.
type requestOp struct {
	op    stats.Op
	key   string              // the mix key
	doc   string              // what the key's share is a percentage of
	share string              // the key's default (LinkBench's FBWorkload mix)
	field func(*Mix) *float64 // the key's field of Mix
	// stream is the operation's position among streamOps.
	stream int
	// do builds and sends one request of this kind to st and returns its
	// outcome (see requester.send).
	do func(r *requester, ctx context.Context, st store.Store) (stats.Outcome, error)
}

// requestOps is the table of the request operations, in LinkBench's
// cumulative-threshold order: the order of the mix keys, of the
// cumulative shares an operation is picked from, and of Mix's fields. The
// mix keys, Mix.shares, the op choice, the requester's dispatch and the
// -csvstream columns are all read from it.
var requestOps = [numRequestOps]requestOp{
	{op: stats.AddLink, key: "addlink", doc: "add link", share: "5.35038",
		field: func(m *Mix) *float64 { return &m.AddLink }, stream: 4, do: (*requester).addLink},
	{op: stats.DeleteLink, key: "deletelink", doc: "delete link", share: "0.98401",
		field: func(m *Mix) *float64 { return &m.DeleteLink }, stream: 5, do: (*requester).deleteLink},
	{op: stats.UpdateLink, key: "updatelink", doc: "update link", share: "4.75589",
		field: func(m *Mix) *float64 { return &m.UpdateLink }, stream: 3, do: (*requester).updateLink},
	{op: stats.CountLink, key: "countlink", doc: "count links", share: "4.27898",
		field: func(m *Mix) *float64 { return &m.CountLink }, stream: 2, do: (*requester).countLinks},
	{op: stats.MultigetLink, key: "getlink", doc: "multiget links (MULTIGET_LINK)", share: "12.14725",
		field: func(m *Mix) *float64 { return &m.GetLink }, stream: 0, do: (*requester).multigetLinks},
	{op: stats.GetLinksList, key: "getlinklist", doc: "get link list", share: "22.57039",
		field: func(m *Mix) *float64 { return &m.GetLinkList }, stream: 1, do: (*requester).getLinkList},
	{op: stats.AddNode, key: "addnode", doc: "add node", share: "2.61198",
		field: func(m *Mix) *float64 { return &m.AddNode }, stream: 7, do: (*requester).addNode},
	{op: stats.UpdateNode, key: "updatenode", doc: "update node", share: "3.06256",
		field: func(m *Mix) *float64 { return &m.UpdateNode }, stream: 8, do: (*requester).updateNode},
	{op: stats.DeleteNode, key: "deletenode", doc: "delete node", share: "0.25166",
		field: func(m *Mix) *float64 { return &m.DeleteNode }, stream: 9, do: (*requester).deleteNode},
	{op: stats.GetNode, key: "getnode", doc: "get node", share: "43.9869",
		field: func(m *Mix) *float64 { return &m.GetNode }, stream: 10, do: (*requester).getNode},
}

// streamRangeSize is RANGE_SIZE's position among streamOps.
const streamRangeSize = 6

// streamOps are the operations a requester writes to -csvstream, in
// LinkBench's column order: the request operations (requestOps' stream)
// and RANGE_SIZE. Quirk §11.2-17 (DELETE_LINK missing from the per-thread
// display): fixed in both modes, it is included.
var streamOps = func() []stats.Op {
	ops := make([]stats.Op, numRequestOps+1)
	ops[streamRangeSize] = stats.RangeSize
	for _, o := range requestOps {
		ops[o.stream] = o.op
	}
	return ops
}()

// mixKeys are the mix keys in LinkBench's cumulative-threshold order.
var mixKeys = func() (k [numRequestOps]string) {
	for i, o := range requestOps {
		k[i] = o.key
	}
	return k
}()

// shares returns pointers to the mix's shares, in requestOps' order.
func (m *Mix) shares() (s [numRequestOps]*float64) {
	for i, o := range requestOps {
		s[i] = o.field(m)
	}
	return s
}
