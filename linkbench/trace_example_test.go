package linkbench_test

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// Trace every store call of a short request phase, as the command-line
// tool's -trace FILE does (there, to a file), in the Java-compatible mode.
// (The Java benchmark, run with the same settings, makes these five calls.)
func ExampleTracer() {
	cfg := linkbench.DefaultConfig()
	cfg.MaxID1 = 1001
	cfg.NLinksFunc, cfg.NLinksDefault = "const", 4
	cfg.Requesters = 1
	cfg.Requests = 5
	cfg.MaxTime = time.Minute
	cfg.RequestRandomSeed = linkbench.FixedSeed(3)
	cfg.RNG = linkbench.RNGJava // LinkBench's own streams: the Java benchmark makes the same calls
	cfg.DataFile = ""           // not needed: no real distribution in this workload
	cfg.AllowEmptyStore = true  // requests on a store that was not loaded, deliberately

	tr := linkbench.NewTracer(os.Stdout)
	st := tr.Wrap(memstore.New()) // the traced store keeps memstore's capabilities
	if _, err := linkbench.Request(context.Background(), cfg, st); err != nil {
		log.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// # request request_random_seed=3 rng=java requesters=1 requests=5 request_stream_seed=3 step=0 sweep=0 shard=0/1
	// t0 getLinkList id1=178 type=123456790
	// t0 getLinkList id1=115 type=123456789
	// t0 getNode id=1
	// t0 getLinkList id1=10 type=123456789
	// t0 getNode id=1
}
