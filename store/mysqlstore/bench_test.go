package mysqlstore

import (
	"context"
	"syscall"
	"testing"

	"github.com/linkbench-go/linkbench/store"
)

// Round-trip benchmarks of the per-operation client path against
// $LINKBENCH_TEST_MYSQL_DSN: one goroutine calling a Session (the path the
// benchmark's workers take). Besides ns/op (latency, the server's work
// included) and the allocations of the client, each reports the client's
// CPU time per operation (cpu-ns/op, user + system: the figure the client
// is judged by, since it shares the host with the server). The speed
// targets live here and in bench/paired, never in tests.

// forEachEngineB runs f per engine on a fresh database and a session of it.
func forEachEngineB(b *testing.B, f func(b *testing.B, ss *Session)) {
	dsn := testDSN(b)
	for _, e := range []Engine{InnoDB, RocksDB} {
		b.Run(string(e), func(b *testing.B) {
			requireEngine(b, dsn, e)
			s := newTestStore(b, e, nil)
			sess, err := s.Session(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Close()
			f(b, sess.(*Session))
		})
	}
}

// loop runs op b.N times, reporting allocations and client CPU per op.
func loop(b *testing.B, op func(i int64)) {
	b.ReportAllocs()
	c0 := clientCPU(b)
	var i int64
	for b.Loop() {
		op(i)
		i++
	}
	b.ReportMetric(float64(clientCPU(b)-c0)/float64(b.N), "cpu-ns/op")
}

// addLinks adds links (1, i, ...) for i in [0, n) with a 23-byte payload.
func addLinks(b *testing.B, ss *Session, n int64) {
	ctx := context.Background()
	for id2 := range n {
		if _, err := ss.AddLink(ctx, mkLink(1, id2, store.VisibilityDefault, "payload-of-23-bytes-abc", id2), true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetLink: one point read (S-get) of an existing link.
func BenchmarkGetLink(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, ss *Session) {
		ctx := context.Background()
		addLinks(b, ss, 64)
		loop(b, func(i int64) {
			if _, found, err := ss.GetLink(ctx, 1, lt, i%64); err != nil || !found {
				b.Fatal(found, err)
			}
		})
	})
}

// BenchmarkMultigetLinks: the literal multiget of 3 existing links.
func BenchmarkMultigetLinks(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, ss *Session) {
		ctx := context.Background()
		addLinks(b, ss, 64)
		id2s := make([]int64, 3)
		dst := make([]store.Link, 0, 3)
		loop(b, func(i int64) {
			for k := range id2s {
				id2s[k] = (i + int64(k)) % 64
			}
			var err error
			if dst, err = ss.MultigetLinks(ctx, 1, lt, id2s, dst[:0]); err != nil || len(dst) != 3 {
				b.Fatal(len(dst), err)
			}
		})
	})
}

// BenchmarkCountLinks: one count read (S-count).
func BenchmarkCountLinks(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, ss *Session) {
		ctx := context.Background()
		addLinks(b, ss, 1)
		loop(b, func(int64) {
			if n, err := ss.CountLinks(ctx, 1, lt); err != nil || n != 1 {
				b.Fatal(n, err)
			}
		})
	})
}

// BenchmarkGetNode: one node read (S-get-node) of a 168-byte node.
func BenchmarkGetNode(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, ss *Session) {
		ctx := context.Background()
		nodes := make([]store.Node, 64)
		for i := range nodes {
			nodes[i] = store.Node{ID: int64(i + 1), Type: store.DefaultNodeType, Version: 1, Time: 1, Data: make([]byte, 168)}
		}
		if err := ss.AddBulkNodes(ctx, nodes); err != nil {
			b.Fatal(err)
		}
		loop(b, func(i int64) {
			if _, found, err := ss.GetNode(ctx, store.DefaultNodeType, 1+i%64); err != nil || !found {
				b.Fatal(found, err)
			}
		})
	})
}

// BenchmarkUpdateNode: one node update (S-upd-node) of a 168-byte node.
func BenchmarkUpdateNode(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, ss *Session) {
		ctx := context.Background()
		n := store.Node{ID: 1, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: make([]byte, 168)}
		if err := ss.AddBulkNodes(ctx, []store.Node{n}); err != nil {
			b.Fatal(err)
		}
		loop(b, func(i int64) {
			n.Time = int32(i)
			if found, err := ss.UpdateNode(ctx, n); err != nil || !found {
				b.Fatal(found, err)
			}
		})
	})
}

// BenchmarkAddLink: AddLink of a new link (INSERT, count upsert, COMMIT on
// the autocommit-off connection).
func BenchmarkAddLink(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, ss *Session) {
		ctx := context.Background()
		loop(b, func(i int64) {
			if _, err := ss.AddLink(ctx, mkLink(2+i%1000, i, store.VisibilityDefault, "payload-of-23-bytes-abc", i), true); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkUpdateLink: UpdateLink of an existing link with a new time
// (SELECT ... FOR UPDATE, UPDATE, COMMIT).
func BenchmarkUpdateLink(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, ss *Session) {
		ctx := context.Background()
		addLinks(b, ss, 64)
		loop(b, func(i int64) {
			if _, err := ss.UpdateLink(ctx, mkLink(1, i%64, store.VisibilityDefault, "payload-of-23-bytes-abc", i+1000), true); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkGetLinkList: the plain range query of a 64-link list.
func BenchmarkGetLinkList(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, ss *Session) {
		ctx := context.Background()
		addLinks(b, ss, 64)
		var dst []store.Link
		loop(b, func(int64) {
			var err error
			if dst, err = ss.GetLinkList(ctx, store.FullRange(1, lt), dst[:0]); err != nil || len(dst) != 64 {
				b.Fatal(len(dst), err)
			}
		})
	})
}

// BenchmarkAddBulkLinks: bulk inserts of 1024 links with 37-byte payloads
// (the load phase's batches); cpu-ns/link is the client's CPU per link.
func BenchmarkAddBulkLinks(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, ss *Session) {
		ctx := context.Background()
		links := make([]store.Link, ss.v.q.bulkN)
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
			if err := ss.AddBulkLinks(ctx, links, true); err != nil {
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
