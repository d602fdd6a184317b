package linkbench

import (
	"context"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/internal/testref"
	"github.com/linkbench-go/linkbench/store/discard"
)

// cpuTime returns the process's user+system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchConfig is the default workload at maxid1 = 1,000,001 with the
// built-in out-degree model.
func benchConfig() Config {
	cfg := DefaultConfig()
	cfg.MaxID1 = 1_000_001
	cfg.DataFile = ""
	cfg.LoadRandomSeed = FixedSeed(1)
	cfg.RequestRandomSeed = FixedSeed(2)
	cfg.MaxTime = time.Hour
	return cfg
}

// BenchmarkRequest measures the generator's cost per request against
// store/discard: one requester doing b.N requests of the default workload
// (op choice, ids, payloads, latency timing and HDR recording). ns/op is
// wall time per request on one goroutine; cpu-ns/req is the process's CPU
// time per request.
func BenchmarkRequest(b *testing.B) {
	cfg := benchConfig()
	cfg.Requesters = 1
	cfg.Requests = int64(b.N)
	benchRequests(b, cfg, true)
}

// benchRequests runs cfg's request phase against store/discard as the
// benchmark's timed part and reports allocations and the process's CPU
// time per request done; exact: that cfg's requests are b.N in all and
// must all be done.
func benchRequests(b *testing.B, cfg Config, exact bool) {
	b.Helper()
	st := discard.New()
	b.ReportAllocs()
	c0 := cpuTime(b)
	b.ResetTimer()
	rep, err := Request(context.Background(), cfg, st)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if exact && rep.Request.Requests != int64(b.N) {
		b.Fatalf("%d requests done, want %d", rep.Request.Requests, b.N)
	}
	b.ReportMetric(float64(cpuTime(b)-c0)/float64(rep.Request.Requests), "cpu-ns/req")
}

// BenchmarkLoad measures the load phase's cost per link against
// store/discard: the whole default load of maxid1 = 1,000,001 (about 8
// million links with the rank-0 list of 4.2 million, and 1 million nodes)
// with one link loader and the node loader. The metrics are wall and CPU
// time per loaded link.
func BenchmarkLoad(b *testing.B) {
	cfg := benchConfig()
	cfg.Loaders = 1
	st := discard.New()
	b.ReportAllocs()
	var links int64
	c0 := cpuTime(b)
	t0 := time.Now()
	for range b.N {
		rep, err := Load(context.Background(), cfg, st)
		if err != nil {
			b.Fatal(err)
		}
		links += rep.Load.Links
	}
	b.ReportMetric(float64(time.Since(t0).Nanoseconds())/float64(links), "ns/link")
	b.ReportMetric(float64(cpuTime(b)-c0)/float64(links), "cpu-ns/link")
}

// BenchmarkRequestSetup measures Request's set-up at maxid1 = 1e9 (one
// requester, one request): it must not grow with maxid1.
func BenchmarkRequestSetup(b *testing.B) {
	cfg := benchConfig()
	cfg.MaxID1 = 1_000_000_001
	cfg.Requesters = 1
	cfg.Requests = 1
	st := discard.New()
	b.ReportAllocs()
	for range b.N {
		if _, err := Request(context.Background(), cfg, st); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJavaRequest is BenchmarkRequest in the Java-compatible mode
// (rng = java, java.util.Random, LinkBench's draw order) with the real
// Distribution.dat.
func BenchmarkJavaRequest(b *testing.B) {
	cfg := benchConfig()
	cfg.RNG = RNGJava
	cfg.DataFile = testref.File(b, "Distribution.dat")
	cfg.Requesters = 1
	cfg.Requests = int64(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := Request(context.Background(), cfg, discard.New()); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkTracedRequest is BenchmarkRequest with every store call traced
// (Tracer over store/discard, lines written to io.Discard).
func BenchmarkTracedRequest(b *testing.B) {
	cfg := benchConfig()
	cfg.Requesters = 1
	cfg.Requests = int64(b.N)
	tr := NewTracer(io.Discard)
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := Request(context.Background(), cfg, tr.Wrap(discard.New())); err != nil {
		b.Fatal(err)
	}
}

// realBenchConfig is the shipped workload (LinkBench's FBWorkload mix,
// access distributions and payload generators) at maxid1 = 200,001 with
// LinkBench's Distribution.dat, without progress lines: the issue's
// generator-alone run (-store discard -D maxid1=200001 -D data_file=...).
func realBenchConfig(tb testing.TB) Config {
	cfg := DefaultConfig()
	cfg.MaxID1 = 200_001
	cfg.DataFile = testref.File(tb, "Distribution.dat")
	cfg.LoadRandomSeed = FixedSeed(1)
	cfg.RequestRandomSeed = FixedSeed(2)
	cfg.MaxTime = time.Hour
	cfg.ProgressFreq = 0
	return cfg
}

// BenchmarkRequestReal measures the requester loop against store/discard
// with the shipped workload and the real Distribution.dat (see
// realBenchConfig): one requester doing b.N requests. ns/op is wall time
// per request, cpu-ns/req the process's CPU time per request, allocs/op
// the allocations per request (0: the loop allocates nothing).
func BenchmarkRequestReal(b *testing.B) {
	cfg := realBenchConfig(b)
	cfg.Requesters = 1
	cfg.Requests = int64(b.N)
	benchRequests(b, cfg, true)
}

// BenchmarkRequestReal2 is BenchmarkRequestReal with two requesters (the
// issue's run), b.N requests in all.
func BenchmarkRequestReal2(b *testing.B) {
	cfg := realBenchConfig(b)
	cfg.Requesters = 2
	cfg.Requests = int64(max(b.N/2, 1))
	benchRequests(b, cfg, false)
}
