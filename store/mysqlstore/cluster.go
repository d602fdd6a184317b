package mysqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// endpoint is one server the sessions connect to: the Store's only one,
// or a node of a multi-primary cluster.
type endpoint struct {
	// The sessions' connectors: reads with CLIENT_FOUND_ROWS, writes with
	// autocommit off.
	readConnector, writeConnector driver.Connector
	addr                          string // host:port or socket path, for logs
	killer                        killer // kills the statements of abandoned calls on this server
}

// CheckDSNList returns an error naming the position (1-based) of the first
// empty element of a DSN list ("DSN,,DSN", or a leading or trailing
// comma): a string with an empty element and another element that parses
// as a DSN with a network address is such a list (otherwise SplitDSN would
// take it whole, as one DSN whose password holds the rest). The error holds
// no part of the DSN. Open returns it; nil for anything else.
func CheckDSNList(dsn string) error {
	if !strings.Contains(dsn, ",") {
		return nil
	}
	parts := strings.Split(dsn, ",")
	empty, dsns := 0, 0
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			if empty == 0 {
				empty = i + 1
			}
			continue
		}
		if cfg, err := mysql.ParseDSN(p); err == nil && strings.Contains(p, "(") && cfg.Addr != "" {
			dsns++
		}
	}
	if empty > 0 && dsns > 0 {
		return fmt.Errorf("element %d of the DSN list (of %d comma-separated elements) is empty: want DSN,DSN,... without empty elements", empty, len(parts))
	}
	return nil
}

// SplitDSN splits a list of go-sql-driver DSNs separated by commas (the
// nodes of a cluster, "u:pw@tcp(h1:3306)/,u:pw@tcp(h2:3306)/") into its
// DSNs. A string that is not such a list (no comma, or a part that does
// not parse as a DSN with a network address, as when a parameter value
// holds a comma) is returned as its only element.
func SplitDSN(dsn string) []string {
	if !strings.Contains(dsn, ",") {
		return []string{dsn}
	}
	parts := strings.Split(dsn, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		cfg, err := mysql.ParseDSN(p)
		if err != nil || !strings.Contains(p, "(") || cfg.Addr == "" {
			return []string{dsn}
		}
		parts[i] = p
	}
	return parts
}

// endpoints returns the servers of list (the DSNs of Options.DSN; cfg is
// the driver's configuration of the first, red its redactor): each DSN's
// connectors, with the options and checks of the first. Every DSN must
// have the first's password (a redactor hides one).
func endpoints(o Options, cfg *mysql.Config, red sqlstore.Redactor, list []string) ([]endpoint, error) {
	eps := make([]endpoint, 0, len(list))
	for i, dsn := range list {
		c, pw := cfg, red.PW
		if i > 0 {
			oi := o
			oi.DSN = dsn
			var ri sqlstore.Redactor
			var err error
			if c, ri, err = driverConfig(&oi); err != nil {
				return nil, red.Err(ri.Err(err))
			}
			pw = ri.PW
		}
		if pw != red.PW {
			return nil, fmt.Errorf("mysqlstore: DSN %s: node %d has another password than the first: the nodes of a DSN list share the user and password", red.DSN, i+1)
		}
		if c.User != cfg.User {
			return nil, fmt.Errorf("mysqlstore: DSN %s: node %d has another user than the first: the nodes of a DSN list share the user and password", red.DSN, i+1)
		}
		rc, wc, err := sessionConnectors(c)
		if err != nil {
			return nil, red.Err(fmt.Errorf("mysqlstore: open %s: %w", red.DSN, err))
		}
		eps = append(eps, endpoint{readConnector: rc, writeConnector: wc, addr: c.Addr})
	}
	return eps, nil
}

// errRocksDBGalera refuses ROCKSDB tables on a Galera node.
var errRocksDBGalera = errors.New("mysqlstore: engine ROCKSDB on a Galera cluster (wsrep_on=1): Galera replicates InnoDB tables only; use engine=InnoDB")

// wsrepOn reports whether the first server replicates with Galera
// (@@wsrep_on = 1). A server without the variable (MySQL, a MariaDB built
// without wsrep) is not.
func (c *shared) wsrepOn(ctx context.Context) (bool, error) {
	var on int
	err := c.db.QueryRowContext(ctx, "SELECT @@wsrep_on").Scan(&on)
	var me *mysql.MySQLError
	switch {
	case errors.As(err, &me) && me.Number == erUnknownSystemVariable:
		return false, nil
	case err != nil:
		return false, c.red().Err(fmt.Errorf("mysqlstore: open %s: SELECT @@wsrep_on: %w", c.red().DSN, err))
	}
	return on == 1, nil
}

// certConflictError is a COMMIT that Galera refused with 1213: the
// transaction lost the certification against a concurrent one committed
// on another node (it was rolled back). It is retried as a deadlock and
// counted as errors.cert_conflict.
type certConflictError struct{ err error }

func (e *certConflictError) Error() string {
	return "certification conflict (Galera): " + e.err.Error()
}
func (e *certConflictError) Unwrap() error { return e.err }

// ambiguousError is a COMMIT whose outcome is unknown: the connection was
// lost after the COMMIT may have reached the server. The next attempt
// first reads back whether the write took effect.
type ambiguousError struct{ err error }

func (e *ambiguousError) Error() string {
	return "commit outcome unknown (connection lost during COMMIT): " + e.err.Error()
}
func (e *ambiguousError) Unwrap() error { return e.err }

// commitError classifies the error of a COMMIT: a 1213 on a Galera node is
// a certification conflict, a lost connection (that may have carried the
// COMMIT) an ambiguous commit, which the session remembers (ss.ambiguous)
// so that the next attempt reads back before writing again.
func (ss *Session) commitError(err error) error {
	var me *mysql.MySQLError
	switch {
	case errors.As(err, &me) && me.Number == erLockDeadlock && ss.v.c.galera:
		return &certConflictError{err}
	case isConn(err) && !unsent(err):
		ss.ambiguous = true
		ss.v.c.eng.Events.Ambiguous.Add(1)
		return &ambiguousError{err}
	}
	return err
}

// isConn reports whether err lost the connection.
func isConn(err error) bool {
	c, _ := classify(err)
	return c == classConn && !isNotReady(err)
}

// isNotReady reports whether err is Galera's "WSREP has not yet prepared
// node for application use" (1047): the node is up but not part of the
// primary component.
func isNotReady(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == erUnknownCom
}

// isNotPrimary reports whether err is 1180 (ER_ERROR_DURING_COMMIT), which
// a Galera node outside the primary component returns at commit. Unlike
// 1047 the write may have been replicated before the node lost the
// others: it counts as a lost connection (classConn, not unsent), so a
// link write's COMMIT is ambiguous (read back before any retry) and
// ADD_NODE is not retried.
func isNotPrimary(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == erErrorDuringCommit
}

// onFail runs after each failed attempt of a call (sqlstore.Calls.OnFail):
// on a node that is not ready (1047) or outside the primary component
// (1180) the session leaves it for the next node of the cluster.
func (ss *Session) onFail(err error) {
	if (isNotReady(err) || isNotPrimary(err)) && len(ss.v.c.eps) > 1 {
		ss.drop(connRead)
		ss.drop(connWrite)
		ss.moveOn(err)
	}
}

// moveOn moves the session to the next node of the cluster (its
// connections follow on their next use), counted as a reconnect.
func (ss *Session) moveOn(cause error) {
	c := ss.v.c
	from := ss.ep
	ss.ep = (ss.ep + 1) % len(c.eps)
	c.eng.Events.Reconnects.Add(1)
	c.log.Info("mysqlstore: session moves to another node", "from", c.eps[from].addr, "to", c.eps[ss.ep].addr,
		"err", c.red().Str(cause.Error()))
}

// movable reports whether a failed connection attempt should move the
// session to another node: the node refused or lost the connection, or is
// not ready.
func movable(err error) bool {
	c, _ := classify(err)
	return c == classConn
}

// readBackLink reports whether the link holds the values a write whose
// commit was ambiguous wrote (want; for a delete, deleted and expunged
// say what it did): the row read on the read connection, which on a
// Galera node first waits until the node applied what the cluster
// committed (wsrep_sync_wait=1).
func (ss *Session) readBackLink(ctx context.Context, o sqlstore.Op, want *store.Link, deleted, expunged bool) (applied bool, err error) {
	c, err := ss.conn(ctx, connRead)
	if err != nil {
		return false, err
	}
	if ss.v.c.galera {
		if _, err := c.execText(ctx, "SET SESSION wsrep_sync_wait=1"); err != nil {
			ss.after(c, err)
			return false, err
		}
		defer func() {
			if _, err := c.execText(ctx, "SET SESSION wsrep_sync_wait=0"); err != nil {
				ss.drop(connRead)
			}
		}()
	}
	var got store.Link
	found, err := ss.read(ctx, o, "readback", sGetLink, true,
		func(d []driver.Value) error { return scanLink(d, &got) }, want.ID1, want.LinkType, want.ID2)
	if err != nil {
		return false, err
	}
	if deleted {
		if expunged {
			return !found, nil
		}
		return found && got.Visibility == store.VisibilityHidden, nil
	}
	return found && got.Visibility == want.Visibility && got.Version == want.Version &&
		got.Time == want.Time && string(got.Data) == string(want.Data), nil
}

// resolveAmbiguous is the start of an attempt of a link write after one
// whose commit was ambiguous: it reads back whether that commit took
// effect (counted as ambiguous_applied when it did: the call is then done,
// not written again).
func (ss *Session) resolveAmbiguous(ctx context.Context, o sqlstore.Op, want *store.Link, deleted, expunged bool) (done bool, err error) {
	if !ss.ambiguous {
		return false, nil
	}
	applied, err := ss.readBackLink(ctx, o, want, deleted, expunged)
	if err != nil {
		return false, err
	}
	ss.ambiguous = false
	if applied {
		ss.v.c.eng.Events.AmbiguousApplied.Add(1)
	}
	return applied, nil
}

// awaitNodes waits, on a Galera cluster of several endpoints, until every
// node applied the DDL just run on the first (Galera runs it on the
// others a little later): on each node, a read of the three tables with
// wsrep_sync_wait=1, which waits until the node applied what the cluster
// committed before it. A node that refuses the connection is skipped.
func (s *Store) awaitNodes(ctx context.Context, q *queries) error {
	c := s.c
	if !c.galera || len(c.eps) < 2 {
		return nil
	}
	for i := 1; i < len(c.eps); i++ {
		cn, err := c.connect(ctx, connRead, i)
		if err != nil && movable(err) {
			continue // a node down gets the DDL when it rejoins
		}
		if err != nil {
			return fmt.Errorf("node %s: %w", c.eps[i].addr, err)
		}
		for _, st := range []string{"SET SESSION wsrep_sync_wait=1",
			"SELECT 1 FROM " + q.link + " LIMIT 0", "SELECT 1 FROM " + q.cnt + " LIMIT 0", "SELECT 1 FROM " + q.node + " LIMIT 0"} {
			if strings.HasPrefix(st, "SET") {
				_, err = cn.execText(ctx, st)
			} else {
				var rows driver.Rows
				if rows, err = cn.queryText(ctx, st); err == nil {
					err = rows.Close()
				}
			}
			if err != nil {
				cn.close()
				return fmt.Errorf("node %s: %s: %w", c.eps[i].addr, st, err)
			}
		}
		cn.close()
	}
	return nil
}
