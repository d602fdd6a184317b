package linkbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rand"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// traceStore records every call per requester (from WorkerFromContext).
type traceStore struct {
	store.Store
	mu    sync.Mutex
	calls map[int][]string
}

func newTraceStore(inner store.Store) *traceStore {
	return &traceStore{Store: inner, calls: map[int][]string{}}
}

func (s *traceStore) log(ctx context.Context, format string, args ...any) {
	w, ok := WorkerFromContext(ctx)
	if !ok || w.Phase != stats.PhaseRequest {
		panic("store call without a requester in ctx")
	}
	line := fmt.Sprintf(format, args...)
	s.mu.Lock()
	s.calls[w.ID] = append(s.calls[w.ID], line)
	s.mu.Unlock()
}

func (s *traceStore) AddLink(ctx context.Context, l store.Link, ni bool) (store.WriteResult, error) {
	s.log(ctx, "addLink id1=%d type=%d id2=%d len=%d", l.ID1, l.LinkType, l.ID2, len(l.Data))
	return s.Store.AddLink(ctx, l, ni)
}
func (s *traceStore) UpdateLink(ctx context.Context, l store.Link, ni bool) (store.WriteResult, error) {
	s.log(ctx, "updateLink id1=%d type=%d id2=%d len=%d", l.ID1, l.LinkType, l.ID2, len(l.Data))
	return s.Store.UpdateLink(ctx, l, ni)
}
func (s *traceStore) DeleteLink(ctx context.Context, id1, lt, id2 int64, ni, ex bool) (bool, error) {
	s.log(ctx, "deleteLink id1=%d type=%d id2=%d", id1, lt, id2)
	return s.Store.DeleteLink(ctx, id1, lt, id2, ni, ex)
}
func (s *traceStore) CountLinks(ctx context.Context, id1, lt int64) (int64, error) {
	s.log(ctx, "countLinks id1=%d type=%d", id1, lt)
	return s.Store.CountLinks(ctx, id1, lt)
}
func (s *traceStore) MultigetLinks(ctx context.Context, id1, lt int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	s.log(ctx, "multigetLinks id1=%d type=%d id2s=%v", id1, lt, id2s)
	return s.Store.MultigetLinks(ctx, id1, lt, id2s, dst)
}
func (s *traceStore) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	s.log(ctx, "getLinkList %+v", r)
	return s.Store.GetLinkList(ctx, r, dst)
}
func (s *traceStore) AddNode(ctx context.Context, n store.Node) (int64, error) {
	s.log(ctx, "addNode len=%d", len(n.Data))
	return s.Store.AddNode(ctx, n)
}
func (s *traceStore) GetNode(ctx context.Context, t int32, id int64) (store.Node, bool, error) {
	s.log(ctx, "getNode id=%d", id)
	return s.Store.GetNode(ctx, t, id)
}
func (s *traceStore) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	s.log(ctx, "updateNode id=%d len=%d", n.ID, len(n.Data))
	return s.Store.UpdateNode(ctx, n)
}
func (s *traceStore) DeleteNode(ctx context.Context, t int32, id int64) (bool, error) {
	s.log(ctx, "deleteNode id=%d", id)
	return s.Store.DeleteNode(ctx, t, id)
}

func opTotal(o stats.OpReport) int64 { return o.Successes + o.Misses + o.Errors }

// TestRequestOpMix: each operation's share is within 4 sigma of the mix
// (binomial: sigma = sqrt(N p (1-p))), and the per-op counts sum to the
// requests done.
func TestRequestOpMix(t *testing.T) {
	cfg := smallConfig(1_000_001)
	cfg.Requesters = 1
	cfg.Requests = 200_000
	rep, err := Request(context.Background(), cfg, discard.New())
	if err != nil {
		t.Fatal(err)
	}
	n := rep.Request.Requests
	if n != cfg.Requests {
		t.Fatalf("requests done %d, want %d", n, cfg.Requests)
	}
	shares := cfg.Mix.shares()
	var sum int64
	for i, ro := range requestOps {
		o, _ := rep.Op(ro.op)
		got := opTotal(o)
		sum += got
		p := *shares[i] / 100
		mean, sigma := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
		if math.Abs(float64(got)-mean) > 4*sigma {
			t.Errorf("%s: %d requests, want %.0f ± %.0f (4 sigma)", ro.op, got, mean, 4*sigma)
		}
	}
	if sum != n {
		t.Errorf("per-op counts sum to %d, requests done %d", sum, n)
	}
}

// TestRequestDeterminism: a requester's op stream is a pure function of
// (config, seed, requester index).
func TestRequestDeterminism(t *testing.T) {
	run := func(seed int64, requesters int) map[int][]string {
		cfg := smallConfig(100_001)
		cfg.Requesters = requesters
		cfg.Requests = 3000
		cfg.RequestRandomSeed = FixedSeed(seed)
		ts := newTraceStore(discard.New())
		if _, err := Request(context.Background(), cfg, ts); err != nil {
			t.Fatal(err)
		}
		return ts.calls
	}
	a, b := run(42, 3), run(42, 3)
	for i := 0; i < 3; i++ {
		if len(a[i]) != 3000 {
			t.Fatalf("requester %d made %d calls", i, len(a[i]))
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("requester %d call %d: %q vs %q", i, j, a[i][j], b[i][j])
			}
		}
	}
	if fmt.Sprint(a[0]) == fmt.Sprint(a[1]) {
		t.Error("requesters 0 and 1 made the same calls")
	}
	// A requester's stream does not depend on how many others run.
	c := run(42, 5)
	if fmt.Sprint(c[2]) != fmt.Sprint(a[2]) {
		t.Error("requester 2's stream changed with the number of requesters")
	}
	if d := run(43, 3); fmt.Sprint(d[0]) == fmt.Sprint(a[0]) {
		t.Error("seeds 42 and 43 give the same stream")
	}
}

// TestRequestMissesAreNotErrors: on an empty store every read misses;
// misses are counted as such and nothing is an error.
func TestRequestMissesAreNotErrors(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Requests = 5000
	cfg.AllowEmptyStore = true
	rep, err := Request(context.Background(), cfg, memstore.New())
	if err != nil {
		t.Fatal(err)
	}
	var misses int64
	for _, o := range rep.Ops {
		if o.Errors > 0 {
			t.Errorf("%s: %d errors", o.Op, o.Errors)
		}
		misses += o.Misses
	}
	for _, op := range []stats.Op{stats.GetNode, stats.GetLinksList, stats.MultigetLink} {
		if o, _ := rep.Op(op); o.Misses == 0 {
			t.Errorf("%s: no misses on an empty store", op)
		}
	}
	if rep.Request.Errors != 0 || misses == 0 {
		t.Errorf("errors %d misses %d", rep.Request.Errors, misses)
	}
}

// TestRequestAfterLoad: the phases work together; on a loaded graph reads
// mostly hit and counts stay exact.
func TestRequestAfterLoad(t *testing.T) {
	cfg := smallConfig(5001)
	cfg.Requesters = 4
	cfg.Requests = 3000
	zipfOutDegree(&cfg)
	ms := memstore.New()
	if _, err := Load(context.Background(), cfg, ms); err != nil {
		t.Fatal(err)
	}
	rep, err := Request(context.Background(), cfg, ms)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Request.Requests != 4*3000 {
		t.Errorf("requests %d", rep.Request.Requests)
	}
	gn, _ := rep.Op(stats.GetNode)
	if gn.Successes < 9*gn.Misses {
		t.Errorf("GET_NODE on a loaded graph: %d found, %d not found", gn.Successes, gn.Misses)
	}
	if mm, _, err := ms.CheckCounts(context.Background(), 10); err != nil || len(mm) > 0 {
		t.Errorf("CheckCounts: %v %v", mm, err)
	}
}

// flakyStore fails every k-th call with errFlaky.
type flakyStore struct {
	store.Store
	k, n  int64
	fails atomic.Int64
}

var errFlaky = errors.New("flaky")

func (s *flakyStore) maybe() error {
	if atomic.AddInt64(&s.n, 1)%s.k == 0 {
		s.fails.Add(1)
		return errFlaky
	}
	return nil
}

func (s *flakyStore) GetNode(ctx context.Context, t int32, id int64) (store.Node, bool, error) {
	if err := s.maybe(); err != nil {
		return store.Node{}, false, err
	}
	return s.Store.GetNode(ctx, t, id)
}

func TestRequestFailures(t *testing.T) {
	t.Run("counted, never abort", func(t *testing.T) {
		cfg := smallConfig(10_001)
		cfg.MaxFailedRequests = -1
		fs := &flakyStore{Store: discard.New(), k: 10}
		rep, err := Request(context.Background(), cfg, fs)
		if err != nil {
			t.Fatal(err)
		}
		gn, _ := rep.Op(stats.GetNode)
		if gn.Errors != fs.fails.Load() || rep.Request.Errors != fs.fails.Load() || gn.Errors == 0 {
			t.Errorf("GET_NODE errors %d, request errors %d, injected %d", gn.Errors, rep.Request.Errors, fs.fails.Load())
		}
		if rep.Request.Requests != 2*cfg.Requests {
			t.Errorf("requests %d: failed requests count as done", rep.Request.Requests)
		}
	})
	t.Run("abort after max_failed_requests", func(t *testing.T) {
		cfg := smallConfig(10_001)
		cfg.MaxFailedRequests = 3
		fs := &flakyStore{Store: discard.New(), k: 2}
		rep, err := Request(context.Background(), cfg, fs)
		if !errors.Is(err, ErrRequesterAborted) || !errors.Is(err, errFlaky) {
			t.Fatalf("err = %v", err)
		}
		if rep == nil || rep.Request.Aborted != 2 || rep.Request.Errors != 2*4 {
			t.Fatalf("report %+v", rep.Request)
		}
	})
}

// TestRequestHugeGraph: maxid1 = 1e9 needs no set-up or memory
// proportional to it.
func TestRequestHugeGraph(t *testing.T) {
	cfg := smallConfig(1_000_000_001)
	cfg.Requests = 20_000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep, err := Request(context.Background(), cfg, discard.New())
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if rep.Request.Requests != 2*cfg.Requests {
		t.Errorf("requests %d", rep.Request.Requests)
	}
	// 1e9 ids would need gigabytes for any per-id table.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("allocated %d MiB", alloc>>20)
	}
}

func TestRequestOpenLoop(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Requesters = 1
	cfg.Requests = 300
	cfg.RequestRate = 20000
	rep, err := Request(context.Background(), cfg, discard.New())
	if err != nil {
		t.Fatal(err)
	}
	gn, _ := rep.Op(stats.GetNode)
	if gn.Service == nil || gn.Service.Count != opTotal(gn) {
		t.Errorf("open loop: service series %+v for %d requests", gn.Service, opTotal(gn))
	}
}

func TestRequestCancel(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Requests = math.MaxInt64
	cfg.MaxTime = time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	rep, err := Request(ctx, cfg, discard.New())
	if !errors.Is(err, context.DeadlineExceeded) || rep == nil || rep.Request.Requests == 0 {
		t.Fatalf("err %v report %v", err, rep)
	}
}

func TestHistoryCache(t *testing.T) {
	h := fastMode{}.newHistory().(*history)
	rng := rand.New(1)
	link := func(id1, t int64) store.Link { return store.Link{ID1: id1, LinkType: t, Time: 1000 + id1} }
	for i := int64(0); i < historyLimit+500; i++ {
		h.add(rng, link(i, 1))
		h.add(rng, link(i, 1)) // a known key is not added twice
	}
	check := func() {
		t.Helper()
		if len(h.index) != len(h.entries) {
			t.Fatalf("index has %d keys for %d entries (stale keys)", len(h.index), len(h.entries))
		}
		for k, pos := range h.index {
			if e := h.entries[pos]; e.id1 != k.id1 || e.linkType != k.linkType {
				t.Fatalf("index %v -> %d holds %+v", k, pos, e)
			}
		}
	}
	if len(h.entries) != historyLimit {
		t.Fatalf("%d entries", len(h.entries))
	}
	check()
	full := make([]store.Link, store.DefaultLimit)
	full[len(full)-1] = store.Link{Time: 5}
	h.afterQuery(3, full)
	if h.entries[3].time != 5 {
		t.Errorf("full page did not move the entry: %+v", h.entries[3])
	}
	check()
	for h.len() > 0 {
		h.afterQuery(int(rng.Int31n(int32(h.len()))), nil)
		check()
	}
}

// timeStore records, in call order, the time of every link (ms) and node
// (s) a single requester writes, -1 for the calls that write no time, and
// with clock set, the clock's value at each call in at.
type timeStore struct {
	store.Store
	times []int64
	clock func() int64
	at    []int64
}

func (s *timeStore) call(v int64) {
	s.times = append(s.times, v)
	if s.clock != nil {
		s.at = append(s.at, s.clock())
	}
}

// fakeClock is a monotonic clock for Config.monotonic that advances 1 ms
// per reading (reading k returns k ms).
type fakeClock struct{ reads atomic.Int64 }

func (c *fakeClock) read() time.Duration { return time.Duration(c.reads.Add(1)-1) * time.Millisecond }

// last returns the latest reading, in ms.
func (c *fakeClock) last() int64 { return c.reads.Load() - 1 }

// flushes is the number of times a single requester's recorder moved its
// values into the phase's histograms: once per stats.RecorderBatch values
// (every call, RANGE_SIZE and service time recorded).
func flushes(rep *stats.Report) int64 {
	var n int64
	for _, o := range rep.Ops {
		n += o.Count()
		if o.Service != nil {
			n += o.Service.Count
		}
	}
	return n / stats.RecorderBatch
}

func (s *timeStore) AddLink(ctx context.Context, l store.Link, ni bool) (store.WriteResult, error) {
	s.call(l.Time)
	return s.Store.AddLink(ctx, l, ni)
}
func (s *timeStore) UpdateLink(ctx context.Context, l store.Link, ni bool) (store.WriteResult, error) {
	s.call(l.Time)
	return s.Store.UpdateLink(ctx, l, ni)
}
func (s *timeStore) AddNode(ctx context.Context, n store.Node) (int64, error) {
	s.call(int64(n.Time))
	return s.Store.AddNode(ctx, n)
}
func (s *timeStore) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	s.call(int64(n.Time))
	return s.Store.UpdateNode(ctx, n)
}
func (s *timeStore) DeleteLink(ctx context.Context, id1, lt, id2 int64, ni, ex bool) (bool, error) {
	s.call(-1)
	return s.Store.DeleteLink(ctx, id1, lt, id2, ni, ex)
}
func (s *timeStore) CountLinks(ctx context.Context, id1, lt int64) (int64, error) {
	s.call(-1)
	return s.Store.CountLinks(ctx, id1, lt)
}
func (s *timeStore) MultigetLinks(ctx context.Context, id1, lt int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	s.call(-1)
	return s.Store.MultigetLinks(ctx, id1, lt, id2s, dst)
}
func (s *timeStore) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	s.call(-1)
	return s.Store.GetLinkList(ctx, r, dst)
}
func (s *timeStore) GetNode(ctx context.Context, t int32, id int64) (store.Node, bool, error) {
	s.call(-1)
	return s.Store.GetNode(ctx, t, id)
}
func (s *timeStore) DeleteNode(ctx context.Context, t int32, id int64) (bool, error) {
	s.call(-1)
	return s.Store.DeleteNode(ctx, t, id)
}

// isNodeTime reports whether a time timeStore recorded is a node's
// (seconds) rather than a link's (ms): node times are far smaller.
func isNodeTime(v int64) bool { return v >= 0 && v < 1<<40 }

// TestRequestOneClockRead: a requester reads the monotonic clock once per
// request (the end of a request is the start of the next), plus once after
// each time its recorder moved its values into the phase's histograms; each
// request's latency is the interval between two readings; link and node
// times are the wall clock (Config.Now at the start of the phase) plus the
// monotonic time of the request's start, the latest reading. The fake
// monotonic clock advances 1 ms per reading.
func TestRequestOneClockRead(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Requesters = 1
	cfg.Requests = 3000
	var clk fakeClock
	cfg.monotonic = clk.read
	ts := &timeStore{Store: discard.New(), clock: clk.last}
	rep, err := Request(context.Background(), cfg, ts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := clk.reads.Load(), cfg.Requests+1+flushes(rep); got != want {
		t.Errorf("%d clock readings for %d requests, want %d (one before the first, one per request, "+
			"one after each of the recorder's %d moves of its values)", got, cfg.Requests, want, flushes(rep))
	}
	if int64(len(ts.times)) != cfg.Requests {
		t.Fatalf("%d store calls for %d requests", len(ts.times), cfg.Requests)
	}
	wallNs := fixedClock().UnixNano()
	var links, nodes int
	for i, v := range ts.times {
		send := wallNs + ts.at[i]*int64(time.Millisecond) // the request's start
		switch {
		case v < 0:
		case isNodeTime(v):
			nodes++
			if want := send / 1e9; v != want {
				t.Fatalf("request %d: node time %d s, want %d (the send time)", i, v, want)
			}
		default:
			links++
			if want := send / 1e6; v != want {
				t.Fatalf("request %d: link time %d ms, want %d (the send time, fixedClock + %d ms)", i, v, want, ts.at[i])
			}
		}
	}
	if links == 0 || nodes == 0 {
		t.Fatalf("%d link writes and %d node writes: the test needs both", links, nodes)
	}
	for _, o := range rep.Ops {
		if !o.Op.IsRequest() || o.Count() == 0 {
			continue
		}
		if !near(o.Latency.Min, 1000) || !near(o.Latency.Max, 1000) {
			t.Errorf("%s: latency %v..%v us, want 1000 (one clock reading to the next)", o.Op, o.Latency.Min, o.Latency.Max)
		}
	}
}

// TestRequestOpenLoopClock: with requestrate > 0 the service time is the
// interval from the request's start (the previous reading, when behind
// schedule) to its end, and the latency runs from the scheduled send time
// (no coordinated omission); behind schedule the requester reads no extra
// clock. The fake monotonic clock (1 ms per reading) is far slower than
// the schedule (1e9 requests/s).
func TestRequestOpenLoopClock(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Requesters = 1
	cfg.Requests = 2000
	cfg.RequestRate = 1e9
	var clk fakeClock
	cfg.monotonic = clk.read
	rep, err := Request(context.Background(), cfg, discard.New())
	if err != nil {
		t.Fatal(err)
	}
	// The first request may find its send time still ahead of the first
	// reading and read the clock once more.
	if got, want := clk.reads.Load(), cfg.Requests+1+flushes(rep); got < want || got > want+1 {
		t.Errorf("%d clock readings for %d requests, want %d or %d", got, cfg.Requests, want, want+1)
	}
	var maxLat float64
	for _, o := range rep.Ops {
		if !o.Op.IsRequest() || o.Count() == 0 {
			continue
		}
		// 1000 us each, at the histograms' precision (3 digits).
		if o.Service == nil || !near(o.Service.Min, 1000) || !near(o.Service.Max, 1000) {
			t.Errorf("%s: service time %+v, want 1000 us each", o.Op, o.Service)
		}
		maxLat = max(maxLat, o.Latency.Max)
	}
	// The schedule is ~2 us long; the last request ends ~2000 ms in.
	if lo := float64(cfg.Requests * 990); maxLat < lo {
		t.Errorf("largest latency %v us, want >= %v (measured from the scheduled send)", maxLat, lo)
	}
}

// TestRequestLinkTimeIsWallClock: with the real monotonic clock, link and
// node times follow Config.Now (read once at the start of the phase), not
// the process's wall clock, and never decrease.
func TestRequestLinkTimeIsWallClock(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Requesters = 1
	cfg.Requests = 3000
	ts := &timeStore{Store: discard.New()}
	t0 := time.Now()
	if _, err := Request(context.Background(), cfg, ts); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(t0)
	lo := fixedClock()
	hi := lo.Add(elapsed)
	var lastMs, lastS int64
	for i, v := range ts.times {
		switch {
		case v < 0:
		case isNodeTime(v):
			if v < lo.Unix() || v > hi.Unix() || v < lastS {
				t.Fatalf("request %d: node time %d s, want %d..%d, >= %d", i, v, lo.Unix(), hi.Unix(), lastS)
			}
			lastS = v
		default:
			if v < lo.UnixMilli() || v > hi.UnixMilli() || v < lastMs {
				t.Fatalf("request %d: link time %d ms, want %d..%d, >= %d", i, v, lo.UnixMilli(), hi.UnixMilli(), lastMs)
			}
			lastMs = v
		}
	}
}

// TestOpForTable: pickOp's table-started search gives the operation of the
// plain linear search (the first cumulative share exceeding U*100) for
// random draws and for draws next to every threshold and bucket edge, with
// the shipped mix and with mixes whose thresholds fall on bucket edges or
// repeat (zero shares).
func TestOpForTable(t *testing.T) {
	linear := func(u float64, th *[10]float64) int {
		x := u * 100
		for i := 0; i < 9; i++ {
			if x < th[i] {
				return i
			}
		}
		return 9
	}
	mixes := [][10]float64{}
	var shipped [10]float64
	sum := 0.0
	def := DefaultConfig()
	for i, p := range def.Mix.shares() {
		sum += *p
		shipped[i] = sum
	}
	mixes = append(mixes, shipped,
		[10]float64{25, 25, 50, 50, 50, 62.5, 75, 75, 100, 100}, // on bucket edges, zero shares
		[10]float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 100},
		[10]float64{100, 100, 100, 100, 100, 100, 100, 100, 100, 100},
		[10]float64{1e-9, 0.39, 0.390625, 0.3906250000001, 10, 20, 30, 99.99999999, 99.999999999999, 100})
	r := rand.New(5)
	for mi, th := range mixes {
		start := opStarts(&th)
		check := func(u float64) {
			if !(u >= 0 && u < 1) {
				return
			}
			if got, want := opFor(u, &th, &start), linear(u, &th); got != want {
				t.Fatalf("mix %d: opFor(%v) = %v, linear search %v", mi, u, got, want)
			}
		}
		for i := 0; i < 200_000; i++ {
			check(r.Float64())
		}
		var edges []float64
		for _, c := range th {
			edges = append(edges, c/100)
		}
		for b := 0; b <= opBuckets; b++ {
			edges = append(edges, float64(b)/opBuckets)
		}
		for _, e := range edges {
			u := e
			for k := 0; k < 4; k++ {
				check(u)
				u = math.Nextafter(u, 0)
			}
			u = e
			for k := 0; k < 4; k++ {
				u = math.Nextafter(u, 1)
				check(u)
			}
		}
	}
}

// slowLogHandler is a slog handler whose every record advances a fake
// clock by 100 ms: logging slower than any request.
type slowLogHandler struct{ clock *atomic.Int64 }

func (h slowLogHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h slowLogHandler) Handle(context.Context, slog.Record) error {
	h.clock.Add(100)
	return nil
}
func (h slowLogHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h slowLogHandler) WithGroup(string) slog.Handler      { return h }

// failEvery fails every n-th store call of the request phase (node reads
// and list queries only, which every mix has).
type failEvery struct {
	store.Store
	n, calls int
}

func (s *failEvery) fail() bool { s.calls++; return s.calls%s.n == 0 }
func (s *failEvery) GetNode(ctx context.Context, t int32, id int64) (store.Node, bool, error) {
	if s.fail() {
		return store.Node{}, false, errors.New("injected failure")
	}
	return s.Store.GetNode(ctx, t, id)
}
func (s *failEvery) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	if s.fail() {
		return nil, errors.New("injected failure")
	}
	return s.Store.GetLinkList(ctx, r, dst)
}

// TestRequestBookkeepingNotTimed: the logging of a failed request and of
// progress lines (slow: 100 ms of a fake clock each) is not charged to the
// next request, which reads the clock at its start instead; every latency
// stays one reading to the next (1 ms).
func TestRequestBookkeepingNotTimed(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Requesters = 1
	cfg.Requests = 3000
	cfg.ReqProgressInterval = 500
	cfg.MaxFailedRequests = -1
	var ms, reads atomic.Int64
	cfg.monotonic = func() time.Duration {
		reads.Add(1)
		return time.Duration(ms.Add(1)-1) * time.Millisecond
	}
	cfg.Logger = slog.New(slowLogHandler{&ms})
	cfg.MaxTime = time.Hour
	st := &failEvery{Store: discard.New(), n: 7}
	rep, err := Request(context.Background(), cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Request.Errors == 0 {
		t.Fatal("no failed requests")
	}
	for _, o := range rep.Ops {
		if !o.Op.IsRequest() || o.Count() == 0 {
			continue
		}
		if o.Latency.Count > 0 && (!near(o.Latency.Min, 1000) || !near(o.Latency.Max, 1000)) {
			t.Errorf("%s: latency %v..%v us, want 1000 (bookkeeping excluded)", o.Op, o.Latency.Min, o.Latency.Max)
		}
		if o.ErrorLatency.Count > 0 && (!near(o.ErrorLatency.Min, 1000) || !near(o.ErrorLatency.Max, 1000)) {
			t.Errorf("%s: error latency %v..%v us, want 1000", o.Op, o.ErrorLatency.Min, o.ErrorLatency.Max)
		}
	}
	// RANGE_SIZE: one size per GET_LINKS_LIST that did not fail.
	gl, _ := rep.Op(stats.GetLinksList)
	rs, _ := rep.Op(stats.RangeSize)
	if gl.Errors == 0 || rs.Count() != gl.Successes+gl.Misses {
		t.Errorf("RANGE_SIZE has %d sizes for %d GET_LINKS_LIST (%d failed)", rs.Count(), gl.Count(), gl.Errors)
	}
	// One reading per request, plus one after each logged failure, each
	// progress line and the first request of each operation.
	if got, max := reads.Load(), cfg.Requests+1+rep.Request.Errors+cfg.Requests/cfg.ReqProgressInterval+flushes(rep); got > max {
		t.Errorf("%d clock readings, want at most %d", got, max)
	}
}

// near reports whether a histogram's value v is want at its precision (3
// significant digits: within 0.1 %).
func near(v, want float64) bool { return math.Abs(v-want) <= want/1000 }

// TestProgressLinesUnlimited: with an unlimited number of requests
// (Unlimited) the requesters' start lines and the progress lines say
// "unlimited", with no percentage of it; with no time limit (NoTimeLimit)
// the progress lines say so, with no share of it used. Neither prints
// the sentinel's digits.
func TestProgressLinesUnlimited(t *testing.T) {
	run := func(t *testing.T, requests int64, maxTime time.Duration) []string {
		t.Helper()
		cfg := smallConfig(1001)
		cfg.Requests, cfg.MaxTime = requests, maxTime
		cfg.ReqProgressInterval = 1
		cfg.AllowEmptyStore = true
		var logs bytes.Buffer
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		if _, err := Request(context.Background(), cfg, discard.New()); err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "will do") || strings.Contains(l, "requests finished") {
				lines = append(lines, l)
				if strings.Contains(l, "9223372036") {
					t.Errorf("the line prints the sentinel: %s", l)
				}
			}
		}
		return lines
	}
	t.Run("requests=Unlimited", func(t *testing.T) {
		// maxtime = 0: each requester stops after its first request.
		lines := run(t, Unlimited, 0)
		starts, progress := 0, 0
		for _, l := range lines {
			switch {
			case strings.Contains(l, "will do"):
				starts++
				if !strings.Contains(l, "will do unlimited ops") {
					t.Errorf("start line: %s", l)
				}
			default:
				progress++
				if !regexp.MustCompile(`\d+/unlimited requests finished at `).MatchString(l) || strings.Contains(l, "complete") {
					t.Errorf("progress line: %s", l)
				}
			}
		}
		if starts != 2 || progress == 0 {
			t.Errorf("%d start lines (want 2) and %d progress lines:\n%s", starts, progress, strings.Join(lines, "\n"))
		}
	})
	t.Run("maxtime=NoTimeLimit", func(t *testing.T) {
		lines := run(t, 5, NoTimeLimit)
		progress := 0
		for _, l := range lines {
			if strings.Contains(l, "requests finished") {
				progress++
				if !regexp.MustCompile(`\d+/10 requests finished: [0-9.]+% complete at .* secs elapsed: no time limit`).MatchString(l) || strings.Contains(l, "time limit used") {
					t.Errorf("progress line: %s", l)
				}
			} else if !strings.Contains(l, "will do 5 ops") {
				t.Errorf("start line: %s", l)
			}
		}
		// The requesters log concurrently: the 10/10 line need not be
		// the last one written.
		if progress == 0 || !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "10/10 requests finished: 100.0% complete") }) {
			t.Errorf("%d progress lines, want some, one at 10/10:\n%s", progress, strings.Join(lines, "\n"))
		}
	})
}

// longListStore returns a full page of store.DefaultLimit links, each with
// a 100-byte payload, for every 10th GET_LINKS_LIST (3 links otherwise),
// and notes the largest capacity of the buffer a call is handed after a
// full page was returned.
type longListStore struct {
	store.Store
	lists, fullPages int
	maxCapAfterFull  int
}

func (s *longListStore) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	if s.fullPages > 0 {
		s.maxCapAfterFull = max(s.maxCapAfterFull, cap(dst))
	}
	s.lists++
	n := 3
	if s.lists%10 == 0 {
		n = store.DefaultLimit
		s.fullPages++
	}
	for i := range n {
		dst = append(dst, store.Link{ID1: r.ID1, LinkType: r.LinkType, ID2: int64(i), Time: int64(n - i), Data: make([]byte, 100)})
	}
	return dst, nil
}

// TestRequesterLetsGoOfLongLists: a requester does not keep the buffers of
// the longest list it read for the rest of the phase (16 requesters kept
// tens of MB that way against MariaDB): after a full page of 10000 links,
// the next list is read into a buffer of at most keptLinks links.
func TestRequesterLetsGoOfLongLists(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Requesters = 1
	cfg.Requests = 3000
	ls := &longListStore{Store: discard.New()}
	if _, err := Request(context.Background(), cfg, ls); err != nil {
		t.Fatal(err)
	}
	if ls.fullPages < 2 {
		t.Fatalf("%d full pages in %d lists: the test needs more", ls.fullPages, ls.lists)
	}
	if ls.maxCapAfterFull > keptLinks {
		t.Errorf("after a full page of %d links, a list was read into a buffer of capacity %d, want <= %d",
			store.DefaultLimit, ls.maxCapAfterFull, keptLinks)
	}
}
