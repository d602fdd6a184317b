package pebblestore

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/cockroachdb/pebble/v2"
)

// mergerName is the name of the store's merge operator, which Pebble
// records in the directory's OPTIONS file and checks at every Open.
const mergerName = "linkbench.pebblestore.max.v1"

// maxMerger keeps the largest of 8-byte big-endian operands: the node id
// sequence (metaNextNodeID) is merged, not overwritten, so that
// concurrent AddNode calls whose batches commit in any order leave the
// largest next id, without a lock around the commit. Only that key is
// ever merged.
var maxMerger = &pebble.Merger{
	Name: mergerName,
	Merge: func(key, value []byte) (pebble.ValueMerger, error) {
		m := &maxValue{}
		if err := m.add(value); err != nil {
			return nil, err
		}
		return m, nil
	},
}

// maxValue is the state of one merge.
type maxValue struct {
	max uint64
}

func (m *maxValue) add(v []byte) error {
	if len(v) != sequenceValue {
		return fmt.Errorf("%w: sequence operand of %d bytes", errCorrupt, len(v))
	}
	m.max = max(m.max, binary.BigEndian.Uint64(v))
	return nil
}

// MergeNewer implements pebble.ValueMerger.
func (m *maxValue) MergeNewer(v []byte) error { return m.add(v) }

// MergeOlder implements pebble.ValueMerger.
func (m *maxValue) MergeOlder(v []byte) error { return m.add(v) }

// Finish implements pebble.ValueMerger.
func (m *maxValue) Finish(bool) ([]byte, io.Closer, error) {
	return binary.BigEndian.AppendUint64(nil, m.max), nil, nil
}

// sequenceValueOf returns the 8-byte value (or merge operand) of next
// node id id, encoded so that the operands' byte order is the ids' order.
func sequenceValueOf(id int64) []byte {
	return binary.BigEndian.AppendUint64(nil, enc(id))
}

// decodeSequence decodes a (merged) sequence value.
func decodeSequence(v []byte) (int64, error) {
	if len(v) != sequenceValue {
		return 0, fmt.Errorf("%w: sequence of %d bytes", errCorrupt, len(v))
	}
	return dec(binary.BigEndian.Uint64(v)), nil
}
