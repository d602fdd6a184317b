package stats

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/linkbench-go/linkbench/internal/cacheline"
)

// Outcome is the result of one store call: Success, Miss (the call worked
// but found nothing: found == false, reference §2) or Error (the call
// returned an error).
type Outcome uint8

// The outcomes of a store call.
const (
	Success Outcome = iota // the call succeeded and found what it looked for (or wrote)
	Miss                   // the call succeeded with found == false (a deleted or absent row)
	Error                  // the call returned an error
)

// String returns "SUCCESS", "MISS" or "ERROR" (or "Outcome(n)").
func (o Outcome) String() string {
	switch o {
	case Success:
		return "SUCCESS"
	case Miss:
		return "MISS"
	case Error:
		return "ERROR"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Default histogram settings: up to 1 h, 3 significant
// digits, nanosecond resolution.
const (
	DefaultHighestUs = 3_600_000_000 // 1 hour, in microseconds
	DefaultSigFigs   = 3
	// IntervalSigFigs is the precision of the interval histograms
	// (Collector.Interval): two significant digits, about 1 %.
	IntervalSigFigs = 2
	// DefaultMaxStripes bounds the number of shards of a Collector's
	// histograms, which is by default GOMAXPROCS (at most this many).
	DefaultMaxStripes = 8
	// RecorderBatch is how many values a Recorder keeps before it moves
	// them into its Collector's histograms (a few microseconds of work,
	// which Record reports).
	RecorderBatch = 128
	// MaxHighestUs is the largest Options.HighestUs: about 146 years, in
	// microseconds (2^62 ns, so that every value in nanoseconds fits).
	MaxHighestUs = (1 << 62) / 1000
)

// Options configures a Collector's histograms. The zero value gives the
// defaults. Every histogram tracks values from 1 unit up to HighestUs
// microseconds with SigFigs significant decimal digits; a dense histogram
// of that range takes about 8·(b+1)·2^(ceil(log2(2·10^SigFigs))-1) bytes
// where b is the number of power-of-two buckets needed to reach the
// highest value in units: 264 KiB with the defaults (HistogramBytes). A
// Collector's own histograms allocate those buckets as values fall in
// them, so that they take what the values recorded need: a third or less
// of that for latencies spanning three decades, a few pages for row
// counts.
type Options struct {
	// HighestUs is the highest trackable latency, in microseconds (for the
	// size ops, the highest row count is HighestUs·1000); larger values
	// are clamped to it and counted. 0 means DefaultHighestUs (1 hour);
	// otherwise it must be in 2..MaxHighestUs. The lowest discernible value is one Unit.
	HighestUs int64
	// SigFigs is the number of significant decimal digits kept, 1..5; 0
	// means DefaultSigFigs (3).
	SigFigs int
	// Unit is the resolution of the latency histograms: time.Nanosecond
	// (the default, 0), so that a sub-microsecond operation of an embedded
	// store is measured, or time.Microsecond, LinkBench's, with which the
	// reports of given microsecond values are Java LinkBench's digit for
	// digit.
	Unit time.Duration
	// Interval makes each Recorder also keep its own per-op statistics of
	// the current interval, for LinkBench's per-requester -csvstream rows
	// (WriteInterval).
	Interval bool
	// Stripes is the number of shards of the Collector's histograms
	// (default: GOMAXPROCS, at most DefaultMaxStripes); Recorders are
	// spread over them, so that workers seldom wait for one another.
	Stripes int
}

// normalize applies the defaults and checks the ranges.
func (o Options) normalize() (Options, error) {
	if o.HighestUs == 0 {
		o.HighestUs = DefaultHighestUs
	}
	if o.SigFigs == 0 {
		o.SigFigs = DefaultSigFigs
	}
	if o.Unit == 0 {
		o.Unit = time.Nanosecond
	}
	if o.Stripes == 0 {
		o.Stripes = min(max(runtime.GOMAXPROCS(0), 1), DefaultMaxStripes)
	}
	switch {
	case o.HighestUs < 2:
		return o, fmt.Errorf("stats: Options.HighestUs = %d, want >= 2 (or 0 for the default)", o.HighestUs)
	case o.SigFigs < 1 || o.SigFigs > 5:
		return o, fmt.Errorf("stats: Options.SigFigs = %d, want 1..5 (or 0 for the default)", o.SigFigs)
	case o.Unit != time.Nanosecond && o.Unit != time.Microsecond:
		return o, fmt.Errorf("stats: Options.Unit = %v, want time.Nanosecond or time.Microsecond", o.Unit)
	case o.Stripes < 1 || o.Stripes > 256:
		return o, fmt.Errorf("stats: Options.Stripes = %d, want 1..256 (or 0 for the default)", o.Stripes)
	case o.HighestUs > MaxHighestUs:
		return o, fmt.Errorf("stats: Options.HighestUs = %d, want <= %d", o.HighestUs, int64(MaxHighestUs))
	}
	return o, nil
}

// highest returns the highest trackable value in histogram units.
func (o Options) highest() int64 { return o.HighestUs * int64(time.Microsecond/o.Unit) }

// HistogramBytes returns the memory, in bytes, of one dense histogram
// with these options (after defaults; 0 when the options are invalid), as
// Interval's are (at IntervalSigFigs): the most one of a Collector's own
// histograms takes. A Collector holds up to five per
// operation and stripe (latency, error latency, service time, and the
// interval's latency and errors), each created on first use and grown a
// power-of-two bucket at a time.
func (o Options) HistogramBytes() int {
	o, err := o.normalize()
	if err != nil {
		return 0
	}
	return hdr.New(1, o.highest(), o.SigFigs).ByteSize()
}

// opHists is one operation's histograms and counts in one stripe of a
// Collector, each histogram created on its first value, with the pages of
// counts its values need (pagedHist).
type opHists struct {
	lat    *pagedHist // successes, misses and abandoned calls (or sizes)
	errLat *pagedHist // errors
	svc    *pagedHist // open-loop service time
	ival   *pagedHist // every outcome since the last Interval, at IntervalSigFigs
	ivalEr *pagedHist // the errors of ival

	successes, misses, errors, abandoned, clamped int64
	ivalErrors, ivalMisses, ivalAbandoned         int64
	classes                                       map[uint16]int64 // errors by class id
	ivalClasses                                   map[uint16]int64 // errors by class id since the last Interval
	_                                             cacheline.Pad    // written per value: off another stripe's lines (false sharing)
}

// stripe is a shard of a Collector's histograms.
type stripe struct {
	mu  sync.Mutex
	ops [NumOps]*opHists
	_   [64]byte // keeps stripes' mutexes on different cache lines
}

// Collector gathers the measurements of one phase's workers: each worker
// records through a Recorder of its own (NewRecorder), which keeps a few
// values and moves them into the Collector's shared histograms (one mutex
// per stripe, taken once per batch of values), so that memory does not grow
// with the number of workers and no lock is taken per operation. Per
// operation there are HDR histograms (github.com/HdrHistogram/hdrhistogram-go)
// of success, miss and abandoned-call latencies, of error latencies, of
// open-loop service times, and of the current interval (Interval).
//
// Interval and Report may be called while workers record; Report's figures
// are complete once every worker has stopped.
type Collector struct {
	opts    Options
	highest int64
	stripes []stripe
	next    atomic.Uint32
	epoch   atomic.Uint64 // moved by Interval: Recorders flush when they see it move

	mu        sync.Mutex
	recs      []*Recorder
	lastIval  time.Time
	classIDs  map[string]uint16
	className []string
}

// NewCollector returns an empty Collector. It fails when opts is out of
// range (see Options).
func NewCollector(opts Options) (*Collector, error) {
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	return &Collector{opts: o, highest: o.highest(), stripes: make([]stripe, o.Stripes),
		lastIval: time.Now(), classIDs: map[string]uint16{}}, nil
}

// StartIntervals makes t the start of the first interval (Interval), the
// collector's creation by default: a phase calls it when its measured
// window starts, before its workers record, so that its first interval
// does not hold its preparation (opening sessions, the wait for
// -start-at).
func (c *Collector) StartIntervals(t time.Time) {
	c.mu.Lock()
	c.lastIval = t
	c.mu.Unlock()
}

// Options returns the collector's options, defaults applied.
func (c *Collector) Options() Options { return c.opts }

// NewRecorder returns a Recorder of the collector for one worker.
func (c *Collector) NewRecorder() *Recorder {
	r := &Recorder{c: c, st: &c.stripes[int(c.next.Add(1)-1)%len(c.stripes)],
		buf: make([]sample, 0, RecorderBatch), epoch: c.epoch.Load(), unit: int64(c.opts.Unit)}
	if c.opts.Interval {
		r.stream = new([NumOps]streamOp)
	}
	c.mu.Lock()
	c.recs = append(c.recs, r)
	c.mu.Unlock()
	return r
}

// classID returns the id of the error class name, assigning one on first
// use.
func (c *Collector) classID(name string) uint16 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id, ok := c.classIDs[name]; ok {
		return id
	}
	id := uint16(len(c.className))
	if int(id) == 1<<16-1 {
		return id - 1 // beyond 65534 classes, the last one takes the rest
	}
	c.classIDs[name] = id
	c.className = append(c.className, name)
	return id
}

// sample kinds.
const (
	kindSuccess   = uint8(Success) // the kinds of a success and a miss are their Outcomes (Record)
	kindMiss      = uint8(Miss)
	kindError     = uint8(Error)
	kindAbandoned = kindError + 1
	kindService   = kindError + 2
)

// sample is one value waiting in a Recorder.
type sample struct {
	v     int64
	op    Op
	kind  uint8
	class uint16
}

// Recorder is one worker's side of a Collector: it counts the worker's own
// calls, keeps the values it records in a small buffer, and moves them into
// the Collector's histograms when the buffer is full or when the
// Collector starts a new interval. A Recorder is not safe for concurrent
// use: give each worker goroutine its own. Recording allocates nothing.
type Recorder struct {
	_     cacheline.Pad // off another worker's lines (false sharing): it writes buf and calls per value
	c     *Collector
	st    *stripe
	buf   []sample
	epoch uint64
	unit  int64 // the collector's Unit, ns

	calls, errs [NumOps]int64 // this worker's calls and errors (for -csvstream's totals)
	stream      *[NumOps]streamOp
	classCache  map[string]uint16
	scratch     []byte        // WriteInterval's
	_           cacheline.Pad // off the next worker's lines
}

// NewRecorder returns a Recorder of a Collector of its own: the form for one
// worker, or for Merge of recorders made separately. It fails when opts is
// out of range (see Options).
func NewRecorder(opts Options) (*Recorder, error) {
	c, err := NewCollector(opts)
	if err != nil {
		return nil, err
	}
	return c.NewRecorder(), nil
}

// Collector returns the Collector the Recorder records into.
func (r *Recorder) Collector() *Collector { return r.c }

// Options returns the recorder's options, defaults applied.
func (r *Recorder) Options() Options { return r.c.opts }

// units converts a duration to histogram units (truncating); the default
// unit, a nanosecond, without a division.
func (r *Recorder) units(d time.Duration) int64 {
	if r.unit == 1 {
		return int64(d)
	}
	return int64(d) / r.unit
}

// add queues a value; it reports whether the Recorder moved its values into
// the Collector (a few microseconds of work the caller may want to keep
// out of its next measurement).
func (r *Recorder) add(s sample) bool {
	r.buf = append(r.buf, s)
	if len(r.buf) == cap(r.buf) || r.c.epoch.Load() != r.epoch {
		r.Flush()
		return true
	}
	return false
}

// Flush moves the Recorder's queued values into the Collector's histograms.
// Workers need not call it: the Recorder flushes as it goes, and
// Collector.Report flushes every Recorder (once the workers have stopped).
func (r *Recorder) Flush() {
	r.epoch = r.c.epoch.Load()
	if len(r.buf) == 0 {
		return
	}
	c, st := r.c, r.st
	st.mu.Lock()
	for _, s := range r.buf {
		h := st.ops[s.op]
		if h == nil {
			h = &opHists{}
			st.ops[s.op] = h
		}
		v := s.v
		if uint64(v) > uint64(c.highest) { // negative values too
			h.clamped++
			v = min(max(v, 0), c.highest)
		}
		if s.kind <= kindMiss && h.lat != nil && h.ival != nil {
			// A success or a miss, the common case: counted without a
			// branch on which (kindMiss is 1, kindSuccess 0), which a
			// store's hits and misses would mispredict.
			m := int64(s.kind)
			h.successes += 1 - m
			h.misses += m
			h.ivalMisses += m
			h.lat.record(v) // v is in [0, highest]
			h.ival.record(v)
			continue
		}
		var dst **pagedHist
		switch s.kind {
		case kindSuccess:
			h.successes++
			dst = &h.lat
		case kindMiss:
			h.misses++
			h.ivalMisses++
			dst = &h.lat
		case kindAbandoned:
			h.abandoned++
			h.ivalAbandoned++
			dst = &h.lat
		case kindError:
			h.errors++
			h.ivalErrors++
			if h.classes == nil {
				h.classes = map[uint16]int64{}
				h.ivalClasses = map[uint16]int64{}
			}
			h.classes[s.class]++
			h.ivalClasses[s.class]++
			dst = &h.errLat
		case kindService:
			dst = &h.svc
		}
		if *dst == nil {
			*dst = newPagedHist(c.opts.SigFigs)
		}
		(*dst).record(v) // v is in [0, highest]
		if s.kind != kindService {
			if h.ival == nil {
				h.ival = newPagedHist(IntervalSigFigs)
			}
			h.ival.record(v)
			if s.kind == kindError {
				if h.ivalEr == nil {
					h.ivalEr = newPagedHist(IntervalSigFigs)
				}
				h.ivalEr.record(v)
			}
		}
	}
	st.mu.Unlock()
	r.buf = r.buf[:0] // samples hold no pointers: nothing to clear
}

// Record records one call of op that took d (LinkBench's latency,
// reference §9.1; in open-loop mode measured from the call's scheduled
// start, so that a stalled store is charged for the calls it delayed: no
// coordinated omission, reference §11.2 item 3). Successes and misses are
// counted apart and share the latency histogram; an Error (or any other
// Outcome) goes to the error histogram, of class "error" (RecordError names
// the class). Values above the highest trackable value are recorded as it
// and negative ones as 0, each counted as clamped. op must be < NumOps
// (Record panics otherwise, like an out-of-range index). It reports whether
// the Recorder flushed its values into the Collector during the call.
func (r *Recorder) Record(op Op, o Outcome, d time.Duration) (flushed bool) {
	if o > Miss {
		return r.RecordError(op, "error", d)
	}
	// kindSuccess and kindMiss are Success and Miss.
	return r.recordKind(op, uint8(o), 0, r.units(d))
}

// RecordError records one failed call of op that took d, of the error
// class class (a short name: "transient", "timeout", ...; Report counts
// errors by class).
func (r *Recorder) RecordError(op Op, class string, d time.Duration) (flushed bool) {
	id, ok := r.classCache[class]
	if !ok {
		id = r.c.classID(class)
		if r.classCache == nil {
			r.classCache = map[string]uint16{}
		}
		r.classCache[class] = id
	}
	r.errs[op]++
	return r.recordKind(op, kindError, id, r.units(d))
}

// RecordAbandoned records a call of op abandoned after age (its context
// was cancelled while it waited for the store, at the end of the run or
// at its per-call timeout): it is counted as abandoned and its age goes to
// the latency histogram, so that percentiles and the maximum show the
// stall.
func (r *Recorder) RecordAbandoned(op Op, age time.Duration) (flushed bool) {
	return r.recordKind(op, kindAbandoned, 0, r.units(age))
}

// RecordService records the service time of one open-loop call of op (from
// the actual send to the end), beside the latency Record measured from the
// scheduled start. It does not count a call.
func (r *Recorder) RecordService(op Op, d time.Duration) (flushed bool) {
	return r.add(sample{v: r.units(d), op: op, kind: kindService})
}

// RecordSize records a count of rows for one of the size operations
// (RangeSize: rows returned by a GetLinkList; LoadLinksBulkNLinks,
// LoadCountsBulkNLinks: rows per bulk batch; reference §9.1), reported in
// rows, as a success.
func (r *Recorder) RecordSize(op Op, rows int64) (flushed bool) {
	return r.recordKind(op, kindSuccess, 0, rows)
}

// recordKind counts a call of op and queues its value v (add, inlined).
func (r *Recorder) recordKind(op Op, kind uint8, class uint16, v int64) bool {
	r.calls[op]++
	if r.stream != nil {
		r.stream[op].add(min(max(v, 0), r.c.highest))
	}
	r.buf = append(r.buf, sample{v: v, op: op, kind: kind, class: class})
	if len(r.buf) == cap(r.buf) || r.c.epoch.Load() != r.epoch {
		r.Flush()
		return true
	}
	return false
}

// Count returns the number of calls of op this Recorder recorded
// (successes, misses, errors and abandoned calls; for a size op, the
// number of sizes).
func (r *Recorder) Count(op Op) int64 { return r.calls[op] }

// Errors returns the number of errors of op this Recorder recorded.
func (r *Recorder) Errors(op Op) int64 { return r.errs[op] }

// ErrNoInterval is returned (wrapped) by WriteInterval on a Recorder whose
// Collector was built without Options.Interval.
var ErrNoInterval = errors.New("stats: recorder has no interval statistics (Options.Interval is false)")

// IntervalOp is one operation's figures over an interval (see
// Collector.Interval).
type IntervalOp struct {
	Op     Op
	Count  int64 // values recorded: successes, misses, errors and abandoned calls (sizes, for a size op)
	Errors int64
	// Misses and Abandoned count the interval's misses and abandoned
	// calls (as OpReport's); Count - Errors - Misses - Abandoned are its
	// successes.
	Misses, Abandoned int64
	// ErrorClasses counts the interval's errors by class (Recorder.RecordError),
	// by name; nil when there was none.
	ErrorClasses []Counter
	// Hist holds the interval's values, in the collector's unit (rows for
	// a size op), at IntervalSigFigs significant digits.
	Hist *hdr.Histogram
	// ErrHist holds the errors' values of Hist (same geometry, so that
	// Hist's counts minus ErrHist's, index by index, are the values of
	// the successes, misses and abandoned calls, OpReport.Latency's); nil
	// when the interval had no error.
	ErrHist *hdr.Histogram
	unit    time.Duration
}

// Unit returns the unit of the values of Hist and ErrHist: the
// collector's (Options.Unit; one row for a size op is still counted as
// one unit).
func (o IntervalOp) Unit() time.Duration { return o.unit }

// Quantile returns the value at quantile q, a fraction in [0, 1] (0.99
// for the p99), of the interval (Java HdrHistogram's value at percentile
// 100·q), and true; 0 and false when the interval has no value of the op.
// For a size op the value is rows, as a Duration of that many
// nanoseconds. It panics, naming the value, when q is not in [0, 1] (as
// Report.Quantile).
func (o IntervalOp) Quantile(q float64) (time.Duration, bool) {
	mustBeFraction("IntervalOp.Quantile", o.Op, q)
	if o.Hist == nil || o.Hist.TotalCount() == 0 {
		return 0, false
	}
	var v [1]int64
	denseQuantiles(o.Hist, []float64{100 * q}, v[:])
	if o.Op.IsSize() {
		return time.Duration(v[0]), true
	}
	return time.Duration(v[0]) * o.unit, true
}

// Interval is what a Collector's recorders recorded between two calls of
// Interval.
type Interval struct {
	Start, End time.Time
	Ops        []IntervalOp // ordinal order, operations with values only
}

// Requests returns the calls of the request operations in the interval.
func (iv Interval) Requests() (calls, errors int64) {
	for _, o := range iv.Ops {
		if o.Op.IsRequest() {
			calls += o.Count
			errors += o.Errors
		}
	}
	return calls, errors
}

// Op returns the figures of op and whether the interval has values of it.
func (iv Interval) Op(op Op) (IntervalOp, bool) {
	for _, o := range iv.Ops {
		if o.Op == op {
			return o, true
		}
	}
	return IntervalOp{}, false
}

// Merge returns the interval from iv's start to next's end holding the
// values of both (next follows iv; either may be empty, the zero Interval
// standing for none). The histograms of the result are new: iv's and
// next's are not modified, so either can still be used.
func (iv Interval) Merge(next Interval) Interval {
	if iv.Start.IsZero() && iv.End.IsZero() && len(iv.Ops) == 0 {
		return next
	}
	m := Interval{Start: iv.Start, End: next.End, Ops: make([]IntervalOp, 0, max(len(iv.Ops), len(next.Ops)))}
	i, j := 0, 0
	for i < len(iv.Ops) || j < len(next.Ops) {
		switch {
		case j == len(next.Ops) || i < len(iv.Ops) && iv.Ops[i].Op < next.Ops[j].Op:
			m.Ops = append(m.Ops, iv.Ops[i])
			i++
		case i == len(iv.Ops) || next.Ops[j].Op < iv.Ops[i].Op:
			m.Ops = append(m.Ops, next.Ops[j])
			j++
		default:
			a, b := iv.Ops[i], next.Ops[j]
			o := IntervalOp{Op: a.Op, Count: a.Count + b.Count, Errors: a.Errors + b.Errors,
				Misses: a.Misses + b.Misses, Abandoned: a.Abandoned + b.Abandoned,
				ErrorClasses: mergeCounters(a.ErrorClasses, b.ErrorClasses), unit: a.unit}
			o.Hist = mergeHists(a.Hist, b.Hist)
			o.ErrHist = mergeHists(a.ErrHist, b.ErrHist)
			if o.unit == 0 {
				o.unit = b.unit
			}
			m.Ops = append(m.Ops, o)
			i++
			j++
		}
	}
	return m
}

// mergeHists returns a new histogram holding a's and b's values, or the one
// that is not nil (nil when both are).
func mergeHists(a, b *hdr.Histogram) *hdr.Histogram {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	m := hdr.New(a.LowestTrackableValue(), a.HighestTrackableValue(), int(a.SignificantFigures()))
	m.Merge(a) // the same geometry: the same counts, without Export's copy
	m.Merge(b)
	return m
}

// mergeCounters returns the sums of a's and b's counters by name, sorted by
// name (nil when both are empty).
func mergeCounters(a, b []Counter) []Counter {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	m := map[string]int64{}
	for _, c := range a {
		m[c.Name] += c.Value
	}
	for _, c := range b {
		m[c.Name] += c.Value
	}
	return sortedCounters(m)
}

// sortedCounters returns m as counters sorted by name.
func sortedCounters(m map[string]int64) []Counter {
	out := make([]Counter, 0, len(m))
	for name, n := range m {
		out = append(out, Counter{Name: name, Value: n})
	}
	slices.SortFunc(out, func(a, b Counter) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// FinalInterval ends the last interval of a phase whose workers have
// stopped: it moves every Recorder's queued values into the collector
// first, so that the intervals' counts add up to the Report's. It must not
// be called while workers record.
func (c *Collector) FinalInterval() Interval {
	c.mu.Lock()
	recs := append([]*Recorder(nil), c.recs...)
	c.mu.Unlock()
	for _, r := range recs {
		r.Flush()
	}
	return c.Interval()
}

// Interval ends the current interval and returns its figures: the values
// moved into the collector since the previous call (or since the collector
// was made). Recorders move their values at the latest when they record
// after the call (every worker that keeps working does), so a value
// recorded just before the end of an interval may count in the next one.
// Interval is safe for concurrent use with recording. The interval's
// histograms keep IntervalSigFigs significant digits (small enough to keep
// one per operation and stripe, and to make for each interval).
func (c *Collector) Interval() Interval {
	c.epoch.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	iv := Interval{Start: c.lastIval, End: now}
	c.lastIval = now
	for op := range NumOps {
		var snap, errSnap *hdr.Histogram
		var errs, misses, abandoned int64
		var classes map[string]int64
		for i := range c.stripes {
			st := &c.stripes[i]
			st.mu.Lock()
			if h := st.ops[op]; h != nil && h.ival != nil && h.ival.total > 0 {
				if snap == nil {
					snap = hdr.New(1, c.highest, IntervalSigFigs)
				}
				h.ival.addTo(snap)
				h.ival.reset()
				if h.ivalEr != nil && h.ivalEr.total > 0 {
					if errSnap == nil {
						errSnap = hdr.New(1, c.highest, IntervalSigFigs)
					}
					h.ivalEr.addTo(errSnap)
					h.ivalEr.reset()
				}
				errs += h.ivalErrors
				misses += h.ivalMisses
				abandoned += h.ivalAbandoned
				h.ivalErrors, h.ivalMisses, h.ivalAbandoned = 0, 0, 0
				for id, n := range h.ivalClasses {
					if n == 0 {
						continue
					}
					if classes == nil {
						classes = map[string]int64{}
					}
					classes[c.className[id]] += n // c.mu is held
					h.ivalClasses[id] = 0
				}
			}
			st.mu.Unlock()
		}
		if snap != nil && snap.TotalCount() > 0 {
			o := IntervalOp{Op: Op(op), Count: snap.TotalCount(), Errors: errs, Misses: misses, Abandoned: abandoned,
				Hist: snap, ErrHist: errSnap, unit: c.opts.Unit}
			if classes != nil {
				o.ErrorClasses = sortedCounters(classes)
			}
			iv.Ops = append(iv.Ops, o)
		}
	}
	return iv
}
