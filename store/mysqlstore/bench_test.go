package mysqlstore

import (
	"context"
	"testing"

	"github.com/linkbench-go/linkbench/store"
)

// Round-trip benchmarks against $LINKBENCH_TEST_MYSQL_DSN, one goroutine:
// the latency of one store call including the server's work.

func forEachEngineB(b *testing.B, f func(b *testing.B, s *Store)) {
	dsn := testDSN(b)
	for _, e := range []Engine{InnoDB, RocksDB} {
		b.Run(string(e), func(b *testing.B) {
			requireEngine(b, dsn, e)
			f(b, newTestStore(b, e, nil))
		})
	}
}

// BenchmarkGetLink: one point read (S-get) of an existing link.
func BenchmarkGetLink(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, s *Store) {
		ctx := context.Background()
		for id2 := range int64(64) {
			if _, err := s.AddLink(ctx, mkLink(1, id2, store.VisibilityDefault, "payload-of-23-bytes-abc", id2), true); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		var i int64
		for b.Loop() {
			if _, found, err := s.GetLink(ctx, 1, lt, i%64); err != nil || !found {
				b.Fatal(found, err)
			}
			i++
		}
	})
}

// BenchmarkAddLink: AddLink of a new link (BEGIN, INSERT, count upsert,
// COMMIT).
func BenchmarkAddLink(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, s *Store) {
		ctx := context.Background()
		b.ReportAllocs()
		var i int64
		for b.Loop() {
			if _, err := s.AddLink(ctx, mkLink(2+i%1000, i, store.VisibilityDefault, "payload-of-23-bytes-abc", i), true); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkUpdateLink: UpdateLink of an existing link with a new time
// (BEGIN, SELECT ... FOR UPDATE, UPDATE, COMMIT).
func BenchmarkUpdateLink(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, s *Store) {
		ctx := context.Background()
		for id2 := range int64(64) {
			if _, err := s.AddLink(ctx, mkLink(1, id2, store.VisibilityDefault, "payload-of-23-bytes-abc", 0), true); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		var i int64
		for b.Loop() {
			if _, err := s.UpdateLink(ctx, mkLink(1, i%64, store.VisibilityDefault, "payload-of-23-bytes-abc", i+1), true); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkGetLinkList: the plain range query of a 64-link list.
func BenchmarkGetLinkList(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, s *Store) {
		ctx := context.Background()
		for id2 := range int64(64) {
			if _, err := s.AddLink(ctx, mkLink(1, id2, store.VisibilityDefault, "payload-of-23-bytes-abc", id2), true); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		var dst []store.Link
		for b.Loop() {
			var err error
			if dst, err = s.GetLinkList(ctx, store.FullRange(1, lt), dst[:0]); err != nil || len(dst) != 64 {
				b.Fatal(len(dst), err)
			}
		}
	})
}
