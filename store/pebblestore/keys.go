package pebblestore

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/linkbench-go/linkbench/store"
)

// Key prefixes: the first byte of every key names its table or index, as
// the 4-byte index id does in MyRocks. The package documentation draws
// the keys and values.
const (
	prefixMeta  = 'M' // store metadata: format, node id sequence
	prefixNode  = 'N' // nodetable, PRIMARY KEY (id)
	prefixCount = 'C' // counttable, PRIMARY KEY (id, link_type)
	prefixLink  = 'L' // linktable, PRIMARY KEY (id1, link_type, id2)
	prefixIndex = 'I' // linktable, KEY id1_type (id1, link_type, visibility, time DESC, id2)
)

// Key and fixed value sizes, in bytes.
const (
	nodeKeyLen    = 1 + 8
	countKeyLen   = 1 + 8 + 8
	linkKeyLen    = 1 + 8 + 8 + 8
	indexKeyLen   = 1 + 8 + 8 + 1 + 8 + 8
	indexListLen  = 1 + 8 + 8 + 1 // an index key's (id1, link_type, visibility) part
	linkValHead   = 1 + 4 + 8     // visibility, version, time
	indexValHead  = 4             // version
	nodeValHead   = 4 + 8 + 4     // type, version, time
	countValLen   = 8 + 8 + 8     // count, time, version
	sequenceValue = 8
)

// Metadata keys.
var (
	// metaFormat holds formatVersion: a directory written by another
	// layout is refused.
	metaFormat = []byte("Mformat")
	// metaNextNodeID holds the next node id AddNode allocates, written
	// with the max merge operator (merge.go).
	metaNextNodeID = []byte("Mnext_node_id")
)

// formatVersion is the value of metaFormat: the layout this package
// reads and writes.
const formatVersion = "linkbench-pebblestore-1"

// enc maps an int64 to a uint64 whose big-endian bytes sort as the
// integers do (the sign bit flipped), as MyRocks' memcomparable format
// does for signed integers.
func enc(v int64) uint64 { return uint64(v) ^ 1<<63 }

// dec inverts enc.
func dec(u uint64) int64 { return int64(u ^ 1<<63) }

func putInt(b []byte, v int64) { binary.BigEndian.PutUint64(b, enc(v)) }

func getInt(b []byte) int64 { return dec(binary.BigEndian.Uint64(b)) }

// putDesc writes v so that larger values sort first (MyRocks' reverse
// column family for the id1_type index, "rev:cf_link_id1_type").
func putDesc(b []byte, v int64) { binary.BigEndian.PutUint64(b, ^enc(v)) }

func getDesc(b []byte) int64 { return dec(^binary.BigEndian.Uint64(b)) }

// nodeKey writes the key of node id into b (nodeKeyLen bytes).
func nodeKey(b *[nodeKeyLen]byte, id int64) []byte {
	b[0] = prefixNode
	putInt(b[1:], id)
	return b[:]
}

// countKey writes the key of the count row of (id1, linkType).
func countKey(b *[countKeyLen]byte, id1, linkType int64) []byte {
	b[0] = prefixCount
	putInt(b[1:], id1)
	putInt(b[9:], linkType)
	return b[:]
}

// linkKey writes the primary key of a link.
func linkKey(b *[linkKeyLen]byte, id1, linkType, id2 int64) []byte {
	b[0] = prefixLink
	putInt(b[1:], id1)
	putInt(b[9:], linkType)
	putInt(b[17:], id2)
	return b[:]
}

// indexKey writes the id1_type index key of a link.
func indexKey(b *[indexKeyLen]byte, id1, linkType int64, vis store.Visibility, time, id2 int64) []byte {
	b[0] = prefixIndex
	putInt(b[1:], id1)
	putInt(b[9:], linkType)
	b[17] = byte(vis)
	putDesc(b[18:], time)
	putInt(b[26:], id2)
	return b[:]
}

// listBounds writes into lo and hi the bounds of the index keys of the
// visible links of (id1, linkType) with minTime <= time <= maxTime:
// [lo, hi). It reports false when no key can be in range.
func listBounds(lo, hi *[indexKeyLen]byte, id1, linkType, minTime, maxTime int64) ([]byte, []byte, bool) {
	if minTime > maxTime {
		return nil, nil, false
	}
	lo[0] = prefixIndex
	putInt(lo[1:], id1)
	putInt(lo[9:], linkType)
	lo[17] = byte(store.VisibilityDefault)
	putDesc(lo[18:], maxTime)
	// hi: the first key after every key of time minTime, i.e. the
	// (id1, link_type, 1, minTime) prefix plus one.
	*hi = *lo
	putDesc(hi[18:], minTime)
	return lo[:indexListLen+8], successor(hi[:indexListLen+8]), true
}

// successor returns the smallest byte string greater than every string
// that has b as a prefix: b with its last byte below 0xff incremented and
// what follows dropped (b is modified). b must have a byte below 0xff.
func successor(b []byte) []byte {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != 0xff {
			b[i]++
			return b[:i+1]
		}
	}
	panic("pebblestore: successor of an all-0xff key") // prefixes are letters
}

// prefixEnd returns the upper bound of the keys with the one-byte prefix p.
func prefixEnd(p byte) []byte { return []byte{p + 1} }

// linkVal is the decoded value of a link row.
type linkVal struct {
	vis     store.Visibility
	version int32
	time    int64
	data    []byte // aliases the value it was decoded from
}

// appendLinkVal appends the value of a link row: visibility (1 byte),
// version (4), time (8), data.
func appendLinkVal(b []byte, l *store.Link) []byte {
	b = append(b, byte(l.Visibility))
	b = binary.BigEndian.AppendUint32(b, uint32(l.Version))
	b = binary.BigEndian.AppendUint64(b, uint64(l.Time))
	return append(b, l.Data...)
}

// errCorrupt is wrapped by the errors of values this package cannot have
// written.
var errCorrupt = errors.New("pebblestore: corrupt value")

func decodeLinkVal(v []byte) (linkVal, error) {
	if len(v) < linkValHead {
		return linkVal{}, fmt.Errorf("%w: link row of %d bytes", errCorrupt, len(v))
	}
	return linkVal{
		vis:     store.Visibility(v[0]),
		version: int32(binary.BigEndian.Uint32(v[1:])),
		time:    int64(binary.BigEndian.Uint64(v[5:])),
		data:    v[linkValHead:],
	}, nil
}

// appendIndexVal appends the value of an id1_type index entry: version
// (4 bytes), data. Time and id2 are in the key: the index covers the
// GET_LINKS_LIST query, as MyRocks' id1_type (..., version, data) does.
func appendIndexVal(b []byte, l *store.Link) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(l.Version))
	return append(b, l.Data...)
}

// appendNodeVal appends the value of a node row: type (4 bytes), version
// (8), time (4), data.
func appendNodeVal(b []byte, n *store.Node) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(n.Type))
	b = binary.BigEndian.AppendUint64(b, uint64(n.Version))
	b = binary.BigEndian.AppendUint32(b, uint32(n.Time))
	return append(b, n.Data...)
}

// decodeNode decodes a node row into n; n.Data aliases v.
func decodeNode(v []byte, n *store.Node) error {
	if len(v) < nodeValHead {
		return fmt.Errorf("%w: node row of %d bytes", errCorrupt, len(v))
	}
	n.Type = int32(binary.BigEndian.Uint32(v))
	n.Version = int64(binary.BigEndian.Uint64(v[4:]))
	n.Time = int32(binary.BigEndian.Uint32(v[12:]))
	n.Data = v[nodeValHead:]
	return nil
}

// countRow is a decoded count row.
type countRow struct {
	count, time, version int64
}

func (c countRow) append(b []byte) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(c.count))
	b = binary.BigEndian.AppendUint64(b, uint64(c.time))
	return binary.BigEndian.AppendUint64(b, uint64(c.version))
}

func decodeCount(v []byte) (countRow, error) {
	if len(v) != countValLen {
		return countRow{}, fmt.Errorf("%w: count row of %d bytes", errCorrupt, len(v))
	}
	return countRow{
		count:   int64(binary.BigEndian.Uint64(v)),
		time:    int64(binary.BigEndian.Uint64(v[8:])),
		version: int64(binary.BigEndian.Uint64(v[16:])),
	}, nil
}

// cloneData returns a copy of b, nil when b is empty.
func cloneData(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// appendLink appends a link to dst, reusing the Data capacity of the
// element past dst's length, and copying data (which may alias Pebble's
// memory).
func appendLink(dst []store.Link, l store.Link, data []byte) []store.Link {
	var d []byte
	if len(dst) < cap(dst) {
		d = dst[:len(dst)+1][len(dst)].Data[:0]
	}
	if len(data) > 0 || d != nil {
		d = append(d, data...)
	}
	l.Data = d
	return append(dst, l)
}
