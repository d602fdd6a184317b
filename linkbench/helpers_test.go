package linkbench

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// recStore wraps a store.Store and records what the load phase writes,
// failing the test on an empty batch. It has no bulk capability; bulkStore
// adds it.
type recStore struct {
	store.Store
	t  testing.TB
	mu sync.Mutex
	// links written, in arrival order per worker (compared sorted).
	links []store.Link
	nodes []store.Node
	// count rows written by AddBulkCounts, and how often each key came.
	counts      map[[2]int64]int64
	countWrites map[[2]int64]int
	calls       map[string]int
	// countsOnly: do not keep copies of links (for huge loads).
	countsOnly bool
}

func newRecStore(t testing.TB) *recStore {
	return &recStore{Store: memstore.New(), t: t, counts: map[[2]int64]int64{},
		countWrites: map[[2]int64]int{}, calls: map[string]int{}}
}

func (s *recStore) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	s.mu.Lock()
	s.links = append(s.links, l.Clone())
	s.calls["AddLink"]++
	s.mu.Unlock()
	return s.Store.AddLink(ctx, l, noInverse)
}

func (s *recStore) AddNode(ctx context.Context, n store.Node) (int64, error) {
	id, err := s.Store.AddNode(ctx, n)
	s.mu.Lock()
	c := n.Clone()
	c.ID = id
	s.nodes = append(s.nodes, c)
	s.calls["AddNode"]++
	s.mu.Unlock()
	return id, err
}

type bulkStore struct{ *recStore }

func (s bulkStore) AddBulkLinks(ctx context.Context, links []store.Link, noInverse bool) error {
	if len(links) == 0 {
		s.t.Error("AddBulkLinks called with an empty batch")
	}
	s.mu.Lock()
	if !s.countsOnly {
		for _, l := range links {
			s.links = append(s.links, l.Clone())
		}
	}
	s.calls["AddBulkLinks"]++
	s.mu.Unlock()
	return s.Store.(store.BulkLinkLoader).AddBulkLinks(ctx, links, noInverse)
}

func (s bulkStore) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	if len(counts) == 0 {
		s.t.Error("AddBulkCounts called with an empty batch")
	}
	s.mu.Lock()
	for _, c := range counts {
		k := [2]int64{c.ID1, c.LinkType}
		s.counts[k] = c.Count
		s.countWrites[k]++
	}
	s.calls["AddBulkCounts"]++
	s.mu.Unlock()
	return s.Store.(store.BulkLinkLoader).AddBulkCounts(ctx, counts)
}

func (s bulkStore) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	if len(nodes) == 0 {
		s.t.Error("AddBulkNodes called with an empty batch")
	}
	s.mu.Lock()
	for _, n := range nodes {
		s.nodes = append(s.nodes, n.Clone())
	}
	s.calls["AddBulkNodes"]++
	s.mu.Unlock()
	return s.Store.(store.BulkNodeLoader).AddBulkNodes(ctx, nodes)
}

// fingerprint hashes the recorded links and nodes in a canonical order.
func (s *recStore) fingerprint() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	links := slices.Clone(s.links)
	slices.SortFunc(links, func(a, b store.Link) int {
		if a.ID1 != b.ID1 {
			return cmp64(a.ID1, b.ID1)
		}
		if a.LinkType != b.LinkType {
			return cmp64(a.LinkType, b.LinkType)
		}
		if a.ID2 != b.ID2 {
			return cmp64(a.ID2, b.ID2)
		}
		return cmp64(a.Time, b.Time)
	})
	nodes := slices.Clone(s.nodes)
	slices.SortFunc(nodes, func(a, b store.Node) int { return cmp64(a.ID, b.ID) })
	h := sha256.New()
	var b [8]byte
	put := func(v int64) { binary.LittleEndian.PutUint64(b[:], uint64(v)); h.Write(b[:]) }
	for _, l := range links {
		put(l.ID1)
		put(l.LinkType)
		put(l.ID2)
		put(l.Time)
		put(int64(l.Visibility))
		put(int64(len(l.Data)))
		h.Write(l.Data)
	}
	for _, n := range nodes {
		put(n.ID)
		put(int64(n.Version))
		put(int64(n.Time))
		put(int64(len(n.Data)))
		h.Write(n.Data)
	}
	return fmt.Sprintf("%x (%d links, %d nodes)", h.Sum(nil)[:8], len(links), len(nodes))
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fixedClock pins the wall clock so that loaded data is reproducible.
func fixedClock() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }

// smallConfig is the default workload on a small graph with fixed seeds.
// Its request phase ends after Requests per requester, never on time: the
// tests count calls, and a loaded machine must not cut them short (a
// one-minute limit once made TestReferenceHistory see 8,974 of its 10,000
// calls at load average 15); go test's own timeout catches a hang.
func smallConfig(maxid1 int64) Config {
	cfg := DefaultConfig()
	cfg.MaxID1 = maxid1
	cfg.Loaders = 2
	cfg.Requesters = 2
	cfg.Requests = 2000
	cfg.MaxTime = NoTimeLimit
	cfg.LoadRandomSeed = FixedSeed(7)
	cfg.RequestRandomSeed = FixedSeed(42)
	cfg.DataFile = "" // the built-in out-degree model
	cfg.Now = fixedClock
	return cfg
}

// zipfOutDegree replaces the real out-degree (whose rank-0 id1 always gets
// 4.2 M links) by a class-based Zipf model, so that small loads are quick:
// expected links of rank r = n * 4 * pdf(r) with shape 0.5.
func zipfOutDegree(cfg *Config) {
	cfg.NLinksFunc = "com.facebook.LinkBench.distributions.ZipfDistribution"
	cfg.NLinks.Spec = distributions.Spec{Kind: distributions.KindZipf, Shape: 0.5, Mean: 4, HasMean: true}
}
