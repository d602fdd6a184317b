package memstore_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/store/memstore"
)

func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestEstimateBytes: the estimate of a loaded graph is within 35 % of the
// heap the store holds, for the real out-degree (one giant list, many
// small ones) and for constant out-degrees (small lists, big lists).
func TestEstimateBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("loads graphs of a few hundred MB")
	}
	for _, c := range []struct {
		name   string
		nlinks int64 // 0: the real out-degree (built-in model)
		maxid1 int64
	}{{"real", 0, 50_001}, {"const2", 2, 100_001}, {"const80", 80, 20_001}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := linkbench.DefaultConfig()
			cfg.MaxID1 = c.maxid1
			cfg.DataFile = ""
			cfg.Loaders = 2
			cfg.LoadRandomSeed = linkbench.FixedSeed(1)
			if c.nlinks > 0 {
				cfg.NLinksFunc, cfg.NLinksDefault = "const", c.nlinks
			}
			g, err := linkbench.EstimateGraph(cfg)
			if err != nil {
				t.Fatal(err)
			}
			st := memstore.New()
			before := liveHeap()
			rep, err := linkbench.Load(context.Background(), cfg, st)
			if err != nil {
				t.Fatal(err)
			}
			got := liveHeap() - before
			runtime.KeepAlive(st)
			if rep.Load.Links != g.Links || rep.Load.Nodes != g.Nodes {
				t.Errorf("estimated %d nodes, %d links; loaded %d, %d", g.Nodes, g.Links, rep.Load.Nodes, rep.Load.Links)
			}
			est := memstore.EstimateBytes(g.Nodes, g.NodeData, g.Links, g.LinkData, g.Lists)
			if r := float64(est) / float64(got); r < 0.65 || r > 1.35 {
				t.Errorf("estimate %d bytes, heap %d bytes (ratio %.2f)", est, got, r)
			}
			t.Logf("%s: estimate %d MB, heap %d MB", g, est>>20, got>>20)
		})
	}
}
