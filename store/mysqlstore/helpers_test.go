package mysqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/internal/testdb"
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
	ctx := context.Background()
	s, err := Open(ctx, o)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	if err := s.CreateSchema(ctx, "", SchemaOptions{}); err != nil {
		s.Close()
		tb.Fatalf("CreateSchema: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.DropSchema(ctx, ""); err != nil {
			tb.Errorf("DropSchema: %v", err)
		}
		s.Close()
	})
	return s
}

// syncBuffer is a bytes.Buffer safe for concurrent writers (a log sink).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// debugLogger returns a logger writing everything to buf.
func debugLogger(buf *syncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// counter returns the value of the named counter (0 when absent).
func counter(s *Store, name string) int64 {
	for _, c := range s.Counters() {
		if c.Name == name {
			return c.Value
		}
	}
	return 0
}

// sumCounters adds the counters whose name starts with prefix.
func sumCounters(s *Store, prefix string) int64 {
	var n int64
	for _, c := range s.Counters() {
		if strings.HasPrefix(c.Name, prefix) {
			n += c.Value
		}
	}
	return n
}

// checkCountsClean fails the test when CheckCounts finds a mismatch.
func checkCountsClean(tb testing.TB, s *Store) int64 {
	tb.Helper()
	mm, checked, err := s.CheckCounts(context.Background(), 10)
	if err != nil {
		tb.Fatalf("CheckCounts: %v", err)
	}
	if len(mm) > 0 {
		tb.Fatalf("CheckCounts: %d pairs checked, mismatches (first 10): %+v", checked, mm)
	}
	return checked
}
