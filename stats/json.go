package stats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// header is Report.Header in JSON: an object whose members keep their order
// (and duplicates) when decoded.
type header []KV

// MarshalJSON writes {"key": "value", ...} in order.
func (h header) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range h {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object of strings, keeping the members' order; an
// empty object or null gives nil.
func (h *header) UnmarshalJSON(data []byte) error {
	*h = nil
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil {
		return err
	} else if d, ok := t.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("stats: report header: want a JSON object, got %v", t)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string) // object keys are always strings
		var v string
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("stats: report header %q: %w", k, err)
		}
		*h = append(*h, KV{Key: k, Value: v})
	}
	_, err := dec.Token() // '}'
	return err
}

// reportJSON is the JSON form of a Report; ElapsedSeconds, Rates and
// Summary are derived for scripts and ignored when decoding.
type reportJSON struct {
	Phase          Phase            `json:"phase"`
	Header         header           `json:"header"`
	Threads        int              `json:"threads"`
	HighestUs      int64            `json:"highest_us"`
	SigFigs        int              `json:"sig_figs"`
	UnitNs         int64            `json:"unit_ns"`
	Start          time.Time        `json:"start"`
	ElapsedNs      int64            `json:"elapsed_ns"`
	ElapsedSeconds float64          `json:"elapsed_seconds"`
	Ops            []OpReport       `json:"ops"`
	Load           *LoadTotals      `json:"load,omitempty"`
	Request        *RequestTotals   `json:"request,omitempty"`
	ErrorClasses   []Counter        `json:"error_classes"`
	Counters       []Counter        `json:"counters"`
	Engine         []EngineFigure   `json:"engine,omitempty"`
	Seeds          map[string]int64 `json:"seeds,omitempty"`
	Status         Status           `json:"status,omitempty"`
	Detail         string           `json:"detail,omitempty"`
	Rates          map[string]int64 `json:"rates,omitempty"`
	Summary        string           `json:"summary,omitempty"`
}

// MarshalJSON encodes the report as a JSON object (see WriteJSON).
func (r Report) MarshalJSON() ([]byte, error) {
	j := reportJSON{
		Phase: r.Phase, Header: header(r.Header), Threads: r.Threads,
		HighestUs: r.HighestUs, SigFigs: r.SigFigs, UnitNs: int64(r.Unit),
		Start: r.Start, ElapsedNs: int64(r.Elapsed), ElapsedSeconds: r.seconds(),
		Ops: r.Ops, ErrorClasses: r.ErrorClasses, Load: r.Load, Request: r.Request, Counters: r.Counters,
		Engine: r.Engine, Seeds: r.Seeds, Status: r.Status, Detail: r.Detail, Summary: r.SummaryLine(),
	}
	if j.ErrorClasses == nil {
		j.ErrorClasses = []Counter{}
	}
	if j.Header == nil {
		j.Header = header{}
	}
	if j.Ops == nil {
		j.Ops = []OpReport{}
	}
	if j.Counters == nil {
		j.Counters = []Counter{}
	}
	sec := r.seconds()
	switch r.Phase {
	case PhaseLoad:
		var l LoadTotals
		if r.Load != nil {
			l = *r.Load
		}
		j.Rates = map[string]int64{
			"ips": perSecond(l.Nodes+l.Links+l.Counts, sec), "nodes_per_s": perSecond(l.Nodes, sec),
			"links_per_s": perSecond(l.Links, sec), "counts_per_s": perSecond(l.Counts, sec),
		}
	case PhaseRequest:
		var q RequestTotals
		if r.Request != nil {
			q = *r.Request
		}
		j.Rates = map[string]int64{"tps": perSecond(q.Requests, sec)}
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes what MarshalJSON wrote (the derived members are
// ignored); an empty "counters" array gives nil Counters.
func (r *Report) UnmarshalJSON(data []byte) error {
	var j reportJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*r = Report{
		Phase: j.Phase, Header: []KV(j.Header), Threads: j.Threads,
		HighestUs: j.HighestUs, SigFigs: j.SigFigs, Unit: time.Duration(j.UnitNs),
		Start: j.Start, Elapsed: time.Duration(j.ElapsedNs),
		Ops: j.Ops, ErrorClasses: j.ErrorClasses, Load: j.Load, Request: j.Request, Counters: j.Counters,
		Engine: j.Engine, Seeds: j.Seeds, Status: j.Status, Detail: j.Detail,
	}
	if len(r.Counters) == 0 {
		r.Counters = nil
	}
	if len(r.ErrorClasses) == 0 {
		r.ErrorClasses = nil
	}
	for i := range r.Ops {
		r.Ops[i].unit = r.Unit
	}
	return nil
}

// WriteJSON writes the whole report as one indented JSON object, for
// scripts:
//
//	phase ("LOAD"/"REQUEST"), header (object of the Header lines, in order),
//	threads, highest_us, sig_figs, unit_ns (the histograms' resolution),
//	start (RFC 3339), elapsed_ns, elapsed_seconds, ops (array of OpReport:
//	op name, threads, active, successes, misses, errors, abandoned,
//	clamped, latency, error_latency and service {count, p25, p50, p75,
//	p95, p99, p999, p9999, max, min, mean}, in microseconds, or rows for
//	the size ops), error_classes [{name, value}], load {nodes,
//	expected_nodes, links, counts} or request {requests, errors,
//	abandoned, requesters, aborted, overrun_ns}, counters [{name, value}],
//	status and detail (when the phase did not complete), rates (load: ips,
//	nodes_per_s, links_per_s, counts_per_s; request: tps, goodput) and
//	summary (SummaryLine).
//
// ReadJSON (or json.Unmarshal into a Report) reads it back. It returns an
// encoding or write error, wrapped.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("stats: encoding report: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("stats: writing json report: %w", err)
	}
	return nil
}

// ReadJSON decodes a report written by WriteJSON. It returns the decoding
// error, wrapped.
func ReadJSON(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("stats: decoding report: %w", err)
	}
	return &r, nil
}
