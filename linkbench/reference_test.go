package linkbench

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/internal/testref"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// The driver-level expectations of reference §10.1 (LinkBench's own unit
// tests of its loader and requester), each with the reference's tolerance.

// constLinks sets a constant out-degree of n links per id1.
func constLinks(cfg *Config, n int64) {
	cfg.NLinksFunc = "const"
	cfg.NLinksDefault = n
	cfg.NLinksConfig = 0
}

func uniformGen() DataGenConfig {
	return DataGenConfig{Kind: DataGenUniform, StartByte: 0, EndByte: 255, Set: true}
}

func dist(kind distributions.Kind, fn string) DistConfig {
	return DistConfig{Function: fn, Spec: distributions.Spec{Kind: kind}, Set: true}
}

// §10.1 "loader": 50000 ids, 3 links each, one loader, chunks of 128.
func TestReferenceLoader(t *testing.T) {
	cfg := smallConfig(50001)
	constLinks(&cfg, 3)
	cfg.LinkTypeCount = 1
	cfg.LinkDataSize = 100
	cfg.LinkAddData = uniformGen()
	cfg.NodeAddData = uniformGen()
	cfg.LoaderChunkSize = 128
	cfg.Loaders = 1
	cfg.Now = nil // real clock: times must not be after the end of the test
	ms := memstore.New()
	rec := &recStore{Store: ms, t: t, counts: map[[2]int64]int64{}, countWrites: map[[2]int64]int{},
		calls: map[string]int{}, countsOnly: true}
	rep, err := Load(context.Background(), cfg, bulkStore{rec})
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now().UnixMilli()
	if len(rec.countWrites) != 50000 || rep.Load.Links != 150000 {
		t.Fatalf("%d count rows, %d links; want 50000, 150000", len(rec.countWrites), rep.Load.Links)
	}
	ctx := context.Background()
	var buf []store.Link
	for id := int64(1); id <= 50000; id++ {
		if c, _ := ms.CountLinks(ctx, id, store.DefaultLinkType); c != 3 {
			t.Fatalf("id %d: count %d", id, c)
		}
		buf, err = ms.GetLinkList(ctx, store.FullRange(id, store.DefaultLinkType), buf[:0])
		if err != nil || len(buf) != 3 {
			t.Fatalf("id %d: list of %d, %v", id, len(buf), err)
		}
		for i, l := range buf {
			if l.ID1 != id || l.LinkType != store.DefaultLinkType || l.Visibility != store.VisibilityDefault || l.Time > end {
				t.Fatalf("id %d: link %+v", id, l)
			}
			if i > 0 && l.Time > buf[i-1].Time {
				t.Fatalf("id %d: times not newest first", id)
			}
		}
	}
}

// countStore counts store calls by method.
type countStore struct {
	store.Store
	mu    sync.Mutex
	calls map[string]int64
	// history counts GetLinkList calls that are history queries (offset 1).
	history int64
}

func newCountStore(inner store.Store) *countStore {
	return &countStore{Store: inner, calls: map[string]int64{}}
}

func (s *countStore) inc(m string) {
	s.mu.Lock()
	s.calls[m]++
	s.mu.Unlock()
}

func (s *countStore) total() (n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.calls {
		n += c
	}
	return n
}

func (s *countStore) AddLink(ctx context.Context, l store.Link, ni bool) (store.WriteResult, error) {
	s.inc("AddLink")
	return s.Store.AddLink(ctx, l, ni)
}
func (s *countStore) UpdateLink(ctx context.Context, l store.Link, ni bool) (store.WriteResult, error) {
	s.inc("UpdateLink")
	return s.Store.UpdateLink(ctx, l, ni)
}
func (s *countStore) DeleteLink(ctx context.Context, a, b, c int64, ni, ex bool) (bool, error) {
	s.inc("DeleteLink")
	return s.Store.DeleteLink(ctx, a, b, c, ni, ex)
}
func (s *countStore) CountLinks(ctx context.Context, a, b int64) (int64, error) {
	s.inc("CountLinks")
	return s.Store.CountLinks(ctx, a, b)
}
func (s *countStore) MultigetLinks(ctx context.Context, a, b int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	s.inc("MultigetLinks")
	return s.Store.MultigetLinks(ctx, a, b, id2s, dst)
}
func (s *countStore) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	s.inc("GetLinkList")
	if r.Offset == 1 {
		s.mu.Lock()
		s.history++
		s.mu.Unlock()
	}
	return s.Store.GetLinkList(ctx, r, dst)
}
func (s *countStore) AddNode(ctx context.Context, n store.Node) (int64, error) {
	s.inc("AddNode")
	return s.Store.AddNode(ctx, n)
}
func (s *countStore) GetNode(ctx context.Context, ty int32, id int64) (store.Node, bool, error) {
	s.inc("GetNode")
	return s.Store.GetNode(ctx, ty, id)
}
func (s *countStore) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	s.inc("UpdateNode")
	return s.Store.UpdateNode(ctx, n)
}
func (s *countStore) DeleteNode(ctx context.Context, ty int32, id int64) (bool, error) {
	s.inc("DeleteNode")
	return s.Store.DeleteNode(ctx, ty, id)
}

// loadThenCount loads cfg's graph into a memory store, then runs the
// request phase through a countStore and returns it.
func loadThenCount(t *testing.T, cfg Config) *countStore {
	t.Helper()
	ms := memstore.New()
	if _, err := Load(context.Background(), cfg, ms); err != nil {
		t.Fatal(err)
	}
	cs := newCountStore(ms)
	if _, err := Request(context.Background(), cfg, cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// checkFractions asserts each method's share of the calls within ±tol.
func checkFractions(t *testing.T, cs *countStore, n int64, want map[string]float64, tol float64) {
	t.Helper()
	if got := cs.total(); got != n {
		t.Errorf("%d store calls for %d requests", got, n)
	}
	for m, p := range want {
		if f := float64(cs.calls[m]) / float64(n); math.Abs(f-p) > tol {
			t.Errorf("%s: %.4f of the calls, want %.2f ± %.2f", m, f, p, tol)
		}
	}
}

// §10.1 "requester mix": link operations only, RECIPROCAL reads blended
// with Zipf, Uniform writes, a Geometric multiget size.
func TestReferenceRequesterMix(t *testing.T) {
	cfg := smallConfig(50532)
	cfg.StartID1 = 532
	constLinks(&cfg, 5)
	cfg.Mix = Mix{AddLink: 20, DeleteLink: 20, UpdateLink: 10, CountLink: 10, GetLink: 20, GetLinkList: 20}
	cfg.Write = dist(distributions.KindUniform, "com.facebook.LinkBench.distributions.UniformDistribution")
	cfg.Read = dist(distributions.KindReciprocal, "RECIPROCAL")
	cfg.ReadUncorrBlend = 0.5
	cfg.ReadUncorr = DistConfig{Function: "com.facebook.LinkBench.distributions.ZipfDistribution",
		Spec: distributions.Spec{Kind: distributions.KindZipf, Shape: 0.5}, Set: true}
	cfg.MultigetDist = DistConfig{Function: "com.facebook.LinkBench.distributions.GeometricDistribution",
		Spec: distributions.Spec{Kind: distributions.KindGeometric, Prob: 0.8}, Set: true}
	cfg.MultigetDistMin, cfg.MultigetDistMax = 0, 10
	cfg.LinkDataSize = 200
	cfg.LinkAddData, cfg.LinkUpData = uniformGen(), uniformGen()
	cfg.Requesters = 1
	cfg.Requests = 100000
	cs := loadThenCount(t, cfg)
	checkFractions(t, cs, cfg.Requests, map[string]float64{"AddLink": 0.2, "DeleteLink": 0.2, "UpdateLink": 0.1,
		"CountLinks": 0.1, "MultigetLinks": 0.2, "GetLinkList": 0.2}, 0.05)
}

// §10.1 "full workload": link and node operations on a loaded graph with
// nodes; node updates ROUND_ROBIN.
func TestReferenceFullWorkload(t *testing.T) {
	cfg := smallConfig(50001)
	constLinks(&cfg, 5)
	cfg.Mix = Mix{AddLink: 10, DeleteLink: 5, UpdateLink: 5, CountLink: 5, GetLink: 5, GetLinkList: 10,
		AddNode: 20, UpdateNode: 5, DeleteNode: 5, GetNode: 30}
	cfg.NodeDataSize = 1024
	cfg.NodeAddData, cfg.NodeUpData = uniformGen(), uniformGen()
	cfg.NodeRead = dist(distributions.KindUniform, "com.facebook.LinkBench.distributions.UniformDistribution")
	cfg.NodeUpdate = dist(distributions.KindRoundRobin, "ROUND_ROBIN")
	cfg.NodeDelete = dist(distributions.KindUniform, "com.facebook.LinkBench.distributions.UniformDistribution")
	cfg.Requesters = 1
	cfg.Requests = 50000
	cs := loadThenCount(t, cfg)
	checkFractions(t, cs, cfg.Requests, map[string]float64{"AddLink": 0.1, "DeleteLink": 0.05, "UpdateLink": 0.05,
		"CountLinks": 0.05, "MultigetLinks": 0.05, "GetLinkList": 0.1, "AddNode": 0.2, "UpdateNode": 0.05,
		"DeleteNode": 0.05, "GetNode": 0.3}, 0.05)
}

// §10.1 "throttling": 2000 requests at requestrate = 500/s make 2000 store
// calls at an observed rate of at most 550/s. (The schedule is open loop:
// a rate above the configured one would mean requests sent early.)
func TestReferenceThrottling(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 4 s")
	}
	cfg := smallConfig(10001)
	cfg.Requesters = 1
	cfg.Requests = 2000
	cfg.RequestRate = 500
	cs := newCountStore(discard.New())
	start := time.Now()
	if _, err := Request(context.Background(), cfg, cs); err != nil {
		t.Fatal(err)
	}
	rate := float64(cs.total()) / time.Since(start).Seconds()
	if cs.total() != 2000 || rate > 550 {
		t.Errorf("%d calls at %.0f/s, want 2000 at <= 550/s", cs.total(), rate)
	}
}

// §10.1 "history": only link-list reads of lists longer than the
// 10000-link page, getlinklist_history = 25: about a quarter of them page
// into history, within [0.1875, 0.2625]. LinkBench's test shrinks the page
// to 10 links over lists of 200; the page here is LinkBench's 10000, so the
// lists have 20000 links and a history entry lives for one query. That
// geometry suits the fast mode only: the Java-compatible mode keeps
// LinkBench's stale index keys (§11.2-15), which with one-query lives
// empty the cache; its history behaviour is checked draw for draw against
// the Java benchmark instead (TestJavaTraces, hist-* runs).
func TestReferenceHistory(t *testing.T) {
	if raceEnabled {
		t.Skip("one requester, no concurrency for the race detector to check, and 30 s under it")
	}
	for _, mode := range []RNGMode{RNGFast} {
		t.Run(string(mode), func(t *testing.T) {
			cfg := smallConfig(11)
			cfg.RNG = mode
			constLinks(&cfg, 20000)
			cfg.LinkTypeCount = 1
			cfg.Loaders = 1
			cfg.Mix = Mix{GetLinkList: 100}
			cfg.Read = dist(distributions.KindUniform, "com.facebook.LinkBench.distributions.UniformDistribution")
			cfg.ReadUncorrBlend = 0
			cfg.GetLinkListHistory = 25
			cfg.Requesters = 1
			// sigma of the share: sqrt(0.25·0.75/3000) = 0.0079, the
			// bounds below are 4.7 sigma away (each list of 10000 links
			// costs the memory store about 2 ms: 10000 requests took 23 s).
			cfg.Requests = 3000
			cs := loadThenCount(t, cfg)
			share := float64(cs.history) / float64(cs.calls["GetLinkList"])
			if cs.calls["GetLinkList"] != cfg.Requests || share < 0.1875 || share > 0.2625 {
				t.Errorf("%d list calls, history share %.4f, want %d and [0.1875, 0.2625]",
					cs.calls["GetLinkList"], share, cfg.Requests)
			}
		})
	}
}

// payloadStore records payload lengths of link and node writes.
type payloadStore struct {
	store.Store
	mu    sync.Mutex
	links []int
	nodes []int
	ops   map[string]int64
}

func (s *payloadStore) note(op string, link, node int) {
	s.mu.Lock()
	if link >= 0 {
		s.links = append(s.links, link)
	}
	if node >= 0 {
		s.nodes = append(s.nodes, node)
	}
	s.ops[op]++
	s.mu.Unlock()
}

func (s *payloadStore) AddLink(ctx context.Context, l store.Link, ni bool) (store.WriteResult, error) {
	s.note("AddLink", len(l.Data), -1)
	return s.Store.AddLink(ctx, l, ni)
}
func (s *payloadStore) UpdateLink(ctx context.Context, l store.Link, ni bool) (store.WriteResult, error) {
	s.note("UpdateLink", len(l.Data), -1)
	return s.Store.UpdateLink(ctx, l, ni)
}
func (s *payloadStore) AddNode(ctx context.Context, n store.Node) (int64, error) {
	s.note("AddNode", -1, len(n.Data))
	return s.Store.AddNode(ctx, n)
}
func (s *payloadStore) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	s.note("UpdateNode", -1, len(n.Data))
	return s.Store.UpdateNode(ctx, n)
}
func (s *payloadStore) GetNode(ctx context.Context, ty int32, id int64) (store.Node, bool, error) {
	s.note("GetNode", -1, -1)
	return s.Store.GetNode(ctx, ty, id)
}

func meanVar(v []int) (m, variance float64) {
	for _, x := range v {
		m += float64(x)
	}
	m /= float64(len(v))
	for _, x := range v {
		d := float64(x) - m
		variance += d * d
	}
	return m, variance / float64(len(v)-1)
}

// TestFastModeMatchesJavaMode: the default fast mode is statistically
// equivalent to the Java-compatible mode: the same mean links per node,
// operation shares and payload-size means within 4 sigma of the samples.
func TestFastModeMatchesJavaMode(t *testing.T) {
	if raceEnabled {
		t.Skip("one loader and one requester, no concurrency for the race detector to check, and 11 s under it")
	}
	real := testref.File(t, "Distribution.dat")
	type result struct {
		links, nodes int64
		ops          map[string]int64
		requests     int64
		linkSizes    []int
		nodeSizes    []int
	}
	run := func(mode RNGMode) result {
		cfg := DefaultConfig()
		cfg.RNG = mode
		cfg.DataFile = real
		cfg.MaxID1 = 50001
		cfg.Loaders = 1
		cfg.Requesters = 1
		cfg.Requests = 200000
		if testing.Short() {
			cfg.Requests = 20000
		}
		cfg.MaxTime = time.Hour
		cfg.LoadRandomSeed, cfg.RequestRandomSeed = FixedSeed(11), FixedSeed(12)
		load, err := Load(context.Background(), cfg, discard.New())
		if err != nil {
			t.Fatal(err)
		}
		ps := &payloadStore{Store: discard.New(), ops: map[string]int64{}}
		rep, err := Request(context.Background(), cfg, ps)
		if err != nil {
			t.Fatal(err)
		}
		r := result{links: load.Load.Links, nodes: load.Load.Nodes, ops: map[string]int64{},
			requests: rep.Request.Requests, linkSizes: ps.links, nodeSizes: ps.nodes}
		for _, o := range rep.Ops {
			if o.Op.IsRequest() {
				r.ops[o.Op.String()] = o.Successes + o.Misses + o.Errors
			}
		}
		return r
	}
	fast, java := run(RNGFast), run(RNGJava)
	// Links per node: the out-degree does not depend on the random stream.
	if fast.links != java.links || fast.nodes != java.nodes {
		t.Errorf("loaded %d links / %d nodes (fast) vs %d / %d (java)", fast.links, fast.nodes, java.links, java.nodes)
	}
	for op := stats.AddNode; op <= stats.GetLinksList; op++ {
		n1, n2 := float64(fast.requests), float64(java.requests)
		c1, c2 := float64(fast.ops[op.String()]), float64(java.ops[op.String()])
		p := (c1 + c2) / (n1 + n2)
		sigma := math.Sqrt(p * (1 - p) * (1/n1 + 1/n2))
		if d := math.Abs(c1/n1 - c2/n2); d > 4*sigma {
			t.Errorf("%s: share %.5f (fast) vs %.5f (java): %.1f sigma", op, c1/n1, c2/n2, d/sigma)
		}
	}
	for _, s := range []struct {
		name string
		a, b []int
	}{{"link payload", fast.linkSizes, java.linkSizes}, {"node payload", fast.nodeSizes, java.nodeSizes}} {
		m1, v1 := meanVar(s.a)
		m2, v2 := meanVar(s.b)
		sigma := math.Sqrt(v1/float64(len(s.a)) + v2/float64(len(s.b)))
		if d := math.Abs(m1 - m2); d > 4*sigma {
			t.Errorf("%s mean %.2f (fast, %d) vs %.2f (java, %d): %.1f sigma", s.name, m1, len(s.a), m2, len(s.b), d/sigma)
		}
		t.Logf("%s mean bytes: fast %.2f, java %.2f (sigma of the difference %.2f)", s.name, m1, m2, sigma)
	}
}
