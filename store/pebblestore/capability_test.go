package pebblestore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/audit"
	"github.com/linkbench-go/linkbench/store/pebblestore"
)

// TestContents: HasData is false on a new store and true once a link is
// written.
func TestContents(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, pebblestore.Options{Sync: pebblestore.SyncOff})
	if full, err := s.HasData(ctx); err != nil || full {
		t.Fatalf("HasData of a new store = %v, %v", full, err)
	}
	writeLinks(t, s, 7, 1)
	if full, err := s.HasData(ctx); err != nil || !full {
		t.Fatalf("HasData after a link = %v, %v", full, err)
	}
}

// TestEngineMetricsCapability: the store's engine metrics (the counters
// and gauges the benchmark's reports show) reach a caller through the
// store.EngineMetrics capability, also behind the audit wrapper, and move
// with the work done; DescribeServer gives the options in effect and
// the size on disk.
func TestEngineMetricsCapability(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, pebblestore.Options{Sync: pebblestore.SyncOff, MemTableSize: 1 << 20, Compression: "zstd"})
	log, err := audit.Create(filepath.Join(t.TempDir(), "writes.audit"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	st := log.Wrap(s) // a wrapper built on store.Forward keeps the capabilities
	em, ok := store.AsEngineMetrics(st)
	if !ok {
		t.Fatal("no store.EngineMetrics")
	}
	a, err := em.EngineMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	writeLinks(t, s, 1, 20000)
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, _, err := s.GetLink(ctx, 1, 1, int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := em.EngineMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b.Engine != "pebble" || !b.Time.After(a.Time) {
		t.Errorf("engine %q, times %v %v", b.Engine, a.Time, b.Time)
	}
	for _, name := range []string{store.EngineWALBytes, store.EngineFlushBytes, store.EngineFlushes} {
		if b.Counters[name] <= a.Counters[name] {
			t.Errorf("counter %s: %v then %v, want growth", name, a.Counters[name], b.Counters[name])
		}
	}
	for _, name := range []string{store.EngineCompactionBytes, store.EngineIngestBytes, store.EngineCacheHits,
		store.EngineCacheMisses, store.EngineWriteStalls, store.EngineWriteStallSeconds, store.EngineCompactions} {
		if _, ok := b.Counters[name]; !ok {
			t.Errorf("counter %s missing", name)
		}
	}
	if b.Counters[store.EngineCacheHits]+b.Counters[store.EngineCacheMisses] == 0 {
		t.Error("no block cache lookups counted after 100 reads")
	}
	for _, name := range []string{store.EngineReadAmp, store.EngineLiveBytes, store.EngineDiskBytes} {
		if b.Gauges[name] <= 0 {
			t.Errorf("gauge %s = %v, want > 0", name, b.Gauges[name])
		}
	}
	if _, ok := b.Gauges[store.EngineCompactionDebt]; !ok {
		t.Error("gauge compaction debt missing")
	}
	sd, ok := store.AsServerDescriber(st)
	if !ok {
		t.Fatal("no store.ServerDescriber")
	}
	srv, err := sd.DescribeServer(ctx, []string{"linkdb0"})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Kind != "Pebble" || srv.Settings["compression"] != "zstd" || srv.Settings["mem_table_size"] != "1048576" ||
		srv.Settings["wal_sync"] != "off" || !srv.Local || srv.Datadir != s.Options().Dir {
		t.Errorf("DescribeServer = %+v", srv)
	}
	if n, err := srv.Size(ctx); err != nil || n <= 0 {
		t.Errorf("Size = %d, %v", n, err)
	}
}
