package harness_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/examples/harness"
	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/fault"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// newStore is the store under test: put your own store's constructor here.
func newStore(t testing.TB) store.Store {
	s := memstore.New()
	t.Cleanup(func() { s.Close() })
	return s
}

// limits are the gate: generous for an in-process store on a shared CI
// machine, tight enough that a store that sleeps or fails crosses them.
var limits = harness.Limits{
	P99: map[stats.Op]time.Duration{
		stats.GetNode:      25 * time.Millisecond,
		stats.UpdateNode:   25 * time.Millisecond,
		stats.UpdateLink:   25 * time.Millisecond,
		stats.GetLinksList: 25 * time.Millisecond,
	},
	MaxErrors:   0,
	MinRequests: 1000,
}

// run loads the graph into st and runs the request phase on wrap(st).
func run(t testing.TB, cfg linkbench.Config, st store.Store, wrap func(store.Store) store.Store) *stats.Report {
	ctx := context.Background()
	if _, err := linkbench.Load(ctx, cfg, st); err != nil {
		t.Fatal(err)
	}
	r, err := linkbench.Request(ctx, cfg, wrap(st))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func same(s store.Store) store.Store { return s }

// TestP99Gate is the gate: it fails when the store's p99 or error count
// crosses the limits.
func TestP99Gate(t *testing.T) {
	d := 2 * time.Second
	if testing.Short() {
		d = time.Second
	}
	r := run(t, harness.SmallConfig(4, d), newStore(t), same)
	p99 := func(op stats.Op) time.Duration { d, _ := r.Quantile(op, 0.99); return d } // Check gates them
	t.Logf("%.0f requests/s, GET_NODE p99 %v, GET_LINKS_LIST p99 %v, UPDATE_LINK p99 %v",
		r.Throughput(), p99(stats.GetNode), p99(stats.GetLinksList), p99(stats.UpdateLink))
	if err := harness.Check(r, limits); err != nil {
		t.Fatalf("the store crossed the gate:\n%v", err)
	}
}

// TestGateCatchesSlowAndFailingStore checks that the gate can fail: the
// same store behind a fault injector that delays every GetNode by 30 ms
// and fails one AddLink in five crosses the GET_NODE p99 and the error
// limit, and only those.
func TestGateCatchesSlowAndFailingStore(t *testing.T) {
	cfg := harness.SmallConfig(4, time.Second)
	cfg.MaxFailedRequests = -1 // keep going: the gate counts the failures
	failAdds := fault.Every(5, fault.Fault{Fail: true})
	policy := func(op string) fault.Fault {
		switch op {
		case "GetNode":
			return fault.Fault{Delay: 30 * time.Millisecond}
		case "AddLink":
			return failAdds(op)
		}
		return fault.Fault{}
	}
	r := run(t, cfg, newStore(t), func(s store.Store) store.Store { return fault.Wrap(s, policy) })
	l := limits
	l.MinRequests = 10
	err := harness.Check(r, l)
	if err == nil {
		t.Fatal("a store that sleeps 30 ms per GetNode and fails AddLinks passed the gate")
	}
	msg := err.Error()
	for _, want := range []string{"GET_NODE: p99", "failed requests, limit 0"} {
		if !strings.Contains(msg, want) {
			t.Errorf("gate error lacks %q:\n%s", want, msg)
		}
	}
	for _, not := range []string{"UPDATE_LINK", "GET_LINKS_LIST", "want at least"} {
		if strings.Contains(msg, not) {
			t.Errorf("gate error names %q, which the faults did not touch:\n%s", not, msg)
		}
	}
}

// TestGateFailsWhenAGatedOpHasNoLatency: a gated operation whose every
// call failed has no latency: the gate reports it not measured instead of
// passing its p99 as 0 (its failures allowed here, so that only the p99
// gate can fail).
func TestGateFailsWhenAGatedOpHasNoLatency(t *testing.T) {
	cfg := harness.SmallConfig(2, time.Minute)
	cfg.Requests = 1000
	cfg.MaxFailedRequests = -1
	failGets := func(op string) fault.Fault {
		if op == "GetNode" {
			return fault.Fault{Fail: true}
		}
		return fault.Fault{}
	}
	r := run(t, cfg, newStore(t), func(s store.Store) store.Store { return fault.Wrap(s, failGets) })
	if o, ok := r.Op(stats.GetNode); !ok || o.Errors == 0 || o.Latency.Count != 0 {
		t.Fatalf("GET_NODE %+v (in the report: %v), want only failed calls", o, ok)
	}
	l := limits
	l.MaxErrors = 1 << 40
	err := harness.Check(r, l)
	if err == nil || !strings.Contains(err.Error(), "GET_NODE: not measured") {
		t.Fatalf("a run whose every GET_NODE failed: gate %v, want GET_NODE not measured", err)
	}
	for _, not := range []string{"UPDATE_LINK", "GET_LINKS_LIST", "failed requests"} {
		if strings.Contains(err.Error(), not) {
			t.Errorf("gate error names %q:\n%v", not, err)
		}
	}
}

// BenchmarkRequest measures the request phase on the store: b.N requests
// shared by 4 requesters after a load outside the timer. ns/op is the wall
// time per request of the whole phase; the other metrics are LinkBench's
// figures (throughput, and the p99 of the operations benchmarkers
// compare), so benchstat compares them between two builds.
func BenchmarkRequest(b *testing.B) {
	const requesters = 4
	cfg := harness.SmallConfig(requesters, linkbench.NoTimeLimit)
	cfg.Requests = int64(max(1, (b.N+requesters-1)/requesters))
	ctx := context.Background()
	st := newStore(b)
	if _, err := linkbench.Load(ctx, cfg, st); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	r, err := linkbench.Request(ctx, cfg, st)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(r.Elapsed.Nanoseconds())/float64(r.Request.Requests), "ns/op")
	b.ReportMetric(r.Throughput(), "requests/s")
	b.ReportMetric(float64(r.Request.Errors), "errors")
	for _, m := range []struct {
		op   stats.Op
		unit string
	}{{stats.UpdateNode, "un-p99-ns"}, {stats.GetNode, "gn-p99-ns"}, {stats.UpdateLink, "ul-p99-ns"}, {stats.GetLinksList, "gl-p99-ns"}} {
		if p99, ok := r.Quantile(m.op, 0.99); ok {
			b.ReportMetric(float64(p99.Nanoseconds()), m.unit)
		}
	}
}

// TestBenchmarkMetrics runs the benchmark once and checks that it reports
// the figures benchstat is given.
func TestBenchmarkMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark (about a second)")
	}
	res := testing.Benchmark(BenchmarkRequest)
	if res.N == 0 {
		t.Fatal("the benchmark did not run")
	}
	for _, unit := range []string{"requests/s", "errors", "un-p99-ns", "gn-p99-ns", "ul-p99-ns", "gl-p99-ns"} {
		if _, ok := res.Extra[unit]; !ok {
			t.Errorf("no %s metric in %v", unit, res.Extra)
		}
	}
	if res.Extra["requests/s"] <= 0 || res.Extra["gn-p99-ns"] <= 0 || res.Extra["errors"] != 0 {
		t.Errorf("metrics %v", res.Extra)
	}
	t.Logf("%d requests: %v", res.N, res.Extra)
}

// Gate a run on its request count, error count and p99 latencies.
func ExampleCheck() {
	cfg := harness.SmallConfig(2, time.Minute)
	cfg.Requests = 500 // per requester: the run ends after 1000 requests
	st := memstore.New()
	defer st.Close()
	ctx := context.Background()
	if _, err := linkbench.Load(ctx, cfg, st); err != nil {
		log.Fatal(err)
	}
	r, err := linkbench.Request(ctx, cfg, st)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(harness.Check(r, harness.Limits{P99: map[stats.Op]time.Duration{stats.GetNode: time.Second}, MinRequests: 1000}))
	fmt.Println(harness.Check(r, harness.Limits{MinRequests: 5000}))
	// Output:
	// <nil>
	// 1000 requests, want at least 5000
}
