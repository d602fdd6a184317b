package memstore_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// Benchmark shapes. LinkBench's real out-degree gives the hottest id1
// about 4.2 M links, 2.1 M per link type (reference §11.1 item 5), loaded
// in batches of bulk_insert_count = 1024 (reference §2.3); payloads have
// median link_datasize = 23 bytes in MD's workload (reference §4.5).
const (
	hotLinks    = 2_100_000
	bulkBatch   = 1024
	payloadSize = 23
	hotID1      = 1
	loadTime    = int64(1_700_000_000_000) - 1<<31 // load-phase times: now - 2^31 + nextInt() ms (reference §11.1 item 8)
)

var payload = make([]byte, payloadSize)

// hotTimes returns the load times of the hot list's links, in random
// order, as LinkBench's loader draws them.
func hotTimes(n int) []int64 {
	rng := rand.New(rand.NewPCG(1, 1))
	t := make([]int64, n)
	for i := range t {
		t[i] = loadTime + int64(rng.Uint32()>>1)
	}
	return t
}

// bulkLoad loads n links of (id1, DefaultLinkType) with id2 0..n-1 and the
// given times in batches of bulkBatch.
func bulkLoad(s *memstore.Store, id1 int64, times []int64) {
	ctx := context.Background()
	batch := make([]store.Link, 0, bulkBatch)
	for i, t := range times {
		batch = append(batch, store.Link{ID1: id1, LinkType: store.DefaultLinkType, ID2: int64(i),
			Visibility: store.VisibilityDefault, Data: payload, Time: t})
		if len(batch) == bulkBatch || i == len(times)-1 {
			if err := s.AddBulkLinks(ctx, batch, true); err != nil {
				panic(err) // memstore fails only when ctx is cancelled or the store closed
			}
			batch = batch[:0]
		}
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkBulkLoadHotList loads 2.1 M links into one (id1, link_type) in
// batches of 1024, in random time order. Metrics: ns/link and the heap
// bytes/link the loaded store retains (23-byte payloads included).
func BenchmarkBulkLoadHotList(b *testing.B) {
	times := hotTimes(hotLinks)
	b.ReportAllocs()
	var bytesPerLink float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		before := heapInUse()
		s := memstore.New()
		b.StartTimer()
		bulkLoad(s, hotID1, times)
		b.StopTimer()
		bytesPerLink = float64(heapInUse()-before) / hotLinks
		if n, _ := s.CountLinks(context.Background(), hotID1, store.DefaultLinkType); n != hotLinks {
			b.Fatalf("count %d, want %d", n, hotLinks)
		}
		runtime.KeepAlive(s)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/hotLinks, "ns/link")
	b.ReportMetric(bytesPerLink, "bytes/link")
}

// smallListLinks is the size of BenchmarkBulkLoadSmallLists: 1 M links in
// lists of 1, 2 and 3 links (2 on average), the shape of most of a
// LinkBench graph.
const smallListLinks = 1_000_000

// BenchmarkBulkLoadSmallLists loads 1 M links in 500 k lists of 1-3 links,
// batches of 1024 as LinkBench's loader sends them (consecutive id1s).
// Metrics: ns/link and retained heap bytes/link (23-byte payloads
// included).
func BenchmarkBulkLoadSmallLists(b *testing.B) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(2, 2))
	links := make([]store.Link, 0, smallListLinks)
	for id1 := int64(1); len(links) < smallListLinks; id1++ {
		for k := range 1 + id1%3 {
			links = append(links, store.Link{ID1: id1, LinkType: store.DefaultLinkType, ID2: id1*7 + k,
				Visibility: store.VisibilityDefault, Data: payload, Time: loadTime + int64(rng.Uint32()>>1)})
		}
	}
	b.ReportAllocs()
	var bytesPerLink float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		before := heapInUse()
		s := memstore.New()
		b.StartTimer()
		for j := 0; j < len(links); j += bulkBatch {
			if err := s.AddBulkLinks(ctx, links[j:min(j+bulkBatch, len(links))], true); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		bytesPerLink = float64(heapInUse()-before) / float64(len(links))
		runtime.KeepAlive(s)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(links)), "ns/link")
	b.ReportMetric(bytesPerLink, "bytes/link")
}

// hotStore is a store holding the 2 M-link hot list (id1 hotID1) and 100 k
// small lists (id1 1000.., 1-3 links each), built once per process.
var hotStore = sync.OnceValue(func() *memstore.Store {
	s := memstore.New()
	bulkLoad(s, hotID1, hotTimes(2_000_000))
	ctx := context.Background()
	var batch []store.Link
	for id1 := int64(smallBase); id1 < smallBase+smallLists; id1++ {
		for k := range 1 + id1%3 {
			batch = append(batch, store.Link{ID1: id1, LinkType: store.DefaultLinkType, ID2: k,
				Visibility: store.VisibilityDefault, Data: payload, Time: loadTime + id1})
		}
		if len(batch) >= bulkBatch {
			_ = s.AddBulkLinks(ctx, batch, true)
			batch = batch[:0]
		}
	}
	_ = s.AddBulkLinks(ctx, batch, true)
	return s
})

const (
	smallBase  = 1000
	smallLists = 100_000
)

// BenchmarkAddLinkHotList adds new links to the 2 M-link list: "Newest"
// with increasing times (request-phase links are the newest of their
// list), "RandomTime" at random positions.
func BenchmarkAddLinkHotList(b *testing.B) {
	ctx := context.Background()
	for _, mode := range []string{"Newest", "RandomTime"} {
		b.Run(mode, func(b *testing.B) {
			s := memstore.New()
			bulkLoad(s, hotID1, hotTimes(2_000_000))
			rng := rand.New(rand.NewPCG(3, 3))
			l := store.Link{ID1: hotID1, LinkType: store.DefaultLinkType, Visibility: store.VisibilityDefault, Data: payload}
			id2 := int64(10_000_000)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				id2++
				l.ID2 = id2
				if mode == "Newest" {
					l.Time = 1_700_000_000_000 + id2
				} else {
					l.Time = loadTime + int64(rng.Uint32()>>1)
				}
				if _, err := s.AddLink(ctx, l, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGetLinkListHotList queries the 2 M-link list: the plain list
// (limit 10000), the same after skipping one link, a page deep into the
// list (offset 1 M, limit 10) and a time window in its middle (limit 10).
// dst is reused, so no call allocates.
func BenchmarkGetLinkListHotList(b *testing.B) {
	s := hotStore()
	ctx := context.Background()
	full := store.FullRange(hotID1, store.DefaultLinkType)
	offset1 := full
	offset1.Offset = 1
	deep := full
	deep.Offset, deep.Limit = 1_000_000, 10
	window := full
	window.MaxTime, window.Limit = loadTime+1<<30, 10
	for _, c := range []struct {
		name string
		r    store.LinkRange
		want int
	}{{"Limit10000", full, 10000}, {"Offset1Limit10000", offset1, 10000}, {"Offset1MLimit10", deep, 10}, {"TimeWindowLimit10", window, 10}} {
		b.Run(c.name, func(b *testing.B) {
			dst, _ := s.GetLinkList(ctx, c.r, nil)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				dst, _ = s.GetLinkList(ctx, c.r, dst[:0])
			}
			if len(dst) != c.want {
				b.Fatalf("%d links, want %d", len(dst), c.want)
			}
		})
	}
}

// BenchmarkGetLink reads single links: from 100 k small lists (random
// id1) and from the 2 M-link list (random id2). Each hit allocates its
// 23-byte payload copy.
func BenchmarkGetLink(b *testing.B) {
	s := hotStore()
	ctx := context.Background()
	b.Run("SmallLists", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(4, 4))
		b.ReportAllocs()
		for b.Loop() {
			id1 := smallBase + rng.Int64N(smallLists)
			if _, found, _ := s.GetLink(ctx, id1, store.DefaultLinkType, 0); !found {
				b.Fatal("miss")
			}
		}
	})
	b.Run("HotList", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(5, 5))
		b.ReportAllocs()
		for b.Loop() {
			if _, found, _ := s.GetLink(ctx, hotID1, store.DefaultLinkType, rng.Int64N(2_000_000)); !found {
				b.Fatal("miss")
			}
		}
	})
}

// BenchmarkMixedParallel runs a LinkBench-like link mix from parallel
// goroutines (GOMAXPROCS of them): 51 % GetLinkList (limit 10000), 12 %
// GetLink, 9 % AddLink, 15 % UpdateLink (which also unhides), 5 %
// CountLinks, 5 % MultigetLinks (3 ids), 3 % DeleteLink (hide) on id2s
// 0..3; id1 Zipf-distributed (s = 1.1) over 100 k small lists, and one
// request in 10^4 on the 2 M-link list.
func BenchmarkMixedParallel(b *testing.B) {
	s := hotStore()
	ctx := context.Background()
	var seed atomic.Uint64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewPCG(seed.Add(1), 6))
		zipf := rand.NewZipf(rng, 1.1, 1, smallLists-1)
		dst := make([]store.Link, 0, 16)
		ids := make([]int64, 3)
		var clock int64
		for pb.Next() {
			id1 := smallBase + int64(zipf.Uint64())
			if rng.IntN(10_000) == 0 {
				id1 = hotID1
			}
			lt := store.DefaultLinkType
			id2 := rng.Int64N(4)
			clock++
			l := store.Link{ID1: id1, LinkType: lt, ID2: id2, Visibility: store.VisibilityDefault, Data: payload, Time: 1_700_000_000_000 + clock}
			var err error
			switch op := rng.IntN(100); {
			case op < 51:
				dst, err = s.GetLinkList(ctx, store.FullRange(id1, lt), dst[:0])
			case op < 63:
				_, _, err = s.GetLink(ctx, id1, lt, id2)
			case op < 72:
				_, err = s.AddLink(ctx, l, true)
			case op < 87:
				_, err = s.UpdateLink(ctx, l, true)
			case op < 92:
				_, err = s.CountLinks(ctx, id1, lt)
			case op < 97:
				ids[0], ids[1], ids[2] = id2, rng.Int64N(4), rng.Int64N(4)
				dst, err = s.MultigetLinks(ctx, id1, lt, ids, dst[:0])
			default:
				_, err = s.DeleteLink(ctx, id1, lt, id2, true, false)
			}
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}
