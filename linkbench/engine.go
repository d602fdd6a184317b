package linkbench

import (
	"context"
	"maps"
	"slices"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/store"
)

// engineSampler takes the snapshots of a store's engine metrics
// (store.EngineMetrics) a phase's recorder needs; a nil one takes none.
type engineSampler struct {
	src store.EngineMetrics
}

// snapshot returns a snapshot, ok false when the store has no engine
// metrics or the snapshot failed (the interval then has none).
func (e *engineSampler) snapshot(ctx context.Context) (store.EngineSnapshot, bool) {
	if e == nil || e.src == nil {
		return store.EngineSnapshot{}, false
	}
	s, err := e.src.EngineMetrics(ctx)
	return s, err == nil
}

// engineDiff returns the engine's figures between snapshots a and b: the
// growth of every counter both have, b's gauges, and the ratios derived
// from the counters (results.EngineWriteAmp, results.EngineCacheHitRate)
// when their denominator is not 0. A metric either snapshot lacks is
// absent; nil when a counter went down (snapshots of two openings).
func engineDiff(a, b store.EngineSnapshot) map[string]float64 {
	out := map[string]float64{}
	for name, vb := range b.Counters {
		va, ok := a.Counters[name]
		if !ok {
			continue
		}
		if vb < va {
			return nil
		}
		out[name] = vb - va
	}
	maps.Copy(out, b.Gauges)
	wal, okW := out[store.EngineWALBytes]
	ingest := out[store.EngineIngestBytes]
	flush, okF := out[store.EngineFlushBytes]
	compaction, okC := out[store.EngineCompactionBytes]
	if okW && okF && okC && wal+ingest > 0 {
		out[results.EngineWriteAmp] = (wal + ingest + flush + compaction) / (wal + ingest)
	}
	hits, okH := out[store.EngineCacheHits]
	misses, okM := out[store.EngineCacheMisses]
	if okH && okM && hits+misses > 0 {
		out[results.EngineCacheHitRate] = hits / (hits + misses)
	}
	return out
}

// engineFigures returns m as a report's figures, in name order.
func engineFigures(m map[string]float64) []stats.EngineFigure {
	out := make([]stats.EngineFigure, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, stats.EngineFigure{Name: name, Value: m[name]})
	}
	return out
}
