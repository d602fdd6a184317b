package mysqlstore

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/store"
)

// statusVars are the server's per-connection statement counters the
// statement test compares (SHOW SESSION STATUS).
var statusVars = []string{"Com_begin", "Com_stmt_execute", "Com_commit", "Com_rollback",
	"Com_select", "Com_insert", "Com_update", "Com_delete", "Com_delete_multi"}

// stmts is a per-path statement count: the values of statusVars, in order.
type stmts [9]int64

func (s stmts) String() string {
	var b strings.Builder
	for i, v := range s {
		if v != 0 {
			fmt.Fprintf(&b, " %s=%d", strings.TrimPrefix(statusVars[i], "Com_"), v)
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()[1:]
}

// sessionStatus returns the statement counters of the session's two
// connections, summed. SHOW SESSION STATUS counts only as Com_show_status.
func sessionStatus(t *testing.T, ss *Session) stmts {
	t.Helper()
	ctx := context.Background()
	var out stmts
	q := "SHOW SESSION STATUS WHERE Variable_name IN ('" + strings.Join(statusVars, "','") + "')"
	for _, k := range []connKind{connRead, connWrite} {
		c, err := ss.conn(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := c.queryText(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		err = scanAll(c, rows, 2, func(d []driver.Value) error {
			name := string(d[0].([]byte))
			v, err := asInt64(d[1])
			for i, n := range statusVars {
				if strings.EqualFold(n, name) {
					out[i] += v
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestStatementsPerPath drives every path of every operation on a session
// and checks the statements the server counted on the session's
// connections against MD's LinkStoreSql (reference §3.3), per engine. The
// expected counts are the reference's statement sequences; the server
// counts a statement when it runs it, whether it succeeds (a duplicate-key
// INSERT is a Com_insert), and a prepared statement's execution both as
// Com_stmt_execute and as its kind. The documented differences from MD:
// expunging a hidden link sends no count update (the fix of reference
// §11.2-6), and on ROCKSDB the expunging DELETE is the multi-table form
// that forces the primary key (Com_delete_multi).
func TestStatementsPerPath(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		s := newTestStore(t, e, func(o *Options) { o.BulkInsertCount = 4 })
		ctx := context.Background()
		sess, err := s.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ss := sess.(*Session)
		defer ss.Close()

		vis := func(id2 int64, data string) store.Link {
			return mkLink(1, id2, store.VisibilityDefault, data, 100+id2)
		}
		hidden := func(id2 int64, data string) store.Link {
			return mkLink(1, id2, store.VisibilityHidden, data, 100+id2)
		}
		unchanged := stmts{0, 3, 0, 2, 1, 1, 1, 0, 0} // MD: LINK_NO_CHANGE from 0 affected rows, ROLLBACK
		if e == RocksDB {
			// ROCKSDB reports the unchanged row as changed: COMMIT.
			unchanged = stmts{0, 3, 1, 1, 1, 1, 1, 0, 0}
		}
		expungeVisible := stmts{0, 3, 1, 0, 1, 0, 1, 1, 0}
		expungeHidden := stmts{0, 2, 1, 0, 1, 0, 0, 1, 0}
		if e == RocksDB {
			expungeVisible = stmts{0, 3, 1, 0, 1, 0, 1, 0, 1}
			expungeHidden = stmts{0, 2, 1, 0, 1, 0, 0, 0, 1}
		}
		links := make([]store.Link, 0, 8)
		nodes := []store.Node{{ID: 1, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: []byte("n1")}}
		steps := []struct {
			path string
			do   func() error
			want stmts // Com_: begin, stmt_execute, commit, rollback, select, insert, update, delete, delete_multi
		}{
			// addLink insert path: S-ins-link, S-cnt-upsert, COMMIT.
			{"AddLink new visible", func() error { _, err := ss.AddLink(ctx, vis(1, "a"), true); return err },
				stmts{0, 2, 1, 0, 0, 2, 0, 0, 0}},
			{"AddLink new hidden", func() error { _, err := ss.AddLink(ctx, hidden(2, "a"), true); return err },
				stmts{0, 2, 1, 0, 0, 2, 0, 0, 0}},
			// Duplicate: ROLLBACK, then S-lock, S-upd-link, COMMIT.
			{"AddLink existing, changed", func() error { _, err := ss.AddLink(ctx, vis(1, "b"), true); return err },
				stmts{0, 3, 1, 1, 1, 1, 1, 0, 0}},
			// ... plus S-cnt-inc when the visibility changes.
			{"AddLink existing, unhidden", func() error { _, err := ss.AddLink(ctx, vis(2, "a"), true); return err },
				stmts{0, 4, 1, 1, 1, 1, 2, 0, 0}},
			{"AddLink existing, unchanged", func() error { _, err := ss.AddLink(ctx, vis(2, "a"), true); return err },
				unchanged},
			// updateLink: S-lock, S-upd-link, COMMIT.
			{"UpdateLink existing, changed", func() error { _, err := ss.UpdateLink(ctx, vis(1, "c"), true); return err },
				stmts{0, 2, 1, 0, 1, 0, 1, 0, 0}},
			{"UpdateLink existing, hidden", func() error { _, err := ss.UpdateLink(ctx, hidden(1, "c"), true); return err },
				stmts{0, 3, 1, 0, 1, 0, 2, 0, 0}},
			// Missing: S-lock, ROLLBACK, then the insert path.
			{"UpdateLink missing", func() error { _, err := ss.UpdateLink(ctx, vis(3, "a"), true); return err },
				stmts{0, 3, 1, 1, 1, 2, 0, 0, 0}},
			// deleteLink: S-lock; ROLLBACK when absent or hidden (not
			// expunged); else S-hide or S-del, S-cnt-inc when visible, COMMIT.
			{"DeleteLink absent", func() error { _, err := ss.DeleteLink(ctx, 1, lt, 99, true, false); return err },
				stmts{0, 1, 0, 1, 1, 0, 0, 0, 0}},
			{"DeleteLink hidden", func() error { _, err := ss.DeleteLink(ctx, 1, lt, 1, true, false); return err },
				stmts{0, 1, 0, 1, 1, 0, 0, 0, 0}},
			{"DeleteLink visible", func() error { _, err := ss.DeleteLink(ctx, 1, lt, 2, true, false); return err },
				stmts{0, 3, 1, 0, 1, 0, 2, 0, 0}},
			{"DeleteLink expunge visible", func() error { _, err := ss.DeleteLink(ctx, 1, lt, 3, true, true); return err },
				expungeVisible},
			{"DeleteLink expunge hidden", func() error { _, err := ss.DeleteLink(ctx, 1, lt, 2, true, true); return err },
				expungeHidden},
			{"DeleteLink expunge absent", func() error { _, err := ss.DeleteLink(ctx, 1, lt, 2, true, true); return err },
				stmts{0, 1, 0, 1, 1, 0, 0, 0, 0}},
			// Reads on the autocommit connection; the multiget is a literal
			// (text) statement, not an execution of a prepared one.
			{"GetLink", func() error { _, _, err := ss.GetLink(ctx, 1, lt, 1); return err },
				stmts{0, 1, 0, 0, 1, 0, 0, 0, 0}},
			{"MultigetLinks", func() error { _, err := ss.MultigetLinks(ctx, 1, lt, []int64{1, 2, 3}, links[:0]); return err },
				stmts{0, 0, 0, 0, 1, 0, 0, 0, 0}},
			{"GetLinkList", func() error { _, err := ss.GetLinkList(ctx, store.FullRange(1, lt), links[:0]); return err },
				stmts{0, 1, 0, 0, 1, 0, 0, 0, 0}},
			{"CountLinks", func() error { _, err := ss.CountLinks(ctx, 1, lt); return err },
				stmts{0, 1, 0, 0, 1, 0, 0, 0, 0}},
			// Node operations: one autocommit statement each.
			{"ResetNodeStore", func() error { return ss.ResetNodeStore(ctx, 1) }, stmts{}},
			{"AddBulkNodes", func() error { return ss.AddBulkNodes(ctx, nodes) }, stmts{0, 1, 0, 0, 0, 1, 0, 0, 0}},
			{"AddNode", func() error { _, err := ss.AddNode(ctx, nodes[0]); return err }, stmts{0, 1, 0, 0, 0, 1, 0, 0, 0}},
			{"GetNode", func() error { _, _, err := ss.GetNode(ctx, store.DefaultNodeType, 1); return err },
				stmts{0, 1, 0, 0, 1, 0, 0, 0, 0}},
			{"UpdateNode found", func() error {
				n := nodes[0]
				n.Version = 2
				_, err := ss.UpdateNode(ctx, n)
				return err
			}, stmts{0, 1, 0, 0, 0, 0, 1, 0, 0}},
			{"UpdateNode unchanged", func() error {
				n := nodes[0]
				n.Version = 2
				if found, err := ss.UpdateNode(ctx, n); err != nil || !found {
					return fmt.Errorf("unchanged node not found: %v", err)
				}
				return nil
			}, stmts{0, 1, 0, 0, 0, 0, 1, 0, 0}},
			{"UpdateNode missing", func() error {
				_, err := ss.UpdateNode(ctx, store.Node{ID: 99, Type: store.DefaultNodeType})
				return err
			},
				stmts{0, 1, 0, 0, 0, 0, 1, 0, 0}},
			{"DeleteNode", func() error { _, err := ss.DeleteNode(ctx, store.DefaultNodeType, 1); return err },
				stmts{0, 1, 0, 0, 0, 0, 0, 1, 0}},
			// Bulk loads: one multi-row INSERT on the autocommit connection.
			{"AddBulkLinks", func() error {
				return ss.AddBulkLinks(ctx, []store.Link{vis(10, "x"), vis(11, "x"), vis(12, "x"), vis(13, "x")}, true)
			}, stmts{0, 1, 0, 0, 0, 1, 0, 0, 0}},
			{"AddBulkCounts", func() error {
				return ss.AddBulkCounts(ctx, []store.LinkCount{{ID1: 1, LinkType: lt, Count: 4}})
			}, stmts{0, 1, 0, 0, 0, 1, 0, 0, 0}},
		}
		for _, st := range steps {
			before := sessionStatus(t, ss)
			if err := st.do(); err != nil {
				t.Fatalf("%s: %v", st.path, err)
			}
			after := sessionStatus(t, ss)
			var got stmts
			for i := range got {
				got[i] = after[i] - before[i]
			}
			if got != st.want {
				t.Errorf("%s: the server counted %v, want %v", st.path, got, st.want)
			}
		}
		checkCountsClean(t, s)
	})
}
