package results

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/stats"
)

// TestMergeRefusals: merge refuses, with a reason naming the problem,
// windows that do not overlap, different shard counts, a key other than
// the shard that differs, and a single file; two shards of one window
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
