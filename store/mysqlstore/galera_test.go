package mysqlstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/internal/testdb"
	"github.com/linkbench-go/linkbench/store"
)

// Tests on a three-node Galera cluster ($LINKBENCH_TEST_GALERA_DSN, see
// .ci/galera.sh).

// galeraStore opens a store over the cluster's three nodes (a DSN list) on
// a fresh database, dropped at the end.
func galeraStore(t *testing.T, mod func(*Options)) (*Store, []string) {
	t.Helper()
	dsns, _ := testdb.GaleraDSN(t)
	list := SplitDSN(dsns)
	if len(list) != 3 {
		t.Fatalf("%s lists %d DSNs, want 3", testdb.EnvGaleraDSN, len(list))
	}
	s := newTestStore(t, InnoDB, func(o *Options) {
		o.DSN = dsns
		o.RetryBackoff, o.RetryMaxBackoff = time.Millisecond, 10*time.Millisecond
		if mod != nil {
			mod(o)
		}
	})
	if !s.c.galera {
		t.Fatal("the cluster's first node does not report wsrep_on=1")
	}
	return s, list
}

// onEveryNode opens a store on each node alone (the same database as s),
// whose reads wait until the node applied what the cluster committed
// (wsrep_sync_wait=1, a session variable set from the DSN).
func onEveryNode(t *testing.T, s *Store, list []string, f func(node int, n *Store)) {
	t.Helper()
	for i, dsn := range list {
		n, err := Open(context.Background(), Options{DSN: syncWait(dsn), Database: s.name})
		if err != nil {
			t.Fatalf("node %d: %v", i+1, err)
		}
		f(i+1, n)
		n.Close()
	}
}

// TestGaleraSpread: sessions go round-robin over the nodes, each keeping
// its node (the server's @@wsrep_node_name).
func TestGaleraSpread(t *testing.T) {
	s, _ := galeraStore(t, nil)
	ctx := context.Background()
	seen := map[string]int{}
	for i := range 6 {
		x, err := s.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ss := x.(*Session)
		if ss.ep != i%3 {
			t.Errorf("session %d on endpoint %d, want %d", i, ss.ep, i%3)
		}
		names := map[string]bool{}
		for _, k := range []connKind{connRead, connWrite} {
			c, err := ss.conn(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := c.queryText(ctx, "SELECT @@wsrep_node_name")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.next(rows, 1); err != nil {
				t.Fatal(err)
			}
			names[string(c.dest[0].([]byte))] = true
			rows.Close()
		}
		if len(names) != 1 {
			t.Errorf("session %d: its connections are on nodes %v", i, names)
		}
		for n := range names {
			seen[n]++
		}
		ss.Close()
	}
	if len(seen) != 3 {
		t.Errorf("6 sessions on nodes %v, want 2 on each of 3", seen)
	}
}

// TestGaleraCertificationConflict: two sessions on two nodes hide the same
// visible link at once; both UPDATEs run (on different nodes no lock
// makes one wait) before either COMMIT, so Galera's certification refuses
// the second COMMIT with 1213. It is retried and counted as
// errors.cert_conflict (not errors.1213), and the hide is applied once:
// the count goes from 1 to 0 on every node, not below.
func TestGaleraCertificationConflict(t *testing.T) {
	var commits atomic.Int32
	barrier := make(chan struct{})
	var once sync.Once
	s, list := galeraStore(t, func(o *Options) {
		o.inject = func(op string) error {
			if op != "DeleteLink:commit" || commits.Add(1) > 2 {
				return nil
			}
			// The first two COMMITs wait for each other (at most 5 s).
			if commits.Load() == 2 {
				once.Do(func() { close(barrier) })
			}
			select {
			case <-barrier:
			case <-time.After(5 * time.Second):
			}
			return nil
		}
	})
	ctx := context.Background()
	if _, err := s.AddLink(ctx, mkLink(7, 70, store.VisibilityDefault, "v", 1), true); err != nil {
		t.Fatal(err)
	}
	var ss [2]*Session
	for i := range ss {
		x, err := s.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ss[i] = x.(*Session)
		defer ss[i].Close()
	}
	if ss[0].ep == ss[1].ep {
		t.Fatalf("both sessions on node %d", ss[0].ep+1)
	}
	// A node applies what another committed a little later (reads are not
	// causal without wsrep_sync_wait): wait until both sessions see the link.
	for i := range ss {
		for try := 0; ; try++ {
			_, ok, err := ss[i].GetLink(ctx, 7, lt, 70)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				break
			}
			if try == 500 {
				t.Fatalf("session %d: the link never showed on its node", i)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var wg sync.WaitGroup
	var found [2]bool
	var errs [2]error
	for i := range ss {
		wg.Go(func() {
			found[i], errs[i] = ss[i].DeleteLink(ctx, 7, lt, 70, true, false)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
	}
	if commits.Load() != 2 {
		t.Errorf("%d COMMITs, want 2 (the retry finds the link hidden and commits nothing)", commits.Load())
	}
	if got := counter(s, "errors.cert_conflict"); got != 1 {
		t.Errorf("errors.cert_conflict = %d, want 1 (counters %v)", got, s.Counters())
	}
	if got := counter(s, "errors.1213"); got != 0 {
		t.Errorf("errors.1213 = %d, want 0: a certification conflict has its own class", got)
	}
	if got := counter(s, "retries.DeleteLink"); got != 1 {
		t.Errorf("retries.DeleteLink = %d, want 1", got)
	}
	if !found[0] || !found[1] {
		t.Errorf("found = %v, want both true", found)
	}
	onEveryNode(t, s, list, func(node int, n *Store) {
		if c, err := n.CountLinks(ctx, 7, lt); err != nil || c != 0 {
			t.Errorf("node %d: count = %d, %v; want 0 (the hide applied once)", node, c, err)
		}
		l, ok, err := n.GetLink(ctx, 7, lt, 70)
		if err != nil || !ok || l.Visibility != store.VisibilityHidden {
			t.Errorf("node %d: link = %+v, %v, %v; want it hidden", node, l, ok, err)
		}
	})
	t.Logf("counters %v", s.Counters())
}

// TestGaleraNodeNotReady: a statement refused with 1047 (a node outside
// the primary component: injected on the first statement) moves the
// session to the next node, counted as a reconnect, and the call
// succeeds there.
func TestGaleraNodeNotReady(t *testing.T) {
	var armed atomic.Bool
	s, _ := galeraStore(t, func(o *Options) {
		o.inject = func(op string) error {
			if op == "AddLink:insert" && armed.CompareAndSwap(true, false) {
				return &mysql.MySQLError{Number: 1047, SQLState: [5]byte{'0', '8', 'S', '0', '1'}, Message: "WSREP has not yet prepared node for application use"}
			}
			return nil
		}
	})
	ctx := context.Background()
	x, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ss := x.(*Session)
	defer ss.Close()
	from := ss.ep
	armed.Store(true)
	if _, err := ss.AddLink(ctx, mkLink(3, 30, store.VisibilityDefault, "d", 1), true); err != nil {
		t.Fatal(err)
	}
	if ss.ep != (from+1)%3 {
		t.Errorf("session on endpoint %d after 1047, want %d", ss.ep, (from+1)%3)
	}
	if ss.wr == nil || ss.wr.ep != ss.ep {
		t.Errorf("the write connection did not follow the session")
	}
	if got := counter(s, "reconnects"); got != 1 {
		t.Errorf("reconnects = %d, want 1", got)
	}
	if got := counter(s, "errors.1047"); got != 1 {
		t.Errorf("errors.1047 = %d, want 1", got)
	}
	mustCount(t, s, 3, lt, 1)
}

// TestGaleraRefusedNode: a node that refuses connections (a closed port
// in the list) moves the sessions placed on it to the next node.
func TestGaleraRefusedNode(t *testing.T) {
	dsns, _ := testdb.GaleraDSN(t)
	list := SplitDSN(dsns)
	cfg, err := mysql.ParseDSN(list[0])
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr = "127.0.0.1:1" // nothing listens there
	bad := cfg.FormatDSN()
	s := newTestStore(t, InnoDB, func(o *Options) { o.DSN = strings.Join([]string{list[0], bad, list[2]}, ",") })
	ctx := context.Background()
	for i := range 3 {
		x, err := s.Session(ctx)
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		ss := x.(*Session)
		if ss.ep == 1 {
			t.Errorf("session %d on the refusing node", i)
		}
		if _, err := ss.AddLink(ctx, mkLink(int64(10+i), 1, store.VisibilityDefault, "", 1), true); err != nil {
			t.Fatal(err)
		}
		ss.Close()
	}
	if got := counter(s, "reconnects"); got != 1 {
		t.Errorf("reconnects = %d, want 1 (the session placed on the refusing node)", got)
	}
}

// TestGaleraAmbiguousCommit: a COMMIT that succeeded but whose reply was
// lost (an injected lost connection after it) is not sent again: the
// retry reads the link back, finds it written, and returns; counted as
// ambiguous and ambiguous_applied, and the count is 1, not 2.
func TestGaleraAmbiguousCommit(t *testing.T) {
	var armed atomic.Bool
	s, list := galeraStore(t, func(o *Options) {
		o.injectCommitted = func(op string) error {
			if armed.CompareAndSwap(true, false) {
				return mysql.ErrInvalidConn
			}
			return nil
		}
	})
	ctx := context.Background()
	x, err := s.Session(ctx) // one node: its reads see its own writes
	if err != nil {
		t.Fatal(err)
	}
	ss := x.(*Session)
	defer ss.Close()
	for _, c := range []struct {
		name string
		do   func() error
	}{
		{"AddLink", func() error {
			_, err := ss.AddLink(ctx, mkLink(5, 50, store.VisibilityDefault, "a", 10), true)
			return err
		}},
		{"UpdateLink", func() error {
			_, err := ss.UpdateLink(ctx, mkLink(5, 51, store.VisibilityDefault, "u", 11), true)
			return err
		}},
		{"DeleteLink", func() error {
			found, err := ss.DeleteLink(ctx, 5, lt, 50, true, false)
			if err == nil && !found {
				err = errors.New("not found")
			}
			return err
		}},
	} {
		before := counter(s, "ambiguous_applied")
		upd := counter(s, "add_to_upd")
		armed.Store(true)
		if err := c.do(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if armed.Load() {
			t.Fatalf("%s: no COMMIT", c.name)
		}
		if got := counter(s, "ambiguous_applied") - before; got != 1 {
			t.Errorf("%s: ambiguous_applied grew by %d, want 1", c.name, got)
		}
		if got := counter(s, "add_to_upd") - upd; got != 0 {
			t.Errorf("%s: the write was sent again (add_to_upd grew by %d)", c.name, got)
		}
	}
	if got := counter(s, "ambiguous"); got != 3 {
		t.Errorf("ambiguous = %d, want 3", got)
	}
	onEveryNode(t, s, list, func(node int, n *Store) {
		if c, err := n.CountLinks(ctx, 5, lt); err != nil || c != 1 {
			t.Errorf("node %d: count = %d, %v; want 1 (two links added, one hidden, each once)", node, c, err)
		}
	})
}

// TestGaleraRefusesRocksDB: ROCKSDB tables on a Galera node are refused
// at Open and at CreateSchema with one clear error.
func TestGaleraRefusesRocksDB(t *testing.T) {
	dsns, _ := testdb.GaleraDSN(t)
	_, err := Open(context.Background(), Options{DSN: dsns, Engine: RocksDB})
	if !errors.Is(err, errRocksDBGalera) {
		t.Errorf("Open with engine ROCKSDB = %v, want %v", err, errRocksDBGalera)
	}
	s, _ := galeraStore(t, nil)
	err = s.CreateSchema(context.Background(), s.name+"_r", SchemaOptions{Engine: RocksDB})
	if !errors.Is(err, errRocksDBGalera) {
		t.Errorf("CreateSchema with engine ROCKSDB = %v, want %v", err, errRocksDBGalera)
	}
}

// syncWait returns dsn with the session variable wsrep_sync_wait=1: reads
// on its connections see everything the cluster committed before them.
func syncWait(dsn string) string {
	if strings.Contains(dsn, "?") {
		return dsn + "&wsrep_sync_wait=1"
	}
	return dsn + "?wsrep_sync_wait=1"
}

// TestGaleraNotPrimary: 1180 (a node outside the primary component) moves
// the session to the next node like 1047, counted as errors.1180 and a
// reconnect: on a statement (injected) the call is retried there and
// succeeds; after a COMMIT that took effect (injected after it) the
// retry reads the link back on the next node and does not write it again.
func TestGaleraNotPrimary(t *testing.T) {
	notPrimary := &mysql.MySQLError{Number: 1180, SQLState: [5]byte{'H', 'Y', '0', '0', '0'}, Message: "Not connected to Primary Component"}
	var armed, armedCommit atomic.Bool
	s, _ := galeraStore(t, func(o *Options) {
		o.inject = func(op string) error {
			if op == "UpdateNode:update" && armed.CompareAndSwap(true, false) {
				return notPrimary
			}
			return nil
		}
		o.injectCommitted = func(op string) error {
			if armedCommit.CompareAndSwap(true, false) {
				return notPrimary
			}
			return nil
		}
	})
	ctx := context.Background()
	x, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ss := x.(*Session)
	defer ss.Close()
	id, err := ss.AddNode(ctx, store.Node{Type: 1, Version: 1, Time: 1, Data: []byte("a")})
	if err != nil {
		t.Fatal(err)
	}
	from := ss.ep
	armed.Store(true)
	if found, err := ss.UpdateNode(ctx, store.Node{ID: id, Type: 1, Version: 2, Time: 2, Data: []byte("b")}); err != nil || !found {
		t.Fatalf("UpdateNode after 1180: found %v, %v", found, err)
	}
	if ss.ep != (from+1)%3 {
		t.Errorf("session on endpoint %d after 1180, want %d", ss.ep, (from+1)%3)
	}
	armedCommit.Store(true)
	upd := counter(s, "add_to_upd")
	if _, err := ss.AddLink(ctx, mkLink(7, 70, store.VisibilityDefault, "d", 1), true); err != nil {
		t.Fatalf("AddLink with 1180 after its COMMIT: %v", err)
	}
	if ss.ep != (from+2)%3 {
		t.Errorf("session on endpoint %d after the second 1180, want %d", ss.ep, (from+2)%3)
	}
	if got := counter(s, "add_to_upd") - upd; got != 0 {
		t.Errorf("the link was written again (add_to_upd grew by %d)", got)
	}
	if got := counter(s, "ambiguous_applied"); got != 1 {
		t.Errorf("ambiguous_applied = %d, want 1", got)
	}
	if got := counter(s, "errors.1180"); got != 2 {
		t.Errorf("errors.1180 = %d, want 2", got)
	}
	if got := counter(s, "reconnects"); got != 2 {
		t.Errorf("reconnects = %d, want 2", got)
	}
	mustCount(t, s, 7, lt, 1)
}

// TestDSNListRefused: a DSN list whose nodes have different users is
// refused at Open (before any connection); so is a list whose first node
// is not a Galera node (the plain test server listed twice), naming it.
func TestDSNListRefused(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, Options{DSN: "u:pw@tcp(127.0.0.1:1)/,v:pw@tcp(127.0.0.1:2)/"})
	if err == nil || !strings.Contains(err.Error(), "node 2 has another user") {
		t.Errorf("two users: %v, want node 2 refused for its user", err)
	}
	dsn := testDSN(t)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, Options{DSN: dsn + "," + dsn})
	if err == nil {
		s.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "not a Galera node") || !strings.Contains(err.Error(), cfg.Addr) {
		t.Errorf("a list of a plain server: %v, want it refused naming %s", err, cfg.Addr)
	}
}
