package pgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/linkbench-go/linkbench/store"
)

// Session is a store.Session of one schema: the calls of one worker (a
// loader or a requester) on one connection (a *pgx.Conn) it owns for the
// whole phase, with the statements prepared on it and buffers of its own.
// Calls take no lock shared with other sessions. Where LinkBench's store
// objects hold two connections, one autocommit and one for transactions
// (reference §3.2), a PostgreSQL session needs one: its reads are single
// statements outside any transaction block, and its link writes open one
// with BEGIN.
//
// A Session is used by one goroutine at a time. It honours the context of
// each call: when it is done, a round trip waiting for the server is
// interrupted (the connection is then closed, and opened again by the next
// call). It has store.BulkLinkLoader and store.BulkNodeLoader. Close it
// before closing its Store; after the Store's Close its calls return
// errors wrapping store.ErrClosed.
type Session struct {
	v      *Store
	c      *conn // written under wmu (the context watch reads it)
	closed bool

	// The context watch: the context of the latest call, and the stop of
	// its context.AfterFunc, which interrupts the connection. pgconn is
	// then called with context.Background(), so that it does not register
	// a watch of its own at every round trip.
	wctx  context.Context
	wstop func() bool
	wmu   sync.Mutex // guards c's replacement, wgen and fired against the AfterFunc
	wgen  uint64
	fired bool
}

// Session opens a session of the schema this Store serves and connects
// it (preparing its statements when the tables exist), so that the first
// measured call does not pay for connecting. Errors: a failed connection
// (wrapped, password redacted), ctx's error, or store.ErrClosed.
func (s *Store) Session(ctx context.Context) (store.Session, error) {
	if err := s.check(ctx, "Session"); err != nil {
		return nil, err
	}
	ss := &Session{v: s}
	r := retrier{s: s, o: opSession}
	for {
		_, err := ss.conn(ctx)
		if err == nil {
			if _, err = ss.prepared(ctx); err == nil || missingTable(err) {
				r.done()
				return ss, nil
			}
		}
		if err = r.fail(ctx, err, true); err != nil {
			ss.Close()
			return nil, s.c.red.err(fmt.Errorf("pgstore: Session %s: %w", s.c.red.dsn, err))
		}
	}
}

// missingTable reports whether err says a table or schema does not exist
// (statements are then prepared at their first use, after CreateSchema).
func missingTable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == stateUndefinedTab || pe.Code == stateInvalidSchema)
}

// Name returns the schema the session serves.
func (ss *Session) Name() string { return ss.v.name }

// Close closes the session's connection. It may be called more than once.
func (ss *Session) Close() error {
	if ss.closed {
		return nil
	}
	ss.closed = true
	if ss.wstop != nil {
		ss.wstop()
		ss.wstop = nil
	}
	ss.drop()
	return nil
}

// enter starts a call named o: it fails on a closed session or store or a
// done context, and makes the context watch follow ctx.
func (ss *Session) enter(ctx context.Context, o op) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pgstore: %s: %w", o, err)
	}
	if ss.closed || ss.v.c.closed.Load() {
		return fmt.Errorf("pgstore: %s: %w", o, store.ErrClosed)
	}
	if ctx != ss.wctx {
		ss.watch(ctx)
	}
	return nil
}

// watch arranges for the session's connection to be interrupted (a
// deadline in the past) when ctx is done. A worker passes the same context
// to every call, so this runs once per phase, not per call.
func (ss *Session) watch(ctx context.Context) {
	if ss.wstop != nil {
		ss.wstop()
	}
	ss.wmu.Lock()
	ss.wgen++
	gen := ss.wgen
	if ss.fired {
		// The previous context interrupted an idle connection: make it
		// usable again (one interrupted mid-statement was dropped).
		if ss.c != nil {
			_ = ss.c.pg.Conn().SetDeadline(time.Time{})
		}
		ss.fired = false
	}
	ss.wmu.Unlock()
	ss.wctx = ctx
	ss.wstop = nil
	if ss.c != nil {
		ss.c.watched = ctx
	}
	if ctx.Done() != nil {
		ss.wstop = context.AfterFunc(ctx, func() { ss.interrupt(gen) })
	}
}

// interrupt interrupts the connection when the watch of generation gen is
// still current.
func (ss *Session) interrupt(gen uint64) {
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	if gen != ss.wgen {
		return
	}
	ss.fired = true
	if ss.c != nil {
		_ = ss.c.pg.Conn().SetDeadline(time.Unix(1, 0))
	}
}

// conn returns the session's connection, opening it (again) when it is
// missing or closed. A new connection has no prepared statements yet.
func (ss *Session) conn(ctx context.Context) (*conn, error) {
	if c := ss.c; c != nil {
		if !c.pg.IsClosed() {
			return c, nil
		}
		ss.drop()
		ss.v.c.ctr.reconnects.Add(1)
	}
	pc, err := pgx.ConnectConfig(ctx, ss.v.c.cfg.Copy())
	if err != nil {
		return nil, err
	}
	c := &conn{pc: pc, pg: pc.PgConn(), q: ss.v.q, watched: ss.wctx}
	ss.wmu.Lock()
	ss.c = c
	if ss.fired {
		_ = c.pg.Conn().SetDeadline(time.Unix(1, 0))
	}
	ss.wmu.Unlock()
	return c, nil
}

// prepared returns the session's connection with its statements
// prepared.
func (ss *Session) prepared(ctx context.Context) (*conn, error) {
	c, err := ss.conn(ctx)
	if err != nil || c.prepared() {
		return c, err
	}
	if err := c.prepare(ctx); err != nil {
		ss.after(c, err)
		return nil, err
	}
	return c, nil
}

// drop closes the connection after an error that may have left it
// unusable; the next call opens a new one.
func (ss *Session) drop() {
	ss.wmu.Lock()
	c := ss.c
	ss.c = nil
	ss.wmu.Unlock()
	if c != nil {
		c.close()
	}
}

// after handles the error of a round trip on c: a connection that can
// take no more statements is dropped; a transaction left open (or failed)
// is rolled back.
func (ss *Session) after(c *conn, err error) {
	if err == nil {
		return
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// Interrupted by the context watch in the middle of an exchange:
		// the protocol state is unknown. The server may still be running
		// the statement (waiting for a lock: a backend notices its
		// client's departure only when it next talks to it), and would
		// apply it later while holding a connection slot: cancel it (a
		// cancel request, on a connection of its own that takes no
		// slot), so that the backend aborts its transaction and, finding
		// its client gone, exits.
		ss.cancel(c)
		ss.drop()
		if c.pg.IsClosed() {
			ss.v.c.ctr.reconnects.Add(1)
		}
		return
	}
	if c.pg.IsClosed() {
		ss.drop()
		ss.v.c.ctr.reconnects.Add(1) // the next call connects again
		return
	}
	if c.txOpen() {
		ss.rollback(c)
	}
}

// cancel sends the server a cancel request for the statement running on
// c's backend, and waits for it to be sent: pgconn sends one too when it
// closes a broken connection, but from a goroutine of its own, which a
// tool that exits right after the phase does not wait for.
func (ss *Session) cancel(c *conn) {
	ctx, cancel := context.WithTimeout(context.Background(), ss.v.c.opts.ConnectTimeout)
	defer cancel()
	if err := c.pg.CancelRequest(ctx); err != nil {
		ss.v.c.log.Debug("pgstore: cancel request of an abandoned statement failed", "pid", c.pg.PID(),
			"err", ss.v.c.red.str(err.Error()))
		return
	}
	ss.v.c.ctr.cancelled.Add(1)
}

// rollback ends the open or failed transaction of c (MD's
// conn.rollback()); a connection whose ROLLBACK fails is dropped, and the
// server rolls back when it goes.
func (ss *Session) rollback(c *conn) {
	// The call's context may be done: the ROLLBACK gets its own, short one.
	ctx, cancel := context.WithTimeout(context.Background(), ss.v.c.opts.ConnectTimeout)
	defer cancel()
	var b batch
	if err := c.add(&b, sRollback); err == nil {
		if _, err = c.run(ctx, &b, nil); err == nil {
			return
		}
	}
	ss.drop()
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

// acquire borrows a session of s (not connected yet when new), waiting
// while MaxConns calls are under way.
func (s *Store) acquire(ctx context.Context, o op) (*Session, error) {
	if err := s.check(ctx, o.String()); err != nil {
		return nil, err
	}
	select {
	case ss := <-s.pool.ch:
		if ss == nil || ss.closed {
			ss = &Session{v: s}
		}
		return ss, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("pgstore: %s: %w", o, ctx.Err())
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
