package linkbench

import (
	"context"
	"sync"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// countRecorder keeps the count rows a load writes (memstore derives its
// counts from the links and ignores them, which would hide a wrong row).
type countRecorder struct {
	store.Forward
	mu   *sync.Mutex
	rows map[[2]int64]int64
}

func newCountRecorder(inner store.Store) *countRecorder {
	r := &countRecorder{mu: &sync.Mutex{}, rows: map[[2]int64]int64{}}
	r.Forward = store.Forward{Inner: inner, Wrap: r.wrap}
	return r
}

func (r *countRecorder) wrap(s store.Store) store.Store {
	w := &countRecorder{mu: r.mu, rows: r.rows}
	w.Forward = store.Forward{Inner: s, Wrap: w.wrap}
	return w
}

func (r *countRecorder) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	r.mu.Lock()
	for _, c := range counts {
		r.rows[[2]int64{c.ID1, c.LinkType}] = c.Count
	}
	r.mu.Unlock()
	return r.Forward.AddBulkCounts(ctx, counts)
}

// TestLoadRandomID2Counts: with randomid2max > 0 an id1's id2s repeat; the
// count rows the loader writes equal the visible (distinct) links, and the
// report counts distinct links. With rng = java the rows keep LinkBench's
// number of generated links (its store calls).
func TestLoadRandomID2Counts(t *testing.T) {
	for _, java := range []bool{false, true} {
		name := map[bool]string{false: "fast", true: "java"}[java]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			cfg := smallConfig(301)
			cfg.NLinksFunc, cfg.NLinksDefault = "const", 60 // 30 per type
			cfg.RandomID2Max = 40                           // so most lists repeat id2s
			cfg.BulkInsertCount = 7                         // lists span batches
			if java {
				cfg.RNG, cfg.Loaders = RNGJava, 1
			}
			ms := memstore.New()
			rec := newCountRecorder(ms)
			rep, err := Load(ctx, cfg, rec)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.rows) != 600 {
				t.Fatalf("%d count rows, want 600", len(rec.rows))
			}
			var visible, repeated int64
			for k, c := range rec.rows {
				n, err := ms.CountLinks(ctx, k[0], k[1])
				if err != nil {
					t.Fatal(err)
				}
				visible += n
				if n < 30 {
					repeated++
				}
				want := n
				if java {
					want = 30
				}
				if c != want {
					t.Fatalf("id1 %d type %d: count row %d, want %d (%d visible links)", k[0], k[1], c, want, n)
				}
			}
			if repeated == 0 {
				t.Fatal("no list repeated an id2: the test tests nothing")
			}
			if rep.Load.Links != visible {
				t.Errorf("report: %d links, the store holds %d", rep.Load.Links, visible)
			}
		})
	}
}

func TestDistinctLinks(t *testing.T) {
	d := []drawnLink{{5, 10}, {3, 50}, {5, 40}, {7, 1}, {3, 20}}
	// id2 3: last written has time 20; id2 5: 40; id2 7: 1.
	if n, newest := distinctLinks(d); n != 3 || newest != 40 {
		t.Errorf("distinctLinks = %d, %d; want 3, 40", n, newest)
	}
	if n, newest := distinctLinks([]drawnLink{{1, -5}}); n != 1 || newest != -5 {
		t.Errorf("one link: %d, %d", n, newest)
	}
}
