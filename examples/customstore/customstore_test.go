package customstore_test

import (
	"context"
	"fmt"
	"log"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/examples/customstore"
	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/storetest"
)

// TestConformance runs the conformance suite every store must pass.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s := customstore.New()
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestBenchmarkRun loads a graph into the store and runs requests on it,
// with the store opened by name through the registry: the load takes the
// bulk path (its capabilities are seen) and no request fails.
func TestBenchmarkRun(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, customstore.Name, "")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(st)
	if got, want := store.Capabilities(st), store.CapBulkLinks|store.CapBulkNodes|store.CapChecker; got != want {
		t.Errorf("capabilities %v, want %v", got, want)
	}
	cfg := linkbench.DefaultConfig()
	cfg.MaxID1 = 2001
	cfg.NLinksFunc = "const"
	cfg.NLinksDefault = 6
	cfg.Requesters = 4
	cfg.Requests = 2000
	cfg.MaxTime = time.Minute
	load, err := linkbench.Load(ctx, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	if load.Load.Links != 12000 || load.Load.Nodes != 2000 {
		t.Errorf("loaded %d links, %d nodes; want 12000, 2000", load.Load.Links, load.Load.Nodes)
	}
	req, err := linkbench.Request(ctx, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	if req.Request.Requests != 8000 {
		t.Errorf("%d requests, want 8000", req.Request.Requests)
	}
	for _, op := range req.Ops {
		if op.Errors != 0 {
			t.Errorf("%v: %d errors", op.Op, op.Errors)
		}
	}
	res, err := linkbench.Verify(ctx, cfg, st)
	if err != nil {
		t.Fatalf("verify: %v (%+v)", err, res)
	}
}

// The store answers the list query newest first.
func Example() {
	ctx := context.Background()
	s := customstore.New()
	defer s.Close()
	for i, t := range []int64{30, 10, 20} {
		if _, err := s.AddLink(ctx, store.Link{ID1: 1, LinkType: 7, ID2: int64(i), Visibility: store.VisibilityDefault, Time: t}, true); err != nil {
			log.Fatal(err)
		}
	}
	links, _ := s.GetLinkList(ctx, store.FullRange(1, 7), nil)
	for _, l := range links {
		fmt.Println(l.ID2, l.Time)
	}
	n, _ := s.CountLinks(ctx, 1, 7)
	fmt.Println("count", n)
	// Output:
	// 0 30
	// 2 20
	// 1 10
	// count 3
}
