package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstoretest"
)

// adminConn opens a plain pgx connection to the test database, for the
// fault tests' own statements.
func adminConn(t *testing.T) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["application_name"] = "lbtest-admin"
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// TestTerminateBackend: while workers write links and nodes on sessions of
// their own, their backends are killed with pg_terminate_backend again and
// again; every call goes on (retried on a new connection, counted), every
// acknowledged write is there with the values the worker wrote last, and
// the counts are exact.
func TestTerminateBackend(t *testing.T) {
	s := newTestStore(t, func(o *Options) { o.RetryBackoff = time.Millisecond; o.RetryMaxBackoff = 20 * time.Millisecond })
	admin := adminConn(t)
	ctx := context.Background()
	if err := s.ResetNodeStore(ctx, 1); err != nil {
		t.Fatal(err)
	}
	const workers, kills = 4, 12
	sessions := make([]*Session, workers)
	for i := range sessions {
		ss, err := s.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sessions[i] = ss.(*Session)
		defer ss.Close()
	}
	type result struct {
		links   map[[2]int64]store.Link // (id1, id2) -> last acknowledged write
		unknown map[[2]int64]bool       // writes that failed transiently: state unknown
		nodes   map[int64]store.Node
		ops     int
	}
	results := make([]result, workers)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w, ss := range sessions {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 9))
			res := result{links: map[[2]int64]store.Link{}, unknown: map[[2]int64]bool{}, nodes: map[int64]store.Node{}}
			defer func() { results[w] = res }()
			id1 := int64(1000 + w) // each worker its own id1: its model is exact
			for i := 0; !stop.Load(); i++ {
				id2 := r.Int64N(20)
				k := [2]int64{id1, id2}
				l := mkLink(id1, id2, store.Visibility(r.IntN(2)), fmt.Sprint(i), int64(i))
				var err error
				switch r.IntN(5) {
				case 0, 1:
					_, err = ss.AddLink(ctx, l, true)
				case 2:
					_, err = ss.UpdateLink(ctx, l, true)
				case 3:
					var found bool
					found, err = ss.DeleteLink(ctx, id1, lt, id2, true, false)
					old, had := res.links[k]
					if err == nil && had != found && !res.unknown[k] {
						t.Errorf("worker %d: DeleteLink(%d) found %v, model %v", w, id2, found, had)
						return
					}
					l = old
					l.Visibility = store.VisibilityHidden
					if !had {
						l = store.Link{}
					}
				case 4:
					n := store.Node{Type: store.DefaultNodeType, Version: 1, Time: int32(i), Data: []byte(fmt.Sprint(i))}
					var id int64
					id, err = ss.AddNode(ctx, n)
					if err == nil {
						n.ID = id
						res.nodes[id] = n
					}
					k = [2]int64{-1, -1}
				}
				switch {
				case err == nil && k[0] >= 0:
					if l.ID1 == 0 {
						delete(res.links, k)
					} else {
						res.links[k] = l
					}
					delete(res.unknown, k)
				case err == nil:
				case store.IsTransient(err):
					res.unknown[k] = true
				default:
					t.Errorf("worker %d: %v", w, err)
					return
				}
				res.ops++
			}
		})
	}
	killed := 0
	for i := range kills {
		time.Sleep(40 * time.Millisecond)
		// The sessions' backends, asked from the server (reading a
		// session's connection from here would race with its worker).
		var n int
		err := admin.QueryRow(ctx, "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity "+
			"WHERE application_name = $1 AND datname = current_database() AND pid <> pg_backend_pid() "+
			"AND pid = (SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database() "+
			"ORDER BY pid OFFSET $2 LIMIT 1)", DefaultApplicationName, i%workers).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		killed += n
	}
	time.Sleep(100 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// Every acknowledged write is there.
	checked := 0
	for w, res := range results {
		for k, want := range res.links {
			if res.unknown[k] {
				continue
			}
			got, found, err := s.GetLink(ctx, k[0], lt, k[1])
			if err != nil || !found || !got.Equal(want) {
				t.Fatalf("worker %d: link %v = %+v (found %v, %v), want %+v", w, k, got, found, err, want)
			}
			checked++
		}
		for id, want := range res.nodes {
			got, found, err := s.GetNode(ctx, store.DefaultNodeType, id)
			if err != nil || !found || !got.Equal(want) {
				t.Fatalf("worker %d: node %d lost (%v)", w, id, err)
			}
		}
	}
	checkCountsClean(t, s)
	reconnects := counter(s, "reconnects")
	if killed < kills/2 || reconnects == 0 || sumCounters(s, "retries.") == 0 {
		t.Fatalf("killed %d backends, %d reconnects, counters %v: the kills went unnoticed", killed, reconnects, s.Counters())
	}
	ops := 0
	for _, r := range results {
		ops += r.ops
	}
	t.Logf("%d operations, %d backends killed, %d links checked; counters %v", ops, killed, checked, s.Counters())
}

// TestSerializationFailure: under SERIALIZABLE, a link write whose row a
// concurrent transaction changed after the write's snapshot fails with
// 40001 ("could not serialize access due to concurrent update"); the
// store retries it, counts it, and the write lands.
func TestSerializationFailure(t *testing.T) {
	s := newTestStore(t, func(o *Options) { o.Isolation = Serializable })
	admin := adminConn(t)
	ctx := context.Background()
	l := mkLink(7, 70, store.VisibilityDefault, "first", 1)
	if _, err := s.AddLink(ctx, l, true); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ss := sess.(*Session)
	pid := ss.c.pg.PID()

	// A concurrent transaction changes the row and holds its lock.
	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "UPDATE "+s.q.link+" SET data = 'other' WHERE id1 = 7 AND id2 = 70 AND link_type = $1", lt); err != nil {
		t.Fatal(err)
	}
	hidden := l
	hidden.Visibility, hidden.Data, hidden.Time = store.VisibilityHidden, []byte("second"), 2
	done := make(chan error, 1)
	go func() {
		_, err := ss.UpdateLink(ctx, hidden, true)
		done <- err
	}()
	// Wait until the session's S-lock waits for the row lock, then commit.
	watch := adminConn(t)
	for i := 0; ; i++ {
		var waiting bool
		if err := watch.QueryRow(ctx, "SELECT COALESCE(wait_event_type = 'Lock', false) FROM pg_stat_activity WHERE pid = $1", pid).
			Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		if i > 500 {
			t.Fatal("the session never waited for the row lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("UpdateLink: %v", err)
	}
	if got, _, _ := s.GetLink(ctx, 7, lt, 70); !got.Equal(hidden) {
		t.Fatalf("after the retried UpdateLink: %+v", got)
	}
	if n := counter(s, "errors.40001"); n < 1 {
		t.Fatalf("errors.40001 = %d: no serialization failure (counters %v)", n, s.Counters())
	}
	if n := counter(s, "retries.UpdateLink"); n < 1 {
		t.Fatalf("retries.UpdateLink = %d", n)
	}
	if n, _ := s.CountLinks(ctx, 7, lt); n != 0 {
		t.Fatalf("count = %d, want 0", n)
	}
	checkCountsClean(t, s)
	t.Logf("counters %v", s.Counters())
}

// TestInjectedFailures: a serialization failure (40001) or a deadlock
// (40P01) injected before every 7th round trip, at every step of every
// path (the failed insert's and the lock's transactions left open
// included), loses no operation, changes no result, and is counted.
func TestInjectedFailures(t *testing.T) {
	var calls, injected atomic.Int64
	var logs sqlstoretest.SyncBuffer
	s := newTestStore(t, func(o *Options) {
		o.RetryBackoff = time.Millisecond
		o.RetryMaxBackoff = 2 * time.Millisecond
		o.Logger = sqlstoretest.DebugLogger(&logs)
		o.inject = func(string) error {
			if n := calls.Add(1); n%7 == 0 {
				injected.Add(1)
				code := stateSerialization
				if n%2 == 0 {
					code = stateDeadlock
				}
				return &pgconn.PgError{Severity: "ERROR", Code: code, Message: "injected"}
			}
			return nil
		}
	})
	sess, err := s.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	sqlstoretest.RunModel(t, sqlstoretest.Model{Ops: 1000, Kinds: 10}, sess, s)
	sqlstoretest.CheckInjected(t, s, injected.Load(), []string{"40001", "40P01"}, logs.String(), "injected")
	t.Logf("%d round trips, %d injected; counters %v", calls.Load(), injected.Load(), s.Counters())
}

// TestRetryExhausted: a serialization failure on every round trip ends in
// a *store.TransientError wrapping the PgError; other errors are returned
// at once; calls after Close fail with store.ErrClosed.
func TestRetryExhausted(t *testing.T) {
	var fail atomic.Int32
	s := newTestStore(t, func(o *Options) {
		o.RetryAttempts = 3
		o.RetryBackoff = time.Millisecond
		o.RetryMaxBackoff = time.Millisecond
		o.inject = func(string) error {
			switch fail.Load() {
			case 1:
				return &pgconn.PgError{Severity: "ERROR", Code: stateSerialization, Message: "serialization"}
			case 2:
				return &pgconn.PgError{Severity: "ERROR", Code: "42P01", Message: "no such table"}
			}
			return nil
		}
	})
	ctx := context.Background()
	fail.Store(1)
	_, err := s.AddLink(ctx, mkLink(1, 1, 1, "", 1), true)
	var pe *pgconn.PgError
	if !store.IsTransient(err) || !errors.As(err, &pe) || pe.Code != stateSerialization {
		t.Fatalf("AddLink = %v, want a transient error wrapping 40001", err)
	}
	if got := counter(s, "retries.AddLink"); got != 2 {
		t.Errorf("retries.AddLink = %d, want 2", got)
	}
	fail.Store(2)
	_, err = s.CountLinks(ctx, 1, lt)
	if store.IsTransient(err) || !errorsIsPg(err, "42P01") {
		t.Fatalf("CountLinks = %v, want a plain 42P01", err)
	}
	if got := counter(s, "failures.CountLinks"); got != 1 {
		t.Errorf("failures.CountLinks = %d", got)
	}
	fail.Store(0)
	sess, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closed, err := Open(ctx, Options{DSN: testDSN(t)})
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	if _, err := closed.CountLinks(ctx, 1, lt); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	sess.Close()
	if _, err := sess.CountLinks(ctx, 1, lt); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("session after Close: %v", err)
	}
}

// TestCancelMidCall: a call waiting for a row lock returns when its
// context ends (the session's watch interrupts the connection), and the
// session serves the next call, with another context, on a new
// connection.
func TestCancelMidCall(t *testing.T) {
	s := newTestStore(t, nil)
	admin := adminConn(t)
	ctx := context.Background()
	l := mkLink(8, 80, store.VisibilityDefault, "a", 1)
	if _, err := s.AddLink(ctx, l, true); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT 1 FROM "+s.q.link+" WHERE id1 = 8 FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = sess.DeleteLink(short, 8, lt, 80, true, false)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("DeleteLink with a 200 ms context = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("DeleteLink returned after %v", d)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if found, err := sess.DeleteLink(ctx, 8, lt, 80, true, false); err != nil || !found {
		t.Fatalf("DeleteLink after the cancelled call = %v, %v", found, err)
	}
	if n, err := sess.CountLinks(ctx, 8, lt); err != nil || n != 0 {
		t.Fatalf("CountLinks = %d, %v", n, err)
	}
	checkCountsClean(t, s)
}

// TestAbandonedStatementCancelled: an autocommit node update whose context
// ends while it waits for a row lock held by another session is cancelled
// on the server: when the lock goes, the update is not applied and the
// backend is gone. Without the cancel request the backend keeps waiting
// (it does not notice its client left) and applies the update later.
func TestAbandonedStatementCancelled(t *testing.T) {
	s := newTestStore(t, nil)
	admin := adminConn(t)
	ctx := context.Background()
	n := store.Node{ID: 7, Type: store.DefaultNodeType, Version: 1, Time: 1, Data: []byte("before")}
	if err := s.AddBulkNodes(ctx, []store.Node{n}); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT 1 FROM "+s.q.node+" WHERE id = 7 FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	up := n
	up.Version, up.Data = 2, []byte("after")
	_, err = sess.UpdateNode(short, up)
	cancel()
	if err == nil {
		t.Fatal("UpdateNode behind a row lock returned no error with a 300 ms context")
	}
	if got := counter(s, "cancelled"); got < 1 {
		t.Errorf("cancelled counter %d, want >= 1", got)
	}
	time.Sleep(200 * time.Millisecond)
	// No backend is left waiting for the lock (a second connection of
	// the admin's would be needed to ask while tx holds it).
	probe := adminConn(t)
	var waiting int
	if err := probe.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "+
		"AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()").Scan(&waiting); err != nil {
		t.Fatal(err)
	}
	if waiting != 0 {
		t.Errorf("%d backends still wait for the lock after their call was abandoned", waiting)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	sqlstoretest.NotApplied(t, s)
}
