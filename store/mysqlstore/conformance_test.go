package mysqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/store"
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
		admin := newTestStore(t, e, nil)
		ctx := context.Background()
		for _, n := range names {
			if err := admin.CreateSchema(ctx, n, SchemaOptions{}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if err := admin.DropSchema(ctx, n); err != nil {
					t.Errorf("DropSchema(%s): %v", n, err)
				}
			})
		}
		start := time.Now()
		storetest.RunWithOptions(t, func(t *testing.T) store.Store {
			return newTestStore(t, e, nil)
		}, storetest.RunOptions{DatabaseNames: names})
		t.Logf("%s: conformance suite ran in %v", e, time.Since(start).Round(time.Millisecond))
	})
}
