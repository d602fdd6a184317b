package results

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/linkbench-go/linkbench/stats"
)

// TestMergeRefusals: merge refuses, with a reason naming the problem,
// windows that do not overlap, different shard counts, a key other than
// the shard that differs, a single file, and an incomplete set of shards
// (naming the missing ones); two shards of one window
// merge.
func TestMergeRefusals(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	write := func(name, shard string, start time.Time, cfg map[string]string) string {
		c := map[string]string{"maxid1": "3001", "shard": shard}
		for k, v := range cfg {
			c[k] = v
		}
		f := &File{Phase: stats.PhaseRequest, Config: c, Start: start, End: start.Add(10 * time.Second), Seconds: 10, Requests: 100}
		p := filepath.Join(dir, name)
		if err := Write(p, f); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.json", "0/2", t0, nil)
	b := write("b.json", "1/2", t0.Add(time.Second), nil)
	late := write("late.json", "1/2", t0.Add(time.Minute), nil)
	three := write("three.json", "1/3", t0, nil)
	other := write("other.json", "1/2", t0, map[string]string{"requesters": "8"})
	for _, c := range []struct {
		paths []string
		want  string
	}{
		{[]string{a, late}, "do not overlap"},
		{[]string{a, three}, "shard of 3"},
		{[]string{a, other}, "requesters"},
		{[]string{a}, "two result files or more"},
		{[]string{a, b, three}, "shard of 3"},
		{[]string{write("t0.json", "0/3", t0, nil), three}, "shard 2/3 missing"},
		{[]string{write("f1.json", "1/4", t0, nil), write("f3.json", "3/4", t0, nil)}, "shard 0/4, 2/4 missing"},
	} {
		_, err := Merge(c.paths)
		if !errors.Is(err, ErrMerge) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Merge(%v) = %v, want a one-line refusal naming %q", c.paths, err, c.want)
		}
	}
	m, err := Merge([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if f := m.File; f.Requests != 200 || f.Seconds != 9 || !f.Start.Equal(t0.Add(time.Second)) || len(f.Parts) != 2 {
		t.Errorf("merged: %d requests over %g s from %s, %d parts; want 200 over the common 9 s from %s, 2 parts",
			f.Requests, f.Seconds, f.Start, len(f.Parts), t0.Add(time.Second))
	}
	// Each input's requests prorated to the common window: 2 × 90.
	if r := m.File.Derived.Rate; r == nil || *r != 20 {
		t.Errorf("merged rate %v, want 180 requests / 9 s = 20", r)
	}
}

// writeShardFile writes, in dir, the result file name (a request phase of
// shard, window [start, start+secs]) with one interval of n GET_NODE
// calls per second and their HDR interval log (the n values of each
// second), as a phase's recorder writes them. It returns the file's path.
func writeShardFile(t *testing.T, dir, name, shard string, start time.Time, secs int, n int64) string {
	t.Helper()
	perSec := make([]int64, secs)
	for i := range perSec {
		perSec[i] = n
	}
	return writeShardProfile(t, dir, name, shard, start, perSec)
}

// writeShardProfile is writeShardFile with perSec[k] calls in second k+1.
func writeShardProfile(t *testing.T, dir, name, shard string, start time.Time, perSec []int64) string {
	t.Helper()
	secs := len(perSec)
	var total int64
	for _, n := range perSec {
		total += n
	}
	base := strings.TrimSuffix(name, ".json")
	logName := base + ".GET_NODE.hlog"
	var sb strings.Builder
	w := hdr.NewHistogramLogWriter(&sb)
	w.SetBaseTime(start.UnixMilli())
	if err := errors.Join(w.OutputLogFormatVersion(), w.OutputStartTime(start.UnixMilli()), w.OutputBaseTime(start.UnixMilli()), w.OutputLegend()); err != nil {
		t.Fatal(err)
	}
	f := &File{Phase: stats.PhaseRequest, Config: map[string]string{"maxid1": "3001", "shard": shard}, Start: start,
		End: start.Add(time.Duration(secs) * time.Second), Seconds: float64(secs), HDRUnit: time.Microsecond,
		Requests: total, Ops: []Op{{Op: stats.GetNode, Count: total, Successes: total, HDRLog: logName}}}
	for k := 1; k <= secs; k++ {
		n := perSec[k-1]
		h := hdr.New(1, 60_000_000, 3)
		for v := range n {
			if err := h.RecordValue(100 + v*int64(k)); err != nil {
				t.Fatal(err)
			}
		}
		// The ticks of a real run: a few milliseconds late.
		h.SetStartTimeMs(start.Add(time.Duration(k-1)*time.Second).UnixMilli() + 3)
		h.SetEndTimeMs(start.Add(time.Duration(k)*time.Second).UnixMilli() + 3)
		if err := w.OutputIntervalHistogram(h); err != nil {
			t.Fatal(err)
		}
		f.Intervals = append(f.Intervals, Interval{T: float64(k) + 0.003, Seconds: 1, Ops: n, Rate: float64(n)})
	}
	if err := os.WriteFile(filepath.Join(dir, logName), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := Write(p, f); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMergePartialOverlap: shards whose windows only partly overlap (0/2
// from T, 1/2 from T+3 s, 6 s each) merge into intervals that hold every
// input interval's operations, on the wall clock's seconds (9 of them),
// with monotonic, non-overlapping spans, and HDR logs whose timestamps
// are non-negative, monotonic and non-overlapping and hold every value.
func TestMergePartialOverlap(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	paths := []string{
		writeShardFile(t, dir, "s0.json", "0/2", t0, 6, 100),
		writeShardFile(t, dir, "s1.json", "1/2", t0.Add(3*time.Second), 6, 250),
	}
	m, err := Merge(paths)
	if err != nil {
		t.Fatal(err)
	}
	var in int64
	for _, p := range paths {
		f, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, iv := range f.Intervals {
			in += iv.Ops
		}
	}
	var got int64
	ivs := m.File.Intervals
	for i, iv := range ivs {
		got += iv.Ops
		if iv.Seconds <= 0 || i > 0 && iv.T-iv.Seconds < ivs[i-1].T-1e-9 {
			t.Errorf("merged interval %d (t=%.3f, %.3f s) overlaps or precedes the one before (t=%.3f)", i, iv.T, iv.Seconds, ivs[max(i-1, 0)].T)
		}
	}
	if got != in || in != 6*100+6*250 {
		t.Errorf("the merged intervals hold %d ops, the inputs' intervals %d (want 2100)", got, in)
	}
	if len(ivs) != 9 {
		t.Errorf("%d merged intervals, want the 9 seconds of the two windows", len(ivs))
	}
	// The seconds of both windows hold the sum of both shards' seconds.
	for _, iv := range ivs {
		if iv.T > 0.5 && iv.T < 3.5 && iv.Ops != 350 {
			t.Errorf("merged interval t=%.3f holds %d ops, want 100+250", iv.T, iv.Ops)
		}
	}
	out := filepath.Join(dir, "all.json")
	if err := WriteMerged(out, m); err != nil {
		t.Fatal(err)
	}
	mf, err := Read(out)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := readLog(filepath.Join(dir, mf.Ops[0].HDRLog))
	if err != nil {
		t.Fatal(err)
	}
	var total, prevEnd int64
	for i, h := range hs {
		total += h.TotalCount()
		if h.StartTimeMs() < prevEnd || h.EndTimeMs() <= h.StartTimeMs() {
			t.Errorf("merged hlog histogram %d spans [%d, %d] ms, after one ending at %d: overlapping or backwards", i, h.StartTimeMs(), h.EndTimeMs(), prevEnd)
		}
		prevEnd = h.EndTimeMs()
	}
	if total != mf.Ops[0].Count {
		t.Errorf("the merged hlog holds %d values, the op %d", total, mf.Ops[0].Count)
	}
	b, err := os.ReadFile(filepath.Join(dir, mf.Ops[0].HDRLog))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "-") {
			t.Errorf("merged hlog line %q: negative timestamp", l)
		}
	}
}

// TestMergeTruncatedLog: an HDR log that holds fewer values than its op
// counts (cut short, as by head -c 300, or a line lost) is refused in one
// line naming the log's path; the intact files merge.
func TestMergeTruncatedLog(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	a := writeShardFile(t, dir, "a.json", "0/2", t0, 4, 100)
	b := writeShardFile(t, dir, "b.json", "1/2", t0, 4, 100)
	if _, err := Merge([]string{a, b}); err != nil {
		t.Fatalf("intact files: %v", err)
	}
	logPath := filepath.Join(dir, "b.GET_NODE.hlog")
	whole, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(whole), "\n")
	for name, cut := range map[string]string{
		"head -c 300":   string(whole[:300]),
		"last one lost": strings.Join(lines[:len(lines)-2], ""),
	} {
		if err := os.WriteFile(logPath, []byte(cut), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Merge([]string{a, b})
		if err == nil || !strings.Contains(err.Error(), logPath) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Merge = %v, want a one-line refusal naming %s", name, err, logPath)
		}
	}
}

// TestMergeRate: the merged rate is the operations in the common window
// over its length (README: "the rate is taken over the common window"),
// not the sum of the inputs' mean rates: shard 0/2 runs 4 s, its last
// second 10 times busier, shard 1/2 3 s; the common window is the first
// 3 s, 100+100 calls a second.
func TestMergeRate(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	m, err := Merge([]string{
		writeShardProfile(t, dir, "a.json", "0/2", t0, []int64{100, 100, 100, 1000}),
		writeShardProfile(t, dir, "b.json", "1/2", t0, []int64{100, 100, 100}),
	})
	if err != nil {
		t.Fatal(err)
	}
	// The intervals end 3 ms after the seconds: the third straddles the
	// window's end, 0.3 % of it outside.
	if r := m.File.Derived.Rate; r == nil || math.Abs(*r-200) > 1 || m.File.Seconds != 3 {
		t.Errorf("merged rate %v over %g s, want 600 calls / 3 s = 200 (±1)", *r, m.File.Seconds)
	}
}
