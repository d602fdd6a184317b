// Package sqlstore is the engine LinkBench's SQL stores share (mysqlstore,
// pgstore): everything but the dialect. A store built on it keeps only
// what its database and driver make its own: statements, the driver's
// error types and codes sorted into the engine's classes (a Dialect),
// connection set-up, sessions and bulk loads. The engine owns:
//
//   - the options every SQL store has, their defaults and checks
//     (Defaults), and its registration with package store (Register);
//   - the retry loop (Engine.Retry): bounded attempts with a jittered
//     exponential backoff for the errors the dialect classes Retry, and for
//     lost connections (Conn) when repeating cannot change the outcome;
//     the error that outlives it as a *store.TransientError; an error
//     class for reports ("mysql 1213", "sqlstate 40001"); a missing schema
//     as store.ErrNoSchema;
//   - the counters (retries, failures, errors by server code, events) of
//     store.CounterSource;
//   - the store's own session-borrowing methods (Pool): a Store shared by
//     many goroutines borrows one of the dialect's sessions per call;
//   - the per-database views, Close and store.IdleCloser;
//   - the context watch of a session (Watch) and a redactor of passwords.
//
// The request path of the benchmark's workers is a dialect's session
// calling Engine.Enter and Engine.Retry around its statements: the engine
// adds no allocation and no lock to it.
package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/linkbench-go/linkbench/store"
)

// Op is a store method, for counters, logs and error messages.
type Op uint8

// The store methods.
const (
	OpAddLink Op = iota
	OpUpdateLink
	OpDeleteLink
	OpGetLink
	OpMultigetLinks
	OpGetLinkList
	OpCountLinks
	OpAddBulkLinks
	OpAddBulkCounts
	OpResetNodeStore
	OpAddNode
	OpAddBulkNodes
	OpGetNode
	OpUpdateNode
	OpDeleteNode
	OpNodeStats
	OpCheckCounts
	OpWarm
	OpSession
	OpOpen
	OpSchema
	OpHasNodeIn
	NumOps
)

var opNames = [NumOps]string{
	"AddLink", "UpdateLink", "DeleteLink", "GetLink", "MultigetLinks", "GetLinkList", "CountLinks",
	"AddBulkLinks", "AddBulkCounts", "ResetNodeStore", "AddNode", "AddBulkNodes", "GetNode",
	"UpdateNode", "DeleteNode", "NodeStats", "CheckCounts", "Warm", "Session", "Open", "Schema",
	"HasNodeIn",
}

// String returns the method's name.
func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// Class says what a failed statement (or round trip) allows.
type Class uint8

const (
	// Fatal errors are returned as they are (wrapped).
	Fatal Class = iota
	// Retry errors (a deadlock, a lock wait timeout, a serialization
	// failure) rolled the transaction back: the call is tried again.
	Retry
	// Conn errors lost or refused the connection: the call is tried again
	// on a new one when that is safe.
	Conn
)

// Dialect is what the engine needs to know of a database and its driver.
// Its functions run only when a call failed.
type Dialect struct {
	// Pkg starts every message and log line: "mysqlstore".
	Pkg string
	// DBKey is the log attribute naming a view's database: "db", "schema".
	DBKey string
	// ClassPrefix names the server's error codes in report classes:
	// "mysql" gives "mysql 1213".
	ClassPrefix string
	// Classify returns err's class and its counter key: the server's
	// error code (a MySQL error number, a SQLSTATE), "conn" for a lost or
	// refused connection without one, "" for neither. It must look at the
	// driver's error types and codes (errors.As), never at message text.
	Classify func(err error) (Class, string)
	// Unsent reports whether a Conn error certainly changed nothing on
	// the server (nothing was sent, or the server refused the statement),
	// so that a write that is not idempotent may be repeated.
	Unsent func(err error) bool
	// NoSchema reports whether err says a database, schema or table does
	// not exist (the engine then wraps it with store.ErrNoSchema).
	NoSchema func(err error) bool
	// CheckIdent reports whether a name can name a database or table.
	CheckIdent func(name string) error
}

// Events are counters a dialect moves itself (see Engine.Counters).
type Events struct {
	AddToUpd    atomic.Int64 // add_to_upd: AddLink found the link and updated it
	UpdToAdd    atomic.Int64 // upd_to_add: UpdateLink (or a retried AddLink) found none and inserted it
	Killed      atomic.Int64 // killed: connections of abandoned statements killed on the server
	Cancelled   atomic.Int64 // cancelled: cancel requests sent for abandoned statements
	Reconnects  atomic.Int64 // reconnects: connections found lost, replaced by the next call
	BulkUpserts atomic.Int64 // bulk_upserts: bulk calls that took the upsert path
	// Ambiguous counts writes whose COMMIT lost its connection (outcome
	// unknown), and node deletes reported done because an attempt that
	// lost its connection may have deleted (Calls.WriteNode);
	// AmbiguousApplied those a read-back found committed.
	Ambiguous        atomic.Int64 // ambiguous
	AmbiguousApplied atomic.Int64 // ambiguous_applied
}

// counters are the engine's own counts.
type counters struct {
	retries    [NumOps]atomic.Int64
	maxRetries [NumOps]atomic.Int64
	failures   [NumOps]atomic.Int64
	transient  [NumOps]atomic.Int64

	mu   sync.Mutex
	errs map[string]int64 // error code or "conn" -> statements failed
}

// Engine is what every database view of one opened store shares: options,
// dialect, counters, views and the closed state.
type Engine struct {
	Config
	// Events are the dialect's counters.
	Events Events
	d      *Dialect
	red    Redactor
	inject func(string) error
	closed atomic.Bool
	ctr    counters

	mu      sync.Mutex // guards views (newView runs under it)
	views   map[string]store.Store
	newView func(name string) store.Store
	poolsMu sync.Mutex
	pools   []func() // the pools' closeIdle
}

// NewEngine returns the engine of a store opened with options o (a
// pointer to the dialect's options struct, defaulted by Defaults), dialect
// d, the redactor of its password, the fault-injection seam of its tests
// (nil: none; see Engine.Inject), and newView, which makes the view of a
// database (the dialect's Store, embedding a Pool of the engine).
func NewEngine(o any, d *Dialect, red Redactor, inject func(string) error, newView func(name string) store.Store) *Engine {
	e := &Engine{Config: configOf(o), d: d, red: red, inject: inject, views: map[string]store.Store{}, newView: newView}
	e.ctr.errs = map[string]int64{}
	return e
}

// Red returns the redactor of the store's password.
func (e *Engine) Red() Redactor { return e.red }

// Closed reports whether the store was closed.
func (e *Engine) Closed() bool { return e.closed.Load() }

// Check returns the error a call named what must return before doing
// anything: ctx's error or store.ErrClosed, wrapped.
func (e *Engine) Check(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %s: %w", e.d.Pkg, what, err)
	}
	if e.closed.Load() {
		return fmt.Errorf("%s: %s: %w", e.d.Pkg, what, store.ErrClosed)
	}
	return nil
}

// Enter is the start of a session's call o: ctx's error, or
// store.ErrClosed when the session (sessionClosed) or the store is
// closed.
func (e *Engine) Enter(ctx context.Context, o Op, sessionClosed bool) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %s: %w", e.d.Pkg, o, err)
	}
	if sessionClosed || e.closed.Load() {
		return fmt.Errorf("%s: %s: %w", e.d.Pkg, o, store.ErrClosed)
	}
	return nil
}

// Inject calls the store's fault-injection seam, if its tests set one,
// before step of call o: its label is "<Op>:<step>" ("AddLink:insert"); a
// non-nil result stands for that statement's error.
func (e *Engine) Inject(o Op, step string) error {
	if e.inject == nil {
		return nil
	}
	return e.inject(o.String() + ":" + step)
}

// View returns the view of database name, made on first use.
func (e *Engine) View(name string) store.Store {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, ok := e.views[name]
	if !ok {
		v = e.newView(name)
		e.views[name] = v
	}
	return v
}

// Made returns the view of database name if one was made, else nil.
func (e *Engine) Made(name string) store.Store {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.views[name]
}

// Close marks the store closed and closes the idle sessions of every
// view's pool. It reports whether this call closed it (false: it was
// closed already).
func (e *Engine) Close() bool {
	if e.closed.Swap(true) {
		return false
	}
	e.CloseIdle()
	return true
}

// CloseIdle closes the connections of the idle sessions of every view's
// pool (store.IdleCloser); they are opened again when needed.
func (e *Engine) CloseIdle() {
	e.poolsMu.Lock()
	pools := slices.Clone(e.pools)
	e.poolsMu.Unlock()
	for _, closeIdle := range pools {
		closeIdle()
	}
}

func (e *Engine) countErr(key string) {
	e.ctr.mu.Lock()
	e.ctr.errs[key]++
	e.ctr.mu.Unlock()
}

// Counters returns the store's non-zero counters, sorted by name
// (store.CounterSource): "retries.<Op>" (attempts after the first),
// "max_retries.<Op>" (most retries of one call), "failures.<Op>" (calls
// that returned an error other than a cancelled context), "transient.<Op>"
// (of those, the ones returned as *store.TransientError), the Events
// (add_to_upd, upd_to_add, killed, cancelled, reconnects, bulk_upserts,
// ambiguous, ambiguous_applied),
// "errors.<code>" (statements that failed with that server error code,
// injected errors included) and "errors.conn" (statements that failed on a
// lost or refused connection without one). Safe at any time, after Close
// too.
func (e *Engine) Counters() []store.Counter {
	var out []store.Counter
	add := func(name string, v int64) {
		if v != 0 {
			out = append(out, store.Counter{Name: name, Value: v})
		}
	}
	c := &e.ctr
	for o := range NumOps {
		add("retries."+o.String(), c.retries[o].Load())
		add("max_retries."+o.String(), c.maxRetries[o].Load())
		add("failures."+o.String(), c.failures[o].Load())
		add("transient."+o.String(), c.transient[o].Load())
	}
	ev := &e.Events
	add("add_to_upd", ev.AddToUpd.Load())
	add("upd_to_add", ev.UpdToAdd.Load())
	add("killed", ev.Killed.Load())
	add("cancelled", ev.Cancelled.Load())
	add("reconnects", ev.Reconnects.Load())
	add("bulk_upserts", ev.BulkUpserts.Load())
	add("ambiguous", ev.Ambiguous.Load())
	add("ambiguous_applied", ev.AmbiguousApplied.Load())
	c.mu.Lock()
	for k, v := range c.errs {
		add("errors."+k, v)
	}
	c.mu.Unlock()
	slices.SortFunc(out, func(a, b store.Counter) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Wrap returns err with the store's message prefix and the password
// redacted, as ddl and checks report their errors: "<pkg>: what: err";
// a missing schema is wrapped with store.ErrNoSchema too.
func (e *Engine) Wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return e.noSchema(e.red.Err(fmt.Errorf("%s: %s: %w", e.d.Pkg, what, err)), err)
}

// noSchema wraps wrapped with store.ErrNoSchema when cause says a schema
// is missing.
func (e *Engine) noSchema(wrapped, cause error) error {
	if e.d.NoSchema == nil || !e.d.NoSchema(cause) {
		return wrapped
	}
	return &noSchemaError{wrapped}
}

// noSchemaError is an error that also matches store.ErrNoSchema, with its
// message unchanged.
type noSchemaError struct{ error }

// Is matches store.ErrNoSchema.
func (e *noSchemaError) Is(target error) bool { return target == store.ErrNoSchema }

// Unwrap returns the error.
func (e *noSchemaError) Unwrap() error { return e.error }

// classedError is a failed call's error with the class the benchmark's
// report counts it under (its ErrorClass method): "<prefix> <code>", e.g.
// "mysql 1040" for too many connections, "sqlstate 53300" for too many
// clients.
type classedError struct {
	error
	class string
}

// ErrorClass returns the error's class for the benchmark's report.
func (e *classedError) ErrorClass() string { return e.class }

// Unwrap returns the error.
func (e *classedError) Unwrap() error { return e.error }

// classed wraps err with the class of server error code key ("" or
// "conn": err as it is).
func (e *Engine) classed(err error, key string) error {
	if key == "" || key == "conn" {
		return err
	}
	return &classedError{error: err, class: e.d.ClassPrefix + " " + key}
}
