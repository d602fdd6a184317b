package pgstore

import (
	"cmp"
	"context"
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

	"github.com/jackc/pgx/v5/pgconn"

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
	opOpen
	opSchema
	numOps
)

var opNames = [numOps]string{
	"AddLink", "UpdateLink", "DeleteLink", "GetLink", "MultigetLinks", "GetLinkList", "CountLinks",
	"AddBulkLinks", "AddBulkCounts", "ResetNodeStore", "AddNode", "AddBulkNodes", "GetNode",
	"UpdateNode", "DeleteNode", "NodeStats", "CheckCounts", "Warm", "Session", "Open", "Schema",
}

// String returns the method's name.
func (o op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// Counter is a named event count of a Store since Open (all its schema
// views and sessions together).
//
// Names: "retries.<Op>" (attempts after the first, e.g. retries.AddLink),
// "max_retries.<Op>" (most retries of one call), "failures.<Op>" (calls
// that returned an error other than a cancelled context),
// "transient.<Op>" (of those, the ones returned as *store.TransientError),
// "add_to_upd" (AddLink found the link and updated it), "upd_to_add"
// (UpdateLink or a retried AddLink found no link and inserted it),
// "bulk_upserts" (bulk calls that went through the upsert path: a retry or
// a duplicate key), "reconnects" (connections found lost, which the next
// call replaces), "cancelled" (cancel requests sent for statements
// abandoned while the server ran them: their context ended),
// "errors.<SQLSTATE>" (round trips that failed with that SQLSTATE, e.g.
// errors.40001 for serialization failures and errors.40P01 for
// deadlocks; injected errors included; a duplicate key on AddLink's insert
// is not an error, it is add_to_upd) and "errors.conn" (round trips that
// failed on a lost or refused connection without a SQLSTATE).
type Counter struct {
	Name  string
	Value int64
}

// counters are a Store's event counts.
type counters struct {
	retries     [numOps]atomic.Int64
	maxRetries  [numOps]atomic.Int64
	failures    [numOps]atomic.Int64
	transient   [numOps]atomic.Int64
	addToUpd    atomic.Int64
	updToAdd    atomic.Int64
	bulkUpserts atomic.Int64
	reconnects  atomic.Int64
	cancelled   atomic.Int64 // cancel requests sent for abandoned statements

	mu   sync.Mutex
	errs map[string]int64 // SQLSTATE or "conn" -> round trips failed
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
	add("bulk_upserts", c.bulkUpserts.Load())
	add("reconnects", c.reconnects.Load())
	add("cancelled", c.cancelled.Load())
	c.mu.Lock()
	for k, v := range c.errs {
		add("errors."+k, v)
	}
	c.mu.Unlock()
	slices.SortFunc(out, func(a, b Counter) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// errClass says what a failed round trip allows.
type errClass uint8

const (
	classFatal errClass = iota // returned as it is
	classRetry                 // serialization failure or deadlock: rolled back, retry
	classConn                  // connection lost or refused: reconnect, retry if safe
)

// SQLSTATEs the store treats specially.
const (
	stateSerialization = "40001" // serialization_failure
	stateDeadlock      = "40P01" // deadlock_detected
	stateUniqueViolate = "23505" // unique_violation (duplicate key)
	stateAdminShutdown = "57P01" // admin_shutdown (pg_terminate_backend, smart/fast shutdown)
	stateCrashShutdown = "57P02" // crash_shutdown
	stateCannotConnect = "57P03" // cannot_connect_now (starting up)
	stateUndefinedTab  = "42P01" // undefined_table
	stateInvalidSchema = "3F000" // invalid_schema_name
)

// classify returns err's class and its counter key (the SQLSTATE,
// "conn", or "" when it is neither).
func classify(err error) (errClass, string) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == stateSerialization || pe.Code == stateDeadlock:
			return classRetry, pe.Code
		case strings.HasPrefix(pe.Code, "08"), pe.Code == stateAdminShutdown, pe.Code == stateCrashShutdown,
			pe.Code == stateCannotConnect, pe.Severity == "FATAL", pe.Severity == "PANIC":
			return classConn, pe.Code
		}
		return classFatal, pe.Code
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, errConnLost) {
		return classConn, "conn"
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return classConn, "conn"
	}
	return classFatal, ""
}

// errConnLost reports a connection pgconn found closed.
var errConnLost = errors.New("pgstore: connection lost")

// unsent reports whether a failed round trip certainly changed nothing on
// the server: nothing was sent (pgx's SafeToRetry, a refused connection),
// or the server answered with an error, which ends the transaction without
// committing it (a backend terminated by pg_terminate_backend answers
// FATAL 57P01 before it closes).
func unsent(err error) bool {
	var pe *pgconn.PgError
	var ce *pgconn.ConnectError
	return errors.As(err, &pe) || errors.As(err, &ce) || pgconn.SafeToRetry(err) || errors.Is(err, syscall.ECONNREFUSED)
}

// isDup reports whether err is a duplicate-key error.
func isDup(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == stateUniqueViolate
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
// the server and possibly committed.
func (r *retrier) fail(ctx context.Context, err error, idempotent bool) error {
	s, c := r.s, &r.s.c.ctr
	r.attempt++
	if s.c.closed.Load() {
		return fmt.Errorf("pgstore: %s: %w", r.o, store.ErrClosed)
	}
	if cerr := ctx.Err(); cerr != nil {
		if errors.Is(err, cerr) {
			return s.c.red.err(fmt.Errorf("pgstore: %s: %w", r.o, err))
		}
		// A server's error keeps its class: the call failed, it was not
		// merely cut short.
		_, key := classify(err)
		return classed(s.c.red.err(fmt.Errorf("pgstore: %s: %w: %w", r.o, cerr, err)), key)
	}
	class, key := classify(err)
	if key != "" {
		c.countErr(key)
	}
	switch {
	case class == classFatal:
		c.failures[r.o].Add(1)
		return classed(s.c.red.err(fmt.Errorf("pgstore: %s: %w", r.o, err)), key)
	case class == classConn && !idempotent && !unsent(err):
		c.failures[r.o].Add(1)
		c.transient[r.o].Add(1)
		s.c.log.Warn("pgstore: connection lost during a write that cannot be repeated safely",
			"op", r.o.String(), "schema", s.name, "err", s.c.red.str(err.Error()))
		return &store.TransientError{Op: r.o.String(), Err: s.c.red.err(
			fmt.Errorf("pgstore: connection lost while the statement may have run (not retried): %w", err))}
	case r.attempt >= s.c.opts.RetryAttempts:
		c.failures[r.o].Add(1)
		c.transient[r.o].Add(1)
		s.c.log.Warn("pgstore: giving up", "op", r.o.String(), "schema", s.name,
			"attempts", r.attempt, "err", s.c.red.str(err.Error()))
		return &store.TransientError{Op: r.o.String(), Err: s.c.red.err(
			fmt.Errorf("pgstore: gave up after %d attempts: %w", r.attempt, err))}
	}
	c.retries[r.o].Add(1)
	d := r.backoff()
	s.c.log.Debug("pgstore: retrying", "op", r.o.String(), "schema", s.name, "attempt", r.attempt+1,
		"wait", d, "err", s.c.red.str(err.Error()))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("pgstore: %s: %w: %w", r.o, ctx.Err(), s.c.red.err(err))
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

// inject calls Options.Inject, if set, for step of op o.
func (s *Store) inject(o op, step string) error {
	if f := s.c.opts.Inject; f != nil {
		return f(o.String() + ":" + step)
	}
	return nil
}

// classedError is a failed call's error with the class the benchmark's
// report counts it under (its ErrorClass method): "sqlstate <code>" for a
// server error, e.g. "sqlstate 53300" for too many clients.
type classedError struct {
	error
	class string
}

// ErrorClass returns the error's class for the benchmark's report.
func (e *classedError) ErrorClass() string { return e.class }

// Unwrap returns the error.
func (e *classedError) Unwrap() error { return e.error }

// classed wraps err with the class of SQLSTATE key ("" or "conn": err as
// it is).
func classed(err error, key string) error {
	if key == "" || key == "conn" {
		return err
	}
	return &classedError{error: err, class: "sqlstate " + key}
}
