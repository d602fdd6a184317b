package linkbench

import "github.com/linkbench-go/linkbench/store"

// The traced stores with each combination of optional capabilities (see
// Tracer.Wrap): tracedStore plus the embedded capability wrappers.

type tracedBL struct {
	*tracedStore
	tracedBulkLinks
}

type tracedBN struct {
	*tracedStore
	tracedBulkNodes
}

type tracedBLBN struct {
	*tracedStore
	tracedBulkLinks
	tracedBulkNodes
}

type tracedDB struct {
	*tracedStore
	tracedDatabases
}

type tracedBLDB struct {
	*tracedStore
	tracedBulkLinks
	tracedDatabases
}

type tracedBNDB struct {
	*tracedStore
	tracedBulkNodes
	tracedDatabases
}

type tracedBLBNDB struct {
	*tracedStore
	tracedBulkLinks
	tracedBulkNodes
	tracedDatabases
}

type tracedCK struct {
	*tracedStore
	store.Checker
}

type tracedBLCK struct {
	*tracedStore
	tracedBulkLinks
	store.Checker
}

type tracedBNCK struct {
	*tracedStore
	tracedBulkNodes
	store.Checker
}

type tracedBLBNCK struct {
	*tracedStore
	tracedBulkLinks
	tracedBulkNodes
	store.Checker
}

type tracedDBCK struct {
	*tracedStore
	tracedDatabases
	store.Checker
}

type tracedBLDBCK struct {
	*tracedStore
	tracedBulkLinks
	tracedDatabases
	store.Checker
}

type tracedBNDBCK struct {
	*tracedStore
	tracedBulkNodes
	tracedDatabases
	store.Checker
}

type tracedBLBNDBCK struct {
	*tracedStore
	tracedBulkLinks
	tracedBulkNodes
	tracedDatabases
	store.Checker
}

// wrapCaps returns base with the capabilities in caps (capBulkLinks, ...).
func wrapCaps(caps int, base *tracedStore, bl tracedBulkLinks, bn tracedBulkNodes, db tracedDatabases, ck store.Checker) store.Store {
	switch caps {
	case 1:
		return tracedBL{base, bl}
	case 2:
		return tracedBN{base, bn}
	case 3:
		return tracedBLBN{base, bl, bn}
	case 4:
		return tracedDB{base, db}
	case 5:
		return tracedBLDB{base, bl, db}
	case 6:
		return tracedBNDB{base, bn, db}
	case 7:
		return tracedBLBNDB{base, bl, bn, db}
	case 8:
		return tracedCK{base, ck}
	case 9:
		return tracedBLCK{base, bl, ck}
	case 10:
		return tracedBNCK{base, bn, ck}
	case 11:
		return tracedBLBNCK{base, bl, bn, ck}
	case 12:
		return tracedDBCK{base, db, ck}
	case 13:
		return tracedBLDBCK{base, bl, db, ck}
	case 14:
		return tracedBNDBCK{base, bn, db, ck}
	case 15:
		return tracedBLBNDBCK{base, bl, bn, db, ck}
	}
	return base
}
