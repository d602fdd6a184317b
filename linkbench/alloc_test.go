package linkbench

import (
	"context"
	"testing"

	"github.com/linkbench-go/linkbench/store/discard"
)

// requestAllocs returns the heap allocations of a request phase of cfg
// with one requester doing n requests against store/discard.
func requestAllocs(t *testing.T, cfg Config, n int64) float64 {
	t.Helper()
	cfg.Requesters = 1
	cfg.Requests = n
	cfg.ProgressFreq = 0
	cfg.ReqProgressInterval = 0 // its lines allocate, once per that many requests
	var err error
	allocs := testing.AllocsPerRun(1, func() {
		// A fake clock (1 ms per reading): every latency is the same, so
		// that the histograms' pages, made on their first value, are the
		// same in a long phase as in a short one whatever the machine
		// does meanwhile.
		var clk fakeClock
		cfg.monotonic = clk.read
		if _, e := Request(context.Background(), cfg, discard.New()); e != nil {
			err = e
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return allocs
}

// TestRequestLoopAllocs: a requester's loop allocates nothing per request
// (the generation of ids and payloads, the store call, the clock, the
// recording and the bookkeeping): a phase of 200,000 more requests
// allocates what a short one does, but for the few lazily grown buffers
// (histograms, payloads, the id2 and link slices), in both random modes,
// with the built-in out-degree and with Distribution.dat.
func TestRequestLoopAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	const short, long = 2_000, 202_000
	check := func(t *testing.T, cfg Config) {
		a, b := requestAllocs(t, cfg, short), requestAllocs(t, cfg, long)
		// The lazily grown buffers make a few (payloads reach larger
		// sizes); one allocation in any request kind (the rarest,
		// DELETE_NODE, is 0.25 % of them) would make 500 or more.
		if perReq := (b - a) / (long - short); perReq > 0.0002 {
			t.Errorf("%.0f allocations for %d requests, %.0f for %d: %.4f per request, want 0",
				a, short, b, long, perReq)
		}
	}
	t.Run("builtin", func(t *testing.T) {
		cfg := smallConfig(200_001)
		check(t, cfg)
	})
	t.Run("real", func(t *testing.T) {
		check(t, realBenchConfig(t))
	})
	t.Run("java", func(t *testing.T) {
		cfg := realBenchConfig(t)
		cfg.RNG = RNGJava
		check(t, cfg)
	})
}
