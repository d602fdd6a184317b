package pebblestore_test

import (
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/pebblestore"
	"github.com/linkbench-go/linkbench/store/storetest"
)

// openTest opens a store in a fresh directory, closed at the test's end.
func openTest(t testing.TB, o pebblestore.Options) *pebblestore.Store {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	s, err := pebblestore.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// The conformance suite, with the defaults (WAL sync on).
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openTest(t, pebblestore.Options{}) })
}

// The conformance suite with WAL sync off (the other commit path) and
// small memtables, so that data goes through flushes and sstables.
func TestConformanceNoSync(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return openTest(t, pebblestore.Options{Sync: pebblestore.SyncOff, MemTableSize: 1 << 20})
	})
}
