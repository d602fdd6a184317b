package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// counting is a wrapper that overrides one method and forwards the rest.
type counting struct {
	store.Forward
	gets *atomic.Int64
}

func wrapCounting(gets *atomic.Int64) func(store.Store) store.Store {
	var wrap func(store.Store) store.Store
	wrap = func(inner store.Store) store.Store {
		return &counting{Forward: store.Forward{Inner: inner, Wrap: wrap}, gets: gets}
	}
	return wrap
}

func (c *counting) GetNode(ctx context.Context, nodeType int32, id int64) (store.Node, bool, error) {
	c.gets.Add(1)
	return c.Forward.GetNode(ctx, nodeType, id)
}

// plain has only the Store methods: no optional capability.
type plain struct{ store.Store }

func TestCapabilities(t *testing.T) {
	m := memstore.New()
	all := store.CapBulkLinks | store.CapBulkNodes | store.CapDatabases | store.CapChecker | store.CapNodeProbe
	if got := store.Capabilities(m); got != all {
		t.Errorf("memstore: %v, want %v", got, all)
	}
	var gets atomic.Int64
	w := wrapCounting(&gets)(m)
	if got := store.Capabilities(w); got != all {
		t.Errorf("a wrapper of memstore reports %v, want %v", got, all)
	}
	if got := store.Capabilities(plain{m}); got != 0 {
		t.Errorf("a plain Store reports %v", got)
	}
	// HasNodeIn through the wrapper: memstore's answer, and
	// errors.ErrUnsupported for a wrapper of a plain Store.
	ctx := context.Background()
	id, err := m.AddNode(ctx, store.Node{Type: 2048})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := store.AsNodeProber(w)
	if !ok {
		t.Fatal("the wrapper lost NodeProber")
	}
	for _, c := range []struct {
		lo, hi int64
		want   bool
	}{{id, id + 1, true}, {id + 1, id + 100, false}, {id - 5, id, false}, {id, id, false}} {
		if got, err := p.HasNodeIn(ctx, c.lo, c.hi); err != nil || got != c.want {
			t.Errorf("HasNodeIn(%d, %d) through the wrapper = %v, %v; want %v (node %d)", c.lo, c.hi, got, err, c.want, id)
		}
	}
	if _, err := (store.Forward{Inner: plain{m}}).HasNodeIn(ctx, 0, 10); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("HasNodeIn of a Forward around a plain Store: %v, want errors.ErrUnsupported", err)
	}
	// A wrapper of a store without capabilities reports none, and its
	// capability methods say so.
	pw := wrapCounting(&gets)(plain{m})
	if got := store.Capabilities(pw); got != 0 {
		t.Errorf("a wrapper of a plain Store reports %v", got)
	}
	if _, ok := store.AsBulkLinkLoader(pw); ok {
		t.Error("AsBulkLinkLoader of a wrapper of a plain Store succeeded")
	}
	if err := pw.(store.BulkLinkLoader).AddBulkLinks(context.Background(), nil, true); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("AddBulkLinks through a wrapper of a plain Store: %v, want errors.ErrUnsupported", err)
	}
	if got, want := (store.CapBulkLinks | store.CapSessions).String(), "BulkLinks|Sessions"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got := store.Capability(0).String(); got != "none" {
		t.Errorf("String of no capability = %q", got)
	}
}

// TestForwardKeepsCapabilities: a wrapper that overrides one method keeps
// the inner store's bulk loads and checks, and sees the calls made on the
// per-database views it hands out.
func TestForwardKeepsCapabilities(t *testing.T) {
	ctx := context.Background()
	m := memstore.New()
	var gets atomic.Int64
	w := wrapCounting(&gets)(m)
	bl, ok := store.AsBulkNodeLoader(w)
	if !ok {
		t.Fatal("the wrapper lost BulkNodeLoader")
	}
	n := store.Node{ID: 5, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: []byte("x")}
	if err := bl.AddBulkNodes(ctx, []store.Node{n}); err != nil {
		t.Fatal(err)
	}
	if _, found, err := w.GetNode(ctx, n.Type, n.ID); err != nil || !found {
		t.Fatalf("GetNode after a bulk load through the wrapper: %v, %v", found, err)
	}
	ck, ok := store.AsChecker(w)
	if !ok {
		t.Fatal("the wrapper lost Checker")
	}
	if st, err := ck.NodeStats(ctx); err != nil || st.Count != 1 {
		t.Fatalf("NodeStats through the wrapper = %+v, %v", st, err)
	}
	dbs, ok := store.AsDatabases(w)
	if !ok {
		t.Fatal("the wrapper lost Databases")
	}
	db, err := dbs.Database(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.GetNode(ctx, n.Type, n.ID); err != nil {
		t.Fatal(err)
	}
	if got := gets.Load(); got != 2 {
		t.Errorf("the wrapper saw %d GetNode calls, want 2 (one of them on a database view)", got)
	}
}

// TestOpenSession: a store without sessions serves as its own session,
// with its capabilities, and closing it leaves the store open.
func TestOpenSession(t *testing.T) {
	ctx := context.Background()
	m := memstore.New()
	sess, err := store.OpenSession(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := store.Capabilities(sess), store.Capabilities(m); got != want {
		t.Errorf("the session of memstore has %v, want %v", got, want)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.GetNode(ctx, store.DefaultNodeType, 1); err != nil {
		t.Errorf("the store after closing its session: %v", err)
	}
	d := discard.New()
	if s, err := store.OpenSession(ctx, d); err != nil || store.Capabilities(s) != store.Capabilities(d) {
		t.Errorf("the session of discard: %v, %v", s, err)
	}
}

// TestForwardWithoutWrap: a wrapper that leaves Forward.Wrap nil does not
// offer per-database views or sessions (they would bypass it): dbcount > 1
// is then refused instead of losing the wrapper's calls.
func TestForwardWithoutWrap(t *testing.T) {
	f := store.Forward{Inner: memstore.New()}
	if c := store.Capabilities(f); c.Has(store.CapDatabases) || c.Has(store.CapSessions) {
		t.Errorf("Forward without Wrap has %v", c)
	}
	if _, err := f.Database(context.Background(), "linkdb1"); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Database without Wrap: %v, want ErrUnsupported", err)
	}
	f.Wrap = store.Identity
	if c := store.Capabilities(f); !c.Has(store.CapDatabases) {
		t.Errorf("Forward with Wrap has %v", c)
	}
}

// serverStore has every capability of a store on a database server, each
// answering with something a test recognises.
type serverStore struct {
	store.Store
	calls []string
}

func (s *serverStore) EnsureSchema(_ context.Context, name string, o store.SchemaOptions) error {
	s.calls = append(s.calls, "EnsureSchema "+name+map[bool]string{true: " deferred"}[o.DeferIndex])
	return nil
}

func (s *serverStore) CreateDeferredIndex(_ context.Context, name string) error {
	s.calls = append(s.calls, "CreateDeferredIndex "+name)
	return nil
}

func (s *serverStore) HasData(context.Context) (bool, error) {
	return false, fmt.Errorf("serverStore: %w", store.ErrNoSchema)
}

func (s *serverStore) Counters() []store.Counter {
	return []store.Counter{{Name: "retries.AddLink", Value: 3}}
}

func (s *serverStore) DescribeServer(_ context.Context, dbs []string) (*store.Server, error) {
	return &store.Server{Kind: "Test", Version: "1.0", Settings: map[string]string{"dbs": fmt.Sprint(dbs)}}, nil
}

func (s *serverStore) Connections(context.Context) (store.Connections, error) {
	return store.Connections{Server: "Test", Limit: 10, LimitName: "max", Connected: 2, PerSession: 1}, nil
}

func (s *serverStore) CloseIdle() { s.calls = append(s.calls, "CloseIdle") }

func (s *serverStore) EngineMetrics(context.Context) (store.EngineSnapshot, error) {
	return store.EngineSnapshot{Engine: "test", Counters: map[string]float64{store.EngineWALBytes: 42}}, nil
}

// TestForwardServerCapabilities: a wrapper keeps the capabilities of a
// store on a database server, forwards their calls, and a wrapper of a
// store without them reports none and answers errors.ErrUnsupported.
func TestForwardServerCapabilities(t *testing.T) {
	ctx := context.Background()
	srv := &serverStore{Store: memstore.New()}
	caps := store.CapSchema | store.CapContents | store.CapCounters | store.CapServer | store.CapConnections | store.CapIdleCloser | store.CapEngineMetrics
	if got := store.Capabilities(srv); got != caps {
		t.Fatalf("serverStore: %v, want %v", got, caps)
	}
	var gets atomic.Int64
	w := wrapCounting(&gets)(srv)
	if got := store.Capabilities(w); got != caps {
		t.Fatalf("a wrapper of serverStore reports %v, want %v", got, caps)
	}
	sc, ok := store.AsSchemaCreator(w)
	if !ok {
		t.Fatal("the wrapper lost SchemaCreator")
	}
	if err := sc.EnsureSchema(ctx, "db1", store.SchemaOptions{DeferIndex: true}); err != nil {
		t.Fatal(err)
	}
	if err := sc.CreateDeferredIndex(ctx, "db1"); err != nil {
		t.Fatal(err)
	}
	c, _ := store.AsContents(w)
	if _, err := c.HasData(ctx); !errors.Is(err, store.ErrNoSchema) {
		t.Errorf("HasData through the wrapper: %v, want ErrNoSchema", err)
	}
	cs, _ := store.AsCounterSource(w)
	if got := cs.Counters(); len(got) != 1 || got[0].Value != 3 {
		t.Errorf("Counters through the wrapper: %v", got)
	}
	d, _ := store.AsServerDescriber(w)
	if s, err := d.DescribeServer(ctx, []string{"a", "b"}); err != nil || s.Version != "1.0" || s.Settings["dbs"] != "[a b]" {
		t.Errorf("DescribeServer through the wrapper: %+v, %v", s, err)
	}
	l, _ := store.AsConnectionLimiter(w)
	if n, err := l.Connections(ctx); err != nil || n.Limit != 10 || n.PerSession != 1 {
		t.Errorf("Connections through the wrapper: %+v, %v", n, err)
	}
	em, _ := store.AsEngineMetrics(w)
	if m, err := em.EngineMetrics(ctx); err != nil || m.Engine != "test" || m.Counters[store.EngineWALBytes] != 42 {
		t.Errorf("EngineMetrics through the wrapper: %+v, %v", m, err)
	}
	ic, _ := store.AsIdleCloser(w)
	ic.CloseIdle()
	if got, want := fmt.Sprint(srv.calls), "[EnsureSchema db1 deferred CreateDeferredIndex db1 CloseIdle]"; got != want {
		t.Errorf("calls %s, want %s", got, want)
	}
	if got, want := caps.String(), "Schema|Contents|Counters|Server|Connections|IdleCloser|EngineMetrics"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}

	pw := wrapCounting(&gets)(plain{memstore.New()})
	if _, ok := store.AsSchemaCreator(pw); ok {
		t.Error("AsSchemaCreator of a wrapper of a plain Store succeeded")
	}
	f := pw.(*counting)
	for name, err := range map[string]error{
		"EnsureSchema":        f.EnsureSchema(ctx, "x", store.SchemaOptions{}),
		"CreateDeferredIndex": f.CreateDeferredIndex(ctx, "x"),
	} {
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("%s through a wrapper of a plain Store: %v, want errors.ErrUnsupported", name, err)
		}
	}
	if _, err := f.HasData(ctx); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("HasData: %v", err)
	}
	if _, err := f.DescribeServer(ctx, nil); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("DescribeServer: %v", err)
	}
	if _, err := f.Connections(ctx); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Connections: %v", err)
	}
	if got := f.Counters(); got != nil {
		t.Errorf("Counters: %v", got)
	}
	if _, err := f.EngineMetrics(ctx); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("EngineMetrics: %v", err)
	}
	f.CloseIdle() // nothing to close: must not panic
}
