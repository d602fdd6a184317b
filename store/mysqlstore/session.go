package mysqlstore

import (
	"context"
	"fmt"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
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
	rd, wr *conn  // replaced under the watch's lock (its interruption reads them)
	lit    []byte // the text of a literal multiget

	// ep is the endpoint (cluster node) the session uses; its connections
	// follow it. ambiguous: the last attempt's COMMIT lost its connection
	// (see commitError).
	ep        int
	ambiguous bool

	// calls runs the calls: checks, retries, and the context watch that
	// interrupts both connections when the calls' context ends.
	calls sqlstore.Calls
}

// Session opens a session of the database this Store serves and connects
// both of its connections, so that the first measured call does not pay
// for connecting. Errors: a failed connection (wrapped, password
// redacted), ctx's error, or store.ErrClosed.
func (s *Store) Session(ctx context.Context) (store.Session, error) {
	if err := s.check(ctx, "Session"); err != nil {
		return nil, err
	}
	ss := s.newSession()
	for _, k := range []connKind{connRead, connWrite} {
		if _, err := ss.conn(ctx, k); err != nil {
			ss.Close()
			return nil, s.c.red().Err(fmt.Errorf("mysqlstore: Session %s: %w", s.c.red().DSN, err))
		}
	}
	return ss, nil
}

// Name returns the database the session serves.
func (ss *Session) Name() string { return ss.v.name }

// Close closes the session's connections. It may be called more than
// once.
func (ss *Session) Close() error {
	var rd, wr *conn
	var fired bool
	if !ss.calls.Close(func(f bool) {
		rd, wr, fired = ss.rd, ss.wr, f
		ss.rd, ss.wr = nil, nil
	}) {
		return nil
	}
	for _, c := range []*conn{rd, wr} {
		if c != nil {
			if !c.valid() {
				ss.v.c.kill(c.ep, c.id) // see drop
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

// rearm makes connections that the previous context interrupted while
// they were idle usable again (one interrupted mid-statement is invalid
// and is replaced anyway).
func (ss *Session) rearm() {
	for _, c := range []*conn{ss.rd, ss.wr} {
		if c != nil {
			c.clearDeadline()
		}
	}
}

// interrupt interrupts both connections (the context watch fired).
func (ss *Session) interrupt() {
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
		if c.valid() && c.ep == ss.ep {
			return c, nil
		}
		ss.drop(k)
	}
	c, err := ss.dial(ctx, k)
	if err != nil {
		return nil, err
	}
	ss.calls.Watch().Locked(func(fired bool) {
		*p = c
		if fired {
			c.interrupt()
		}
	})
	return c, nil
}

// dial connects a connection of kind k to the session's node; on a
// cluster, a node that refuses or loses the connection, or is not ready,
// moves the session to the next node (each tried once).
func (ss *Session) dial(ctx context.Context, k connKind) (*conn, error) {
	n := len(ss.v.c.eps)
	for i := 0; ; i++ {
		c, err := ss.v.c.connect(ctx, k, ss.ep)
		if err == nil || n == 1 || i == n-1 || ctx.Err() != nil || !movable(err) {
			return c, err
		}
		ss.moveOn(err)
	}
}

// drop closes the connection of kind k after an error that may have left
// it unusable; the next call opens a new one.
func (ss *Session) drop(k connKind) {
	var c *conn
	ss.calls.Watch().Locked(func(bool) {
		p := &ss.rd
		if k == connWrite {
			p = &ss.wr
		}
		c, *p = *p, nil
	})
	if c != nil {
		if !c.valid() {
			// Broken in the middle of a statement (interrupted by the
			// context watch, or the network): the server may still be
			// running it, waiting for a lock, and would apply it later
			// while holding a connection slot. Kill it.
			ss.v.c.kill(c.ep, c.id)
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
// rolls it back, as a server that refuses the commit would; one from
// Options.injectCommitted follows a COMMIT that succeeded, as a reply lost
// on the way). Its error is classified by commitError.
func (ss *Session) commit(ctx context.Context, c *conn, o sqlstore.Op) error {
	if err := ss.v.c.eng.Inject(o, "commit"); err != nil {
		ss.rollback(ctx, c)
		return err
	}
	_, err := c.execText(ctx, "COMMIT")
	if f := ss.v.c.opts.injectCommitted; err == nil && f != nil {
		err = f(o.String()) // the tests' seam: a reply lost after the server committed
	}
	if err != nil {
		ss.rollback(ctx, c)
		return ss.commitError(err)
	}
	return nil
}
