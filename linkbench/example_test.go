package linkbench_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// Load and then drive the shipped LinkBench workload against the in-memory
// store, from Go code.
func Example() {
	cfg := linkbench.DefaultConfig()
	cfg.MaxID1 = 1001
	cfg.NLinksFunc = "const" // a constant out-degree instead of LinkBench's real one:
	cfg.NLinksDefault = 4    // 4 links per id1 (2 per link type)
	cfg.Loaders = 2
	cfg.Requesters = 2
	cfg.Requests = 1000 // per requester
	cfg.MaxTime = time.Minute
	cfg.LoadRandomSeed = linkbench.FixedSeed(1)
	cfg.RequestRandomSeed = linkbench.FixedSeed(2)

	ctx := context.Background()
	st := memstore.New()
	defer st.Close()
	load, err := linkbench.Load(ctx, cfg, st)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("loaded %d nodes, %d links, %d count rows\n", load.Load.Nodes, load.Load.Links, load.Load.Counts)

	req, err := linkbench.Request(ctx, cfg, st)
	if err != nil {
		log.Fatal(err)
	}
	var n int64
	for _, op := range req.Ops {
		if op.Op.IsRequest() {
			n += op.Successes + op.Misses + op.Errors
		}
	}
	gn, _ := req.Op(stats.GetNode)
	fmt.Printf("%d requests, %d of them per-op counted, GET_NODE errors: %d\n", req.Request.Requests, n, gn.Errors)
	// Output:
	// loaded 1000 nodes, 4000 links, 2000 count rows
	// 2000 requests, 2000 of them per-op counted, GET_NODE errors: 0
}
