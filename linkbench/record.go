package linkbench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/linkbench-go/linkbench/internal/atomicfile"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/hostmetrics"
	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/store"
)

// phaseRecorder gathers what a phase's result file holds beside its
// report: host metrics at its start, at every interval (one per second,
// Config.OnInterval) and at its end, the intervals' rates and p99s, and the
// per-op HDR interval logs. OnInterval calls come from the phase's monitor
// goroutine, one at a time, and the phase has returned before finish reads
// what they gathered.
type phaseRecorder struct {
	phase   stats.Phase
	sampler *hostmetrics.Sampler // nil: no host metrics
	host    *hostSource
	dir     string // -results directory ("": no files)
	base    string // file name prefix in dir

	start     time.Time
	logStart  time.Time              // the first interval's start: the HDR logs' StartTime and BaseTime
	snaps     []hostmetrics.Snapshot // the first at the start, then one per interval
	prevSnap  hostmetrics.Snapshot
	intervals []results.Interval
	ends      []time.Time // the intervals' ends
	logs      map[stats.Op]*hdrLog
	logErr    error
	// The database size is read at most every sizeEvery (a query or a walk
	// of the data directory): lastSize is when it was last read.
	sizeEvery time.Duration
	lastSize  time.Time
	pending   *pendingInterval // the last report, recorded at the next

	// The engine's own metrics (store.EngineMetrics): a snapshot at the
	// start and one per interval (engineSnaps), nil engine without them.
	engine      *engineSampler
	engineSnaps []store.EngineSnapshot
	prevEngine  store.EngineSnapshot
	hasPrevEng  bool
}

// hdrLog is one operation's HDR interval log file, written under a
// temporary name until the phase ends (finish commits it).
type hdrLog struct {
	f         *atomicfile.File
	w         *hdr.HistogramLogWriter
	name      string
	committed bool // complete under its final name
}

// newPhaseRecorder takes the phase's first host snapshot; the database
// size is then read at most every sizeEvery (at least every second).
func newPhaseRecorder(ctx context.Context, phase stats.Phase, sampler *hostmetrics.Sampler, host *hostSource, engine *engineSampler, dir, base string, sizeEvery time.Duration) *phaseRecorder {
	r := &phaseRecorder{phase: phase, sampler: sampler, host: host, dir: dir, base: base, start: time.Now(),
		logs: map[stats.Op]*hdrLog{}, sizeEvery: sizeEvery, engine: engine}
	if s, ok := engine.snapshot(ctx); ok {
		r.engineSnaps = append(r.engineSnaps, s)
		r.prevEngine, r.hasPrevEng = s, true
	}
	if sampler != nil {
		r.lastSize = r.start
		snap, _ := sampler.Snapshot(ctx)
		r.snaps = append(r.snaps, snap)
		r.prevSnap = snap
	}
	return r
}

// onInterval records an interval. Each interval is held back until the
// next one, so that a final interval shorter than half of the one before
// it (the calls that ended after the measured window, or a phase that ended
// just after a tick) is folded into it rather than shown as a short
// interval of its own with a fraction of the rate: the intervals still add
// up to the report's totals.
func (r *phaseRecorder) onInterval(ctx context.Context, p Progress) {
	var snap hostmetrics.Snapshot
	if r.sampler != nil {
		if now := time.Now(); p.Final || now.Sub(r.lastSize) >= r.sizeEvery {
			snap, _ = r.sampler.Snapshot(ctx)
			r.lastSize = now
		} else {
			snap = r.sampler.SnapshotWithoutSize()
		}
	}
	eng, engOK := r.engine.snapshot(ctx)
	if r.pending != nil && p.Final && foldFinal(r.pending.p.Interval, p.Interval) {
		r.pending.p = mergeProgress(r.pending.p, p)
		r.pending.snap = snap
		r.pending.engine, r.pending.engineOK = eng, engOK
		r.record(*r.pending)
		r.pending = nil
		return
	}
	if r.pending != nil {
		r.record(*r.pending)
	}
	r.pending = &pendingInterval{p: p, snap: snap, engine: eng, engineOK: engOK}
	if p.Final {
		r.record(*r.pending)
		r.pending = nil
	}
}

// pendingInterval is a progress report not recorded yet, with the host
// snapshot taken at its end.
type pendingInterval struct {
	p    Progress
	snap hostmetrics.Snapshot
	// engine is the engine's snapshot at its end, when engineOK.
	engine   store.EngineSnapshot
	engineOK bool
}

// foldFinal reports whether the final interval last is to be folded into
// the one before it, prev: it lasted less than half as long.
func foldFinal(prev, last stats.Interval) bool {
	return last.End.Sub(last.Start) < prev.End.Sub(prev.Start)/2
}

// mergeProgress returns the report a with b's interval added to its own.
func mergeProgress(a, b Progress) Progress {
	m := b
	m.Interval = a.Interval.Merge(b.Interval)
	m.IntervalRows = a.IntervalRows + b.IntervalRows
	return m
}

// record records an interval: its operations, rate and per-op p99, the
// host metrics since the previous one, and each op's histogram in its HDR
// log.
func (r *phaseRecorder) record(pi pendingInterval) {
	p := pi.p
	iv := p.Interval
	sec := iv.End.Sub(iv.Start).Seconds()
	ri := results.Interval{Seconds: sec, P99Ms: map[stats.Op]float64{}} // T is set by finish
	if len(r.ends) == 0 {
		r.logStart = iv.Start
	}
	r.ends = append(r.ends, iv.End)
	if r.phase == stats.PhaseLoad {
		ri.Ops = p.IntervalRows
	} else {
		ri.Ops, _ = iv.Requests()
	}
	if sec > 0 {
		ri.Rate = float64(ri.Ops) / sec
	}
	for _, o := range iv.Ops {
		if o.Op.IsSize() {
			continue
		}
		if p99, ok := o.Quantile(0.99); ok {
			ri.P99Ms[o.Op] = float64(p99) / float64(time.Millisecond)
		}
	}
	if r.sampler != nil {
		m := results.MetricsOf(hostmetrics.Diff(r.prevSnap, pi.snap))
		ri.Host = &m
		r.prevSnap = pi.snap
		r.snaps = append(r.snaps, pi.snap)
	}
	if pi.engineOK {
		if r.hasPrevEng {
			ri.Engine = engineDiff(r.prevEngine, pi.engine)
		}
		r.prevEngine, r.hasPrevEng = pi.engine, true
		r.engineSnaps = append(r.engineSnaps, pi.engine)
	}
	r.intervals = append(r.intervals, ri)
	if r.dir != "" && r.logErr == nil {
		r.logErr = r.writeLogs(iv)
	}
}

// writeLogs appends each op's interval histogram to its HDR log.
func (r *phaseRecorder) writeLogs(iv stats.Interval) error {
	for _, o := range iv.Ops {
		if o.Hist == nil || o.Hist.TotalCount() == 0 {
			continue
		}
		l := r.logs[o.Op]
		if l == nil {
			name := fmt.Sprintf("%s.%s.hlog", r.base, o.Op)
			f, err := atomicfile.Create(filepath.Join(r.dir, name))
			if err != nil {
				return fmt.Errorf("results: %w", err)
			}
			w := hdr.NewHistogramLogWriter(f)
			startMs := r.logStart.UnixMilli()
			w.SetBaseTime(startMs)
			if err := firstErr(w.OutputLogFormatVersion(), w.OutputComment(fmt.Sprintf("linkbench-go %s %s, values in the collector's unit", r.phase, o.Op)),
				w.OutputStartTime(startMs), w.OutputBaseTime(startMs), w.OutputLegend()); err != nil {
				f.Abort()
				return fmt.Errorf("results: %s: %w", name, err)
			}
			l = &hdrLog{f: f, w: w, name: name}
			r.logs[o.Op] = l
		}
		h := o.Hist
		h.SetStartTimeMs(iv.Start.UnixMilli())
		h.SetEndTimeMs(iv.End.UnixMilli())
		if err := l.w.OutputIntervalHistogram(h); err != nil {
			return fmt.Errorf("results: %s: %w", l.name, err)
		}
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// finish ends the phase's recording: it commits the HDR logs (complete
// and synced under their names), takes the last host snapshot (the
// database size after a memtable flush) and returns the phase's result
// file, written to the results directory when there is one (after the
// logs it names). Errors: writing a log or the result file; the file is
// returned with what could be recorded.
func (r *phaseRecorder) finish(ctx context.Context, rep *stats.Report, p results.Phase) (*results.File, error) {
	if r.pending != nil { // no final report came
		r.record(*r.pending)
		r.pending = nil
	}
	var closeErr error
	for _, l := range r.logs {
		if r.logErr != nil {
			l.f.Abort()
			continue
		}
		if err := l.f.Commit(); err != nil {
			if closeErr == nil {
				closeErr = fmt.Errorf("results: %w", err)
			}
			continue
		}
		l.committed = true
	}
	f := results.FromReport(rep, p)
	f.Intervals = r.intervals
	for i := range f.Intervals {
		f.Intervals[i].T = r.ends[i].Sub(rep.Start).Seconds()
	}
	if r.host != nil {
		f.Server = r.host.server
	}
	for i, o := range f.Ops {
		if l := r.logs[o.Op]; l != nil && l.committed {
			f.Ops[i].HDRLog = l.name
		}
	}
	if r.sampler != nil && len(r.snaps) > 0 {
		last, _ := r.sampler.Snapshot(ctx)
		if h := r.host; h != nil {
			size := h.opts.Size
			if h.finalSize != nil {
				size = h.finalSize
			}
			switch {
			case h.flush != nil && h.flush(ctx) != nil:
				last.Size = -1 // unflushed memtables would be left out
			case size != nil:
				last.Size = -1
				if n, err := size(ctx); err == nil {
					last.Size = n
				}
			}
		}
		// The window starts at the latest snapshot taken by the measured
		// window's start (a request phase's warm-up is left out).
		first := r.snaps[0]
		for _, s := range r.snaps {
			if !s.Time.After(rep.Start.Add(100 * time.Millisecond)) {
				first = s
			}
		}
		f.Host = &results.Host{Devices: r.sampler.Devices(), Summary: results.MetricsOf(hostmetrics.Diff(first, last))}
		if r.host != nil {
			f.Host.ServerPID = r.host.opts.ServerPID
		}
	}
	r.finishEngine(ctx, rep, f)
	f.Derive()
	if r.dir != "" {
		if err := results.Write(filepath.Join(r.dir, r.base+".json"), f); err != nil {
			return f, err
		}
	}
	return f, firstErr(r.logErr, closeErr)
}

// finishEngine puts the engine's figures over the measured window into
// the report and the result file: from the snapshot taken nearest the
// window's start (the phase's first, or the interval tick at the end of a
// warm-up) to one taken now (after the host metrics' flush, so that a
// load's figures count the flush of what it wrote).
func (r *phaseRecorder) finishEngine(ctx context.Context, rep *stats.Report, f *results.File) {
	if len(r.engineSnaps) == 0 {
		return
	}
	last, ok := r.engine.snapshot(ctx)
	if !ok {
		return
	}
	// Nearest, not the latest before a slack after it: a load shorter
	// than the slack took a snapshot of its end as its start (no bytes
	// written, no write amplification).
	first := r.engineSnaps[0]
	for _, s := range r.engineSnaps[1:] {
		if absDuration(s.Time.Sub(rep.Start)) < absDuration(first.Time.Sub(rep.Start)) {
			first = s
		}
	}
	m := engineDiff(first, last)
	if m == nil {
		return
	}
	rep.Engine = engineFigures(m)
	f.Engine = &results.Engine{Name: last.Engine, Summary: m}
}

// absDuration returns |d|.
func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
