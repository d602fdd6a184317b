package stats

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestCollectorConcurrent: many recorders of one collector, recording
// concurrently, lose nothing (run it under -race).
func TestCollectorConcurrent(t *testing.T) {
	c, err := NewCollector(Options{})
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 32, 5000
	var wg sync.WaitGroup
	for w := range workers {
		r := c.NewRecorder()
		wg.Go(func() {
			for i := range each {
				o := Success
				switch i % 10 {
				case 0:
					o = Miss
				case 1:
					r.RecordError(GetNode, "transient", time.Duration(i)*time.Microsecond)
					continue
				case 2:
					r.RecordAbandoned(GetNode, time.Second)
					continue
				}
				r.Record(GetNode, o, time.Duration(w*each+i)*time.Nanosecond)
			}
		})
	}
	// Intervals may be taken while the workers record; their outcomes
	// and error classes add up to the report's.
	var ivCount int64
	var all Interval
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 20 {
			iv := c.Interval()
			ivCount += iv.Requests0()
			all = all.Merge(iv)
			runtime.Gosched()
		}
	}()
	wg.Wait()
	<-done
	defer func() {
		all = all.Merge(c.FinalInterval())
		n := int64(workers * each)
		g, _ := all.Op(GetNode)
		if g.Count != n || g.Misses != n/10 || g.Errors != n/10 || g.Abandoned != n/10 ||
			g.ErrHist.TotalCount() != n/10 || len(g.ErrorClasses) != 1 || g.ErrorClasses[0] != (Counter{"transient", n / 10}) {
			t.Errorf("intervals: %d calls, %d misses, %d errors (%d in their histogram, classes %v), %d abandoned; want %d, a tenth each missed, failed and abandoned",
				g.Count, g.Misses, g.Errors, g.ErrHist.TotalCount(), g.ErrorClasses, g.Abandoned, n)
		}
	}()
	rep := c.Report(PhaseRequest)
	o, ok := rep.Op(GetNode)
	if !ok {
		t.Fatal("no GET_NODE")
	}
	n := int64(workers * each)
	if o.Count() != n || o.Misses != n/10 || o.Errors != n/10 || o.Abandoned != n/10 || o.Successes != n-3*n/10 {
		t.Errorf("counts %+v, want %d calls, a tenth each missed, failed and abandoned", o, n)
	}
	if o.Latency.Count != n-n/10 || o.ErrorLatency.Count != n/10 {
		t.Errorf("histogram counts %d and %d", o.Latency.Count, o.ErrorLatency.Count)
	}
	if len(rep.ErrorClasses) != 1 || rep.ErrorClasses[0] != (Counter{"transient", n / 10}) {
		t.Errorf("error classes %v", rep.ErrorClasses)
	}
	if rep.Threads != workers {
		t.Errorf("threads %d", rep.Threads)
	}
	// The remaining interval holds what the earlier ones did not.
	last := c.Interval()
	all = all.Merge(last)
	if got := ivCount + last.Requests0(); got != n {
		t.Errorf("intervals hold %d calls, want %d", got, n)
	}
}

// Requests0 is Requests' call count (a test helper).
func (iv Interval) Requests0() int64 { n, _ := iv.Requests(); return n }

// TestSubMicrosecond: an operation of 300 ns reads 300 ns (not 0), in
// Quantile and, as 0.3 us, in the Summary.
func TestSubMicrosecond(t *testing.T) {
	c, _ := NewCollector(Options{})
	r := c.NewRecorder()
	for range 100 {
		r.Record(GetNode, Success, 300*time.Nanosecond)
	}
	rep := c.Report(PhaseRequest)
	if q, ok := rep.Quantile(GetNode, 0.5); q != 300*time.Nanosecond || !ok {
		t.Errorf("median %v, %v, want 300ns", q, ok)
	}
	if o, _ := rep.Op(GetNode); o.Latency.P50 != 0.3 || o.Latency.Max != 0.3 {
		t.Errorf("summary %+v, want 0.3 us", o.Latency)
	}
	// Microsecond resolution, LinkBench's, reads 0.
	cu, _ := NewCollector(Options{Unit: time.Microsecond})
	ru := cu.NewRecorder()
	ru.Record(GetNode, Success, 300*time.Nanosecond)
	if q, ok := cu.Report(PhaseRequest).Quantile(GetNode, 0.5); q != 0 || !ok {
		t.Errorf("microsecond unit: median %v, %v, want 0 (measured)", q, ok)
	}
}

// TestAbandonedInLatency: an abandoned call counts apart and its age shows
// in the percentiles and the maximum.
func TestAbandonedInLatency(t *testing.T) {
	c, _ := NewCollector(Options{})
	r := c.NewRecorder()
	for range 98 {
		r.Record(UpdateLink, Success, 100*time.Microsecond)
	}
	r.RecordAbandoned(UpdateLink, 5*time.Second)
	r.RecordAbandoned(UpdateLink, 5*time.Second)
	rep := c.Report(PhaseRequest)
	o, _ := rep.Op(UpdateLink)
	if o.Abandoned != 2 || o.Count() != 100 {
		t.Errorf("abandoned %d of %d", o.Abandoned, o.Count())
	}
	if p, _ := rep.Quantile(UpdateLink, 0.99); p < 5*time.Second {
		t.Errorf("p99 %v does not show the abandoned calls' 5 s", p)
	}
	if o.Latency.Max < 5e6 {
		t.Errorf("max %v us", o.Latency.Max)
	}
}

// TestIntervalResets: Interval returns what was recorded since the last
// call, with its percentiles.
func TestIntervalResets(t *testing.T) {
	c, _ := NewCollector(Options{})
	r := c.NewRecorder()
	for i := range 1000 {
		r.Record(GetNode, Success, time.Duration(i+1)*time.Microsecond)
	}
	r.RecordError(GetNode, "x", time.Millisecond)
	iv := c.Interval()
	// Values still queued in the recorder move at its next record.
	r.Record(AddNode, Success, time.Millisecond)
	iv2 := c.Interval()
	got := func(iv Interval) int64 {
		o, _ := iv.Op(GetNode)
		return o.Count
	}
	if got(iv)+got(iv2) != 1001 {
		t.Fatalf("intervals hold %d + %d GET_NODE", got(iv), got(iv2))
	}
	if o, ok := iv2.Op(GetNode); ok {
		if q, ok := o.Quantile(0.5); q == 0 || !ok {
			t.Errorf("interval median %v, %v", q, ok)
		}
	}
	if iv3 := c.Interval(); len(iv3.Ops) != 0 {
		t.Errorf("an empty interval has %v", iv3.Ops)
	}
	if !iv2.End.After(iv.End) && !iv2.End.Equal(iv.End) {
		t.Errorf("interval ends %v then %v", iv.End, iv2.End)
	}
}

// BenchmarkCollectorMemory reports the heap a collector with 1000
// recorders (one per requester) holds after every request operation was
// recorded, with the -csvstream statistics on: the memory does not grow
// with the histograms of every worker.
func BenchmarkCollectorMemory(b *testing.B) {
	for b.Loop() {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		c, _ := NewCollector(Options{Interval: true})
		recs := make([]*Recorder, 1000)
		for i := range recs {
			recs[i] = c.NewRecorder()
			for op := range GetLinksList + 1 {
				for k := range 50 {
					recs[i].Record(op, Success, time.Duration(200+k*37)*time.Nanosecond)
				}
			}
			recs[i].RecordSize(RangeSize, 7)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/(1<<20), "MiB")
		runtime.KeepAlive(recs)
	}
}

// TestFinalIntervalFlushes: the last interval holds the values still
// queued in the recorders, so the intervals add up to the report.
func TestFinalIntervalFlushes(t *testing.T) {
	c, _ := NewCollector(Options{})
	r := c.NewRecorder()
	for range 5 { // fewer than a batch: all still queued
		r.Record(LoadNodeBulk, Success, time.Millisecond)
	}
	iv := c.FinalInterval()
	o, _ := iv.Op(LoadNodeBulk)
	rep := c.Report(PhaseLoad)
	var want int64
	for _, ro := range rep.Ops {
		if ro.Op == LoadNodeBulk {
			want = ro.Count()
		}
	}
	if o.Count != 5 || want != 5 {
		t.Fatalf("final interval holds %d LOAD_NODE_BULK, report %d; want 5", o.Count, want)
	}
}
