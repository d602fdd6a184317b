package pgstore

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstoretest"
	"github.com/linkbench-go/linkbench/store/storetest"
)

// conformanceNames creates the two schemas the suite's Databases case
// opens by name and drops them when the test ends.
func conformanceNames(t *testing.T) [2]string {
	names := [2]string{uniqueSchema(), uniqueSchema()}
	sqlstoretest.Databases(t, newTestStore(t, nil), names[:]...)
	return names
}

// TestConformance runs the store conformance suite against PostgreSQL
// through the Store's own methods (which borrow pooled sessions): every
// subtest gets a fresh schema.
func TestConformance(t *testing.T) {
	names := conformanceNames(t)
	start := time.Now()
	storetest.RunWithOptions(t, func(t *testing.T) store.Store {
		return newTestStore(t, nil)
	}, storetest.RunOptions{DatabaseNames: names})
	t.Logf("conformance suite ran in %v", time.Since(start).Round(time.Millisecond))
}

// TestConformanceSessions runs the suite on sessions opened through the
// public API (store.OpenSession), as the benchmark's workers use them:
// every call takes a session of its own from a set of open ones, so the
// concurrent case runs as many sessions at once as it has goroutines.
func TestConformanceSessions(t *testing.T) {
	names := conformanceNames(t)
	storetest.RunWithOptions(t, func(t *testing.T) store.Store {
		s := newTestStore(t, nil)
		ss := &sessionStore{Forward: store.Forward{Inner: s, Wrap: store.Identity}, s: s}
		t.Cleanup(ss.closeAll)
		return ss
	}, storetest.RunOptions{DatabaseNames: names})
}

// TestConformanceSerializable runs the suite's concurrent cases (on the
// store and on sessions) at SERIALIZABLE isolation, where concurrent
// writers meet serialization failures (40001) that the store retries. The
// one-goroutine cases are skipped: one session cannot conflict with
// itself, and they send the same statements as in TestConformance.
func TestConformanceSerializable(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	names := conformanceNames(t)
	var last *Store
	storetest.RunWithOptions(t, func(t *testing.T) store.Store {
		if !strings.HasSuffix(t.Name(), "/Concurrent") {
			t.Skip("one goroutine: no serialization failure to meet (TestConformance runs this case)")
		}
		last = newTestStore(t, func(o *Options) { o.Isolation = Serializable })
		return last
	}, storetest.RunOptions{DatabaseNames: names})
	if last == nil {
		t.Fatal("no concurrent case ran")
	}
	t.Logf("last subtest's counters: %v", last.Counters())
}

// sessionStore is a Store whose link and node calls run on sessions
// opened with store.OpenSession, one per call at a time.
type sessionStore struct {
	store.Forward
	s    *Store
	mu   sync.Mutex
	idle []store.Session
	all  []store.Session
}

func (p *sessionStore) get(ctx context.Context) (store.Session, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		ss := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return ss, nil
	}
	p.mu.Unlock()
	ss, err := store.OpenSession(ctx, p.s)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.all = append(p.all, ss)
	p.mu.Unlock()
	return ss, nil
}

func (p *sessionStore) put(ss store.Session) {
	p.mu.Lock()
	p.idle = append(p.idle, ss)
	p.mu.Unlock()
}

func (p *sessionStore) closeAll() {
	for _, ss := range p.all {
		ss.Close()
	}
}

func on[T any](ctx context.Context, p *sessionStore, f func(store.Session) (T, error)) (T, error) {
	ss, err := p.get(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	defer p.put(ss)
	return f(ss)
}

func (p *sessionStore) AddLink(ctx context.Context, l store.Link, ni bool) (store.WriteResult, error) {
	return on(ctx, p, func(s store.Session) (store.WriteResult, error) { return s.AddLink(ctx, l, ni) })
}

func (p *sessionStore) UpdateLink(ctx context.Context, l store.Link, ni bool) (store.WriteResult, error) {
	return on(ctx, p, func(s store.Session) (store.WriteResult, error) { return s.UpdateLink(ctx, l, ni) })
}

func (p *sessionStore) DeleteLink(ctx context.Context, id1, lt, id2 int64, ni, ex bool) (bool, error) {
	return on(ctx, p, func(s store.Session) (bool, error) { return s.DeleteLink(ctx, id1, lt, id2, ni, ex) })
}

func (p *sessionStore) GetLink(ctx context.Context, id1, lt, id2 int64) (store.Link, bool, error) {
	var found bool
	l, err := on(ctx, p, func(s store.Session) (l store.Link, err error) {
		l, found, err = s.GetLink(ctx, id1, lt, id2)
		return l, err
	})
	return l, found, err
}

func (p *sessionStore) MultigetLinks(ctx context.Context, id1, lt int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	return on(ctx, p, func(s store.Session) ([]store.Link, error) { return s.MultigetLinks(ctx, id1, lt, id2s, dst) })
}

func (p *sessionStore) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	return on(ctx, p, func(s store.Session) ([]store.Link, error) { return s.GetLinkList(ctx, r, dst) })
}

func (p *sessionStore) CountLinks(ctx context.Context, id1, lt int64) (int64, error) {
	return on(ctx, p, func(s store.Session) (int64, error) { return s.CountLinks(ctx, id1, lt) })
}

func (p *sessionStore) ResetNodeStore(ctx context.Context, start int64) error {
	_, err := on(ctx, p, func(s store.Session) (struct{}, error) { return struct{}{}, s.ResetNodeStore(ctx, start) })
	return err
}

func (p *sessionStore) AddNode(ctx context.Context, n store.Node) (int64, error) {
	return on(ctx, p, func(s store.Session) (int64, error) { return s.AddNode(ctx, n) })
}

func (p *sessionStore) GetNode(ctx context.Context, typ int32, id int64) (store.Node, bool, error) {
	var found bool
	n, err := on(ctx, p, func(s store.Session) (n store.Node, err error) {
		n, found, err = s.GetNode(ctx, typ, id)
		return n, err
	})
	return n, found, err
}

func (p *sessionStore) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	return on(ctx, p, func(s store.Session) (bool, error) { return s.UpdateNode(ctx, n) })
}

func (p *sessionStore) DeleteNode(ctx context.Context, typ int32, id int64) (bool, error) {
	return on(ctx, p, func(s store.Session) (bool, error) { return s.DeleteNode(ctx, typ, id) })
}

func (p *sessionStore) AddBulkLinks(ctx context.Context, links []store.Link, ni bool) error {
	_, err := on(ctx, p, func(s store.Session) (struct{}, error) {
		return struct{}{}, s.(store.BulkLinkLoader).AddBulkLinks(ctx, links, ni)
	})
	return err
}

func (p *sessionStore) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	_, err := on(ctx, p, func(s store.Session) (struct{}, error) {
		return struct{}{}, s.(store.BulkLinkLoader).AddBulkCounts(ctx, counts)
	})
	return err
}

func (p *sessionStore) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	_, err := on(ctx, p, func(s store.Session) (struct{}, error) {
		return struct{}{}, s.(store.BulkNodeLoader).AddBulkNodes(ctx, nodes)
	})
	return err
}

// Database returns a sessionStore of the other schema.
func (p *sessionStore) Database(ctx context.Context, name string) (store.Store, error) {
	v, err := p.s.Database(ctx, name)
	if err != nil {
		return nil, err
	}
	vs := v.(*Store)
	return &sessionStore{Forward: store.Forward{Inner: vs, Wrap: store.Identity}, s: vs}, nil
}
