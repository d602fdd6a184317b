package promexport_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/promexport"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

// interval records the latencies (and one error per tenth of them) into a
// collector and returns its interval.
func interval(t *testing.T, lat []time.Duration) stats.Interval {
	t.Helper()
	col, err := stats.NewCollector(stats.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := col.NewRecorder()
	for i, d := range lat {
		if i%10 == 9 {
			rec.RecordError(stats.GetNode, "timeout", d)
			continue
		}
		rec.Record(stats.GetNode, stats.Success, d)
	}
	return col.FinalInterval()
}

// gatherOne returns the only metric of the family name in g.
func gatherOne(t *testing.T, g prometheus.Gatherer, name string) *dto.Metric {
	t.Helper()
	fams, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			if len(f.GetMetric()) != 1 {
				t.Fatalf("%s: %d metrics, want 1", name, len(f.GetMetric()))
			}
			return f.GetMetric()[0]
		}
	}
	t.Fatalf("no %s", name)
	return nil
}

// TestBucketsMatchClientGolang: the exporter's latency histogram, classic
// and native buckets, is the one client_golang's own histogram (same
// buckets, same bucket factor) makes from the same values: each value of
// the interval's HDR histogram at the middle of its HDR bucket, errors
// left out.
func TestBucketsMatchClientGolang(t *testing.T) {
	var lat []time.Duration
	for i := range 5000 {
		// From 300 ns to about 2 s, log-uniform, and a few zeros.
		lat = append(lat, time.Duration(300*math.Pow(1.0032, float64(i))))
	}
	lat = append(lat, 0, 0, time.Hour)
	iv := interval(t, lat)

	reg := prometheus.NewPedanticRegistry()
	exp, err := promexport.New(reg, promexport.Options{MaxBuckets: 1000})
	if err != nil {
		t.Fatal(err)
	}
	exp.OnInterval(linkbench.Progress{Phase: stats.PhaseRequest, Interval: iv})

	ref := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ref", Buckets: promexport.DefaultBuckets,
		NativeHistogramBucketFactor: promexport.DefaultBucketFactor, NativeHistogramMaxBucketNumber: 1000})
	o, _ := iv.Op(stats.GetNode)
	all, errs := o.Hist.Distribution(), o.ErrHist.Distribution()
	for i, b := range all {
		n := b.Count
		if i < len(errs) {
			n -= errs[i].Count
		}
		for range n {
			ref.Observe(float64(b.From+b.To) / 2 * 1e-9)
		}
	}
	var want dto.Metric
	if err := ref.Write(&want); err != nil {
		t.Fatal(err)
	}
	got := gatherOne(t, reg, "linkbench_latency_seconds").GetHistogram()
	w := want.GetHistogram()
	if got.GetSampleCount() != w.GetSampleCount() || got.GetSampleCount() != uint64(len(lat)-len(lat)/10) {
		t.Errorf("count %d, client_golang's %d, values %d", got.GetSampleCount(), w.GetSampleCount(), len(lat)-len(lat)/10)
	}
	if math.Abs(got.GetSampleSum()/w.GetSampleSum()-1) > 1e-9 {
		t.Errorf("sum %g, client_golang's %g", got.GetSampleSum(), w.GetSampleSum())
	}
	if got.GetSchema() != w.GetSchema() || got.GetZeroCount() != w.GetZeroCount() || got.GetZeroCount() != 2 {
		t.Errorf("schema %d zero bucket %d, client_golang's %d and %d", got.GetSchema(), got.GetZeroCount(), w.GetSchema(), w.GetZeroCount())
	}
	if !slices.Equal(got.GetPositiveDelta(), w.GetPositiveDelta()) || len(got.GetPositiveSpan()) != len(w.GetPositiveSpan()) {
		t.Errorf("native buckets differ:\n%v %v\nclient_golang's:\n%v %v", got.GetPositiveSpan(), got.GetPositiveDelta(), w.GetPositiveSpan(), w.GetPositiveDelta())
	}
	for i, s := range got.GetPositiveSpan() {
		if i < len(w.GetPositiveSpan()) && (s.GetOffset() != w.GetPositiveSpan()[i].GetOffset() || s.GetLength() != w.GetPositiveSpan()[i].GetLength()) {
			t.Errorf("span %d: %v, client_golang's %v", i, s, w.GetPositiveSpan()[i])
		}
	}
	if len(got.GetBucket()) != len(w.GetBucket()) {
		t.Fatalf("%d classic buckets, client_golang's %d", len(got.GetBucket()), len(w.GetBucket()))
	}
	for i, b := range got.GetBucket() {
		if b.GetUpperBound() != w.GetBucket()[i].GetUpperBound() || b.GetCumulativeCount() != w.GetBucket()[i].GetCumulativeCount() {
			t.Errorf("classic bucket %d: le %g count %d, client_golang's le %g count %d", i, b.GetUpperBound(), b.GetCumulativeCount(),
				w.GetBucket()[i].GetUpperBound(), w.GetBucket()[i].GetCumulativeCount())
		}
	}
	e := gatherOne(t, reg, "linkbench_error_latency_seconds").GetHistogram()
	if e.GetSampleCount() != uint64(len(lat)/10) {
		t.Errorf("error latency count %d, want %d", e.GetSampleCount(), len(lat)/10)
	}
	if v := testutil.ToFloat64(onlyCollector{exp, "linkbench_errors_total"}); v != float64(len(lat)/10) {
		t.Errorf("errors_total %g, want %d", v, len(lat)/10)
	}
}

// onlyCollector is the metrics of one family of a collector.
type onlyCollector struct {
	c    prometheus.Collector
	name string
}

func (o onlyCollector) Describe(ch chan<- *prometheus.Desc) { o.c.Describe(ch) }

func (o onlyCollector) Collect(ch chan<- prometheus.Metric) {
	all := make(chan prometheus.Metric)
	go func() {
		o.c.Collect(all)
		close(all)
	}()
	for m := range all {
		if strings.Contains(m.Desc().String(), `"`+o.name+`"`) {
			ch <- m
		}
	}
}

// TestMaxBucketsHalves: a histogram with more native buckets than
// MaxBuckets is exposed at a lower schema, its counts kept.
func TestMaxBucketsHalves(t *testing.T) {
	var lat []time.Duration
	for i := range 3000 {
		lat = append(lat, time.Duration(1000*math.Pow(1.005, float64(i)))) // 1 µs to 3 s: ~180 buckets at schema 3
	}
	iv := interval(t, lat)
	reg := prometheus.NewPedanticRegistry()
	exp, err := promexport.New(reg, promexport.Options{MaxBuckets: 50})
	if err != nil {
		t.Fatal(err)
	}
	exp.OnInterval(linkbench.Progress{Phase: stats.PhaseRequest, Interval: iv})
	h := gatherOne(t, reg, "linkbench_latency_seconds").GetHistogram()
	var n, c int64
	for _, d := range h.GetPositiveDelta() {
		c += d
		n += c
	}
	if h.GetSchema() >= exp.Schema() || len(h.GetPositiveDelta()) > 50 || uint64(n) != h.GetSampleCount() {
		t.Errorf("schema %d (exporter's %d), %d buckets holding %d of %d values", h.GetSchema(), exp.Schema(), len(h.GetPositiveDelta()), n, h.GetSampleCount())
	}
}

// TestOptions: the bucket factor picks the schema; bad options are
// refused naming the field.
func TestOptions(t *testing.T) {
	for _, c := range []struct {
		factor float64
		schema int32
	}{{0, 3}, {1.1, 3}, {2, 0}, {4, -1}, {1.0001, 8}, {1e6, -4}} {
		e, err := promexport.New(nil, promexport.Options{BucketFactor: c.factor})
		if err != nil {
			t.Fatal(err)
		}
		if e.Schema() != c.schema {
			t.Errorf("BucketFactor %g: schema %d, want %d", c.factor, e.Schema(), c.schema)
		}
	}
	for _, o := range []promexport.Options{{Buckets: []float64{1, 1}}, {Buckets: []float64{0, 1}}, {Buckets: []float64{1, math.Inf(1)}},
		{BucketFactor: 1}, {BucketFactor: 0.5}, {MaxBuckets: -1}} {
		if _, err := promexport.New(nil, o); err == nil || !strings.Contains(err.Error(), "Options.") {
			t.Errorf("New(%+v): %v, want an error naming the option", o, err)
		}
	}
	reg := prometheus.NewRegistry()
	if _, err := promexport.New(reg, promexport.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := promexport.New(reg, promexport.Options{}); err == nil {
		t.Error("a second exporter in the same registry: no error")
	}
}

// TestLint: the metrics pass promlint (names, units, help).
func TestLint(t *testing.T) {
	exp, err := promexport.New(nil, promexport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := linkbench.DefaultConfig()
	plan := linkbench.Plan{Label: "x", StoreName: "memory"}
	exp.Attach(&cfg, &plan, nil)
	_ = exp.BeforePhase(context.Background(), linkbench.PhaseSpec{Phase: stats.PhaseRequest, Step: 1})
	exp.OnInterval(linkbench.Progress{Phase: stats.PhaseRequest, Interval: interval(t, []time.Duration{time.Millisecond, 2 * time.Millisecond}), InFlight: 3})
	problems, err := testutil.CollectAndLint(exp)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	if v := testutil.ToFloat64(onlyCollector{exp, "linkbench_in_flight_calls"}); v != 3 {
		t.Errorf("in_flight_calls %g, want 3", v)
	}
	if v := testutil.ToFloat64(onlyCollector{exp, "linkbench_phase_running"}); v != 1 {
		t.Errorf("phase_running %g, want 1", v)
	}
	_ = exp.AfterPhase(context.Background(), linkbench.PhaseResult{})
	if v := testutil.ToFloat64(onlyCollector{exp, "linkbench_phase_running"}); v != 0 {
		t.Errorf("phase_running %g after the phase, want 0", v)
	}
}

// TestNeverResets: a phase whose labels come again (a second run in the
// same process, with the same exporter) adds to its series: the counters
// and histograms go on from where the first run left them.
func TestNeverResets(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	exp, err := promexport.New(reg, promexport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lat := []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, 4 * time.Millisecond,
		5 * time.Millisecond, 6 * time.Millisecond, 7 * time.Millisecond, 8 * time.Millisecond, 9 * time.Millisecond, 10 * time.Millisecond}
	for run := 1; run <= 2; run++ {
		exp.OnInterval(linkbench.Progress{Phase: stats.PhaseRequest, Interval: interval(t, lat)})
		h := gatherOne(t, reg, "linkbench_latency_seconds").GetHistogram()
		if want := uint64(9*run - 9); h.GetSampleCount() < want {
			t.Errorf("run %d, running: latency count %d, below the %d of the runs before", run, h.GetSampleCount(), want)
		}
		exp.OnInterval(linkbench.Progress{Phase: stats.PhaseRequest, Interval: interval(t, lat), Final: true})
		h = gatherOne(t, reg, "linkbench_latency_seconds").GetHistogram()
		if h.GetSampleCount() != uint64(18*run) || math.Abs(h.GetSampleSum()-float64(run)*2*0.045) > 0.002*float64(run) {
			t.Errorf("run %d: latency count %d sum %g, want %d and about %g", run, h.GetSampleCount(), h.GetSampleSum(), 18*run, float64(run)*0.09)
		}
		if v := testutil.ToFloat64(onlyCollector{exp, "linkbench_calls_total"}); v != float64(20*run) {
			t.Errorf("run %d: calls_total %g, want %d", run, v, 20*run)
		}
		if e := gatherOne(t, reg, "linkbench_error_latency_seconds").GetHistogram(); e.GetSampleCount() != uint64(2*run) {
			t.Errorf("run %d: error latency count %d, want %d", run, e.GetSampleCount(), 2*run)
		}
	}
}

// TestConcurrentScrape: scrapes while intervals come and phases start and
// end (run it under -race): every scrape is consistent, the calls never
// go down.
func TestConcurrentScrape(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	exp, err := promexport.New(reg, promexport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	iv := interval(t, []time.Duration{time.Microsecond, time.Millisecond, 10 * time.Millisecond, time.Second,
		2 * time.Microsecond, 3 * time.Microsecond, 4 * time.Microsecond, 5 * time.Microsecond, 6 * time.Microsecond, 7 * time.Microsecond})
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx := context.Background()
		for step := 1; step <= 20; step++ {
			_ = exp.BeforePhase(ctx, linkbench.PhaseSpec{Phase: stats.PhaseRequest, Step: step, Tag: fmt.Sprintf("L%d", step)})
			for i := range 5 {
				exp.OnInterval(linkbench.Progress{Phase: stats.PhaseRequest, Interval: iv, Final: i == 4})
			}
			_ = exp.AfterPhase(ctx, linkbench.PhaseResult{})
		}
	}()
	last := 0.0
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		fams, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var calls float64
		for _, f := range fams {
			if f.GetName() == "linkbench_calls_total" {
				for _, m := range f.GetMetric() {
					calls += m.GetCounter().GetValue()
				}
			}
		}
		if calls < last {
			t.Fatalf("calls went down from %g to %g", last, calls)
		}
		last = calls
	}
	if last != 20*5*10 {
		t.Errorf("calls %g at the end, want %d", last, 20*5*10)
	}
}

// TestAttachAgain: a Config and Plan attached a second time (a second run
// in the same process with the same Config) feed the exporter once per
// interval: the first Attach's hooks, still in the chain, only pass the
// call on (they fed it too, and every interval counted twice).
func TestAttachAgain(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	exp, err := promexport.New(reg, promexport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lat := []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, 4 * time.Millisecond,
		5 * time.Millisecond, 6 * time.Millisecond, 7 * time.Millisecond, 8 * time.Millisecond, 9 * time.Millisecond, 10 * time.Millisecond}
	var cfg linkbench.Config
	var plan linkbench.Plan
	userCalls := 0
	cfg.OnInterval = func(linkbench.Progress) { userCalls++ }
	ctx := context.Background()
	ps := linkbench.PhaseSpec{Phase: stats.PhaseRequest, Step: 1}
	for run := 1; run <= 2; run++ {
		exp.Attach(&cfg, &plan, nil)
		if err := plan.Hooks.BeforePhase(ctx, ps); err != nil {
			t.Fatal(err)
		}
		cfg.OnInterval(linkbench.Progress{Phase: stats.PhaseRequest, Interval: interval(t, lat), Final: true})
		if err := plan.Hooks.AfterPhase(ctx, linkbench.PhaseResult{}); err != nil {
			t.Fatal(err)
		}
		if v := testutil.ToFloat64(onlyCollector{exp, "linkbench_calls_total"}); v != float64(10*run) {
			t.Errorf("run %d: calls_total %g, want %d (each interval once)", run, v, 10*run)
		}
		if userCalls != run {
			t.Errorf("run %d: the user's own OnInterval was called %d times, want %d", run, userCalls, run)
		}
	}
}
