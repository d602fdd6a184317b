package linkbench

import (
	"context"
	"errors"
	"testing"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
)

// checkLoad verifies the load invariants on what rec recorded: every id1
// in [startid1, maxid1) processed exactly once (one count row per link
// type in bulk mode; links of id1 only from one chunk), nodes exactly
// startid1..maxid1-1, and every count row equal to the number of visible
// links of its (id1, link_type).
func checkLoad(t *testing.T, cfg Config, rec *recStore, bulk bool, rep *stats.Report) {
	t.Helper()
	ctx := context.Background()
	n := cfg.MaxID1 - cfg.StartID1
	perKey := map[[2]int64]int64{}
	seen := map[[3]int64]bool{}
	for _, l := range rec.links {
		if l.ID1 < cfg.StartID1 || l.ID1 >= cfg.MaxID1 {
			t.Fatalf("link id1 %d outside [%d, %d)", l.ID1, cfg.StartID1, cfg.MaxID1)
		}
		k := [3]int64{l.ID1, l.LinkType, l.ID2}
		if seen[k] {
			t.Fatalf("link %v written twice", k)
		}
		seen[k] = true
		perKey[[2]int64{l.ID1, l.LinkType}]++
	}
	// Default rules: every id1 has at least one link of every type.
	if want := n * cfg.LinkTypeCount; int64(len(perKey)) != want {
		t.Errorf("%d (id1, link_type) pairs have links, want %d", len(perKey), want)
	}
	if bulk {
		if int64(len(rec.countWrites)) != n*cfg.LinkTypeCount {
			t.Errorf("%d count rows, want %d", len(rec.countWrites), n*cfg.LinkTypeCount)
		}
		for k, w := range rec.countWrites {
			if w != 1 {
				t.Errorf("count row %v written %d times", k, w)
			}
			if rec.counts[k] != perKey[k] {
				t.Errorf("count row %v = %d, links %d", k, rec.counts[k], perKey[k])
			}
		}
	}
	for k, c := range perKey {
		got, err := rec.CountLinks(ctx, k[0], k[1])
		if err != nil || got != c {
			t.Fatalf("CountLinks%v = %d, %v; want %d", k, got, err, c)
		}
	}
	// Nodes.
	if int64(len(rec.nodes)) != n {
		t.Errorf("%d nodes written, want %d", len(rec.nodes), n)
	}
	ids := map[int64]bool{}
	for _, nd := range rec.nodes {
		ids[nd.ID] = true
	}
	for id := cfg.StartID1; id < cfg.MaxID1; id++ {
		if !ids[id] {
			t.Fatalf("node %d not written", id)
		}
		if _, found, err := rec.GetNode(ctx, store.DefaultNodeType, id); !found || err != nil {
			t.Fatalf("GetNode(%d) found=%v err=%v", id, found, err)
		}
	}
	ns, err := rec.Store.(store.Checker).NodeStats(ctx)
	if err != nil || ns != (store.NodeStats{Count: n, MinID: cfg.StartID1, MaxID: cfg.MaxID1 - 1}) {
		t.Errorf("NodeStats = %+v, %v", ns, err)
	}
	if mm, _, err := rec.Store.(store.Checker).CheckCounts(ctx, 10); err != nil || len(mm) > 0 {
		t.Errorf("CheckCounts: %v %v", mm, err)
	}
	if rep.Load.Links != int64(len(rec.links)) || rep.Load.Nodes != n {
		t.Errorf("report: %+v; recorded %d links", rep.Load, len(rec.links))
	}
}

func TestLoadInvariants(t *testing.T) {
	cases := []struct {
		name             string
		startid1, maxid1 int64
		loaders          int
		chunk            int64
		batch            int
		ltc              int64
		bulk             bool
	}{
		{"one loader, default chunk", 1, 3001, 1, 2048, 1024, 2, true},
		{"four loaders, small chunks", 1, 3001, 4, 7, 100, 2, true},
		{"chunk of one id", 5, 600, 3, 1, 64, 3, true},
		{"n multiple of batch and chunk", 1, 2049, 2, 512, 1024, 2, true},
		{"n multiple of batch, 1 per batch", 1, 257, 2, 16, 1, 1, true},
		{"row by row", 1, 1501, 3, 100, 1024, 2, false},
		{"more loaders than chunks", 10, 50, 8, 64, 7, 2, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := smallConfig(c.maxid1)
			cfg.StartID1, cfg.Loaders, cfg.LoaderChunkSize, cfg.BulkInsertCount = c.startid1, c.loaders, c.chunk, c.batch
			cfg.LinkTypeCount = c.ltc
			zipfOutDegree(&cfg)
			rec := newRecStore(t)
			var st store.Store = rec
			if c.bulk {
				st = bulkStore{rec}
			}
			rep, err := Load(context.Background(), cfg, st)
			if err != nil {
				t.Fatal(err)
			}
			if c.bulk && rec.calls["AddLink"] > 0 || !c.bulk && rec.calls["AddBulkLinks"] > 0 {
				t.Errorf("calls %v", rec.calls)
			}
			checkLoad(t, cfg, rec, c.bulk, rep)
		})
	}
}

// TestLoadDeterminism: the same seed gives identical loaded data whatever
// the number of loaders; another seed gives other data.
func TestLoadDeterminism(t *testing.T) {
	run := func(loaders int, seed int64) string {
		cfg := smallConfig(5001)
		cfg.Loaders = loaders
		cfg.LoaderChunkSize = 97
		cfg.LoadRandomSeed = FixedSeed(seed)
		zipfOutDegree(&cfg)
		rec := newRecStore(t)
		if _, err := Load(context.Background(), cfg, bulkStore{rec}); err != nil {
			t.Fatal(err)
		}
		return rec.fingerprint()
	}
	a, b := run(1, 7), run(4, 7)
	if a != b {
		t.Errorf("loaders=1 gives %s, loaders=4 gives %s", a, b)
	}
	if c := run(4, 8); c == a {
		t.Errorf("seeds 7 and 8 give the same data %s", a)
	}
}

// TestLoadRealOutDegreeHeavyFirst: with the real out-degree, the id1 with
// the giant adjacency list is loaded and its count row equals its links.
func TestLoadGiantList(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 4.2 M links")
	}
	cfg := smallConfig(2001)
	rec := newRecStore(t)
	rec.countsOnly = true
	rep, err := Load(context.Background(), cfg, bulkStore{rec})
	if err != nil {
		t.Fatal(err)
	}
	max := int64(0)
	for k, c := range rec.counts {
		max = maxI(max, c)
		got, _ := rec.CountLinks(context.Background(), k[0], k[1])
		if got != c {
			t.Fatalf("count %v = %d, store has %d", k, c, got)
		}
	}
	// The rank-0 id1 of the real out-degree gets 4181357 links, split
	// evenly over the 2 link types.
	if max != 4181357/2 {
		t.Errorf("largest list %d links, want %d", max, 4181357/2)
	}
	if rep.Load.Links < 4181357 {
		t.Errorf("loaded %d links", rep.Load.Links)
	}
}

func maxI(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// failingBulk fails every AddBulkLinks.
type failingBulk struct{ bulkStore }

var errInjected = errors.New("injected failure")

func (s failingBulk) AddBulkLinks(context.Context, []store.Link, bool) error { return errInjected }

func TestLoadStoreErrorStopsLoad(t *testing.T) {
	cfg := smallConfig(3001)
	rep, err := Load(context.Background(), cfg, failingBulk{bulkStore{newRecStore(t)}})
	if !errors.Is(err, errInjected) {
		t.Fatalf("err = %v, want the store's error", err)
	}
	if rep == nil {
		t.Fatal("no report")
	}
	if op, ok := rep.Op(stats.LoadLinksBulk); !ok || op.Errors == 0 {
		t.Errorf("LOAD_LINKS_BULK errors not counted: %+v", op)
	}
}

func TestLoadConfigErrorWritesNothing(t *testing.T) {
	cfg := smallConfig(3001)
	cfg.Mix.GetNode = 1
	rec := newRecStore(t)
	// The mix is only a request-phase key but Validate checks it always.
	_, err := Load(context.Background(), cfg, bulkStore{rec})
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v", err)
	}
	if len(rec.links)+len(rec.nodes) > 0 || len(rec.calls) > 0 {
		t.Errorf("store was written: %v", rec.calls)
	}
}
