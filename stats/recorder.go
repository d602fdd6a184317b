package stats

import (
	"errors"
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
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

// Default histogram settings (DESIGN.md "Stats"): 1 us .. 1 h, 3 significant
// digits.
const (
	DefaultHighestUs = 3_600_000_000 // 1 hour, in microseconds
	DefaultSigFigs   = 3
)

// Options configures a Recorder's histograms. The zero value gives the
// defaults. Every histogram tracks values from 1 up to HighestUs with SigFigs
// significant decimal digits (so values below 10^SigFigs, and 0, are exact);
// one histogram takes about 8·(b+1)·2^(ceil(log2(2·10^SigFigs))-1) bytes
// where b is the number of power-of-two buckets needed to reach HighestUs:
// 184 KiB with the defaults, 26 KiB with SigFigs = 2 (see HistogramBytes).
type Options struct {
	// HighestUs is the highest trackable value, in microseconds (or rows for
	// the size ops); larger values are clamped to it and counted. 0 means
	// DefaultHighestUs (1 hour); otherwise it must be >= 2. The lowest
	// discernible value is always 1.
	HighestUs int64
	// SigFigs is the number of significant decimal digits kept, 1..5; 0
	// means DefaultSigFigs (3).
	SigFigs int
	// Interval makes the Recorder also keep per-op interval histograms,
	// emptied by WriteInterval (LinkBench's -csvstream, reference §9.4).
	Interval bool
}

// normalize applies the defaults and checks the ranges.
func (o Options) normalize() (Options, error) {
	if o.HighestUs == 0 {
		o.HighestUs = DefaultHighestUs
	}
	if o.SigFigs == 0 {
		o.SigFigs = DefaultSigFigs
	}
	if o.HighestUs < 2 {
		return o, fmt.Errorf("stats: Options.HighestUs = %d, want >= 2 (or 0 for the default)", o.HighestUs)
	}
	if o.SigFigs < 1 || o.SigFigs > 5 {
		return o, fmt.Errorf("stats: Options.SigFigs = %d, want 1..5 (or 0 for the default)", o.SigFigs)
	}
	return o, nil
}

// HistogramBytes returns the memory, in bytes, of one histogram with these
// options (after defaults; 0 when the options are invalid). A Recorder holds
// up to four per operation it records (latency, error latency, service time,
// interval), each created on first use.
func (o Options) HistogramBytes() int {
	o, err := o.normalize()
	if err != nil {
		return 0
	}
	return hdr.New(1, o.HighestUs, o.SigFigs).ByteSize()
}

// opStats is one operation's series in one Recorder; each histogram is
// created on its first value.
type opStats struct {
	lat     *hdr.Histogram // successes and misses (or sizes)
	errLat  *hdr.Histogram // errors
	svc     *hdr.Histogram // open-loop service time
	ival    *hdr.Histogram // every value since the last WriteInterval (Options.Interval)
	ivalSum int64          // sum of the values in ival, as recorded (after clamping)

	successes, misses, errors, clamped int64
}

// Recorder collects one worker's measurements: per operation, an HDR
// histogram of success and miss latencies, one of error latencies, one of
// open-loop service times and (Options.Interval) one interval histogram for
// -csvstream, each created on its first value, so operations never recorded
// cost nothing. After that, recording allocates nothing.
//
// A Recorder is not safe for concurrent use: give each worker goroutine its
// own, and Merge them after the workers stop.
type Recorder struct {
	opts Options
	ops  [NumOps]*opStats
	buf  []byte // WriteInterval's scratch
}

// NewRecorder returns an empty Recorder. It fails when opts is out of range
// (see Options).
func NewRecorder(opts Options) (*Recorder, error) {
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	return &Recorder{opts: o}, nil
}

// Options returns the recorder's options, defaults applied.
func (r *Recorder) Options() Options { return r.opts }

// op returns op's series, creating them on first use.
func (r *Recorder) op(op Op) *opStats {
	s := r.ops[op]
	if s == nil {
		s = &opStats{}
		if r.opts.Interval {
			s.ival = r.newHist()
		}
		r.ops[op] = s
	}
	return s
}

func (r *Recorder) newHist() *hdr.Histogram {
	return hdr.New(1, r.opts.HighestUs, r.opts.SigFigs)
}

// clamp brings v into [0, HighestUs], counting a change in s.clamped.
func (r *Recorder) clamp(s *opStats, v int64) int64 {
	if uint64(v) > uint64(r.opts.HighestUs) { // negative values too
		s.clamped++
		if v < 0 {
			return 0
		}
		return r.opts.HighestUs
	}
	return v
}

// Record records one call of op that took us microseconds (LinkBench's
// latency, reference §9.1; in open-loop mode measured from the call's
// scheduled start, so that a stalled store is charged for the calls it
// delayed: no coordinated omission, reference §11.2 item 3).
//
// Success and Miss latencies go to op's latency histogram and are counted
// apart; Error latencies go to op's error histogram. With Options.Interval
// every value also goes to op's interval histogram. Values above HighestUs
// are recorded as HighestUs and negative values as 0, each counted in op's
// Clamped counter; 0 itself is recorded exactly. An Outcome other than the
// three defined counts as Error. op must be < NumOps (Record panics
// otherwise, like an out-of-range index).
func (r *Recorder) Record(op Op, o Outcome, us int64) {
	s := r.ops[op]
	if s == nil {
		s = r.op(op)
	}
	us = r.clamp(s, us)
	var h *hdr.Histogram
	switch o {
	case Success:
		s.successes++
		h = s.lat
	case Miss:
		s.misses++
		h = s.lat
	default:
		s.errors++
		if h = s.errLat; h == nil {
			h = r.newHist()
			s.errLat = h
		}
	}
	if h == nil {
		h = r.newHist()
		s.lat = h
	}
	// Cannot fail: us is in [0, HighestUs].
	_ = h.RecordValue(us)
	if s.ival != nil {
		_ = s.ival.RecordValue(us)
		s.ivalSum += us
	}
}

// RecordService records the service time of one open-loop call of op (from
// the actual send to the end, in microseconds), beside the latency Record
// measured from the scheduled start. Out-of-range values are clamped and
// counted as in Record. It does not count a call (Count is unchanged) and
// does not feed the interval histogram.
func (r *Recorder) RecordService(op Op, us int64) {
	s := r.ops[op]
	if s == nil {
		s = r.op(op)
	}
	us = r.clamp(s, us)
	h := s.svc
	if h == nil {
		h = r.newHist()
		s.svc = h
	}
	_ = h.RecordValue(us)
}

// RecordSize records a count of rows for one of the size operations
// (RangeSize: rows returned by a GetLinkList; LoadLinksBulkNLinks,
// LoadCountsBulkNLinks: rows per bulk batch; reference §9.1). The value goes
// to op's main histogram (reported as Latency, in rows) and counts as a
// success; with Options.Interval it also goes to the interval histogram.
// Out-of-range values are clamped and counted as in Record.
func (r *Recorder) RecordSize(op Op, rows int64) {
	r.Record(op, Success, rows)
}

// Count returns the number of calls of op recorded so far (successes +
// misses + errors; for a size op, the number of sizes recorded).
func (r *Recorder) Count(op Op) int64 {
	s := r.ops[op]
	if s == nil {
		return 0
	}
	return s.successes + s.misses + s.errors
}

// Errors returns the number of errors of op recorded so far.
func (r *Recorder) Errors(op Op) int64 {
	s := r.ops[op]
	if s == nil {
		return 0
	}
	return s.errors
}

// ErrNoInterval is returned (wrapped) by WriteInterval on a Recorder built
// without Options.Interval.
var ErrNoInterval = errors.New("stats: recorder has no interval histograms (Options.Interval is false)")
