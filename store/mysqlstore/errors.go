package mysqlstore

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strconv"
	"syscall"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// dialect is MySQL's for the engine: error numbers, messages' prefix.
var dialect = sqlstore.Dialect{Pkg: "mysqlstore", DBKey: "db", ClassPrefix: "mysql",
	Classify: classify, Unsent: unsent, NoSchema: noSchema, CheckIdent: checkIdent}

// The MySQL dialect's error classes: what a failed statement allows.
type errClass = sqlstore.Class

const (
	classFatal = sqlstore.Fatal // returned as it is
	classRetry = sqlstore.Retry // deadlock or lock wait timeout: rolled back, retry
	classConn  = sqlstore.Conn  // connection lost or refused: retry if safe
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
	erBadDB            = 1049 // ER_BAD_DB_ERROR: unknown database
	erNoSuchTable      = 1146 // ER_NO_SUCH_TABLE
	// erUnknownCom is ER_UNKNOWN_COM_ERROR, which a Galera node outside
	// the primary component returns for every statement ("WSREP has not
	// yet prepared node for application use"): nothing was done.
	erUnknownCom = 1047
	// erErrorDuringCommit is ER_ERROR_DURING_COMMIT, which a Galera node
	// that lost the primary component (seen with two of three nodes
	// killed: "Not connected to Primary Component") returns for a commit,
	// explicit or autocommit.
	erErrorDuringCommit     = 1180
	erUnknownSystemVariable = 1193 // ER_UNKNOWN_SYSTEM_VARIABLE
)

// certConflictKey is the counter key of a Galera certification conflict
// (a 1213 at COMMIT on a Galera node): errors.cert_conflict.
const certConflictKey = "cert_conflict"

// classify returns err's class and its counter key (the MySQL error number,
// "conn", or "" when it is neither).
func classify(err error) (errClass, string) {
	var ce *certConflictError
	if errors.As(err, &ce) {
		return classRetry, certConflictKey
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		key := strconv.Itoa(int(me.Number))
		switch me.Number {
		case erLockDeadlock, erLockWaitTimeout:
			return classRetry, key
		case erServerShutdown, erConnectionKilled, erClientInactive, crServerGone, crServerLost, erUnknownCom, erErrorDuringCommit:
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
	if isNotReady(err) {
		return true // a node not ready refuses every statement
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// noSchema reports whether err is MySQL's unknown database (1049) or
// unknown table (1146): the store wraps it with store.ErrNoSchema.
func noSchema(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == erBadDB || me.Number == erNoSuchTable)
}

// isDup reports whether err is a duplicate-key error.
func isDup(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == erDupEntry
}

// Counter is a named event count of a Store since Open (all its database
// views together), as Counters returns them (store.CounterSource).
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
// errors.1213 for deadlocks) and "errors.conn" (statements that failed on
// a lost or refused connection). On a cluster (Galera): "errors.cert_conflict"
// (COMMITs refused with 1213 by Galera's certification: retried as
// deadlocks), "errors.1047" (statements refused by a node not ready: the
// session moves to the next node), "errors.1180" (commits refused by a
// node outside the primary component: the session moves to the next node;
// a link write's outcome is then read back as for "ambiguous"),
// "reconnects" (sessions that moved to another node: refused connections,
// 1047 or 1180), "ambiguous" (link writes whose COMMIT lost its
// connection: outcome unknown; and node deletes whose statement lost its
// connection and whose retry found no node, reported as done) and
// "ambiguous_applied" (of those, the ones a read-back found committed,
// so the write was not sent again).
type Counter = store.Counter
