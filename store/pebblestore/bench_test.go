package pebblestore_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/pebblestore"
)

// Load shapes: LinkBench's loader sends batches of bulk_insert_count =
// 1024 links (reference §2.3); link payloads have a median of 23 bytes in
// the shipped workload; load times are now - 2^31 + nextInt() ms.
const (
	bulkBatch   = 1024
	payloadSize = 23
	loadTime    = int64(1_700_000_000_000) - 1<<31
)

var payload = make([]byte, payloadSize)

// bulkLoad loads n links of (id1, DefaultLinkType), id2 0..n-1, random
// times, in batches of bulkBatch.
func bulkLoad(b *testing.B, s *pebblestore.Store, id1 int64, n int, rng *rand.Rand) {
	ctx := context.Background()
	batch := make([]store.Link, 0, bulkBatch)
	for i := range n {
		batch = append(batch, store.Link{ID1: id1, LinkType: store.DefaultLinkType, ID2: int64(i),
			Visibility: store.VisibilityDefault, Data: payload, Time: loadTime + int64(rng.Uint32()>>1)})
		if len(batch) == bulkBatch || i == n-1 {
			if err := s.AddBulkLinks(ctx, batch, true); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

// BenchmarkBulkLoadHotList loads 1 M links into one (id1, link_type) in
// batches of 1024, as the loader of LinkBench's hottest id1 does (which
// has 4.2 M). Metric: ns/link.
func BenchmarkBulkLoadHotList(b *testing.B) {
	const n = 1_000_000 // a quarter of the hottest list
	for _, sync := range []pebblestore.SyncMode{pebblestore.SyncOff, pebblestore.SyncOn} {
		b.Run("sync="+sync.String(), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				s, err := pebblestore.Open(context.Background(), pebblestore.Options{Dir: b.TempDir(), Sync: sync})
				if err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, 1))
				b.StartTimer()
				bulkLoad(b, s, 1, n, rng)
				b.StopTimer()
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/link")
		})
	}
}

// The graph of the per-operation benchmarks: benchNodes nodes of 128
// bytes and, out of each, 1 to 20 links of benchType (10.5 on average)
// with 23-byte payloads, loaded in bulk and flushed, so that reads go
// through sstables and the block cache, as in a request phase.
const (
	benchNodes = 20000
	benchType  = store.DefaultLinkType
	benchIDs   = 1 << 16 // pre-drawn ids per benchmark
)

// benchGraph is a loaded store shared by the benchmarks, in a directory
// TestMain removes.
var benchGraph struct {
	once sync.Once
	s    *pebblestore.Store
	dir  string
	err  error
	// links[i] is a link of the graph, for reads and updates by key.
	links []store.Link
}

func loadedStore(b *testing.B) (*pebblestore.Store, []store.Link) {
	g := &benchGraph
	g.once.Do(func() {
		ctx := context.Background()
		if g.dir, g.err = os.MkdirTemp("", "pebblestore-bench"); g.err != nil {
			return
		}
		if g.s, g.err = pebblestore.Open(ctx, pebblestore.Options{Dir: g.dir, Sync: pebblestore.SyncOff}); g.err != nil {
			return
		}
		rng := rand.New(rand.NewPCG(3, 3))
		nodes := make([]store.Node, 0, 1000)
		for id := int64(1); id <= benchNodes; id++ {
			nodes = append(nodes, store.Node{ID: id, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: make([]byte, 128)})
			if len(nodes) == cap(nodes) {
				if g.err = g.s.AddBulkNodes(ctx, nodes); g.err != nil {
					return
				}
				nodes = nodes[:0]
			}
		}
		var batch []store.Link
		var counts []store.LinkCount
		for id1 := int64(1); id1 <= benchNodes; id1++ {
			n := 1 + rng.IntN(20)
			for k := range n {
				l := store.Link{ID1: id1, LinkType: benchType, ID2: id1*100 + int64(k), Visibility: store.VisibilityDefault,
					Data: payload, Time: loadTime + int64(rng.Uint32()>>1)}
				batch = append(batch, l)
				g.links = append(g.links, l)
			}
			counts = append(counts, store.LinkCount{ID1: id1, LinkType: benchType, Count: int64(n)})
			if len(batch) >= bulkBatch {
				if g.err = g.s.AddBulkLinks(ctx, batch, true); g.err == nil {
					g.err = g.s.AddBulkCounts(ctx, counts)
				}
				if g.err != nil {
					return
				}
				batch, counts = batch[:0], counts[:0]
			}
		}
		if g.err = g.s.AddBulkLinks(ctx, batch, true); g.err == nil {
			g.err = g.s.AddBulkCounts(ctx, counts)
		}
		if g.err == nil {
			g.err = g.s.Flush(ctx)
		}
		// Warm the cache: one list read per id1.
		for id1 := int64(1); id1 <= benchNodes && g.err == nil; id1++ {
			_, g.err = g.s.GetLinkList(ctx, store.FullRange(id1, benchType), nil)
		}
	})
	if g.err != nil {
		b.Fatal(g.err)
	}
	return g.s, g.links
}

// closeBenchGraph closes and removes the benchmarks' store, if any.
func closeBenchGraph() {
	if g := &benchGraph; g.s != nil {
		_ = g.s.Close()
		_ = os.RemoveAll(g.dir)
	}
}

// threadCPU returns the CPU time of the calling thread (RUSAGE_THREAD).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		panic(err)
	}
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
}

// cpuLoop runs op for b.Loop's iterations on one OS thread and reports
// the thread's CPU time per call as cpu-ns/op: unlike ns/op, it does not
// count the time the thread waited for a core, so it holds on a busy
// machine (Pebble's background work, compactions and flushes, runs on
// other threads and is not counted).
func cpuLoop(b *testing.B, op func(i int)) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	i := 0
	for b.Loop() {
		op(i)
		i++
	}
	b.ReportMetric(float64(threadCPU()-start)/float64(i), "cpu-ns/op")
}

// drawIDs returns benchIDs random ids in [1, benchNodes].
func drawIDs(seed uint64) []int64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	ids := make([]int64, benchIDs)
	for i := range ids {
		ids[i] = 1 + rng.Int64N(benchNodes)
	}
	return ids
}

// The raw Pebble calls the store's reads and writes amount to, for the
// store's overhead (encoding, locks, checks): the same keys and values,
// written here with the layout of the package documentation.
func rawInt(b []byte, v int64) { binary.BigEndian.PutUint64(b, uint64(v)^1<<63) }

func rawListBounds(lo, hi *[26]byte, id1, lt int64) ([]byte, []byte) {
	lo[0] = 'I'
	rawInt(lo[1:], id1)
	rawInt(lo[9:], lt)
	lo[17] = 1
	binary.BigEndian.PutUint64(lo[18:], ^(uint64(math.MaxInt64) ^ 1<<63)) // MaxTime
	*hi = *lo
	hi[17] = 2 // every time, MinTime = MinInt64
	return lo[:], hi[:18]
}

// rawGetLinkList is GetLinkList of FullRange(id1, lt) in raw Pebble calls.
func rawGetLinkList(db *pebble.DB, lo, hi *[26]byte, opts *pebble.IterOptions, id1, lt int64, dst []store.Link) ([]store.Link, error) {
	opts.LowerBound, opts.UpperBound = rawListBounds(lo, hi, id1, lt)
	it, err := db.NewIter(opts)
	if err != nil {
		return dst, err
	}
	for valid := it.First(); valid && len(dst) < store.DefaultLimit; valid = it.Next() {
		k, v := it.Key(), it.Value()
		var d []byte
		if len(dst) < cap(dst) {
			d = dst[:len(dst)+1][len(dst)].Data[:0]
		}
		dst = append(dst, store.Link{ID1: id1, LinkType: lt, ID2: int64(binary.BigEndian.Uint64(k[26:]) ^ 1<<63),
			Visibility: 1, Version: int32(binary.BigEndian.Uint32(v)), Time: int64(^binary.BigEndian.Uint64(k[18:]) ^ 1<<63),
			Data: append(d, v[4:]...)})
	}
	return dst, it.Close()
}

func BenchmarkGetLinkList(b *testing.B) {
	s, _ := loadedStore(b)
	ctx := context.Background()
	ids := drawIDs(1)
	b.Run("store", func(b *testing.B) {
		var dst []store.Link
		cpuLoop(b, func(i int) {
			var err error
			if dst, err = s.GetLinkList(ctx, store.FullRange(ids[i%benchIDs], benchType), dst[:0]); err != nil || len(dst) == 0 {
				b.Fatal(err, len(dst))
			}
		})
	})
	b.Run("raw", func(b *testing.B) {
		var dst []store.Link
		var lo, hi [26]byte
		var opts pebble.IterOptions
		cpuLoop(b, func(i int) {
			var err error
			if dst, err = rawGetLinkList(s.DB(), &lo, &hi, &opts, ids[i%benchIDs], benchType, dst[:0]); err != nil || len(dst) == 0 {
				b.Fatal(err, len(dst))
			}
		})
	})
}

func BenchmarkGetNode(b *testing.B) {
	s, _ := loadedStore(b)
	ctx := context.Background()
	ids := drawIDs(2)
	b.Run("store", func(b *testing.B) {
		cpuLoop(b, func(i int) {
			if _, found, err := s.GetNode(ctx, store.DefaultNodeType, ids[i%benchIDs]); err != nil || !found {
				b.Fatal(err, found)
			}
		})
	})
	b.Run("raw", func(b *testing.B) {
		var k [9]byte
		k[0] = 'N'
		cpuLoop(b, func(i int) {
			rawInt(k[1:], ids[i%benchIDs])
			v, closer, err := s.DB().Get(k[:])
			if err != nil {
				b.Fatal(err)
			}
			n := store.Node{ID: ids[i%benchIDs], Type: int32(binary.BigEndian.Uint32(v)), Version: int64(binary.BigEndian.Uint64(v[4:])),
				Time: int32(binary.BigEndian.Uint32(v[12:])), Data: append([]byte(nil), v[16:]...)}
			_ = closer.Close()
			if n.Type != store.DefaultNodeType {
				b.Fatal(n)
			}
		})
	})
}

func BenchmarkCountLinks(b *testing.B) {
	s, _ := loadedStore(b)
	ctx := context.Background()
	ids := drawIDs(3)
	b.Run("store", func(b *testing.B) {
		cpuLoop(b, func(i int) {
			if n, err := s.CountLinks(ctx, ids[i%benchIDs], benchType); err != nil || n == 0 {
				b.Fatal(err, n)
			}
		})
	})
	b.Run("raw", func(b *testing.B) {
		var k [17]byte
		k[0] = 'C'
		rawInt(k[9:], benchType)
		cpuLoop(b, func(i int) {
			rawInt(k[1:], ids[i%benchIDs])
			v, closer, err := s.DB().Get(k[:])
			if err != nil {
				b.Fatal(err)
			}
			n := int64(binary.BigEndian.Uint64(v))
			_ = closer.Close()
			if n == 0 {
				b.Fatal(n)
			}
		})
	})
}

func BenchmarkGetLink(b *testing.B) {
	s, links := loadedStore(b)
	ctx := context.Background()
	ids := drawIDs(4)
	for i := range ids {
		ids[i] = int64(int(ids[i]) * 7919 % len(links))
	}
	cpuLoop(b, func(i int) {
		l := &links[ids[i%benchIDs]]
		if _, found, err := s.GetLink(ctx, l.ID1, l.LinkType, l.ID2); err != nil || !found {
			b.Fatal(err, found)
		}
	})
}

// BenchmarkMultigetLinks reads 3 id2s of an id1, one of them absent.
func BenchmarkMultigetLinks(b *testing.B) {
	s, _ := loadedStore(b)
	ctx := context.Background()
	ids := drawIDs(5)
	var dst []store.Link
	var id2s [3]int64
	cpuLoop(b, func(i int) {
		id1 := ids[i%benchIDs]
		id2s = [3]int64{id1 * 100, id1*100 + 50, id1 * 100}
		var err error
		if dst, err = s.MultigetLinks(ctx, id1, benchType, id2s[:], dst[:0]); err != nil || len(dst) != 1 {
			b.Fatal(err, len(dst))
		}
	})
}

// The writes run with WAL sync off (the CPU of a write; sync=on adds the
// disk's fsync latency, shared by concurrent writers): the store's own
// graph, whose links they change.

// BenchmarkAddLink inserts new links into random lists: read of the link
// row and the count row, a batch of 3 writes.
func BenchmarkAddLink(b *testing.B) {
	s, _ := loadedStore(b)
	ctx := context.Background()
	ids := drawIDs(6)
	next := int64(1 << 40)
	b.Run("store", func(b *testing.B) {
		cpuLoop(b, func(i int) {
			next++
			l := store.Link{ID1: ids[i%benchIDs], LinkType: benchType, ID2: next, Visibility: store.VisibilityDefault, Data: payload, Time: next}
			if r, err := s.AddLink(ctx, l, true); err != nil || r != store.LinkInsert {
				b.Fatal(err, r)
			}
		})
	})
	b.Run("raw", func(b *testing.B) {
		db := s.DB()
		var pk [25]byte
		var ik [34]byte
		var ck [17]byte
		pk[0], ik[0], ck[0] = 'L', 'I', 'C'
		var val []byte
		cpuLoop(b, func(i int) {
			next++
			id1 := ids[i%benchIDs]
			rawInt(pk[1:], id1)
			rawInt(pk[9:], benchType)
			rawInt(pk[17:], next)
			if _, _, err := db.Get(pk[:]); !errors.Is(err, pebble.ErrNotFound) {
				b.Fatal(err)
			}
			copy(ck[1:], pk[1:17])
			v, closer, err := db.Get(ck[:])
			if err != nil {
				b.Fatal(err)
			}
			count := binary.BigEndian.Uint64(v) + 1
			_ = closer.Close()
			batch := db.NewBatch()
			val = append(val[:0], 1, 0, 0, 0, 0)
			val = binary.BigEndian.AppendUint64(val, uint64(next))
			val = append(val, payload...)
			_ = batch.Set(pk[:], val, nil)
			copy(ik[1:], pk[1:17])
			ik[17] = 1
			binary.BigEndian.PutUint64(ik[18:], ^(uint64(next) ^ 1<<63))
			copy(ik[26:], pk[17:])
			_ = batch.Set(ik[:], append(val[:0:0], append([]byte{0, 0, 0, 0}, payload...)...), nil)
			val = binary.BigEndian.AppendUint64(val[:0], count)
			val = binary.BigEndian.AppendUint64(val, uint64(next))
			val = binary.BigEndian.AppendUint64(val, count)
			_ = batch.Set(ck[:], val, nil)
			if err := db.Apply(batch, pebble.NoSync); err != nil {
				b.Fatal(err)
			}
			_ = batch.Close()
		})
	})
}

// timeShift makes every UpdateLink of the benchmarks change the time.
var timeShift atomic.Int64

// BenchmarkUpdateLink moves existing links to a new time: the index
// entry is replaced.
func BenchmarkUpdateLink(b *testing.B) {
	s, links := loadedStore(b)
	ctx := context.Background()
	ids := drawIDs(7)
	cpuLoop(b, func(i int) {
		l := links[int(ids[i%benchIDs])*7919%len(links)]
		l.Time += timeShift.Add(1) // never the stored time, whatever ran before
		if r, err := s.UpdateLink(ctx, l, true); err != nil || r != store.LinkUpdate {
			b.Fatal(err, r)
		}
	})
}

// BenchmarkDeleteLink hides links, and shows them again (UpdateLink),
// one call of each per two iterations.
func BenchmarkDeleteLink(b *testing.B) {
	s, links := loadedStore(b)
	ctx := context.Background()
	ids := drawIDs(8)
	cpuLoop(b, func(i int) {
		l := links[int(ids[i/2%benchIDs])*7919%len(links)]
		var err error
		if i%2 == 0 {
			_, err = s.DeleteLink(ctx, l.ID1, l.LinkType, l.ID2, true, false)
		} else {
			_, err = s.UpdateLink(ctx, l, true)
		}
		if err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkAddNode(b *testing.B) {
	s, _ := loadedStore(b)
	ctx := context.Background()
	n := store.Node{Type: store.DefaultNodeType + 1, Version: 1, Time: 1, Data: make([]byte, 128)}
	cpuLoop(b, func(int) {
		if _, err := s.AddNode(ctx, n); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkUpdateNode(b *testing.B) {
	s, _ := loadedStore(b)
	ctx := context.Background()
	ids := drawIDs(9)
	n := store.Node{Type: store.DefaultNodeType, Version: 2, Time: 2, Data: make([]byte, 128)}
	cpuLoop(b, func(i int) {
		n.ID = ids[i%benchIDs]
		if found, err := s.UpdateNode(ctx, n); err != nil || !found {
			b.Fatal(err, found)
		}
	})
}

// BenchmarkAddLinkSync is BenchmarkAddLink/store with WAL sync on, from 4
// goroutines (Pebble syncs their batches together): the latency of a
// durable write on this disk.
func BenchmarkAddLinkSync(b *testing.B) {
	ctx := context.Background()
	s, err := pebblestore.Open(ctx, pebblestore.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var next atomic.Int64
	b.SetParallelism(2) // 2 x GOMAXPROCS goroutines
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := next.Add(1)
			if _, err := s.AddLink(ctx, store.Link{ID1: id % 1000, LinkType: 1, ID2: id, Visibility: 1, Data: payload, Time: id}, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
