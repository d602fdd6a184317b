package linkbench

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// TestOnInterval: OnInterval receives an interval every IntervalFreq
// whatever ProgressFreq is, its intervals tile the phase and their
// requests add up to the report's; OnProgress still comes every
// ProgressFreq, with the same totals.
func TestOnInterval(t *testing.T) {
	cfg := smallConfig(1001)
	cfg.Requesters = 2
	cfg.AllowEmptyStore = true
	cfg.RunFor(1600 * time.Millisecond)
	cfg.ProgressFreq = time.Second
	cfg.IntervalFreq = 200 * time.Millisecond
	var mu sync.Mutex
	var ivs, progs []Progress
	cfg.OnInterval = func(p Progress) { mu.Lock(); ivs = append(ivs, p); mu.Unlock() }
	cfg.OnProgress = func(p Progress) { mu.Lock(); progs = append(progs, p); mu.Unlock() }
	rep, err := Request(context.Background(), cfg, discard.New())
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ivs) < 5 || len(ivs) > 10 || !ivs[len(ivs)-1].Final {
		t.Fatalf("%d intervals of 200 ms in a 1.6 s phase (last final: %v), want about 8", len(ivs), len(ivs) > 0 && ivs[len(ivs)-1].Final)
	}
	if len(progs) != 2 || progs[0].Final || !progs[1].Final {
		t.Fatalf("%d progress reports, want one at 1 s and the final one", len(progs))
	}
	sum := func(ps []Progress) int64 {
		var n int64
		for i, p := range ps {
			if i > 0 && !p.Interval.Start.Equal(ps[i-1].Interval.End) {
				t.Errorf("interval %d starts at %v, the one before ends at %v", i, p.Interval.Start, ps[i-1].Interval.End)
			}
			c, _ := p.Interval.Requests()
			n += c
		}
		return n
	}
	if n := sum(ivs); n != rep.Request.Requests {
		t.Errorf("the intervals hold %d requests, the report %d", n, rep.Request.Requests)
	}
	if n := sum(progs); n != rep.Request.Requests {
		t.Errorf("the progress reports hold %d requests, the report %d", n, rep.Request.Requests)
	}
	// The first progress report merges the intervals before it.
	var first int64
	for _, p := range ivs {
		if p.Interval.End.After(progs[0].Interval.End) {
			break
		}
		c, _ := p.Interval.Requests()
		first += c
	}
	if c, _ := progs[0].Interval.Requests(); c != first {
		t.Errorf("first progress report: %d requests, its intervals %d", c, first)
	}
	if gn, ok := progs[1].Interval.Op(stats.GetNode); ok && gn.Hist != nil && gn.Hist.TotalCount() != gn.Count {
		t.Errorf("merged GET_NODE histogram holds %d values, count %d", gn.Hist.TotalCount(), gn.Count)
	}
}

// countingStore is a memory store with a counter of its own
// (store.CounterSource): one event per AddLink, and a maximum.
type countingStore struct {
	store.Forward
	adds atomic.Int64
}

func (s *countingStore) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	s.adds.Add(1)
	return s.Forward.AddLink(ctx, l, noInverse)
}

func (s *countingStore) Counters() []store.Counter {
	return []store.Counter{{Name: "adds", Value: s.adds.Load()}, {Name: "max_things", Value: 7}, {Name: "zero", Value: 0}}
}

func (s *countingStore) Capabilities() store.Capability {
	return s.Forward.Capabilities() | store.CapCounters
}

// TestReportSeedsAndCounters: Load and Request put their seed (typed, by
// key) and what the store's counters grew by into the report, so that a
// library user gets the retry and error lines the tool prints.
func TestReportSeedsAndCounters(t *testing.T) {
	cfg := smallConfig(1001)
	zipfOutDegree(&cfg)
	cfg.LoadRandomSeed, cfg.RequestRandomSeed = FixedSeed(11), FixedSeed(22)
	st := &countingStore{Forward: store.Forward{Inner: memstore.New()}}
	st.adds.Store(1000) // counted before the phases: not theirs
	lrep, err := Load(context.Background(), cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	if lrep.Seeds["load_random_seed"] != 11 || len(lrep.Seeds) != 1 {
		t.Errorf("load seeds %v, want load_random_seed 11", lrep.Seeds)
	}
	cfg.Requests = 2000
	rep, err := Request(context.Background(), cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Seeds["request_random_seed"] != 22 {
		t.Errorf("request seeds %v, want request_random_seed 22", rep.Seeds)
	}
	al, _ := rep.Op(stats.AddLink)
	want := []stats.Counter{{Name: "adds", Value: al.Count()}, {Name: "max_things", Value: 7}}
	if !slices.Equal(rep.Counters, want) {
		t.Errorf("request counters %v, want %v (AddLink calls, the maximum as is, no zero)", rep.Counters, want)
	}
}
