package linkbench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"pgregory.net/rand"

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

// streamOps are the operations a requester writes to -csvstream: the
// request operations and RANGE_SIZE. Quirk §11.2-17 (DELETE_LINK missing
// from the per-thread display): fixed in both modes, it is included.
var streamOps = []stats.Op{stats.MultigetLink, stats.GetLinksList, stats.CountLink, stats.UpdateLink,
	stats.AddLink, stats.DeleteLink, stats.RangeSize, stats.AddNode, stats.UpdateNode, stats.DeleteNode,
	stats.GetNode}

// Request runs LinkBench's request phase (reference §6) against st:
// `requesters` goroutines, each with its own random stream
// rand.New(request_random_seed, requester) and its own recorder, each
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
	cfg = w.cfg
	log := cfg.logger()
	seed := resolveSeed(cfg.RequestRandomSeed)
	if cfg.Requesters == 0 {
		log.Info("NO REQUEST PHASE CONFIGURED.")
		rep, err := stats.Merge(stats.PhaseRequest, nil)
		if err != nil {
			return nil, err
		}
		rep.Request = &stats.RequestTotals{}
		rep.Header = w.header(seed, "request_random_seed")
		return rep, nil
	}
	if cfg.Mix.HasNodeOps() && st == nil {
		return nil, &ConfigError{Key: "nodestore", Reason: "node operations are in the mix but there is no store"}
	}
	stores, _, err := requestStores(ctx, &cfg, st)
	if err != nil {
		return nil, err
	}
	col, err := newCollector(&cfg)
	if err != nil {
		return nil, err
	}
	// Each requester works on sessions of its own (store.OpenSession): with
	// the SQL stores, connections it owns for the whole phase, as each of
	// LinkBench's requesters owns its store object.
	sessions, closeSessions, err := workerSessions(ctx, stores, cfg.Requesters)
	if err != nil {
		return nil, err
	}
	defer closeSessions()
	reqs := make([]*requester, cfg.Requesters)
	var javaSeeds []int64
	if cfg.RNG.Java() {
		javaSeeds = javaRequesterSeeds(&cfg, seed)
	}
	elog := newFailureLog(log)
	for i := range reqs {
		s := seed
		if javaSeeds != nil {
			s = javaSeeds[i]
		}
		if reqs[i], err = newRequester(w, i, s, sessions[i], col.NewRecorder()); err != nil {
			return nil, err
		}
		reqs[i].failures = elog
	}
	prog := &requestProgress{total: cfg.totalRequests(), interval: cfg.ReqProgressInterval,
		maxTime: cfg.MaxTime, log: log}
	if tr := traceOf(st); tr != nil {
		tr.Comment(fmt.Sprintf("request request_random_seed=%d rng=%s requesters=%d requests=%d", seed, rngName(cfg.RNG), cfg.Requesters, cfg.Requests))
	}
	log.Info("starting request phase", "requesters", cfg.Requesters, "requests", cfg.Requests,
		"request_random_seed", seed, "out-degree", w.outDegreeSource)

	// The hard bound: at the end of the measured window plus grace_time,
	// the calls still waiting for the store are cancelled.
	runCtx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	bound := satAdd(cfg.WarmupTime, cfg.MaxTime)
	if hardAt := satAdd(bound, cfg.GraceTime); hardAt < NoTimeLimit {
		hard := time.AfterFunc(hardAt, func() { stopRun(errTimeBound) })
		defer hard.Stop()
	}

	base := time.Now()
	wall := base
	if cfg.Now != nil {
		wall = cfg.Now()
	}
	benchStart := wall.Add(cfg.WarmupTime)
	prog.start = base.Add(cfg.WarmupTime)
	clk := phaseClock{base: base, wallNs: wall.UnixNano(), mono: cfg.monotonic}
	mon := startMonitor(&cfg, stats.PhaseRequest, col, elog, base, nil)
	var wg sync.WaitGroup
	for _, r := range reqs {
		r.clk = clk
		wg.Go(func() { r.run(withWorker(runCtx, stats.PhaseRequest, r.id), prog) })
	}
	wg.Wait() // requesters report through their own fields
	finish := time.Now()
	mon.stop()

	rep := col.Report(stats.PhaseRequest)
	rep.Start = benchStart
	rep.Elapsed = max(finish.Sub(base)-cfg.WarmupTime, 0)
	tot := &stats.RequestTotals{Requesters: cfg.Requesters, Overrun: max(finish.Sub(base)-bound, 0)}
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
	rep.Header = w.header(seed, "request_random_seed")
	switch {
	case ctx.Err() != nil:
		rep.Status = "INTERRUPTED"
		if tot.Abandoned > 0 {
			rep.Detail = fmt.Sprintf("%d operations abandoned", tot.Abandoned)
		}
	case cutAtEnd > 0 || tot.Overrun > overrunTolerance:
		rep.Status = "OVERRAN"
		rep.Detail = fmt.Sprintf("overran by %.1f s, %d operations abandoned", tot.Overrun.Seconds(), tot.Abandoned)
	case tot.Abandoned > 0:
		rep.Status = "ABANDONED"
		rep.Detail = fmt.Sprintf("%d operations abandoned at their request_timeout", tot.Abandoned)
	}
	if rep.Status != "" {
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
	limit := p.maxTime.Seconds()
	p.log.Info(fmt.Sprintf("%d/%d requests finished: %.1f%% complete at %.1f ops/sec %.1f/%d secs elapsed: %.1f%% of time limit used",
		d, p.total, 100*float64(d)/float64(max(p.total, 1)), float64(d)/math.Max(secs, 1e-9), secs,
		int64(limit), 100*secs/math.Max(limit, 1e-9)))
	return true
}

// requester is one request worker: its own random stream, recorder,
// payload generators, id2 chooser, history cache and buffers.
type requester struct {
	w  *workload
	id int
	// The random source: rng (fast mode) or jr (Java mode), and src, the
	// same as a distributions.Source. float64 and int31n call the concrete
	// type directly.
	rng    *rand.Rand
	jr     *distributions.JavaRandom
	src    distributions.Source
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
	hist  history

	clk        phaseClock
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
}

// float64 is the source's Float64 (Java nextDouble).
func (r *requester) float64() float64 {
	if r.jr != nil {
		return r.jr.Float64()
	}
	return r.rng.Float64()
}

// int31n is the source's Int31n (Java nextInt(n)).
func (r *requester) int31n(n int32) int32 {
	if r.jr != nil {
		return r.jr.Int31n(n)
	}
	return r.rng.Int31n(n)
}

// newRequester builds requester i, recording into rec. seed is
// request_random_seed in fast mode, and the seed of the requester's
// java.util.Random in Java mode.
func newRequester(w *workload, i int, seed int64, stores []store.Store, rec *stats.Recorder) (*requester, error) {
	cfg := &w.cfg
	ch, err := w.id2Chooser(cfg.Requesters, i)
	if err != nil {
		return nil, err
	}
	r := &requester{w: w, id: i, rec: rec,
		stores: stores, chooser: ch, ltc: int32(cfg.LinkTypeCount), lastNodeID: cfg.StartID1,
		id2s: make([]int64, 0, 16), links: make([]store.Link, 0, 16)}
	if cfg.RNG.Java() {
		r.jr = distributions.NewJavaRandom(seed)
		r.src = r.jr
	} else {
		r.rng = rand.New(uint64(seed), streamRequester, uint64(i))
		r.src = r.rng
	}
	// Quirk §11.2-15 (history cache keeps stale index keys): kept in Java
	// mode, fixed in fast mode.
	r.hist.init()
	r.hist.staleKeys = cfg.RNG.Java()
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
	// dbload: explicit shares, or equal shares (reference §6.3).
	r.dbCum = make([]float64, cfg.DBCount)
	sum := 0.0
	for d := range r.dbCum {
		switch {
		case len(cfg.DBLoad) > 0:
			sum += cfg.DBLoad[d]
		case cfg.RNG.Java():
			// LinkBench's equal shares: 100/dbcount in integer arithmetic,
			// the last one raised to 100.
			sum = float64(100 / cfg.DBCount * (d + 1))
		default:
			sum = 100 * float64(d+1) / float64(cfg.DBCount)
		}
		r.dbCum[d] = sum
	}
	if !cfg.RNG.Java() || len(cfg.DBLoad) == 0 {
		r.dbCum[len(r.dbCum)-1] = 100
	}
	return r, nil
}

// run is a requester's main loop (reference §6.3).
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
	log := cfg.logger()
	warmup := int64(cfg.WarmupTime)
	warmupDone := warmup <= 0
	benchStart := int64(0)
	if !warmupDone {
		benchStart = warmup
	}
	endTime := cfg.timeLimitEnd(benchStart)
	displayNs := int64(cfg.DisplayFreq)
	progressNs := int64(cfg.ProgressFreq)
	lastDisplay := benchStart
	var sinceUpdate, warmupRequests int64
	rateNs := cfg.RequestRate / 1e9 // requests per ns
	var timer *time.Timer
	// now is the latest clock reading (ns since base): the end of the
	// previous request, hence the start of the next. stale says that
	// bookkeeping slower than a request's generation followed that reading:
	// the next request then reads the clock at its start, so that its
	// latency does not include that work.
	log.Info(fmt.Sprintf("Requester thread #%d started: will do %d ops after %d second warmup",
		r.id, cfg.Requests, int64(cfg.WarmupTime/time.Second)))
	now := r.clk.now()
	stale := false
	lastUpdate := now
	next := now // scheduled send time (open loop), ns since base
	java := cfg.RNG.Java()
	if java {
		// Quirk §11.1-11 (the nextLong a requester spends on a debug message
		// at start): kept in Java mode.
		r.jr.Uint64()
	}
	// With request_timeout, each call gets a context of its own, derived
	// from the requester's (one per requester, so that the calls' timers
	// do not share the phase context's lock).
	reqCtx, cancelReq := context.WithCancel(ctx)
	defer cancelReq()
	timeout := cfg.RequestTimeout

	for r.requestsDone < cfg.Requests {
		if ctx.Err() != nil {
			break
		}
		if stale {
			now, stale = r.clk.now(), false
		}
		// Database choice: one draw per request, as the maintained fork
		// (quirk §11.1-11, kept in both modes), the first database whose
		// cumulative share is > x (fast) or >= x (Java).
		db := 0
		if x := r.float64() * 100; len(r.dbCum) > 1 {
			for db < len(r.dbCum)-1 && (x > r.dbCum[db] || !java && x == r.dbCum[db]) {
				db++
			}
		}
		var scheduled int64
		if rateNs > 0 {
			// Exponential inter-arrival times (Poisson arrivals at
			// requestrate per second), open loop: a late request does not
			// delay the schedule. 1-U avoids ln(0).
			if java {
				// LinkBench: Math.round(-ln(U) / rate), U = nextDouble.
				next += javaRound(-math.Log(r.float64()) / rateNs)
			} else {
				next += int64(math.Round(-math.Log(1-r.float64()) / rateNs))
			}
			scheduled = next
			if warmupDone && next > endTime {
				break // the next send time is past maxtime: the run is over
			}
			// Behind schedule at the last reading: send at once. Ahead: read
			// the clock again, and wait for the send time if it has still
			// not come (then read the wait's end).
			// Quirk §11.2-25 (Timer.waitUntil's odd nanosecond argument):
			// not reproduced (harmless), a timer waits for the send time.
			if next > now {
				if now = r.clk.now(); next > now {
					if timer == nil {
						timer = time.NewTimer(time.Duration(next - now))
					} else {
						timer.Reset(time.Duration(next - now))
					}
					select {
					case <-ctx.Done():
						timer.Stop()
						prog.add(sinceUpdate)
						return
					case <-timer.C:
					}
					now = r.clk.now()
				}
			}
		}
		var (
			op      stats.Op
			outcome stats.Outcome
			err     error
			noOp    bool
		)
		start := now
		r.sendNs = start
		if java {
			op, noOp = r.pickOpJava()
		} else {
			op = r.pickOp()
		}
		callCtx := reqCtx
		if noOp {
			// LinkBench's "No-op in requester: last probability < 1.0": a
			// failed request without a store call (Java mode only), and
			// without a clock read: it ends when it starts.
			err = errNoOp
		} else {
			var cancelCall context.CancelFunc
			if timeout > 0 {
				callCtx, cancelCall = context.WithTimeout(reqCtx, timeout)
			}
			outcome, err = r.do(callCtx, op, db)
			now = r.clk.now() // the one clock read of the request
			if cancelCall != nil {
				cancelCall()
			}
		}
		end := now
		measured := end - start // latency: from the start, or the scheduled send (open loop)
		if rateNs > 0 {
			measured = end - scheduled
		}
		if err != nil && callCtx.Err() != nil {
			// Abandoned: the call's context was done while it waited for
			// the store (the phase's hard bound, the caller, its timeout).
			if warmupDone {
				if r.rec.RecordAbandoned(op, time.Duration(measured)) {
					stale = true
				}
				r.abandoned++
				if ctx.Err() != nil {
					r.abandonedAtEnd++
				}
				r.requestsDone++
				sinceUpdate++
			}
			if ctx.Err() != nil {
				break // the phase is over
			}
			stale = true
			if end > endTime {
				break
			}
			continue
		}
		if warmupDone && !noOp {
			if rateNs > 0 {
				// Quirk §11.2-3 (coordinated omission): fixed in both modes,
				// latency from the scheduled send, service time kept apart.
				if r.rec.RecordService(op, time.Duration(end-start)) {
					stale = true
				}
			}
			var flushed bool
			if err != nil {
				flushed = r.rec.RecordError(op, errorClass(err), time.Duration(measured))
			} else {
				flushed = r.rec.Record(op, outcome, time.Duration(measured))
			}
			if op == stats.GetLinksList && err == nil {
				flushed = r.rec.RecordSize(stats.RangeSize, r.rangeRows) || flushed
			}
			if flushed {
				stale = true // the recorder moved its values into the phase's histograms
			}
		}
		if err != nil {
			// Quirk §11.2-11 (LinkBench exits the process on a request error
			// unless never_change): fixed in both modes, the failure is
			// counted and the requester stops after max_failed_requests.
			r.errors++
			opName := op.String()
			if noOp {
				opName = "no-op"
			}
			r.lastErr = fmt.Errorf("requester %d: %s: %w", r.id, opName, err)
			if r.failures.failed(r.id, opName, errorClass(err), err) {
				stale = true
			}
			if cfg.MaxFailedRequests >= 0 && r.errors > cfg.MaxFailedRequests {
				log.Error(fmt.Sprintf("Requester #%d aborting: %d failed requests (out of %d total) ",
					r.id, r.errors, r.requestsDone))
				r.aborted = true
				break
			}
		}
		if warmupDone {
			// LinkBench counts failed requests as done (reference §6.3; quirk
			// §11.2-11, kept in both modes).
			r.requestsDone++
			sinceUpdate++
			if sinceUpdate >= 250 {
				if prog.add(sinceUpdate) {
					stale = true
				}
				sinceUpdate = 0
			}
			if cfg.Stream != nil && displayNs > 0 && end-lastDisplay >= displayNs {
				r.writeInterval(lastDisplay, end)
				lastDisplay = end
				stale = true
			}
		} else {
			warmupRequests++
		}
		if progressNs > 0 && end-lastUpdate > progressNs {
			// LinkBench's per-requester progress line (reference §6.3).
			if warmupDone {
				log.Info(fmt.Sprintf("Requester #%d %d/%d requests done", r.id, r.requestsDone, cfg.Requests))
			} else {
				log.Info(fmt.Sprintf("Requester #%d warming up.  %d warmup requests done. %d/%d seconds of warmup done",
					r.id, warmupRequests, end/int64(time.Second), warmup/int64(time.Second)))
			}
			lastUpdate = end
			stale = true
		}
		if !warmupDone && end >= benchStart {
			warmupDone = true
			lastDisplay, lastUpdate = end, end
			log.Info(fmt.Sprintf("Requester #%d warmup finished  after %d warmup requests.  0/%d requests done",
				r.id, warmupRequests, cfg.Requests))
			stale = true
		}
		if end > endTime {
			log.Info(fmt.Sprintf("Requester #%d: time limit of %ds elapsed, shutting down.", r.id, int64(cfg.MaxTime/time.Second)))
			break
		}
	}
	prog.add(sinceUpdate)
	end := now // the last reading: the end of the last request
	if cfg.Stream != nil {
		end = r.clk.now()
		r.writeInterval(lastDisplay, end)
	}
	secs := max(end-benchStart, int64(time.Millisecond)) / int64(time.Millisecond)
	log.Info(fmt.Sprintf("ThreadID = %d total requests = %d requests/second = %d found = %d not found = %d history queries = %d/%d",
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

// wallMs returns the wall clock of the current request's start, Unix ms:
// the phase's wall clock at base plus the monotonic time since base (so it
// follows the monotonic clock, not later adjustments of the wall clock).
func (r *requester) wallMs() int64 {
	return (r.clk.wallNs + r.sendNs) / 1e6
}

// pickOp draws the operation: the first whose cumulative share exceeds
// U*100 (strictly, so that an operation with share 0 is never chosen; the
// last operation with a share takes every draw above the shares before it,
// whatever rounding did to the sum). LinkBench's
// inclusive comparison and no-op failure are kept in Java mode only
// (pickOpJava). The search starts at the first threshold that can exceed
// U*100 for U's bucket (opStarts), so it usually makes one comparison.
func (r *requester) pickOp() stats.Op {
	return opFor(r.float64(), &r.w.pick, &r.w.opStart)
}

// opFor is pickOp's operation for the draw u in [0, 1), given the
// cumulative shares t and their opStarts table.
func opFor(u float64, t *[10]float64, start *[opBuckets]uint8) stats.Op {
	x := u * 100
	i := int(start[int(u*opBuckets)])
	for i < 9 && !(x < t[i]) {
		i++
	}
	return opOrder[i]
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
func opStarts(t *[10]float64) (s [opBuckets]uint8) {
	for b := range s {
		lo := float64(b) / opBuckets * 100
		i := 0
		for i < 9 && !(lo < t[i]) {
			i++
		}
		s[b] = uint8(i)
	}
	return s
}

// errNoOp is the failure of a Java-mode request whose op draw exceeds the
// last cumulative share (possible only through rounding of the mix sum).
var errNoOp = errors.New("no-op in requester: last probability < 1.0")

// pickOpJava draws the operation as LinkBench does (reference §6.4): the
// first whose cumulative share c satisfies U*100 <= c (inclusive, so an
// operation of share 0 is chosen when U*100 equals the previous share);
// noOp when U*100 exceeds the last cumulative share.
func (r *requester) pickOpJava() (op stats.Op, noOp bool) {
	return javaOpFor(r.jr.Float64()*100, &r.w.thresholds)
}

// javaOpFor is the operation of draw x (in [0, 100)) for cumulative
// shares t, LinkBench's comparison (see pickOpJava).
func javaOpFor(x float64, t *[10]float64) (op stats.Op, noOp bool) {
	for i, c := range t {
		if x <= c {
			return opOrder[i], false
		}
	}
	return 0, true
}

// opOrder is the op of each cumulative threshold (LinkBench's order).
var opOrder = [10]stats.Op{stats.AddLink, stats.DeleteLink, stats.UpdateLink, stats.CountLink,
	stats.MultigetLink, stats.GetLinksList, stats.AddNode, stats.UpdateNode, stats.DeleteNode, stats.GetNode}

// linkID1 chooses the id1 of a link operation: the uncorrelated
// distribution with probability read_uncorr_blend/100 (for writes too:
// quirk §11.1-1, kept in both modes), else the correlated one (reference
// §6.6).
func (r *requester) linkID1(correlated, uncorrelated *distributions.Access) int64 {
	a := correlated
	if uncorrelated != nil && r.float64() < r.w.blend {
		a = uncorrelated
	}
	// LinkBench passes the fresh request link's id1, which is 0.
	return a.NextID(r.src, 0)
}

func (r *requester) linkType() int64 {
	return store.DefaultLinkType + int64(r.int31n(r.ltc))
}

// do builds and sends one request of kind op to database db and returns
// its outcome. It reads no clock: the caller's clock reads delimit the
// request (see run); link and node times are the request's send time
// (wallMs).
func (r *requester) do(ctx context.Context, op stats.Op, db int) (o stats.Outcome, err error) {
	w := r.w
	st := r.stores[db]
	o = stats.Success
	switch op {
	case stats.AddLink, stats.UpdateLink:
		id1 := r.linkID1(w.write, w.writeUncorr)
		t := r.linkType()
		p, gen := distributions.PAddExist, r.linkAdd
		if op == stats.UpdateLink {
			p, gen = distributions.PUpdateExist, r.linkUp
		}
		l := &r.link
		l.ID1, l.LinkType, l.ID2 = id1, t, r.chooser.ChooseForOp(r.src, id1, t, p)
		size := int(w.linkSize.Choose(r.src))
		l.Data = gen.Fill(r.src, grow(l.Data, size))
		l.Visibility, l.Version, l.Time = store.VisibilityDefault, 0, r.wallMs()
		if op == stats.AddLink || w.cfg.NeverChange {
			// The legacy workload performs UPDATE_LINK as addLink (§11.3),
			// in both modes.
			_, err = st.AddLink(ctx, *l, true)
		} else {
			_, err = st.UpdateLink(ctx, *l, true)
		}
	case stats.DeleteLink:
		id1 := r.linkID1(w.write, w.writeUncorr)
		t := r.linkType()
		id2 := r.chooser.ChooseForOp(r.src, id1, t, distributions.PDeleteExist)
		var found bool
		found, err = st.DeleteLink(ctx, id1, t, id2, true, false)
		if !found {
			o = stats.Miss
		}
	case stats.CountLink:
		id1 := r.linkID1(w.read, w.readUncorr)
		t := r.linkType()
		_, err = st.CountLinks(ctx, id1, t)
	case stats.MultigetLink:
		id1 := r.linkID1(w.read, w.readUncorr)
		t := r.linkType()
		k := 1
		if w.multiget != nil {
			// Quirk §11.1-3 (Geometric multiget sizes never return min, mean
			// ~3.62): kept in both modes.
			k = int(w.multiget.Choose(r.src))
		}
		r.id2s = r.chooser.ChooseMultipleForOp(r.src, id1, t, k, distributions.PGetExist, r.id2s[:0])
		r.links, err = st.MultigetLinks(ctx, id1, t, r.id2s, r.links[:0])
		// Quirk §11.2-16 (a multiget counts as not found only when nothing
		// is found): kept in both modes, a partial hit is a success.
		if len(r.links) == 0 {
			o = stats.Miss
		}
	case stats.GetLinksList:
		// The history coin is always drawn first (reference §6.5).
		h := r.float64()
		var rg store.LinkRange
		history := h < w.pHistory && r.hist.len() > 0
		var c int
		if history {
			c = int(r.int31n(int32(r.hist.len())))
			e := r.hist.entries[c]
			rg = store.LinkRange{ID1: e.id1, LinkType: e.linkType, MinTime: 0, MaxTime: e.time,
				Offset: 1, Limit: store.DefaultLimit}
		} else {
			id1 := r.linkID1(w.read, w.readUncorr)
			rg = store.FullRange(id1, r.linkType())
		}
		r.links, err = st.GetLinkList(ctx, rg, r.links[:0])
		r.listQueries++
		if history {
			r.historyQueries++
		}
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
	case stats.AddNode:
		n := &r.node
		size := int(w.nodeSize.Choose(r.src))
		n.Data = r.nodeAdd.Fill(r.src, grow(n.Data, size))
		n.ID, n.Type, n.Version, n.Time = -1, store.DefaultNodeType, 1, int32(r.wallMs()/1000)
		var id int64
		id, err = st.AddNode(ctx, *n)
		if err == nil {
			// Quirk §11.1-10 (ids added by ADD_NODE are never read, updated
			// or deleted): kept in both modes; the id only feeds ROUND_ROBIN.
			r.lastNodeID = id
		}
	case stats.UpdateNode:
		id := w.nodeUpdate.NextID(r.src, r.lastNodeID)
		n := &r.node
		size := int(w.nodeSize.Choose(r.src))
		n.Data = r.nodeUp.Fill(r.src, grow(n.Data, size))
		// Quirk §11.1-9 (node updates write version 2, links version 0 and
		// the current time): kept in both modes.
		n.ID, n.Type, n.Version, n.Time = id, store.DefaultNodeType, 2, int32(r.wallMs()/1000)
		var found bool
		found, err = st.UpdateNode(ctx, *n)
		if !found {
			o = stats.Miss
		}
		r.lastNodeID = id
	case stats.DeleteNode:
		id := w.nodeDelete.NextID(r.src, r.lastNodeID)
		var found bool
		found, err = st.DeleteNode(ctx, store.DefaultNodeType, id)
		if !found {
			o = stats.Miss
		}
		r.lastNodeID = id
	case stats.GetNode:
		// Quirk §11.2-17 (GET_NODE latency includes the id choice): kept,
		// and extended in both modes: every request's latency includes its
		// own generation (see run).
		id := w.nodeRead.NextID(r.src, r.lastNodeID)
		var found bool
		_, found, err = st.GetNode(ctx, store.DefaultNodeType, id)
		if !found {
			o = stats.Miss
		}
		r.lastNodeID = id
	}
	switch {
	case err != nil:
		o = stats.Error
	case o == stats.Success:
		r.found++
	default:
		r.notFound++
	}
	return o, err
}

// history is a requester's list-tail cache (reference §6.9): the oldest
// link returned by plain list queries that hit the 10000-link limit, so
// that later queries can page further back. Unlike LinkBench, evicted and
// removed entries are also removed from the index (fix of §11.2-15),
// except with staleKeys (Java mode), which keeps LinkBench's behaviour: an
// evicted or removed key stays in the index, and is then never added again.
type history struct {
	entries   []histEntry
	index     map[histKey]int
	staleKeys bool
}

type histKey struct{ id1, linkType int64 }

type histEntry struct {
	id1, linkType, time int64
}

func (h *history) init() {
	h.index = make(map[histKey]int)
}

func (h *history) len() int { return len(h.entries) }

// add remembers l, evicting a random entry when the cache is full.
func (h *history) add(rng distributions.Source, l store.Link) {
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
	if !h.staleKeys {
		delete(h.index, histKey{old.id1, old.linkType})
	}
	h.entries[pos] = e
	h.index[k] = pos
}

// afterQuery updates entry c after a history query returned links: a full
// page moves the entry to the page's oldest link, anything less removes it.
func (h *history) afterQuery(c int, links []store.Link) {
	if len(links) == store.DefaultLimit {
		h.entries[c].time = links[len(links)-1].Time
		return
	}
	old := h.entries[c]
	last := len(h.entries) - 1
	if !h.staleKeys || c == last {
		delete(h.index, histKey{old.id1, old.linkType})
	}
	if c != last {
		moved := h.entries[last]
		h.entries[c] = moved
		h.index[histKey{moved.id1, moved.linkType}] = c
	}
	h.entries = h.entries[:last]
}
