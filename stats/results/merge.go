package results

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/linkbench-go/linkbench/internal/atomicfile"
	"github.com/linkbench-go/linkbench/stats"
)

// Part is one input of a merged result file (File.Parts): one host's
// (one shard's) phase as its own result file had it.
type Part struct {
	// Source is the input's path as merge was given it (in the README's
	// layout every shard's file has the same name: its directory tells).
	Source string `json:"source"`
	// Shard is the input's shard key (I/N).
	Shard    string       `json:"shard"`
	Start    time.Time    `json:"start"`
	End      time.Time    `json:"end"`
	Seconds  float64      `json:"seconds"`
	Threads  int          `json:"threads"`
	Status   stats.Status `json:"status,omitempty"`
	Rows     int64        `json:"rows,omitempty"`
	Requests int64        `json:"requests,omitempty"`
	Errors   int64        `json:"errors,omitempty"`
	// Host is the input's host metrics (that client host's, and the
	// server's as it saw them); nil when none were sampled.
	Host *Host `json:"host,omitempty"`
	// Derived are the input's table columns (its row beside the merged
	// one).
	Derived Derived `json:"derived"`
}

// ErrMerge is matched (errors.Is) by the errors of Merge that refuse its
// inputs (files of different graphs, workloads or phases, overlapping
// shards, windows that do not overlap, histograms of different geometry,
// inputs that cannot be read): a usage error, not a failure.
var ErrMerge = errors.New("these result files cannot be merged")

// mergeError is a refusal of Merge, in one line; err, when not nil, is
// the error that caused it (an input that cannot be read).
type mergeError struct {
	reason string
	err    error
}

func (e *mergeError) Error() string        { return e.reason }
func (e *mergeError) Is(target error) bool { return target == ErrMerge }
func (e *mergeError) Unwrap() error        { return e.err }

// unreadable is the refusal of an input that cannot be read (a missing
// or corrupted result file or HDR log): a usage error, as compare and
// plot treat their inputs.
func unreadable(err error) error {
	return &mergeError{reason: strings.NewReplacer("\r", " ", "\n", " ").Replace(err.Error()), err: err}
}

func refuse(format string, args ...any) error {
	return &mergeError{reason: fmt.Sprintf(format, args...)}
}

// Merged is the outcome of Merge: the merged result file and, per
// operation, its HDR interval histograms (one per second of the common
// window, summed over the inputs), which WriteMerged writes as the
// merged file's HDR logs.
type Merged struct {
	File *File
	Logs map[stats.Op][]*hdr.Histogram
}

// mergeKeysMayDiffer are the configuration keys merged inputs may differ
// in: the shard.
var mergeKeysMayDiffer = []string{"shard"}

// Merge merges the result files at paths, one phase of a run driven by
// several processes (client hosts, linkbench -shard I/N), into one:
//
//   - each operation's latencies are the exact sum of the inputs' HDR
//     interval logs (never averaged percentiles), digested as a report
//     digests its histograms (stats.Summarize); counts, errors, rows,
//     requests, error classes, retries and counters are summed;
//   - the window is the inputs' common window (the latest start to the
//     earliest end); the rate (Derived.Rate) is the requests (or rows) of
//     the merged intervals that fall in that window (an interval that
//     straddles its edge counted for its share inside) over its length
//     (windowRate); without intervals, each input's requests in the
//     window at its mean rate, summed, over its length;
//   - the intervals are summed second by second of the wall clock (each
//     input's interval is placed by its end, rounded to the second from
//     the common window's start: inputs started with -start-at end theirs
//     within milliseconds of each other), every input's intervals
//     included (those outside the common window too: the merged intervals
//     hold every input's operations), with monotonic, non-overlapping
//     spans; p99s from the summed interval histograms, which are the
//     merged HDR logs;
//   - each input is kept as a Part (its host metrics and table row).
//
// It refuses (an error matching ErrMerge, one line) fewer than two files,
// files of different phases, tags or configurations (compared key by key;
// only the shard key may differ: different maxid1 are different graphs),
// two files of the same shard or of different shard counts, a set of
// files that lacks a shard (naming the missing ones), windows that
// do not overlap, an operation recorded without an HDR log, HDR logs of
// different units or geometry or whose values do not add up to their
// op's count, and files that cannot be read (missing, corrupted: the
// error wraps the reading's). Errors name the files as paths gives them.
// Other errors: a histogram sum that would drop values.
func Merge(paths []string) (*Merged, error) {
	if len(paths) < 2 {
		return nil, refuse("merge needs two result files or more (got %d)", len(paths))
	}
	files := make([]*File, len(paths))
	for i, p := range paths {
		f, err := Read(p)
		if err != nil {
			return nil, unreadable(err)
		}
		files[i] = f
	}
	first, fp := files[0], paths[0]
	shards := map[int]string{}
	shardCount := 0
	for i, f := range files {
		name := paths[i]
		if f.Phase != first.Phase || f.Tag != first.Tag {
			return nil, refuse("%s is a %s phase tagged %q, %s a %s phase tagged %q: different phases", name, f.Phase, f.Tag, fp, first.Phase, first.Tag)
		}
		if f.HDRUnit != first.HDRUnit {
			return nil, refuse("%s records HDR values in %v, %s in %v", name, f.HDRUnit, fp, first.HDRUnit)
		}
		if err := sameConfig(fp, first.Config, name, f.Config); err != nil {
			return nil, err
		}
		idx, n, err := shardOf(f.Config)
		if err != nil {
			return nil, refuse("%s: shard %q: %v", name, f.Config["shard"], err)
		}
		if i == 0 {
			shardCount = n
		} else if n != shardCount {
			return nil, refuse("%s is a shard of %d, %s of %d: different runs", name, n, fp, shardCount)
		}
		if prev, dup := shards[idx]; dup {
			return nil, refuse("%s and %s are both shard %d/%d: overlapping shards (merge one file per shard)", prev, name, idx, n)
		}
		shards[idx] = name
	}
	if len(shards) < shardCount {
		var missing []string
		for i := range shardCount {
			if _, ok := shards[i]; !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", i, shardCount))
			}
		}
		return nil, refuse("shard %s missing: merge needs the file of every shard of the run (%d of %d given)",
			strings.Join(missing, ", "), len(shards), shardCount)
	}
	start, end := first.Start, first.End
	for _, f := range files[1:] {
		if f.Start.After(start) {
			start = f.Start
		}
		if f.End.Before(end) {
			end = f.End
		}
	}
	if !end.After(start) {
		return nil, refuse("the files' windows do not overlap (the latest starts at %s, the earliest ends at %s): start them together, with -start-at",
			start.Format(time.RFC3339Nano), end.Format(time.RFC3339Nano))
	}
	m := &File{Label: first.Label, Tag: first.Tag, Phase: first.Phase, Config: maps.Clone(first.Config),
		Seeds: maps.Clone(first.Seeds), Store: first.Store, Server: first.Server, Start: start, End: end,
		Seconds: end.Sub(start).Seconds(), HDRUnit: first.HDRUnit, Status: stats.Completed}
	delete(m.Config, "shard")
	m.Detail = fmt.Sprintf("merged from %d result files of shards of %d", len(files), shardCount)
	var rate float64
	for i, f := range files {
		m.Threads += f.Threads
		m.Rows += f.Rows
		m.Nodes += f.Nodes
		m.Links += f.Links
		m.Counts += f.Counts
		m.Requests += f.Requests
		m.Errors += f.Errors
		m.ErrorClasses = addCounts(m.ErrorClasses, f.ErrorClasses)
		m.Retries = addCounts(m.Retries, f.Retries)
		m.Counters = addCounts(m.Counters, f.Counters)
		if f.Status != stats.Completed && f.Status != "" && m.Status == stats.Completed {
			m.Status, m.Detail = f.Status, paths[i]+": "+f.Detail
		}
		n := f.Rows
		if f.Phase == stats.PhaseRequest {
			n = f.Requests
		}
		if f.Seconds > 0 {
			// The input's operations in the common window, at its mean rate.
			rate += float64(n) / f.Seconds * overlap(f.Start, f.End, start, end).Seconds()
		}
		m.Parts = append(m.Parts, Part{Source: paths[i], Shard: f.Config["shard"], Start: f.Start, End: f.End,
			Seconds: f.Seconds, Threads: f.Threads, Status: f.Status, Rows: f.Rows, Requests: f.Requests, Errors: f.Errors,
			Host: f.Host, Derived: f.Derived})
	}
	bins, err := mergeOps(m, files, paths, start)
	if err != nil {
		return nil, err
	}
	var logs map[stats.Op][]*hdr.Histogram
	m.Intervals, logs = mergeIntervals(files, bins, start, m.HDRUnit)
	m.Derive()
	if r, ok := windowRate(m.Intervals, start, end); ok {
		rate = r
	} else { // files without intervals: each input's mean rate, prorated
		rate /= m.Seconds
	}
	m.Derived.Rate = &rate
	return &Merged{File: m, Logs: logs}, nil
}

// sameConfig refuses configurations that differ in a key other than the
// shard.
func sameConfig(aName string, a map[string]string, bName string, b map[string]string) error {
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if slices.Contains(mergeKeysMayDiffer, k) {
			continue
		}
		va, oka := a[k]
		vb, okb := b[k]
		if va != vb || oka != okb {
			show := func(v string, ok bool) string {
				if !ok {
					return "(absent)"
				}
				return strconv.Quote(v)
			}
			return refuse("%s has %s = %s, %s has %s: different graphs or workloads (only the shard key may differ)",
				bName, k, show(vb, okb), aName, show(va, oka))
		}
	}
	return nil
}

// shardOf reads a configuration's shard key (absent: 0/1).
func shardOf(cfg map[string]string) (index, count int, err error) {
	v, ok := cfg["shard"]
	if !ok {
		return 0, 1, nil
	}
	i, n, found := strings.Cut(v, "/")
	if !found {
		return 0, 0, errors.New("want I/N")
	}
	if index, err = strconv.Atoi(i); err == nil {
		count, err = strconv.Atoi(n)
	}
	if err != nil || index < 0 || index >= count {
		return 0, 0, errors.New("want I/N with 0 <= I < N")
	}
	return index, count, nil
}

func addCounts(dst, src map[string]int64) map[string]int64 {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]int64{}
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

// overlap is the length of [a0, a1] ∩ [b0, b1] (0 when disjoint).
func overlap(a0, a1, b0, b1 time.Time) time.Duration {
	lo, hi := a0, a1
	if b0.After(lo) {
		lo = b0
	}
	if b1.Before(hi) {
		hi = b1
	}
	return max(hi.Sub(lo), 0)
}

// geometry is an HDR histogram's layout: merged histograms must share it.
type geometry struct {
	lowest, highest int64
	sigfigs         int64
}

func geometryOf(h *hdr.Histogram) geometry {
	return geometry{h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures()}
}

// binOf is the second of the wall clock, counted from origin (the common
// window's start), that an interval ending at endMs (Unix ms) closes: 1
// for the first second of the common window, 0 or less for the seconds
// before it (an input that started earlier). Inputs started with
// -start-at end their intervals within milliseconds of the same whole
// seconds, so that rounding puts their intervals of one second together.
func binOf(endMs int64, origin time.Time) int64 {
	return int64(math.Round(float64(endMs-origin.UnixMilli()) / 1000))
}

// span is a merged interval's wall-clock span (Unix ms): from the earliest
// start to the latest end of the inputs' intervals of its second, its start
// moved up to the previous span's end so that spans never overlap.
type span struct{ startMs, endMs int64 }

// clampSpans makes the spans of bins (in time order) monotonic and
// non-overlapping: each starts at the earliest at the previous one's end.
func clampSpans(spans []span) {
	for i := 1; i < len(spans); i++ {
		spans[i].startMs = max(spans[i].startMs, spans[i-1].endMs)
		spans[i].endMs = max(spans[i].endMs, spans[i].startMs)
	}
}

// mergeOps sums the inputs' operations into m.Ops, their latencies from
// the sums of their HDR logs, and returns each operation's interval
// histograms summed second by second of the wall clock (by binOf from
// start).
func mergeOps(m *File, files []*File, paths []string, start time.Time) (map[stats.Op]map[int64]*hdr.Histogram, error) {
	type opSum struct {
		op    Op
		total *hdr.Histogram
		geo   geometry
		geoOf string
		secs  map[int64]*hdr.Histogram
	}
	sums := map[stats.Op]*opSum{}
	var order []stats.Op
	for i, f := range files {
		name := paths[i]
		for _, o := range f.Ops {
			s := sums[o.Op]
			if s == nil {
				s = &opSum{op: Op{Op: o.Op}, secs: map[int64]*hdr.Histogram{}}
				sums[o.Op] = s
				order = append(order, o.Op)
			}
			s.op.Count += o.Count
			s.op.Successes += o.Successes
			s.op.Misses += o.Misses
			s.op.Errors += o.Errors
			s.op.Abandoned += o.Abandoned
			if o.HDRLog == "" {
				if o.Latency != nil || o.Sizes != nil && o.Sizes.Count > 0 {
					return nil, refuse("%s: %s has no HDR log: merge sums the HDR logs (write the result files with -results)", name, o.Op)
				}
				continue
			}
			logPath := filepath.Join(filepath.Dir(paths[i]), o.HDRLog)
			hists, err := readLog(logPath)
			if err != nil {
				return nil, unreadable(err)
			}
			var inLog int64
			for _, h := range hists {
				inLog += h.TotalCount()
			}
			if want := loggedValues(o); inLog != want {
				return nil, refuse("%s holds %d values of %s, %s counts %d: a truncated or foreign HDR log", logPath, inLog, o.Op, name, want)
			}
			for _, h := range hists {
				g := geometryOf(h)
				if s.total == nil {
					s.total = hdr.New(g.lowest, g.highest, int(g.sigfigs))
					s.geo, s.geoOf = g, name
				}
				if g != s.geo {
					return nil, refuse("%s: the HDR histograms of %s (values %d..%d, %d digits) differ from %s's (%d..%d, %d digits)",
						name, o.Op, g.lowest, g.highest, g.sigfigs, s.geoOf, s.geo.lowest, s.geo.highest, s.geo.sigfigs)
				}
				if dropped := s.total.Merge(h); dropped != 0 {
					return nil, fmt.Errorf("results: merge %s: %s: %d values dropped by the histogram sum", name, o.Op, dropped)
				}
				k := binOf(h.EndTimeMs(), start)
				sh := s.secs[k]
				if sh == nil {
					sh = hdr.New(g.lowest, g.highest, int(g.sigfigs))
					sh.SetStartTimeMs(h.StartTimeMs())
					s.secs[k] = sh
				}
				sh.SetStartTimeMs(min(sh.StartTimeMs(), h.StartTimeMs()))
				sh.SetEndTimeMs(max(sh.EndTimeMs(), h.EndTimeMs()))
				if dropped := sh.Merge(h); dropped != 0 {
					return nil, fmt.Errorf("results: merge %s: %s: %d values dropped by the histogram sum", name, o.Op, dropped)
				}
			}
		}
	}
	slices.Sort(order) // LinkBench's order: stats.Op's
	bins := map[stats.Op]map[int64]*hdr.Histogram{}
	for _, op := range order {
		s := sums[op]
		if s.total != nil && s.total.TotalCount() > 0 {
			if op.IsSize() {
				sum := stats.Summarize(s.total, time.Microsecond)
				s.op.Sizes = &sum
			} else {
				s.op.Latency = PercentilesOf(stats.Summarize(s.total, m.HDRUnit))
			}
			bins[op] = s.secs
		}
		m.Ops = append(m.Ops, s.op)
	}
	return bins, nil
}

// loggedValues is the number of values an op's HDR log holds: a size
// op's values (rows), else its calls but the errors (successes, misses and
// abandoned calls: the latency digest's).
func loggedValues(o Op) int64 {
	if o.Op.IsSize() {
		if o.Sizes != nil {
			return o.Sizes.Count
		}
		return o.Count
	}
	return o.Successes + o.Misses + o.Abandoned
}

// readLog reads an HDR interval log's histograms.
func readLog(path string) ([]*hdr.Histogram, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	lr := hdr.NewHistogramLogReader(f)
	var out []*hdr.Histogram
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("results: %s: %w", path, err)
		}
		if h == nil {
			return out, nil
		}
		out = append(out, h)
	}
}

// mergeIntervals sums the inputs' intervals second by second of the wall
// clock (each placed by its end: binOf from start, the common window's
// start), every interval of every input included (those before or after
// the common window too), so that the merged intervals hold every
// input's operations. Each merged interval spans its inputs' intervals
// (from the earliest start to the latest end), made monotonic and
// non-overlapping (clampSpans); its rate is its operations over that
// span, its p99s come from the summed interval histograms (bins, which
// get the same spans and become the merged HDR logs, in time order).
func mergeIntervals(files []*File, bins map[stats.Op]map[int64]*hdr.Histogram, start time.Time, unit time.Duration) ([]Interval, map[stats.Op][]*hdr.Histogram) {
	type acc struct {
		ops int64
		sp  span
	}
	secs := map[int64]*acc{}
	add := func(k, startMs, endMs int64) *acc {
		a := secs[k]
		if a == nil {
			a = &acc{sp: span{startMs, endMs}}
			secs[k] = a
		}
		a.sp.startMs = min(a.sp.startMs, startMs)
		a.sp.endMs = max(a.sp.endMs, endMs)
		return a
	}
	for _, f := range files {
		for _, iv := range f.Intervals {
			endT := f.Start.Add(time.Duration(iv.T * float64(time.Second)))
			startT := endT.Add(-time.Duration(iv.Seconds * float64(time.Second)))
			add(binOf(endT.UnixMilli(), start), startT.UnixMilli(), endT.UnixMilli()).ops += iv.Ops
		}
	}
	for _, hs := range bins {
		for k, h := range hs {
			add(k, h.StartTimeMs(), h.EndTimeMs())
		}
	}
	keys := slices.Sorted(maps.Keys(secs))
	spans := make([]span, len(keys))
	for i, k := range keys {
		spans[i] = secs[k].sp
	}
	clampSpans(spans)
	out := make([]Interval, 0, len(keys))
	logs := map[stats.Op][]*hdr.Histogram{}
	ops := slices.Sorted(maps.Keys(bins))
	for i, k := range keys {
		sp := spans[i]
		iv := Interval{T: float64(sp.endMs-start.UnixMilli()) / 1000, Seconds: float64(sp.endMs-sp.startMs) / 1000,
			Ops: secs[k].ops, P99Ms: map[stats.Op]float64{}}
		if iv.Seconds > 0 {
			iv.Rate = float64(iv.Ops) / iv.Seconds
		}
		for _, op := range ops {
			h := bins[op][k]
			if h == nil {
				continue
			}
			h.SetStartTimeMs(sp.startMs)
			h.SetEndTimeMs(sp.endMs)
			logs[op] = append(logs[op], h)
			if !op.IsSize() && h.TotalCount() > 0 {
				iv.P99Ms[op] = float64(stats.Summarize(h, unit).P99) * float64(time.Microsecond) / float64(time.Millisecond)
			}
		}
		out = append(out, iv)
	}
	return out, logs
}

// windowRate is the operations of the merged intervals that fall in the
// window [start, end] (an interval that straddles an edge counted for its
// share inside, at its own rate) over the window's length; ok is false
// when there are no intervals.
func windowRate(ivs []Interval, start, end time.Time) (rate float64, ok bool) {
	if len(ivs) == 0 {
		return 0, false
	}
	var n float64
	for _, iv := range ivs {
		e := start.Add(time.Duration(iv.T * float64(time.Second)))
		b := e.Add(-time.Duration(iv.Seconds * float64(time.Second)))
		if iv.Seconds <= 0 {
			if !b.Before(start) && !b.After(end) {
				n += float64(iv.Ops)
			}
			continue
		}
		n += float64(iv.Ops) * overlap(b, e, start, end).Seconds() / iv.Seconds
	}
	return n / end.Sub(start).Seconds(), true
}

// WriteMerged writes a merged result file to path and, beside it, each
// operation's summed HDR interval log (<path without .json>.<OP>.hlog),
// each complete on disk (temporary file, sync, rename) before the result
// file that names them.
func WriteMerged(path string, m *Merged) error {
	base := strings.TrimSuffix(filepath.Base(path), ".json")
	dir := filepath.Dir(path)
	for i, o := range m.File.Ops {
		hs := m.Logs[o.Op]
		if len(hs) == 0 {
			continue
		}
		name := fmt.Sprintf("%s.%s.hlog", base, o.Op)
		f, err := atomicfile.Create(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("results: %w", err)
		}
		w := hdr.NewHistogramLogWriter(f)
		// The log starts at the merged window's start, or at its first
		// histogram's when an input started earlier: no timestamp is
		// negative.
		startMs := min(m.File.Start.UnixMilli(), hs[0].StartTimeMs())
		w.SetBaseTime(startMs)
		err = errors.Join(w.OutputLogFormatVersion(), w.OutputComment(fmt.Sprintf("linkbench-go merge %s %s, values in the collector's unit", m.File.Phase, o.Op)),
			w.OutputStartTime(startMs), w.OutputBaseTime(startMs), w.OutputLegend())
		for _, h := range hs {
			if err == nil {
				err = w.OutputIntervalHistogram(h)
			}
		}
		if err != nil {
			f.Abort()
			return fmt.Errorf("results: %s: %w", name, err)
		}
		if err := f.Commit(); err != nil {
			return fmt.Errorf("results: %w", err)
		}
		m.File.Ops[i].HDRLog = name
	}
	return Write(path, m.File)
}
