package linkbench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
)

// Op is a LinkBench operation; the request operations and their
// LinkBench names are in package stats (stats.GetNode is GET_NODE, ...).
type Op = stats.Op

// ErrRequesterAborted is returned (wrapped) by Request when a requester
// stopped because its failed requests exceeded max_failed_requests.
var ErrRequesterAborted = errors.New("requester aborted: too many failed requests")

// historyLimit is the size of a requester's list-tail history cache
// (reference §6.9).
const historyLimit = 2048

// Request runs LinkBench's request phase (reference §6) against st:
// `requesters` goroutines, each with its own random stream
// rand.New(stream seed, requester) and its own recorder (the stream seed is
// RequestStreamSeed(request_random_seed, Config.Step, Config.Sweep); with
// Config.Shard, requester i is the run's requester Shard.Index*requesters
// + i; with Config.StartAt the phase prepares, then starts then), each
// doing `requests` requests after warmup_time seconds of unmeasured
// warm-up, or stopping when maxtime seconds have passed after the warm-up.
// Each request picks a database (dbload), waits for its exponentially
// distributed send time when requestrate > 0, picks an operation from the
// mix and its ids from the access distributions, and calls the store once.
//
// A miss (found == false, an empty list) is counted as a miss, never as an
// error. A store error is counted as a failed request, by class (see the
// report's ErrorClasses); the first few failures of each class are logged,
// then one line per progress interval says how many more there were. A
// requester whose failures exceed max_failed_requests (when >= 0) stops,
// and Request then returns its report with an error wrapping
// ErrRequesterAborted.
//
// The time is a hard bound, whatever the store does: requesters send no
// request after maxtime, calls still waiting for the store then get
// grace_time more, and are then cancelled, as they are at their
// request_timeout (when set) and when ctx is done. A cancelled call is
// abandoned: counted apart, per operation, and recorded in the latency
// histogram at its age, so that the percentiles and the maximum show the
// stall. The report's Status is "" (COMPLETED) only when the phase ended on
// time (within a second of maxtime after the warm-up) with nothing
// abandoned; otherwise it is "INTERRUPTED" (ctx done), "OVERRAN" (calls
// were cut at the hard bound, or the phase ran more than a second past its
// time) or "ABANDONED" (calls reached their request_timeout), with a
// Detail.
//
// A requester reads the monotonic clock once per request, when the store
// call returns: that reading ends the request and starts the next one
// (unless a failure, a progress line or a -csvstream interval was written
// in between: the next request then reads its start). A request's latency
// therefore covers its generation (the database,
// operation, id and payload draws, a fraction of a microsecond) and its
// store call; LinkBench times the store call alone, except for GET_NODE
// whose latency includes the id choice. With requestrate > 0 latency is
// measured from each request's scheduled send time (no coordinated
// omission) and the service time, from the request's actual start, is kept
// apart. Link and node times are the wall clock when the request starts:
// Config.Now (or time.Now) read once at the start of the phase, plus the
// monotonic time elapsed since.
//
// Every progressfreq seconds a progress line gives the last interval's
// requests, rate, errors and p99 of the operations benchmarkers compare,
// and Config.OnProgress, when set, receives the interval; each requester
// also logs LinkBench's lines (start, warm-up, progress, time limit, end).
//
// With rng = java (Config.RNG == RNGJava) the requesters draw as
// LinkBench's do (reference §6.1-§6.9, Appendix A.2 and B): a SHA1PRNG
// master seeded with request_random_seed, its first nextLong discarded,
// gives requester i new Random(master.nextLong()) in order; each requester
// discards one nextLong at start, then per request draws the database
// (nextDouble, even with one database), the send time when requestrate > 0
// (Math.round(-ln(U)/rate)), the operation with LinkBench's inclusive
// comparison (a draw above the last cumulative share is a failed request
// without a store call), and the operation's draws in LinkBench's order;
// the history cache keeps LinkBench's stale index keys (§11.2-15) and REAL
// access distributions use LinkBench's shared cursors (§11.1-7), so they
// are reproducible only with requesters = 1.
//
// Errors: *ConfigError before anything is sent; ErrRequesterAborted; ctx's
// error when cancelled (the report then covers what was done).
func Request(ctx context.Context, cfg Config, st store.Store) (*stats.Report, error) {
	w, err := prepare(cfg, true)
	if err != nil {
		return nil, err
	}
	c := startCounters(st)
	rep, err := w.request(ctx, st)
	c.finish(rep)
	return rep, err
}

// request runs the request phase of the prepared workload w against st.
func (w *workload) request(ctx context.Context, st store.Store) (*stats.Report, error) {
	cfg := &w.cfg
	log := cfg.logger()
	seed := resolveSeed(cfg.RequestRandomSeed)
	if cfg.Requesters == 0 {
		log.Info("NO REQUEST PHASE CONFIGURED.")
		rep, err := stats.Merge(stats.PhaseRequest, nil)
		if err != nil {
			return nil, err
		}
		rep.Request = &stats.RequestTotals{}
		w.describe(rep, seed, "request_random_seed")
		return rep, nil
	}
	if cfg.Mix.HasNodeOps() && st == nil {
		return nil, &ConfigError{Key: "nodestore", Reason: "node operations are in the mix but there is no store"}
	}
	col, err := newCollector(cfg)
	if err != nil {
		return nil, err
	}
	// The hard bound (see runRequesters) starts now: the phase's
	// preparation (the loaded-store check, opening the sessions and
	// preparing their statements, which wait for a lock another session
	// holds) counts in its time.
	pt := phaseTimes{start: time.Now()}
	runCtx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	if hardAt := satAdd(satAdd(w.timeBound(), cfg.GraceTime), untilStart(cfg)); hardAt < NoTimeLimit {
		hard := time.AfterFunc(hardAt, func() { stopRun(errTimeBound) })
		defer hard.Stop()
	}
	stores, _, err := requestStores(runCtx, cfg, st)
	if err != nil {
		return w.prepareFailed(ctx, runCtx, col, seed, pt, err)
	}
	// Each requester works on sessions of its own (store.OpenSession): with
	// the SQL stores, connections it owns for the whole phase, as each of
	// LinkBench's requesters owns its store object.
	sessions, closeSessions, err := workerSessions(runCtx, stores, cfg.Requesters)
	if err != nil {
		return w.prepareFailed(ctx, runCtx, col, seed, pt, err)
	}
	defer closeSessions()
	elog := newFailureLog(log)
	streamSeed := RequestStreamSeed(seed, cfg.Step, cfg.Sweep)
	reqs, err := w.newRequesters(streamSeed, sessions, col, elog)
	if err != nil {
		return nil, err
	}
	if tr := traceOf(st); tr != nil {
		tr.Comment(fmt.Sprintf("request request_random_seed=%d rng=%s requesters=%d requests=%d request_stream_seed=%d step=%d sweep=%d shard=%s",
			seed, rngName(cfg.RNG), cfg.Requesters, cfg.Requests, streamSeed, cfg.Step, cfg.Sweep, cfg.Shard))
	}
	log.Info("starting request phase", "requesters", cfg.Requesters, "requests", cfg.Requests,
		"request_random_seed", seed, "out-degree", w.outDegreeSource)
	if !cfg.StartAt.IsZero() {
		if err := waitStart(runCtx, cfg, "request"); err != nil {
			return nil, err
		}
		// The phase's time counts from StartAt: a preparation done before
		// does not shorten its window (one that overran it does).
		if cfg.StartAt.After(pt.start) {
			pt.start = cfg.StartAt
		}
	}
	src, _ := store.AsCounterSource(st) // the progress lines' store events
	w.runRequesters(runCtx, reqs, col, elog, &pt, src)
	rep := col.Report(stats.PhaseRequest)
	w.describe(rep, seed, "request_random_seed")
	return w.requestOutcome(ctx, rep, reqs, pt)
}

// prepareFailed returns the outcome of a request phase whose preparation
// failed with err: when the phase's hard bound cut it (a store that
// stalled while the sessions were opened), a report with no request,
// status OVERRAN and the time spent; else err.
func (w *workload) prepareFailed(ctx, runCtx context.Context, col *stats.Collector, seed int64, pt phaseTimes, err error) (*stats.Report, error) {
	if ctx.Err() != nil || !errors.Is(context.Cause(runCtx), errTimeBound) {
		return nil, err
	}
	cfg := &w.cfg
	spent := time.Since(pt.start)
	rep := col.Report(stats.PhaseRequest)
	w.describe(rep, seed, "request_random_seed")
	rep.Start = pt.start
	if cfg.Now != nil {
		rep.Start = cfg.Now()
	}
	rep.Elapsed = spent // the phase's real time, though no request was sent
	rep.Request = &stats.RequestTotals{Requesters: cfg.Requesters, Overrun: max(spent-w.timeBound(), 0)}
	rep.Status = stats.Overran
	rep.Detail = fmt.Sprintf("the phase's time (maxtime + grace_time) ran out after %.1f s while preparing it, no request was sent: %v",
		spent.Seconds(), err)
	cfg.logger().Warn("request phase did not complete", "status", rep.Status, "detail", rep.Detail)
	return rep, nil
}

// newRequesters builds the phase's requesters, each with its sessions and
// its own recorder of col.
func (w *workload) newRequesters(seed int64, sessions [][]store.Store, col *stats.Collector, elog *failureLog) ([]*requester, error) {
	srcs := w.mode.requesterSources(w, seed)
	reqs := make([]*requester, w.cfg.Requesters)
	for i := range reqs {
		var err error
		if reqs[i], err = newRequester(w, i, srcs[i], sessions[i], col.NewRecorder()); err != nil {
			return nil, err
		}
		reqs[i].failures = elog
	}
	return reqs, nil
}

// phaseTimes are a request phase's start (before its preparation), the
// start of its requests (monotonic, and the wall clock then: Config.Now
// or the same) and its end.
type phaseTimes struct{ start, base, wall, finish time.Time }

// prepared returns the time the phase's preparation took.
func (pt *phaseTimes) prepared() time.Duration { return pt.base.Sub(pt.start) }

// runRequesters runs the requesters to the end of the phase and fills in
// pt's times. runCtx is done at the phase's hard bound: at the end of the
// measured window plus grace_time, counted from pt.start, the calls still
// waiting for the store are cancelled. The requesters' time limit is
// counted from pt.start too: a preparation that took long shortens the
// requests' window rather than stretching the phase. src, when not nil,
// is the store whose failure and failover counters the progress reports
// show (Progress.Events).
func (w *workload) runRequesters(runCtx context.Context, reqs []*requester, col *stats.Collector, elog *failureLog, pt *phaseTimes, src store.CounterSource) {
	cfg := &w.cfg
	prog := &requestProgress{total: cfg.totalRequests(), interval: cfg.ReqProgressInterval,
		maxTime: cfg.MaxTime, log: cfg.logger()}

	base := time.Now()
	wall := base
	if cfg.Now != nil {
		wall = cfg.Now()
	}
	prog.start = base.Add(cfg.WarmupTime)
	clk := phaseClock{base: base, wallNs: wall.UnixNano(), mono: cfg.monotonic}
	mon := startMonitor(cfg, stats.PhaseRequest, col, elog, base, nil, func(d time.Duration) (n int, oldest time.Duration) {
		// The real monotonic clock (not clk.now: a test's fake clock
		// counts the requesters' readings).
		now := int64(time.Since(base))
		for _, r := range reqs {
			if st := r.inflight.Load(); st != 0 {
				if age := time.Duration(now - (st - 1)); age > d {
					n++
					oldest = max(oldest, age)
				}
			}
		}
		return n, oldest
	}, src)
	var wg sync.WaitGroup
	spent := int64(base.Sub(pt.start))
	for _, r := range reqs {
		r.clk = clk
		r.spent = spent
		// The worker's ID is the requester's number in the run (its
		// stream's): shard index × requesters + its own.
		gid := cfg.Shard.Index*cfg.Requesters + r.id
		wg.Go(func() { r.run(withWorker(runCtx, stats.PhaseRequest, gid), prog) })
	}
	wg.Wait() // requesters report through their own fields
	finish := time.Now()
	mon.stop()
	pt.base, pt.wall, pt.finish = base, wall, finish
}

// timeBound is the request phase's time: the warm-up and maxtime.
func (w *workload) timeBound() time.Duration { return satAdd(w.cfg.WarmupTime, w.cfg.MaxTime) }

// requestOutcome completes the phase's report rep from the requesters'
// totals and the phase's times, and returns it with the phase's error.
func (w *workload) requestOutcome(ctx context.Context, rep *stats.Report, reqs []*requester, pt phaseTimes) (*stats.Report, error) {
	cfg := &w.cfg
	log := cfg.logger()
	rep.Start = pt.wall.Add(cfg.WarmupTime)
	rep.Elapsed = max(pt.finish.Sub(pt.base)-cfg.WarmupTime, 0)
	// The overrun counts from the phase's start, its preparation included.
	tot := &stats.RequestTotals{Requesters: cfg.Requesters, Overrun: max(pt.finish.Sub(pt.start)-w.timeBound(), 0)}
	var firstErr error
	var cutAtEnd int64
	for _, r := range reqs {
		tot.Requests += r.requestsDone
		tot.Errors += r.errors
		tot.Abandoned += r.abandoned
		cutAtEnd += r.abandonedAtEnd
		if r.aborted {
			tot.Aborted++
			if firstErr == nil {
				firstErr = r.lastErr
			}
		}
	}
	rep.Request = tot
	prep := pt.prepared()
	switch {
	case ctx.Err() != nil:
		rep.Status = stats.Interrupted
		if tot.Abandoned > 0 {
			rep.Detail = fmt.Sprintf("%d operations abandoned", tot.Abandoned)
		}
	case cutAtEnd > 0 || tot.Overrun > overrunTolerance:
		rep.Status = stats.Overran
		rep.Detail = fmt.Sprintf("overran by %.1f s, %d operations abandoned", tot.Overrun.Seconds(), tot.Abandoned)
	case prep > overrunTolerance:
		// On time, but the preparation ate part of the time: the
		// requests ran for less than maxtime.
		rep.Status = stats.Overran
		rep.Detail = fmt.Sprintf("preparing the phase (sessions, statements) took %.1f s of its time, requests ran %.1f s, %d operations abandoned",
			prep.Seconds(), rep.Elapsed.Seconds(), tot.Abandoned)
	case tot.Abandoned > 0:
		rep.Status = stats.Abandoned
		rep.Detail = fmt.Sprintf("%d operations abandoned at their request_timeout", tot.Abandoned)
	}
	if rep.Status != stats.Completed {
		log.Warn("request phase did not complete", "status", rep.Status, "detail", rep.Detail)
	}
	if tot.Aborted > 0 {
		log.Error(fmt.Sprintf("Benchmark did not complete cleanly: %d/%d request threads aborted.",
			tot.Aborted, cfg.Requesters))
		return rep, fmt.Errorf("%w: %d of %d requesters (last error: %w)", ErrRequesterAborted,
			tot.Aborted, cfg.Requesters, firstErr)
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	return rep, nil
}

// satAdd returns a + b for non-negative durations, NoTimeLimit when the
// sum would overflow (MaxTime = NoTimeLimit with a warm-up or grace_time).
func satAdd(a, b time.Duration) time.Duration {
	if a > NoTimeLimit-b {
		return NoTimeLimit
	}
	return a + b
}

// overrunTolerance is how long after its time bound a request phase may end
// and still count as on time: the last calls in flight when maxtime passes
// end a little later.
const overrunTolerance = time.Second

// serverError reports whether err carries a class of its own (an
// ErrorClass method: a store's server error, such as MySQL's 1040): such a
// call failed, and is counted as an error of its class even when its
// context ended meanwhile. Only a call cut short by its context is
// abandoned.
func serverError(err error) bool {
	var c interface{ ErrorClass() string }
	return errors.As(err, &c) && c.ErrorClass() != ""
}

// errTimeBound is the cause of the cancellation of the calls still
// waiting for the store at the request phase's hard time bound.
var errTimeBound = errors.New("the request phase's time is over (maxtime + grace_time)")

// requestProgress is LinkBench's global request progress (reference §6.11).
type requestProgress struct {
	done            atomic.Int64
	total, interval int64
	maxTime         time.Duration
	start           time.Time
	log             interface {
		Info(msg string, args ...any)
	}
}

// add counts n more requests done and reports whether it logged a
// progress line.
func (p *requestProgress) add(n int64) (logged bool) {
	if n == 0 {
		return false
	}
	d := p.done.Add(n)
	if !(p.interval > 0 && d/p.interval != (d-n)/p.interval) && d != p.total {
		return false
	}
	secs := time.Since(p.start).Seconds()
	// LinkBench's line; an unlimited number of requests (Unlimited) or
	// time (NoTimeLimit) is said so, without a percentage of it.
	var b strings.Builder
	if p.total == Unlimited {
		fmt.Fprintf(&b, "%d/unlimited requests finished", d)
	} else {
		fmt.Fprintf(&b, "%d/%d requests finished: %.1f%% complete", d, p.total, 100*float64(d)/float64(max(p.total, 1)))
	}
	fmt.Fprintf(&b, " at %.1f ops/sec ", float64(d)/math.Max(secs, 1e-9))
	if p.maxTime == NoTimeLimit {
		fmt.Fprintf(&b, "%.1f secs elapsed: no time limit", secs)
	} else {
		limit := p.maxTime.Seconds()
		fmt.Fprintf(&b, "%.1f/%d secs elapsed: %.1f%% of time limit used", secs, int64(limit), 100*secs/math.Max(limit, 1e-9))
	}
	p.log.Info(b.String())
	return true
}

// requester is one request worker: its own random stream, recorder,
// payload generators, id2 chooser, history cache and buffers.
type requester struct {
	_  cacheLinePad // off the lines of whatever was allocated before it
	w  *workload
	id int
	// src is the random source (*rand.Rand or *JavaRandom: the payload
	// generators recognise the former), draws the mode's own draws from it.
	src    distributions.Source
	draws  requestSource
	rec    *stats.Recorder
	stores []store.Store
	dbCum  []float64 // cumulative dbload, percent

	chooser                          *distributions.ID2Chooser
	linkAdd, linkUp, nodeAdd, nodeUp distributions.DataGen
	ltc                              int32

	link  store.Link
	node  store.Node
	id2s  []int64
	links []store.Link
	hist  listHistory

	clk phaseClock
	// inflight, read by the monitor, is 0 while the requester is not
	// under way in a request (before its first, waiting for its send
	// time, after a failure or while it logs, at its end), else 1 + a time
	// (ns since clk.base) at most inflightGrain before the start of its
	// current request, and not after it (see busy).
	inflight   atomic.Int64
	shown      int64 // the time inflight holds (busy), -1 when it holds 0
	spent      int64 // ns of the phase's time its preparation took (shortens the time limit)
	sendNs     int64 // the current request's start, ns since clk.base
	rangeRows  int64 // rows of the latest GET_LINKS_LIST, for RANGE_SIZE
	lastNodeID int64

	requestsDone, errors, abandoned int64
	abandonedAtEnd                  int64 // of abandoned: cut by the phase's end, not a request_timeout
	aborted                         bool
	lastErr                         error
	failures                        *failureLog
	// For the end line (reference §6.3): outcomes and history queries.
	found, notFound, historyQueries, listQueries int64
	_                                            cacheLinePad // written per request: off the next requester's lines
}

// newRequester builds requester i, drawing from src and recording into
// rec.
func newRequester(w *workload, i int, src requestSource, stores []store.Store, rec *stats.Recorder) (*requester, error) {
	cfg := &w.cfg
	// With shards, requester i is requester Index*requesters + i of the
	// run (id2gen_config = 1 keeps the run's requesters' id2s apart).
	ch, err := w.id2Chooser(cfg.Requesters*cfg.Shard.count(), cfg.Shard.Index*cfg.Requesters+i)
	if err != nil {
		return nil, err
	}
	r := &requester{w: w, id: i, src: src.source(), draws: src, rec: rec,
		stores: stores, chooser: ch, ltc: int32(cfg.LinkTypeCount), lastNodeID: cfg.StartID1,
		id2s: make([]int64, 0, 16), links: make([]store.Link, 0, 16),
		hist: w.mode.newHistory(), dbCum: w.mode.dbShares(cfg), shown: -1}
	if r.linkAdd, err = newDataGen("link_add_datagen", cfg.LinkAddData); err != nil {
		return nil, err
	}
	if r.linkUp, err = newDataGen("link_up_datagen", cfg.LinkUpData); err != nil {
		return nil, err
	}
	if cfg.Mix.HasNodeOps() {
		if r.nodeAdd, err = newDataGen("node_add_datagen", cfg.NodeAddData); err != nil {
			return nil, err
		}
		if r.nodeUp, err = newDataGen("node_up_datagen", cfg.NodeUpData); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// reqLoop is the state of a requester's main loop (see run). Times are ns
// since the phase's base.
type reqLoop struct {
	prog                    *requestProgress
	warmupDone              bool
	benchStart, endTime     int64 // the end of the warm-up, the time limit
	displayNs, progressNs   int64 // -csvstream and progress intervals
	lastDisplay, lastUpdate int64
	sinceUpdate             int64 // requests not yet added to prog
	warmupRequests          int64
	rateNs                  float64 // requests per ns (open loop), or 0
	timer                   *time.Timer
	// now is the latest clock reading: the end of the previous request,
	// hence the start of the next. stale says that bookkeeping slower than
	// a request's generation followed that reading: the next request then
	// reads the clock at its start, so that its latency does not include
	// that work.
	now   int64
	stale bool
	next  int64   // scheduled send time (open loop)
	q     request // the current request
}

// paceResult says how pace ended.
type paceResult uint8

const (
	paceSend      paceResult = iota // send the request now
	paceOver                        // the next send time is past maxtime: the run is over
	paceCancelled                   // ctx was done while waiting
)

// request is one request's result, as run accounts for it.
type request struct {
	op         int // index of requestOps
	noOp       bool
	outcome    stats.Outcome
	err        error
	abandoned  bool  // the call's context was done while it waited for the store
	start, end int64 // its start and end (clock readings)
	measured   int64 // its latency: from start, or from the scheduled send (open loop)
}

// run is a requester's main loop (reference §6.3): per request, the
// database, the send time (pace), the operation and its call (send), then
// the bookkeeping (account).
//
// Timing: the requester reads the monotonic clock once per request, when
// the store call returns. That reading is both the end of this request and
// the start of the next one; in open loop (requestrate > 0) a request that
// has to wait for its send time starts when the wait ends, which is read
// once more, and a request that follows slower bookkeeping (a failure or
// progress line logged, a -csvstream interval written, the recorder moving
// its values into the phase's histograms) reads its start too. A request's
// latency is therefore the whole request: its client-side work (the
// recording of the previous request, then the database, operation, id and
// payload draws, a few hundred nanoseconds at most) and its store call.
// LinkBench times the store call alone except for GET_NODE, whose interval
// includes the id choice (quirk §11.2-17); here every operation's interval
// includes its own generation (a fraction of a microsecond against the
// tens of microseconds of a database call), which saves a clock read per
// request. Link and node times are the request's start (sendNs), as
// LinkBench's are the wall clock when the request is built.
//
// ctx is done at the phase's hard time bound, or when the caller cancels:
// a call then in flight is abandoned (see Request), and so is a call that
// reaches its request_timeout, which the requester survives.
func (r *requester) run(ctx context.Context, prog *requestProgress) {
	cfg := &r.w.cfg
	l := r.startLoop(prog)
	// With request_timeout, each call gets a context of its own, derived
	// from the requester's (one per requester, so that the calls' timers
	// do not share the phase context's lock).
	reqCtx, cancelReq := context.WithCancel(ctx)
	defer cancelReq()
	for r.requestsDone < cfg.Requests {
		// reqCtx is done when ctx is (its cancellation is propagated as
		// ctx's happens), and reads in one step: ctx is a value context
		// over the phase's.
		if reqCtx.Err() != nil {
			break
		}
		if l.stale {
			l.now, l.stale = r.clk.now(), false
		}
		// The database: one draw per request, even with one database, as
		// the maintained fork (quirk §11.1-11, kept in both modes).
		db := 0
		if len(r.dbCum) > 1 {
			db = r.draws.pickDB(r.dbCum)
		} else {
			r.src.Float64()
		}
		var scheduled int64
		if l.rateNs > 0 {
			var p paceResult
			if scheduled, p = r.pace(ctx, l); p == paceOver {
				break
			} else if p == paceCancelled {
				prog.add(l.sinceUpdate)
				r.idle()
				return
			}
		}
		q := &l.q
		r.send(reqCtx, l, db)
		q.measured = q.end - q.start
		if l.rateNs > 0 {
			q.measured = q.end - scheduled
		}
		if q.abandoned {
			if !r.abandon(ctx, l, q) {
				break
			}
			continue
		}
		if !r.account(l, q) {
			break
		}
	}
	r.idle()
	r.endLoop(l)
}

// startLoop logs the requester's start and returns its loop's state.
func (r *requester) startLoop(prog *requestProgress) *reqLoop {
	cfg := &r.w.cfg
	l := &reqLoop{prog: prog, displayNs: int64(cfg.DisplayFreq), progressNs: int64(cfg.ProgressFreq),
		rateNs: cfg.RequestRate / 1e9}
	warmup := int64(cfg.WarmupTime)
	l.warmupDone = warmup <= 0
	if !l.warmupDone {
		l.benchStart = warmup
	}
	l.endTime = cfg.timeLimitEnd(l.benchStart)
	if l.endTime != math.MaxInt64 {
		l.endTime -= r.spent // the time limit counts from the phase's start, before its preparation
	}
	l.lastDisplay = l.benchStart
	ops := strconv.FormatInt(cfg.Requests, 10)
	if cfg.Requests == Unlimited {
		ops = "unlimited" // maxtime (or the context) ends the phase
	}
	cfg.logger().Info(fmt.Sprintf("Requester thread #%d started: will do %s ops after %d second warmup",
		r.id, ops, int64(cfg.WarmupTime/time.Second)))
	l.now = r.clk.now()
	l.lastUpdate = l.now
	l.next = l.now
	return l
}

// pace draws the next send time (open loop: exponential inter-arrival
// times, Poisson arrivals at requestrate per second; a late request does
// not delay the schedule) and waits for it. It returns the scheduled time.
func (r *requester) pace(ctx context.Context, l *reqLoop) (int64, paceResult) {
	l.next += r.draws.sendGap(l.rateNs)
	if l.warmupDone && l.next > l.endTime {
		return l.next, paceOver // the next send time is past maxtime: the run is over
	}
	// Behind schedule at the last reading: send at once. Ahead: read the
	// clock again, and wait for the send time if it has still not come
	// (then read the wait's end).
	// Quirk §11.2-25 (Timer.waitUntil's odd nanosecond argument): not
	// reproduced (harmless), a timer waits for the send time.
	if l.next > l.now {
		if l.now = r.clk.now(); l.next > l.now {
			r.idle()
			if l.timer == nil {
				l.timer = time.NewTimer(time.Duration(l.next - l.now))
			} else {
				l.timer.Reset(time.Duration(l.next - l.now))
			}
			select {
			case <-ctx.Done():
				l.timer.Stop()
				return l.next, paceCancelled
			case <-l.timer.C:
			}
			l.now = r.clk.now()
		}
	}
	return l.next, paceSend
}

// send picks the operation and performs it on database db, reading the
// clock at its end: the request l.q.
func (r *requester) send(reqCtx context.Context, l *reqLoop, db int) {
	q := &l.q
	*q = request{start: l.now}
	r.sendNs = q.start
	q.op, q.noOp = r.draws.pickOp()
	if q.noOp {
		// LinkBench's "No-op in requester: last probability < 1.0": a
		// failed request without a store call (Java mode only), and
		// without a clock read: it ends when it starts.
		q.err, q.end = errNoOp, q.start
		q.abandoned = reqCtx.Err() != nil
		return
	}
	callCtx := reqCtx
	var cancelCall context.CancelFunc
	if timeout := r.w.cfg.RequestTimeout; timeout > 0 {
		callCtx, cancelCall = context.WithTimeout(reqCtx, timeout)
	}
	// The operation builds and sends its request (requestOps' do). It
	// reads no clock: send's clock reads delimit the request; link and
	// node times are the request's send time (wallMs). inflight shows the
	// request to the monitor while it waits for the store (busy).
	r.busy(q.start)
	q.outcome, q.err = requestOps[q.op].do(r, callCtx, r.stores[db])
	if q.err != nil {
		q.outcome = stats.Error
	} else {
		// Found or not: counted without a branch on which (Miss is 1,
		// Success 0), which a store's hits and misses would mispredict.
		m := int64(q.outcome)
		r.found += 1 - m
		r.notFound += m
	}
	l.now = r.clk.now() // the one clock read of the request
	if cap(r.links) > keptLinks {
		// After the clock read: a long list's buffers are let go outside
		// the request's latency.
		r.links = trimLinks(r.links)
	}
	// Abandoned: the call's context was done (its timeout, the phase's
	// bound) when it returned its error; read before cancelCall, which
	// makes every call's context done.
	q.abandoned = q.err != nil && callCtx.Err() != nil && !serverError(q.err)
	if cancelCall != nil {
		cancelCall()
	}
	q.end = l.now
}

// abandon accounts for request q, abandoned: its call's context was done
// while it waited for the store (the phase's hard bound, the caller, its
// timeout). It returns false when the requester stops.
func (r *requester) abandon(ctx context.Context, l *reqLoop, q *request) bool {
	r.idle()
	if l.warmupDone {
		if r.rec.RecordAbandoned(requestOps[q.op].op, time.Duration(q.measured)) {
			l.stale = true
		}
		r.abandoned++
		if ctx.Err() != nil {
			r.abandonedAtEnd++
		}
		r.requestsDone++
		l.sinceUpdate++
	}
	if ctx.Err() != nil {
		return false // the phase is over
	}
	l.stale = true
	return q.end <= l.endTime
}

// account records request q (not abandoned) and does the loop's
// bookkeeping: failures, progress, the -csvstream intervals, the end of
// the warm-up. It returns false when the requester stops.
func (r *requester) account(l *reqLoop, q *request) bool {
	cfg := &r.w.cfg
	op := requestOps[q.op].op
	if l.warmupDone && !q.noOp {
		r.record(l, op, q)
	}
	if q.err != nil && !r.failed(l, op, q) {
		return false
	}
	if l.warmupDone {
		// LinkBench counts failed requests as done (reference §6.3; quirk
		// §11.2-11, kept in both modes).
		r.requestsDone++
		l.sinceUpdate++
		if l.sinceUpdate >= 250 {
			if l.prog.add(l.sinceUpdate) {
				l.stale = true
			}
			l.sinceUpdate = 0
		}
		if cfg.Stream != nil && l.displayNs > 0 && q.end-l.lastDisplay >= l.displayNs {
			r.idle()
			r.writeInterval(l.lastDisplay, q.end)
			l.lastDisplay = q.end
			l.stale = true
		}
	} else {
		l.warmupRequests++
	}
	if l.progressNs > 0 && q.end-l.lastUpdate > l.progressNs || !l.warmupDone && q.end >= l.benchStart {
		r.logProgress(l, q.end)
	}
	if q.end > l.endTime {
		cfg.logger().Info(fmt.Sprintf("Requester #%d: time limit of %ds elapsed, shutting down.", r.id, int64(cfg.MaxTime/time.Second)))
		return false
	}
	return true
}

// record records the latency (and service time, and list size) of a
// measured request.
func (r *requester) record(l *reqLoop, op stats.Op, q *request) {
	if l.rateNs > 0 {
		// Quirk §11.2-3 (coordinated omission): fixed in both modes,
		// latency from the scheduled send, service time kept apart.
		if r.rec.RecordService(op, time.Duration(q.end-q.start)) {
			l.stale = true
		}
	}
	var flushed bool
	if q.err != nil {
		flushed = r.rec.RecordError(op, errorClass(q.err), time.Duration(q.measured))
	} else {
		flushed = r.rec.Record(op, q.outcome, time.Duration(q.measured))
	}
	if op == stats.GetLinksList && q.err == nil {
		flushed = r.rec.RecordSize(stats.RangeSize, r.rangeRows) || flushed
	}
	if flushed {
		l.stale = true // the recorder moved its values into the phase's histograms
	}
}

// failed counts the failed request q, logs it (a few per class) and
// returns false when the requester aborts.
func (r *requester) failed(l *reqLoop, op stats.Op, q *request) bool {
	cfg := &r.w.cfg
	r.idle()
	// Quirk §11.2-11 (LinkBench exits the process on a request error
	// unless never_change): fixed in both modes, the failure is
	// counted and the requester stops after max_failed_requests.
	r.errors++
	opName := op.String()
	if q.noOp {
		opName = "no-op"
	}
	r.lastErr = fmt.Errorf("requester %d: %s: %w", r.id, opName, q.err)
	if r.failures.failed(r.id, opName, errorClass(q.err), q.err) {
		l.stale = true
	}
	if cfg.MaxFailedRequests >= 0 && r.errors > cfg.MaxFailedRequests {
		cfg.logger().Error(fmt.Sprintf("Requester #%d aborting: %d failed requests (out of %d total) ",
			r.id, r.errors, r.requestsDone))
		r.aborted = true
		return false
	}
	return true
}

// logProgress logs LinkBench's per-requester progress line every
// progressfreq, and the end of the warm-up.
func (r *requester) logProgress(l *reqLoop, end int64) {
	r.idle()
	cfg := &r.w.cfg
	log := cfg.logger()
	if l.progressNs > 0 && end-l.lastUpdate > l.progressNs {
		// LinkBench's per-requester progress line (reference §6.3).
		if l.warmupDone {
			log.Info(fmt.Sprintf("Requester #%d %d/%d requests done", r.id, r.requestsDone, cfg.Requests))
		} else {
			log.Info(fmt.Sprintf("Requester #%d warming up.  %d warmup requests done. %d/%d seconds of warmup done",
				r.id, l.warmupRequests, end/int64(time.Second), int64(cfg.WarmupTime)/int64(time.Second)))
		}
		l.lastUpdate = end
		l.stale = true
	}
	if !l.warmupDone && end >= l.benchStart {
		l.warmupDone = true
		l.lastDisplay, l.lastUpdate = end, end
		log.Info(fmt.Sprintf("Requester #%d warmup finished  after %d warmup requests.  0/%d requests done",
			r.id, l.warmupRequests, cfg.Requests))
		l.stale = true
	}
}

// endLoop reports the requests not yet counted, writes the last
// -csvstream interval and logs the requester's end line.
func (r *requester) endLoop(l *reqLoop) {
	cfg := &r.w.cfg
	l.prog.add(l.sinceUpdate)
	end := l.now // the last reading: the end of the last request
	if cfg.Stream != nil {
		end = r.clk.now()
		r.writeInterval(l.lastDisplay, end)
	}
	secs := max(end-l.benchStart, int64(time.Millisecond)) / int64(time.Millisecond)
	cfg.logger().Info(fmt.Sprintf("ThreadID = %d total requests = %d requests/second = %d found = %d not found = %d history queries = %d/%d",
		r.id, r.requestsDone, 1000*r.requestsDone/secs, r.found, r.notFound, r.historyQueries, r.listQueries))
}

func (r *requester) writeInterval(from, to int64) {
	base := r.clk.base
	if err := r.rec.WriteInterval(r.w.cfg.Stream, r.id, base.Add(time.Duration(from)),
		base.Add(time.Duration(to)), streamOps); err != nil {
		r.w.cfg.logger().Warn("csvstream write failed", "err", err)
	}
}

// phaseClock is the clock of a request phase: the monotonic clock, read as
// ns since base, and the wall clock at base (Config.Now, or base itself).
// Link and node times are derived from one monotonic reading (wallMs), so
// that a request reads no clock besides its end.
type phaseClock struct {
	base   time.Time            // the monotonic origin: time.Now at the start of the phase
	wallNs int64                // the wall clock at base, Unix ns
	mono   func() time.Duration // Config.monotonic (tests): replaces time.Since(base)
}

// now returns the monotonic time, ns since base.
func (c *phaseClock) now() int64 {
	if c.mono != nil {
		return int64(c.mono())
	}
	return int64(time.Since(c.base))
}

// inflightGrain is how often, at most, a requester refreshes its inflight
// time while it runs requests one after another (busy): the monitor's ages
// of the requests under way (Progress.Oldest, OldestInFlight) may exceed
// theirs by less than this, and a requester pays for one atomic store per
// inflightGrain rather than two per request.
const inflightGrain = int64(time.Millisecond)

// busy shows the monitor that the requester is under way in a request
// that started at start (ns since clk.base): inflight keeps the time it
// holds while that is less than inflightGrain before start, else it is
// moved to start. A requester therefore shows as under way from its
// request's start through its store call to the bookkeeping after it, until
// it goes idle (idle) or starts its next request.
func (r *requester) busy(start int64) {
	if r.shown < 0 || start-r.shown >= inflightGrain {
		r.inflight.Store(start + 1)
		r.shown = start
	}
}

// idle shows the monitor that the requester is not under way in a
// request: it waits for its send time, logs or writes after a request, or
// has stopped.
func (r *requester) idle() {
	if r.shown >= 0 {
		r.inflight.Store(0)
		r.shown = -1
	}
}

// wallMs returns the wall clock of the current request's start, Unix ms:
// the phase's wall clock at base plus the monotonic time since base (so it
// follows the monotonic clock, not later adjustments of the wall clock).
func (r *requester) wallMs() int64 {
	return (r.clk.wallNs + r.sendNs) / 1e6
}

// opFor is the fast mode's operation (an index of requestOps) for the
// draw u in [0, 1), given the cumulative shares t and their opStarts
// table (see fastSource.pickOp).
func opFor(u float64, t *[numRequestOps]float64, start *[opBuckets]uint8) int {
	x := u * 100
	i := int(start[int(u*opBuckets)])
	for i < numRequestOps-1 && !(x < t[i]) {
		i++
	}
	return i
}

// opBuckets is the number of equal buckets of U in [0, 1) of pickOp's
// table; a power of two, so that U*opBuckets is exact.
const opBuckets = 256

// opStarts returns, for each bucket b of U ([b, b+1)/opBuckets), the index
// of the first cumulative share t[i] (i < 9, else 9) that exceeds
// fl(b/opBuckets * 100): the draws x = fl(U*100) of the bucket are at least
// that (rounding is monotonic), so every threshold before it is <= x and
// the first threshold exceeding x is at or after it. pickOp's answer is
// therefore the plain linear search's.
func opStarts(t *[numRequestOps]float64) (s [opBuckets]uint8) {
	for b := range s {
		lo := float64(b) / opBuckets * 100
		i := 0
		for i < numRequestOps-1 && !(lo < t[i]) {
			i++
		}
		s[b] = uint8(i)
	}
	return s
}

// errNoOp is the failure of a Java-mode request whose op draw exceeds the
// last cumulative share (possible only through rounding of the mix sum).
var errNoOp = errors.New("no-op in requester: last probability < 1.0")

// javaOpFor is the Java mode's operation (an index of requestOps) of draw
// x (in [0, 100)) for cumulative shares t, LinkBench's comparison (see
// javaSource.pickOp).
func javaOpFor(x float64, t *[numRequestOps]float64) (op int, noOp bool) {
	for i, c := range t {
		if x <= c {
			return i, false
		}
	}
	return 0, true
}

// linkID1 chooses the id1 of a link operation: the uncorrelated
// distribution with probability read_uncorr_blend/100 (for writes too:
// quirk §11.1-1, kept in both modes), else the correlated one (reference
// §6.6).
func (r *requester) linkID1(correlated, uncorrelated *distributions.Access) int64 {
	a := correlated
	if uncorrelated != nil && r.src.Float64() < r.w.blend {
		a = uncorrelated
	}
	// LinkBench passes the fresh request link's id1, which is 0.
	return a.NextID(r.src, 0)
}

func (r *requester) linkType() int64 {
	return store.DefaultLinkType + int64(r.src.Int31n(r.ltc))
}

// missIf returns Miss when found is false, else Success.
func missIf(found bool) stats.Outcome {
	if found {
		return stats.Success
	}
	return stats.Miss
}

func (r *requester) addLink(ctx context.Context, st store.Store) (stats.Outcome, error) {
	l := r.newLink(distributions.PAddExist, r.linkAdd)
	_, err := st.AddLink(ctx, *l, true)
	return stats.Success, err
}

func (r *requester) updateLink(ctx context.Context, st store.Store) (stats.Outcome, error) {
	l := r.newLink(distributions.PUpdateExist, r.linkUp)
	var err error
	if r.w.cfg.NeverChange {
		// The legacy workload performs UPDATE_LINK as addLink (§11.3),
		// in both modes.
		_, err = st.AddLink(ctx, *l, true)
	} else {
		_, err = st.UpdateLink(ctx, *l, true)
	}
	return stats.Success, err
}

// newLink draws the link an ADD_LINK or UPDATE_LINK writes: id1, link
// type, id2 (naming a loaded link with probability about p), payload from
// gen; its time is the request's.
func (r *requester) newLink(p float64, gen distributions.DataGen) *store.Link {
	w := r.w
	id1 := r.linkID1(w.write, w.writeUncorr)
	t := r.linkType()
	l := &r.link
	l.ID1, l.LinkType, l.ID2 = id1, t, r.chooser.ChooseForOp(r.src, id1, t, p)
	size := int(w.linkSize.Choose(r.src))
	l.Data = gen.Fill(r.src, grow(l.Data, size))
	l.Visibility, l.Version, l.Time = store.VisibilityDefault, 0, r.wallMs()
	return l
}

func (r *requester) deleteLink(ctx context.Context, st store.Store) (stats.Outcome, error) {
	id1 := r.linkID1(r.w.write, r.w.writeUncorr)
	t := r.linkType()
	id2 := r.chooser.ChooseForOp(r.src, id1, t, distributions.PDeleteExist)
	found, err := st.DeleteLink(ctx, id1, t, id2, true, false)
	return missIf(found), err
}

func (r *requester) countLinks(ctx context.Context, st store.Store) (stats.Outcome, error) {
	id1 := r.linkID1(r.w.read, r.w.readUncorr)
	t := r.linkType()
	_, err := st.CountLinks(ctx, id1, t)
	return stats.Success, err
}

func (r *requester) multigetLinks(ctx context.Context, st store.Store) (stats.Outcome, error) {
	w := r.w
	id1 := r.linkID1(w.read, w.readUncorr)
	t := r.linkType()
	k := 1
	if w.multiget != nil {
		// Quirk §11.1-3 (Geometric multiget sizes never return min, mean
		// ~3.62): kept in both modes.
		k = int(w.multiget.Choose(r.src))
	}
	r.id2s = r.chooser.ChooseMultipleForOp(r.src, id1, t, k, distributions.PGetExist, r.id2s[:0])
	var err error
	r.links, err = st.MultigetLinks(ctx, id1, t, r.id2s, r.links[:0])
	// Quirk §11.2-16 (a multiget counts as not found only when nothing
	// is found): kept in both modes, a partial hit is a success.
	return missIf(len(r.links) > 0), err
}

func (r *requester) getLinkList(ctx context.Context, st store.Store) (o stats.Outcome, err error) {
	// The history coin is always drawn first (reference §6.5).
	h := r.src.Float64()
	var rg store.LinkRange
	history := h < r.w.pHistory && r.hist.len() > 0
	var c int
	if history {
		c = int(r.src.Int31n(int32(r.hist.len())))
		e := r.hist.entry(c)
		rg = store.LinkRange{ID1: e.id1, LinkType: e.linkType, MinTime: 0, MaxTime: e.time,
			Offset: 1, Limit: store.DefaultLimit}
	} else {
		id1 := r.linkID1(r.w.read, r.w.readUncorr)
		rg = store.FullRange(id1, r.linkType())
	}
	r.links, err = st.GetLinkList(ctx, rg, r.links[:0])
	r.listQueries++
	if history {
		r.historyQueries++
	}
	o = stats.Success
	if err == nil {
		n := len(r.links)
		r.rangeRows = int64(n) // recorded by run, after the request's end
		if n == 0 {
			o = stats.Miss
		}
		if history {
			r.hist.afterQuery(c, r.links)
		} else if n >= store.DefaultLimit {
			r.hist.add(r.src, r.links[n-1])
		}
	}
	return o, err
}

func (r *requester) addNode(ctx context.Context, st store.Store) (stats.Outcome, error) {
	n := &r.node
	size := int(r.w.nodeSize.Choose(r.src))
	n.Data = r.nodeAdd.Fill(r.src, grow(n.Data, size))
	n.ID, n.Type, n.Version, n.Time = -1, store.DefaultNodeType, 1, int32(r.wallMs()/1000)
	id, err := st.AddNode(ctx, *n)
	if err == nil {
		// Quirk §11.1-10 (ids added by ADD_NODE are never read, updated
		// or deleted): kept in both modes; the id only feeds ROUND_ROBIN.
		r.lastNodeID = id
	}
	return stats.Success, err
}

func (r *requester) updateNode(ctx context.Context, st store.Store) (stats.Outcome, error) {
	id := r.w.nodeUpdate.NextID(r.src, r.lastNodeID)
	n := &r.node
	size := int(r.w.nodeSize.Choose(r.src))
	n.Data = r.nodeUp.Fill(r.src, grow(n.Data, size))
	// Quirk §11.1-9 (node updates write version 2, links version 0 and
	// the current time): kept in both modes.
	n.ID, n.Type, n.Version, n.Time = id, store.DefaultNodeType, 2, int32(r.wallMs()/1000)
	found, err := st.UpdateNode(ctx, *n)
	r.lastNodeID = id
	return missIf(found), err
}

func (r *requester) deleteNode(ctx context.Context, st store.Store) (stats.Outcome, error) {
	id := r.w.nodeDelete.NextID(r.src, r.lastNodeID)
	found, err := st.DeleteNode(ctx, store.DefaultNodeType, id)
	r.lastNodeID = id
	return missIf(found), err
}

func (r *requester) getNode(ctx context.Context, st store.Store) (stats.Outcome, error) {
	// Quirk §11.2-17 (GET_NODE latency includes the id choice): kept,
	// and extended in both modes: every request's latency includes its
	// own generation (see run).
	id := r.w.nodeRead.NextID(r.src, r.lastNodeID)
	_, found, err := st.GetNode(ctx, store.DefaultNodeType, id)
	r.lastNodeID = id
	return missIf(found), err
}

// keptLinks is the most links a requester keeps, with their payload
// buffers, from one request to the next. A GET_LINKS_LIST returns up to
// store.DefaultLimit (10000) links, but with LinkBench's out-degrees almost
// every list is short (RANGE_SIZE p99 57 rows at maxid1 200001) and a
// multiget asks for at most 128 (link_multiget_dist_max): keeping the
// longest list a requester ever read, about 1.8 MB of links and payloads,
// for the rest of the phase made the client's memory grow with the phase's
// length and the number of requesters (16 requesters against MariaDB: 10
// MB live after 30 s, and twice that in heap) for no gain. A longer list
// is read into new buffers, which go with the garbage.
const keptLinks = 128

// trimLinks returns links emptied, keeping the storage (and payload
// buffers) of its first keptLinks entries only, so that the rest can be
// collected.
func trimLinks(links []store.Link) []store.Link {
	if cap(links) <= keptLinks {
		return links[:0]
	}
	kept := make([]store.Link, keptLinks)
	copy(kept, links[:keptLinks])
	return kept[:0]
}

// listHistory is a requester's list-tail cache (reference §6.9): the
// oldest link returned by plain list queries that hit the 10000-link
// limit, so that later queries can page further back. The mode picks its
// variant (runMode.newHistory): history, or staleHistory.
type listHistory interface {
	len() int
	// entry returns entry c, 0 <= c < len().
	entry(c int) histEntry
	// add remembers l, evicting a random entry (one Int31n draw) when the
	// cache is full.
	add(rng distributions.Source, l store.Link)
	// afterQuery updates entry c after a history query returned links: a
	// full page moves the entry to the page's oldest link, anything less
	// removes it.
	afterQuery(c int, links []store.Link)
}

// history is the fast mode's list-tail cache: unlike LinkBench's, evicted
// and removed entries are also removed from the index (fix of §11.2-15).
type history struct {
	entries []histEntry
	index   map[histKey]int
}

// staleHistory is LinkBench's list-tail cache (Java mode, quirk §11.2-15
// kept): an evicted or removed key stays in the index, and is then never
// added again.
type staleHistory struct {
	history
}

type histKey struct{ id1, linkType int64 }

type histEntry struct {
	id1, linkType, time int64
}

func (h *history) len() int { return len(h.entries) }

func (h *history) entry(c int) histEntry { return h.entries[c] }

func (h *history) add(rng distributions.Source, l store.Link) { h.put(rng, l, true) }

func (h *staleHistory) add(rng distributions.Source, l store.Link) { h.put(rng, l, false) }

// put remembers l, evicting a random entry when the cache is full; the
// evicted entry's key leaves the index when forget is set.
func (h *history) put(rng distributions.Source, l store.Link, forget bool) {
	k := histKey{l.ID1, l.LinkType}
	if _, ok := h.index[k]; ok {
		return
	}
	e := histEntry{l.ID1, l.LinkType, l.Time}
	if len(h.entries) < historyLimit {
		h.index[k] = len(h.entries)
		h.entries = append(h.entries, e)
		return
	}
	pos := int(rng.Int31n(int32(len(h.entries))))
	old := h.entries[pos]
	if forget {
		delete(h.index, histKey{old.id1, old.linkType})
	}
	h.entries[pos] = e
	h.index[k] = pos
}

func (h *history) afterQuery(c int, links []store.Link) { h.update(c, links, true) }

func (h *staleHistory) afterQuery(c int, links []store.Link) { h.update(c, links, false) }

// update is afterQuery; a removed entry's key leaves the index when forget
// is set (or when it was the last entry, as in LinkBench).
func (h *history) update(c int, links []store.Link, forget bool) {
	if len(links) == store.DefaultLimit {
		h.entries[c].time = links[len(links)-1].Time
		return
	}
	old := h.entries[c]
	last := len(h.entries) - 1
	if forget || c == last {
		delete(h.index, histKey{old.id1, old.linkType})
	}
	if c != last {
		moved := h.entries[last]
		h.entries[c] = moved
		h.index[histKey{moved.id1, moved.linkType}] = c
	}
	h.entries = h.entries[:last]
}
