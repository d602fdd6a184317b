package linkbench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// TestRun: a plan with a load, a sweep of two requesters values and two
// steps each runs its phases in order, tagged, with a result file and HDR
// logs per phase on disk before AfterPhase sees it, host metrics in the
// files, per-second intervals, and the store's header lines; a second run
// with the same label is refused (ErrResultExists) before anything runs.
func TestRun(t *testing.T) {
	cfg := smallConfig(2001)
	zipfOutDegree(&cfg)
	cfg.RunFor(1200 * time.Millisecond)
	cfg.ProgressFreq = 0
	cfg.Now = nil
	dir := t.TempDir()
	st := memstore.New()
	var seen []string
	afterLoad := 0
	plan := Plan{Load: true, Request: true, Steps: 2, Requesters: []int{1, 3}, Label: "mem/x", ResultsDir: dir,
		Host: &HostOptions{}, StoreName: "memory", Header: []stats.KV{{Key: "store", Value: "memory"}},
		Hooks: Hooks{
			AfterLoad: func(context.Context) error { afterLoad++; return nil },
			AfterPhase: func(_ context.Context, r PhaseResult) error {
				seen = append(seen, r.Tag)
				if r.Err != nil {
					t.Errorf("%s: %v", r.Base, r.Err)
				}
				// The files are on disk before the phase is handed over.
				if _, err := results.Read(filepath.Join(dir, r.Base+".json")); err != nil {
					t.Errorf("AfterPhase %s: %v", r.Base, err)
				}
				return nil
			}}}
	res, err := Run(context.Background(), cfg, st, plan)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"", "L1.P1", "L2.P1", "L1.P3", "L2.P3"}; !slices.Equal(seen, want) {
		t.Fatalf("phases %q, want %q", seen, want)
	}
	if afterLoad != 1 {
		t.Errorf("AfterLoad called %d times", afterLoad)
	}
	for _, r := range res {
		f, err := results.Read(filepath.Join(dir, r.Base+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if f.Label != "mem/x" || f.Tag != r.Tag || f.Store != "memory" || f.Host == nil || f.Config["maxid1"] != "2001" {
			t.Errorf("%s: label %q tag %q store %q host %v maxid1 %q", r.Base, f.Label, f.Tag, f.Store, f.Host, f.Config["maxid1"])
		}
		if r.Report.Header[0].Key != "store" || r.File.Derived.Rate == nil {
			t.Errorf("%s: header %v, rate %v", r.Base, r.Report.Header[:2], r.File.Derived.Rate)
		}
		if r.Phase == stats.PhaseRequest {
			if f.Config["requesters"] != strconv.Itoa(r.Requesters) {
				t.Errorf("%s: the result file's configuration says requesters = %q in a phase of %d (a sweep's point records its own)",
					r.Base, f.Config["requesters"], r.Requesters)
			}
			if f.Threads != r.Requesters || f.Seeds["request_random_seed"] != 42 || len(f.Intervals) == 0 {
				t.Errorf("%s: threads %d seeds %v intervals %d", r.Base, f.Threads, f.Seeds, len(f.Intervals))
			}
			var sum int64
			for _, iv := range f.Intervals {
				sum += iv.Ops
			}
			if sum != f.Requests {
				t.Errorf("%s: intervals hold %d requests of %d", r.Base, sum, f.Requests)
			}
		}
		for _, o := range f.Ops {
			if o.Latency != nil && o.HDRLog == "" {
				t.Errorf("%s: %s has no HDR log", r.Base, o.Op)
			} else if o.HDRLog != "" {
				if _, err := os.Stat(filepath.Join(dir, o.HDRLog)); err != nil {
					t.Error(err)
				}
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "mem_x.request.L2.P3.json")); err != nil {
		t.Errorf("the label is made file-safe: %v", err)
	}
	if _, err := Run(context.Background(), cfg, st, plan); !errors.Is(err, ErrResultExists) {
		t.Errorf("second run with the same label: %v, want ErrResultExists", err)
	}
	for _, bad := range []Plan{{Request: true, Steps: MaxSteps + 1}, {Request: true, Requesters: []int{2, 2}},
		{Request: true, Requesters: []int{0}}, {Load: true, Steps: 2}} {
		if err := bad.Check(cfg); err == nil {
			t.Errorf("Check(%+v) accepted", bad)
		}
	}
}

// fullStore is a memory store that says it holds a graph already
// (store.Contents), as a database server's tables from an earlier load do.
type fullStore struct{ store.Forward }

func (fullStore) HasData(context.Context) (bool, error) { return true, nil }

func (s fullStore) Capabilities() store.Capability {
	return s.Forward.Capabilities() | store.CapContents
}

// TestRunRefusesFullDatabase: Run refuses a load into a database that
// holds a graph already, before anything is written (the tool refused it,
// the library loaded a second graph beside the first; found by the
// newcomer review); a request-only plan runs.
func TestRunRefusesFullDatabase(t *testing.T) {
	cfg := smallConfig(1001)
	zipfOutDegree(&cfg)
	ms := memstore.New()
	st := fullStore{store.Forward{Inner: ms}}
	_, err := Run(context.Background(), cfg, st, Plan{Load: true, Request: true})
	var ge *GraphExistsError
	if !errors.Is(err, ErrGraphExists) || !errors.As(err, &ge) || ge.Database != "linkdb0" {
		t.Fatalf("Run over a full database: %v, want a GraphExistsError naming linkdb0", err)
	}
	if n, err := ms.NodeStats(context.Background()); err != nil || n.Count != 0 {
		t.Errorf("the refused load wrote %d nodes (%v)", n.Count, err)
	}
	cfg.AllowEmptyStore = true
	if _, err := Run(context.Background(), cfg, st, Plan{Request: true}); err != nil {
		t.Errorf("a request phase on it: %v", err)
	}
}
