package linkbench

import (
	"context"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/store"
)

// fixedEngine returns one snapshot.
type fixedEngine struct{ s store.EngineSnapshot }

func (f fixedEngine) EngineMetrics(context.Context) (store.EngineSnapshot, error) { return f.s, nil }

// TestFinishEngineWindowStart: a phase's engine figures run from the
// snapshot nearest its measured window's start: the phase's first for a
// load shorter than an interval (it took its final interval's snapshot,
// taken after every write, as its start: no bytes, no write amplification;
// TestPebbleDefault failed so on a fast machine), the tick at the end of a
// warm-up for a request phase.
func TestFinishEngineWindowStart(t *testing.T) {
	t0 := time.Now()
	snap := func(at time.Duration, wal float64) store.EngineSnapshot {
		return store.EngineSnapshot{Engine: "fixed", Time: t0.Add(at), Counters: map[string]float64{
			store.EngineWALBytes: wal, store.EngineFlushBytes: wal / 2, store.EngineCompactionBytes: 0}}
	}
	for _, c := range []struct {
		name    string
		snaps   []store.EngineSnapshot
		start   time.Duration
		last    store.EngineSnapshot
		wantWAL float64
	}{
		{"a 40 ms load", []store.EngineSnapshot{snap(0, 0), snap(45*time.Millisecond, 1000)}, time.Millisecond, snap(60*time.Millisecond, 1000), 1000},
		{"after a 2 s warm-up", []store.EngineSnapshot{snap(0, 0), snap(time.Second, 500), snap(2002*time.Millisecond, 800), snap(3*time.Second, 1200)},
			2 * time.Second, snap(4*time.Second, 1500), 700},
	} {
		r := &phaseRecorder{engine: &engineSampler{src: fixedEngine{c.last}}, engineSnaps: c.snaps}
		rep := &stats.Report{Start: t0.Add(c.start)}
		f := &results.File{}
		r.finishEngine(context.Background(), rep, f)
		if f.Engine == nil {
			t.Fatalf("%s: no engine figures", c.name)
		}
		if got := f.Engine.Summary[store.EngineWALBytes]; got != c.wantWAL {
			t.Errorf("%s: wal_bytes %g, want %g", c.name, got, c.wantWAL)
		}
		if got, ok := f.Engine.Summary[results.EngineWriteAmp]; !ok || got != 1.5 {
			t.Errorf("%s: write_amp %g (present %v), want 1.5", c.name, got, ok)
		}
	}
}
