package linkbench

import (
	"bytes"
	"context"
	"errors"
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
	if q.Overrun < cfg.GraceTime || q.Overrun > cfg.GraceTime+5*time.Second {
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
			op := opFor(u, &w.pick, &w.opStart)
			i := opIndex(op)
			if *m.shares()[i] == 0 {
				t.Fatalf("draw %v picked %v, whose share is 0 (mix %+v)", u, op, *m)
			}
		}
	})
}

// opIndex is the position of op in LinkBench's mix order.
func opIndex(op stats.Op) int {
	for i, o := range opOrder {
		if o == op {
			return i
		}
	}
	return -1
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
	if gn, ok := got[0].Interval.Op(stats.GetNode); !ok || gn.Quantile(0.99) <= 0 {
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
