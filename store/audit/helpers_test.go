package audit_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/audit"
)

// newLog creates a log in a temporary directory, closed at the test's end.
func newLog(t testing.TB) *audit.Log {
	t.Helper()
	l, err := audit.Create(filepath.Join(t.TempDir(), "writes.audit"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// action is what a planted store does with a write.
type action int

const (
	pass    action = iota // apply it and acknowledge it
	drop                  // acknowledge it without applying it (AddNode: apply, then revert)
	ackLost               // apply it and return an error
	fail                  // return an error without applying it
)

var errPlanted = errors.New("planted failure")

// planted is a store whose decide function drops, reverts or fails
// chosen writes: a store that lies about what it kept.
type planted struct {
	store.Forward
	decide func(op string, id1, id2 int64, data []byte) action
	// applied counts the writes the inner store received.
	applied *atomic.Int64
}

func newPlanted(inner store.Store, decide func(op string, id1, id2 int64, data []byte) action) *planted {
	p := &planted{decide: decide, applied: new(atomic.Int64)}
	var wrap func(store.Store) store.Store
	wrap = func(s store.Store) store.Store {
		return &planted{Forward: store.Forward{Inner: s, Wrap: wrap}, decide: p.decide, applied: p.applied}
	}
	p.Forward = store.Forward{Inner: inner, Wrap: wrap}
	return p
}

func (p *planted) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	switch p.decide("AddLink", l.ID1, l.ID2, l.Data) {
	case drop:
		return store.LinkInsert, nil
	case fail:
		return 0, errPlanted
	case ackLost:
		p.applied.Add(1)
		_, _ = p.Inner.AddLink(ctx, l, noInverse)
		return 0, errPlanted
	}
	p.applied.Add(1)
	return p.Inner.AddLink(ctx, l, noInverse)
}

func (p *planted) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	switch p.decide("UpdateLink", l.ID1, l.ID2, l.Data) {
	case drop:
		return store.LinkUpdate, nil
	case fail:
		return 0, errPlanted
	case ackLost:
		p.applied.Add(1)
		_, _ = p.Inner.UpdateLink(ctx, l, noInverse)
		return 0, errPlanted
	}
	p.applied.Add(1)
	return p.Inner.UpdateLink(ctx, l, noInverse)
}

func (p *planted) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (bool, error) {
	switch p.decide("DeleteLink", id1, id2, nil) {
	case drop:
		return true, nil
	case fail:
		return false, errPlanted
	case ackLost:
		p.applied.Add(1)
		_, _ = p.Inner.DeleteLink(ctx, id1, linkType, id2, noInverse, expunge)
		return false, errPlanted
	}
	p.applied.Add(1)
	return p.Inner.DeleteLink(ctx, id1, linkType, id2, noInverse, expunge)
}

func (p *planted) AddNode(ctx context.Context, n store.Node) (int64, error) {
	a := p.decide("AddNode", 0, 0, n.Data)
	if a == fail {
		return 0, errPlanted
	}
	p.applied.Add(1)
	id, err := p.Inner.AddNode(ctx, n)
	switch {
	case err != nil:
		return 0, err
	case a == drop:
		_, err = p.Inner.DeleteNode(ctx, n.Type, id) // reverted: as if never stored
		return id, err
	case a == ackLost:
		return 0, errPlanted
	}
	return id, nil
}

func (p *planted) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	switch p.decide("UpdateNode", n.ID, 0, n.Data) {
	case drop:
		return true, nil
	case fail:
		return false, errPlanted
	case ackLost:
		p.applied.Add(1)
		_, _ = p.Inner.UpdateNode(ctx, n)
		return false, errPlanted
	}
	p.applied.Add(1)
	return p.Inner.UpdateNode(ctx, n)
}

func (p *planted) DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error) {
	switch p.decide("DeleteNode", id, 0, nil) {
	case drop:
		return true, nil
	case fail:
		return false, errPlanted
	case ackLost:
		p.applied.Add(1)
		_, _ = p.Inner.DeleteNode(ctx, nodeType, id)
		return false, errPlanted
	}
	p.applied.Add(1)
	return p.Inner.DeleteNode(ctx, nodeType, id)
}

// sessioned gives a store the Sessions capability: a session is the
// store itself behind a Close that counts; its views have sessions too.
type sessioned struct {
	store.Forward
	opened, closed *atomic.Int64
}

func newSessioned(inner store.Store) *sessioned {
	s := &sessioned{opened: new(atomic.Int64), closed: new(atomic.Int64)}
	var wrap func(store.Store) store.Store
	wrap = func(in store.Store) store.Store {
		return &sessioned{Forward: store.Forward{Inner: in, Wrap: wrap}, opened: s.opened, closed: s.closed}
	}
	s.Forward = store.Forward{Inner: inner, Wrap: wrap}
	return s
}

func (s *sessioned) Capabilities() store.Capability {
	return s.Forward.Capabilities() | store.CapSessions
}

func (s *sessioned) Session(ctx context.Context) (store.Session, error) {
	s.opened.Add(1)
	return &testSession{Forward: store.Forward{Inner: s.Inner, Wrap: store.Identity}, closed: s.closed}, nil
}

type testSession struct {
	store.Forward
	closed *atomic.Int64
}

func (t *testSession) Capabilities() store.Capability {
	return t.Forward.Capabilities() &^ (store.CapSessions | store.CapDatabases)
}

func (t *testSession) Close() error { t.closed.Add(1); return nil }
