package pgstore

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// Counter is a named event count of a Store since Open (all its schema
// views and sessions together), as Counters returns them
// (store.CounterSource).
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
// deadlocks; a duplicate key on AddLink's insert is not an error, it is
// add_to_upd) and "errors.conn" (round trips that failed on a lost or
// refused connection without a SQLSTATE).
type Counter = store.Counter

// The PostgreSQL dialect's error classes: what a failed round trip
// allows.
type errClass = sqlstore.Class

const (
	classFatal = sqlstore.Fatal // returned as it is
	classRetry = sqlstore.Retry // serialization failure or deadlock: rolled back, retry
	classConn  = sqlstore.Conn  // connection lost or refused: reconnect, retry if safe
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

// missingTable reports whether err says a table or schema does not exist
// (42P01, 3F000): the store wraps it with store.ErrNoSchema, and a
// session's statements are then prepared at their first use, after
// CreateSchema.
func missingTable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == stateUndefinedTab || pe.Code == stateInvalidSchema)
}
