package stats

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Phase is the benchmark phase a Report covers.
type Phase uint8

// The phases (reference §1.6).
const (
	PhaseLoad    Phase = iota // the load phase ("LOAD")
	PhaseRequest              // the request phase ("REQUEST")
)

// String returns "LOAD" or "REQUEST" (or "Phase(n)").
func (p Phase) String() string {
	switch p {
	case PhaseLoad:
		return "LOAD"
	case PhaseRequest:
		return "REQUEST"
	}
	return fmt.Sprintf("Phase(%d)", uint8(p))
}

// MarshalText returns p.String(); it fails for an undefined phase.
func (p Phase) MarshalText() ([]byte, error) {
	if p > PhaseRequest {
		return nil, fmt.Errorf("stats: undefined phase %d", uint8(p))
	}
	return []byte(p.String()), nil
}

// UnmarshalText parses "LOAD" or "REQUEST".
func (p *Phase) UnmarshalText(b []byte) error {
	switch string(b) {
	case "LOAD":
		*p = PhaseLoad
	case "REQUEST":
		*p = PhaseRequest
	default:
		return fmt.Errorf("stats: unknown phase %q", b)
	}
	return nil
}

// KV is one line of a report's header: an effective configuration value
// ("seed", "workload profile", "maxid1", "store", ...), printed "Key: Value".
type KV struct{ Key, Value string }

// EngineFigure is one of a storage engine's metrics (Report.Engine).
type EngineFigure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// OpReport is the merged statistics of one operation.
type OpReport struct {
	Op Op `json:"op"`
	// Threads is the number of recorders merged into the report (all of
	// them, as LinkBench prints its histogram's thread count); Active is the
	// number of those that recorded this op.
	Threads int `json:"threads"`
	Active  int `json:"active"`
	// Successes, Misses (found == false) and Errors count the calls;
	// Abandoned counts the calls given up while they waited for the store
	// (the run's end or a per-call timeout: RecordAbandoned). For a size
	// op, Successes is the number of sizes recorded. Clamped counts the
	// values, in any of the op's series, that were outside the histograms'
	// range and recorded as the nearest bound.
	Successes int64 `json:"successes"`
	Misses    int64 `json:"misses"`
	Errors    int64 `json:"errors"`
	Abandoned int64 `json:"abandoned,omitempty"`
	Clamped   int64 `json:"clamped"`
	// Latency digests success, miss and abandoned-call latencies, in
	// microseconds (for a size op: rows); ErrorLatency the error latencies.
	Latency      Summary `json:"latency"`
	ErrorLatency Summary `json:"error_latency"`
	// Service digests the open-loop service times (RecordService); nil
	// when none was recorded.
	Service *Summary `json:"service,omitempty"`

	lat  *pagedHist // Latency's histogram, for Quantile (nil in a report read from JSON)
	unit time.Duration
}

// Count returns Successes + Misses + Errors + Abandoned.
func (o OpReport) Count() int64 { return o.Successes + o.Misses + o.Errors + o.Abandoned }

// Quantile returns the latency at quantile q, a fraction in [0, 1] (0.99
// for the p99), of the op's successes, misses and abandoned calls, at the
// histograms' resolution (Java HdrHistogram's value at percentile 100·q:
// see Summary), and true; 0 and false when there are none (the op did not
// run, or every call failed). In a report read back from JSON, which holds
// the digest only, it returns the nearest of the Summary's percentiles at
// or above q. For a size op the value is rows, as a Duration of that many
// nanoseconds. It panics, naming the value, when q is not in [0, 1] (99
// for the p99 is a percentage, hdrhistogram-go's scale).
func (o OpReport) Quantile(q float64) (time.Duration, bool) {
	mustBeFraction("OpReport.Quantile", o.Op, q)
	if o.Latency.Count == 0 {
		return 0, false
	}
	if o.lat != nil {
		var v [1]int64
		pagedQuantiles(o.lat, []float64{100 * q}, v[:])
		if o.Op.IsSize() {
			return time.Duration(v[0]), true
		}
		return time.Duration(v[0]) * o.unit, true
	}
	s := o.Latency
	var us float64
	switch {
	case q <= 0.25:
		us = s.P25
	case q <= 0.5:
		us = s.P50
	case q <= 0.75:
		us = s.P75
	case q <= 0.95:
		us = s.P95
	case q <= 0.99:
		us = s.P99
	case q <= 0.999:
		us = s.P999
	case q <= 0.9999:
		us = s.P9999
	default:
		us = s.Max
	}
	if o.Op.IsSize() {
		return time.Duration(us), true
	}
	return time.Duration(us * float64(time.Microsecond)), true
}

// LoadTotals are the rows a load phase wrote, counted from successful store
// calls (reference §5.7).
type LoadTotals struct {
	Nodes         int64 `json:"nodes"`          // nodes written
	ExpectedNodes int64 `json:"expected_nodes"` // maxid1 − startid1
	Links         int64 `json:"links"`          // links written
	Counts        int64 `json:"counts"`         // count rows written
}

// RequestTotals are the request phase's totals (reference §6.1).
type RequestTotals struct {
	Requests   int64 `json:"requests"`   // requests done after warm-up, failed ones included (reference §6.3)
	Errors     int64 `json:"errors"`     // failed requests
	Abandoned  int64 `json:"abandoned"`  // requests given up while they waited for the store (run's end, per-call timeout)
	Requesters int   `json:"requesters"` // requester threads
	Aborted    int   `json:"aborted"`    // requesters that stopped on max_failed_requests
	// Overrun is how much longer than maxtime (after warm-up) the phase ran
	// because calls did not return in time (0 when it ended on time).
	Overrun time.Duration `json:"overrun_ns,omitempty"`
}

// Counter is a named store metric, e.g. retries per operation or per MySQL
// error number (LinkBench's "Graph Link total retry" and "Error counts"
// lines, reference §9.6).
type Counter struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// Report is a phase's merged statistics, built by Collector.Report (or
// Merge) and completed by the driver (Header, Elapsed, Load or Request,
// Counters). It is plain data: workers never touch it.
type Report struct {
	Phase Phase
	// Header holds the effective configuration lines supplied by the driver
	// (seed, workload profile, out-degree source, maxid1, store, ...), in
	// order; WriteText prints them first.
	Header []KV
	// Threads is the number of recorders merged.
	Threads int
	// HighestUs and SigFigs are the histograms' settings, Unit their
	// resolution (Options, defaults applied).
	HighestUs int64
	SigFigs   int
	Unit      time.Duration
	// Start is when the measured window began; Elapsed its length.
	Start   time.Time
	Elapsed time.Duration
	// Ops holds one entry per operation with at least one value in any
	// series, in ordinal order (never nil).
	Ops []OpReport
	// ErrorClasses counts the errors of every operation by class (see
	// Recorder.RecordError), by name.
	ErrorClasses []Counter
	// Load is set for load reports, Request for request reports; a nil one
	// reads as all zeros.
	Load    *LoadTotals
	Request *RequestTotals
	// Counters are store metrics, printed in order: what the store's
	// counters (retries, errors by server code) grew by during the phase.
	Counters []Counter
	// Engine is the storage engine's own metrics over the phase (a store
	// that measures its engine, store.EngineMetrics): its counters'
	// growth, its state at the end and the ratios derived from them, in
	// name order, printed after Counters. A metric the engine does not
	// give is absent.
	Engine []EngineFigure
	// Seeds are the random seeds the phase used, by their key
	// (load_random_seed, request_random_seed): with the configuration,
	// they reproduce its operations.
	Seeds map[string]int64
	// Status is how the phase ended: Completed (""), or Interrupted,
	// Failed, Overran or Abandoned; the report then covers what was done
	// and Detail says more.
	Status Status
	// Detail explains a Status in a few words ("overran by 3.2 s, 12
	// operations abandoned"); empty when Status is.
	Detail string
}

// Headline is one of the operations whose p99 benchmarkers publish, with
// the short name of its column.
type Headline struct {
	Op    Op
	Short string // un, gn, ul or gl
}

// Headlines returns the published tables' p99 columns, in their order:
// UPDATE_NODE (un), GET_NODE (gn), UPDATE_LINK (ul), GET_LINKS_LIST (gl).
func Headlines() [4]Headline {
	return [4]Headline{{UpdateNode, "un"}, {GetNode, "gn"}, {UpdateLink, "ul"}, {GetLinksList, "gl"}}
}

// Status is how a phase ended, the word of its completion line ("LOAD
// PHASE INTERRUPTED") and of the SUMMARY line's status=.
type Status string

// The statuses of a phase.
const (
	// Completed: the phase ran to its end on time, nothing abandoned.
	Completed Status = ""
	// Interrupted: its context was cancelled (a signal, the caller).
	Interrupted Status = "INTERRUPTED"
	// Failed: an error stopped it (a store failure, requesters aborted).
	Failed Status = "FAILED"
	// Overran: calls outlived the phase's time bound (maxtime +
	// grace_time) and were cut, or its preparation ate into its time.
	Overran Status = "OVERRAN"
	// Abandoned: calls reached their request_timeout and were abandoned.
	Abandoned Status = "ABANDONED"
)

// Report merges what the collector's recorders recorded into a Report
// with Phase = phase, Threads = the number of recorders, the histograms'
// settings, and one OpReport per operation recorded. It first flushes every
// recorder, so it must be called once the workers have stopped (before,
// the values still queued in recorders are left out). The driver fills
// Header, Start, Elapsed, Load or Request and Counters afterwards.
func (c *Collector) Report(phase Phase) *Report {
	c.mu.Lock()
	recs := append([]*Recorder(nil), c.recs...)
	c.mu.Unlock()
	for _, r := range recs {
		r.Flush()
	}
	rep, _ := mergeReports(phase, []*Collector{c}, recs)
	return rep
}

// Merge merges recorders (one per worker, after the workers have stopped)
// into a Report, flushing them first: those of one Collector, or made with
// NewRecorder, each with a Collector of its own. Merging is exact: the
// merged histograms hold the same counts as one histogram given every
// value. Merge fails when a recorder is nil or when the collectors' options
// differ (their histograms could not be merged exactly).
func Merge(phase Phase, recs []*Recorder) (*Report, error) {
	var cs []*Collector
	for i, r := range recs {
		if r == nil {
			return nil, fmt.Errorf("stats: Merge: recorder %d is nil", i)
		}
		r.Flush()
		if !slices.Contains(cs, r.c) {
			cs = append(cs, r.c)
		}
	}
	return mergeReports(phase, cs, recs)
}

func mergeReports(phase Phase, cs []*Collector, recs []*Recorder) (*Report, error) {
	o := Options{}
	if len(cs) > 0 {
		o = cs[0].opts
	}
	o, _ = o.normalize()
	for i, c := range cs {
		if c.opts.HighestUs != o.HighestUs || c.opts.SigFigs != o.SigFigs || c.opts.Unit != o.Unit {
			return nil, fmt.Errorf("stats: Merge: recorders with different options (%+v and %+v, collector %d)", o, c.opts, i)
		}
	}
	rep := &Report{Phase: phase, Threads: len(recs), Ops: []OpReport{}, HighestUs: o.HighestUs, SigFigs: o.SigFigs, Unit: o.Unit}
	classes := map[string]int64{}
	names := make([][]string, len(cs)) // class names, read before any stripe is locked
	for i, c := range cs {
		c.mu.Lock()
		names[i] = slices.Clone(c.className)
		c.mu.Unlock()
	}
	for op := range NumOps {
		or := OpReport{Op: Op(op), Threads: len(recs), unit: o.Unit}
		for _, r := range recs {
			if r.calls[op] > 0 {
				or.Active++
			}
		}
		var lat, errLat, svc *pagedHist
		add := func(dst **pagedHist, src *pagedHist) {
			if src == nil {
				return
			}
			if *dst == nil {
				*dst = newPagedHist(o.SigFigs)
			}
			(*dst).add(src) // same settings: the same indexes
		}
		for ci, c := range cs {
			for i := range c.stripes {
				st := &c.stripes[i]
				st.mu.Lock()
				if h := st.ops[op]; h != nil {
					or.Successes += h.successes
					or.Misses += h.misses
					or.Errors += h.errors
					or.Abandoned += h.abandoned
					or.Clamped += h.clamped
					add(&lat, h.lat)
					add(&errLat, h.errLat)
					add(&svc, h.svc)
					for id, n := range h.classes {
						name := "error"
						if int(id) < len(names[ci]) {
							name = names[ci][id]
						}
						classes[name] += n
					}
				}
				st.mu.Unlock()
			}
		}
		if or.Count() == 0 && svc == nil {
			continue
		}
		scale := o.Unit
		if Op(op).IsSize() {
			scale = time.Microsecond // rows are reported as they are
		}
		or.lat = lat
		or.Latency = summarizePaged(lat, scale)
		or.ErrorLatency = summarizePaged(errLat, scale)
		if svc != nil {
			s := summarizePaged(svc, scale)
			or.Service = &s
		}
		rep.Ops = append(rep.Ops, or)
	}
	for name, n := range classes {
		rep.ErrorClasses = append(rep.ErrorClasses, Counter{Name: name, Value: n})
	}
	slices.SortFunc(rep.ErrorClasses, func(a, b Counter) int { return strings.Compare(a.Name, b.Name) })
	return rep, nil
}

// Op returns the report of op and whether the report has one.
func (r *Report) Op(op Op) (OpReport, bool) {
	for _, o := range r.Ops {
		if o.Op == op {
			return o, true
		}
	}
	return OpReport{}, false
}
