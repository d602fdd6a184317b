package main

import (
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// row is one line of the side-by-side table: a figure of a load
// measurement (load) or of a request measurement.
type row struct {
	name    string
	load    bool
	val     func(m *measurement) (float64, bool)
	prec    int
	noRatio bool // the ratio means nothing (a level, not a cost)
}

// value returns the row's figure for a tool's load and request
// measurements; ok is false when the measurement it needs is missing.
func (r row) value(load, req *measurement) (float64, bool) {
	m := req
	if r.load {
		m = load
	}
	if m == nil {
		return 0, false
	}
	return r.val(m)
}

func perReq(m *measurement, d time.Duration) (float64, bool) {
	if m.requests == 0 {
		return 0, false
	}
	return float64(d) / 1e3 / float64(m.requests), true
}

// kibPerReq is a counter's delta in KiB per request, when the server has it.
func kibPerReq(m *measurement, name string) (float64, bool) {
	v, ok := m.status[name]
	if !ok || m.requests == 0 {
		return 0, false
	}
	return float64(v) / 1024 / float64(m.requests), true
}

// level is a counter's absolute value at the start or the end of a run.
func level(at map[string]int64, name string) (float64, bool) {
	v, ok := at[name]
	return float64(v), ok
}

func rows(statusNames []string) []row {
	r := []row{
		{name: "load rows/s", load: true, val: func(l *measurement) (float64, bool) {
			if l.wall == 0 {
				return 0, false
			}
			return float64(l.nodes+l.links+l.counts) / l.wall.Seconds(), true
		}},
		{name: "load links", load: true, val: func(l *measurement) (float64, bool) { return float64(l.links), true }},
		{name: "load wall s", load: true, prec: 1, val: func(l *measurement) (float64, bool) { return l.wall.Seconds(), true }},
		{name: "load client us/link", load: true, prec: 2, val: func(l *measurement) (float64, bool) {
			if l.links == 0 {
				return 0, false
			}
			return float64(l.user+l.sys) / 1e3 / float64(l.links), true
		}},
		{name: "load server us/row", load: true, prec: 2, val: func(l *measurement) (float64, bool) {
			if !l.hasServer || l.nodes+l.links+l.counts == 0 {
				return 0, false
			}
			return float64(l.serverCPU) / 1e3 / float64(l.nodes+l.links+l.counts), true
		}},
		{name: "load client peak RSS MiB", load: true, val: func(l *measurement) (float64, bool) { return float64(l.maxRSS) / 1024, true }},
		{name: "request tps", val: func(q *measurement) (float64, bool) { return q.reportRate, q.requests > 0 }},
		{name: "request client us/req", prec: 2, val: func(q *measurement) (float64, bool) { return perReq(q, q.user+q.sys) }},
		{name: "  user", prec: 2, val: func(q *measurement) (float64, bool) { return perReq(q, q.user) }},
		{name: "  system", prec: 2, val: func(q *measurement) (float64, bool) { return perReq(q, q.sys) }},
		{name: "request server us/req", prec: 1, val: func(q *measurement) (float64, bool) {
			if !q.hasServer {
				return 0, false
			}
			return perReq(q, q.serverCPU)
		}},
		{name: "request client peak RSS MiB", val: func(q *measurement) (float64, bool) { return float64(q.maxRSS) / 1024, true }},
		// How much of the machine the client and the server kept busy: a
		// run whose rate is bound by the server's lock waits rather than
		// CPU leaves the cores idle, whatever the client costs.
		{name: fmt.Sprintf("request client+server CPU %% of %d cores", runtime.NumCPU()), prec: 1, val: func(q *measurement) (float64, bool) {
			if !q.hasServer || q.wall <= 0 {
				return 0, false
			}
			return 100 * float64(q.user+q.sys+q.serverCPU) / float64(q.wall) / float64(runtime.NumCPU()), true
		}},
	}
	for _, n := range statusNames {
		r = append(r, row{name: "stmts/req " + n, prec: 3, val: func(q *measurement) (float64, bool) {
			v, ok := q.status[n]
			if !ok || q.requests == 0 {
				return 0, false
			}
			return float64(v) / float64(q.requests), true
		}})
	}
	for _, n := range workVars {
		r = append(r, row{name: "server " + n + "/req", prec: 3, val: func(q *measurement) (float64, bool) {
			v, ok := q.status[n]
			if !ok || q.requests == 0 {
				return 0, false
			}
			return float64(v) / float64(q.requests), true
		}})
	}
	r = append(r, row{name: "server context switches/req", prec: 2, val: func(q *measurement) (float64, bool) {
		if !q.hasServer || q.requests == 0 {
			return 0, false
		}
		return float64(q.serverCS) / float64(q.requests), true
	}})
	// The server's background writing during the run: a run disturbed
	// by the flushing of an earlier phase shows it here.
	return append(r,
		row{name: "server dirty pages at start", noRatio: true, val: func(q *measurement) (float64, bool) {
			return level(q.start, "Innodb_buffer_pool_pages_dirty")
		}},
		row{name: "server dirty pages at end", noRatio: true, val: func(q *measurement) (float64, bool) {
			return level(q.end, "Innodb_buffer_pool_pages_dirty")
		}},
		row{name: "server pages flushed/req", prec: 3, val: func(q *measurement) (float64, bool) {
			v, ok := q.status["Innodb_buffer_pool_pages_flushed"]
			if !ok || q.requests == 0 {
				return 0, false
			}
			return float64(v) / float64(q.requests), true
		}},
		row{name: "server data written KiB/req", prec: 2, val: func(q *measurement) (float64, bool) {
			return kibPerReq(q, "Innodb_data_written")
		}},
		row{name: "server redo log KiB/req", prec: 2, val: func(q *measurement) (float64, bool) {
			return kibPerReq(q, "Innodb_os_log_written")
		}},
		row{name: "rocksdb written KiB/req", prec: 2, val: func(q *measurement) (float64, bool) {
			return kibPerReq(q, "Rocksdb_bytes_written")
		}},
		row{name: "rocksdb flush KiB/req", prec: 2, val: func(q *measurement) (float64, bool) {
			return kibPerReq(q, "Rocksdb_flush_write_bytes")
		}},
		row{name: "rocksdb compaction KiB/req", prec: 2, val: func(q *measurement) (float64, bool) {
			return kibPerReq(q, "Rocksdb_compact_write_bytes")
		}},
		row{name: "rocksdb stall ms", prec: 0, noRatio: true, val: func(q *measurement) (float64, bool) {
			v, ok := q.status["Rocksdb_stall_micros"]
			return float64(v) / 1e3, ok
		}},
	)
}

// result is one run's measurements per tool: load (nil when the tool did
// not load in that run) and request (nil when it made no requests).
type result map[string][2]*measurement

// printTable prints the measurements of the tools named (in that order),
// with go/java when both are there; rows no tool has are left out.
func printTable(w io.Writer, title string, names []string, res result) {
	both := len(names) == 2
	fmt.Fprintf(w, "\n%-30s", title)
	for _, n := range names {
		fmt.Fprintf(w, " %12s", n)
	}
	if both {
		fmt.Fprintf(w, " %9s", "go/java")
	}
	fmt.Fprintln(w)
	for _, r := range rows(statusNames([]result{res})) {
		vals := make([]string, len(names))
		var got []float64
		seen := false
		for i, n := range names {
			v, ok := r.value(res[n][0], res[n][1])
			vals[i] = "-"
			if ok {
				vals[i] = strconv.FormatFloat(v, 'f', r.prec, 64)
				got = append(got, v)
				seen = true
			}
		}
		if !seen {
			continue
		}
		fmt.Fprintf(w, "%-30s", r.name)
		for _, v := range vals {
			fmt.Fprintf(w, " %12s", v)
		}
		if both {
			ratio := "-"
			if len(got) == 2 && got[0] != 0 && !r.noRatio && !bothZero(got, r.prec) {
				ratio = strconv.FormatFloat(got[1]/got[0], 'f', 2, 64)
			}
			fmt.Fprintf(w, " %9s", ratio)
		}
		fmt.Fprintln(w)
	}
}

// printMedians prints, for every row, the median of each tool over the
// runs and, with both tools, the median of the per-pair ratios go/java
// with their spread (min-max); with one tool, its spread.
func printMedians(w io.Writer, names []string, results []result) {
	both := len(names) == 2
	title := fmt.Sprintf("median over %d pairs", len(results))
	if both {
		fmt.Fprintf(w, "\n%-30s %12s %12s  %s\n", title, names[0], names[1], "go/java (min-max)")
	} else {
		fmt.Fprintf(w, "\n%-30s %12s  %s\n", title, names[0], "(min-max)")
	}
	for _, r := range rows(statusNames(results)) {
		per := make([][]float64, len(names))
		var ratios []float64
		for _, res := range results {
			vs := make([]float64, len(names))
			ok := true
			for i, n := range names {
				v, vok := r.value(res[n][0], res[n][1])
				vs[i], ok = v, ok && vok
			}
			if !ok {
				continue
			}
			for i, v := range vs {
				per[i] = append(per[i], v)
			}
			if both && vs[0] != 0 {
				ratios = append(ratios, vs[1]/vs[0])
			}
		}
		if len(per[0]) == 0 {
			continue
		}
		fmt.Fprintf(w, "%-30s", r.name)
		for _, p := range per {
			fmt.Fprintf(w, " %12s", strconv.FormatFloat(median(p), 'f', r.prec, 64))
		}
		switch {
		case !both:
			fmt.Fprintf(w, "  %s", spread(per[0], r.prec))
		case r.noRatio || len(ratios) == 0 || bothZero([]float64{median(per[0]), median(per[1])}, r.prec):
			fmt.Fprintf(w, "  -")
		default:
			fmt.Fprintf(w, "  %s", medianSpread(ratios, 2))
		}
		fmt.Fprintln(w)
	}
}

// bothZero reports whether every value of v prints as zero at prec
// decimals: a ratio of such values means nothing to the reader.
func bothZero(v []float64, prec int) bool {
	for _, x := range v {
		if strings.Trim(strconv.FormatFloat(x, 'f', prec, 64), "-0.") != "" {
			return false
		}
	}
	return true
}

// medianSpread formats the median of v and, when v has more than one
// value, its spread: "1.15 (1.08-1.32)".
func medianSpread(v []float64, prec int) string {
	m := strconv.FormatFloat(median(v), 'f', prec, 64)
	if len(v) < 2 {
		return m
	}
	return m + " " + spread(v, prec)
}

// spread formats the smallest and the largest of v: "(1.08-1.32)".
func spread(v []float64, prec int) string {
	lo, hi := v[0], v[0]
	for _, x := range v[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return "(" + strconv.FormatFloat(lo, 'f', prec, 64) + "-" + strconv.FormatFloat(hi, 'f', prec, 64) + ")"
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// statusNames returns the statement counters to report: statusVars, then
// every other Com_* counter that changed in a request phase of results
// (a statement one tool sends and the other does not), sorted.
func statusNames(results []result) []string {
	seen := map[string]bool{}
	for _, n := range statusVars {
		seen[n] = true
	}
	var extra []string
	for _, res := range results {
		for _, lr := range res {
			if lr[1] == nil {
				continue
			}
			for k, v := range lr[1].status {
				if strings.HasPrefix(k, "Com_") && v != 0 && !seen[k] {
					seen[k] = true
					extra = append(extra, k)
				}
			}
		}
	}
	sort.Strings(extra)
	return append(append([]string(nil), statusVars...), extra...)
}

// toolNames returns the tools' names in their order.
func toolNames(tools []tool) []string {
	n := make([]string, len(tools))
	for i, t := range tools {
		n[i] = t.name
	}
	return n
}

// joinThen joins names as "java, then go".
func joinThen(names []string) string { return strings.Join(names, ", then ") }
