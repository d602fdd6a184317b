package mysqlstore

import (
	"context"
	"syscall"
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

// BenchmarkAddBulkLinks: bulk inserts of 1024 links with 37-byte payloads
// (the load phase's batches). Besides ns/op (per batch, server included)
// it reports the client's CPU time per link (cpu-ns/link), the figure the
// load phase's client cost is judged by.
func BenchmarkAddBulkLinks(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, s *Store) {
		ctx := context.Background()
		links := make([]store.Link, 1024)
		for i := range links {
			links[i] = mkLink(0, 0, store.VisibilityDefault, "payload-of-37-bytes-abcdefghijklmnopq", 0)
		}
		b.ReportAllocs()
		c0 := clientCPU(b)
		var id1 int64 = 1_000_000
		for b.Loop() {
			for i := range links {
				links[i].ID1, links[i].ID2, links[i].Time = id1, int64(i), 1_700_000_000_000+int64(i)
			}
			id1++
			if err := s.AddBulkLinks(ctx, links, true); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(clientCPU(b)-c0)/float64(b.N*len(links)), "cpu-ns/link")
	})
}

// clientCPU returns this process's user+system CPU time in ns.
func clientCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
