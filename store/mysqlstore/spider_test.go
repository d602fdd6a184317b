package mysqlstore

import (
	"context"
	"database/sql"
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

// TestSpiderCreateCleansUp: a CreateSchema that fails half-way (data node
// 1 already holds a link table, so its CREATE TABLE fails after data node
// 0 got its database) drops what it created: the database on data node 0
// and nothing on the head (no database, no servers); the database that
// existed on node 1 stays.
func TestSpiderCreateCleansUp(t *testing.T) {
	head, nodes, dataDSNs := testdb.Spider(t)
	if len(nodes) < 2 {
		t.Skip("needs two data nodes")
	}
	ctx := context.Background()
	db := fmt.Sprintf("lbsp_undo_%d", os.Getpid())
	open := func(dsn string) *sql.DB {
		d, err := sql.Open("mysql", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	d0, d1 := open(dataDSNs[0]), open(dataDSNs[1])
	t.Cleanup(func() {
		d0.Exec("DROP DATABASE IF EXISTS " + db)
		d1.Exec("DROP DATABASE IF EXISTS " + db)
	})
	for _, st := range []string{"CREATE DATABASE " + db, "CREATE TABLE " + db + ".linktable (x INT)"} {
		if _, err := d1.Exec(st); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(ctx, Options{DSN: head, Database: db, Engine: Spider, SpiderDataNodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateSchema(ctx, db, SchemaOptions{}); err == nil {
		t.Fatal("CreateSchema over a data node holding a link table: no error")
	}
	count := func(d *sql.DB, q string, args ...any) int {
		t.Helper()
		var n int
		if err := d.QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const schemata = "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?"
	if n := count(d0, schemata, db); n != 0 {
		t.Errorf("data node 0 keeps the database %s the failed CreateSchema made", db)
	}
	if n := count(d1, schemata, db); n != 1 {
		t.Errorf("data node 1 lost the database %s that existed before", db)
	}
	if n := count(s.DB(), schemata, db); n != 0 {
		t.Errorf("the head keeps the database %s", db)
	}
	if n := count(s.DB(), "SELECT COUNT(*) FROM mysql.servers WHERE Server_name LIKE ?", "lbspider%_"+db); n != 0 {
		t.Errorf("the head keeps %d servers of %s", n, db)
	}
}
