package linkbench

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// slowAckStore is a memory store whose bulk link inserts take effect at
// once, then take ack more before they return (a database that commits,
// then answers): a call cut short by its context during that wait has
// committed without the caller knowing.
type slowAckStore struct {
	*memstore.Store
	ack time.Duration
}

func (s slowAckStore) AddBulkLinks(ctx context.Context, links []store.Link, noInverse bool) error {
	if err := s.Store.AddBulkLinks(ctx, links, noInverse); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(s.ack):
		return nil
	}
}

// visibleLinks adds up the counts of every (id1, link type) of cfg's range.
func visibleLinks(t *testing.T, cfg Config, st store.Store) int64 {
	t.Helper()
	var n int64
	for id1 := cfg.StartID1; id1 < cfg.MaxID1; id1++ {
		for lt := range int64(cfg.LinkTypeCount) {
			c, err := st.CountLinks(context.Background(), id1, store.DefaultLinkType+lt)
			if err != nil {
				t.Fatal(err)
			}
			n += c
		}
	}
	return n
}

// TestLoadProgressDuringGiantChunk: while one chunk holds most of the
// links, the progress reports count rows as each batch commits and
// estimate the time left from the rows expected (they used to count rows
// per finished chunk, freeze, and say "about 1 s left"); an interrupted
// load lets the batch under way finish, so that the report counts every
// batch the store holds (a committed batch used to go uncounted).
func TestLoadProgressDuringGiantChunk(t *testing.T) {
	cfg := smallConfig(3) // two id1s, one chunk
	cfg.Loaders = 1
	cfg.NLinksFunc, cfg.NLinksDefault = "const", 100_000
	cfg.BulkInsertCount = 1000
	cfg.ProgressFreq = 100 * time.Millisecond
	cfg.GraceTime = 2 * time.Second
	var mu sync.Mutex
	var reports []Progress
	cfg.OnProgress = func(p Progress) {
		mu.Lock()
		reports = append(reports, p)
		mu.Unlock()
	}
	st := slowAckStore{Store: memstore.New(), ack: 8 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	rep, err := Load(ctx, cfg, st)
	if err == nil {
		t.Fatal("the load finished before its 700 ms context: make it bigger")
	}
	mu.Lock()
	defer mu.Unlock()
	var seen, rising int
	var last int64
	for _, p := range reports {
		if p.Final || p.Done != 0 {
			continue
		}
		seen++
		if p.Rows > last {
			rising++
			if p.Left < 200*time.Millisecond {
				t.Errorf("report at %v: %d rows of about %d, but only %v left", p.Elapsed, p.Rows, 2*cfg.NLinksDefault, p.Left)
			}
		}
		last = p.Rows
	}
	if seen < 3 || rising < seen-1 {
		t.Errorf("%d reports while the chunk loaded, %d with more rows than the previous: want the rows to grow with every batch", seen, rising)
	}
	if rep == nil || rep.Load == nil {
		t.Fatalf("no report after the interruption (err %v)", err)
	}
	if got, want := rep.Load.Links, visibleLinks(t, cfg, st); got != want {
		t.Errorf("the report counts %d links, the store holds %d", got, want)
	}
}

// TestLoadIntervalsHaveBatches: each load progress interval holds the bulk
// calls made in it (a loader's calls used to wait in its recorder until
// the next interval, so the first had no p99), and the intervals add up
// to the report.
func TestLoadIntervalsHaveBatches(t *testing.T) {
	cfg := smallConfig(3)
	cfg.Loaders = 1
	cfg.NLinksFunc, cfg.NLinksDefault = "const", 3000
	cfg.BulkInsertCount = 100
	cfg.ProgressFreq = 60 * time.Millisecond
	cfg.Now = nil
	var got []Progress // the monitor calls OnProgress from one goroutine
	cfg.OnProgress = func(p Progress) { got = append(got, p) }
	rep, err := Load(context.Background(), cfg, slowAckStore{Store: memstore.New(), ack: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	checkIntervalsAddUp(t, rep, got)
	n := 0
	for i, p := range got {
		if p.Final || p.IntervalRows < 300 {
			continue
		}
		n++
		if o, ok := p.Interval.Op(stats.LoadLinksBulk); !ok || o.Count == 0 {
			t.Errorf("interval %d: %d rows written, no LOAD_LINKS_BULK call", i, p.IntervalRows)
		}
	}
	if n < 2 {
		t.Errorf("%d intervals with rows, want >= 2: make the load longer", n)
	}
}
