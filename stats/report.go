package stats

import (
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
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

// OpReport is the merged statistics of one operation.
type OpReport struct {
	Op Op `json:"op"`
	// Threads is the number of recorders merged into the report (all of
	// them, as LinkBench prints its histogram's thread count); Active is the
	// number of those that recorded this op.
	Threads int `json:"threads"`
	Active  int `json:"active"`
	// Successes, Misses (found == false) and Errors count the calls; for a
	// size op, Successes is the number of sizes recorded. Clamped counts the
	// values, in any of the op's series, that were outside [0, HighestUs] and
	// recorded as the nearest bound.
	Successes int64 `json:"successes"`
	Misses    int64 `json:"misses"`
	Errors    int64 `json:"errors"`
	Clamped   int64 `json:"clamped"`
	// Latency digests success and miss latencies, in us (for a size op:
	// rows); ErrorLatency the error latencies, in us.
	Latency      Summary `json:"latency"`
	ErrorLatency Summary `json:"error_latency"`
	// Service digests the open-loop service times (RecordService), in us;
	// nil when none was recorded.
	Service *Summary `json:"service,omitempty"`
}

// Count returns Successes + Misses + Errors.
func (o OpReport) Count() int64 { return o.Successes + o.Misses + o.Errors }

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
	Requesters int   `json:"requesters"` // requester threads
	Aborted    int   `json:"aborted"`    // requesters that stopped on max_failed_requests
}

// Counter is a named store metric, e.g. retries per operation or per MySQL
// error number (LinkBench's "Graph Link total retry" and "Error counts"
// lines, reference §9.6).
type Counter struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// Report is a phase's merged statistics, built by Merge once the workers
// have stopped and completed by the driver (Header, Elapsed, Load or
// Request, Counters). It is plain data: workers never touch it.
type Report struct {
	Phase Phase
	// Header holds the effective configuration lines supplied by the driver
	// (seed, workload profile, out-degree source, maxid1, store, ...), in
	// order; WriteText prints them first.
	Header []KV
	// Threads is the number of recorders merged.
	Threads int
	// HighestUs and SigFigs are the histograms' settings (Options, defaults
	// applied).
	HighestUs int64
	SigFigs   int
	// Start is when the measured window began; Elapsed its length.
	Start   time.Time
	Elapsed time.Duration
	// Ops holds one entry per operation with at least one value in any
	// series, in ordinal order (never nil after Merge).
	Ops []OpReport
	// Load is set for load reports, Request for request reports; a nil one
	// reads as all zeros.
	Load    *LoadTotals
	Request *RequestTotals
	// Counters are store metrics, printed in order.
	Counters []Counter
	// Status is how the phase ended: "" when it completed, else a word for
	// the completion line such as "INTERRUPTED" (cancelled) or "FAILED"
	// (stopped by an error); the report then covers what was done.
	Status string
}

// Merge merges the recorders of one phase (one per worker; after the workers
// have stopped) into a Report with Phase = phase, Threads = len(recs) and
// the histograms' settings, and one OpReport per operation recorded by any
// of them. The driver fills Header, Start, Elapsed, Load or Request and
// Counters afterwards. Merging is exact: the merged histograms hold the same
// counts as one recorder given every value. The recorders are not modified.
//
// Merge fails when a recorder is nil or when the recorders' HighestUs or
// SigFigs differ (their histograms could not be merged exactly).
func Merge(phase Phase, recs []*Recorder) (*Report, error) {
	rep := &Report{Phase: phase, Threads: len(recs), Ops: []OpReport{}}
	if len(recs) == 0 {
		o, _ := Options{}.normalize()
		rep.HighestUs, rep.SigFigs = o.HighestUs, o.SigFigs
		return rep, nil
	}
	for i, r := range recs {
		if r == nil {
			return nil, fmt.Errorf("stats: Merge: recorder %d is nil", i)
		}
		if r.opts.HighestUs != recs[0].opts.HighestUs || r.opts.SigFigs != recs[0].opts.SigFigs {
			return nil, fmt.Errorf("stats: Merge: recorder %d has HighestUs %d, SigFigs %d; recorder 0 has %d, %d",
				i, r.opts.HighestUs, r.opts.SigFigs, recs[0].opts.HighestUs, recs[0].opts.SigFigs)
		}
	}
	o := recs[0].opts
	rep.HighestUs, rep.SigFigs = o.HighestUs, o.SigFigs
	for op := range NumOps {
		or := OpReport{Op: Op(op), Threads: len(recs)}
		var lat, errLat, svc *hdr.Histogram
		merge := func(dst **hdr.Histogram, src *hdr.Histogram) error {
			if src == nil {
				return nil
			}
			if *dst == nil {
				*dst = hdr.New(1, o.HighestUs, o.SigFigs)
			}
			if d := (*dst).Merge(src); d != 0 {
				return fmt.Errorf("stats: Merge: %v: %d values dropped", Op(op), d)
			}
			return nil
		}
		for _, r := range recs {
			s := r.ops[op]
			if s == nil {
				continue
			}
			or.Active++
			or.Successes += s.successes
			or.Misses += s.misses
			or.Errors += s.errors
			or.Clamped += s.clamped
			for _, m := range [...]struct {
				dst **hdr.Histogram
				src *hdr.Histogram
			}{{&lat, s.lat}, {&errLat, s.errLat}, {&svc, s.svc}} {
				if err := merge(m.dst, m.src); err != nil {
					return nil, err
				}
			}
		}
		if or.Count() == 0 && svc == nil {
			continue
		}
		or.Latency = summarize(lat)
		or.ErrorLatency = summarize(errLat)
		if svc != nil {
			s := summarize(svc)
			or.Service = &s
		}
		rep.Ops = append(rep.Ops, or)
	}
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
