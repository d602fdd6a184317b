package mysqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstoretest"
)

// TestAbandonedStatementKilled: a write whose context ends while it waits
// for a row lock held by another session is killed on the server: when
// the lock is released the write is not applied, and its connection slot
// is freed. Without the kill the server keeps the statement waiting and
// applies it once the lock goes (the client only closed its socket).
func TestAbandonedStatementKilled(t *testing.T) {
	s := newTestStore(t, InnoDB, nil)
	ctx := context.Background()
	n := store.Node{ID: 7, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: []byte("before")}
	if err := s.AddBulkNodes(ctx, []store.Node{n}); err != nil {
		t.Fatal(err)
	}
	// Another session holds the node's row lock.
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var id int64
	if err := tx.QueryRowContext(ctx, "SELECT id FROM "+quoteIdent(s.Name())+".nodetable WHERE id = 7 FOR UPDATE").Scan(&id); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	up := n
	up.Version, up.Data = 2, []byte("after")
	start := time.Now()
	_, err = sess.UpdateNode(cctx, up)
	cancel()
	if err == nil {
		t.Fatal("UpdateNode behind a row lock returned no error with a 300 ms context")
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("UpdateNode took %v with a 300 ms context", el)
	}
	if got := counter(s, "killed"); got < 1 {
		t.Errorf("killed counter %d, want >= 1", got)
	}
	time.Sleep(200 * time.Millisecond)
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	sqlstoretest.NotApplied(t, s)
	// No statement of this database is left waiting on the server.
	var waiting int
	if err := s.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO LIKE 'UPDATE%'",
		s.Name()).Scan(&waiting); err != nil {
		t.Fatal(err)
	}
	if waiting != 0 {
		t.Errorf("%d UPDATE statements still on the server", waiting)
	}
	// The session works again (a new connection).
	if _, err := sess.UpdateNode(ctx, up); err != nil {
		t.Fatalf("UpdateNode after the kill: %v", err)
	}
}
