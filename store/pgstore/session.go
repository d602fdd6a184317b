package pgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
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
	v *Store
	c *conn // replaced under the watch's lock (its interruption reads it)

	// calls runs the calls: checks, retries, and the context watch that
	// interrupts the connection when the calls' context ends (pgconn is
	// then called with context.Background(), so that it does not register
	// a watch of its own at every round trip).
	calls sqlstore.Calls
}

// Session opens a session of the schema this Store serves and connects
// it (preparing its statements when the tables exist), so that the first
// measured call does not pay for connecting. Errors: a failed connection
// (wrapped, password redacted), ctx's error, or store.ErrClosed.
func (s *Store) Session(ctx context.Context) (store.Session, error) {
	if err := s.c.eng.Check(ctx, "Session"); err != nil {
		return nil, err
	}
	ss := s.newSession()
	err := s.c.eng.Retry(ctx, sqlstore.OpSession, s.name, true, func(int) error {
		_, err := ss.conn(ctx)
		if err == nil {
			if _, err = ss.prepared(ctx); missingTable(err) {
				err = nil // prepared at the first use, after CreateSchema
			}
		}
		return err
	})
	if err != nil {
		ss.Close()
		return nil, s.c.eng.Red().Err(fmt.Errorf("pgstore: Session %s: %w", s.c.eng.Red().DSN, err))
	}
	return ss, nil
}

// newSession returns a session of s, not connected yet.
func (s *Store) newSession() *Session {
	ss := &Session{v: s}
	ss.calls.Init(s.c.eng, s.name, ss.rearm, ss.interrupt)
	return ss
}

// Name returns the schema the session serves.
func (ss *Session) Name() string { return ss.v.name }

// Close closes the session's connection. It may be called more than once.
func (ss *Session) Close() error {
	if ss.calls.Close(func(bool) {}) {
		ss.drop()
	}
	return nil
}

// rearm makes a connection that the previous context interrupted while
// it was idle usable again (one interrupted mid-statement was dropped).
func (ss *Session) rearm() {
	if ss.c != nil {
		_ = ss.c.pg.Conn().SetDeadline(time.Time{})
	}
}

// interrupt interrupts the connection (the context watch fired): a
// deadline in the past.
func (ss *Session) interrupt() {
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
		ss.v.c.eng.Events.Reconnects.Add(1)
	}
	pc, err := pgx.ConnectConfig(ctx, ss.v.c.cfg.Copy())
	if err != nil {
		return nil, err
	}
	c := &conn{pc: pc, pg: pc.PgConn(), q: ss.v.q, watch: ss.calls.Watch()}
	ss.calls.Watch().Locked(func(fired bool) {
		ss.c = c
		if fired {
			ss.interrupt()
		}
	})
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
	var c *conn
	ss.calls.Watch().Locked(func(bool) { c, ss.c = ss.c, nil })
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
			ss.v.c.eng.Events.Reconnects.Add(1)
		}
		return
	}
	if c.pg.IsClosed() {
		ss.drop()
		ss.v.c.eng.Events.Reconnects.Add(1) // the next call connects again
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
			"err", ss.v.c.eng.Red().Str(err.Error()))
		return
	}
	ss.v.c.eng.Events.Cancelled.Add(1)
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
