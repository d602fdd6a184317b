package linkbench

import (
	"bytes"
	"context"
	"testing"

	"github.com/linkbench-go/linkbench/store/memstore"
)

// TestShardedLoadEqualsOne: the rows the shards 0/N..N-1/N write together
// are the rows one process writes with the same seed (the trace
// fingerprints of every call, sorted), for N = 2, 3 and 7, and each chunk
// goes to exactly one shard, with the heaviest chunks dealt round robin.
func TestShardedLoadEqualsOne(t *testing.T) {
	ctx := context.Background()
	cfg := smallConfig(3001)
	zipfOutDegree(&cfg)
	cfg.LoaderChunkSize = 100
	trace := func(c Config) string {
		var buf bytes.Buffer
		tr := NewTracer(&buf)
		if _, err := Load(ctx, c, tr.Wrap(memstore.New())); err != nil {
			t.Fatal(err)
		}
		if err := tr.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	want, n := fingerprint(trace(cfg))
	for _, shards := range []int{2, 3, 7} {
		var all string
		for i := range shards {
			c := cfg
			c.Shard = Shard{Index: i, Count: shards}
			all += trace(c)
		}
		if got, m := fingerprint(all); got != want {
			t.Errorf("%d shards wrote %d rows (fingerprint %s), one process %d (%s)", shards, m, got, n, want)
		}
	}
}

// TestShardPlanPartition: the shards' plans take every position of the
// whole load's order once, the first N (the heaviest chunks) one each.
func TestShardPlanPartition(t *testing.T) {
	cfg := smallConfig(200_001) // the real out-degree: heavy chunks first
	cfg.DBCount = 2
	for _, shards := range []int{1, 3, 8} {
		seen := map[[2]int64]int{}
		var total int64
		for i := range shards {
			c := cfg
			c.Shard = Shard{Index: i, Count: shards}
			w, err := prepare(c, false)
			if err != nil {
				t.Fatal(err)
			}
			p := fastMode{}.loadPlan(w, 7)
			total = w.numChunks() * int64(cfg.DBCount)
			for k := range p.len() {
				db, ch, _, _ := p.chunk(&w.cfg, k)
				seen[[2]int64{int64(db), ch}]++
				if k == 0 {
					whole := fastMode{}.loadPlan(mustPrepare(t, cfg), 7)
					wdb, wch, _, _ := whole.chunk(&w.cfg, int64(i))
					if wdb != db || wch != ch {
						t.Errorf("%d shards: shard %d starts with chunk %d/%d, want position %d of the order, %d/%d", shards, i, db, ch, i, wdb, wch)
					}
				}
			}
		}
		if int64(len(seen)) != total {
			t.Errorf("%d shards load %d distinct chunks, want %d", shards, len(seen), total)
		}
		for k, v := range seen {
			if v != 1 {
				t.Errorf("%d shards: chunk %v loaded %d times", shards, k, v)
			}
		}
	}
}

func mustPrepare(t *testing.T, cfg Config) *workload {
	t.Helper()
	w, err := prepare(cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
