package pgstore

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Environment of the database tests.
const (
	envDSN = "LINKBENCH_TEST_PG_DSN"
	envCI  = "LINKBENCH_CI"
)

// testDSN returns the test server's DSN. Without one the test skips,
// except in CI ($LINKBENCH_CI=1), where it fails: CI starts its own server.
func testDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(envDSN)
	if dsn == "" {
		msg := "pgstore database tests are disabled: set " + envDSN +
			" to the URL of a PostgreSQL database whose user may create schemas, e.g. " +
			"`eval \"$(bash .ci/postgres.sh start)\"` (a throwaway PostgreSQL with pg_stat_statements), " +
			"or LINKBENCH_TEST_PG_DSN='postgres://postgres@127.0.0.1:5432/test?sslmode=disable'"
		if os.Getenv(envCI) == "1" {
			tb.Fatal(msg + " (" + envCI + "=1: CI must run them)")
		}
		tb.Skip(msg)
	}
	return dsn
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
