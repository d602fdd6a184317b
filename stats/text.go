package stats

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// seconds returns the measured window in seconds (0 when not positive).
func (r *Report) seconds() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return r.Elapsed.Seconds()
}

// perSecond returns Java's Math.round(n / sec), or 0 when sec is 0 (where
// LinkBench would print Infinity or NaN).
func perSecond(n int64, sec float64) int64 {
	if sec <= 0 {
		return 0
	}
	return javaRound(float64(n) / sec)
}

// ratio returns a / b, or 0 when b is 0 (where LinkBench prints Infinity or
// NaN, reference §11.2 item 23).
func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// hdrLine appends LinkBench's HDR latency line body (reference §9.3) for s:
// "count = n  p25 = vus  p50 = vus  p75 = vus  p95 = vus  p99 = vus  max = vus mean = m.mmmus threads = t",
// with unit "us" (or "" for rows).
//
// Percentiles and the maximum are printed as whole microseconds
// (truncated), as LinkBench prints them.
func hdrLine(b *strings.Builder, s Summary, unit string, threads int) {
	i := func(v float64) int64 { return int64(v) }
	fmt.Fprintf(b, "count = %d  p25 = %d%s  p50 = %d%s  p75 = %d%s  p95 = %d%s  p99 = %d%s  max = %d%s mean = %s%s threads = %d",
		s.Count, i(s.P25), unit, i(s.P50), unit, i(s.P75), unit, i(s.P95), unit, i(s.P99), unit, i(s.Max), unit, javaFixed(s.Mean, 3), unit, threads)
}

// WriteText writes the report as text, in this order:
//
//  1. the Header lines, "Key: Value";
//  2. per operation with success or miss values, in ordinal order,
//     LinkBench's HDR line (reference §9.3), e.g.
//     "GET_NODE count = 10  p25 = 250us  p50 = 2501us  p75 = 150015us  p95 = 20004863us  p99 = 20004863us  max = 20004863us mean = 2166642.800us threads = 2"
//     (mean as Java's %.3f); a size op gets the same line without the "us"
//     units, ending in " (rows)";
//  3. per request operation, its outcomes:
//     "GET_NODE found = 9 notfound = 1 errors = 0" (+ " clamped = n" when
//     values were clamped); per other operation with errors or clamped
//     values, "OP errors = e clamped = c";
//  4. per operation with errors, "OP error_latency " + the HDR line body of
//     the error latencies, and with open-loop service times, "OP
//     service_time " + that of the service times;
//  5. the Counters, "Name = Value", then the Engine figures,
//     "engine.name = value";
//  6. the completion line: for a load, LinkBench's (reference §5.8, MD)
//     "LOAD PHASE COMPLETED. Loaded %d nodes (Expected %d), %d links (%.2f /node), %d counts (%.2f /node). %.1f seconds, %d Links/s, %d (link+count)/s, %d (link+count+node)/s"
//     with rates Math.round(rows / seconds); for requests, LinkBench's
//     (reference §6.1) "REQUEST PHASE COMPLETED. %d requests done in %d
//     seconds. Requests/second = %d" with the seconds and the rate rounded
//     as Math.round rounds (LinkBench truncates both: 14.96 s is "14
//     seconds" there, "15 seconds" here, as SUMMARY's seconds=15.0 and its
//     tps agree), followed when
//     Aborted > 0 by "Benchmark did not complete cleanly: a/r request
//     threads aborted.  See error log entries for details.";
//  7. SummaryLine.
//
// Seconds come from Elapsed (nanosecond resolution; LinkBench uses
// milliseconds). Where LinkBench would divide by zero (Elapsed = 0, no nodes
// loaded) the rate or per-node ratio printed is 0, never Infinity or NaN. A
// nil Load or Request reads as zeros. Numbers are formatted as Java's
// String.format. It returns a write error wrapped, or an error for an
// undefined Phase.
func (r *Report) WriteText(w io.Writer) error {
	if r.Phase > PhaseRequest {
		return fmt.Errorf("stats: WriteText: undefined phase %d", uint8(r.Phase))
	}
	var b strings.Builder
	for _, kv := range r.Header {
		fmt.Fprintf(&b, "%s: %s\n", kv.Key, kv.Value)
	}
	for _, o := range r.Ops {
		if o.Latency.Count == 0 {
			continue
		}
		b.WriteString(o.Op.String())
		b.WriteByte(' ')
		if o.Op.IsSize() {
			hdrLine(&b, o.Latency, "", o.Threads)
			b.WriteString(" (rows)\n")
		} else {
			hdrLine(&b, o.Latency, "us", o.Threads)
			b.WriteByte('\n')
		}
	}
	for _, o := range r.Ops {
		switch {
		case o.Op.IsRequest():
			fmt.Fprintf(&b, "%v found = %d notfound = %d errors = %d", o.Op, o.Successes, o.Misses, o.Errors)
			if o.Abandoned > 0 {
				fmt.Fprintf(&b, " abandoned = %d", o.Abandoned)
			}
			if o.Clamped > 0 {
				fmt.Fprintf(&b, " clamped = %d", o.Clamped)
			}
			b.WriteByte('\n')
		case o.Errors > 0 || o.Clamped > 0 || o.Abandoned > 0:
			fmt.Fprintf(&b, "%v errors = %d clamped = %d", o.Op, o.Errors, o.Clamped)
			if o.Abandoned > 0 {
				fmt.Fprintf(&b, " abandoned = %d", o.Abandoned)
			}
			b.WriteByte('\n')
		}
	}
	for _, o := range r.Ops {
		if o.ErrorLatency.Count > 0 {
			fmt.Fprintf(&b, "%v error_latency ", o.Op)
			hdrLine(&b, o.ErrorLatency, "us", o.Threads)
			b.WriteByte('\n')
		}
		if o.Service != nil && o.Service.Count > 0 {
			fmt.Fprintf(&b, "%v service_time ", o.Op)
			hdrLine(&b, *o.Service, "us", o.Threads)
			b.WriteByte('\n')
		}
	}
	for _, c := range r.ErrorClasses {
		fmt.Fprintf(&b, "errors.%s = %d\n", c.Name, c.Value)
	}
	for _, c := range r.Counters {
		fmt.Fprintf(&b, "%s = %d\n", c.Name, c.Value)
	}
	for _, e := range r.Engine {
		v := strconv.FormatFloat(e.Value, 'f', 4, 64) // a ratio: write_amp, a hit rate
		if e.Value == math.Trunc(e.Value) && math.Abs(e.Value) < 1e15 {
			v = strconv.FormatFloat(e.Value, 'f', 0, 64) // bytes, counts
		}
		fmt.Fprintf(&b, "engine.%s = %s\n", e.Name, v)
	}
	b.WriteString(r.CompletionLine())
	b.WriteByte('\n')
	if r.Phase == PhaseRequest && r.Request != nil && r.Request.Aborted > 0 {
		fmt.Fprintf(&b, "Benchmark did not complete cleanly: %d/%d request threads aborted.  See error log entries for details.\n",
			r.Request.Aborted, r.Request.Requesters)
	}
	b.WriteString(r.SummaryLine())
	b.WriteByte('\n')
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("stats: writing text report: %w", err)
	}
	return nil
}

// CompletionLine returns LinkBench's phase completion line (see WriteText,
// item 6; without the aborted-requesters line), or "" for an undefined
// Phase. A non-empty Status replaces the word COMPLETED.
func (r *Report) CompletionLine() string {
	sec := r.seconds()
	status := "COMPLETED"
	if r.Status != "" {
		status = string(r.Status)
	}
	switch r.Phase {
	case PhaseLoad:
		var l LoadTotals
		if r.Load != nil {
			l = *r.Load
		}
		return fmt.Sprintf("LOAD PHASE %s. Loaded %d nodes (Expected %d), %d links (%s /node), %d counts (%s /node). %s seconds, %d Links/s, %d (link+count)/s, %d (link+count+node)/s",
			status, l.Nodes, l.ExpectedNodes, l.Links, javaFixed(ratio(l.Links, l.Nodes), 2), l.Counts, javaFixed(ratio(l.Counts, l.Nodes), 2),
			javaFixed(sec, 1), perSecond(l.Links, sec), perSecond(l.Links+l.Counts, sec), perSecond(l.Links+l.Counts+l.Nodes, sec)) + r.detail()
	case PhaseRequest:
		var q RequestTotals
		if r.Request != nil {
			q = *r.Request
		}
		// Rounded, as the SUMMARY line's seconds and tps are (LinkBench
		// truncates both: 14.96 s printed "14 seconds").
		return fmt.Sprintf("REQUEST PHASE %s. %d requests done in %d seconds. Requests/second = %d",
			status, q.Requests, javaRound(sec), perSecond(q.Requests, sec)) + r.detail()
	}
	return ""
}

// detail is " (Detail)" for a report with a Detail, else "".
func (r *Report) detail() string {
	if r.Detail == "" {
		return ""
	}
	return " (" + r.Detail + ")"
}

// Throughput returns the phase's rate in operations per second: requests
// (failed and abandoned ones included, as LinkBench counts them) for a
// request report, rows (nodes, links and counts) for a load report; 0
// when Elapsed is 0.
func (r *Report) Throughput() float64 {
	sec := r.seconds()
	if sec == 0 {
		return 0
	}
	switch {
	case r.Phase == PhaseRequest && r.Request != nil:
		return float64(r.Request.Requests) / sec
	case r.Phase == PhaseLoad && r.Load != nil:
		return float64(r.Load.Nodes+r.Load.Links+r.Load.Counts) / sec
	}
	return 0
}

// Goodput returns the requests per second that succeeded (found or not:
// misses are answers), failed and abandoned ones left out; for a load
// report, Throughput (its rows are written ones).
func (r *Report) Goodput() float64 {
	sec := r.seconds()
	if sec == 0 {
		return 0
	}
	if r.Phase == PhaseRequest && r.Request != nil {
		return float64(max(r.Request.Requests-r.Request.Errors-r.Request.Abandoned, 0)) / sec
	}
	return r.Throughput()
}

// Quantile returns the latency of op at quantile q, a fraction in [0, 1]
// (0.99 for the p99; see OpReport.Quantile), and true; or 0 and false
// when the report has no latency of op (op did not run, or every call of
// it failed): a gate such as p99 < limit must check ok, or it passes
// without testing anything. It panics, naming the value, when q is not in
// [0, 1]: Quantile(op, 99), a percentage as hdrhistogram-go's
// ValueAtQuantile takes, would otherwise read as the maximum.
func (r *Report) Quantile(op Op, q float64) (time.Duration, bool) {
	mustBeFraction("Report.Quantile", op, q)
	o, ok := r.Op(op)
	if !ok {
		return 0, false
	}
	return o.Quantile(q)
}

// mustBeFraction panics, naming q, when q (a quantile) is not in [0, 1]
// (NaN included).
func mustBeFraction(method string, op Op, q float64) {
	if q >= 0 && q <= 1 {
		return
	}
	panic(fmt.Sprintf("stats: %s(%v, %v): the quantile q is a fraction in [0, 1] (0.99 for the p99), not a percentage", method, op, q))
}

// p99ms returns the p99 latency of op in milliseconds with 3 decimals
// ("12.345"), or "-" when op has no success or miss latency.
func (r *Report) p99ms(op Op) string {
	o, ok := r.Op(op)
	if !ok || o.Latency.Count == 0 {
		return "-"
	}
	// Rounded to the microsecond, as the tables round it (it was
	// truncated: 6.430 beside the table's 6.431 for 6430.7 us).
	us := int64(math.Round(float64(o.Latency.P99)))
	return strconv.FormatInt(us/1000, 10) + "." + fmt.Sprintf("%03d", us%1000)
}

// statusField is " status=<Status>" (and the Detail, quoted) for a phase
// that did not complete, else "".
func (r *Report) statusField() string {
	if r.Status == "" {
		return ""
	}
	if r.Detail == "" {
		return " status=" + string(r.Status)
	}
	return fmt.Sprintf(" status=%s detail=%q", r.Status, r.Detail)
}

// SummaryLine returns the compact one-line summary benchmarkers compare
// (phase, rates, p99s); rates are Math.round(count / seconds), 0 when Elapsed
// is 0; seconds are Elapsed with one decimal.
//
// Load:    "SUMMARY load ips=<(nodes+links+counts)/s> nodes/s=<n> links/s=<n> counts/s=<n> seconds=<s.s>"
// Request: "SUMMARY request tps=<requests/s> goodput=<successful requests/s> un=<ms> gn=<ms> ul=<ms> gl=<ms> requests=<n> seconds=<s.s>"
//
// followed, for a phase that did not complete, by " status=<Status>" and
// ` detail="<Detail>"`; un, gn, ul and gl are the p99 latencies (successes and misses) of
// UPDATE_NODE, GET_NODE, UPDATE_LINK and GET_LINKS_LIST in milliseconds with
// 3 decimals, "-" for an op without values. It returns "" for an undefined
// Phase.
func (r *Report) SummaryLine() string {
	sec := r.seconds()
	switch r.Phase {
	case PhaseLoad:
		var l LoadTotals
		if r.Load != nil {
			l = *r.Load
		}
		return fmt.Sprintf("SUMMARY load ips=%d nodes/s=%d links/s=%d counts/s=%d seconds=%s",
			perSecond(l.Nodes+l.Links+l.Counts, sec), perSecond(l.Nodes, sec), perSecond(l.Links, sec), perSecond(l.Counts, sec), javaFixed(sec, 1)) + r.statusField()
	case PhaseRequest:
		var q RequestTotals
		if r.Request != nil {
			q = *r.Request
		}
		var b strings.Builder
		fmt.Fprintf(&b, "SUMMARY request tps=%d goodput=%d", perSecond(q.Requests, sec), perSecond(max(q.Requests-q.Errors-q.Abandoned, 0), sec))
		for _, h := range Headlines() {
			fmt.Fprintf(&b, " %s=%s", h.Short, r.p99ms(h.Op))
		}
		fmt.Fprintf(&b, " requests=%d seconds=%s", q.Requests, javaFixed(sec, 1))
		return b.String() + r.statusField()
	}
	return ""
}

// csvStatsHeader is LinkBench's -csvstats header with HDR histograms
// (reference §9.3).
const csvStatsHeader = "op,count,p25 (us),p50 (us),p75 (us),p95 (us),p99 (us),max (us),mean (us),threads\n"

// WriteCSV writes LinkBench's -csvstats file in its HDR form (reference
// §9.3, §9.7): with header set, the line
// "op,count,p25 (us),p50 (us),p75 (us),p95 (us),p99 (us),max (us),mean (us),threads",
// then one row "OP,count,p25,p50,p75,p95,p99,max,mean,threads" per latency
// op with success or miss values, in ordinal order, every value formatted
// as Java's DecimalFormat "#.##" (e.g. "GET_NODE,10,250,2501,150015,20004863,20004863,20004863,2166642.8,2").
// Size ops, error latencies and service times are left out, as LinkBench
// never writes them there (WriteJSON has them). With no row and no header
// nothing is written. It returns a write error, wrapped.
func (r *Report) WriteCSV(w io.Writer, header bool) error {
	var b strings.Builder
	if header {
		b.WriteString(csvStatsHeader)
	}
	for _, o := range r.Ops {
		s := o.Latency
		if s.Count == 0 || o.Op.IsSize() {
			continue
		}
		b.WriteString(o.Op.String())
		for _, v := range [...]float64{float64(s.Count), s.P25, s.P50, s.P75, s.P95, s.P99, s.Max, s.Mean, float64(o.Threads)} {
			b.WriteByte(',')
			b.WriteString(decimalFormat(v, 2))
		}
		b.WriteByte('\n')
	}
	if r.Status != "" && (b.Len() > 0 || header) {
		// A phase that did not complete says so after its rows, in a
		// comment line that LinkBench's readers of the file skip.
		fmt.Fprintf(&b, "# status = %s%s\n", r.Status, r.detail())
	}
	if b.Len() == 0 {
		return nil
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("stats: writing csv stats: %w", err)
	}
	return nil
}
