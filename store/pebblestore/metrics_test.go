package pebblestore_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/pebblestore"
)

// syncBuffer is a bytes.Buffer safe for Pebble's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// writeLinks adds n links of 100-byte payloads to (id1, 1).
func writeLinks(t *testing.T, s *pebblestore.Store, id1 int64, n int) {
	t.Helper()
	data := bytes.Repeat([]byte("x"), 100)
	for i := range n {
		l := store.Link{ID1: id1, LinkType: 1, ID2: int64(i), Visibility: store.VisibilityDefault, Data: data, Time: int64(i)}
		if _, err := s.AddLink(context.Background(), l, true); err != nil {
			t.Fatal(err)
		}
	}
}

// The counters move with the work done, Diff gives the interval's
// figures, and Pebble's events reach the store's logger.
func TestMetrics(t *testing.T) {
	ctx := context.Background()
	var logbuf syncBuffer
	log := slog.New(slog.NewTextHandler(&logbuf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := openTest(t, pebblestore.Options{Sync: pebblestore.SyncOff, MemTableSize: 1 << 20, Logger: log})

	m0, err := s.Metrics()
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
	m1, err := s.Metrics()
	if err != nil {
		t.Fatal(err)
	}
	if m1.WALBytesIn == 0 || m1.WALBytesWritten < m1.WALBytesIn || m1.FlushBytes == 0 || m1.Flushes == 0 ||
		m1.LiveSize == 0 || m1.DiskSize < m1.LiveSize || m1.ReadAmp == 0 || m1.BlockCacheHits+m1.BlockCacheMisses == 0 {
		t.Errorf("after 20000 links and a flush: %+v", m1)
	}
	if wa, ok := m1.WriteAmp(); !ok || wa < 1 {
		t.Errorf("WriteAmp = %v, %v", wa, ok)
	}
	if hr, ok := m1.HitRate(); !ok || hr < 0 || hr > 1 {
		t.Errorf("HitRate = %v, %v", hr, ok)
	}

	iv := pebblestore.Diff(m0, m1)
	if !iv.OK || iv.Seconds <= 0 || iv.WALBytesWritten != m1.WALBytesWritten-m0.WALBytesWritten || iv.Flushes != m1.Flushes-m0.Flushes ||
		!iv.HasWriteAmp || iv.Last.LiveSize != m1.LiveSize {
		t.Errorf("Diff = %+v", iv)
	}
	// An interval without writes has no write amplification (background
	// compactions may still run, and read blocks): missing, not 0.
	m2, _ := s.Metrics()
	if iv := pebblestore.Diff(m1, m2); !iv.OK || iv.HasWriteAmp {
		t.Errorf("idle interval: %+v", iv)
	}
	// One without cache lookups has no hit rate.
	m3 := m2
	m3.Time = m2.Time.Add(time.Second)
	if iv := pebblestore.Diff(m2, m3); !iv.OK || iv.HasHitRate || iv.HasWriteAmp || iv.Seconds != 1 {
		t.Errorf("interval without lookups: %+v", iv)
	}
	// Snapshots in the wrong order cannot be compared.
	if iv := pebblestore.Diff(m1, m0); iv.OK {
		t.Errorf("Diff(later, earlier) = %+v, want !OK", iv)
	}
	if !strings.Contains(logbuf.String(), "flushed") || !strings.Contains(logbuf.String(), "component=pebble") {
		t.Errorf("no flush in the log:\n%s", logbuf.String())
	}
}

// Write stalls are counted, with their time: L0StopWritesThreshold = 1
// stops writes at the first L0 sstable until a compaction moves it down.
func TestMetricsWriteStalls(t *testing.T) {
	s := openTest(t, pebblestore.Options{Sync: pebblestore.SyncOff, MemTableSize: 1 << 20,
		L0CompactionThreshold: 1, L0StopWritesThreshold: 1})
	var m pebblestore.Metrics
	for id1 := int64(1); id1 <= 10 && m.WriteStalls == 0; id1++ { // until a stall, on a fast machine too
		writeLinks(t, s, id1, 30000)
		var err error
		if m, err = s.Metrics(); err != nil {
			t.Fatal(err)
		}
	}
	if m.WriteStalls == 0 || m.WriteStallTime <= 0 || m.Compactions == 0 {
		t.Errorf("no stall counted: %+v", m)
	}
	t.Logf("%d stalls, %v", m.WriteStalls, m.WriteStallTime)
}

// A second snapshot taken during a stall sees its time grow.
func TestDiffStallTime(t *testing.T) {
	a := pebblestore.Metrics{Time: time.Unix(100, 0), WriteStalls: 1, WriteStallTime: time.Second}
	b := a
	b.Time = a.Time.Add(2 * time.Second)
	b.WriteStallTime = 3 * time.Second
	if iv := pebblestore.Diff(a, b); !iv.OK || iv.WriteStallTime != 2*time.Second || iv.WriteStalls != 0 || iv.Seconds != 2 {
		t.Errorf("Diff = %+v", iv)
	}
}

// TestWALFsyncs: with SyncOn every commit of one writer waits for an fsync
// of the WAL, so n sequential writes make at least n of them; with
// SyncOff they make fewer. The count and time reach the engine snapshot.
func TestWALFsyncs(t *testing.T) {
	const n = 40
	count := func(sync pebblestore.SyncMode) pebblestore.Interval {
		s := openTest(t, pebblestore.Options{Sync: sync})
		m0, err := s.Metrics()
		if err != nil {
			t.Fatal(err)
		}
		if !m0.HasWALFsyncs {
			t.Fatal("no WAL fsync histogram from Pebble")
		}
		writeLinks(t, s, 1, n)
		// The WAL writer may count an fsync just after it released the
		// commit that waited for it (seen under -race: 39 of 40 counted
		// at once): with SyncOn, read the metrics again, for up to 5 s,
		// until the n fsyncs show.
		var m1 pebblestore.Metrics
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if m1, err = s.Metrics(); err != nil {
				t.Fatal(err)
			}
			if sync != pebblestore.SyncOn || m1.WALFsyncs-m0.WALFsyncs >= n || time.Now().After(deadline) {
				break
			}
		}
		iv := pebblestore.Diff(m0, m1)
		if !iv.OK {
			t.Fatalf("Diff not OK: %+v", iv)
		}
		snap, err := s.EngineMetrics(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := snap.Counters[store.EngineWALFsyncs]; !ok || got < float64(m1.WALFsyncs) {
			t.Errorf("snapshot's %s = %v, below the metrics' %d", store.EngineWALFsyncs, got, m1.WALFsyncs)
		}
		return iv
	}
	on := count(pebblestore.SyncOn)
	if on.WALFsyncs < n || on.WALFsyncTime <= 0 {
		t.Errorf("sync on: %d writes made %d fsyncs (%v), want at least %d and a time", n, on.WALFsyncs, on.WALFsyncTime, n)
	}
	off := count(pebblestore.SyncOff)
	if off.WALFsyncs >= n {
		t.Errorf("sync off: %d writes made %d fsyncs, want fewer than %d", n, off.WALFsyncs, n)
	}
	t.Logf("%d writes: sync on %d fsyncs in %v, sync off %d", n, on.WALFsyncs, on.WALFsyncTime, off.WALFsyncs)
}
