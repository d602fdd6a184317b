package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/linkbench-go/linkbench/store"
)

const lt = store.DefaultLinkType

func mkLink(id1, id2 int64, vis store.Visibility, data string, tm int64) store.Link {
	return store.Link{ID1: id1, LinkType: lt, ID2: id2, Visibility: vis, Data: []byte(data), Time: tm}
}

// stmtLabels names the prepared statements as the reference does.
var stmtLabels = [numStmts]string{
	sBegin: "BEGIN", sCommit: "COMMIT", sRollback: "ROLLBACK", sInsLink: "S-ins-link", sCntUpsert: "S-cnt-upsert",
	sLock: "S-lock", sUpdLink: "S-upd-link", sCntInc: "S-cnt-inc", sHide: "S-hide", sDelLink: "S-del",
	sGetLink: "S-get", sMultiget: "S-multiget", sRange: "S-range", sCount: "S-count", sInsNode: "S-ins-node",
	sGetNode: "S-get-node", sUpdNode: "S-upd-node", sDelNode: "S-del-node",
}

// normalize replaces parameters and integer constants by "?", as
// pg_stat_statements replaces constants by parameters.
var normalizeRE = regexp.MustCompile(`\$\d+|\b\d+\b`)

// label returns the reference's name of a statement pg_stat_statements
// recorded (its normalised text).
func label(q *queries, text string) string {
	text = strings.TrimSpace(text)
	norm := normalizeRE.ReplaceAllString(text, "?")
	for i, t := range q.text {
		if norm == normalizeRE.ReplaceAllString(t, "?") && stmtLabels[i] != "" {
			return stmtLabels[i]
		}
	}
	up := strings.ToUpper(text)
	for _, p := range []string{"BEGIN", "COMMIT", "ROLLBACK", "TRUNCATE", "ALTER SEQUENCE", "COPY", "CREATE TEMPORARY"} {
		if strings.HasPrefix(up, p) {
			return p
		}
	}
	switch {
	case strings.Contains(text, "setval("):
		return "setval"
	case strings.Contains(text, "pg_get_serial_sequence"):
		return "pg_get_serial_sequence"
	case strings.HasPrefix(up, "INSERT INTO") && strings.Contains(up, "SELECT"):
		return "upsert-move"
	}
	return text
}

// stmtCounts is statement label -> executions.
type stmtCounts map[string]int64

func (m stmtCounts) String() string {
	var parts []string
	for k, v := range m {
		if v != 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", k, v))
		}
	}
	slices.Sort(parts)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// want parses "A=1 B=2" (or "none").
func want(s string) string {
	if s == "none" {
		return s
	}
	f := strings.Fields(s)
	slices.Sort(f)
	return strings.Join(f, " ")
}

// statementRole creates a login role that may use schema, for a store
// whose statements pg_stat_statements can tell from everybody else's (it
// keys its counts by user), and returns the DSN of that role. The role is
// dropped when the test ends.
func statementRole(t *testing.T, admin *Store) string {
	t.Helper()
	ctx := context.Background()
	role := fmt.Sprintf("lbt_stmt_%d_%08x", os.Getpid(), rand.Uint32())
	schema := quoteIdent(admin.Name())
	err := admin.admin(ctx, opSchema, func(c *conn) error {
		return c.exec(ctx, "CREATE ROLE "+role+" LOGIN; GRANT USAGE ON SCHEMA "+schema+" TO "+role+
			"; GRANT ALL ON ALL TABLES IN SCHEMA "+schema+" TO "+role+
			"; GRANT ALL ON ALL SEQUENCES IN SCHEMA "+schema+" TO "+role+
			// ALTER SEQUENCE (ResetNodeStore) needs the owner.
			"; ALTER TABLE "+admin.q.node+" OWNER TO "+role)
	})
	if err != nil {
		t.Fatalf("create role: %v", err)
	}
	t.Cleanup(func() {
		_ = admin.admin(context.Background(), opSchema, func(c *conn) error {
			return c.exec(context.Background(), "DROP OWNED BY "+role+"; DROP ROLE "+role)
		})
	})
	u, err := url.Parse(testDSN(t))
	if err != nil {
		t.Skipf("statement test needs a URL DSN: %v", err)
	}
	u.User = url.User(role)
	return u.String()
}

// requireStatements skips (fails in CI) when pg_stat_statements is not
// installed in the test database.
func requireStatements(t *testing.T, admin *Store) {
	t.Helper()
	ctx := context.Background()
	err := admin.admin(ctx, opSchema, func(c *conn) error {
		_, err := c.pc.Exec(ctx, "SELECT 1 FROM pg_stat_statements LIMIT 1")
		return err
	})
	if err == nil {
		return
	}
	msg := "pg_stat_statements is not available in the test database (load it with shared_preload_libraries " +
		"and CREATE EXTENSION pg_stat_statements; .ci/postgres.sh does both): " + err.Error()
	if os.Getenv(envCI) == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// TestStatementsPerPath drives every path of every operation on a session
// and checks, per path, the statements the server executed for the
// session's role (pg_stat_statements, keyed by user) against MD's
// LinkStorePgsql (reference §3.3, §3.5), and the round trips (network
// writes of the session's connection) against the package documentation.
// pg_stat_statements records a statement when it completes: the INSERT
// that fails with a duplicate key on AddLink's existing-link path is not
// there (its BEGIN and the ROLLBACK that ends its failed transaction are),
// and is checked through the add_to_upd counter instead. The documented
// differences from MD: a link made visible counts +1 with S-cnt-upsert,
// expunging a hidden link sends no count update (§11.2-6), and bulk loads
// are COPY.
func TestStatementsPerPath(t *testing.T) {
	admin := newTestStore(t, nil)
	requireStatements(t, admin)
	dsn := statementRole(t, admin)
	ctx := context.Background()
	s, err := Open(ctx, Options{DSN: dsn, Schema: admin.Name()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var writes atomic.Int64
	s.c.cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: nc, writes: &writes}, nil
	}
	sess, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ss := sess.(*Session)
	defer ss.Close()
	var roleOID uint32
	if err := ss.c.pc.QueryRow(ctx, "SELECT oid FROM pg_roles WHERE rolname = current_user").Scan(&roleOID); err != nil {
		t.Fatal(err)
	}
	snapshot := func() stmtCounts {
		t.Helper()
		m := stmtCounts{}
		err := admin.admin(ctx, opSchema, func(c *conn) error {
			rows, err := c.pc.Query(ctx, "SELECT query, calls FROM pg_stat_statements "+
				"WHERE userid = $1 AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())", roleOID)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var q string
				var n int64
				if err := rows.Scan(&q, &n); err != nil {
					return err
				}
				m[label(ss.v.q, q)] += n
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}

	vis := func(id2 int64, data string) store.Link { return mkLink(1, id2, store.VisibilityDefault, data, 100+id2) }
	hidden := func(id2 int64, data string) store.Link { return mkLink(1, id2, store.VisibilityHidden, data, 100+id2) }
	links := make([]store.Link, 0, 8)
	nodes := []store.Node{{ID: 1, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: []byte("n1")}}
	steps := []struct {
		path   string
		do     func() error
		want   string
		rtt    int64 // network writes (round trips); -1: not checked
		addUpd int64 // add_to_upd increments
	}{
		// addLink insert path: one batch.
		{"AddLink new visible", func() error { _, err := ss.AddLink(ctx, vis(1, "a"), true); return err },
			"BEGIN=1 S-ins-link=1 S-cnt-upsert=1 COMMIT=1", 1, 0},
		{"AddLink new hidden", func() error { _, err := ss.AddLink(ctx, hidden(2, "a"), true); return err },
			"BEGIN=1 S-ins-link=1 S-cnt-upsert=1 COMMIT=1", 1, 0},
		// Duplicate: the failed insert's transaction is rolled back with
		// the update path's first batch; S-lock, then S-upd-link, COMMIT.
		{"AddLink existing, changed", func() error { _, err := ss.AddLink(ctx, vis(1, "b"), true); return err },
			"BEGIN=2 ROLLBACK=1 S-lock=1 S-upd-link=1 COMMIT=1", 3, 1},
		// ... plus the count's +1 when a hidden link becomes visible.
		{"AddLink existing, unhidden", func() error { _, err := ss.AddLink(ctx, vis(2, "a"), true); return err },
			"BEGIN=2 ROLLBACK=1 S-lock=1 S-upd-link=1 S-cnt-upsert=1 COMMIT=1", 3, 1},
		{"AddLink existing, unchanged", func() error { _, err := ss.AddLink(ctx, vis(2, "a"), true); return err },
			"BEGIN=2 ROLLBACK=1 S-lock=1 S-upd-link=1 COMMIT=1", 3, 1},
		// updateLink: S-lock, S-upd-link, COMMIT; -1 when it hides.
		{"UpdateLink existing, changed", func() error { _, err := ss.UpdateLink(ctx, vis(1, "c"), true); return err },
			"BEGIN=1 S-lock=1 S-upd-link=1 COMMIT=1", 2, 0},
		{"UpdateLink existing, hidden", func() error { _, err := ss.UpdateLink(ctx, hidden(1, "c"), true); return err },
			"BEGIN=1 S-lock=1 S-upd-link=1 S-cnt-inc=1 COMMIT=1", 2, 0},
		// Missing: S-lock finds nothing; ROLLBACK rides with the insert path.
		{"UpdateLink missing", func() error { _, err := ss.UpdateLink(ctx, vis(3, "a"), true); return err },
			"BEGIN=2 S-lock=1 ROLLBACK=1 S-ins-link=1 S-cnt-upsert=1 COMMIT=1", 2, 0},
		// deleteLink: S-lock; ROLLBACK when absent or hidden (not
		// expunged); else S-hide or S-del, S-cnt-inc when visible, COMMIT.
		{"DeleteLink absent", func() error { _, err := ss.DeleteLink(ctx, 1, lt, 99, true, false); return err },
			"BEGIN=1 S-lock=1 ROLLBACK=1", 2, 0},
		{"DeleteLink hidden", func() error { _, err := ss.DeleteLink(ctx, 1, lt, 1, true, false); return err },
			"BEGIN=1 S-lock=1 ROLLBACK=1", 2, 0},
		{"DeleteLink visible", func() error { _, err := ss.DeleteLink(ctx, 1, lt, 2, true, false); return err },
			"BEGIN=1 S-lock=1 S-hide=1 S-cnt-inc=1 COMMIT=1", 2, 0},
		{"DeleteLink expunge visible", func() error { _, err := ss.DeleteLink(ctx, 1, lt, 3, true, true); return err },
			"BEGIN=1 S-lock=1 S-del=1 S-cnt-inc=1 COMMIT=1", 2, 0},
		{"DeleteLink expunge hidden", func() error { _, err := ss.DeleteLink(ctx, 1, lt, 2, true, true); return err },
			"BEGIN=1 S-lock=1 S-del=1 COMMIT=1", 2, 0},
		{"DeleteLink expunge absent", func() error { _, err := ss.DeleteLink(ctx, 1, lt, 2, true, true); return err },
			"BEGIN=1 S-lock=1 ROLLBACK=1", 2, 0},
		// Reads: one statement each, outside any transaction block.
		{"GetLink", func() error { _, _, err := ss.GetLink(ctx, 1, lt, 1); return err }, "S-get=1", 1, 0},
		{"MultigetLinks", func() error { _, err := ss.MultigetLinks(ctx, 1, lt, []int64{1, 2, 3, 1}, links[:0]); return err },
			"S-multiget=1", 1, 0},
		{"GetLinkList", func() error { _, err := ss.GetLinkList(ctx, store.FullRange(1, lt), links[:0]); return err },
			"S-range=1", 1, 0},
		{"CountLinks", func() error { _, err := ss.CountLinks(ctx, 1, lt); return err }, "S-count=1", 1, 0},
		// Node operations: one autocommit statement each; the reset is
		// MD's TRUNCATE and ALTER SEQUENCE (plus, once per connection, the
		// lookup of the sequence's name).
		{"ResetNodeStore", func() error { return ss.ResetNodeStore(ctx, 1) },
			"pg_get_serial_sequence=1 TRUNCATE=1 ALTER SEQUENCE=1", 3, 0},
		{"AddBulkNodes", func() error { return ss.AddBulkNodes(ctx, nodes) }, "COPY=1 setval=1", -1, 0},
		{"AddNode", func() error { _, err := ss.AddNode(ctx, nodes[0]); return err }, "S-ins-node=1", 1, 0},
		{"GetNode", func() error { _, _, err := ss.GetNode(ctx, store.DefaultNodeType, 1); return err }, "S-get-node=1", 1, 0},
		{"UpdateNode found", func() error {
			n := nodes[0]
			n.Version = 2
			if found, err := ss.UpdateNode(ctx, n); err != nil || !found {
				return fmt.Errorf("node not found: %v", err)
			}
			return nil
		}, "S-upd-node=1", 1, 0},
		{"UpdateNode missing", func() error {
			_, err := ss.UpdateNode(ctx, store.Node{ID: 99, Type: store.DefaultNodeType})
			return err
		}, "S-upd-node=1", 1, 0},
		{"DeleteNode", func() error { _, err := ss.DeleteNode(ctx, store.DefaultNodeType, 1); return err }, "S-del-node=1", 1, 0},
		// Bulk loads: one COPY; a re-load (duplicate keys) takes the upsert path.
		{"AddBulkLinks", func() error {
			return ss.AddBulkLinks(ctx, []store.Link{mkLink(5, 10, 1, "x", 1), mkLink(5, 11, 1, "x", 1),
				mkLink(5, 12, 1, "x", 1), mkLink(5, 13, 1, "x", 1)}, true)
		}, "COPY=1", -1, 0},
		{"AddBulkCounts", func() error {
			return ss.AddBulkCounts(ctx, []store.LinkCount{{ID1: 5, LinkType: lt, Count: 4}})
		}, "COPY=1", -1, 0},
		// The COPY that fails on a duplicate key is not recorded; the
		// upsert path's COPY into the temporary table is.
		{"AddBulkLinks re-load", func() error {
			return ss.AddBulkLinks(ctx, []store.Link{mkLink(5, 10, 1, "y", 2), mkLink(5, 11, 1, "y", 2)}, true)
		}, "COPY=1 CREATE TEMPORARY=1 BEGIN=1 upsert-move=1 COMMIT=1", -1, 0},
	}
	for _, st := range steps {
		before, w0, au0 := snapshot(), writes.Load(), counter(s, "add_to_upd")
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.path, err)
		}
		w1, au1 := writes.Load(), counter(s, "add_to_upd")
		after := snapshot()
		got := stmtCounts{}
		for k, v := range after {
			got[k] = v - before[k]
		}
		if g, w := got.String(), want(st.want); g != w {
			t.Errorf("%s: the server ran %s, want %s", st.path, g, w)
		}
		if st.rtt >= 0 && w1-w0 != st.rtt {
			t.Errorf("%s: %d round trips, want %d", st.path, w1-w0, st.rtt)
		}
		if au1-au0 != st.addUpd {
			t.Errorf("%s: add_to_upd grew by %d, want %d", st.path, au1-au0, st.addUpd)
		}
	}
	if n := counter(s, "bulk_upserts"); n != 1 {
		t.Errorf("bulk_upserts = %d, want 1 (the re-load)", n)
	}
	checkCountsClean(t, admin)
}

// countingConn counts the writes of a network connection: one per round
// trip of the store's paths (each sends its batch with one write).
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// errorsIsPg reports whether err wraps a *pgconn.PgError with code.
func errorsIsPg(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}
