package linkbench

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
)

// Progress is what a running phase reports every progressfreq seconds
// (Config.ProgressFreq) to Config.OnProgress, and at its end.
type Progress struct {
	Phase stats.Phase
	// Elapsed is the time since the phase started (a request phase's
	// warm-up included).
	Elapsed time.Duration
	// Interval holds the operations the workers recorded since the
	// previous report: counts, errors and latency histograms (use
	// Interval.Op(op) and its Quantile(q) for percentiles).
	Interval stats.Interval
	// For a load: Done of the Total id1s (all databases) have their links
	// loaded, Rows rows (nodes, links and counts) were written so far (in
	// committed batches), and Left estimates the time left from the rows
	// per second so far and the rows the graph is expected to hold
	// (EstimateGraph; 0 when unknown).
	Done, Total int64
	Rows        int64
	Left        time.Duration
	// For a request phase: Waiting requests have been under way (their
	// calls waiting for the store) for longer than the progress interval,
	// the oldest of them for Oldest: a stall shows while it lasts, before
	// the calls return or are abandoned. A request is under way from its
	// start (the end of the requester's previous one) until its requester
	// goes on to the next one, goes idle (waits for its send time, logs a
	// failure or a progress line) or stops; its age may be overstated by
	// less than a millisecond (the requesters refresh what they show at
	// most once a millisecond, so that a fast store's requests do not
	// each pay for it).
	Waiting int
	Oldest  time.Duration
	// For a request phase, in the reports to Config.OnInterval only:
	// InFlight requests were under way (see Waiting: with a database,
	// their calls waiting for the store) when the interval ended
	// (0..requesters), the oldest of them for OldestInFlight (0 when none).
	InFlight       int
	OldestInFlight time.Duration
	// IntervalRows is the rows written since the previous report (a load
	// only).
	IntervalRows int64
	// Final marks the report made when the phase ends.
	Final bool
	// Events are the store's counters of failures and failovers
	// (store.CounterSource: "errors.<code>", "reconnects", "ambiguous",
	// "ambiguous_applied") that grew since the previous progress report,
	// with their growth, in name order: a request phase's progress reports
	// only (not those to Config.OnInterval).
	Events []stats.Counter
}

// Rate returns the operations per second of the interval (requests for a
// request phase, every recorded call for a load).
func (p Progress) Rate() float64 {
	sec := p.Interval.End.Sub(p.Interval.Start).Seconds()
	if sec <= 0 {
		return 0
	}
	var n int64
	for _, o := range p.Interval.Ops {
		if !o.Op.IsSize() && (p.Phase != stats.PhaseRequest || o.Op.IsRequest()) {
			n += o.Count
		}
	}
	return float64(n) / sec
}

// loadProgress is what the load's monitor reads from the loaders.
// expected is the number of rows the load will write, estimated (0 when
// unknown).
type loadProgressFunc func() (done, total, rows, expected int64)

// waitingFunc is what the request phase's monitor reads from the
// requesters: the requests under way for longer than d (all of them when
// d < 0), and the oldest's age.
type waitingFunc func(d time.Duration) (n int, oldest time.Duration)

// monitor reports a phase's progress every ProgressFreq (see Progress),
// and its intervals every IntervalFreq to OnInterval.
type monitor struct {
	stopCh chan struct{}
	done   chan struct{}
}

// DefaultIntervalFreq is the period of Config.OnInterval when
// Config.IntervalFreq is 0: result files keep one interval per second,
// whatever progressfreq is.
const DefaultIntervalFreq = time.Second

// startMonitor starts the progress reports of a phase that began at base:
// a log line and Config.OnProgress every cfg.ProgressFreq (none when it is
// 0 and OnProgress is nil), Config.OnInterval every IntervalFreq, and the
// failure log's summaries. stop makes the final reports.
//
// The monitor ticks at the shorter of the two periods: each tick ends a
// collector interval, which goes to OnInterval and is added to the
// progress interval under way; the progress report is made at the tick
// that completes its period (within half a tick), with the intervals
// since the last one merged. Without OnInterval the ticks are the
// progress reports' and nothing is merged.
func startMonitor(cfg *Config, phase stats.Phase, col *stats.Collector, flog *failureLog, base time.Time, load loadProgressFunc, waiting waitingFunc, src store.CounterSource) *monitor {
	m := &monitor{stopCh: make(chan struct{}), done: make(chan struct{})}
	col.StartIntervals(base) // the first interval starts with the phase, not before its preparation
	every := cfg.ProgressFreq
	tick := every
	if cfg.OnInterval != nil {
		f := cfg.IntervalFreq
		if f <= 0 {
			f = DefaultIntervalFreq
		}
		if tick <= 0 || f < tick {
			tick = f
		}
	}
	log := cfg.logger()
	// Used by the monitor goroutine only.
	var (
		prevRows, prevTickRows int64
		acc                    stats.Interval // the progress interval under way
		lastReport             = time.Now()
		events                 = newEventCounters(src)
	)
	progress := func(iv stats.Interval, final bool) Progress {
		p := Progress{Phase: phase, Elapsed: time.Since(base), Interval: iv, Final: final}
		if load != nil {
			var expected int64
			p.Done, p.Total, p.Rows, expected = load()
			// The time left from the rows written (committed batches) and
			// the rows expected; unknown (0) without an estimate, or when
			// the rows written reach it before the end.
			if p.Rows > 0 && expected > p.Rows && p.Done < p.Total {
				p.Left = time.Duration(float64(p.Elapsed) * float64(expected-p.Rows) / float64(p.Rows))
			}
		}
		return p
	}
	report := func(final bool) {
		var iv stats.Interval
		if final {
			// The workers have stopped: the values still queued in their
			// recorders belong to this last interval.
			iv = col.FinalInterval()
		} else {
			iv = col.Interval()
		}
		if cfg.OnInterval != nil {
			p := progress(iv, final)
			p.IntervalRows, prevTickRows = p.Rows-prevTickRows, p.Rows
			if waiting != nil && !final {
				p.InFlight, p.OldestInFlight = waiting(-1)
			}
			cfg.OnInterval(p)
		}
		acc = acc.Merge(iv)
		now := time.Now()
		if !final && (every <= 0 || now.Sub(lastReport) < every-tick/2) {
			return // the progress interval goes on
		}
		if every <= 0 && cfg.OnProgress == nil && flog == nil {
			return
		}
		lastReport = now
		p := progress(acc, final)
		acc = stats.Interval{}
		p.IntervalRows, prevRows = p.Rows-prevRows, p.Rows
		if waiting != nil && every > 0 {
			p.Waiting, p.Oldest = waiting(every)
		}
		p.Events = events.grown()
		if !final {
			log.Info(progressLine(p))
		}
		if cfg.OnProgress != nil {
			cfg.OnProgress(p)
		}
		if flog != nil {
			flog.summarize()
		}
	}
	go func() {
		defer close(m.done)
		var tc <-chan time.Time
		if tick > 0 {
			t := time.NewTicker(tick)
			defer t.Stop()
			tc = t.C
		}
		for {
			select {
			case <-tc:
				report(false)
			case <-m.stopCh:
				if every > 0 || cfg.OnProgress != nil || cfg.OnInterval != nil || flog != nil {
					report(true)
				}
				return
			}
		}
	}()
	return m
}

// stop makes the final report and waits for it.
func (m *monitor) stop() {
	close(m.stopCh)
	<-m.done
}

// progressLine is the log line of a progress report.
func progressLine(p Progress) string {
	sec := p.Interval.End.Sub(p.Interval.Start).Seconds()
	var b strings.Builder
	if p.Phase == stats.PhaseLoad {
		pct := 0.0
		if p.Total > 0 {
			pct = 100 * float64(p.Done) / float64(p.Total)
		}
		rows := 0.0
		if s := p.Elapsed.Seconds(); s > 0 {
			rows = float64(p.Rows) / s
		}
		fmt.Fprintf(&b, "load progress: %.1f%% of the id1 range, %d rows (%.0f rows/s), %.0f s elapsed", pct, p.Rows, rows, p.Elapsed.Seconds())
		switch {
		case p.Left > 0:
			fmt.Fprintf(&b, ", about %.0f s left", p.Left.Seconds())
		case p.Done < p.Total:
			b.WriteString(", time left unknown")
		}
		if sec > 0 {
			fmt.Fprintf(&b, "; last %.1f s: %d rows (%.0f rows/s)", sec, p.IntervalRows, float64(p.IntervalRows)/sec)
			for _, op := range [...]stats.Op{stats.LoadNodeBulk, stats.LoadLinksBulk, stats.LoadCountsBulk, stats.LoadLink} {
				if o, ok := p.Interval.Op(op); ok {
					if p99, ok := o.Quantile(0.99); ok {
						fmt.Fprintf(&b, ", %v p99 %.3f ms", op, float64(p99)/float64(time.Millisecond))
					}
				}
			}
		}
		return b.String()
	}
	calls, errs := p.Interval.Requests()
	fmt.Fprintf(&b, "request progress: %.0f s elapsed, %d requests in the last %.1f s (%.0f/s), %d errors; p99 ms",
		p.Elapsed.Seconds(), calls, sec, p.Rate(), errs)
	for _, h := range stats.Headlines() {
		o, _ := p.Interval.Op(h.Op)
		if p99, ok := o.Quantile(0.99); ok {
			fmt.Fprintf(&b, " %s=%.3f", h.Short, float64(p99)/float64(time.Millisecond))
		} else {
			fmt.Fprintf(&b, " %s=-", h.Short)
		}
	}
	if p.Waiting > 0 {
		fmt.Fprintf(&b, "; %d calls waiting longer than %.1f s (oldest %.1f s)", p.Waiting, sec, p.Oldest.Seconds())
	}
	for i, e := range p.Events {
		sep := ""
		if i == 0 {
			sep = "; store:"
		}
		fmt.Fprintf(&b, "%s %s=%d", sep, e.Name, e.Value)
	}
	return b.String()
}

// eventCounters follows the store's counters of failures and failovers
// between progress reports (Progress.Events). Used by the monitor
// goroutine only.
type eventCounters struct {
	src  store.CounterSource
	prev map[string]int64
}

// newEventCounters starts following src's counters (nil: none).
func newEventCounters(src store.CounterSource) *eventCounters {
	e := &eventCounters{src: src, prev: map[string]int64{}}
	e.grown()
	return e
}

// isEvent reports whether counter name is one Progress.Events shows.
func isEvent(name string) bool {
	return strings.HasPrefix(name, "errors.") || name == "reconnects" || strings.HasPrefix(name, "ambiguous")
}

// grown returns the event counters that grew since the previous call,
// with their growth.
func (e *eventCounters) grown() []stats.Counter {
	if e.src == nil {
		return nil
	}
	var out []stats.Counter
	for _, c := range e.src.Counters() { // sorted by name
		if !isEvent(c.Name) {
			continue
		}
		if d := c.Value - e.prev[c.Name]; d > 0 {
			out = append(out, stats.Counter{Name: c.Name, Value: d})
		}
		e.prev[c.Name] = c.Value
	}
	return out
}

// failureLogFirst is how many failures of each class are logged one by
// one; the rest are counted and summarised once per progress interval.
const failureLogFirst = 3

// failureLog logs failed requests without flooding the log: the first few
// of each error class, then one line per interval with how many more there
// were. It is shared by a phase's workers; it is used on failures only.
type failureLog struct {
	log *slog.Logger

	mu         sync.Mutex
	logged     map[string]int
	suppressed map[string]int64
	any        atomic.Bool
}

func newFailureLog(log *slog.Logger) *failureLog {
	return &failureLog{log: log, logged: map[string]int{}, suppressed: map[string]int64{}}
}

// failed records a failure of class of op by worker; it reports whether it
// wrote a log line.
func (f *failureLog) failed(worker int, op, class string, err error) (logged bool) {
	if f == nil {
		return false
	}
	f.mu.Lock()
	n := f.logged[class]
	if n < failureLogFirst {
		f.logged[class] = n + 1
	} else {
		f.suppressed[class]++
		f.any.Store(true)
	}
	f.mu.Unlock()
	if n >= failureLogFirst {
		return false
	}
	msg := "request failed"
	if n == failureLogFirst-1 {
		msg = "request failed (further failures of this class are counted and summarised)"
	}
	f.log.Warn(msg, "requester", worker, "op", op, "class", class, "err", err)
	return true
}

// summarize logs one line per class with the failures not logged since the
// last summary.
func (f *failureLog) summarize() {
	if !f.any.Load() {
		return
	}
	f.mu.Lock()
	classes := make([]string, 0, len(f.suppressed))
	counts := map[string]int64{}
	for c, n := range f.suppressed {
		if n > 0 {
			classes = append(classes, c)
			counts[c] = n
			f.suppressed[c] = 0
		}
	}
	f.any.Store(false)
	f.mu.Unlock()
	slices.Sort(classes)
	for _, c := range classes {
		f.log.Warn(fmt.Sprintf("%d more failed requests of class %s", counts[c], c), "class", c, "failures", counts[c])
	}
}
