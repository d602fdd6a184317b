package mysqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/internal/testdb"
	"github.com/linkbench-go/linkbench/store/internal/sqlstoretest"
)

// envRequireRocksDB = 1 makes the tests fail rather than skip on a
// server without the ROCKSDB engine.
const envRequireRocksDB = "LINKBENCH_TEST_MYSQL_REQUIRE_ROCKSDB"

// testDSN returns the test server's DSN or skips the test (fails it in
// CI, see package testdb).
func testDSN(tb testing.TB) string {
	tb.Helper()
	return testdb.MySQLDSN(tb)
}

// forEachEngine runs f as a subtest per engine, skipping ROCKSDB when the
// server lacks it (failing instead when $LINKBENCH_TEST_MYSQL_REQUIRE_ROCKSDB=1).
func forEachEngine(t *testing.T, f func(t *testing.T, e Engine)) {
	t.Helper()
	forEachEngineOn(t, testDSN(t), f)
}

// forEachEngineOn is forEachEngine on the server of dsn.
func forEachEngineOn(t *testing.T, dsn string, f func(t *testing.T, e Engine)) {
	t.Helper()
	for _, e := range []Engine{InnoDB, RocksDB} {
		t.Run(string(e), func(t *testing.T) {
			requireEngine(t, dsn, e)
			f(t, e)
		})
	}
}

// requireEngine skips (or, with $LINKBENCH_TEST_MYSQL_REQUIRE_ROCKSDB=1,
// fails) the test when the server lacks engine e.
func requireEngine(tb testing.TB, dsn string, e Engine) {
	tb.Helper()
	s, err := Open(context.Background(), Options{DSN: dsn})
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	var support string
	err = s.DB().QueryRow("SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE = ?", string(e)).Scan(&support)
	s.Close()
	if err != nil && err != sql.ErrNoRows {
		tb.Fatalf("engine query: %v", err)
	}
	if support == "YES" || support == "DEFAULT" {
		return
	}
	msg := fmt.Sprintf("the server lacks the %s engine (MariaDB: apt-get install mariadb-plugin-rocksdb, then INSTALL SONAME 'ha_rocksdb' or start with --plugin-load-add=ha_rocksdb)", e)
	if os.Getenv(envRequireRocksDB) == "1" {
		tb.Fatal(msg + "; " + envRequireRocksDB + "=1 requires it")
	}
	tb.Skip(msg)
}

// uniqueDB returns a fresh database name for a test.
func uniqueDB(e Engine) string {
	return fmt.Sprintf("lbt_%s_%d_%08x", strings.ToLower(string(e))[:4], os.Getpid(), rand.Uint32())
}

// newTestStore opens a store on a fresh database with the schema of
// engine e; the test's cleanup drops the database and closes the store.
// mod, if not nil, adjusts the options before Open; the DSN is the shared
// test server's unless mod sets one.
func newTestStore(tb testing.TB, e Engine, mod func(*Options)) *Store {
	tb.Helper()
	o := Options{Database: uniqueDB(e), Engine: e, MaxConns: 32}
	if mod != nil {
		mod(&o)
	}
	if o.DSN == "" {
		o.DSN = testDSN(tb)
	}
	return sqlstoretest.Open(tb, func(ctx context.Context) (*Store, error) { return Open(ctx, o) })
}

// The shared helpers of the SQL stores' tests.
type syncBuffer = sqlstoretest.SyncBuffer

var (
	debugLogger      = sqlstoretest.DebugLogger
	mkLink           = sqlstoretest.MkLink
	checkCountsClean = sqlstoretest.CheckCountsClean
)

const lt = sqlstoretest.LT

// counter returns the value of the named counter (0 when absent).
func counter(s *Store, name string) int64 { return sqlstoretest.Counter(s, name) }

// sumCounters adds the counters whose name starts with prefix.
func sumCounters(s *Store, prefix string) int64 { return sqlstoretest.SumCounters(s, prefix) }
