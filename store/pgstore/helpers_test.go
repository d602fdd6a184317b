package pgstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/linkbench-go/linkbench/internal/testdb"
	"github.com/linkbench-go/linkbench/store/internal/sqlstoretest"
)

// envCI is the variable that makes the database tests fail rather than
// skip without their server.
const envCI = testdb.EnvCI

// testDSN returns the test server's URL ($LINKBENCH_TEST_PG_DSN). Without
// one the test skips, except in CI ($LINKBENCH_CI=1), where it fails: CI
// starts its own server.
func testDSN(tb testing.TB) string {
	tb.Helper()
	return testdb.PostgresDSN(tb)
}

// uniqueSchema returns a fresh schema name for a test.
func uniqueSchema() string {
	return fmt.Sprintf("lbt_%d_%08x", os.Getpid(), rand.Uint32())
}

// newTestStore opens a store on a fresh schema with LinkBench's tables;
// the test's cleanup drops the schema and closes the store. mod, if not
// nil, adjusts the options before Open.
func newTestStore(tb testing.TB, mod func(*Options)) *Store {
	tb.Helper()
	o := Options{DSN: testDSN(tb), Schema: uniqueSchema(), MaxConns: 32}
	if mod != nil {
		mod(&o)
	}
	return sqlstoretest.Open(tb, func(ctx context.Context) (*Store, error) { return Open(ctx, o) })
}

// checkCountsClean fails the test when CheckCounts finds a mismatch.
func checkCountsClean(tb testing.TB, s *Store) int64 { return sqlstoretest.CheckCountsClean(tb, s) }

// counter returns the value of the named counter (0 when absent).
func counter(s *Store, name string) int64 { return sqlstoretest.Counter(s, name) }

// sumCounters adds the counters whose name starts with prefix.
func sumCounters(s *Store, prefix string) int64 { return sqlstoretest.SumCounters(s, prefix) }
