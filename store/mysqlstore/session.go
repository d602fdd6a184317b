package mysqlstore

import (
	"context"
	"fmt"
	"sync"

	"github.com/linkbench-go/linkbench/store"
)

// Session is a store.Session of one database: the calls of one worker (a
// loader or a requester) on two connections it owns for the whole phase,
// as each of LinkBench's store objects owns two (reference §3.2): an
// autocommit connection for reads, node operations and bulk loads, and a
// connection with autocommit off for the link writes, whose transactions
// start with their first statement (no BEGIN) and end with COMMIT or
// ROLLBACK. Statements are prepared on each connection on first use and
// kept; calls take no lock shared with other sessions and make no
// database/sql pool lookups.
//
// A Session is used by one goroutine at a time. It honours the context of
// each call: when it is done, a statement waiting for the server is
// interrupted (its connection is then closed and opened again by the next
// call). It has store.BulkLinkLoader and store.BulkNodeLoader. Close it
// before closing its Store; after the Store's Close its calls return
// errors wrapping store.ErrClosed.
type Session struct {
	v      *Store
	rd, wr *conn
	closed bool
	lit    []byte // the text of a literal multiget

	// The context watch: the context of the latest call, and the stop of
	// its context.AfterFunc, which interrupts both connections.
	wctx  context.Context
	wstop func() bool
	wmu   sync.Mutex // guards wgen, fired and the connections' replacement against the AfterFunc
	wgen  uint64
	fired bool
}

// Session opens a session of the database this Store serves and connects
// both of its connections, so that the first measured call does not pay
// for connecting. Errors: a failed connection (wrapped, password
// redacted), ctx's error, or store.ErrClosed.
func (s *Store) Session(ctx context.Context) (store.Session, error) {
	return s.openSession(ctx, true)
}

func (s *Store) openSession(ctx context.Context, eager bool) (*Session, error) {
	if err := s.check(ctx, "Session"); err != nil {
		return nil, err
	}
	ss := &Session{v: s}
	if eager {
		for _, k := range []connKind{connRead, connWrite} {
			if _, err := ss.conn(ctx, k); err != nil {
				ss.Close()
				return nil, s.c.red.err(fmt.Errorf("mysqlstore: Session %s: %w", s.c.red.dsn, err))
			}
		}
	}
	return ss, nil
}

// Name returns the database the session serves.
func (ss *Session) Name() string { return ss.v.name }

// Close closes the session's connections. It may be called more than
// once.
func (ss *Session) Close() error {
	if ss.closed {
		return nil
	}
	ss.closed = true
	if ss.wstop != nil {
		ss.wstop()
		ss.wstop = nil
	}
	ss.wmu.Lock()
	ss.wgen++
	rd, wr := ss.rd, ss.wr
	ss.rd, ss.wr = nil, nil
	fired := ss.fired
	ss.wmu.Unlock()
	for _, c := range []*conn{rd, wr} {
		if c != nil {
			if !c.valid() {
				ss.v.c.kill(c.id) // see drop
			}
			if fired {
				// Interrupted while idle (the worker's context ended):
				// let the driver say goodbye instead of failing its write.
				c.clearDeadline()
			}
			c.close()
		}
	}
	return nil
}

// enter starts a call named op: it fails on a closed session or store or
// a done context, and makes the context watch follow ctx.
func (ss *Session) enter(ctx context.Context, op op) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mysqlstore: %s: %w", op, err)
	}
	if ss.closed || ss.v.c.closed.Load() {
		return fmt.Errorf("mysqlstore: %s: %w", op, store.ErrClosed)
	}
	if ctx != ss.wctx {
		ss.watch(ctx)
	}
	return nil
}

// watch arranges for the session's connections to be interrupted when
// ctx is done. A worker passes the same context to every call, so this
// runs once per phase, not per call.
func (ss *Session) watch(ctx context.Context) {
	if ss.wstop != nil {
		ss.wstop()
	}
	ss.wmu.Lock()
	ss.wgen++
	gen := ss.wgen
	if ss.fired {
		// The previous context interrupted idle connections: make them
		// usable again (a connection interrupted mid-statement is
		// invalid and is replaced anyway).
		for _, c := range []*conn{ss.rd, ss.wr} {
			if c != nil {
				c.clearDeadline()
			}
		}
		ss.fired = false
	}
	ss.wmu.Unlock()
	ss.wctx = ctx
	ss.wstop = nil
	if ctx.Done() != nil {
		ss.wstop = context.AfterFunc(ctx, func() { ss.interrupt(gen) })
	}
}

// interrupt interrupts the connections when the watch of generation gen
// is still current.
func (ss *Session) interrupt(gen uint64) {
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	if gen != ss.wgen {
		return
	}
	ss.fired = true
	for _, c := range []*conn{ss.rd, ss.wr} {
		if c != nil {
			c.interrupt()
		}
	}
}

// conn returns the connection of kind k, opening it (again) when it is
// missing or no longer usable, with the binary log on (see bulkConn).
func (ss *Session) conn(ctx context.Context, k connKind) (*conn, error) {
	c, err := ss.connRaw(ctx, k)
	if err != nil || !c.binlogOff {
		return c, err
	}
	if _, err := c.execText(ctx, "SET SESSION sql_log_bin=1"); err != nil {
		ss.drop(k) // never leave the binary log off on a connection in use
		return nil, err
	}
	c.binlogOff = false
	return c, nil
}

// connRaw returns the connection of kind k as it is, opening it (again)
// when it is missing or no longer usable.
func (ss *Session) connRaw(ctx context.Context, k connKind) (*conn, error) {
	p := &ss.rd
	if k == connWrite {
		p = &ss.wr
	}
	if c := *p; c != nil {
		if c.valid() {
			return c, nil
		}
		ss.drop(k)
	}
	c, err := ss.v.c.connect(ctx, k)
	if err != nil {
		return nil, err
	}
	ss.wmu.Lock()
	*p = c
	if ss.fired {
		c.interrupt()
	}
	ss.wmu.Unlock()
	return c, nil
}

// drop closes the connection of kind k after an error that may have left
// it unusable; the next call opens a new one.
func (ss *Session) drop(k connKind) {
	ss.wmu.Lock()
	p := &ss.rd
	if k == connWrite {
		p = &ss.wr
	}
	c := *p
	*p = nil
	ss.wmu.Unlock()
	if c != nil {
		if !c.valid() {
			// Broken in the middle of a statement (interrupted by the
			// context watch, or the network): the server may still be
			// running it, waiting for a lock, and would apply it later
			// while holding a connection slot. Kill it.
			ss.v.c.kill(c.id)
		}
		c.close()
	}
}

// after handles the error of a statement on connection c of kind k: a
// connection that can take no more statements is dropped.
func (ss *Session) after(c *conn, err error) {
	if err != nil && !c.valid() {
		ss.drop(c.kind)
	}
}

// rollback ends the transaction of the write connection after a failed
// or abandoned write (MD's conn_ac0.rollback()). A connection whose
// ROLLBACK fails is dropped: the server rolls back when it goes.
func (ss *Session) rollback(ctx context.Context, c *conn) {
	if !c.valid() {
		ss.drop(c.kind)
		return
	}
	if _, err := c.execText(ctx, "ROLLBACK"); err != nil {
		ss.drop(c.kind)
	}
}

// commit commits the write connection's transaction (an injected failure
// rolls it back, as a server that refuses the commit would).
func (ss *Session) commit(ctx context.Context, c *conn, o op) error {
	if err := ss.v.inject(o, "commit"); err != nil {
		ss.rollback(ctx, c)
		return err
	}
	_, err := c.execText(ctx, "COMMIT")
	if err != nil {
		ss.rollback(ctx, c)
	}
	return err
}

// pool is the set of idle sessions the Store's own methods run on: a
// Store shared by many goroutines borrows a session per call.
type pool struct {
	ch chan *Session // capacity Options.MaxConns: idle sessions, nil for a free slot
}

func newPool(n int) *pool {
	p := &pool{ch: make(chan *Session, n)}
	for range n {
		p.ch <- nil
	}
	return p
}

// acquire borrows a session of s, waiting while MaxConns calls are under
// way.
func (s *Store) acquire(ctx context.Context, o op) (*Session, error) {
	if err := s.check(ctx, o.String()); err != nil {
		return nil, err
	}
	select {
	case ss := <-s.pool.ch:
		if ss == nil || ss.closed {
			var err error
			if ss, err = s.openSession(ctx, false); err != nil {
				s.pool.ch <- nil
				return nil, err
			}
		}
		return ss, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("mysqlstore: %s: %w", o, ctx.Err())
	}
}

// release returns a borrowed session.
func (s *Store) release(ss *Session) {
	if s.c.closed.Load() {
		ss.Close()
		s.pool.ch <- nil
		return
	}
	s.pool.ch <- ss
}

// closePool closes the idle sessions of the pool.
func (s *Store) closePool() {
	for range cap(s.pool.ch) {
		select {
		case ss := <-s.pool.ch:
			if ss != nil {
				ss.Close()
			}
			defer func() { s.pool.ch <- nil }()
		default:
			return
		}
	}
}

// with runs f on a borrowed session.
func with[T any](ctx context.Context, s *Store, o op, f func(*Session) (T, error)) (T, error) {
	ss, err := s.acquire(ctx, o)
	if err != nil {
		var zero T
		return zero, err
	}
	defer s.release(ss)
	return f(ss)
}
