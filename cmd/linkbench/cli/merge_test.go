package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/results"
)

// shardRequests runs the request phase of shard i/3 on the discard store
// into dir (its -results), starting at startAt.
func shardRequests(t *testing.T, dir string, i int, startAt string, extra ...string) string {
	args := append([]string{"-store", "discard", "-r", "-shard", fmt.Sprintf("%d/3", i), "-results", dir, "-label", "merged",
		"-D", "allow_empty_store=true", "-D", "maxid1=2001", "-D", "requesters=2", "-D", "maxtime=2",
		"-D", "requestrate=400", "-D", "request_random_seed=42", "-D", "progressfreq=0"}, extra...)
	if startAt != "" {
		args = append(args, "-start-at", startAt)
	}
	code, out, stderr := runCLI(t, args...)
	if code != 0 {
		return fmt.Sprintf("shard %d/3: exit %d\n%s\n%s", i, code, out, stderr)
	}
	return ""
}

// unionOf sums every interval histogram of the HDR logs of op in files
// (read from their directories).
func unionOf(t *testing.T, paths []string, files []*results.File, op stats.Op) *hdr.Histogram {
	t.Helper()
	var u *hdr.Histogram
	for i, f := range files {
		for _, o := range f.Ops {
			if o.Op != op || o.HDRLog == "" {
				continue
			}
			r, err := os.Open(filepath.Join(filepath.Dir(paths[i]), o.HDRLog))
			if err != nil {
				t.Fatal(err)
			}
			lr := hdr.NewHistogramLogReader(r)
			for {
				h, err := lr.NextIntervalHistogram()
				if err != nil && !errors.Is(err, io.EOF) {
					t.Fatal(err)
				}
				if h == nil {
					break
				}
				if u == nil {
					u = hdr.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
				}
				u.Merge(h)
			}
			r.Close()
		}
	}
	return u
}

// checkWindowStart checks that a result file's first interval and its HDR
// logs start at its measured window's start (-start-at), not before the
// wait for it: the first interval lasts about a second, each log's
// StartTime is the window's start and its first histogram starts there.
func checkWindowStart(t *testing.T, path string, f *results.File) {
	t.Helper()
	if len(f.Intervals) == 0 || f.Intervals[0].Seconds > 1.5 || f.Intervals[0].T > 1.5 {
		t.Errorf("%s: first interval %+v, want one of about a second from the window's start (not the wait for -start-at)", path, f.Intervals[:min(1, len(f.Intervals))])
	}
	logs := 0
	for _, o := range f.Ops {
		if o.HDRLog == "" {
			continue
		}
		logs++
		b, err := os.ReadFile(filepath.Join(filepath.Dir(path), o.HDRLog))
		if err != nil {
			t.Fatal(err)
		}
		var startSec float64
		if _, err := fmt.Sscanf(string(b[strings.Index(string(b), "#[StartTime: "):]), "#[StartTime: %g", &startSec); err != nil {
			t.Fatalf("%s: no StartTime: %v", o.HDRLog, err)
		}
		if d := startSec - float64(f.Start.UnixMilli())/1000; d < -0.1 || d > 0.1 {
			t.Errorf("%s: StartTime %.3f, %.3f s from the window's start %s", o.HDRLog, startSec, d, f.Start.Format(time.RFC3339Nano))
		}
		h, err := hdr.NewHistogramLogReader(strings.NewReader(string(b))).NextIntervalHistogram()
		if err != nil || h == nil {
			t.Fatalf("%s: %v", o.HDRLog, err)
		}
		if d := float64(h.StartTimeMs()-f.Start.UnixMilli()) / 1000; d < -0.1 || d > 1.1 {
			t.Errorf("%s: the first histogram starts %.3f s from the window's start", o.HDRLog, d)
		}
	}
	if logs == 0 {
		t.Errorf("%s: no HDR log", path)
	}
}

// TestMergeShards (issue 19, item 4): three processes run a request phase
// as shards 0/3, 1/3, 2/3 with one -start-at; merge's p50, p99 and p99.9
// per op are those of the union of every recorded value (the sum of all
// the inputs' HDR logs, digested as a report digests), its counts the
// sums, its intervals cover the common window; compare reads it (the
// merged row and each host's). merge refuses files of different maxid1
// and the same shard twice, exit status 2.
func TestMergeShards(t *testing.T) {
	base := t.TempDir()
	startAt := time.Now().Add(time.Second).UTC().Truncate(time.Second).Add(time.Second).Format(time.RFC3339)
	var wg sync.WaitGroup
	errs := make([]string, 3)
	paths := make([]string, 3)
	for i := range 3 {
		dir := filepath.Join(base, fmt.Sprintf("host%d", i))
		paths[i] = filepath.Join(dir, "merged.request.json")
		wg.Go(func() { errs[i] = shardRequests(t, dir, i, startAt) })
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	out := filepath.Join(base, "all.json")
	code, stdout, stderr := runCLI(t, append(append([]string{"merge"}, paths...), "-o", out)...)
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	m, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	files := make([]*results.File, 3)
	var requests int64
	for i, p := range paths {
		if files[i], err = results.Read(p); err != nil {
			t.Fatal(err)
		}
		requests += files[i].Requests
		// -start-at: no process measured before the instant.
		if at, _ := time.Parse(time.RFC3339, startAt); files[i].Start.Before(at) {
			t.Errorf("%s starts its window at %s, before -start-at %s", p, files[i].Start.Format(time.RFC3339Nano), startAt)
		}
		checkWindowStart(t, p, files[i])
	}
	if m.Requests != requests || requests == 0 {
		t.Errorf("merged requests %d, want the sum %d", m.Requests, requests)
	}
	checked := 0
	for _, o := range m.Ops {
		var count int64
		for _, f := range files {
			for _, fo := range f.Ops {
				if fo.Op == o.Op {
					count += fo.Count
				}
			}
		}
		if o.Count != count {
			t.Errorf("%s: merged count %d, want the sum %d", o.Op, o.Count, count)
		}
		if o.Op.IsSize() || o.Latency == nil {
			continue
		}
		u := unionOf(t, paths, files, o.Op)
		want := results.PercentilesOf(stats.Summarize(u, m.HDRUnit))
		if o.Latency.P50 != want.P50 || o.Latency.P99 != want.P99 || o.Latency.P999 != want.P999 {
			t.Errorf("%s: merged p50/p99/p99.9 %v/%v/%v, union of the values %v/%v/%v",
				o.Op, o.Latency.P50, o.Latency.P99, o.Latency.P999, want.P50, want.P99, want.P999)
		}
		if u.TotalCount() != o.Successes+o.Misses+o.Abandoned {
			t.Errorf("%s: the HDR logs hold %d values, the op %d successes, misses and abandoned calls", o.Op, u.TotalCount(), o.Successes+o.Misses+o.Abandoned)
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("%d latency ops compared, want the mix's (at least 5)", checked)
	}
	// The intervals cover the common window, second by second.
	if len(m.Intervals) == 0 {
		t.Fatal("the merged file has no interval")
	}
	first, last := m.Intervals[0], m.Intervals[len(m.Intervals)-1]
	if first.T-first.Seconds > 0.05 || last.T < m.Seconds-0.05 {
		t.Errorf("the merged intervals cover [%.3f, %.3f] s, not the common window [0, %.3f]", first.T-first.Seconds, last.T, m.Seconds)
	}
	var ops int64
	for i, iv := range m.Intervals {
		ops += iv.Ops
		if i > 0 && iv.T-iv.Seconds > m.Intervals[i-1].T+0.05 {
			t.Errorf("a gap between the merged intervals ending at %.3f and %.3f s", m.Intervals[i-1].T, iv.T)
		}
	}
	if ops != m.Requests {
		t.Errorf("the merged intervals hold %d requests, the file %d", ops, m.Requests)
	}
	t.Logf("merged: %d requests over %.3f s, %d intervals, %d latency ops compared, rate %.1f/s", m.Requests, m.Seconds, len(m.Intervals), checked, *m.Derived.Rate)
	if len(m.Parts) != 3 {
		t.Errorf("%d parts, want one per host (3)", len(m.Parts))
	}
	// compare reads it: the merged row and one per host.
	code, stdout, stderr = runCLI(t, "compare", out)
	if code != 0 || strings.Count(stdout, "[shard ") != 3 {
		t.Errorf("compare of the merged file: exit %d, want a row per shard\n%s\n%s", code, stdout, stderr)
	}
	// plot tells the merged series from the shards' (all labelled merged).
	for i, c := range []struct {
		f    *results.File
		path string
		want string
	}{{m, out, "merged [merged]"}, {files[0], paths[0], "merged [shard 0/3]"}, {files[2], paths[2], "merged [shard 2/3]"}} {
		if s, err := seriesOf(c.f, c.path); err != nil || s.Label != c.want {
			t.Errorf("plot series %d of %s: label %q (%v), want %q", i, c.path, s.Label, err, c.want)
		}
	}
	code, stdout, stderr = runCLI(t, "plot", out, paths[0], paths[1], paths[2], "-o", filepath.Join(base, "all.png"))
	if code != 0 {
		t.Errorf("plot of the merged file: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// Refusals: the same shard twice; a file of another graph (maxid1).
	other := filepath.Join(base, "other")
	if e := shardRequests(t, other, 1, "", "-D", "maxtime=0.5", "-D", "maxid1=5001"); e != "" {
		t.Fatal(e)
	}
	// Inputs that cannot be read: a missing file, a corrupted one, a
	// missing HDR log (a copy of host 2's files without one).
	corrupt := filepath.Join(base, "corrupt.json")
	if err := os.WriteFile(corrupt, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	nolog := filepath.Join(base, "nolog")
	if err := os.CopyFS(nolog, os.DirFS(filepath.Dir(paths[2]))); err != nil {
		t.Fatal(err)
	}
	lostLog := filepath.Join(nolog, "merged.request.GET_NODE.hlog")
	if err := os.Remove(lostLog); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(base, "host9", "merged.request.json")
	for _, c := range []struct {
		name  string
		args  []string
		names []string
	}{
		{"same shard twice", []string{paths[0], paths[1], paths[0]}, []string{"shard 0/3", "overlapping", paths[0]}},
		{"incomplete", []string{paths[0], paths[2]}, []string{"shard 1/3 missing"}},
		{"different maxid1", []string{paths[0], filepath.Join(other, "merged.request.json")}, []string{"maxid1", "5001", "2001", filepath.Join(other, "merged.request.json")}},
		{"missing input", []string{paths[0], paths[1], missing}, []string{missing}},
		{"corrupted input", []string{paths[0], paths[1], corrupt}, []string{corrupt}},
		{"missing HDR log", []string{paths[0], paths[1], filepath.Join(nolog, "merged.request.json")}, []string{lostLog}},
		{"-o is an input", []string{paths[0], paths[1], paths[2], "-overwrite", "-o", paths[2]}, []string{"-o", paths[2]}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := filepath.Join(base, c.name+".json")
			args := append([]string{"merge"}, c.args...)
			if !slices.Contains(c.args, "-o") {
				args = append(args, "-o", o)
			}
			before, _ := os.ReadFile(paths[2])
			code, stdout, stderr := runCLI(t, args...)
			if after, _ := os.ReadFile(paths[2]); string(after) != string(before) {
				t.Errorf("%s was rewritten", paths[2])
			}
			if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q: want exit 2 and one line", code, stdout, stderr)
			}
			for _, n := range c.names {
				if !strings.Contains(stderr, n) {
					t.Errorf("stderr %q does not name %q", stderr, n)
				}
			}
			if _, err := os.Stat(o); err == nil {
				t.Errorf("%s was written", o)
			}
		})
	}
}
