package storetest_test

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
	"github.com/linkbench-go/linkbench/store/storetest"
)

// The suite must reject stores that break the contract. Each mutant
// wraps memstore and breaks one rule; TestMutants runs the suite against
// each in a child process and checks that the named case fails.

// limitZeroOne returns one link for Limit 0 (LinkBench's memory store
// quirk, reference §11.2 item 20).
type limitZeroOne struct{ *memstore.Store }

func (s limitZeroOne) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	if r.Limit == 0 {
		r.Limit = 1
	}
	return s.Store.GetLinkList(ctx, r, dst)
}

// multigetDups returns a link once per occurrence of its id2.
type multigetDups struct{ *memstore.Store }

func (s multigetDups) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	for _, id2 := range id2s {
		var err error
		if dst, err = s.Store.MultigetLinks(ctx, id1, linkType, []int64{id2}, dst); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// expungeHiddenDecrements keeps a count table that, like MD's SQL store,
// also decrements when a hidden link is expunged (reference §11.2 item 6).
type expungeHiddenDecrements struct {
	*memstore.Store
	mu   sync.Mutex
	skew map[[2]int64]int64
}

func (s *expungeHiddenDecrements) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (bool, error) {
	l, found, err := s.Store.GetLink(ctx, id1, linkType, id2)
	if err == nil && found && expunge && l.Visibility == store.VisibilityHidden {
		s.mu.Lock()
		s.skew[[2]int64{id1, linkType}]--
		s.mu.Unlock()
	}
	return s.Store.DeleteLink(ctx, id1, linkType, id2, noInverse, expunge)
}

func (s *expungeHiddenDecrements) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	n, err := s.Store.CountLinks(ctx, id1, linkType)
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(0, n+s.skew[[2]int64{id1, linkType}]), err
}

// keepsData stores the caller's Data slice of the last AddLink and serves
// GetLink for that link from it.
type keepsData struct {
	*memstore.Store
	mu   sync.Mutex
	last store.Link
}

func (s *keepsData) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	s.mu.Lock()
	s.last = l
	s.mu.Unlock()
	return s.Store.AddLink(ctx, l, noInverse)
}

func (s *keepsData) GetLink(ctx context.Context, id1, linkType, id2 int64) (store.Link, bool, error) {
	l, found, err := s.Store.GetLink(ctx, id1, linkType, id2)
	s.mu.Lock()
	defer s.mu.Unlock()
	if found && s.last.ID1 == id1 && s.last.LinkType == linkType && s.last.ID2 == id2 {
		l.Data = s.last.Data
	}
	return l, found, err
}

// ignoresCancel serves reads with a background context.
type ignoresCancel struct{ *memstore.Store }

func (s ignoresCancel) GetLinkList(_ context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	return s.Store.GetLinkList(context.Background(), r, dst)
}

// oldestFirst lists links oldest first.
type oldestFirst struct{ *memstore.Store }

func (s oldestFirst) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	n := len(dst)
	dst, err := s.Store.GetLinkList(ctx, r, dst)
	slices.Reverse(dst[n:])
	return dst, err
}

// ignoresOffset ignores LinkRange.Offset.
type ignoresOffset struct{ *memstore.Store }

func (s ignoresOffset) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	r.Offset = 0
	return s.Store.GetLinkList(ctx, r, dst)
}

// updateReportsUpdate reports LinkUpdate even when UpdateLink inserted.
type updateReportsUpdate struct{ *memstore.Store }

func (s updateReportsUpdate) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	_, err := s.Store.UpdateLink(ctx, l, noInverse)
	return store.LinkUpdate, err
}

// nodeTypeIgnored serves GetNode whatever the type.
type nodeTypeIgnored struct{ *memstore.Store }

func (s nodeTypeIgnored) GetNode(ctx context.Context, nodeType int32, id int64) (store.Node, bool, error) {
	for _, t := range []int32{nodeType, store.DefaultNodeType, 1234} {
		if n, found, err := s.Store.GetNode(ctx, t, id); found || err != nil {
			return n, found, err
		}
	}
	return store.Node{}, false, nil
}

// hideExpunges removes links it should only hide.
type hideExpunges struct{ *memstore.Store }

func (s hideExpunges) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (bool, error) {
	return s.Store.DeleteLink(ctx, id1, linkType, id2, noInverse, true)
}

// lostUpdates keeps its own count table with read-modify-write updates
// that are not atomic with the write (a store without transactions).
type lostUpdates struct {
	*memstore.Store
	mu     sync.Mutex
	counts map[[2]int64]int64
}

func (s *lostUpdates) load(k [2]int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[k]
}

func (s *lostUpdates) store(k [2]int64, v int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[k] = v
}

func (s *lostUpdates) visible(ctx context.Context, id1, linkType, id2 int64) bool {
	l, found, _ := s.Store.GetLink(ctx, id1, linkType, id2)
	return found && l.Visibility == store.VisibilityDefault
}

func (s *lostUpdates) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	k := [2]int64{l.ID1, l.LinkType}
	was := s.visible(ctx, l.ID1, l.LinkType, l.ID2)
	c := s.load(k)
	runtime.Gosched()
	r, err := s.Store.AddLink(ctx, l, noInverse)
	now := l.Visibility == store.VisibilityDefault
	switch {
	case now && !was:
		c++
	case was && !now:
		c--
	}
	s.store(k, c)
	return r, err
}

func (s *lostUpdates) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	return s.AddLink(ctx, l, noInverse)
}

func (s *lostUpdates) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (bool, error) {
	k := [2]int64{id1, linkType}
	was := s.visible(ctx, id1, linkType, id2)
	c := s.load(k)
	runtime.Gosched()
	found, err := s.Store.DeleteLink(ctx, id1, linkType, id2, noInverse, expunge)
	if was {
		c--
	}
	s.store(k, c)
	return found, err
}

func (s *lostUpdates) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.load([2]int64{id1, linkType}), nil
}

// mutants maps a mutant's name to its constructor and the case of the
// suite that must fail.
// neverHasData says a store holding a graph holds none (a load would mix
// two graphs).
type neverHasData struct{ *memstore.Store }

func (neverHasData) HasData(context.Context) (bool, error) { return false, nil }

// countsDown has a counter that decreases.
type countsDown struct {
	*memstore.Store
	calls atomic.Int64
}

func (s *countsDown) Counters() []store.Counter {
	return []store.Counter{{Name: "retries.AddLink", Value: 100 - s.calls.Add(1)}}
}

// withContents is memstore with a correct HasData and counters that only
// grow: the suite passes it.
type withContents struct {
	*memstore.Store
	calls atomic.Int64
}

func (s *withContents) HasData(ctx context.Context) (bool, error) {
	st, err := s.NodeStats(ctx)
	if err != nil {
		return false, err
	}
	_, pairs, err := s.CheckCounts(ctx, 1)
	return st.Count > 0 || pairs > 0, err
}

func (s *withContents) Counters() []store.Counter {
	return []store.Counter{{Name: "calls", Value: s.calls.Add(1)}, {Name: "max_retries.AddLink", Value: 5 - s.calls.Load()}}
}

// TestCapabilityChecksPass: a store with correct contents and counters
// passes the suite's cases of them.
func TestCapabilityChecksPass(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("child process")
	}
	storetest.RunWithOptions(t, func(t *testing.T) store.Store { return &withContents{Store: memstore.New()} },
		storetest.RunOptions{Goroutines: 2, OpsPerGoroutine: 20, DatabaseNames: [2]string{"x", "y"}})
}

var mutants = map[string]struct {
	make     func() store.Store
	wantFail string
}{
	"limitZeroOne":            {func() store.Store { return limitZeroOne{memstore.New()} }, "LimitZero"},
	"multigetDups":            {func() store.Store { return multigetDups{memstore.New()} }, "Multiget"},
	"expungeHiddenDecrements": {func() store.Store { return &expungeHiddenDecrements{Store: memstore.New(), skew: map[[2]int64]int64{}} }, "ExpungeHidden"},
	"keepsData":               {func() store.Store { return &keepsData{Store: memstore.New()} }, "DstReuse"},
	"ignoresCancel":           {func() store.Store { return ignoresCancel{memstore.New()} }, "Cancelled"},
	"oldestFirst":             {func() store.Store { return oldestFirst{memstore.New()} }, "ManyLinks"},
	"ignoresOffset":           {func() store.Store { return ignoresOffset{memstore.New()} }, "LargeList"},
	"updateReportsUpdate":     {func() store.Store { return updateReportsUpdate{memstore.New()} }, "UpdateMissingInserts"},
	"nodeTypeIgnored":         {func() store.Store { return nodeTypeIgnored{memstore.New()} }, "NodeIDs"},
	"hideExpunges":            {func() store.Store { return hideExpunges{memstore.New()} }, "Hiding"},
	"lostUpdates":             {func() store.Store { return &lostUpdates{Store: memstore.New(), counts: map[[2]int64]int64{}} }, "Concurrent"},
	"neverHasData":            {func() store.Store { return neverHasData{memstore.New()} }, "Contents"},
	"countsDown":              {func() store.Store { return &countsDown{Store: memstore.New()} }, "Counters"},
}

const mutantEnv = "STORETEST_MUTANT"

// TestMutants checks that the suite fails each mutant in the expected
// case. In the child process (mutantEnv set) it runs the suite itself.
func TestMutants(t *testing.T) {
	if name := os.Getenv(mutantEnv); name != "" {
		m := mutants[name]
		storetest.Run(t, func(t *testing.T) store.Store { return m.make() })
		return
	}
	if testing.Short() {
		t.Skip("runs the suite in child processes")
	}
	for name, m := range mutants {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMutants$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), mutantEnv+"="+name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a store that breaks it (%s):\n%s", name, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestMutants/"+m.wantFail+" ") {
				t.Fatalf("case %s did not fail for %s:\n%s", m.wantFail, name, out)
			}
		})
	}
}

// The reference store passes (also checked by memstore's own tests).
func TestMemstorePasses(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("child process")
	}
	storetest.RunWithOptions(t, func(t *testing.T) store.Store { return memstore.New() },
		storetest.RunOptions{Goroutines: 4, OpsPerGoroutine: 50, DatabaseNames: [2]string{"x", "y"}})
}
