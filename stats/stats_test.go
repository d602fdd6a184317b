package stats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// us is v microseconds.
func us(v int64) time.Duration { return time.Duration(v) * time.Microsecond }

// newRec returns a recorder of a collector of its own; with o.Unit unset it
// uses microseconds, LinkBench's unit, in which the golden values of the
// reference are given.
func newRec(t testing.TB, o Options) *Recorder {
	t.Helper()
	if o.Unit == 0 {
		o.Unit = time.Microsecond
	}
	r, err := NewRecorder(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func merge(t testing.TB, phase Phase, recs ...*Recorder) *Report {
	t.Helper()
	rep, err := Merge(phase, recs)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// goldenGetNode is the GET_NODE input of reference §10.2 "Output formats".
var goldenGetNode = []int64{150, 250, 250, 1500, 2500, 3500, 12000, 150000, 1500000, 20000000}

const (
	goldenHDRLine = "GET_NODE count = 10  p25 = 250us  p50 = 2501us  p75 = 150015us  p95 = 20004863us  p99 = 20004863us  max = 20004863us mean = 2166642.800us threads = 2"
	goldenCSVRow  = "GET_NODE,10,250,2501,150015,20004863,20004863,20004863,2166642.8,2"
)

// goldenReport records the §10.2 GET_NODE values in two recorders (HDR with
// 3 digits, max 10^8) and merges them.
func goldenReport(t *testing.T) *Report {
	a := newRec(t, Options{HighestUs: 1e8, SigFigs: 3})
	b := newRec(t, Options{HighestUs: 1e8, SigFigs: 3})
	for i, v := range goldenGetNode {
		[]*Recorder{a, b}[i%2].Record(GetNode, Success, us(v))
	}
	return merge(t, PhaseRequest, a, b)
}

func TestGoldenHDRLineAndCSV(t *testing.T) {
	rep := goldenReport(t)
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(buf.String(), "\n"); lines[0] != goldenHDRLine {
		t.Errorf("HDR line:\n got %q\nwant %q", lines[0], goldenHDRLine)
	}
	buf.Reset()
	if err := rep.WriteCSV(&buf, true); err != nil {
		t.Fatal(err)
	}
	want := "op,count,p25 (us),p50 (us),p75 (us),p95 (us),p99 (us),max (us),mean (us),threads\n" + goldenCSVRow + "\n"
	if buf.String() != want {
		t.Errorf("CSV:\n got %q\nwant %q", buf.String(), want)
	}
}

// Reference §10.1 "HDR CSV": Hdr(8 threads, 3 digits, max 100), ADD_LINK
// values 1..100; and the empty cases.
func TestGoldenCSVAddLink(t *testing.T) {
	recs := make([]*Recorder, 8)
	for i := range recs {
		recs[i] = newRec(t, Options{HighestUs: 100, SigFigs: 3})
	}
	for v := int64(1); v <= 100; v++ {
		recs[0].Record(AddLink, Success, us(v))
	}
	rep := merge(t, PhaseRequest, recs...)
	var buf bytes.Buffer
	if err := rep.WriteCSV(&buf, true); err != nil {
		t.Fatal(err)
	}
	want := "op,count,p25 (us),p50 (us),p75 (us),p95 (us),p99 (us),max (us),mean (us),threads\nADD_LINK,100,25,50,75,95,99,100,50.5,8\n"
	if buf.String() != want {
		t.Errorf("CSV:\n got %q\nwant %q", buf.String(), want)
	}

	empty := merge(t, PhaseRequest, newRec(t, Options{}))
	buf.Reset()
	if err := empty.WriteCSV(&buf, true); err != nil {
		t.Fatal(err)
	}
	if buf.String() != csvStatsHeader {
		t.Errorf("empty CSV with header = %q", buf.String())
	}
	buf.Reset()
	if err := empty.WriteCSV(&buf, false); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("empty CSV without header = %q, want nothing", buf.String())
	}
}

// hdrhistogram-go v1.4.0 rounds the percentile rank to nearest where Java
// HdrHistogram takes the ceiling (reference §9.3): p25 of 1..5 is 2 in Java
// (rank ceil(1.25) = 2) and 1 in hdrhistogram-go (rank round(1.25) = 1).
// This pins that difference so an upgrade that changes it is noticed, and
// checks that Summary follows Java. For the §10.2 golden input both agree.
func TestJavaPercentilesDifferFromHdrGo(t *testing.T) {
	h := hdr.New(1, 100, 3)
	for v := int64(1); v <= 5; v++ {
		_ = h.RecordValue(v)
	}
	if got := h.ValueAtPercentile(25); got != 1 {
		t.Errorf("hdrhistogram-go p25 of 1..5 = %d, want 1 (its rule changed: review summary.go)", got)
	}
	if s := summarize(h, time.Microsecond); s.P25 != 2 || s.P50 != 3 || s.P75 != 4 || s.P99 != 5 || s.Min != 1 || s.Max != 5 || s.Mean != 3 {
		t.Errorf("summarize(1..5) = %+v, want Java's p25 2, p50 3, p75 4, p99 5, min 1, max 5, mean 3", s)
	}

	g := hdr.New(1, 1e8, 3)
	for _, v := range goldenGetNode {
		_ = g.RecordValue(v)
	}
	s := summarize(g, time.Microsecond)
	for _, c := range []struct {
		p    float64
		ours float64
	}{{25, s.P25}, {50, s.P50}, {75, s.P75}, {95, s.P95}, {99, s.P99}} {
		if hv := g.ValueAtPercentile(c.p); float64(hv) != c.ours {
			t.Errorf("golden input p%v: hdrhistogram-go %d, ours %v", c.p, hv, c.ours)
		}
	}
	if float64(g.Max()) != s.Max || float64(g.Min()) != s.Min {
		t.Errorf("golden input max/min: hdrhistogram-go %d/%d, ours %v/%v", g.Max(), g.Min(), s.Max, s.Min)
	}
}

// Summary against an independent oracle: values below 2048 are exact in a
// 3-digit histogram, so percentile p must be the sorted value of rank
// max(1, ceil(p·N/100)) computed in integers, and the mean the exact mean.
func TestSummaryAgainstSortedOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 4, 5, 7, 10, 99, 100, 101, 1000, 1001, 12345} {
		h := hdr.New(1, DefaultHighestUs, 3)
		vals := make([]int64, n)
		var sum int64
		for i := range vals {
			vals[i] = rng.Int64N(2048)
			sum += vals[i]
			_ = h.RecordValue(vals[i])
		}
		slices.Sort(vals)
		at := func(num, den int64) float64 { // value at rank ceil(num·N/den)
			r := (num*int64(n) + den - 1) / den
			return float64(vals[max(r, 1)-1])
		}
		want := Summary{
			Count: int64(n),
			P25:   at(25, 100), P50: at(50, 100), P75: at(75, 100), P95: at(95, 100), P99: at(99, 100), P999: at(999, 1000),
			P9999: at(9999, 10000),
			Max:   float64(vals[n-1]), Min: float64(vals[0]), Mean: float64(sum) / float64(n),
		}
		got := summarize(h, time.Microsecond)
		if d := got.Mean - want.Mean; d > 1e-9*want.Mean || d < -1e-9*want.Mean {
			t.Errorf("n=%d: mean %v, want %v", n, got.Mean, want.Mean)
		}
		got.Mean = want.Mean
		if got != want {
			t.Errorf("n=%d:\n got %+v\nwant %+v", n, got, want)
		}
	}
}

// Above 10^SigFigs a percentile is the highest value equivalent to the
// sorted value of Java's rank: equivalent to it, and the next value is not.
func TestSummaryHighestEquivalent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	h := hdr.New(1, DefaultHighestUs, 3)
	vals := make([]int64, 1000)
	for i := range vals {
		vals[i] = 1 + rng.Int64N(DefaultHighestUs)
		_ = h.RecordValue(vals[i])
	}
	slices.Sort(vals)
	s := summarize(h, time.Microsecond)
	for _, c := range []struct {
		name string
		rank int
		got  int64
	}{{"p25", 250, int64(s.P25)}, {"p50", 500, int64(s.P50)}, {"p99", 990, int64(s.P99)}, {"p999", 999, int64(s.P999)}, {"max", 1000, int64(s.Max)}} {
		v := vals[c.rank-1]
		if !h.ValuesAreEquivalent(v, c.got) || h.ValuesAreEquivalent(c.got, c.got+1) {
			t.Errorf("%s = %d, want the highest value equivalent to %d", c.name, c.got, v)
		}
	}
	if m := int64(s.Min); !h.ValuesAreEquivalent(vals[0], m) || h.ValuesAreEquivalent(m, m-1) {
		t.Errorf("min = %v, want the lowest value equivalent to %d", s.Min, vals[0])
	}
}

func TestNewRecorderOptions(t *testing.T) {
	r := newRec(t, Options{})
	if o := r.Options(); o.HighestUs != DefaultHighestUs || o.SigFigs != DefaultSigFigs {
		t.Errorf("defaults = %+v", o)
	}
	for _, o := range []Options{{HighestUs: 1}, {HighestUs: -5}, {SigFigs: 6}, {SigFigs: -1}} {
		if _, err := NewRecorder(o); err == nil {
			t.Errorf("NewRecorder(%+v) succeeded, want an error", o)
		}
	}
	if b := (Options{}).HistogramBytes(); b < 250<<10 || b > 280<<10 {
		t.Errorf("default HistogramBytes = %d, want about 264 KiB (1 ns .. 1 h)", b)
	}
	if b := (Options{Unit: time.Microsecond}).HistogramBytes(); b < 150<<10 || b > 200<<10 {
		t.Errorf("microsecond HistogramBytes = %d, want about 184 KiB", b)
	}
	if _, err := NewRecorder(Options{Unit: time.Millisecond}); err == nil {
		t.Error("NewRecorder with a millisecond unit succeeded")
	}
	if b := (Options{SigFigs: 9}).HistogramBytes(); b != 0 {
		t.Errorf("HistogramBytes of invalid options = %d, want 0", b)
	}
}

func TestClampingCounted(t *testing.T) {
	r := newRec(t, Options{HighestUs: 1000})
	r.Record(GetNode, Success, us(0))    // exact, not clamped
	r.Record(GetNode, Success, us(1000)) // at the bound, not clamped
	r.Record(GetNode, Success, us(5000)) // clamped to 1000
	r.Record(GetNode, Miss, us(-7))      // clamped to 0
	r.Record(GetNode, Error, us(1<<40))  // clamped, error series
	r.RecordService(GetNode, us(2000))   // clamped, service series
	r.RecordSize(RangeSize, 1001)        // clamped
	rep := merge(t, PhaseRequest, r)
	g, ok := rep.Op(GetNode)
	if !ok {
		t.Fatal("no GET_NODE")
	}
	if g.Clamped != 4 || g.Successes != 3 || g.Misses != 1 || g.Errors != 1 {
		t.Errorf("GET_NODE counts = %+v", g)
	}
	if l := g.Latency; l.Count != 4 || l.Min != 0 || l.Max != 1000 || l.P50 != 0 || l.P75 != 1000 {
		t.Errorf("GET_NODE latency = %+v, want 4 values 0,0,1000,1000", l)
	}
	if e := g.ErrorLatency; e.Count != 1 || e.Max != 1000 {
		t.Errorf("error latency = %+v, want one value 1000", e)
	}
	if g.Service == nil || g.Service.Max != 1000 {
		t.Errorf("service = %+v, want max 1000", g.Service)
	}
	if s, _ := rep.Op(RangeSize); s.Clamped != 1 || s.Latency.Max != 1000 {
		t.Errorf("RANGE_SIZE = %+v", s)
	}
}

func TestErrorLatenciesKeptApart(t *testing.T) {
	r := newRec(t, Options{})
	r.Record(AddLink, Success, us(100))
	r.Record(AddLink, Miss, us(200))
	r.Record(AddLink, Error, us(1500))
	r.Record(DeleteLink, Error, us(700)) // errors only
	if r.Count(AddLink) != 3 || r.Errors(AddLink) != 1 || r.Count(DeleteLink) != 1 || r.Count(GetNode) != 0 {
		t.Errorf("Count/Errors = %d/%d, %d, %d", r.Count(AddLink), r.Errors(AddLink), r.Count(DeleteLink), r.Count(GetNode))
	}
	rep := merge(t, PhaseRequest, r)
	a, _ := rep.Op(AddLink)
	if a.Latency.Count != 2 || a.Latency.Max != 200 || a.Latency.Mean != 150 {
		t.Errorf("latency = %+v, want 100 and 200 only", a.Latency)
	}
	if a.ErrorLatency.Count != 1 || a.ErrorLatency.Min != 1500 || a.ErrorLatency.Max != 1500 {
		t.Errorf("error latency = %+v, want 1500 only", a.ErrorLatency)
	}
	if a.Service != nil {
		t.Errorf("service = %+v, want nil", a.Service)
	}
	d, ok := rep.Op(DeleteLink)
	if !ok || d.Latency.Count != 0 || d.ErrorLatency.Count != 1 || d.Errors != 1 {
		t.Errorf("DELETE_LINK = %+v, %v", d, ok)
	}
	var buf bytes.Buffer
	if err := rep.WriteCSV(&buf, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "DELETE_LINK") {
		t.Errorf("CSV has a row for an op with errors only: %q", buf.String())
	}
}

// record feeds one pseudo-random workload into rs, spreading it over them.
func record(seed uint64, rs ...*Recorder) {
	rng := rand.New(rand.NewPCG(seed, 0))
	for i := range 20000 {
		r := rs[i%len(rs)]
		op := Op(rng.IntN(int(GetLinksList) + 1))
		v := int64(rng.ExpFloat64() * 3000)
		switch k := rng.IntN(20); {
		case k == 0:
			r.Record(op, Error, us(v*10))
		case k < 5:
			r.Record(op, Miss, us(v))
		default:
			r.Record(op, Success, us(v))
		}
		if rng.IntN(3) == 0 {
			r.RecordService(op, us(v/2))
		}
		if op == GetLinksList {
			r.RecordSize(RangeSize, rng.Int64N(10001))
		}
		if rng.IntN(1000) == 0 {
			r.Record(op, Success, us(1<<50)) // clamped
		}
	}
}

func TestMergeEqualsSingleRecorder(t *testing.T) {
	one := newRec(t, Options{})
	record(7, one)
	many := []*Recorder{newRec(t, Options{}), newRec(t, Options{Interval: true}), newRec(t, Options{}), newRec(t, Options{})}
	record(7, many...)
	a := merge(t, PhaseRequest, one)
	b := merge(t, PhaseRequest, many...)
	if b.Threads != 4 || a.Threads != 1 {
		t.Errorf("Threads = %d, %d", a.Threads, b.Threads)
	}
	if len(a.Ops) != int(GetLinksList)+2 {
		t.Errorf("%d ops, want the 10 request ops and RANGE_SIZE", len(a.Ops))
	}
	for i := range b.Ops {
		if b.Ops[i].Threads != 4 || b.Ops[i].Active != 4 {
			t.Errorf("%v: Threads %d Active %d, want 4, 4", b.Ops[i].Op, b.Ops[i].Threads, b.Ops[i].Active)
		}
		b.Ops[i].Threads, b.Ops[i].Active = 1, 1
	}
	if !reflect.DeepEqual(a.Ops, b.Ops) {
		for i := range a.Ops {
			if !reflect.DeepEqual(a.Ops[i], b.Ops[i]) {
				t.Errorf("op %v:\n one  %+v\n many %+v", a.Ops[i].Op, a.Ops[i], b.Ops[i])
			}
		}
	}
	// Merging does not modify the recorders.
	again := merge(t, PhaseRequest, one)
	if !reflect.DeepEqual(a, again) {
		t.Error("second Merge differs from the first")
	}
}

func TestMergeErrors(t *testing.T) {
	if _, err := Merge(PhaseLoad, []*Recorder{newRec(t, Options{}), nil}); err == nil {
		t.Error("Merge with a nil recorder succeeded")
	}
	if _, err := Merge(PhaseLoad, []*Recorder{newRec(t, Options{}), newRec(t, Options{SigFigs: 2})}); err == nil {
		t.Error("Merge of recorders with different SigFigs succeeded")
	}
	rep, err := Merge(PhaseLoad, nil)
	if err != nil || rep.Threads != 0 || rep.Ops == nil || len(rep.Ops) != 0 || rep.HighestUs != DefaultHighestUs {
		t.Errorf("Merge(nil) = %+v, %v", rep, err)
	}
}

func TestRecordZeroAllocs(t *testing.T) {
	for _, interval := range []bool{false, true} {
		r := newRec(t, Options{Interval: interval})
		// First values create the histograms.
		r.Record(GetNode, Success, us(1))
		r.Record(GetNode, Error, us(1))
		r.RecordService(GetNode, us(1))
		r.RecordSize(RangeSize, 1)
		var v int64
		allocs := testing.AllocsPerRun(1000, func() {
			v = (v*7 + 13) % 5_000_000_000 // some clamped
			r.Record(GetNode, Success, us(v))
			r.Record(GetNode, Miss, us(v))
			r.Record(GetNode, Error, us(v))
			r.RecordService(GetNode, us(v))
			r.RecordSize(RangeSize, v%10000)
			_ = r.Count(GetNode)
		})
		if allocs != 0 {
			t.Errorf("Interval=%v: %v allocations per run, want 0", interval, allocs)
		}
	}
}

// digestOnly returns a copy of r without its histograms, as a report read
// back from JSON is.
func digestOnly(r *Report) *Report {
	c := *r
	c.Ops = slices.Clone(r.Ops)
	for i := range c.Ops {
		c.Ops[i].lat = nil
	}
	return &c
}

func TestJSONRoundTrip(t *testing.T) {
	a, b := newRec(t, Options{}), newRec(t, Options{})
	record(11, a, b)
	rep := merge(t, PhaseRequest, a, b)
	rep.Header = []KV{{"seed", "42"}, {"workload profile", "fb"}, {"store", "memstore"}, {"a\"quoted\"", "x\ny"}}
	rep.Start = time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	rep.Elapsed = 1234567891 * time.Nanosecond
	rep.Request = &RequestTotals{Requests: 20000, Errors: 17, Requesters: 2, Aborted: 1}
	rep.Counters = []Counter{{"retries.add_link", 3}, {"error(1213)", 2}}

	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, digestOnly(rep)) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", got, rep)
	}

	// For scripts: the header is an object; derived members are present.
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if h, ok := m["header"].(map[string]any); !ok || h["seed"] != "42" || h["store"] != "memstore" {
		t.Errorf("header = %#v", m["header"])
	}
	if m["phase"] != "REQUEST" || m["summary"] != rep.SummaryLine() {
		t.Errorf("phase %v summary %v", m["phase"], m["summary"])
	}
	if rates, _ := m["rates"].(map[string]any); rates["tps"] != float64(16200) { // round(20000 / 1.234567891)
		t.Errorf("rates = %#v", m["rates"])
	}
	ops, _ := m["ops"].([]any)
	if op0, _ := ops[0].(map[string]any); op0["op"] != "ADD_NODE" {
		t.Errorf("first op = %#v", ops[0])
	}

	// A load report without Request/Header/Counters also round-trips.
	l := merge(t, PhaseLoad, a)
	l.Load = &LoadTotals{Nodes: 1, ExpectedNodes: 2, Links: 3, Counts: 4}
	buf.Reset()
	if err := l.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadJSON(&buf); err != nil || !reflect.DeepEqual(got, digestOnly(l)) {
		t.Errorf("load round trip: %v\n got %+v\nwant %+v", err, got, l)
	}
	if _, err := ReadJSON(strings.NewReader(`{"phase":"LUNCH"}`)); err == nil {
		t.Error("ReadJSON accepted an unknown phase")
	}
	if _, err := ReadJSON(strings.NewReader(`{"ops":[{"op":"NOPE"}]}`)); err == nil {
		t.Error("ReadJSON accepted an unknown op")
	}
}

func TestLoadLines(t *testing.T) {
	rep := &Report{Phase: PhaseLoad, Elapsed: 2500 * time.Millisecond,
		Load: &LoadTotals{Nodes: 1000, ExpectedNodes: 1000, Links: 3852, Counts: 1000}}
	wantC := "LOAD PHASE COMPLETED. Loaded 1000 nodes (Expected 1000), 3852 links (3.85 /node), 1000 counts (1.00 /node). 2.5 seconds, 1541 Links/s, 1941 (link+count)/s, 2341 (link+count+node)/s"
	wantS := "SUMMARY load ips=2341 nodes/s=400 links/s=1541 counts/s=400 seconds=2.5"
	if got := rep.CompletionLine(); got != wantC {
		t.Errorf("completion:\n got %q\nwant %q", got, wantC)
	}
	if got := rep.SummaryLine(); got != wantS {
		t.Errorf("summary:\n got %q\nwant %q", got, wantS)
	}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != wantC+"\n"+wantS+"\n" {
		t.Errorf("text = %q", buf.String())
	}

	// No nodes, no time: 0 instead of Infinity/NaN.
	zero := &Report{Phase: PhaseLoad, Load: &LoadTotals{ExpectedNodes: 10, Links: 5, Counts: 5}}
	wantC = "LOAD PHASE COMPLETED. Loaded 0 nodes (Expected 10), 5 links (0.00 /node), 5 counts (0.00 /node). 0.0 seconds, 0 Links/s, 0 (link+count)/s, 0 (link+count+node)/s"
	if got := zero.CompletionLine(); got != wantC {
		t.Errorf("zero completion:\n got %q\nwant %q", got, wantC)
	}
	if got, want := zero.SummaryLine(), "SUMMARY load ips=0 nodes/s=0 links/s=0 counts/s=0 seconds=0.0"; got != want {
		t.Errorf("zero summary = %q", got)
	}
	if got, want := (&Report{Phase: PhaseLoad}).SummaryLine(), "SUMMARY load ips=0 nodes/s=0 links/s=0 counts/s=0 seconds=0.0"; got != want {
		t.Errorf("nil Load summary = %q", got)
	}
}

func TestRequestText(t *testing.T) {
	a := newRec(t, Options{HighestUs: 1e8})
	b := newRec(t, Options{HighestUs: 1e8})
	for i, v := range goldenGetNode {
		o := Success
		if v == 150 {
			o = Miss
		}
		[]*Recorder{a, b}[i%2].Record(GetNode, o, us(v))
	}
	b.Record(GetNode, Error, us(3000))
	a.Record(UpdateLink, Success, us(100))
	a.Record(UpdateLink, Success, us(200))
	a.RecordService(UpdateLink, us(50))
	a.RecordService(UpdateLink, us(70))
	b.RecordSize(RangeSize, 3)
	b.RecordSize(RangeSize, 5)
	rep := merge(t, PhaseRequest, a, b)
	rep.Header = []KV{{"seed", "42"}, {"store", "memstore"}}
	rep.Elapsed = 2500 * time.Millisecond
	rep.Request = &RequestTotals{Requests: 13, Errors: 1, Requesters: 2, Aborted: 1}
	rep.Counters = []Counter{{"retries.add_link", 3}}
	want := `seed: 42
store: memstore
` + goldenHDRLine + `
UPDATE_LINK count = 2  p25 = 100us  p50 = 100us  p75 = 200us  p95 = 200us  p99 = 200us  max = 200us mean = 150.000us threads = 2
RANGE_SIZE count = 2  p25 = 3  p50 = 3  p75 = 5  p95 = 5  p99 = 5  max = 5 mean = 4.000 threads = 2 (rows)
GET_NODE found = 9 notfound = 1 errors = 1
UPDATE_LINK found = 2 notfound = 0 errors = 0
GET_NODE error_latency count = 1  p25 = 3001us  p50 = 3001us  p75 = 3001us  p95 = 3001us  p99 = 3001us  max = 3001us mean = 3001.000us threads = 2
UPDATE_LINK service_time count = 2  p25 = 50us  p50 = 50us  p75 = 70us  p95 = 70us  p99 = 70us  max = 70us mean = 60.000us threads = 2
errors.error = 1
retries.add_link = 3
REQUEST PHASE COMPLETED. 13 requests done in 3 seconds. Requests/second = 5
Benchmark did not complete cleanly: 1/2 request threads aborted.  See error log entries for details.
SUMMARY request tps=5 goodput=5 un=- gn=20004.863 ul=0.200 gl=- requests=13 seconds=2.5
`
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", buf.String(), want)
	}

	// Completion without aborts; rates from Elapsed.
	q := &Report{Phase: PhaseRequest, Elapsed: 10500 * time.Millisecond, Request: &RequestTotals{Requests: 12345, Requesters: 4}}
	if got, want := q.CompletionLine(), "REQUEST PHASE COMPLETED. 12345 requests done in 11 seconds. Requests/second = 1176"; got != want {
		t.Errorf("completion = %q, want %q", got, want)
	}
	if got, want := q.SummaryLine(), "SUMMARY request tps=1176 goodput=1176 un=- gn=- ul=- gl=- requests=12345 seconds=10.5"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	// A phase that overran says so in the completion and SUMMARY lines,
	// and its goodput leaves out failed and abandoned requests.
	q.Request.Errors, q.Request.Abandoned = 1000, 345
	q.Status, q.Detail = "OVERRAN", "overran by 3.2 s, 345 operations abandoned"
	if got, want := q.CompletionLine(), "REQUEST PHASE OVERRAN. 12345 requests done in 11 seconds. Requests/second = 1176 (overran by 3.2 s, 345 operations abandoned)"; got != want {
		t.Errorf("completion = %q, want %q", got, want)
	}
	if got, want := q.SummaryLine(), `SUMMARY request tps=1176 goodput=1048 un=- gn=- ul=- gl=- requests=12345 seconds=10.5 status=OVERRAN detail="overran by 3.2 s, 345 operations abandoned"`; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	if g := q.Goodput(); g < 1047.6 || g > 1047.7 {
		t.Errorf("Goodput = %v, want 11000/10.5", g)
	}
	q.Status, q.Detail, q.Request.Errors, q.Request.Abandoned = "", "", 0, 0
	buf.Reset()
	if err := q.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "did not complete") {
		t.Errorf("aborted line without aborts: %q", buf.String())
	}
	zero := &Report{Phase: PhaseRequest, Request: &RequestTotals{Requests: 5}}
	if got, want := zero.CompletionLine(), "REQUEST PHASE COMPLETED. 5 requests done in 0 seconds. Requests/second = 0"; got != want {
		t.Errorf("zero-time completion = %q", got)
	}
	if err := (&Report{Phase: 9}).WriteText(&buf); err == nil {
		t.Error("WriteText accepted an undefined phase")
	}
}

func TestPhaseAndOpText(t *testing.T) {
	for _, p := range []Phase{PhaseLoad, PhaseRequest} {
		b, err := p.MarshalText()
		var q Phase
		if err != nil || q.UnmarshalText(b) != nil || q != p {
			t.Errorf("phase %v: %q %v -> %v", p, b, err, q)
		}
	}
	if _, err := Phase(2).MarshalText(); err == nil {
		t.Error("Phase(2).MarshalText succeeded")
	}
	for op := range Op(NumOps) {
		b, err := op.MarshalText()
		var q Op
		if err != nil || q.UnmarshalText(b) != nil || q != op || string(b) != op.String() {
			t.Errorf("op %v: %q %v -> %v", op, b, err, q)
		}
	}
	if _, err := Op(NumOps).MarshalText(); err == nil {
		t.Error("Op(NumOps).MarshalText succeeded")
	}
	if got := []string{Success.String(), Miss.String(), Error.String(), Outcome(3).String()}; !slices.Equal(got, []string{"SUCCESS", "MISS", "ERROR", "Outcome(3)"}) {
		t.Errorf("outcome names %v", got)
	}
	if !RangeSize.IsSize() || !LoadCountsBulkNLinks.IsSize() || GetNode.IsSize() || LoadLinksBulk.IsSize() {
		t.Error("IsSize")
	}
}

// Reference §10.2 SampledStats example (thread 3, GET_NODE 10, 20, ..., 200,
// the last an error, window 1000000 -> 1001500 ms; ADD_NODE without values),
// in LinkBench's -csvstream layout. The row and empty-row forms are
// LinkBench's; percentiles take Java's rank rule (p25 = value of rank
// ceil(0.25·20) = 5, i.e. 50, where LinkBench's reservoir indexing s[e/4]
// gives 60; likewise p50 100 instead of 110), at the recorder's compact
// histogram's precision: exact below 64, then the highest value of a bucket
// 1/64 of a power of two wide (150 -> 151, 180 -> 181), never above the
// maximum.
func TestCSVStream(t *testing.T) {
	var out bytes.Buffer
	sw, err := NewStreamWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != csvStreamHeader {
		t.Fatalf("header = %q", out.String())
	}
	r := newRec(t, Options{Interval: true})
	for v := int64(10); v <= 200; v += 10 {
		o := Success
		if v == 200 {
			o = Error
		}
		r.Record(GetNode, o, us(v))
	}
	start, now := time.UnixMilli(1000000), time.UnixMilli(1001500)
	if err := r.WriteInterval(sw, 3, start, now, []Op{GetNode, AddNode}); err != nil {
		t.Fatal(err)
	}
	want := csvStreamHeader +
		"3,1001,GET_NODE,20,1,20,1500,20,105.0,10,50,100,151,181,191,200,200\n" +
		"3,1001,ADD_NODE,0,0,0,1500,0,,,,,,,,,\n"
	if out.String() != want {
		t.Errorf("csvstream:\n got %q\nwant %q", out.String(), want)
	}

	// The interval restarts empty; totals carry on. Min, max and mean are
	// exact; the percentiles are capped at the maximum.
	r.Record(GetNode, Success, us(4000))
	out.Reset()
	if err := r.WriteInterval(sw, 3, now, now.Add(2*time.Second), []Op{GetNode}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "3,1003,GET_NODE,21,1,1,2000,1,4000.0,4000,4000,4000,4000,4000,4000,4000,4000\n"; got != want {
		t.Errorf("second interval:\n got %q\nwant %q", got, want)
	}
	out.Reset()
	if err := r.WriteInterval(sw, 3, now, now, []Op{GetNode}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "3,1001,GET_NODE,21,1,0,0,0,,,,,,,,,\n"; got != want {
		t.Errorf("empty interval:\n got %q\nwant %q", got, want)
	}

	if err := newRec(t, Options{}).WriteInterval(sw, 0, start, now, []Op{GetNode}); !errors.Is(err, ErrNoInterval) {
		t.Errorf("WriteInterval without Options.Interval: %v, want ErrNoInterval", err)
	}
	if _, err := NewStreamWriter(failWriter{}); err == nil {
		t.Error("NewStreamWriter ignored the header's write error")
	}
	// A write error is returned, and the interval is reset all the same.
	r.Record(GetNode, Success, us(5))
	if err := r.WriteInterval(&StreamWriter{w: failWriter{}}, 3, now, now, []Op{GetNode}); err == nil {
		t.Error("WriteInterval ignored a write error")
	}
	out.Reset()
	if err := r.WriteInterval(sw, 3, now, now, []Op{GetNode}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "3,1001,GET_NODE,22,1,0,0,0,,,,,,,,,\n"; got != want {
		t.Errorf("after a failed write:\n got %q\nwant %q", got, want)
	}
}

// valueAtRank (WriteInterval's allocation-free path) agrees with the
// one-pass walk behind Summary (Merge's path) on every rank.
func TestValueAtRankMatchesWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 3, 5, 20, 333, 5000} {
		h := hdr.New(1, DefaultHighestUs, 3)
		for range n {
			_ = h.RecordValue(int64(rng.ExpFloat64() * 1e5))
		}
		ps := make([]float64, 0, 1000)
		for p := 0.1; p <= 100; p += 0.1 {
			ps = append(ps, p)
		}
		walk := make([]int64, len(ps))
		c, lo, hi, _ := denseQuantiles(h, ps, walk)
		if lo != h.Min() || hi != valueAtRank(h, c, c) {
			t.Errorf("n=%d: min/max walk %d/%d, hdr %d/%d", n, lo, hi, h.Min(), valueAtRank(h, c, c))
		}
		for i, p := range ps {
			if v := valueAtRank(h, percentileRank(p, c), c); v != walk[i] {
				t.Errorf("n=%d p%.1f: valueAtRank %d, walk %d", n, p, v, walk[i])
			}
		}
	}
}

func TestWriteIntervalZeroAllocs(t *testing.T) {
	r := newRec(t, Options{Interval: true})
	sw, err := NewStreamWriter(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ops := []Op{GetNode, AddLink, RangeSize}
	t0 := time.UnixMilli(1)
	var v int64
	fill := func() {
		for range 100 {
			v = (v*31 + 7) % 3_000_000
			r.Record(GetNode, Success, us(v))
			r.RecordSize(RangeSize, v%1000)
		}
	}
	fill()
	if err := r.WriteInterval(sw, 1, t0, t0, ops); err != nil { // grows the buffer
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		fill()
		_ = r.WriteInterval(sw, 1, t0, t0, ops)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per interval, want 0", allocs)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// Workers share one StreamWriter: every row arrives whole (run with -race).
func TestStreamWriterConcurrent(t *testing.T) {
	var out bytes.Buffer
	sw, err := NewStreamWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	const workers, rounds = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := NewRecorder(Options{Interval: true, SigFigs: 2})
			if err != nil {
				errs <- err
				return
			}
			t0 := time.UnixMilli(5000)
			for i := range rounds {
				r.Record(GetLinksList, Success, us(int64(100+i)))
				r.RecordSize(RangeSize, int64(i))
				if err := r.WriteInterval(sw, w, t0, t0.Add(time.Second), []Op{GetLinksList, RangeSize, AddLink}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 1+workers*rounds*3 {
		t.Fatalf("%d lines, want %d", len(lines), 1+workers*rounds*3)
	}
	for _, l := range lines[1:] {
		if f := strings.Split(l, ","); len(f) != 17 {
			t.Fatalf("torn row %q", l)
		}
	}
}

func BenchmarkRecord(b *testing.B) {
	for _, interval := range []bool{false, true} {
		b.Run(fmt.Sprintf("interval=%v", interval), func(b *testing.B) {
			r := newRec(b, Options{Interval: interval})
			r.Record(GetNode, Success, us(1))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				r.Record(GetNode, Success, us(int64(i&0xffff)+100))
			}
		})
	}
}

// TestIntervalMerge: merging two intervals adds their counts and
// histograms per op, keeps ops present in one only, spans both, and
// leaves the inputs unchanged; the zero Interval is the identity.
func TestIntervalMerge(t *testing.T) {
	col, err := NewCollector(Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := col.NewRecorder()
	rec.Record(GetNode, Success, 10*time.Microsecond)
	rec.Record(AddLink, Success, 20*time.Microsecond)
	rec.Flush()
	a := col.Interval()
	rec.Record(GetNode, Success, 30*time.Microsecond)
	rec.Record(GetNode, Error, 40*time.Microsecond)
	rec.Record(CountLink, Success, 50*time.Microsecond)
	rec.Flush()
	b := col.Interval()
	m := a.Merge(b)
	if !m.Start.Equal(a.Start) || !m.End.Equal(b.End) {
		t.Errorf("merged interval %v..%v, want %v..%v", m.Start, m.End, a.Start, b.End)
	}
	want := map[Op][2]int64{GetNode: {3, 1}, AddLink: {1, 0}, CountLink: {1, 0}}
	if len(m.Ops) != len(want) {
		t.Fatalf("merged ops %v", m.Ops)
	}
	for i, o := range m.Ops {
		if i > 0 && m.Ops[i-1].Op >= o.Op {
			t.Errorf("ops out of order: %v", m.Ops)
		}
		w := want[o.Op]
		if o.Count != w[0] || o.Errors != w[1] || o.Hist.TotalCount() != w[0] {
			t.Errorf("%v: count %d errors %d histogram %d, want %v", o.Op, o.Count, o.Errors, o.Hist.TotalCount(), w)
		}
	}
	if g, _ := a.Op(GetNode); g.Hist.TotalCount() != 1 {
		t.Errorf("Merge changed its receiver's histogram: %d values", g.Hist.TotalCount())
	}
	// The outcomes and the errors' histogram merge too.
	rec.Record(GetNode, Miss, 60*time.Microsecond)
	rec.RecordAbandoned(GetNode, time.Second)
	rec.RecordError(GetNode, "timeout", 70*time.Microsecond)
	rec.Flush()
	m = m.Merge(col.Interval())
	g, _ := m.Op(GetNode)
	if g.Count != 6 || g.Errors != 2 || g.Misses != 1 || g.Abandoned != 1 || g.ErrHist.TotalCount() != 2 ||
		!slices.Equal(g.ErrorClasses, []Counter{{"error", 1}, {"timeout", 1}}) || g.Unit() != time.Nanosecond {
		t.Errorf("merged GET_NODE %+v (errors' histogram %d values)", g, g.ErrHist.TotalCount())
	}
	if z := (Interval{}).Merge(b); len(z.Ops) != len(b.Ops) || !z.End.Equal(b.End) {
		t.Errorf("zero.Merge(b) = %v, want b", z)
	}
}

// TestCompletionLineAgreesWithSummary: the completion line's seconds and
// rate are the SUMMARY line's, rounded: a request phase of 14.96 s is done
// in 15 seconds (LinkBench's truncation printed 14 beside seconds=15.0),
// and its Requests/second is SUMMARY's tps; a load's seconds and Links/s
// are SUMMARY's seconds and links/s. Checked over elapsed times from 0 to
// 20 s.
func TestCompletionLineAgreesWithSummary(t *testing.T) {
	reqRE := regexp.MustCompile(`done in (\d+) seconds\. Requests/second = (\d+)$`)
	reqSumRE := regexp.MustCompile(`tps=(\d+) .* seconds=([0-9.]+)$`)
	loadRE := regexp.MustCompile(`\. ([0-9.]+) seconds, (\d+) Links/s`)
	loadSumRE := regexp.MustCompile(`links/s=(\d+) .* seconds=([0-9.]+)$`)
	elapsed := []time.Duration{14960 * time.Millisecond, 14500 * time.Millisecond, 14499 * time.Millisecond}
	for ms := int64(0); ms <= 20000; ms += 7 {
		elapsed = append(elapsed, time.Duration(ms)*time.Millisecond+time.Duration(ms%1000)*time.Microsecond)
	}
	for _, e := range elapsed {
		q := &Report{Phase: PhaseRequest, Elapsed: e, Request: &RequestTotals{Requests: 123457, Requesters: 4}}
		line, sum := reqRE.FindStringSubmatch(q.CompletionLine()), reqSumRE.FindStringSubmatch(q.SummaryLine())
		if line == nil || sum == nil {
			t.Fatalf("%v: %q, %q", e, q.CompletionLine(), q.SummaryLine())
		}
		sec, _ := strconv.ParseFloat(line[1], 64)
		sumSec, _ := strconv.ParseFloat(sum[2], 64)
		if math.Abs(sec-sumSec) > 0.5 || math.Abs(sec-e.Seconds()) > 0.5 {
			t.Errorf("%v: done in %s seconds beside seconds=%s", e, line[1], sum[2])
		}
		if line[2] != sum[1] {
			t.Errorf("%v: Requests/second = %s beside tps=%s", e, line[2], sum[1])
		}
		l := &Report{Phase: PhaseLoad, Elapsed: e, Load: &LoadTotals{Nodes: 1000, ExpectedNodes: 1000, Links: 4321, Counts: 2000}}
		line, sum = loadRE.FindStringSubmatch(l.CompletionLine()), loadSumRE.FindStringSubmatch(l.SummaryLine())
		if line == nil || sum == nil {
			t.Fatalf("%v: %q, %q", e, l.CompletionLine(), l.SummaryLine())
		}
		if line[1] != sum[2] || line[2] != sum[1] {
			t.Errorf("%v: load line %s seconds, %s Links/s beside seconds=%s links/s=%s", e, line[1], line[2], sum[2], sum[1])
		}
	}
}

// TestQuantileMisuseIsLoud: Quantile takes a fraction; a percentage (99,
// hdrhistogram-go's scale), a negative q or NaN panics naming the value
// (it used to read as the maximum, or the minimum). An op that did not
// run, or whose every call failed, has no quantile: ok is false (it used
// to be 0, which passes any p99 < limit gate). The same holds for a
// report read back from JSON, for OpReport and for IntervalOp.
func TestQuantileMisuseIsLoud(t *testing.T) {
	c, _ := NewCollector(Options{})
	r := c.NewRecorder()
	for i := range 100 {
		r.Record(GetNode, Success, time.Duration(i+1)*time.Millisecond)
	}
	r.RecordError(AddLink, "x", time.Millisecond)
	r.Flush()
	iv := c.Interval()
	rep := c.Report(PhaseRequest)
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for name, rp := range map[string]*Report{"report": rep, "report read from JSON": back} {
		for _, c := range []struct {
			q    float64
			want time.Duration
		}{{0.99, 99 * time.Millisecond}, {1, 100 * time.Millisecond}} { // (JSON holds percentiles from p25)
			got, ok := rp.Quantile(GetNode, c.q)
			if !ok || got < c.want*99/100 || got > c.want*101/100 {
				t.Errorf("%s: Quantile(GET_NODE, %v) = %v, %v; want %v, true", name, c.q, got, ok, c.want)
			}
		}
		for _, op := range []Op{AddLink, DeleteNode} { // every call failed; never ran
			if got, ok := rp.Quantile(op, 0.99); ok || got != 0 {
				t.Errorf("%s: Quantile(%v, 0.99) = %v, %v; want 0, false", name, op, got, ok)
			}
			o, _ := rp.Op(op)
			if got, ok := o.Quantile(0.99); ok || got != 0 {
				t.Errorf("%s: OpReport(%v).Quantile(0.99) = %v, %v; want 0, false", name, op, got, ok)
			}
		}
	}
	if got, ok := rep.Quantile(GetNode, 0); !ok || got < time.Millisecond*99/100 || got > time.Millisecond*101/100 {
		t.Errorf("Quantile(GET_NODE, 0) = %v, %v; want the minimum, 1ms", got, ok)
	}
	ivGet, _ := iv.Op(GetNode)
	if got, ok := ivGet.Quantile(0.99); !ok || got < 98*time.Millisecond || got > 100*time.Millisecond {
		t.Errorf("IntervalOp(GET_NODE).Quantile(0.99) = %v, %v", got, ok)
	}
	ivNone, _ := iv.Op(DeleteNode)
	if got, ok := ivNone.Quantile(0.5); ok || got != 0 {
		t.Errorf("IntervalOp of an op that did not run: Quantile = %v, %v; want 0, false", got, ok)
	}
	opGet, _ := rep.Op(GetNode)
	for _, q := range []float64{99, 50, 1.0000001, -0.5, math.NaN(), math.Inf(1)} {
		for name, f := range map[string]func(){
			"Report.Quantile":     func() { rep.Quantile(GetNode, q) },
			"OpReport.Quantile":   func() { opGet.Quantile(q) },
			"IntervalOp.Quantile": func() { ivGet.Quantile(q) },
		} {
			msg := func() (msg string) {
				defer func() { msg = fmt.Sprint(recover()) }()
				f()
				return "no panic"
			}()
			if !strings.Contains(msg, name+"(GET_NODE, "+fmt.Sprint(q)+")") || !strings.Contains(msg, "0.99 for the p99") {
				t.Errorf("%s(%v): %s; want a panic naming the value and the scale", name, q, msg)
			}
		}
	}
}

// TestSummaryP99Rounds: the SUMMARY line's p99s are rounded to the
// microsecond as the tables round them (6430.7 us printed 6.430 beside the
// table's 6.431: truncated).
func TestSummaryP99Rounds(t *testing.T) {
	r := &Report{Phase: PhaseRequest, Request: &RequestTotals{Requests: 1}, Elapsed: time.Second,
		Ops: []OpReport{{Op: UpdateNode, Successes: 1, Latency: Summary{Count: 1, P99: 6430.7}},
			{Op: GetNode, Successes: 1, Latency: Summary{Count: 1, P99: 999.4}}}}
	line := r.SummaryLine()
	if !strings.Contains(line, " un=6.431 ") || !strings.Contains(line, " gn=0.999 ") {
		t.Errorf("SUMMARY %q, want un=6.431 gn=0.999", line)
	}
}
