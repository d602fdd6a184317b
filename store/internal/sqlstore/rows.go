package sqlstore

import (
	"fmt"

	"github.com/linkbench-go/linkbench/store"
)

// ScanLink sets l from a row of the link columns id1, id2, link_type,
// visibility, data, version, time (in that order), as a dialect's driver
// hands them over (V): the integers through intOf, the payload appended
// to l.Data[:0] (reusing its capacity) by data. Errors: intOf's, data's,
// a visibility or version out of range.
func ScanLink[V any](row []V, l *store.Link, intOf func(V) (int64, error), data func([]byte, V) ([]byte, error)) error {
	var err error
	get := func(v V) int64 {
		x, e := intOf(v)
		if err == nil {
			err = e
		}
		return x
	}
	l.ID1, l.ID2, l.LinkType = get(row[0]), get(row[1]), get(row[2])
	vis, version, tm := get(row[3]), get(row[5]), get(row[6])
	if err != nil {
		return err
	}
	if vis < -128 || vis > 127 || version < -1<<31 || version > 1<<31-1 {
		return fmt.Errorf("link (%d, %d, %d): visibility %d or version %d out of range",
			l.ID1, l.LinkType, l.ID2, vis, version)
	}
	l.Visibility, l.Version, l.Time = store.Visibility(vis), int32(version), tm
	l.Data, err = data(l.Data[:0], row[4])
	return err
}

// AppendLink appends the link of row (see ScanLink) to dst, reusing the
// Data capacity of dst's spare element.
func AppendLink[V any](dst []store.Link, row []V, intOf func(V) (int64, error), data func([]byte, V) ([]byte, error)) ([]store.Link, error) {
	if len(dst) < cap(dst) {
		dst = dst[:len(dst)+1]
	} else {
		dst = append(dst, store.Link{})
	}
	if err := ScanLink(row, &dst[len(dst)-1], intOf, data); err != nil {
		return dst[:len(dst)-1], err
	}
	return dst, nil
}

// ScanNode sets n from a row of the node columns id, type, version, time,
// data (see ScanLink). Errors: intOf's, data's, a type or time out of
// range.
func ScanNode[V any](row []V, n *store.Node, intOf func(V) (int64, error), data func([]byte, V) ([]byte, error)) error {
	var ints [4]int64
	for i := range ints {
		x, err := intOf(row[i])
		if err != nil {
			return err
		}
		ints[i] = x
	}
	id, typ, version, tm := ints[0], ints[1], ints[2], ints[3]
	if typ < -1<<31 || typ > 1<<31-1 || tm < -1<<31 || tm > 1<<31-1 {
		return fmt.Errorf("node %d: type %d or time %d out of range", id, typ, tm)
	}
	n.ID, n.Type, n.Version, n.Time = id, int32(typ), version, int32(tm)
	var err error
	n.Data, err = data(n.Data[:0], row[4])
	return err
}
