package sqlstore

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/linkbench-go/linkbench/store"
)

// Session is what a dialect's session offers the engine's Pool: a
// store.Session with bulk loads.
type Session interface {
	comparable
	store.Session
	store.BulkLinkLoader
	store.BulkNodeLoader
}

// Pool is the set of idle sessions a view's own methods run on: a Store
// shared by many goroutines borrows one of the dialect's sessions per
// call (at most Config.MaxConns at once; more wait). Its methods are the
// store.Store, bulk, counter and idle-closing methods of the dialect's
// Store, which embeds the view's Pool.
type Pool[S Session] struct {
	e       *Engine
	ch      chan S // capacity MaxConns: idle sessions, the zero S for a free slot
	new     func() S
	connect func(context.Context, S) error
}

// NewPool returns the pool of a view of e: newSession makes a session of
// the view (not connected yet), connect connects it (for Warm).
func NewPool[S Session](e *Engine, newSession func() S, connect func(context.Context, S) error) *Pool[S] {
	p := &Pool[S]{e: e, ch: make(chan S, e.MaxConns), new: newSession, connect: connect}
	var free S
	for range e.MaxConns {
		p.ch <- free
	}
	e.poolsMu.Lock()
	e.pools = append(e.pools, p.closeIdle)
	e.poolsMu.Unlock()
	return p
}

// Borrow takes an idle session of p (a new one in a free slot), waiting
// while MaxConns calls are under way. Errors: ctx's, or store.ErrClosed.
func Borrow[S Session](ctx context.Context, p *Pool[S], o Op) (S, error) {
	var zero S
	if err := p.e.Check(ctx, o.String()); err != nil {
		return zero, err
	}
	select {
	case ss := <-p.ch:
		if ss == zero {
			ss = p.new()
		}
		return ss, nil
	case <-ctx.Done():
		return zero, fmt.Errorf("%s: %s: %w", p.e.d.Pkg, o, ctx.Err())
	}
}

// Return gives back a session taken with Borrow.
func Return[S Session](p *Pool[S], ss S) {
	if p.e.closed.Load() {
		var free S
		ss.Close()
		p.ch <- free
		return
	}
	p.ch <- ss
}

// With runs f on a session borrowed for the call.
func With[S Session, T any](ctx context.Context, p *Pool[S], o Op, f func(S) (T, error)) (T, error) {
	ss, err := Borrow(ctx, p, o)
	if err != nil {
		var zero T
		return zero, err
	}
	defer Return(p, ss)
	return f(ss)
}

// Idle returns the sessions idle in p, for tests; p's slots are empty
// while f runs.
func Idle[S Session](p *Pool[S], f func([]S)) {
	var all []S
	for range cap(p.ch) {
		all = append(all, <-p.ch)
	}
	var idle []S
	var zero S
	for _, ss := range all {
		if ss != zero {
			idle = append(idle, ss)
		}
	}
	f(idle)
	for _, ss := range all {
		p.ch <- ss
	}
}

// closeIdle closes the idle sessions of the pool, leaving free slots.
func (p *Pool[S]) closeIdle() {
	var free S
	for range cap(p.ch) {
		select {
		case ss := <-p.ch:
			if ss != free {
				ss.Close()
			}
			defer func() { p.ch <- free }()
		default:
			return
		}
	}
}

// Database returns a Store serving the database name (for LinkBench's
// dbprefix/dbcount: DBPrefix + index), sharing this Store's options,
// connections, counters and lifetime; repeated calls with one name return
// the same Store. It neither checks nor creates the database. Errors: an
// invalid name, ctx's error, or store.ErrClosed (wrapped) after Close.
func (p *Pool[S]) Database(ctx context.Context, name string) (store.Store, error) {
	if err := p.e.Check(ctx, "Database"); err != nil {
		return nil, err
	}
	if err := p.e.d.CheckIdent(name); err != nil {
		return nil, fmt.Errorf("%s: Database: %w", p.e.d.Pkg, err)
	}
	return p.e.View(name), nil
}

// Close closes the idle connections of every database view of the store
// (Close on any view closes them all). Sessions opened with Session belong
// to their openers: their calls fail after Close with errors wrapping
// store.ErrClosed, and their Close closes their connections. Later calls
// of the Store return errors wrapping store.ErrClosed. Close may be called
// more than once.
func (p *Pool[S]) Close() error {
	p.e.Close()
	return nil
}

// CloseIdle closes the connections of the idle sessions the Store's own
// methods borrow, of every database view (Open's check, NodeStats, ...):
// they are opened again when needed. A tool calls it before a phase whose
// workers open sessions of their own, so that the server holds only
// theirs during the run (store.IdleCloser).
func (p *Pool[S]) CloseIdle() { p.e.CloseIdle() }

// Counters returns the store's non-zero counters (of all its database
// views and sessions), sorted by name (store.CounterSource): see the
// package documentation of the store for their names. It is safe to call
// at any time, also after Close.
func (p *Pool[S]) Counters() []store.Counter { return p.e.Counters() }

// Warm connects up to n of the sessions the Store's own methods borrow (at
// most Options.MaxConns), Options.WarmParallelism at a time, so that calls
// through the Store do not pay for connecting. (The benchmark's workers
// open sessions of their own, which connect when opened.) Errors: the
// first connection error (wrapped, password redacted), ctx's error, or
// store.ErrClosed.
func (p *Pool[S]) Warm(ctx context.Context, n int) error {
	if err := p.e.Check(ctx, "Warm"); err != nil {
		return err
	}
	n = min(n, p.e.MaxConns)
	if n <= 0 {
		return nil
	}
	sessions := make([]S, 0, n)
	defer func() {
		for _, ss := range sessions {
			Return(p, ss)
		}
	}()
	for range n {
		ss, err := Borrow(ctx, p, OpWarm)
		if err != nil {
			return err
		}
		sessions = append(sessions, ss)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.e.WarmParallelism)
	for _, ss := range sessions {
		g.Go(func() error { return p.connect(gctx, ss) })
	}
	if err := g.Wait(); err != nil {
		return p.e.red.Err(fmt.Errorf("%s: Warm %s: %w", p.e.d.Pkg, p.e.red.DSN, err))
	}
	return nil
}

// AddLink runs the session's AddLink on a session borrowed for the call.
func (p *Pool[S]) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	return With(ctx, p, OpAddLink, func(ss S) (store.WriteResult, error) { return ss.AddLink(ctx, l, noInverse) })
}

// UpdateLink runs the session's UpdateLink on a session borrowed for the
// call.
func (p *Pool[S]) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	return With(ctx, p, OpUpdateLink, func(ss S) (store.WriteResult, error) { return ss.UpdateLink(ctx, l, noInverse) })
}

// DeleteLink runs the session's DeleteLink on a session borrowed for the
// call.
func (p *Pool[S]) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (bool, error) {
	return With(ctx, p, OpDeleteLink, func(ss S) (bool, error) {
		return ss.DeleteLink(ctx, id1, linkType, id2, noInverse, expunge)
	})
}

// GetLink runs the session's GetLink on a session borrowed for the call.
func (p *Pool[S]) GetLink(ctx context.Context, id1, linkType, id2 int64) (store.Link, bool, error) {
	var found bool
	l, err := With(ctx, p, OpGetLink, func(ss S) (l store.Link, err error) {
		l, found, err = ss.GetLink(ctx, id1, linkType, id2)
		return l, err
	})
	return l, found, err
}

// MultigetLinks runs the session's MultigetLinks on a session borrowed for
// the call.
func (p *Pool[S]) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	ss, err := Borrow(ctx, p, OpMultigetLinks)
	if err != nil {
		return dst, err
	}
	defer Return(p, ss)
	return ss.MultigetLinks(ctx, id1, linkType, id2s, dst)
}

// GetLinkList runs the session's GetLinkList on a session borrowed for the
// call.
func (p *Pool[S]) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	ss, err := Borrow(ctx, p, OpGetLinkList)
	if err != nil {
		return dst, err
	}
	defer Return(p, ss)
	return ss.GetLinkList(ctx, r, dst)
}

// CountLinks runs the session's CountLinks on a session borrowed for the
// call.
func (p *Pool[S]) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	return With(ctx, p, OpCountLinks, func(ss S) (int64, error) { return ss.CountLinks(ctx, id1, linkType) })
}

// ResetNodeStore runs the session's ResetNodeStore on a session borrowed
// for the call.
func (p *Pool[S]) ResetNodeStore(ctx context.Context, startID int64) error {
	_, err := With(ctx, p, OpResetNodeStore, func(ss S) (struct{}, error) {
		return struct{}{}, ss.ResetNodeStore(ctx, startID)
	})
	return err
}

// AddNode runs the session's AddNode on a session borrowed for the call.
func (p *Pool[S]) AddNode(ctx context.Context, n store.Node) (int64, error) {
	return With(ctx, p, OpAddNode, func(ss S) (int64, error) { return ss.AddNode(ctx, n) })
}

// GetNode runs the session's GetNode on a session borrowed for the call.
func (p *Pool[S]) GetNode(ctx context.Context, nodeType int32, id int64) (store.Node, bool, error) {
	var found bool
	n, err := With(ctx, p, OpGetNode, func(ss S) (n store.Node, err error) {
		n, found, err = ss.GetNode(ctx, nodeType, id)
		return n, err
	})
	return n, found, err
}

// UpdateNode runs the session's UpdateNode on a session borrowed for the
// call.
func (p *Pool[S]) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	return With(ctx, p, OpUpdateNode, func(ss S) (bool, error) { return ss.UpdateNode(ctx, n) })
}

// DeleteNode runs the session's DeleteNode on a session borrowed for the
// call.
func (p *Pool[S]) DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error) {
	return With(ctx, p, OpDeleteNode, func(ss S) (bool, error) { return ss.DeleteNode(ctx, nodeType, id) })
}

// AddBulkLinks runs the session's AddBulkLinks on a session borrowed for
// the call.
func (p *Pool[S]) AddBulkLinks(ctx context.Context, links []store.Link, noInverse bool) error {
	_, err := With(ctx, p, OpAddBulkLinks, func(ss S) (struct{}, error) {
		return struct{}{}, ss.AddBulkLinks(ctx, links, noInverse)
	})
	return err
}

// AddBulkCounts runs the session's AddBulkCounts on a session borrowed for
// the call.
func (p *Pool[S]) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	_, err := With(ctx, p, OpAddBulkCounts, func(ss S) (struct{}, error) {
		return struct{}{}, ss.AddBulkCounts(ctx, counts)
	})
	return err
}

// AddBulkNodes runs the session's AddBulkNodes on a session borrowed for
// the call.
func (p *Pool[S]) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	_, err := With(ctx, p, OpAddBulkNodes, func(ss S) (struct{}, error) {
		return struct{}{}, ss.AddBulkNodes(ctx, nodes)
	})
	return err
}

// StoreType is what the Store of a SQL store implements: the store, its
// bulk loads, databases, checks and sessions, and the capabilities of a
// store on a database server.
type StoreType interface {
	store.Store
	store.BulkLinkLoader
	store.BulkNodeLoader
	store.Databases
	store.Checker
	store.Sessions
	store.SchemaCreator
	store.Contents
	store.CounterSource
	store.ServerDescriber
	store.ConnectionLimiter
	store.IdleCloser
}

// Implements is a compile-time check that S and T are the Store and the
// Session of a SQL store: var _ = sqlstore.Implements[*Store, *Session].
func Implements[S StoreType, T Session]() {}
