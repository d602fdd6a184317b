package memstore

// Heap bytes a Store spends per stored item beside the payloads, measured
// with Go 1.26 on amd64 after loads of LinkBench graphs (real out-degree,
// constant out-degrees of 1 to 40 links per list), rounded so that the
// estimate errs by about 15 % either way: a node (its map entry and record),
// a link (its entry in a sorted slice or B+tree, and the id2 index of a big
// list) and an adjacency list (its map entry).
const (
	estNodeBytes = 88
	estLinkBytes = 120
	estListBytes = 80
)

// EstimateBytes returns about how many bytes of Go heap a Store holding a
// graph occupies: nodes nodes with nodeData payload bytes in all, links
// links with linkData payload bytes in all, in lists adjacency lists
// ((id1, link_type) pairs). It is the live heap after a load; a process
// needs more while the garbage collector runs (up to twice as much with
// GOGC = 100 and no memory limit).
func EstimateBytes(nodes, nodeData, links, linkData, lists int64) int64 {
	return nodes*estNodeBytes + nodeData + links*estLinkBytes + linkData + lists*estListBytes
}
