package linkbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/fault"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// hangingConfig is a short request phase on the discard store.
func hangingConfig() Config {
	cfg := smallConfig(10_001)
	cfg.Requesters = 4
	cfg.Requests = math.MaxInt64 / 2
	cfg.MaxTime = time.Second
	cfg.GraceTime = 500 * time.Millisecond
	cfg.Now = nil
	return cfg
}

// TestTimeBoundWithHangingStore: a store that hangs on some calls cannot
// stretch the phase: the calls still waiting at maxtime + grace_time are
// cancelled, counted as abandoned and recorded at their age, and the
// report says the phase overran. Without the hard bound Request would
// never return here (the fault store hangs until cancelled).
func TestTimeBoundWithHangingStore(t *testing.T) {
	cfg := hangingConfig()
	st := fault.Wrap(discard.New(), fault.Only([]string{"GetNode"}, fault.Every(500, fault.Fault{Hang: true})))
	done := make(chan struct{})
	var rep *stats.Report
	var err error
	go func() {
		defer close(done)
		rep, err = Request(context.Background(), cfg, st)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Request did not return 30 s after a 1 s maxtime (no hard bound)")
	}
	if err != nil {
		t.Fatal(err)
	}
	q := rep.Request
	if q.Abandoned == 0 || st.Counts().Hung == 0 {
		t.Fatalf("abandoned %d, hung %d: want some", q.Abandoned, st.Counts().Hung)
	}
	if rep.Status != "OVERRAN" || !strings.Contains(rep.Detail, "operations abandoned") {
		t.Errorf("status %q detail %q, want OVERRAN with the abandoned operations", rep.Status, rep.Detail)
	}
	if !strings.Contains(rep.SummaryLine(), "status=OVERRAN") {
		t.Errorf("summary line %q does not say it", rep.SummaryLine())
	}
	gn, _ := rep.Op(stats.GetNode)
	if gn.Abandoned != q.Abandoned {
		t.Errorf("GET_NODE abandoned %d, phase %d", gn.Abandoned, q.Abandoned)
	}
	// Each hung call was abandoned at least grace_time after maxtime:
	// the maximum shows the stall.
	if gn.Latency.Max < float64(cfg.GraceTime/time.Microsecond) {
		t.Errorf("GET_NODE max %v us, want the abandoned calls' age (>= %v)", gn.Latency.Max, cfg.GraceTime)
	}
	// The phase's own clock starts a little after the bound's (seen:
	// 497.8 ms for a 500 ms grace on a loaded machine).
	if q.Overrun < cfg.GraceTime-100*time.Millisecond || q.Overrun > cfg.GraceTime+5*time.Second {
		t.Errorf("overrun %v, want about grace_time %v", q.Overrun, cfg.GraceTime)
	}
}

// TestCallerDeadlineAbandons: the caller's deadline ends the phase in the
// same way, and the calls it cut are in the report.
func TestCallerDeadlineAbandons(t *testing.T) {
	cfg := hangingConfig()
	cfg.MaxTime = time.Hour
	st := fault.Wrap(discard.New(), fault.Only([]string{"GetNode"}, fault.Every(200, fault.Fault{Hang: true})))
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	rep, err := Request(ctx, cfg, st)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the deadline", err)
	}
	if rep.Status != "INTERRUPTED" || rep.Request.Abandoned == 0 {
		t.Errorf("status %q, abandoned %d: want INTERRUPTED with abandoned calls", rep.Status, rep.Request.Abandoned)
	}
	if gn, _ := rep.Op(stats.GetNode); gn.Abandoned == 0 {
		t.Error("the cut GET_NODE calls are not in the report")
	}
}

// TestRequestTimeout: request_timeout abandons a call that waits too long
// and the requester goes on; the phase ends on time, marked ABANDONED.
func TestRequestTimeout(t *testing.T) {
	cfg := hangingConfig()
	cfg.RequestTimeout = 20 * time.Millisecond
	cfg.MaxTime = 1500 * time.Millisecond
	st := fault.Wrap(discard.New(), fault.Only([]string{"UpdateNode"}, fault.Every(50, fault.Fault{Hang: true})))
	rep, err := Request(context.Background(), cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	un, _ := rep.Op(stats.UpdateNode)
	// Under the race detector another call may reach its 20 ms too.
	if un.Abandoned < 2 || rep.Request.Abandoned < un.Abandoned {
		t.Fatalf("UPDATE_NODE abandoned %d (phase %d): want the timed-out calls, and requesters that went on", un.Abandoned, rep.Request.Abandoned)
	}
	if rep.Status != "ABANDONED" {
		t.Errorf("status %q detail %q, want ABANDONED", rep.Status, rep.Detail)
	}
	if un.Latency.Max < 20e3 {
		t.Errorf("UPDATE_NODE max %v us, want at least the 20 ms timeout", un.Latency.Max)
	}
}

// TestRoundedLinkOnlyMix: a mix whose shares rounding left below 100, with
// no node operation, picks only operations with a share (it used to fall
// through to GET_NODE, whose distribution was never built, and panic).
func TestRoundedLinkOnlyMix(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Mix = Mix{AddLink: 49.999991, GetLinkList: 50}
	cfg.Requests = 400_000 // draws above 99.999991 happen about 36 times
	cfg.AllowEmptyStore = true
	rep, err := Request(context.Background(), cfg, discard.New())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rep.Ops {
		if o.Op.IsRequest() && o.Op != stats.AddLink && o.Op != stats.GetLinksList {
			t.Errorf("%v was picked %d times with a share of 0", o.Op, o.Count())
		}
	}
}

// FuzzMixPicksOnlySharedOps: any mix summing to 100 (within the tolerance)
// picks, in the default mode, only operations with a share.
func FuzzMixPicksOnlySharedOps(f *testing.F) {
	f.Add(uint64(1), uint16(0x3ff))
	f.Add(uint64(2), uint16(0x021))
	f.Add(uint64(3), uint16(0x200))
	f.Fuzz(func(t *testing.T, seed uint64, nonzero uint16) {
		nonzero &= 0x3ff
		if nonzero == 0 {
			return
		}
		rng := rand.New(rand.NewPCG(seed, 9))
		var shares [10]float64
		sum := 0.0
		for i := range shares {
			if nonzero&(1<<i) != 0 {
				shares[i] = rng.Float64() + 1e-9
				sum += shares[i]
			}
		}
		cfg := smallConfig(1001)
		m := &cfg.Mix
		for i, p := range m.shares() {
			*p = math.Round(shares[i]/sum*100*1e6) / 1e6 // rounded, as files write them
		}
		if math.Abs(m.Sum()-100) > 1e-3 {
			return
		}
		w, err := prepare(cfg, true)
		if err != nil {
			t.Skip(err)
		}
		for k := range 4096 {
			u := (float64(k) + rng.Float64()) / 4096
			if u >= 1 {
				u = math.Nextafter(1, 0)
			}
			i := opFor(u, &w.pick, &w.opStart)
			if *m.shares()[i] == 0 {
				t.Fatalf("draw %v picked %v, whose share is 0 (mix %+v)", u, requestOps[i].op, *m)
			}
		}
	})
}

// lineCounter counts log lines by message prefix.
type lineCounter struct {
	mu    sync.Mutex
	lines []string
}

func (c *lineCounter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, strings.Split(strings.TrimRight(string(p), "\n"), "\n")...)
	return len(p), nil
}

func (c *lineCounter) count(substr string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, l := range c.lines {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n
}

// TestFailuresNotFlooded: half the calls failing produces the first few
// failure lines per class and summaries, not a line per failure; the
// report has errors by class and a goodput below the rate.
func TestFailuresNotFlooded(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Requesters = 4
	cfg.Requests = 20_000
	cfg.MaxFailedRequests = -1
	cfg.AllowEmptyStore = true
	cfg.ProgressFreq = 50 * time.Millisecond
	var logs lineCounter
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	transient := &store.TransientError{Op: "x", Err: errors.New("lost connection")}
	st := fault.Wrap(discard.New(), fault.Rate(5, 0.5, fault.Fault{Fail: true, Err: transient}))
	rep, err := Request(context.Background(), cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	failures := rep.Request.Errors
	if failures < 30000 {
		t.Fatalf("%d failures, want about half of 80000", failures)
	}
	if n := logs.count("request failed"); n != failureLogFirst {
		t.Errorf("%d failure lines for %d failures, want %d (the first of the class)", n, failures, failureLogFirst)
	}
	if n := logs.count("more failed requests of class transient"); n == 0 {
		t.Error("no summary line of the failures not logged")
	}
	if len(rep.ErrorClasses) != 1 || rep.ErrorClasses[0].Name != "transient" || rep.ErrorClasses[0].Value != failures {
		t.Errorf("error classes %v, want transient = %d", rep.ErrorClasses, failures)
	}
	if g, tp := rep.Goodput(), rep.Throughput(); !(g > 0.3*tp && g < 0.7*tp) {
		t.Errorf("goodput %v of throughput %v, want about half", g, tp)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "errors.transient = ") || !strings.Contains(text.String(), " goodput=") {
		t.Errorf("text report lacks the errors by class or the goodput:\n%s", text.String())
	}
}

// TestProgressLines: progressfreq drives the phase's progress lines and
// OnProgress, and each requester logs LinkBench's start, progress, time
// limit and end lines.
func TestProgressLines(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Requesters = 2
	cfg.Requests = math.MaxInt64 / 2
	cfg.MaxTime = 1200 * time.Millisecond
	cfg.ProgressFreq = 300 * time.Millisecond
	cfg.AllowEmptyStore = true
	cfg.Now = nil
	var logs lineCounter
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	var mu sync.Mutex
	var got []Progress
	cfg.OnProgress = func(p Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	}
	if _, err := Request(context.Background(), cfg, discard.New()); err != nil {
		t.Fatal(err)
	}
	if n := logs.count("request progress:"); n < 2 {
		t.Errorf("%d progress lines in 1.2 s at 0.3 s", n)
	}
	for _, line := range []string{"Requester thread #1 started", "Requester #0 ", "time limit of 1s elapsed", "ThreadID = 1 total requests"} {
		if logs.count(line) == 0 {
			t.Errorf("no %q line", line)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 3 || !got[len(got)-1].Final {
		t.Fatalf("%d progress reports, the last final: want >= 3", len(got))
	}
	var calls int64
	for _, p := range got {
		n, _ := p.Interval.Requests()
		calls += n
		if !p.Final && (p.Rate() <= 0 || p.Interval.End.Before(p.Interval.Start)) {
			t.Errorf("report %+v: no rate", p)
		}
	}
	if calls == 0 {
		t.Error("the intervals hold no requests")
	}
	gn, _ := got[0].Interval.Op(stats.GetNode)
	if p99, ok := gn.Quantile(0.99); !ok || p99 <= 0 {
		t.Error("the first interval has no GET_NODE percentile")
	}
}

// TestCheckCountRefused: check_count = true is refused, naming -verify.
func TestCheckCountRefused(t *testing.T) {
	cfg := smallConfig(1001)
	cfg.Store.CheckCount = true
	var ce *ConfigError
	if err := cfg.Validate(); !errors.As(err, &ce) || ce.Key != "check_count" || !strings.Contains(err.Error(), "-verify") {
		t.Fatalf("Validate = %v, want a check_count error naming -verify", err)
	}
}

// serverFailingStore fails every UpdateNode as a SQL store does when the
// server refused the call (its error has a class, here MySQL's 1040)
// after the call's context ended: the call waits for the context, then
// returns both.
type serverFailingStore struct{ store.Store }

type classed1040 struct{ error }

func (classed1040) ErrorClass() string { return "mysql 1040" }
func (e classed1040) Unwrap() error    { return e.error }

func (s serverFailingStore) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	<-ctx.Done()
	return false, classed1040{fmt.Errorf("UpdateNode: %w: Error 1040: Too many connections", ctx.Err())}
}

// TestServerErrorAtTimeoutIsAnError: a call that ends with a server's
// error is a failed request of that error's class, not an abandoned one,
// even when its request_timeout passed meanwhile (a run whose every call
// met "too many connections" reported them abandoned, with no error).
func TestServerErrorAtTimeoutIsAnError(t *testing.T) {
	cfg := hangingConfig()
	cfg.RequestTimeout = 20 * time.Millisecond
	cfg.MaxTime = time.Second
	cfg.MaxFailedRequests = -1
	rep, err := Request(context.Background(), cfg, serverFailingStore{discard.New()})
	if err != nil {
		t.Fatal(err)
	}
	un, _ := rep.Op(stats.UpdateNode)
	if un.Errors == 0 || un.Abandoned != 0 {
		t.Fatalf("UPDATE_NODE errors %d abandoned %d: want errors, nothing abandoned", un.Errors, un.Abandoned)
	}
	var n int64
	for _, c := range rep.ErrorClasses {
		if c.Name == "mysql 1040" {
			n = c.Value
		}
	}
	if n != un.Errors {
		t.Errorf("error classes %v: want %d of class mysql 1040", rep.ErrorClasses, un.Errors)
	}
}

// TestFailedCallWithTimeoutIsAnError: with request_timeout set, a call
// that fails at once (long before its timeout) is a failed request, not an
// abandoned one (the call's context was cancelled before it was asked
// whether it was done: every failure with a timeout counted as abandoned).
func TestFailedCallWithTimeoutIsAnError(t *testing.T) {
	cfg := hangingConfig()
	cfg.RequestTimeout = 10 * time.Second
	cfg.MaxTime = 500 * time.Millisecond
	cfg.MaxFailedRequests = -1
	st := fault.Wrap(discard.New(), fault.Only([]string{"UpdateNode"}, fault.Every(5, fault.Fault{Fail: true})))
	rep, err := Request(context.Background(), cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	un, _ := rep.Op(stats.UpdateNode)
	if un.Errors == 0 || un.Abandoned != 0 || rep.Request.Abandoned != 0 {
		t.Fatalf("UPDATE_NODE errors %d abandoned %d (phase abandoned %d): want the injected failures as errors, nothing abandoned",
			un.Errors, un.Abandoned, rep.Request.Abandoned)
	}
	if rep.Status != stats.Completed {
		t.Errorf("status %q detail %q, want a completed phase", rep.Status, rep.Detail)
	}
}

// stallingSessions is a store whose sessions do not open until their
// context ends after the first few (a server whose statement preparation
// waits for a lock another session holds); slow delays each opening.
type stallingSessions struct {
	store.Store
	slow   time.Duration
	forget bool // hang until the context ends
}

func (s stallingSessions) Session(ctx context.Context) (store.Session, error) {
	wait := s.slow
	if s.forget {
		wait = time.Hour
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(wait):
	}
	return store.OpenSession(ctx, s.Store)
}

// TestTimeBoundCoversPreparation: maxtime + grace_time bounds the phase
// from its start, the opening of the sessions included: a store whose
// sessions never open ends the phase on time with an OVERRAN report and
// no request; one whose sessions take most of the time leaves the requests
// the rest of it, and the report says so. (The bound used to start after
// the sessions were open: the phase ran as long as the stall, and said
// COMPLETED.)
func TestTimeBoundCoversPreparation(t *testing.T) {
	cfg := hangingConfig()
	cfg.AllowEmptyStore = true
	start := time.Now()
	rep, err := Request(context.Background(), cfg, stallingSessions{Store: discard.New(), forget: true})
	el := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if limit := cfg.MaxTime + cfg.GraceTime + time.Second; el > limit {
		t.Errorf("the phase took %v, want at most %v", el, limit)
	}
	if rep.Status != "OVERRAN" || !strings.Contains(rep.Detail, "no request was sent") || rep.Request.Requests != 0 {
		t.Errorf("status %q detail %q requests %d: want OVERRAN, no request", rep.Status, rep.Detail, rep.Request.Requests)
	}

	cfg.MaxTime = 2 * time.Second
	start = time.Now()
	rep, err = Request(context.Background(), cfg, stallingSessions{Store: discard.New(), slow: 1500 * time.Millisecond})
	el = time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if limit := cfg.MaxTime + time.Second; el > limit {
		t.Errorf("the phase took %v with 1.5 s of session opening, want at most %v", el, limit)
	}
	if rep.Status != "OVERRAN" || !strings.Contains(rep.Detail, "preparing the phase") || rep.Request.Requests == 0 {
		t.Errorf("status %q detail %q requests %d: want OVERRAN naming the preparation, some requests", rep.Status, rep.Detail, rep.Request.Requests)
	}
	if rep.Elapsed > cfg.MaxTime-time.Second {
		t.Errorf("requests ran %v, want the %v left after the preparation", rep.Elapsed, cfg.MaxTime-1500*time.Millisecond)
	}
}

// TestProgressShowsWaitingCalls: during a stall the progress reports say
// how many calls have waited longer than the interval, and the oldest
// wait (they used to say only "0 requests in the last ...").
func TestProgressShowsWaitingCalls(t *testing.T) {
	cfg := hangingConfig()
	cfg.ProgressFreq = 300 * time.Millisecond
	cfg.MaxTime = 1500 * time.Millisecond
	var buf syncBuf
	cfg.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	var mu sync.Mutex
	var most Progress
	cfg.OnProgress = func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Waiting > most.Waiting || (p.Waiting == most.Waiting && p.Oldest > most.Oldest) {
			most = p
		}
	}
	st := fault.Wrap(discard.New(), fault.Only([]string{"GetNode"}, fault.Every(500, fault.Fault{Hang: true})))
	if _, err := Request(context.Background(), cfg, st); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if most.Waiting != cfg.Requesters || most.Oldest < cfg.ProgressFreq {
		t.Errorf("most waiting calls reported: %d (oldest %v), want all %d requesters' hung calls, older than %v",
			most.Waiting, most.Oldest, cfg.Requesters, cfg.ProgressFreq)
	}
	if !strings.Contains(buf.String(), "calls waiting longer than") {
		t.Errorf("no progress line names the waiting calls:\n%s", buf.String())
	}
}

// syncBuf is a bytes.Buffer safe for concurrent writers.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestLoadProgressLines: a load's progress reports the percent of the id1
// range, the rows, rows/s, the time left, and the last interval's rows and
// p99; the interval rows add up to the rows written.
func TestLoadProgressLines(t *testing.T) {
	cfg := smallConfig(20_001)
	zipfOutDegree(&cfg)
	cfg.ProgressFreq = 20 * time.Millisecond
	cfg.Now = nil
	var logs lineCounter
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	var got []Progress // the monitor calls OnProgress from one goroutine
	cfg.OnProgress = func(p Progress) { got = append(got, p) }
	rep, err := Load(context.Background(), cfg, memstore.New())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !got[len(got)-1].Final {
		t.Fatalf("%d progress reports, the last final: want >= 1", len(got))
	}
	var rows int64
	for _, p := range got {
		rows += p.IntervalRows
	}
	last := got[len(got)-1]
	if want := rep.Load.Nodes + rep.Load.Links + rep.Load.Counts; rows != last.Rows || last.Rows != want {
		t.Errorf("interval rows add up to %d, last report %d rows, the load wrote %d", rows, last.Rows, want)
	}
	checkIntervalsAddUp(t, rep, got)
	if last.Done != last.Total || last.Total != 20_000 {
		t.Errorf("final report: %d of %d id1s", last.Done, last.Total)
	}
	if logs.count("load progress:") == 0 {
		t.Fatal("no load progress line")
	}
	p99 := false
	for _, p := range got[:len(got)-1] {
		line := progressLine(p)
		for _, want := range []string{"% of the id1 range", " rows (", "rows/s", "s elapsed", "; last "} {
			if !strings.Contains(line, want) {
				t.Errorf("load progress line %q has no %q", line, want)
			}
		}
		p99 = p99 || strings.Contains(line, "_BULK p99 ")
	}
	if !p99 {
		t.Error("no load progress line has an operation's p99")
	}
}

// checkIntervalsAddUp fails t unless each op's interval counts add up to
// its count in the report (the last interval holds the values still queued
// in the recorders when the workers stopped).
func checkIntervalsAddUp(t *testing.T, rep *stats.Report, got []Progress) {
	t.Helper()
	sum := map[stats.Op]int64{}
	for _, p := range got {
		for _, o := range p.Interval.Ops {
			sum[o.Op] += o.Count
		}
	}
	for _, o := range rep.Ops {
		if o.Op.IsSize() {
			continue
		}
		if sum[o.Op] != o.Count() {
			t.Errorf("%v: the intervals hold %d values, the report %d", o.Op, sum[o.Op], o.Count())
		}
	}
}

// TestRequestIntervalsAddUp: a request phase's intervals add up to its
// report, op by op.
func TestRequestIntervalsAddUp(t *testing.T) {
	cfg := smallConfig(2001)
	zipfOutDegree(&cfg) // the built-in model's 4.2 M links of one id1 took 9 s to load
	cfg.Now = nil
	st := memstore.New()
	if _, err := Load(context.Background(), cfg, st); err != nil {
		t.Fatal(err)
	}
	cfg.Requesters, cfg.Requests = 3, 700
	cfg.ProgressFreq = 10 * time.Millisecond
	var got []Progress
	cfg.OnProgress = func(p Progress) { got = append(got, p) }
	rep, err := Request(context.Background(), cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	checkIntervalsAddUp(t, rep, got)
}
