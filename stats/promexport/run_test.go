package promexport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats/promexport"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// flakyStore is the memory store with a retry loop of its own: every
// 20th GET_NODE fails at its first attempt and is retried (counted as
// retries.GetNode), and every 97th fails outright, of class "injected"
// (counted as failures.GetNode): what a SQL store's counters and error
// classes look like, on a store that needs no server.
type flakyStore struct {
	store.Forward
	calls, retries, failures atomic.Int64
}

// injectedError is a failure of class "injected".
type injectedError struct{}

func (injectedError) Error() string      { return "injected failure" }
func (injectedError) ErrorClass() string { return "injected" }

func (s *flakyStore) GetNode(ctx context.Context, nodeType int32, id int64) (store.Node, bool, error) {
	n := s.calls.Add(1)
	for attempt := 0; ; attempt++ {
		if n%97 == 0 {
			s.failures.Add(1)
			return store.Node{}, false, fmt.Errorf("get node %d: %w", id, injectedError{})
		}
		if n%20 == 0 && attempt == 0 {
			s.retries.Add(1)
			continue
		}
		return s.Forward.GetNode(ctx, nodeType, id)
	}
}

func (s *flakyStore) Counters() []store.Counter {
	return []store.Counter{{Name: "failures.GetNode", Value: s.failures.Load()},
		{Name: "max_retries.GetNode", Value: min(s.retries.Load(), 1)},
		{Name: "retries.GetNode", Value: s.retries.Load()}}
}

func (s *flakyStore) Capabilities() store.Capability {
	return s.Forward.Capabilities() | store.CapCounters
}

// runConfig is a small run of a few seconds per request step.
func runConfig(maxTime time.Duration) linkbench.Config {
	cfg := linkbench.DefaultConfig()
	cfg.MaxID1 = 5001
	cfg.NLinksFunc, cfg.NLinksDefault = "const", 5
	cfg.DataFile = ""
	cfg.Loaders, cfg.Requesters = 2, 4
	cfg.RunFor(maxTime)
	cfg.LoadRandomSeed, cfg.RequestRandomSeed = linkbench.FixedSeed(1), linkbench.FixedSeed(2)
	cfg.ProgressFreq = 0
	cfg.MaxFailedRequests = -1
	return cfg
}

// scrape reads the metrics of url in the protobuf format (the one that
// carries native histograms, which Prometheus asks for), by name.
func scrape(url string) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeProtoDelim)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("GET %s: %s: %s", url, resp.Status, b)
	}
	fams := map[string]*dto.MetricFamily{}
	dec := expfmt.NewDecoder(resp.Body, expfmt.ResponseFormat(resp.Header))
	for {
		var f dto.MetricFamily
		if err := dec.Decode(&f); errors.Is(err, io.EOF) {
			return fams, nil
		} else if err != nil {
			return nil, err
		}
		fams[f.GetName()] = &f
	}
}

// labels returns m's labels as a map.
func labels(m *dto.Metric) map[string]string {
	l := map[string]string{}
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

// matches reports whether m has every label of want.
func matches(m *dto.Metric, want map[string]string) bool {
	l := labels(m)
	for k, v := range want {
		if l[k] != v {
			return false
		}
	}
	return true
}

// sum adds the values of the family's counters and gauges matching want.
func sum(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	var s float64
	for _, m := range fams[name].GetMetric() {
		if matches(m, want) {
			s += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return s
}

// histogram returns the histogram of the family matching want (nil when
// none).
func histogram(fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Histogram {
	for _, m := range fams[name].GetMetric() {
		if matches(m, want) {
			return m.GetHistogram()
		}
	}
	return nil
}

// nativeBucket is one native bucket: values in (lo, hi], count of them.
type nativeBucket struct {
	lo, hi float64
	count  int64
}

// nativeBuckets decodes a histogram's native buckets (spans and deltas).
func nativeBuckets(h *dto.Histogram) []nativeBucket {
	base := math.Exp2(math.Exp2(-float64(h.GetSchema())))
	var out []nativeBucket
	idx, d := int32(0), 0
	var c int64
	for i, sp := range h.GetPositiveSpan() {
		if i == 0 {
			idx = sp.GetOffset()
		} else {
			idx += sp.GetOffset()
		}
		for range sp.GetLength() {
			c += h.GetPositiveDelta()[d]
			d++
			out = append(out, nativeBucket{lo: math.Pow(base, float64(idx-1)), hi: math.Pow(base, float64(idx)), count: c})
			idx++
		}
	}
	return out
}

// nativeQuantile is the quantile q of h's native buckets as Prometheus's
// histogram_quantile computes it (the bucket holding rank q·count,
// interpolated exponentially within it), with the bucket's bounds.
func nativeQuantile(h *dto.Histogram, q float64) (v, lo, hi float64) {
	rank := q * float64(h.GetSampleCount())
	cum := float64(h.GetZeroCount())
	if rank <= cum {
		return 0, 0, h.GetZeroThreshold()
	}
	for _, b := range nativeBuckets(h) {
		if cum+float64(b.count) >= rank {
			f := (rank - cum) / float64(b.count)
			return b.lo * math.Pow(b.hi/b.lo, f), b.lo, b.hi
		}
		cum += float64(b.count)
	}
	return math.Inf(1), 0, math.Inf(1)
}

// classicQuantile is the quantile q of h's classic buckets as
// histogram_quantile computes it (linear interpolation), with the
// bucket's bounds.
func classicQuantile(h *dto.Histogram, q float64) (v, lo, hi float64) {
	rank := q * float64(h.GetSampleCount())
	var prev float64
	var prevCount uint64
	for _, b := range h.GetBucket() {
		if float64(b.GetCumulativeCount()) >= rank {
			n := b.GetCumulativeCount() - prevCount
			return prev + (b.GetUpperBound()-prev)*(rank-float64(prevCount))/float64(n), prev, b.GetUpperBound()
		}
		prev, prevCount = b.GetUpperBound(), b.GetCumulativeCount()
	}
	return math.Inf(1), prev, math.Inf(1)
}

// TestScrapeDuringRun: a load and two request steps on the memory store
// (with a retry loop and injected failures), scraped every 100 ms over
// HTTP while they run. The request counters grow while the phases run and
// never decrease; at the end every phase's counts and histograms equal its
// report's, the p50, p99 and p99.9 computed from the scraped native and
// classic buckets agree with the report's within their buckets, and every
// metric the Grafana dashboard (deploy/grafana/linkbench.json) queries is
// in the scrape.
func TestScrapeDuringRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a few seconds: skipped with -short")
	}
	// The registry of the tool's -metrics-addr: the exporter's metrics
	// and the process's.
	reg := prometheus.NewPedanticRegistry()
	exp, err := promexport.New(reg, promexport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	defer srv.Close()

	cfg := runConfig(2 * time.Second)
	cfg.IntervalFreq = 400 * time.Millisecond // a few intervals per step
	st := &flakyStore{Forward: store.Forward{Inner: memstore.New()}}
	plan := linkbench.Plan{Load: true, Request: true, Steps: 2, Label: "scrape", StoreName: "memory"}
	exp.Attach(&cfg, &plan, st)

	// The scraper: the request steps' calls, and whether L1 was running.
	type sample struct {
		calls   [2]float64 // L1, L2
		running [2]float64
	}
	var (
		samples   []sample
		scrapeMu  sync.Mutex
		scrapeErr error
	)
	done := make(chan struct{})
	scraped := make(chan struct{})
	go func() {
		defer close(scraped)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			fams, err := scrape(srv.URL)
			scrapeMu.Lock()
			if err != nil {
				scrapeErr = err
				scrapeMu.Unlock()
				return
			}
			var s sample
			for i, step := range []string{"1", "2"} {
				l := map[string]string{"phase": "request", "step": step}
				s.calls[i] = sum(fams, "linkbench_calls_total", l)
				s.running[i] = sum(fams, "linkbench_phase_running", l)
			}
			samples = append(samples, s)
			scrapeMu.Unlock()
		}
	}()
	res, err := linkbench.Run(context.Background(), cfg, st, plan)
	close(done)
	<-scraped
	if err != nil {
		t.Fatal(err)
	}
	if scrapeErr != nil {
		t.Fatal(scrapeErr)
	}

	// During the run: growing while running, never decreasing.
	for i := range 2 {
		grew := 0
		for j := 1; j < len(samples); j++ {
			a, b := samples[j-1], samples[j]
			if b.calls[i] < a.calls[i] {
				t.Errorf("step %d: calls_total went down from %g to %g", i+1, a.calls[i], b.calls[i])
			}
			if b.calls[i] > a.calls[i] && a.running[i] == 1 && b.running[i] == 1 {
				grew++
			}
		}
		if grew < 2 {
			t.Errorf("step %d: calls_total grew between %d pairs of scrapes while the step ran, want >= 2 (%d scrapes)", i+1, grew, len(samples))
		}
	}

	// At the end: every phase's figures are its report's.
	fams, err := scrape(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("%d phases, want 3", len(res))
	}
	var errs int64
	for _, r := range res {
		rep := r.Report
		pl := map[string]string{"phase": strings.ToLower(rep.Phase.String()), "tag": r.Tag}
		if r.Step > 0 {
			pl["step"] = fmt.Sprint(r.Step)
		}
		if got := sum(fams, "linkbench_phase_running", pl); got != 0 {
			t.Errorf("%s: phase_running %g after the phase", r.Base, got)
		}
		for _, o := range rep.Ops {
			if o.Op.IsSize() {
				continue
			}
			l := map[string]string{"op": o.Op.String()}
			for k, v := range pl {
				l[k] = v
			}
			name := r.Base + " " + o.Op.String()
			for _, c := range []struct {
				metric string
				want   int64
			}{{"linkbench_calls_total", o.Count()}, {"linkbench_misses_total", o.Misses},
				{"linkbench_abandoned_total", o.Abandoned}, {"linkbench_errors_total", o.Errors}} {
				if got := sum(fams, c.metric, l); got != float64(c.want) {
					t.Errorf("%s: %s = %g, the report's %d", name, c.metric, got, c.want)
				}
			}
			errs += o.Errors
			lat := histogram(fams, "linkbench_latency_seconds", l)
			if lat.GetSampleCount() != uint64(o.Latency.Count) {
				t.Errorf("%s: latency histogram of %d values, the report's %d", name, lat.GetSampleCount(), o.Latency.Count)
			}
			if e := histogram(fams, "linkbench_error_latency_seconds", l); e.GetSampleCount() != uint64(o.ErrorLatency.Count) {
				t.Errorf("%s: error latency histogram of %d values, the report's %d", name, e.GetSampleCount(), o.ErrorLatency.Count)
			}
			if o.Latency.Count < 1000 {
				continue // too few values for the percentiles to mean much
			}
			// The mean: the buckets' middles are within HDR's 1 %.
			if mean, want := lat.GetSampleSum()/float64(lat.GetSampleCount()), o.Latency.Mean*1e-6; math.Abs(mean/want-1) > 0.02 {
				t.Errorf("%s: mean %g s from the scrape, the report's %g s", name, mean, want)
			}
			for _, q := range []float64{0.5, 0.99, 0.999} {
				d, _ := o.Quantile(q)
				want := d.Seconds()
				// The report's quantile (HDR, 3 digits) must fall in the
				// scraped bucket that holds the rank, widened by the
				// intervals' HDR resolution (2 digits: 1 %) at each end.
				const hdrRes = 1.01
				v, lo, hi := nativeQuantile(lat, q)
				if want < lo/hdrRes || want > hi*hdrRes {
					t.Errorf("%s: p%g %g s from the native buckets (bucket %g..%g s), the report's %g s", name, 100*q, v, lo, hi, want)
				}
				v, lo, hi = classicQuantile(lat, q)
				if want < lo/hdrRes || want > hi*hdrRes {
					t.Errorf("%s: p%g %g s from the classic buckets (bucket %g..%g s), the report's %g s", name, 100*q, v, lo, hi, want)
				}
			}
		}
	}
	if errs == 0 {
		t.Error("no error injected: the errors' series were not checked")
	}
	if got := sum(fams, "linkbench_errors_total", map[string]string{"class": "injected"}); got != float64(errs) {
		t.Errorf("errors_total{class=injected} = %g, want %d", got, errs)
	}
	if got, want := sum(fams, "linkbench_store_retries_total", map[string]string{"call": "GetNode"}), float64(st.retries.Load()); got != want || want == 0 {
		t.Errorf("store_retries_total{call=GetNode} = %g, want %g (> 0)", got, want)
	}
	if got := sum(fams, "linkbench_config_info", map[string]string{"key": "maxid1", "value": "5001"}); got != 1 {
		t.Errorf("config_info{key=maxid1,value=5001} = %g, want 1", got)
	}
	if got := sum(fams, "linkbench_run_info", map[string]string{"label": "scrape", "store": "memory"}); got != 1 {
		t.Errorf("run_info = %g, want 1", got)
	}
	load := res[0].Report.Load
	if got := sum(fams, "linkbench_load_rows_total", map[string]string{"phase": "load"}); got != float64(load.Nodes+load.Links+load.Counts) {
		t.Errorf("load_rows_total = %g, want %d", got, load.Nodes+load.Links+load.Counts)
	}
	// Every metric the Grafana dashboard queries is in the scrape.
	checkDashboard(t, fams)
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	sort.Strings(names)
	t.Logf("%d scrapes during the run; families: %s", len(samples), strings.Join(names, " "))
}
