package linkbench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rand"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/internal/testref"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// javaConfig is reference §10.3's setup: LinkBench's shipped configuration
// (LinkConfigMysql + FBWorkload) with the real Distribution.dat, maxid1 =
// 100001, rng = java, one loader and one requester.
func javaConfig(t testing.TB) Config {
	cfg := DefaultConfig()
	cfg.RNG = RNGJava
	cfg.DataFile = testref.File(t, "Distribution.dat")
	cfg.MaxID1 = 100_001
	cfg.Loaders = 1
	cfg.Requesters = 1
	cfg.LoadRandomSeed = FixedSeed(1)
	cfg.RequestRandomSeed = FixedSeed(1)
	cfg.Now = fixedClock
	return cfg
}

// traceRun runs fn with a memstore wrapped by a Tracer and returns the
// trace lines, comments and batch headers removed.
func traceRun(t testing.TB, fn func(st store.Store) error) ([]string, *memstore.Store) {
	t.Helper()
	var buf bytes.Buffer
	tr := NewTracer(&buf)
	mem := memstore.New()
	if err := fn(tr.Wrap(mem)); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	return traceLines(buf.String()), mem
}

// traceLines splits a trace into its call lines (comments and batch
// headers dropped).
func traceLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == '#' || isBatchHeader(l) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// isBatchHeader reports whether a trace line is a batch header, which
// comparisons ignore (see Tracer).
func isBatchHeader(l string) bool {
	_, rest, _ := strings.Cut(l, " ")
	for _, h := range []string{"addBulkLinks ", "addBulkCounts ", "bulkAddNodes ", "resetNodeStore "} {
		if strings.HasPrefix(rest, h) {
			return true
		}
	}
	return false
}

// diffLines fails with the first difference of two line lists.
func diffLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("%s: line %d differs:\n got: %s\nwant: %s", what, i+1, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d lines, want %d", what, len(got), len(want))
	}
}

func ptr[T any](v T) *T { return &v }

// TestJavaGoldenLinkLoad: reference §10.3's link load, chunk [1, 11) with
// new Random(7), through Load (the chunk and its Random given by a test
// hook): per link id1, type, id2, payload length and first byte in the
// trace, and the nextInt of its time (read back from the store: time =
// now - 2^31 + nextInt). Default rules (bulk and row by row) and legacy
// rules.
func TestJavaGoldenLinkLoad(t *testing.T) {
	// id1 type(0/1) id2 len data0 nextInt, from reference §10.3.
	golden := `1 0 1 54 51 1651134565 | 1 1 1 57 42 -1136610582 | 2 0 2 13 91 19767018 | 2 1 2 18 36 -353179281 |
3 0 3 9 42 -1592127831 | 3 1 3 4 72 1503419058 | 4 0 4 8 99 -1262256764 | 4 1 4 51 38 -762855470 |
5 0 5 25 57 923632971 | 5 1 5 4 63 624826815 | 6 0 6 20 89 653582160 | 6 1 6 7 73 -1855117354 |
7 0 7 14 46 -763487208 | 7 1 7 5 54 1207608133 | 8 0 8 38 82 1451758901 | 8 1 8 68 96 -1320585264 |
9 0 9 28 75 -644988529 | 9 1 9 52 50 -1902003410 | 10 0 10 10 45 -857170911 | 10 1 10 93 49 -690696984`
	type row struct {
		id1, typ, id2, n int64
		d0               int
		next             int64
	}
	var rows []row
	for _, f := range strings.Split(strings.ReplaceAll(golden, "\n", ""), "|") {
		var r row
		if _, err := fmt.Sscan(f, &r.id1, &r.typ, &r.id2, &r.n, &r.d0, &r.next); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	nowMs := fixedClock().UnixMilli()
	for _, bulk := range []bool{true, false} {
		t.Run(fmt.Sprintf("bulk=%v", bulk), func(t *testing.T) {
			cfg := javaConfig(t)
			cfg.GenerateNodes = false
			hooks := &javaHooks{chunks: [][2]int64{{1, 11}}, chunkSeed: ptr(int64(7))}
			lines, mem := traceRun(t, func(st store.Store) error {
				if !bulk {
					st = rowStore{st}
				}
				rep, err := hookedLoad(context.Background(), cfg, st, hooks)
				if err == nil && (rep.Load.Links != 20 || rep.Load.Counts != 20) {
					err = fmt.Errorf("loaded %d links, %d counts; want 20, 20", rep.Load.Links, rep.Load.Counts)
				}
				return err
			})
			var want []string
			for _, r := range rows {
				typ := store.DefaultLinkType + r.typ
				if bulk {
					want = append(want, fmt.Sprintf("l0 bulkLink id1=%d type=%d id2=%d len=%d data0=%d", r.id1, typ, r.id2, r.n, r.d0))
				} else {
					want = append(want, fmt.Sprintf("l0 addLink id1=%d type=%d id2=%d len=%d", r.id1, typ, r.id2, r.n))
				}
			}
			if bulk {
				for id1 := int64(1); id1 <= 10; id1++ {
					for typ := int64(0); typ < 2; typ++ {
						want = append(want, fmt.Sprintf("l0 bulkCount id1=%d type=%d count=1", id1, store.DefaultLinkType+typ))
					}
				}
				// Count rows go in their own batches: compare the links, then the counts.
				lines = append(filterPrefix(lines, "l0 bulkLink "), filterPrefix(lines, "l0 bulkCount ")...)
			}
			diffLines(t, "link load trace", lines, want)
			// With one database the drivers use the store as given.
			var db store.Store = mem
			for _, r := range rows {
				l, found, err := db.GetLink(context.Background(), r.id1, store.DefaultLinkType+r.typ, r.id2)
				if err != nil || !found {
					t.Fatalf("link %+v not stored: %v", r, err)
				}
				if want := nowMs - 1<<31 + r.next; l.Time != want {
					t.Errorf("link %d/%d time %d, want now - 2^31 + %d = %d", r.id1, r.typ, l.Time, r.next, want)
				}
			}
		})
	}
	t.Run("legacy", func(t *testing.T) {
		cfg := javaConfig(t)
		cfg.GenerateNodes = false
		cfg.NeverChange = true
		hooks := &javaHooks{chunks: [][2]int64{{1, 11}}, chunkSeed: ptr(int64(7))}
		lines, _ := traceRun(t, func(st store.Store) error {
			_, err := hookedLoad(context.Background(), cfg, st, hooks)
			return err
		})
		// 15 links: id1 1-5 one of type 0; id1 6: type 0 id2 6, 7 and type
		// 1 id2 6; id1 7, 8 one each; id1 9: type 0 id2 9, 10, type 1 id2
		// 9, 10; id1 10 one of type 0; payload lengths in this order.
		var want []string
		lens := []int{54, 57, 13, 18, 9, 4, 8, 51, 25, 4, 20, 7, 14, 5, 38}
		links := [][3]int64{{1, 0, 1}, {2, 0, 2}, {3, 0, 3}, {4, 0, 4}, {5, 0, 5}, {6, 0, 6}, {6, 0, 7}, {6, 1, 6},
			{7, 0, 7}, {8, 0, 8}, {9, 0, 9}, {9, 0, 10}, {9, 1, 9}, {9, 1, 10}, {10, 0, 10}}
		for i, l := range links {
			want = append(want, fmt.Sprintf("id1=%d type=%d id2=%d len=%d", l[0], store.DefaultLinkType+l[1], l[2], lens[i]))
		}
		got := filterPrefix(lines, "l0 bulkLink ")
		for i := range got {
			got[i] = strings.TrimPrefix(got[i], "l0 bulkLink ")
			got[i] = got[i][:strings.Index(got[i], " data0=")]
		}
		diffLines(t, "legacy link load trace", got, want)
		counts := filterPrefix(lines, "l0 bulkCount ")
		if len(counts) != 12 {
			t.Fatalf("%d count rows, want 12: %v", len(counts), counts)
		}
		for _, c := range []string{"id1=6 type=123456789 count=2", "id1=9 type=123456789 count=2", "id1=9 type=123456790 count=2"} {
			if !contains(counts, "l0 bulkCount "+c) {
				t.Errorf("count row %q missing from %v", c, counts)
			}
		}
	})
}

// rowStore hides the bulk capabilities of a store (row-by-row load).
type rowStore struct{ store.Store }

func filterPrefix(lines []string, p string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, p) {
			out = append(out, l)
		}
	}
	return out
}

func contains(a []string, s string) bool {
	for _, x := range a {
		if x == s {
			return true
		}
	}
	return false
}

// TestJavaGoldenNodeLoad: reference §10.3's node load, ids 1..5 with new
// Random(7) and node_datasize 168, through Load (the Random given by a test
// hook, no link chunk).
func TestJavaGoldenNodeLoad(t *testing.T) {
	cfg := javaConfig(t)
	hooks := &javaHooks{chunks: [][2]int64{}, nodeSeed: ptr(int64(7))}
	cfg.MaxID1 = 6 // the node loader writes ids 1..5; nothing else depends on maxid1 here
	lines, _ := traceRun(t, func(st store.Store) error {
		_, err := hookedLoad(context.Background(), cfg, st, hooks)
		return err
	})
	want := []string{
		"l1 bulkAddNode id=1 len=391 data0=97",
		"l1 bulkAddNode id=2 len=419 data0=127",
		"l1 bulkAddNode id=3 len=68 data0=-66",
		"l1 bulkAddNode id=4 len=39 data0=-91",
		"l1 bulkAddNode id=5 len=91 data0=-94",
	}
	diffLines(t, "node load trace", lines, want)
}

// TestJavaGoldenRequests: reference §10.3's 25 requests of requester 0 of
// 1 with new Random(42) (given by a test hook), FBWorkload mix, maxid1 =
// 100001, both profiles, through Request on an empty memstore.
func TestJavaGoldenRequests(t *testing.T) {
	const t0, t1 = "type=123456789", "type=123456790"
	def := []string{
		"getLinkList id1=31145 " + t0,
		"getNode id=43702",
		"countLinks id1=44349 " + t1,
		"getNode id=80547",
		"multigetLinks id1=78617 " + t1 + " id2s=[78617, 78617]",
		"addLink id1=11274 " + t1 + " id2=21289 len=6",
		"getNode id=66931",
		"getLinkList id1=22530 " + t1,
		"getNode id=94316",
		"multigetLinks id1=91254 " + t0 + " id2s=[91254, 68802]",
		"getLinkList id1=32815 " + t0,
		"getLinkList id1=65692 " + t1,
		"getNode id=63499",
		"getLinkList id1=43269 " + t1,
		"multigetLinks id1=79652 " + t1 + " id2s=[3776, 79652, 90400]",
		"getLinkList id1=48139 " + t0,
		"getNode id=98355",
		"getNode id=61723",
		"multigetLinks id1=14453 " + t1 + " id2s=[14453, 35697, 18658, 14453, 98675, 14453, 7269]",
		"getNode id=87650",
		"getLinkList id1=99066 " + t0,
		"getLinkList id1=64847 " + t1,
		"getNode id=24623",
		"addLink id1=21935 " + t0 + " id2=82689 len=37",
		"updateLink id1=99564 " + t1 + " id2=99564 len=46",
	}
	// Legacy: reference §10.3's abbreviated form, expanded.
	legacy := []string{
		"getLinkList id1=31145 " + t0,
		"getNode id=43702",
		"countLinks id1=44349 " + t1,
		"getNode id=80547",
		"multigetLinks id1=78617 " + t1 + " id2s=[78617, 78618]",
		"getNode id=76580",
		"addLink id1=11274 " + t1 + " id2=11274 len=35",
		"multigetLinks id1=88329 " + t0 + " id2s=[88329, 88330]",
		"addLink id1=23782 " + t0 + " id2=23788 len=17",
		"getNode id=79595",
		"addLink id1=39 " + t1 + " id2=39 len=29",
		"getNode id=1891",
		"getLinkList id1=65692 " + t1,
		"getNode id=63499",
		"getLinkList id1=43269 " + t1,
		"multigetLinks id1=79652 " + t1 + " id2s=[79652, 79653, 79654]",
		"multigetLinks id1=44246 " + t1 + " id2s=[44246, 44247]",
		"getNode id=22768",
		"getLinkList id1=71707 " + t0,
		"getNode id=76689",
		"getLinkList id1=46297 " + t0,
		"multigetLinks id1=66944 " + t0 + " id2s=[66944, 66945]",
		"multigetLinks id1=32815 " + t0 + " id2s=[32815, 32816, 32817, 32818]",
		"multigetLinks id1=71541 " + t0 + " id2s=[71541, 71542]",
		"getLinkList id1=80758 " + t0,
	}
	for _, c := range []struct {
		name   string
		legacy bool
		want   []string
	}{{"default", false, def}, {"legacy", true, legacy}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := javaConfig(t)
			cfg.NeverChange = c.legacy
			cfg.Requests = 25
			hooks := &javaHooks{requesterSeed: func(int) int64 { return 42 }}
			cfg.AllowEmptyStore = true // as the golden trace's Java run: -r on an empty store
			lines, _ := traceRun(t, func(st store.Store) error {
				_, err := hookedRequest(context.Background(), cfg, st, hooks)
				return err
			})
			want := make([]string, len(c.want))
			for i, w := range c.want {
				want[i] = "t0 " + w
			}
			diffLines(t, "request trace", lines, want)
		})
	}
}

// TestJavaModeConfig: the rng key, and Java mode's need for the real data
// file (never the built-in model), reported as errors naming the key.
func TestJavaModeConfig(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Set("rng", "Java"); err != nil || cfg.RNG != RNGJava {
		t.Fatalf("rng=Java: %v, %q", err, cfg.RNG)
	}
	var ce *ConfigError
	if err := cfg.Set("rng", "fastest"); !errors.As(err, &ce) || ce.Key != "rng" {
		t.Errorf("rng=fastest: %v", err)
	}
	cfg.RNG = "mersenne"
	if err := cfg.Validate(); !errors.As(err, &ce) || ce.Key != "rng" {
		t.Errorf("Validate with rng=mersenne: %v", err)
	}
	for _, df := range []string{"", DefaultDataFile, "no/such/Distribution.dat"} {
		cfg := javaConfig(t)
		cfg.DataFile = df
		err := Check(cfg, true)
		if !errors.As(err, &ce) || ce.Key != "data_file" {
			t.Errorf("rng=java, data_file=%q: %v, want a data_file error", df, err)
		}
		cfg.RNG = RNGFast
		if err := Check(cfg, true); (err == nil) != (df != "no/such/Distribution.dat") {
			t.Errorf("rng=fast, data_file=%q: %v", df, err)
		}
	}
	// Without a real distribution in the workload, Java mode needs no file.
	cfg = javaConfig(t)
	cfg.DataFile = ""
	cfg.NLinksFunc, cfg.NLinksDefault = "const", 3
	if err := Check(cfg, true); err != nil {
		t.Errorf("rng=java with nlinks_func=const and no data file: %v", err)
	}
	cfg.Read.Spec.Kind, cfg.Read.Function = distributions.KindReal, "real"
	if err := Check(cfg, true); !errors.As(err, &ce) || ce.Key != "data_file" {
		t.Errorf("rng=java with read_function=real and no data file: %v", err)
	}
}

// TestJavaModeReportHeader: reports name the random mode.
func TestJavaModeReportHeader(t *testing.T) {
	cfg := javaConfig(t)
	cfg.Requests = 10
	cfg.AllowEmptyStore = true
	rep, err := Request(context.Background(), cfg, memstore.New())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, kv := range rep.Header {
		if kv.Key == "random mode" && strings.HasPrefix(kv.Value, "java ") {
			found = true
		}
	}
	if !found {
		t.Errorf("header %v does not name the java random mode", rep.Header)
	}
}

// TestJavaModeSeveralLoaders: with loaders > 1 the Java-mode load shares
// one generator among the loaders (as LinkBench does; not reproducible),
// yet loads every id1 exactly once with consistent counts.
func TestJavaModeSeveralLoaders(t *testing.T) {
	cfg := javaConfig(t)
	cfg.MaxID1 = 20_001
	cfg.Loaders = 3
	cfg.LoaderChunkSize = 500
	cfg.NLinksFunc, cfg.NLinksDefault = "const", 4
	rec := newRecStore(t)
	rep, err := Load(context.Background(), cfg, bulkStore{rec})
	if err != nil {
		t.Fatal(err)
	}
	checkLoad(t, cfg, rec, true, rep)
}

// TestJavaOpChoice: LinkBench's inclusive comparison picks an operation of
// share 0 when the draw equals the previous cumulative share, and a draw
// above the last share is a no-op (reference §6.4); the fast mode's strict
// comparison never picks a share of 0.
func TestJavaOpChoice(t *testing.T) {
	var m Mix
	m.CountLink, m.GetNode = 50, 49.99999 // sums to 99.99999, within LinkBench's 1e-5
	var th [10]float64
	sum := 0.0
	for i, p := range m.shares() {
		sum += *p
		th[i] = sum
	}
	for _, c := range []struct {
		x    float64
		op   stats.Op
		noOp bool
	}{
		{0, stats.AddLink, false}, // addlink has share 0
		{1e-9, stats.CountLink, false},
		{50, stats.CountLink, false},
		{50.000001, stats.GetNode, false},
		{th[9], stats.GetNode, false},
		{99.999995, 0, true},
	} {
		i, noOp := javaOpFor(c.x, &th)
		var op stats.Op
		if !noOp {
			op = requestOps[i].op
		}
		if op != c.op || noOp != c.noOp {
			t.Errorf("x = %v: %v, no-op %v; want %v, %v", c.x, op, noOp, c.op, c.noOp)
		}
	}
	w := &workload{cfg: Config{Mix: m}}
	w.buildMix() // the fast mode's thresholds: the last share takes every draw above the others
	src := &fastSource{Rand: rand.New(1), pick: &w.pick, start: &w.opStart}
	for range 100000 {
		i, noOp := src.pickOp()
		if op := requestOps[i].op; noOp || op != stats.CountLink && op != stats.GetNode {
			t.Fatalf("fast mode picked %v (no-op %v), which has share 0", op, noOp)
		}
	}
}

// TestHistoryCacheJava: in Java mode the history cache keeps LinkBench's
// stale index keys (reference §6.9, quirk §11.2-15): an evicted key and a
// key removed from the middle stay indexed, so they are never cached again;
// removing the last entry un-indexes its key.
func TestHistoryCacheJava(t *testing.T) {
	h := (&javaMode{}).newHistory().(*staleHistory)
	rng := distributions.NewJavaRandom(5)
	link := func(id1 int64) store.Link { return store.Link{ID1: id1, LinkType: 1, Time: 1000 + id1} }
	for i := int64(0); i < historyLimit; i++ {
		h.add(rng, link(i))
	}
	h.add(rng, link(historyLimit)) // evicts one entry at random
	if len(h.entries) != historyLimit || len(h.index) != historyLimit+1 {
		t.Fatalf("after an eviction: %d entries, %d keys; want %d, %d", len(h.entries), len(h.index), historyLimit, historyLimit+1)
	}
	var evicted int64 = -1
	present := map[int64]bool{}
	for _, e := range h.entries {
		present[e.id1] = true
	}
	for i := int64(0); i < historyLimit; i++ {
		if !present[i] {
			evicted = i
		}
	}
	h.add(rng, link(evicted)) // stale key: not added back
	for _, e := range h.entries {
		if e.id1 == evicted {
			t.Fatalf("evicted id1 %d was cached again", evicted)
		}
	}
	// Remove entry 0 (not the last): the last entry moves there, entry 0's
	// key stays indexed.
	first, last := h.entries[0], h.entries[len(h.entries)-1]
	h.afterQuery(0, nil)
	if h.entries[0] != last || h.index[histKey{last.id1, last.linkType}] != 0 {
		t.Errorf("the last entry did not move to position 0")
	}
	if _, ok := h.index[histKey{first.id1, first.linkType}]; !ok {
		t.Errorf("the removed key left the index (LinkBench keeps it)")
	}
	// Remove the last entry: its key leaves the index.
	lastPos := len(h.entries) - 1
	e := h.entries[lastPos]
	h.afterQuery(lastPos, nil)
	if _, ok := h.index[histKey{e.id1, e.linkType}]; ok {
		t.Errorf("the key of a removed last entry stayed in the index")
	}
}

// hookedLoad is Load in Java mode with the test hooks h.
func hookedLoad(ctx context.Context, cfg Config, st store.Store, h *javaHooks) (*stats.Report, error) {
	w, err := prepare(cfg, false)
	if err != nil {
		return nil, err
	}
	w.mode.(*javaMode).hooks = h
	return w.load(ctx, st)
}

// hookedRequest is Request in Java mode with the test hooks h.
func hookedRequest(ctx context.Context, cfg Config, st store.Store, h *javaHooks) (*stats.Report, error) {
	w, err := prepare(cfg, true)
	if err != nil {
		return nil, err
	}
	w.mode.(*javaMode).hooks = h
	return w.request(ctx, st)
}
