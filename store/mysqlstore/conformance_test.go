package mysqlstore

import (
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstoretest"
	"github.com/linkbench-go/linkbench/store/storetest"
)

// TestConformance runs the store conformance suite against MariaDB/MySQL
// with InnoDB and with ROCKSDB tables: every subtest gets a fresh database.
func TestConformance(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		// The suite's Databases case opens two more databases by name: they
		// are created here, since the store never creates a database by
		// itself.
		names := [2]string{uniqueDB(e), uniqueDB(e)}
		sqlstoretest.Databases(t, newTestStore(t, e, nil), names[:]...)
		start := time.Now()
		storetest.RunWithOptions(t, func(t *testing.T) store.Store {
			return newTestStore(t, e, nil)
		}, storetest.RunOptions{DatabaseNames: names})
		t.Logf("%s: conformance suite ran in %v", e, time.Since(start).Round(time.Millisecond))
	})
}
