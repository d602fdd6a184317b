package linkbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// TestTracerFormat: every store call's line, with the worker tags of the
// trace format (see Tracer).
func TestTracerFormat(t *testing.T) {
	var buf bytes.Buffer
	tr := NewTracer(&buf)
	mem := memstore.New()
	st := tr.Wrap(mem)
	bg := context.Background()
	req := withWorker(bg, stats.PhaseRequest, 3)
	load := withWorker(bg, stats.PhaseLoad, 2)
	lt := store.DefaultLinkType
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.ResetNodeStore(load, 1))
	must(st.(store.BulkNodeLoader).AddBulkNodes(load, []store.Node{
		{ID: 1, Type: store.DefaultNodeType, Data: []byte{200, 1}}, {ID: 2, Type: store.DefaultNodeType}}))
	must(st.(store.BulkLinkLoader).AddBulkLinks(load, []store.Link{
		{ID1: 1, LinkType: lt, ID2: 5, Data: []byte("ab")}, {ID1: 1, LinkType: lt + 1, ID2: 6}}, true))
	must(st.(store.BulkLinkLoader).AddBulkCounts(load, []store.LinkCount{{ID1: 1, LinkType: lt, Count: 1}}))
	_, err := st.AddLink(req, store.Link{ID1: 7, LinkType: lt, ID2: 8, Data: make([]byte, 12)}, true)
	must(err)
	_, err = st.UpdateLink(req, store.Link{ID1: 7, LinkType: lt, ID2: 8, Data: make([]byte, 3)}, true)
	must(err)
	_, err = st.DeleteLink(req, 7, lt, 8, true, false)
	must(err)
	_, err = st.DeleteLink(req, 7, lt, 8, true, true)
	must(err)
	_, _, err = st.GetLink(req, 1, lt, 5)
	must(err)
	_, err = st.CountLinks(req, 1, lt)
	must(err)
	_, err = st.MultigetLinks(req, 1, lt, []int64{5, 9, 5}, nil)
	must(err)
	_, err = st.GetLinkList(req, store.FullRange(1, lt), nil)
	must(err)
	_, err = st.GetLinkList(req, store.LinkRange{ID1: 1, LinkType: lt, MaxTime: 99, Offset: 1, Limit: store.DefaultLimit}, nil)
	must(err)
	id, err := st.AddNode(req, store.Node{ID: -1, Type: store.DefaultNodeType, Data: make([]byte, 4)})
	must(err)
	_, _, err = st.GetNode(req, store.DefaultNodeType, id)
	must(err)
	_, err = st.UpdateNode(req, store.Node{ID: id, Type: store.DefaultNodeType, Data: make([]byte, 2)})
	must(err)
	_, err = st.DeleteNode(bg, store.DefaultNodeType, id)
	must(err)
	tr.Comment("done\nreally")
	must(tr.Close())
	want := `l2 resetNodeStore start=1
l2 bulkAddNodes n=2
l2 bulkAddNode id=1 len=2 data0=-56
l2 bulkAddNode id=2 len=0 data0=-
l2 addBulkLinks n=2
l2 bulkLink id1=1 type=123456789 id2=5 len=2 data0=97
l2 bulkLink id1=1 type=123456790 id2=6 len=0 data0=-
l2 addBulkCounts n=1
l2 bulkCount id1=1 type=123456789 count=1
t3 addLink id1=7 type=123456789 id2=8 len=12
t3 updateLink id1=7 type=123456789 id2=8 len=3
t3 deleteLink id1=7 type=123456789 id2=8
t3 deleteLink id1=7 type=123456789 id2=8 expunge=true
t3 getLink id1=1 type=123456789 id2=5
t3 countLinks id1=1 type=123456789
t3 multigetLinks id1=1 type=123456789 id2s=[5, 9, 5]
t3 getLinkList id1=1 type=123456789
t3 getLinkList(range) id1=1 type=123456789 off=1 lim=10000
t3 addNode -> 3 len=4
t3 getNode id=3
t3 updateNode id=3 len=2
- deleteNode id=3
# done really
`
	if got := buf.String(); got != want {
		t.Errorf("trace:\n%s\nwant:\n%s", got, want)
	}
	// After Close, calls still reach the store but are not traced.
	if _, err := st.CountLinks(req, 1, lt); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(buf.String(), "# done really\n") || !errors.Is(tr.Flush(), ErrTracerClosed) {
		t.Error("a closed tracer wrote or flushed")
	}
}

// capped is a store with the optional capabilities of caps only, from
// memstore (which has all but Sessions) plus a Session of its own. Its
// views of other databases are memstore's own (an identity Wrap).
type capped struct {
	store.Forward
	caps store.Capability
	last *cappedSession
}

func (c *capped) Capabilities() store.Capability { return c.caps }

func identity(s store.Store) store.Store { return s }

// Session opens a session that counts its Close.
func (c *capped) Session(ctx context.Context) (store.Session, error) {
	c.last = &cappedSession{Forward: store.Forward{Inner: c.Inner, Wrap: identity}}
	return c.last, nil
}

type cappedSession struct {
	store.Forward
	closed int
}

func (s *cappedSession) Close() error { s.closed++; return nil }

// TestTracerKeepsCapabilities: Wrap reports exactly the capabilities of
// the inner store, for all 32 combinations, and the databases and
// sessions of a traced store are traced.
func TestTracerKeepsCapabilities(t *testing.T) {
	all := store.CapBulkLinks | store.CapBulkNodes | store.CapDatabases | store.CapChecker | store.CapSessions
	for caps := range all + 1 {
		inner := &capped{Forward: store.Forward{Inner: memstore.New(), Wrap: identity}, caps: caps}
		if got := store.Capabilities(NewTracer(io.Discard).Wrap(inner)); got != caps {
			t.Errorf("Wrap of a store with capabilities %v has %v", caps, got)
		}
	}
	var buf bytes.Buffer
	tr := NewTracer(&buf)
	m := memstore.New()
	inner := &capped{Forward: store.Forward{Inner: m, Wrap: identity}, caps: all}
	traced := tr.Wrap(inner)
	dbs, ok := store.AsDatabases(traced)
	if !ok {
		t.Fatal("a traced store lost Databases")
	}
	db, err := dbs.Database(context.Background(), "linkdb1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := store.Capabilities(db), store.Capabilities(m); got != want {
		t.Errorf("a traced database has capabilities %v, want %v", got, want)
	}
	if _, err := db.CountLinks(context.Background(), 1, 2); err != nil {
		t.Fatal(err)
	}
	sess, err := store.OpenSession(context.Background(), traced)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.CountLinks(context.Background(), 3, 4); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil || inner.last == nil || inner.last.closed != 1 {
		t.Fatalf("closing the traced session: %v; inner session %+v", err, inner.last)
	}
	if err := tr.Flush(); err != nil || buf.String() != "- countLinks id1=1 type=2\n- countLinks id1=3 type=4\n" {
		t.Errorf("database and session calls traced as %q (%v)", buf.String(), err)
	}
}

// TestTracerConcurrent: lines written from many goroutines are whole.
func TestTracerConcurrent(t *testing.T) {
	var buf bytes.Buffer
	tr := NewTracer(&buf)
	st := tr.Wrap(discard.New())
	const workers, calls = 8, 500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ctx := withWorker(context.Background(), stats.PhaseRequest, w)
			links := []store.Link{{ID1: 1, ID2: 2}, {ID1: 1, ID2: 3}}
			for i := range calls {
				if i%2 == 0 {
					_, _ = st.MultigetLinks(ctx, int64(w), int64(i), []int64{1, 2, 3}, nil)
				} else {
					_ = st.(store.BulkLinkLoader).AddBulkLinks(ctx, links, true)
				}
			}
		})
	}
	wg.Wait()
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	perWorker := map[string]int{}
	for _, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		tag, rest, _ := strings.Cut(l, " ")
		switch {
		case strings.HasPrefix(rest, "multigetLinks id1="+tag[1:]+" ") && strings.HasSuffix(rest, " id2s=[1, 2, 3]"),
			rest == "addBulkLinks n=2",
			strings.HasPrefix(rest, "bulkLink id1=1 type=0 id2="):
			perWorker[tag]++
		default:
			t.Fatalf("mangled line %q", l)
		}
	}
	for w := range workers {
		if n := perWorker[fmt.Sprint("t", w)]; n != calls/2*4 {
			t.Errorf("worker %d wrote %d lines, want %d", w, n, calls/2*4)
		}
	}
}

// TestTracerAllocs: tracing a call allocates nothing.
func TestTracerAllocs(t *testing.T) {
	tr := NewTracer(io.Discard)
	st := tr.Wrap(discard.New())
	ctx := withWorker(context.Background(), stats.PhaseRequest, 12)
	id2s := []int64{1, 2, 3, 4}
	dst := make([]store.Link, 0, 8)
	links := []store.Link{{ID1: 1, ID2: 2, Data: []byte{1}}, {ID1: 1, ID2: 3}}
	l := store.Link{ID1: 5, LinkType: 6, ID2: 7, Data: []byte("xyz")}
	allocs := testing.AllocsPerRun(200, func() {
		_, _, _ = st.GetNode(ctx, store.DefaultNodeType, 42)
		_, _ = st.MultigetLinks(ctx, 1, 2, id2s, dst[:0])
		_, _ = st.AddLink(ctx, l, true)
		_, _ = st.GetLinkList(ctx, store.FullRange(1, 2), dst[:0])
		_ = st.(store.BulkLinkLoader).AddBulkLinks(ctx, links, true)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per traced batch of calls, want 0", allocs)
	}
}

type failWriter struct{}

var errDiskFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

// TestTracerWriteError: a failing writer does not fail store calls; Flush
// and Close report it.
func TestTracerWriteError(t *testing.T) {
	tr := NewTracer(failWriter{})
	st := tr.Wrap(memstore.New())
	for i := range 20000 { // more than the buffer holds
		if _, err := st.CountLinks(context.Background(), int64(i), 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Flush(); !errors.Is(err, errDiskFull) {
		t.Errorf("Flush = %v", err)
	}
	if err := tr.Close(); !errors.Is(err, errDiskFull) {
		t.Errorf("Close = %v", err)
	}
}

// TestTracerWriteConfig: "# config key=value" lines that read back into
// the same configuration, without the password.
func TestTracerWriteConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RNG = RNGJava
	cfg.Store.Engine = "rocksdb"
	cfg.LoadRandomSeed = FixedSeed(-5)
	cfg.DBLoad = []float64{30, 70}
	cfg.DBCount = 2
	var buf bytes.Buffer
	tr := NewTracer(&buf)
	if err := tr.WriteConfig(&cfg); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "s3cret") || strings.Contains(out, "password") {
		t.Errorf("the password is in the trace:\n%s", out)
	}
	back := DefaultConfig()
	back.Store.LinkTable = "changed" // must be restored from the trace
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		kv, ok := strings.CutPrefix(l, "# config ")
		if !ok {
			t.Fatalf("line %q", l)
		}
		k, v, _ := strings.Cut(kv, "=")
		if err := back.Set(k, v); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	if g, w := fmt.Sprintf("%+v", back), fmt.Sprintf("%+v", cfg); g != w {
		t.Errorf("config read back from the trace differs:\n got %s\nwant %s", g, w)
	}
	for _, k := range []string{"rng=java", "load_random_seed=-5", "dbload=30,70", "engine=rocksdb", "maxid1=10000001"} {
		if !strings.Contains(out, "# config "+k+"\n") {
			t.Errorf("no line for %s", k)
		}
	}
}

// TestTraceRunComments: Load and Request note their seed and mode in the
// trace.
func TestTraceRunComments(t *testing.T) {
	cfg := smallConfig(1001)
	zipfOutDegree(&cfg)
	cfg.Requests = 10
	var buf bytes.Buffer
	tr := NewTracer(&buf)
	st := tr.Wrap(memstore.New())
	if _, err := Load(context.Background(), cfg, st); err != nil {
		t.Fatal(err)
	}
	if _, err := Request(context.Background(), cfg, st); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"# load load_random_seed=7 rng=fast loaders=2 maxid1=1001\n",
		"# request request_random_seed=42 rng=fast requesters=2 requests=10 request_stream_seed=42 step=0 sweep=0 shard=0/1\n"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("trace lacks %q", w)
		}
	}
	lines := traceLines(buf.String())
	var nodes, reqs int
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "l2 bulkAddNode "):
			nodes++
		case strings.HasPrefix(l, "t0 "), strings.HasPrefix(l, "t1 "):
			reqs++
		case strings.HasPrefix(l, "l0 bulk"), strings.HasPrefix(l, "l1 bulk"):
		default:
			t.Fatalf("unexpected line %q", l)
		}
	}
	if nodes != 1000 || reqs != 20 {
		t.Errorf("%d node lines (want 1000), %d request lines (want 20)", nodes, reqs)
	}
}

// TestTraceShardRequesters: a sharded request phase tags its requesters'
// calls with their numbers in the run (shard 1/2 of 2 requesters: t2 and
// t3, the streams they draw), and its trace comment names the shard and
// the stream seed.
func TestTraceShardRequesters(t *testing.T) {
	cfg := smallConfig(1001)
	cfg.Requests = 10
	cfg.AllowEmptyStore = true
	cfg.Shard = Shard{Index: 1, Count: 2}
	var buf bytes.Buffer
	tr := NewTracer(&buf)
	if _, err := Request(context.Background(), cfg, tr.Wrap(memstore.New())); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if w := "# request request_random_seed=42 rng=fast requesters=2 requests=10 request_stream_seed=42 step=0 sweep=0 shard=1/2\n"; !strings.Contains(buf.String(), w) {
		t.Errorf("trace lacks %q", w)
	}
	tags := map[string]int{}
	for _, l := range traceLines(buf.String()) {
		tags[strings.Fields(l)[0]]++
	}
	if len(tags) != 2 || tags["t2"] != 10 || tags["t3"] != 10 {
		t.Errorf("calls by tag %v, want 10 each of t2 and t3", tags)
	}
}
