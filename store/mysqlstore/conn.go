package mysqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// connKind tells a session's two connections apart (reference §3.2: MD's
// conn_ac1 and conn_ac0).
type connKind uint8

const (
	// connRead is the autocommit connection: reads, node operations, bulk
	// loads and ResetNodeStore (MD's conn_ac1). It reports found rows
	// (CLIENT_FOUND_ROWS), so that UpdateNode and DeleteNode tell a
	// matched node from a missing one with their one statement.
	connRead connKind = iota
	// connWrite has autocommit off: the link writes, whose transactions
	// start implicitly with their first statement and end with COMMIT or
	// ROLLBACK, without a BEGIN round trip (MD's conn_ac0). It reports
	// changed rows, as LinkBench's useAffectedRows=true.
	connWrite
)

// conn is one connection of a session: a go-sql-driver/mysql connection
// used through the driver's own interfaces (no database/sql pool, no
// per-statement locks), with the statements prepared on it and reusable
// argument and result buffers. A conn is used by one goroutine at a time.
type conn struct {
	mc   driver.Conn // *mysql.mysqlConn
	nc   net.Conn    // its network connection (cancellation); nil for a custom dialer
	kind connKind
	ep   int    // the endpoint (cluster node) it is connected to
	gen  uint64 // the view's DDL generation the statements were prepared under
	id   uint64 // the server's id of the connection (CONNECTION_ID()), for KILL; 0 if unknown

	stmts [numStmts]driver.Stmt
	args  []driver.Value
	dest  [8]driver.Value

	binlogOff bool // SET SESSION sql_log_bin=0 is in effect
}

// dialSlot receives the network connection the dialer made, so that a
// session can interrupt a blocked read by setting a deadline.
type dialSlot struct{ nc net.Conn }

type dialSlotKey struct{}

// dialer returns the DialFunc of the store's driver configurations: a
// plain dial whose connection does its reads and writes as rawConn does,
// and is recorded in the context's dialSlot.
func dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer // TCP keep-alive on, as the driver's own dial
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if sc, ok := nc.(syscall.Conn); ok {
			if rc, err := sc.SyscallConn(); err == nil {
				nc = newRawConn(nc, rc)
			}
		}
		if slot, ok := ctx.Value(dialSlotKey{}).(*dialSlot); ok {
			slot.nc = nc
		}
		return nc, nil
	}
}

// rawConn is a network connection whose reads and writes are the
// non-blocking system calls made directly (syscall.RawSyscall) inside the
// runtime's poller (syscall.RawConn), instead of through net.Conn's
// syscall.Syscall: a read or write of a non-blocking socket never blocks,
// so it need not tell the scheduler it enters a system call, and the
// scheduler's monitor thread is not woken for it. Waiting for data is the
// poller's, as for any net.Conn; deadlines work as on the wrapped Conn.
// The functions handed to the poller are bound once, so a read or write
// allocates nothing.
type rawConn struct {
	net.Conn
	rc syscall.RawConn

	rbuf, wbuf    []byte
	rn, wn        int
	rerr, werr    syscall.Errno
	readF, writeF func(fd uintptr) bool
}

func newRawConn(nc net.Conn, rc syscall.RawConn) *rawConn {
	c := &rawConn{Conn: nc, rc: rc}
	c.readF = c.read
	c.writeF = c.write
	return c
}

// read is one read system call into c.rbuf; false asks the poller to wait.
func (c *rawConn) read(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.rbuf[0])), uintptr(len(c.rbuf)))
		if e == syscall.EINTR {
			continue
		}
		c.rn, c.rerr = int(r), e
		return e != syscall.EAGAIN
	}
}

// write is one write system call of c.wbuf; false asks the poller to wait.
func (c *rawConn) write(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&c.wbuf[0])), uintptr(len(c.wbuf)))
		if e == syscall.EINTR {
			continue
		}
		c.wn, c.werr = int(r), e
		return e != syscall.EAGAIN
	}
}

// Read implements net.Conn.
func (c *rawConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rbuf = p
	err := c.rc.Read(c.readF)
	c.rbuf = nil
	switch {
	case err != nil:
		return 0, err
	case c.rerr != 0:
		return 0, os.NewSyscallError("read", c.rerr)
	case c.rn == 0:
		return 0, io.EOF
	}
	return c.rn, nil
}

// Write implements net.Conn.
func (c *rawConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		c.wbuf = p[done:]
		err := c.rc.Write(c.writeF)
		c.wbuf = nil
		if err != nil {
			return done, err
		}
		if c.werr != 0 {
			return done, os.NewSyscallError("write", c.werr)
		}
		done += c.wn
	}
	return done, nil
}

// connect opens a connection of kind k to endpoint ep and runs the view's
// session set-up (isolation level) on it.
func (c *shared) connect(ctx context.Context, k connKind, ep int) (*conn, error) {
	slot := &dialSlot{}
	connector := c.eps[ep].readConnector
	if k == connWrite {
		connector = c.eps[ep].writeConnector
	}
	mc, err := connector.Connect(context.WithValue(ctx, dialSlotKey{}, slot))
	if err != nil {
		return nil, err
	}
	cn := &conn{mc: mc, nc: slot.nc, kind: k, ep: ep}
	for _, q := range c.initSQL {
		if _, err := cn.execText(ctx, q); err != nil {
			cn.close()
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	if cn.id, err = cn.connectionID(ctx); err != nil {
		cn.close()
		return nil, fmt.Errorf("SELECT CONNECTION_ID(): %w", err)
	}
	return cn, nil
}

// connectionID asks the server for the connection's id, which a statement
// abandoned on it is killed by (see shared.kill).
func (cn *conn) connectionID(ctx context.Context) (uint64, error) {
	rows, err := cn.queryText(ctx, "SELECT CONNECTION_ID()")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	if _, err := cn.next(rows, 1); err != nil {
		return 0, err
	}
	switch v := cn.dest[0].(type) {
	case int64:
		return uint64(v), nil
	case uint64:
		return v, nil
	case []byte:
		return strconv.ParseUint(string(v), 10, 64)
	}
	return 0, fmt.Errorf("unexpected type %T", cn.dest[0])
}

// valid reports whether the connection can take another statement.
func (cn *conn) valid() bool {
	v, ok := cn.mc.(driver.Validator)
	return !ok || v.IsValid()
}

// close closes the connection and forgets its statements (the server
// drops them with the connection).
func (cn *conn) close() {
	cn.stmts = [numStmts]driver.Stmt{}
	_ = cn.mc.Close()
}

// interrupt makes a blocked read or write of the connection return at
// once (when the session's context is done).
func (cn *conn) interrupt() {
	if cn.nc != nil {
		_ = cn.nc.SetDeadline(time.Unix(1, 0))
	}
}

// clearDeadline undoes interrupt on a connection that was idle.
func (cn *conn) clearDeadline() {
	if cn.nc != nil {
		_ = cn.nc.SetDeadline(time.Time{})
	}
}

// stmt returns statement id of the session's database prepared on this
// connection, preparing it on first use (and again after DDL run through
// the Store).
func (cn *conn) stmt(ctx context.Context, ss *Session, id int) (driver.Stmt, error) {
	q := ss.v.q
	if g := q.gen.Load(); g != cn.gen {
		cn.closeStmts()
		cn.gen = g
	}
	if st := cn.stmts[id]; st != nil {
		return st, nil
	}
	st, err := cn.prepare(ctx, q.textOf(ctx, ss.v.c.db, id))
	if err != nil {
		return nil, err
	}
	cn.stmts[id] = st
	return st, nil
}

// prepare prepares text on the connection.
func (cn *conn) prepare(ctx context.Context, text string) (driver.Stmt, error) {
	if p, ok := cn.mc.(driver.ConnPrepareContext); ok {
		return p.PrepareContext(ctx, text)
	}
	return cn.mc.Prepare(text)
}

// closeStmts closes the statements prepared on the connection.
func (cn *conn) closeStmts() {
	for i, st := range cn.stmts {
		if st != nil {
			_ = st.Close()
			cn.stmts[i] = nil
		}
	}
}

// named converts arguments for the driver's context-aware calls.
func named(args []driver.Value) []driver.NamedValue {
	nv := make([]driver.NamedValue, len(args))
	for i, a := range args {
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return nv
}

// exec executes a prepared statement with args and returns its affected
// rows and last insert id. The session's context watch interrupts it
// when ctx is done; on a connection dialled by a custom dialer the
// driver's own context handling is used instead.
func (cn *conn) exec(ctx context.Context, st driver.Stmt, args []driver.Value) (affected, lastID int64, err error) {
	var res driver.Result
	if cn.nc == nil {
		res, err = st.(driver.StmtExecContext).ExecContext(ctx, named(args))
	} else {
		//lint:ignore SA1019 the context-free call: the session watches the context
		res, err = st.Exec(args)
	}
	if err != nil {
		return 0, 0, err
	}
	affected, _ = res.RowsAffected()
	lastID, _ = res.LastInsertId()
	return affected, lastID, nil
}

// query runs a prepared statement with args.
func (cn *conn) query(ctx context.Context, st driver.Stmt, args []driver.Value) (driver.Rows, error) {
	if cn.nc == nil {
		return st.(driver.StmtQueryContext).QueryContext(ctx, named(args))
	}
	//lint:ignore SA1019 the context-free call: the session watches the context
	return st.Query(args)
}

// execText sends a statement as text (COM_QUERY): COMMIT, ROLLBACK and
// session settings.
func (cn *conn) execText(ctx context.Context, text string) (affected int64, err error) {
	var res driver.Result
	if cn.nc == nil {
		res, err = cn.mc.(driver.ExecerContext).ExecContext(ctx, text, nil)
	} else {
		//lint:ignore SA1019 the context-free call: the session watches the context
		res, err = cn.mc.(driver.Execer).Exec(text, nil)
	}
	if err != nil {
		return 0, err
	}
	affected, _ = res.RowsAffected()
	return affected, nil
}

// queryText runs a text query (COM_QUERY), for the multiget statement
// that LinkBench sends as a literal.
func (cn *conn) queryText(ctx context.Context, text string) (driver.Rows, error) {
	if cn.nc == nil {
		return cn.mc.(driver.QueryerContext).QueryContext(ctx, text, nil)
	}
	//lint:ignore SA1019 the context-free call: the session watches the context
	return cn.mc.(driver.Queryer).Query(text, nil)
}

// next reads the next row of rows, of ncol columns, into cn.dest; done is
// true at the end.
func (cn *conn) next(rows driver.Rows, ncol int) (done bool, err error) {
	err = rows.Next(cn.dest[:ncol])
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	return false, err
}

// setArgs fills the connection's argument buffer.
func (cn *conn) setArgs(vals ...driver.Value) []driver.Value {
	cn.args = append(cn.args[:0], vals...)
	return cn.args
}
