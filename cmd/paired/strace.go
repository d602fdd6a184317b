package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// syscallCount is one line of strace -c's summary: the calls of one
// system call and how many of them failed.
type syscallCount struct {
	calls, errors int64
}

// parseStrace reads the summary tables strace -c writes (one per
// personality, "System call usage summary for 32 bit mode:" and the like
// before the second) and returns the calls and errors per system call,
// summed over the tables; the "total" lines are left out. The columns are
// found by their names in the header ("calls", "errors", "syscall") and
// their extents by the dashed line under it (strace sizes them to the
// widest value); a line whose cells do not parse that way falls back to
// its blank-separated fields. It fails when the input holds no table.
func parseStrace(r io.Reader) (map[string]syscallCount, error) {
	out := map[string]syscallCount{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	var (
		spans   [][2]int // the current table's column extents; nil outside a table
		names   []string
		tables  int
		header  string
		lineNum int
	)
	col := func(name string) int {
		for i, n := range names {
			if n == name {
				return i
			}
		}
		return -1
	}
	for sc.Scan() {
		lineNum++
		line := strings.TrimRight(sc.Text(), " \r")
		switch {
		case strings.HasPrefix(strings.TrimSpace(line), "% time"):
			header, spans, names = line, nil, nil
			continue
		case isDashes(line):
			if header != "" {
				spans = dashSpans(line)
				names = make([]string, len(spans))
				for i, sp := range spans {
					names[i] = strings.TrimSpace(cut(header, sp, i == len(spans)-1))
				}
				if col("calls") < 0 || col("syscall") != len(spans)-1 {
					return nil, fmt.Errorf("strace summary line %d: header %q: want the columns calls and syscall (last)", lineNum, header)
				}
				header = ""
				tables++
			}
			// The dashed line above "total" ends nothing: total is
			// recognised by its name.
			continue
		case spans == nil || strings.TrimSpace(line) == "":
			if strings.TrimSpace(line) == "" {
				spans = nil
			}
			continue
		}
		name, c, err := straceLine(line, spans, col("calls"), col("errors"))
		if err != nil {
			return nil, fmt.Errorf("strace summary line %d: %w", lineNum, err)
		}
		if name == "total" {
			spans = nil
			continue
		}
		t := out[name]
		t.calls += c.calls
		t.errors += c.errors
		out[name] = t
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if tables == 0 {
		return nil, errors.New("no strace -c summary table (a \"% time ... calls errors syscall\" header)")
	}
	return out, nil
}

// straceLine parses one line of a summary table: by the column extents
// first, by its fields when a cell does not parse.
func straceLine(line string, spans [][2]int, callsCol, errorsCol int) (string, syscallCount, error) {
	last := len(spans) - 1
	name := strings.TrimSpace(cut(line, spans[last], true))
	calls, err1 := strconv.ParseInt(strings.TrimSpace(cut(line, spans[callsCol], false)), 10, 64)
	var errs int64
	var err2 error
	if errorsCol >= 0 {
		if e := strings.TrimSpace(cut(line, spans[errorsCol], false)); e != "" {
			errs, err2 = strconv.ParseInt(e, 10, 64)
		}
	}
	clean := bounded(line, [2]int{spans[last][0], len(line)}) && bounded(line, spans[callsCol]) && (errorsCol < 0 || bounded(line, spans[errorsCol]))
	if clean && name != "" && !strings.ContainsAny(name, " \t") && err1 == nil && err2 == nil {
		return name, syscallCount{calls, errs}, nil
	}
	// Fields: % time, seconds, usecs/call, calls, [errors,] syscall.
	f := strings.Fields(line)
	if len(f) != len(spans) && len(f) != len(spans)-1 {
		return "", syscallCount{}, fmt.Errorf("%q: want %d or %d fields", line, len(spans)-1, len(spans))
	}
	calls, err1 = strconv.ParseInt(f[callsCol], 10, 64)
	errs = 0
	if len(f) == len(spans) && errorsCol >= 0 {
		errs, err2 = strconv.ParseInt(f[errorsCol], 10, 64)
	} else {
		err2 = nil
	}
	if err1 != nil || err2 != nil {
		return "", syscallCount{}, fmt.Errorf("%q: calls or errors not a number", line)
	}
	return f[len(f)-1], syscallCount{calls, errs}, nil
}

// bounded reports whether line's cell in the extent sp stays inside it:
// blank (or the line's ends) on both sides. A value wider than its
// column spills over, and the cell alone would read part of it.
func bounded(line string, sp [2]int) bool {
	return (sp[0] == 0 || sp[0] > len(line) || line[sp[0]-1] == ' ') && (sp[1] >= len(line) || line[sp[1]] == ' ')
}

// isDashes reports whether line is a dashed rule of strace's table.
func isDashes(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && strings.Trim(t, "- ") == "" && strings.Contains(t, "--")
}

// dashSpans returns the extents [start, end) of the runs of '-' in line.
func dashSpans(line string) [][2]int {
	var spans [][2]int
	start := -1
	for i := 0; i <= len(line); i++ {
		dash := i < len(line) && line[i] == '-'
		switch {
		case dash && start < 0:
			start = i
		case !dash && start >= 0:
			spans = append(spans, [2]int{start, i})
			start = -1
		}
	}
	return spans
}

// cut returns line's text in the extent sp, to the end of the line when
// toEnd (the last column, left-aligned, may be wider than its dashes).
func cut(line string, sp [2]int, toEnd bool) string {
	if sp[0] >= len(line) {
		return ""
	}
	if toEnd || sp[1] > len(line) {
		return line[sp[0]:]
	}
	return line[sp[0]:sp[1]]
}

// syscallRow is one system call's line of the per-request table.
type syscallRow struct {
	name  string
	calls []float64 // per request, one per tool
	errs  []float64
	total float64 // sum of calls over the tools: the sort key
}

// minPerRequest is the smallest rate the syscall table shows: below it a
// call is start-up or shutdown (one execve over a run), not per request.
const minPerRequest = 0.001

// syscallRows returns the system calls per request of each tool (counts[i]
// over requests[i]), sorted by their sum over the tools (then by name),
// with the total first, and how many kinds were left out because every
// tool makes fewer than minPerRequest of them per request.
func syscallRows(counts []map[string]syscallCount, requests []int64) ([]syscallRow, int) {
	names := map[string]bool{}
	for _, c := range counts {
		for n := range c {
			names[n] = true
		}
	}
	total := syscallRow{name: "total", calls: make([]float64, len(counts)), errs: make([]float64, len(counts))}
	var rows []syscallRow
	left := 0
	for n := range names {
		r := syscallRow{name: n, calls: make([]float64, len(counts)), errs: make([]float64, len(counts))}
		keep := false
		for i, c := range counts {
			if requests[i] <= 0 {
				continue
			}
			r.calls[i] = float64(c[n].calls) / float64(requests[i])
			r.errs[i] = float64(c[n].errors) / float64(requests[i])
			total.calls[i] += r.calls[i]
			total.errs[i] += r.errs[i]
			r.total += r.calls[i]
			keep = keep || r.calls[i] >= minPerRequest
		}
		if keep {
			rows = append(rows, r)
		} else {
			left++
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].total != rows[j].total {
			return rows[i].total > rows[j].total
		}
		return rows[i].name < rows[j].name
	})
	for _, c := range total.calls {
		total.total += c
	}
	return append([]syscallRow{total}, rows...), left
}

// printSyscalls prints the system calls per request of the tools named
// (in that order), with go/java when both are there.
func printSyscalls(w io.Writer, names []string, counts []map[string]syscallCount, requests []int64, tps []float64) {
	rows, left := syscallRows(counts, requests)
	both := len(names) == 2
	fmt.Fprintf(w, "%-24s", "system calls per request")
	for _, n := range names {
		fmt.Fprintf(w, " %10s", n)
	}
	if both {
		fmt.Fprintf(w, " %9s", "go/java")
	}
	for _, n := range names {
		fmt.Fprintf(w, " %10s", n+" err")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-24s", "(tps under strace)")
	for i := range names {
		fmt.Fprintf(w, " %10s", strconv.FormatFloat(tps[i], 'f', 0, 64))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-24s", "(requests)")
	for i := range names {
		fmt.Fprintf(w, " %10d", requests[i])
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "%-24s", r.name)
		for i := range names {
			fmt.Fprintf(w, " %10.3f", r.calls[i])
		}
		if both {
			ratio := "-"
			if r.calls[0] != 0 {
				ratio = strconv.FormatFloat(r.calls[1]/r.calls[0], 'f', 2, 64)
			}
			fmt.Fprintf(w, " %9s", ratio)
		}
		for i := range names {
			fmt.Fprintf(w, " %10.3f", r.errs[i])
		}
		fmt.Fprintln(w)
	}
	if left > 0 {
		fmt.Fprintf(w, "(%d kinds made fewer than %g per request by every tool are left out)\n", left, minPerRequest)
	}
}
