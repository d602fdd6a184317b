package mysqlstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/internal/testdb"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
	"github.com/linkbench-go/linkbench/store/internal/sqlstoretest"
)

// Tests against a real server ($LINKBENCH_TEST_MYSQL_DSN), on InnoDB and
// ROCKSDB tables.

func mustCount(t *testing.T, s *Store, id1, linkType, want int64) {
	t.Helper()
	n, err := s.CountLinks(context.Background(), id1, linkType)
	if err != nil {
		t.Fatalf("CountLinks(%d, %d): %v", id1, linkType, err)
	}
	if n != want {
		t.Fatalf("CountLinks(%d, %d) = %d, want %d", id1, linkType, n, want)
	}
}

// TestLinkLifecycle: add an unchanged link twice, hide, unhide, delete,
// expunge a hidden link: the count always equals the visible links.
func TestLinkLifecycle(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		s := newTestStore(t, e, nil)
		ctx := context.Background()
		l := mkLink(7, 70, store.VisibilityDefault, "payload", 1000)
		// MD decides LINK_NO_CHANGE from the UPDATE's affected rows: InnoDB
		// reports 0 for an unchanged row, ROCKSDB reports it as changed.
		unchanged := store.LinkNoChange
		if e == RocksDB {
			unchanged = store.LinkUpdate
		}
		steps := []struct {
			name  string
			do    func() (any, error)
			want  any
			count int64
		}{
			{"add", func() (any, error) { return s.AddLink(ctx, l, true) }, store.LinkInsert, 1},
			{"add unchanged", func() (any, error) { return s.AddLink(ctx, l, true) }, unchanged, 1},
			{"update unchanged", func() (any, error) { return s.UpdateLink(ctx, l, true) }, unchanged, 1},
			{"hide", func() (any, error) { return s.DeleteLink(ctx, 7, lt, 70, true, false) }, true, 0},
			{"hide again", func() (any, error) { return s.DeleteLink(ctx, 7, lt, 70, true, false) }, true, 0},
			{"unhide by add", func() (any, error) { return s.AddLink(ctx, l, true) }, store.LinkUpdate, 1},
			{"hide by update", func() (any, error) {
				h := l
				h.Visibility = store.VisibilityHidden
				return s.UpdateLink(ctx, h, true)
			}, store.LinkUpdate, 0},
			{"expunge hidden", func() (any, error) { return s.DeleteLink(ctx, 7, lt, 70, true, true) }, true, 0},
			{"expunge absent", func() (any, error) { return s.DeleteLink(ctx, 7, lt, 70, true, true) }, false, 0},
			{"update absent inserts", func() (any, error) { return s.UpdateLink(ctx, l, true) }, store.LinkInsert, 1},
			{"add hidden new", func() (any, error) {
				return s.AddLink(ctx, mkLink(7, 71, store.VisibilityHidden, "h", 5), true)
			}, store.LinkInsert, 1},
			{"change data", func() (any, error) {
				c := l
				c.Data = []byte("other")
				c.Version = 3
				return s.AddLink(ctx, c, true)
			}, store.LinkUpdate, 1},
			{"expunge visible", func() (any, error) { return s.DeleteLink(ctx, 7, lt, 70, true, true) }, true, 0},
		}
		for _, st := range steps {
			got, err := st.do()
			if err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			if got != st.want {
				t.Fatalf("%s = %v, want %v", st.name, got, st.want)
			}
			mustCount(t, s, 7, lt, st.count)
			checkCountsClean(t, s)
		}
		got, found, err := s.GetLink(ctx, 7, lt, 71)
		if err != nil || !found || !got.Equal(mkLink(7, 71, store.VisibilityHidden, "h", 5)) {
			t.Fatalf("GetLink hidden = %+v, %v, %v", got, found, err)
		}
		if _, found, err := s.GetLink(ctx, 7, lt, 70); err != nil || found {
			t.Fatalf("GetLink expunged: found %v, err %v", found, err)
		}
		if n := counter(s, "add_to_upd"); n != 3 {
			t.Errorf("add_to_upd = %d, want 3", n)
		}
	})
}

// TestPayloadBytes: every byte value, trailing spaces and empty payloads
// round-trip unchanged in links and nodes.
func TestPayloadBytes(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		s := newTestStore(t, e, nil)
		ctx := context.Background()
		all := make([]byte, 255)
		for i := range all {
			all[i] = byte(i)
		}
		nodeData := bytes.Repeat(append(append([]byte{}, all...), 255), 40)
		nodeData = append(nodeData, "  "...)
		payloads := [][]byte{all, []byte("trailing  "), {}, nil, []byte("A"), []byte("a")}
		for i, p := range payloads {
			l := store.Link{ID1: 1, LinkType: lt, ID2: int64(i), Visibility: store.VisibilityDefault, Data: p, Time: int64(i)}
			if _, err := s.AddLink(ctx, l, true); err != nil {
				t.Fatalf("AddLink %d: %v", i, err)
			}
			got, found, err := s.GetLink(ctx, 1, lt, int64(i))
			if err != nil || !found || !got.Equal(l) {
				t.Fatalf("payload %d: got %q (found %v, err %v), want %q", i, got.Data, found, err, p)
			}
		}
		// "A" and "a" differ only in case: latin1's default collation
		// would call them equal, the update must still change the row.
		l := store.Link{ID1: 1, LinkType: lt, ID2: 4, Visibility: store.VisibilityDefault, Data: []byte("a"), Time: 4}
		if res, err := s.AddLink(ctx, l, true); err != nil || res != store.LinkUpdate {
			t.Fatalf("case-only change: %v, %v", res, err)
		}
		if err := s.ResetNodeStore(ctx, 1); err != nil {
			t.Fatal(err)
		}
		for i, p := range [][]byte{nodeData, {}, nil, all} {
			n := store.Node{Type: store.DefaultNodeType, Version: 1, Time: 12345, Data: p}
			id, err := s.AddNode(ctx, n)
			if err != nil {
				t.Fatalf("AddNode %d: %v", i, err)
			}
			n.ID = id
			got, found, err := s.GetNode(ctx, store.DefaultNodeType, id)
			if err != nil || !found || !got.Equal(n) {
				t.Fatalf("node payload %d: found %v err %v, equal %v", i, found, err, got.Equal(n))
			}
		}
	})
}

// TestNodes: ids are sequential after ResetNodeStore and continue after a
// bulk load whose size is an exact multiple of the batch size (reference
// §11.2-8); type mismatches are misses; an unchanged update is found.
func TestNodes(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		const batch = 16
		s := newTestStore(t, e, func(o *Options) { o.BulkInsertCount = batch })
		ctx := context.Background()
		if err := s.ResetNodeStore(ctx, 1); err != nil {
			t.Fatal(err)
		}
		nodes := make([]store.Node, 4*batch)
		for i := range nodes {
			nodes[i] = store.Node{ID: int64(i + 1), Type: store.DefaultNodeType, Version: 1, Time: 100, Data: []byte(fmt.Sprint("n", i))}
		}
		// A loader's batches (exact multiple, so no final partial batch)...
		for i := 0; i < len(nodes); i += batch {
			if err := s.AddBulkNodes(ctx, nodes[i:i+batch]); err != nil {
				t.Fatalf("AddBulkNodes: %v", err)
			}
		}
		if err := s.AddBulkNodes(ctx, nil); err != nil {
			t.Fatalf("empty AddBulkNodes: %v", err)
		}
		st, err := s.NodeStats(ctx)
		if err != nil || st != (store.NodeStats{Count: 64, MinID: 1, MaxID: 64}) {
			t.Fatalf("NodeStats = %+v, %v", st, err)
		}
		// ...and one call of several full batches plus a partial one (one transaction).
		more := make([]store.Node, 2*batch+3)
		for i := range more {
			more[i] = store.Node{ID: int64(100 + i), Type: store.DefaultNodeType, Version: 1, Time: 100}
		}
		if err := s.AddBulkNodes(ctx, more); err != nil {
			t.Fatalf("AddBulkNodes (multi-statement): %v", err)
		}
		id, err := s.AddNode(ctx, store.Node{ID: -1, Type: store.DefaultNodeType, Version: 1, Time: 1})
		if err != nil || id != 100+int64(len(more)) {
			t.Fatalf("AddNode after bulk = %d, %v; want %d", id, err, 100+len(more))
		}
		if _, found, _ := s.GetNode(ctx, store.DefaultNodeType+1, 5); found {
			t.Fatal("GetNode with another type found the node")
		}
		n := nodes[4]
		if found, err := s.UpdateNode(ctx, n); err != nil || !found {
			t.Fatalf("unchanged UpdateNode = %v, %v; want found", found, err)
		}
		n.Version, n.Data = 2, []byte("new")
		if found, err := s.UpdateNode(ctx, n); err != nil || !found {
			t.Fatalf("UpdateNode = %v, %v", found, err)
		}
		if got, _, _ := s.GetNode(ctx, n.Type, n.ID); !got.Equal(n) {
			t.Fatalf("after UpdateNode: %+v", got)
		}
		bad := n
		bad.Type++
		if found, err := s.UpdateNode(ctx, bad); err != nil || found {
			t.Fatalf("UpdateNode of another type = %v, %v", found, err)
		}
		if found, err := s.DeleteNode(ctx, n.Type+1, n.ID); err != nil || found {
			t.Fatalf("DeleteNode of another type = %v, %v", found, err)
		}
		if found, err := s.DeleteNode(ctx, n.Type, n.ID); err != nil || !found {
			t.Fatalf("DeleteNode = %v, %v", found, err)
		}
		if found, err := s.UpdateNode(ctx, n); err != nil || found {
			t.Fatalf("UpdateNode of a deleted node = %v, %v", found, err)
		}
		if err := s.ResetNodeStore(ctx, 1000); err != nil {
			t.Fatal(err)
		}
		for want := int64(1000); want < 1003; want++ {
			if id, err := s.AddNode(ctx, store.Node{Type: 1, Version: 1}); err != nil || id != want {
				t.Fatalf("AddNode after reset = %d, %v; want %d", id, err, want)
			}
		}
		if st, _ := s.NodeStats(ctx); st != (store.NodeStats{Count: 3, MinID: 1000, MaxID: 1002}) {
			t.Fatalf("NodeStats after reset = %+v", st)
		}
		if err := s.AddBulkNodes(ctx, []store.Node{{ID: 0}}); err == nil {
			t.Fatal("AddBulkNodes accepted id 0")
		}
	})
}

// TestBulkLinks: bulk loads of an exact multiple of the batch size, a
// partial batch, a multi-statement batch under a byte cap, re-loads
// (upserts), deferred secondary index, then counts and ranges.
func TestBulkLinks(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		const batch = 8
		s := newTestStore(t, e, func(o *Options) { o.BulkInsertCount = batch; o.MaxStatementBytes = 600 })
		ctx := context.Background()
		// Recreate the tables without id1_type, as for a fast load.
		if err := s.DropSchema(ctx, ""); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateSchema(ctx, "", SchemaOptions{DeferSecondaryIndex: true}); err != nil {
			t.Fatal(err)
		}
		var links []store.Link
		var counts []store.LinkCount
		for id1 := int64(1); id1 <= 5; id1++ {
			n := int(id1 * 7) // 7, 14, ...: 105 links in all
			for j := range n {
				links = append(links, store.Link{ID1: id1, LinkType: lt, ID2: int64(j), Visibility: store.VisibilityDefault,
					Data: bytes.Repeat([]byte{'x'}, j), Time: int64(1000 + j)})
			}
			counts = append(counts, store.LinkCount{ID1: id1, LinkType: lt, Count: int64(n), Time: 2000, Version: 0})
		}
		for i := 0; i < 2*batch; i += batch { // two full batches
			if err := s.AddBulkLinks(ctx, links[i:i+batch], true); err != nil {
				t.Fatalf("AddBulkLinks: %v", err)
			}
		}
		if err := s.AddBulkLinks(ctx, links[2*batch:], true); err != nil { // several statements, one transaction
			t.Fatalf("AddBulkLinks (rest): %v", err)
		}
		if err := s.AddBulkLinks(ctx, links[:3], true); err != nil { // a re-load upserts
			t.Fatalf("AddBulkLinks (re-load): %v", err)
		}
		if err := s.AddBulkCounts(ctx, counts); err != nil {
			t.Fatalf("AddBulkCounts: %v", err)
		}
		if err := s.AddBulkCounts(ctx, counts); err != nil {
			t.Fatalf("AddBulkCounts (re-load): %v", err)
		}
		if _, err := s.GetLinkList(ctx, store.FullRange(1, lt), nil); err == nil {
			t.Fatal("GetLinkList without id1_type succeeded")
		}
		if err := s.CreateSecondaryIndex(ctx, ""); err != nil {
			t.Fatalf("CreateSecondaryIndex: %v", err)
		}
		checked := checkCountsClean(t, s)
		if checked != 5 {
			t.Fatalf("CheckCounts checked %d pairs, want 5", checked)
		}
		list, err := s.GetLinkList(ctx, store.FullRange(5, lt), nil)
		if err != nil || len(list) != 35 {
			t.Fatalf("GetLinkList = %d links, %v", len(list), err)
		}
		for i := 1; i < len(list); i++ {
			if list[i].Time > list[i-1].Time {
				t.Fatal("GetLinkList not newest first")
			}
		}
		// Range with bounds, offset and limit: times 1000..1034 for id1 5.
		got, err := s.GetLinkList(ctx, store.LinkRange{ID1: 5, LinkType: lt, MinTime: 1010, MaxTime: 1020, Offset: 2, Limit: 4}, list[:0])
		if err != nil {
			t.Fatal(err)
		}
		var times []int64
		for _, l := range got {
			times = append(times, l.Time)
		}
		if fmt.Sprint(times) != "[1018 1017 1016 1015]" {
			t.Fatalf("range times %v", times)
		}
		if got, err := s.GetLinkList(ctx, store.LinkRange{ID1: 5, LinkType: lt, MaxTime: 1 << 62, Limit: 0}, nil); err != nil || len(got) != 0 {
			t.Fatalf("Limit 0 returned %d links, %v", len(got), err)
		}
		// Corrupt a count and see CheckCounts report it.
		if err := s.AddBulkCounts(ctx, []store.LinkCount{{ID1: 2, LinkType: lt, Count: 99}, {ID1: 9, LinkType: lt, Count: 1}}); err != nil {
			t.Fatal(err)
		}
		mm, checked, err := s.CheckCounts(ctx, 0)
		want := []store.CountMismatch{{ID1: 2, LinkType: lt, Count: 99, Visible: 14}, {ID1: 9, LinkType: lt, Count: 1, Visible: 0}}
		if err != nil || checked != 6 || !slices.Equal(mm, want) {
			t.Fatalf("CheckCounts = %+v, %d, %v; want %+v, 6", mm, checked, err, want)
		}
		if mm, _, _ := s.CheckCounts(ctx, 1); len(mm) != 1 {
			t.Fatalf("CheckCounts limit 1 returned %d", len(mm))
		}
	})
}

// TestMultiget: duplicates are sent and returned once; hidden links are
// returned; cached, ad hoc and chunked statement sizes agree.
func TestMultiget(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		s := newTestStore(t, e, nil)
		ctx := context.Background()
		for id2 := int64(0); id2 < 40; id2 += 2 {
			vis := store.VisibilityDefault
			if id2%4 == 2 {
				vis = store.VisibilityHidden
			}
			if _, err := s.AddLink(ctx, mkLink(3, id2, vis, "d", id2), true); err != nil {
				t.Fatal(err)
			}
		}
		check := func(id2s []int64) {
			t.Helper()
			want := map[int64]bool{}
			for _, v := range id2s {
				if v >= 0 && v < 40 && v%2 == 0 {
					want[v] = true
				}
			}
			dst := make([]store.Link, 1, 8) // a prefix that must be kept
			dst[0].ID1 = -5
			got, err := s.MultigetLinks(ctx, 3, lt, id2s, dst)
			if err != nil {
				t.Fatalf("MultigetLinks(%d ids): %v", len(id2s), err)
			}
			if got[0].ID1 != -5 || len(got)-1 != len(want) {
				t.Fatalf("MultigetLinks(%d ids) returned %d links, want %d", len(id2s), len(got)-1, len(want))
			}
			for _, l := range got[1:] {
				if !want[l.ID2] {
					t.Fatalf("unexpected or repeated id2 %d", l.ID2)
				}
				delete(want, l.ID2)
			}
		}
		check([]int64{2, 2, 2, 4, 5})
		check([]int64{0})
		check(nil)
		ids := make([]int64, 0, 5000)
		for i := range 50 {
			ids = append(ids, int64(i), int64(i)) // 100 ids, 50 distinct: ad hoc size
		}
		check(ids)
		for i := range 5000 {
			ids = append(ids, int64(i))
		}
		check(ids) // > 4096 distinct: two chunks
	})
}

// TestDatabases: views on several databases at once (the fix of reference
// §11.2-9) keep their data apart.
func TestDatabases(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		s := newTestStore(t, e, nil)
		ctx := context.Background()
		names := []string{uniqueDB(e), uniqueDB(e)}
		for _, n := range names {
			if err := s.CreateSchema(ctx, n, SchemaOptions{}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.DropSchema(context.Background(), n) })
		}
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for i, n := range names {
			wg.Go(func() {
				db, err := s.Database(ctx, n)
				if err != nil {
					errs <- err
					return
				}
				for j := range i + 3 {
					if _, err := db.AddLink(ctx, mkLink(1, int64(j), store.VisibilityDefault, n, 1), true); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for i, n := range names {
			db, _ := s.Database(ctx, n)
			if c, err := db.CountLinks(ctx, 1, lt); err != nil || c != int64(i+3) {
				t.Fatalf("%s: count %d, %v; want %d", n, c, err, i+3)
			}
			if again, _ := s.Database(ctx, n); again != db {
				t.Fatal("Database returned a new view for the same name")
			}
		}
		mustCount(t, s, 1, lt, 0)
		if _, err := s.Database(ctx, "bad`name"); err == nil {
			t.Fatal("Database accepted a back-quote")
		}
	})
}

// TestHotGraph: 16 goroutines write links on a 101-id graph; afterwards
// every count equals the visible links.
func TestHotGraph(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		s := newTestStore(t, e, nil)
		ctx := context.Background()
		const workers, opsPerWorker, ids = 16, 300, 101
		var wg sync.WaitGroup
		var failed atomic.Int64
		for w := range workers {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(w), 42))
				for range opsPerWorker {
					id1 := 1 + r.Int64N(ids)
					id2 := 1 + r.Int64N(ids)
					typ := lt + r.Int64N(2)
					l := store.Link{ID1: id1, LinkType: typ, ID2: id2, Visibility: store.VisibilityDefault,
						Data: []byte(fmt.Sprint(r.IntN(3))), Time: r.Int64N(1000)}
					if r.IntN(4) == 0 {
						l.Visibility = store.VisibilityHidden
					}
					var err error
					switch op := r.IntN(5); op {
					case 0, 1:
						_, err = s.AddLink(ctx, l, true)
					case 2:
						_, err = s.UpdateLink(ctx, l, true)
					case 3:
						_, err = s.DeleteLink(ctx, id1, typ, id2, true, false)
					case 4:
						_, err = s.DeleteLink(ctx, id1, typ, id2, true, true)
					}
					if err != nil {
						failed.Add(1)
						t.Errorf("worker %d: %v", w, err)
						return
					}
				}
			})
		}
		wg.Wait()
		if failed.Load() > 0 {
			t.FailNow()
		}
		checked := checkCountsClean(t, s)
		if checked == 0 {
			t.Fatal("no pairs checked")
		}
		// And the counts agree with the range query.
		for id1 := int64(1); id1 <= ids; id1 += 10 {
			for typ := lt; typ < lt+2; typ++ {
				list, err := s.GetLinkList(ctx, store.FullRange(id1, typ), nil)
				if err != nil {
					t.Fatal(err)
				}
				mustCount(t, s, id1, typ, int64(len(list)))
			}
		}
		t.Logf("%s: %d pairs checked; counters %v", e, checked, s.Counters())
	})
}

// TestInjectedDeadlocks: MySQL error 1213 injected on every 10th statement
// loses no operation, changes no result, and is counted.
func TestInjectedDeadlocks(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e Engine) {
		var calls, injected atomic.Int64
		var logs syncBuffer
		s := newTestStore(t, e, func(o *Options) {
			o.RetryBackoff = time.Millisecond
			o.RetryMaxBackoff = 4 * time.Millisecond
			o.Logger = debugLogger(&logs)
			o.inject = func(string) error {
				if calls.Add(1)%10 == 0 {
					injected.Add(1)
					return &mysql.MySQLError{Number: 1213, SQLState: [5]byte{'4', '0', '0', '0', '1'}, Message: "injected deadlock"}
				}
				return nil
			}
		})
		sqlstoretest.RunModel(t, sqlstoretest.Model{Ops: 800, Kinds: 9, NoChange: true}, s, s)
		sqlstoretest.CheckInjected(t, s, injected.Load(), []string{"1213"}, logs.String(), "injected deadlock")
		t.Logf("%s: %d statements, %d injected; counters %v", e, calls.Load(), injected.Load(), s.Counters())
	})
}

// TestRetryExhausted: a deadlock on every statement ends in a
// *store.TransientError wrapping the MySQL error; other errors are
// returned at once.
func TestRetryExhausted(t *testing.T) {
	dsn := testDSN(t)
	requireEngine(t, dsn, InnoDB)
	var fail atomic.Int32
	s := newTestStore(t, InnoDB, func(o *Options) {
		o.RetryAttempts, o.RetryBackoff, o.RetryMaxBackoff = 3, time.Millisecond, time.Millisecond
		o.inject = func(string) error {
			switch fail.Load() {
			case 1:
				return &mysql.MySQLError{Number: 1213, Message: "deadlock"}
			case 2:
				return &mysql.MySQLError{Number: 1146, Message: "no such table"}
			}
			return nil
		}
	})
	ctx := context.Background()
	fail.Store(1)
	_, err := s.AddLink(ctx, mkLink(1, 1, 1, "", 1), true)
	var me *mysql.MySQLError
	if !store.IsTransient(err) || !errors.As(err, &me) || me.Number != 1213 {
		t.Fatalf("AddLink = %v, want a transient error wrapping 1213", err)
	}
	if got := counter(s, "retries.AddLink"); got != 2 {
		t.Errorf("retries.AddLink = %d, want 2", got)
	}
	fail.Store(2)
	_, err = s.CountLinks(ctx, 1, lt)
	if store.IsTransient(err) || !errors.As(err, &me) || me.Number != 1146 {
		t.Fatalf("CountLinks = %v, want a plain 1146", err)
	}
	if got := counter(s, "failures.CountLinks"); got != 1 {
		t.Errorf("failures.CountLinks = %d", got)
	}
	closed, err := Open(ctx, Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	if _, err := closed.CountLinks(ctx, 1, lt); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// TestWrongPassword: the password never appears in errors or logs.
func TestWrongPassword(t *testing.T) {
	dsn := testDSN(t)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pw := fmt.Sprintf("Wr0ng-%08x", rand.Uint32())
	cfg.Passwd = pw
	var logs syncBuffer
	s, err := Open(context.Background(), Options{DSN: cfg.FormatDSN(), Logger: debugLogger(&logs)})
	if err == nil {
		// The server did not check the password (unix_socket
		// authentication): try a user that does not exist.
		s.Close()
		cfg.User = fmt.Sprintf("lbt_nouser_%08x", rand.Uint32())
		_, err = Open(context.Background(), Options{DSN: cfg.FormatDSN(), Logger: debugLogger(&logs)})
		if err == nil {
			t.Fatal("Open with a wrong user and password succeeded")
		}
	}
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1045 {
		t.Fatalf("want MySQL error 1045, got %v", err)
	}
	if strings.Contains(err.Error(), pw) || strings.Contains(fmt.Sprintf("%+v", err), pw) || strings.Contains(logs.String(), pw) {
		t.Fatalf("password leaked: %q / logs %q", err, logs.String())
	}
	if !strings.Contains(err.Error(), ":*****@") {
		t.Fatalf("error does not show the redacted DSN: %v", err)
	}
}

// TestBinlogPrivilege: DisableBinlogLoad works with the privilege and
// fails at Open, naming the privilege, without it.
func TestBinlogPrivilege(t *testing.T) {
	dsn := testDSN(t)
	requireEngine(t, dsn, InnoDB)
	s := newTestStore(t, InnoDB, func(o *Options) { o.DisableBinlogLoad = true })
	ctx := context.Background()
	links := []store.Link{mkLink(1, 1, 1, "a", 1), mkLink(1, 2, 1, "b", 2)}
	if err := s.AddBulkLinks(ctx, links, true); err != nil {
		t.Fatalf("AddBulkLinks with the binary log off: %v", err)
	}
	var logBin int
	if err := s.DB().QueryRowContext(ctx, "SELECT @@SESSION.sql_log_bin").Scan(&logBin); err != nil || logBin != 1 {
		t.Fatalf("a pooled connection has sql_log_bin=%d (%v)", logBin, err)
	}
	// A user without the privilege.
	user := fmt.Sprintf("lbt_nopriv_%08x", rand.Uint32())
	pw := "pw-" + user
	if _, err := s.DB().ExecContext(ctx, "CREATE USER '"+user+"'@'%' IDENTIFIED BY '"+pw+"'"); err != nil {
		t.Skipf("cannot create a test user (%v): skipping the missing-privilege case", err)
	}
	t.Cleanup(func() { _, _ = s.DB().Exec("DROP USER '" + user + "'@'%'") })
	if _, err := s.DB().ExecContext(ctx, "GRANT SELECT, INSERT ON "+quoteIdent(s.Name())+".* TO '"+user+"'@'%'"); err != nil {
		t.Skipf("cannot grant (%v)", err)
	}
	cfg, _ := mysql.ParseDSN(dsn)
	cfg.User, cfg.Passwd = user, pw
	_, err := Open(ctx, Options{DSN: cfg.FormatDSN(), Database: s.Name(), DisableBinlogLoad: true})
	if err == nil {
		t.Fatal("Open with DisableBinlogLoad and no privilege succeeded")
	}
	if !strings.Contains(err.Error(), "BINLOG ADMIN") || strings.Contains(err.Error(), pw) {
		t.Fatalf("error does not name the privilege (or leaks the password): %v", err)
	}
}

// TestRocksDBColumnFamilies: the ROCKSDB schema puts the indexes in their
// column families, partitioned or not.
func TestRocksDBColumnFamilies(t *testing.T) {
	dsn := testDSN(t)
	requireEngine(t, dsn, RocksDB)
	s := newTestStore(t, RocksDB, nil)
	ctx := context.Background()
	check := func(parts int) {
		t.Helper()
		rows, err := s.DB().QueryContext(ctx, "SELECT INDEX_NAME, CF FROM information_schema.ROCKSDB_DDL WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
			s.Name(), DefaultLinkTable)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var idx, cf string
			if err := rows.Scan(&idx, &cf); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"PRIMARY": "cf_link_pk", "id1_type": "rev:cf_link_id1_type"}[idx]
			if cf != want {
				t.Errorf("%d partitions: index %s in column family %q, want %q", parts, idx, cf, want)
			}
			n++
		}
		if want := 2 * max(parts, 1); n != want {
			t.Errorf("%d partitions: %d index entries, want %d", parts, n, want)
		}
	}
	check(0)
	if err := s.DropSchema(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSchema(ctx, "", SchemaOptions{Partitions: 4, DeferSecondaryIndex: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSecondaryIndex(ctx, ""); err != nil {
		t.Fatal(err)
	}
	check(4)
	if _, err := s.AddLink(ctx, mkLink(1, 2, 1, "x", 3), true); err != nil {
		t.Fatal(err)
	}
	if l, err := s.GetLinkList(ctx, store.FullRange(1, lt), nil); err != nil || len(l) != 1 {
		t.Fatalf("GetLinkList on the partitioned table: %d, %v", len(l), err)
	}
}

// TestWarm connects the requested sessions ahead of time.
func TestWarm(t *testing.T) {
	dsn := testDSN(t)
	requireEngine(t, dsn, InnoDB)
	s := newTestStore(t, InnoDB, func(o *Options) { o.MaxConns = 12; o.WarmParallelism = 4 })
	if err := s.Warm(context.Background(), 20); err != nil {
		t.Fatal(err)
	}
	connected := 0
	sqlstore.Idle(s.pool, func(idle []*Session) {
		for _, ss := range idle {
			if ss.rd != nil && ss.rd.valid() {
				connected++
			}
		}
	})
	if connected != 12 {
		t.Fatalf("after Warm(20) with MaxConns 12: %d sessions connected", connected)
	}
}

// TestRestart: writers keep going while the server restarts; every write
// that returned nil is there afterwards and the counts are exact. It runs
// on the server reserved for restart tests (testdb.RestartableMySQL: set
// by .ci/mariadb.sh start-restartable), never the shared one.
func TestRestart(t *testing.T) {
	dsn, cmd := testdb.RestartableMySQL(t)
	forEachEngineOn(t, dsn, func(t *testing.T, e Engine) {
		s := newTestStore(t, e, func(o *Options) {
			o.DSN = dsn
			o.RetryMaxBackoff = 500 * time.Millisecond
			o.RetryAttempts = 60
		})
		ctx := context.Background()
		if err := s.ResetNodeStore(ctx, 1); err != nil {
			t.Fatal(err)
		}
		const workers = 4
		var (
			wg       sync.WaitGroup
			done     atomic.Int64 // acknowledged writes
			stop     atomic.Bool
			mu       sync.Mutex
			acked    []store.Link
			nodesAck []int64
			transErr atomic.Int64
		)
		for w := range workers {
			wg.Go(func() {
				for i := int64(0); !stop.Load(); i++ {
					l := mkLink(int64(100+w), i, store.VisibilityDefault, "r", i)
					_, err := s.AddLink(ctx, l, true)
					switch {
					case err == nil:
						mu.Lock()
						acked = append(acked, l)
						mu.Unlock()
						done.Add(1)
					case store.IsTransient(err):
						transErr.Add(1)
					default:
						t.Errorf("AddLink: %v", err)
						return
					}
					if i%5 == 0 {
						id, err := s.AddNode(ctx, store.Node{Type: store.DefaultNodeType, Version: 1})
						switch {
						case err == nil:
							mu.Lock()
							nodesAck = append(nodesAck, id)
							mu.Unlock()
						case store.IsTransient(err):
							transErr.Add(1)
						default:
							t.Errorf("AddNode: %v", err)
							return
						}
					}
				}
			})
		}
		waitFor := func(n int64) {
			for done.Load() < n && !t.Failed() {
				time.Sleep(5 * time.Millisecond)
			}
		}
		waitFor(200)
		out, err := exec.Command("sh", "-c", cmd).CombinedOutput()
		if err != nil {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("restart command: %v\n%s", err, out)
		}
		waitFor(done.Load() + 200)
		stop.Store(true)
		wg.Wait()
		for _, l := range acked {
			got, found, err := s.GetLink(ctx, l.ID1, l.LinkType, l.ID2)
			if err != nil || !found || !got.Equal(l) {
				t.Fatalf("acknowledged link %+v lost: %+v, %v, %v", l, got, found, err)
			}
		}
		for _, id := range nodesAck {
			if _, found, err := s.GetNode(ctx, store.DefaultNodeType, id); err != nil || !found {
				t.Fatalf("acknowledged node %d lost (%v)", id, err)
			}
		}
		checkCountsClean(t, s)
		if counter(s, "errors.conn") == 0 && sumCounters(s, "errors.") == 0 {
			t.Error("the restart caused no connection error: did the command restart this server?")
		}
		t.Logf("%s: %d links and %d nodes acknowledged, %d transient errors; counters %v",
			e, len(acked), len(nodesAck), transErr.Load(), s.Counters())
	})
}

// TestIsolation: Options.Isolation is set on every pooled connection.
func TestIsolation(t *testing.T) {
	dsn := testDSN(t)
	requireEngine(t, dsn, InnoDB)
	s := newTestStore(t, InnoDB, func(o *Options) { o.Isolation = "read committed" })
	ctx := context.Background()
	if err := s.Warm(ctx, 4); err != nil {
		t.Fatal(err)
	}
	var level string
	if err := s.DB().QueryRowContext(ctx, "SELECT @@SESSION.transaction_isolation").Scan(&level); err != nil {
		// MariaDB before 11.1 names it tx_isolation.
		if err := s.DB().QueryRowContext(ctx, "SELECT @@SESSION.tx_isolation").Scan(&level); err != nil {
			t.Fatal(err)
		}
	}
	if level != "READ-COMMITTED" {
		t.Fatalf("session isolation %q, want READ-COMMITTED", level)
	}
}

// TestCloseAfterCancel: a session whose worker context ended while it was
// idle closes quietly: the interrupt's deadline is cleared first, so the
// driver's goodbye does not fail with an i/o timeout in the log (every
// load and request phase ends that way).
func TestCloseAfterCancel(t *testing.T) {
	var buf syncBuffer
	s := newTestStore(t, InnoDB, func(o *Options) { o.Logger = debugLogger(&buf) })
	ctx, cancel := context.WithCancel(context.Background())
	sess, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.AddLink(ctx, store.Link{ID1: 1, LinkType: 1, ID2: 2, Visibility: store.VisibilityDefault}, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sess.GetNode(ctx, 1, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	time.Sleep(50 * time.Millisecond) // the context watch fires
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Contains(out, "i/o timeout") || strings.Contains(out, "mysqlstore: driver") {
		t.Errorf("closing an idle session after its context ended logged driver errors:\n%s", out)
	}
}
