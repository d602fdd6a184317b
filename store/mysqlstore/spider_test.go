package mysqlstore

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/linkbench-go/linkbench/internal/testdb"
	"github.com/linkbench-go/linkbench/store"
)

// spiderStore creates a fresh Spider schema (database lbsp_<name>_<pid>)
// through the test head and returns a Store on it and a session; the
// schema is dropped at the end.
func spiderStore(t *testing.T, name string) (*Store, *Session) {
	t.Helper()
	head, nodes, _ := testdb.Spider(t)
	ctx := context.Background()
	db := fmt.Sprintf("lbsp_%s_%d", name, os.Getpid())
	s, err := Open(ctx, Options{DSN: head, Database: db, Engine: Spider, SpiderDataNodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.DropSchema(ctx, db); err != nil {
			t.Logf("cleanup: %v", err)
		}
		s.Close()
	})
	if err := s.CreateSchema(ctx, db, SchemaOptions{}); err != nil {
		t.Fatal(err)
	}
	x, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return s, x.(*Session)
}

// TestSpiderWriteResults: through a Spider head (which reports 0 affected
// rows for every DELETE) each write reports what it did: DeleteNode and an
// expunging DeleteLink find an existing row and not a missing one,
// UpdateNode finds a node whose values are unchanged, AddLink tells an
// insert from an update and a no-change, UpdateLink of a missing link
// inserts it, a hiding DeleteLink finds the link once; counts follow.
func TestSpiderWriteResults(t *testing.T) {
	_, ss := spiderStore(t, "wr")
	ctx := context.Background()
	id, err := ss.AddNode(ctx, store.Node{Type: 7, Version: 1, Time: 1, Data: []byte("a")})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, got, want bool, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got != want {
			t.Errorf("%s: found = %v, want %v", what, got, want)
		}
	}
	found, err := ss.UpdateNode(ctx, store.Node{ID: id, Type: 7, Version: 2, Time: 1, Data: []byte("a")})
	check("UpdateNode", found, true, err)
	found, err = ss.UpdateNode(ctx, store.Node{ID: id, Type: 7, Version: 2, Time: 1, Data: []byte("a")})
	check("UpdateNode, same values", found, true, err)
	found, err = ss.DeleteNode(ctx, 8, id)
	check("DeleteNode, other type", found, false, err)
	found, err = ss.DeleteNode(ctx, 7, id)
	check("DeleteNode", found, true, err)
	found, err = ss.DeleteNode(ctx, 7, id)
	check("DeleteNode again", found, false, err)
	if _, found, err := ss.GetNode(ctx, 7, id); err != nil || found {
		t.Errorf("GetNode after DeleteNode: found %v, %v", found, err)
	}

	l := store.Link{ID1: 5, LinkType: 1, ID2: 9, Visibility: store.VisibilityDefault, Data: []byte("d"), Time: 1}
	for _, c := range []struct {
		what string
		f    func() (store.WriteResult, error)
		want store.WriteResult
	}{
		{"AddLink", func() (store.WriteResult, error) { return ss.AddLink(ctx, l, true) }, store.LinkInsert},
		{"AddLink, same values", func() (store.WriteResult, error) { return ss.AddLink(ctx, l, true) }, store.LinkNoChange},
		{"UpdateLink", func() (store.WriteResult, error) { l.Data = []byte("e"); return ss.UpdateLink(ctx, l, true) }, store.LinkUpdate},
		{"UpdateLink of a missing link", func() (store.WriteResult, error) { l.ID2 = 10; return ss.UpdateLink(ctx, l, true) }, store.LinkInsert},
	} {
		got, err := c.f()
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if got != c.want {
			t.Errorf("%s: %v, want %v", c.what, got, c.want)
		}
	}
	count := func(want int64) {
		t.Helper()
		if n, err := ss.CountLinks(ctx, 5, 1); err != nil || n != want {
			t.Errorf("CountLinks = %d, %v; want %d", n, err, want)
		}
	}
	count(2)
	found, err = ss.DeleteLink(ctx, 5, 1, 9, true, false)
	check("DeleteLink (hide)", found, true, err)
	count(1)
	found, err = ss.DeleteLink(ctx, 5, 1, 10, true, true)
	check("DeleteLink (expunge)", found, true, err)
	count(0)
	found, err = ss.DeleteLink(ctx, 5, 1, 10, true, true)
	check("DeleteLink (expunge) again", found, false, err)
	if _, found, err := ss.GetLink(ctx, 5, 1, 10); err != nil || found {
		t.Errorf("GetLink after expunge: found %v, %v", found, err)
	}
}
