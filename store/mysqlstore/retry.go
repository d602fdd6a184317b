package mysqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/store"
)

// op is a store method, for counters, logs and error messages.
type op uint8

const (
	opAddLink op = iota
	opUpdateLink
	opDeleteLink
	opGetLink
	opMultigetLinks
	opGetLinkList
	opCountLinks
	opAddBulkLinks
	opAddBulkCounts
	opResetNodeStore
	opAddNode
	opAddBulkNodes
	opGetNode
	opUpdateNode
	opDeleteNode
	opNodeStats
	opCheckCounts
	opWarm
	opSession
	numOps
)

// String returns the method's name.
func (o op) String() string {
	switch o {
	case opAddLink:
		return "AddLink"
	case opUpdateLink:
		return "UpdateLink"
	case opDeleteLink:
		return "DeleteLink"
	case opGetLink:
		return "GetLink"
	case opMultigetLinks:
		return "MultigetLinks"
	case opGetLinkList:
		return "GetLinkList"
	case opCountLinks:
		return "CountLinks"
	case opAddBulkLinks:
		return "AddBulkLinks"
	case opAddBulkCounts:
		return "AddBulkCounts"
	case opResetNodeStore:
		return "ResetNodeStore"
	case opAddNode:
		return "AddNode"
	case opAddBulkNodes:
		return "AddBulkNodes"
	case opGetNode:
		return "GetNode"
	case opUpdateNode:
		return "UpdateNode"
	case opDeleteNode:
		return "DeleteNode"
	case opNodeStats:
		return "NodeStats"
	case opCheckCounts:
		return "CheckCounts"
	case opWarm:
		return "Warm"
	case opSession:
		return "Session"
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// Counter is a named event count of a Store since Open (all its database
// views together).
//
// Names: "retries.<Op>" (attempts after the first, e.g. retries.AddLink),
// "max_retries.<Op>" (most retries of one call), "failures.<Op>" (calls
// that returned an error other than a cancelled context),
// "transient.<Op>" (of those, the ones returned as *store.TransientError),
// "add_to_upd" (AddLink found the link and updated it), "upd_to_add"
// (UpdateLink or a retried AddLink found no link and inserted it),
// "killed" (connections killed because a statement on them was abandoned:
// its context ended while the server ran it),
// "errors.<n>" (statements that failed with MySQL error number n, e.g.
// errors.1213 for deadlocks; injected errors included) and "errors.conn"
// (statements that failed on a lost or refused connection).
type Counter struct {
	Name  string
	Value int64
}

// counters are a Store's event counts.
type counters struct {
	retries    [numOps]atomic.Int64
	maxRetries [numOps]atomic.Int64
	failures   [numOps]atomic.Int64
	transient  [numOps]atomic.Int64
	addToUpd   atomic.Int64
	updToAdd   atomic.Int64
	killed     atomic.Int64 // connections of abandoned statements killed

	mu   sync.Mutex
	errs map[string]int64 // error number or "conn" -> statements failed
}

func (c *counters) countErr(key string) {
	c.mu.Lock()
	c.errs[key]++
	c.mu.Unlock()
}

// Counters returns the store's non-zero counters (see Counter for the
// names), sorted by name. It is safe to call at any time, also after Close.
func (s *Store) Counters() []Counter {
	c := &s.c.ctr
	var out []Counter
	add := func(name string, v int64) {
		if v != 0 {
			out = append(out, Counter{Name: name, Value: v})
		}
	}
	for o := range numOps {
		add("retries."+o.String(), c.retries[o].Load())
		add("max_retries."+o.String(), c.maxRetries[o].Load())
		add("failures."+o.String(), c.failures[o].Load())
		add("transient."+o.String(), c.transient[o].Load())
	}
	add("add_to_upd", c.addToUpd.Load())
	add("upd_to_add", c.updToAdd.Load())
	add("killed", c.killed.Load())
	c.mu.Lock()
	for k, v := range c.errs {
		add("errors."+k, v)
	}
	c.mu.Unlock()
	slices.SortFunc(out, func(a, b Counter) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// errClass says what a failed statement allows.
type errClass uint8

const (
	classFatal errClass = iota // returned as it is
	classRetry                 // deadlock or lock wait timeout: rolled back, retry
	classConn                  // connection lost or refused: retry if safe
)

// MySQL error numbers the store treats specially.
const (
	erDupEntry         = 1062 // ER_DUP_ENTRY
	erLockWaitTimeout  = 1205 // ER_LOCK_WAIT_TIMEOUT
	erLockDeadlock     = 1213 // ER_LOCK_DEADLOCK
	erServerShutdown   = 1053 // ER_SERVER_SHUTDOWN
	erConnectionKilled = 1927 // ER_CONNECTION_KILLED (MariaDB)
	erClientInactive   = 4031 // ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8)
	crServerGone       = 2006 // CR_SERVER_GONE_ERROR
	crServerLost       = 2013 // CR_SERVER_LOST
)

// classify returns err's class and its counter key (the MySQL error number,
// "conn", or "" when it is neither).
func classify(err error) (errClass, string) {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		key := strconv.Itoa(int(me.Number))
		switch me.Number {
		case erLockDeadlock, erLockWaitTimeout:
			return classRetry, key
		case erServerShutdown, erConnectionKilled, erClientInactive, crServerGone, crServerLost:
			return classConn, key
		}
		return classFatal, key
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) {
		return classConn, "conn"
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return classConn, "conn"
	}
	return classFatal, ""
}

// unsent reports whether a connection error certainly happened before the
// statement reached the server (a refused dial, or the driver's
// ErrBadConn, which it returns only when nothing was written).
func unsent(err error) bool {
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// isDup reports whether err is a duplicate-key error.
func isDup(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == erDupEntry
}

// retrier runs the attempts of one call.
type retrier struct {
	s       *Store
	o       op
	attempt int // failed attempts so far
}

// fail handles the error of a failed attempt. It returns nil after
// sleeping when the call should be tried again, else the error to return.
// idempotent says whether the attempt may be repeated even if it reached
// the server and possibly committed (the store's writes are, except
// AddNode).
func (r *retrier) fail(ctx context.Context, err error, idempotent bool) error {
	s, c := r.s, &r.s.c.ctr
	r.attempt++
	if s.c.closed.Load() {
		return fmt.Errorf("mysqlstore: %s: %w", r.o, store.ErrClosed)
	}
	if cerr := ctx.Err(); cerr != nil {
		if errors.Is(err, cerr) {
			return s.c.red.err(fmt.Errorf("mysqlstore: %s: %w", r.o, err))
		}
		// A server's error (e.g. 1040, too many connections) keeps its
		// class: the call failed, it was not merely cut short.
		_, key := classify(err)
		return classed(s.c.red.err(fmt.Errorf("mysqlstore: %s: %w: %w", r.o, cerr, err)), key)
	}
	class, key := classify(err)
	if key != "" {
		c.countErr(key)
	}
	switch {
	case class == classFatal:
		c.failures[r.o].Add(1)
		return classed(s.c.red.err(fmt.Errorf("mysqlstore: %s: %w", r.o, err)), key)
	case class == classConn && !idempotent && !unsent(err):
		c.failures[r.o].Add(1)
		c.transient[r.o].Add(1)
		s.c.log.Warn("mysqlstore: connection lost during a write that cannot be repeated safely",
			"op", r.o.String(), "db", s.name, "err", s.c.red.str(err.Error()))
		return &store.TransientError{Op: r.o.String(), Err: s.c.red.err(
			fmt.Errorf("mysqlstore: connection lost while the statement may have run (not retried): %w", err))}
	case r.attempt >= s.c.opts.RetryAttempts:
		c.failures[r.o].Add(1)
		c.transient[r.o].Add(1)
		s.c.log.Warn("mysqlstore: giving up", "op", r.o.String(), "db", s.name,
			"attempts", r.attempt, "err", s.c.red.str(err.Error()))
		return &store.TransientError{Op: r.o.String(), Err: s.c.red.err(
			fmt.Errorf("mysqlstore: gave up after %d attempts: %w", r.attempt, err))}
	}
	c.retries[r.o].Add(1)
	d := r.backoff()
	s.c.log.Debug("mysqlstore: retrying", "op", r.o.String(), "db", s.name, "attempt", r.attempt+1,
		"wait", d, "err", s.c.red.str(err.Error()))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mysqlstore: %s: %w: %w", r.o, ctx.Err(), s.c.red.err(err))
	}
}

// backoff returns the wait before the next attempt: RetryBackoff doubled
// per failed attempt, capped at RetryMaxBackoff, drawn uniformly from
// [d/2, d].
func (r *retrier) backoff() time.Duration {
	o := &r.s.c.opts
	d := o.RetryBackoff
	for i := 1; i < r.attempt && d < o.RetryMaxBackoff; i++ {
		d *= 2
	}
	d = min(d, o.RetryMaxBackoff)
	if d <= 1 {
		return d
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// done records a successful call.
func (r *retrier) done() {
	if r.attempt == 0 {
		return
	}
	m := &r.s.c.ctr.maxRetries[r.o]
	for {
		cur := m.Load()
		if int64(r.attempt) <= cur || m.CompareAndSwap(cur, int64(r.attempt)) {
			return
		}
	}
}

// inject calls Options.Inject, if set, for statement stmt of op o.
func (s *Store) inject(o op, stmt string) error {
	if f := s.c.opts.Inject; f != nil {
		return f(o.String() + ":" + stmt)
	}
	return nil
}

// InjectEvery returns an Options.Inject function that fails every n-th
// statement (counted over all statements of the store, from 1) whose label
// starts with prefix ("" for all, "AddLink:" for AddLink's, ...) with
// MySQL error number (1213 a deadlock, 1205 a lock wait timeout, 2013 a
// lost connection), as the server would: below the store's retries, which
// handle it as they handle the real error. n < 1 counts as 1.
func InjectEvery(n int64, prefix string, number uint16) func(label string) error {
	n = max(n, 1)
	var calls atomic.Int64
	return func(label string) error {
		if !strings.HasPrefix(label, prefix) || calls.Add(1)%n != 0 {
			return nil
		}
		return &mysql.MySQLError{Number: number, Message: "injected by mysqlstore.InjectEvery at " + label}
	}
}

// classedError is a failed call's error with the class the benchmark's
// report counts it under (its ErrorClass method): "mysql <number>" for a
// server error, e.g. "mysql 1040" for too many connections.
type classedError struct {
	error
	class string
}

// ErrorClass returns the error's class for the benchmark's report.
func (e *classedError) ErrorClass() string { return e.class }

// Unwrap returns the error.
func (e *classedError) Unwrap() error { return e.error }

// classed wraps err with the class of MySQL error number key ("" or
// "conn": err as it is).
func classed(err error, key string) error {
	if key == "" || key == "conn" {
		return err
	}
	return &classedError{error: err, class: "mysql " + key}
}
