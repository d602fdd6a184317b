package stats

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
	"unsafe"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// pagedValues returns values spread over many decades of highest, with
// the edges of hdrhistogram-go's buckets (0, 1, powers of two and their
// neighbours, highest itself).
func pagedValues(rng *rand.Rand, highest int64) []int64 {
	var vs []int64
	for i := range 4000 {
		// Log-uniform over 0 .. highest, then some near a typical latency.
		v := int64(math.Exp(rng.Float64() * math.Log(float64(highest))))
		if i%2 == 0 {
			v = int64(math.Exp(rng.NormFloat64()*1.5 + math.Log(1e6)))
		}
		vs = append(vs, min(max(v, 0), highest))
	}
	for s := 0; s < 63 && int64(1)<<s <= highest; s++ {
		p := int64(1) << s
		vs = append(vs, p-1, p, min(p+1, highest))
	}
	return append(vs, 0, 1, highest)
}

// bars returns a dense histogram's populated buckets as hdrhistogram-go's
// Distribution gives them.
func bars(h *hdr.Histogram) [][3]int64 {
	var out [][3]int64
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			out = append(out, [3]int64{b.From, b.To, b.Count})
		}
	}
	return out
}

func collect(b bucketSeq) [][3]int64 {
	var out [][3]int64
	b(func(lo, hi, n int64) bool {
		out = append(out, [3]int64{lo, hi, n})
		return true
	})
	return out
}

func sameBars(t *testing.T, what string, got, want [][3]int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d buckets, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: bucket %d = %v (lo, hi, count), want %v", what, i, got[i], want[i])
		}
	}
}

// A paged histogram holds the counts a dense hdrhistogram-go histogram of
// the same significant digits holds for the same values, at the same
// indexes, with the same equivalent ranges, for every precision the
// options allow.
func TestPagedHistMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, highest := range []int64{100_000_000, 3_600_000_000_000, MaxHighestUs * 1000} {
		for sf := 1; sf <= 5; sf++ {
			if sf > 3 && highest > 100_000_000 {
				continue // dense histograms of 4 or 5 digits over many decades are large and slow to walk
			}
			d := hdr.New(1, highest, sf)
			p := newPagedHist(sf)
			for _, v := range pagedValues(rng, highest) {
				if err := d.RecordValue(v); err != nil {
					t.Fatal(err)
				}
				p.record(v)
			}
			if !p.dense(highest, sf).Equals(d) {
				t.Fatalf("highest %d sf %d: the paged histogram's counts differ from the dense one's", highest, sf)
			}
			sameBars(t, "paged", collect(p.buckets), bars(d))
			sameBars(t, "dense", collect(denseBuckets(d)), bars(d))

			// add: two halves make the whole.
			a, b := newPagedHist(sf), newPagedHist(sf)
			for i, v := range pagedValues(rng, highest) {
				if i%2 == 0 {
					a.record(v)
				} else {
					b.record(v)
				}
				p.record(v)
				_ = d.RecordValue(v)
			}
			a.add(b)
			whole := newPagedHist(sf)
			whole.add(p)
			p.reset()
			if p.total != 0 || len(collect(p.buckets)) != 0 {
				t.Fatalf("reset left %d values", p.total)
			}
			sameBars(t, "copy", collect(whole.buckets), bars(d))
			if whole.total != d.TotalCount() {
				t.Fatalf("total %d, want %d", whole.total, d.TotalCount())
			}
		}
	}
}

// denseBuckets also holds for histograms of another lowest discernible
// value (results.Merge digests histograms read from any HDR log).
func TestDenseBucketsOtherGeometry(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, lowest := range []int64{1, 2, 1000, 1024, 12345} {
		for sf := 1; sf <= 4; sf++ {
			d := hdr.New(lowest, 1<<40, sf)
			for _, v := range pagedValues(rng, 1<<40) {
				_ = d.RecordValue(v)
			}
			sameBars(t, "dense", collect(denseBuckets(d)), bars(d))
		}
	}
}

// distributionQuantiles is quantiles as it was computed before paged
// histograms, from Histogram.Distribution: the reference the summaries
// must match to the last bit.
func distributionQuantiles(h *hdr.Histogram, ps []float64, out []int64) (count, lo, hi int64, mean float64) {
	count = h.TotalCount()
	ranks := make([]int64, len(ps))
	for i, p := range ps {
		ranks[i] = percentileRank(p, count)
	}
	var cum int64
	var sum float64
	next, first := 0, true
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		if first {
			lo, first = b.From, false
		}
		hi = b.To
		sum += float64(b.From+(b.To-b.From+1)>>1) * float64(b.Count)
		cum += b.Count
		for next < len(ranks) && cum >= ranks[next] {
			out[next] = b.To
			next++
		}
	}
	return count, lo, hi, sum / float64(count)
}

// The summaries of paged and dense histograms are the ones Distribution
// gave, bit for bit: every printed figure is unchanged.
func TestPagedSummariesUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 2, 5, 100, 10000} {
		for _, unit := range []time.Duration{time.Nanosecond, time.Microsecond} {
			d := hdr.New(1, DefaultHighestUs*int64(time.Microsecond/unit), 3)
			p := newPagedHist(3)
			for range n {
				v := int64(math.Exp(rng.NormFloat64()*2+math.Log(5e5))) / int64(unit)
				_ = d.RecordValue(v)
				p.record(v)
			}
			var ref [len(summaryPercentiles)]int64
			c, lo, hi, mean := distributionQuantiles(d, summaryPercentiles[:], ref[:])
			want := summaryOf(unit, ref, c, lo, hi, mean)
			if got := summarize(d, unit); got != want {
				t.Errorf("n=%d unit %v: dense summary %+v, want %+v", n, unit, got, want)
			}
			if got := summarizePaged(p, unit); got != want {
				t.Errorf("n=%d unit %v: paged summary %+v, want %+v", n, unit, got, want)
			}
		}
	}
}

// collectorHistBytes is the memory of the counts of op's histograms in
// every stripe of c.
func collectorHistBytes(c *Collector, op Op) int {
	n := 0
	for i := range c.stripes {
		h := c.stripes[i].ops[op]
		if h == nil {
			continue
		}
		for _, p := range []*pagedHist{h.lat, h.errLat, h.svc, h.ival, h.ivalEr} {
			if p != nil {
				n += p.bytes()
			}
		}
	}
	return n
}

// A collector's histograms are sized to what is recorded: row counts of
// 1..10000 and latencies of 100 us .. 100 ms (default options: 1 ns .. 1 h
// at 3 digits, whose dense histogram takes 264 KiB, and 36 KiB for the
// interval's at 2 digits) take a fraction of that.
func TestCollectorHistogramsSizedToValues(t *testing.T) {
	c, err := NewCollector(Options{Stripes: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := c.NewRecorder()
	rng := rand.New(rand.NewPCG(13, 14))
	for range 100_000 {
		r.RecordSize(RangeSize, 1+rng.Int64N(10_000))
		d := time.Duration(math.Exp(math.Log(100e3) + rng.Float64()*math.Log(1000)))
		r.Record(GetNode, Success, d)
	}
	r.Flush()
	dense := Options{}.HistogramBytes() + Options{SigFigs: IntervalSigFigs}.HistogramBytes()
	if got := collectorHistBytes(c, RangeSize); got > 64<<10 {
		t.Errorf("RANGE_SIZE of 1..10000 rows: histograms of %d bytes, want <= 64 KiB (dense: %d)", got, dense)
	}
	t.Logf("RANGE_SIZE %d bytes, GET_NODE %d bytes, dense %d bytes", collectorHistBytes(c, RangeSize), collectorHistBytes(c, GetNode), dense)
	if got := collectorHistBytes(c, GetNode); got > 128<<10 {
		t.Errorf("GET_NODE of 100 us .. 100 ms: histograms of %d bytes, want <= 128 KiB (dense: %d)", got, dense)
	}
	if got := collectorHistBytes(c, AddLink); got != 0 {
		t.Errorf("ADD_LINK, never recorded: %d bytes", got)
	}
	// The report is what it was: the values' summaries.
	rep := c.Report(PhaseRequest)
	o, _ := rep.Op(GetNode)
	if o.Latency.Count != 100_000 || o.Latency.Min < 99 || o.Latency.Max > 100_100 {
		t.Errorf("GET_NODE latency %+v", o.Latency)
	}
}

// Recording into a paged histogram allocates only a page's first value.
func TestPagedHistRecordAllocs(t *testing.T) {
	p := newPagedHist(3)
	p.record(1_000_000)
	allocs := testing.AllocsPerRun(1000, func() { p.record(1_000_001) })
	if allocs != 0 {
		t.Errorf("%v allocations per record into an allocated page", allocs)
	}
}

// bytesPerRun returns the bytes f allocates per call, on average over n
// calls.
func bytesPerRun(n int, f func()) float64 {
	var a, b runtime.MemStats
	f() // warm up
	runtime.GC()
	runtime.ReadMemStats(&a)
	for range n {
		f()
	}
	runtime.ReadMemStats(&b)
	return float64(b.TotalAlloc-a.TotalAlloc) / float64(n)
}

// An interval's p99, taken every second for the progress lines and the
// result files, reads the populated buckets only: Histogram.Distribution
// made a bar of every bucket up to the largest value (tens of KB per op
// per second).
func TestIntervalQuantileAllocatesLittle(t *testing.T) {
	c, err := NewCollector(Options{Stripes: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := c.NewRecorder()
	for i := range 1000 {
		r.Record(GetNode, Success, time.Duration(200_000+i*100))
	}
	r.Flush()
	iv := c.Interval()
	o, ok := iv.Op(GetNode)
	if !ok {
		t.Fatal("no GET_NODE in the interval")
	}
	got := bytesPerRun(100, func() { _, _ = o.Quantile(0.99) })
	dist := bytesPerRun(100, func() { _ = o.Hist.Distribution() })
	t.Logf("Quantile: %.0f bytes per call; Distribution: %.0f", got, dist)
	if got > 16<<10 {
		t.Errorf("IntervalOp.Quantile allocates %.0f bytes per call, want <= 16 KiB (Distribution: %.0f)", got, dist)
	}
}

// TestWrittenStateApart: a Recorder (written per value) and a stripe's
// histograms and counts (written per flushed value) start and end with 128
// bytes nothing writes, or are 128 bytes of their own, so that another
// worker's, allocated next to them, never shares their lines (false
// sharing).
func TestWrittenStateApart(t *testing.T) {
	var r Recorder
	if off := unsafe.Offsetof(r.c); off < 128 {
		t.Errorf("Recorder: first field at offset %d, want >= 128", off)
	}
	if tail := unsafe.Sizeof(r) - (unsafe.Offsetof(r.scratch) + unsafe.Sizeof(r.scratch)); tail < 128 {
		t.Errorf("Recorder: %d bytes after its last field, want >= 128", tail)
	}
	var h opHists
	if tail := unsafe.Sizeof(h) - (unsafe.Offsetof(h.ivalClasses) + unsafe.Sizeof(h.ivalClasses)); tail < 128 {
		t.Errorf("opHists: %d bytes after its last field, want >= 128", tail)
	}
	if n := unsafe.Sizeof(pagedHist{}); n != 128 {
		t.Errorf("pagedHist: %d bytes, want 128 (a size class of its own lines)", n)
	}
}
