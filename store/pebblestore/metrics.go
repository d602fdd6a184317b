package pebblestore

import (
	"log/slog"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Metrics is a snapshot of the engine's counters (Store.Metrics): the
// cumulative counters since Open, which Diff turns into the figures of
// an interval, and the state at the time of the snapshot. Sizes are in
// bytes. A figure Pebble does not give is reported missing (an ok bool
// false, or a method's ok result), never as 0.
type Metrics struct {
	// Time is when the snapshot was taken.
	Time time.Time
	// Uptime is the time since the database was opened.
	Uptime time.Duration

	// Cumulative counters since Open.

	// WALBytesIn is the logical bytes of the batches written to the WAL
	// (what the store wrote: keys, values, batch headers).
	WALBytesIn uint64
	// WALBytesWritten is the bytes written to the WAL files (WALBytesIn
	// with the records' framing).
	WALBytesWritten uint64
	// FlushBytes is the bytes of the sstables written by flushes (and of
	// blob files written by them).
	FlushBytes uint64
	// CompactionBytes is the bytes of the sstables (and blob files)
	// written by compactions.
	CompactionBytes uint64
	// IngestBytes is the bytes of the sstables ingested.
	IngestBytes uint64
	// CompactionReadBytes is the bytes read by compactions.
	CompactionReadBytes uint64
	// Flushes is the number of flushes.
	Flushes int64
	// Compactions is the number of compactions.
	Compactions int64
	// BlockCacheHits and BlockCacheMisses are the block cache's lookups
	// that found and did not find the block.
	BlockCacheHits, BlockCacheMisses int64
	// WriteStalls is the number of write stalls that began (Pebble's
	// EventListener.WriteStallBegin: a full memtable queue, or L0 at
	// L0StopWritesThreshold), counted with atomics.
	WriteStalls int64
	// WriteStallTime is the time writes were stalled, the stall in
	// progress included.
	WriteStallTime time.Duration
	// WALFsyncs is the number of fsyncs of the WAL and WALFsyncTime
	// their total duration (Pebble's LogWriter.FsyncLatency histogram:
	// its sample count and sum). With SyncOn a commit waits for one of
	// them; concurrent commits share one (group commit), so commits per
	// fsync says how many writers the log carries at once. ok
	// (HasWALFsyncs) is false when Pebble gives no histogram.
	WALFsyncs    int64
	WALFsyncTime time.Duration
	HasWALFsyncs bool

	// State at the time of the snapshot.

	// ReadAmp is the read amplification: the number of L0 sublevels plus
	// the number of non-empty levels below L0.
	ReadAmp int
	// L0Sublevels is the number of L0 sublevels.
	L0Sublevels int
	// LiveSize is the bytes of the live sstables and blob files (what the
	// data takes on disk, compressed).
	LiveSize uint64
	// DiskSize is the bytes of every file of the database on disk: live
	// and obsolete sstables, WAL, manifest, OPTIONS, compactions in
	// progress (Pebble's DiskSpaceUsage).
	DiskSize uint64
	// CompactionDebt is Pebble's estimate of the bytes compactions must
	// rewrite to bring the levels to their target sizes.
	CompactionDebt uint64
	// MemTableSize is the bytes held by the memtables, and MemTables
	// their number.
	MemTableSize uint64
	MemTables    int64
	// BlockCacheSize is the bytes in the block cache.
	BlockCacheSize int64
	// WriteStalled says whether a write stall was in progress.
	WriteStalled bool
}

// WriteAmp returns the write amplification since Open: the bytes
// written to the WAL, by flushes, compactions and ingestions, over the
// bytes written to the WAL and ingested (Pebble's total write-amp). ok is
// false before anything was written.
func (m Metrics) WriteAmp() (wa float64, ok bool) {
	return writeAmp(m.WALBytesWritten, m.IngestBytes, m.FlushBytes, m.CompactionBytes)
}

func writeAmp(wal, ingest, flush, compaction uint64) (float64, bool) {
	in := wal + ingest
	if in == 0 {
		return 0, false
	}
	return float64(in+flush+compaction) / float64(in), true
}

// HitRate returns the block cache's hit rate since Open, 0..1; ok is
// false before the first lookup.
func (m Metrics) HitRate() (rate float64, ok bool) {
	return hitRate(m.BlockCacheHits, m.BlockCacheMisses)
}

func hitRate(hits, misses int64) (float64, bool) {
	if hits+misses <= 0 {
		return 0, false
	}
	return float64(hits) / float64(hits+misses), true
}

// Interval is what happened between two snapshots (Diff): the counters'
// differences, the rates and ratios of the interval, and the state at
// its end.
type Interval struct {
	// Start and End are the snapshots' times, Seconds the time between.
	Start, End time.Time
	Seconds    float64
	// OK is false when the two snapshots cannot be compared: End is not
	// after Start, or a counter went down (snapshots of two openings of
	// the database). The counters' fields are then zero.
	OK bool

	// The counters' differences over the interval (see Metrics for each).
	WALBytesIn, WALBytesWritten              uint64
	FlushBytes, CompactionBytes, IngestBytes uint64
	CompactionReadBytes                      uint64
	Flushes, Compactions                     int64
	BlockCacheHits, BlockCacheMisses         int64
	WriteStalls                              int64
	WriteStallTime                           time.Duration
	WALFsyncs                                int64
	WALFsyncTime                             time.Duration

	// WriteAmp is the interval's write amplification (see
	// Metrics.WriteAmp); HasWriteAmp is false when nothing was written.
	WriteAmp    float64
	HasWriteAmp bool
	// HitRate is the interval's block cache hit rate, 0..1; HasHitRate is
	// false when the cache had no lookups.
	HitRate    float64
	HasHitRate bool

	// Last is the later snapshot, whose state (ReadAmp, sizes, debt) is
	// the interval's end state.
	Last Metrics
}

// Diff returns the interval from snapshot a to the later snapshot b of
// the same store, as hostmetrics.Diff does for the host's counters.
func Diff(a, b Metrics) Interval {
	iv := Interval{Start: a.Time, End: b.Time, Seconds: b.Time.Sub(a.Time).Seconds(), Last: b}
	if iv.Seconds <= 0 || b.Uptime < a.Uptime ||
		b.WALBytesIn < a.WALBytesIn || b.WALBytesWritten < a.WALBytesWritten ||
		b.FlushBytes < a.FlushBytes || b.CompactionBytes < a.CompactionBytes || b.IngestBytes < a.IngestBytes ||
		b.CompactionReadBytes < a.CompactionReadBytes ||
		b.Flushes < a.Flushes || b.Compactions < a.Compactions ||
		b.BlockCacheHits < a.BlockCacheHits || b.BlockCacheMisses < a.BlockCacheMisses ||
		b.WriteStalls < a.WriteStalls || b.WriteStallTime < a.WriteStallTime ||
		b.WALFsyncs < a.WALFsyncs || b.WALFsyncTime < a.WALFsyncTime {
		return Interval{Start: a.Time, End: b.Time, Seconds: iv.Seconds, Last: b}
	}
	iv.OK = true
	iv.WALBytesIn = b.WALBytesIn - a.WALBytesIn
	iv.WALBytesWritten = b.WALBytesWritten - a.WALBytesWritten
	iv.FlushBytes = b.FlushBytes - a.FlushBytes
	iv.CompactionBytes = b.CompactionBytes - a.CompactionBytes
	iv.IngestBytes = b.IngestBytes - a.IngestBytes
	iv.CompactionReadBytes = b.CompactionReadBytes - a.CompactionReadBytes
	iv.Flushes = b.Flushes - a.Flushes
	iv.Compactions = b.Compactions - a.Compactions
	iv.BlockCacheHits = b.BlockCacheHits - a.BlockCacheHits
	iv.BlockCacheMisses = b.BlockCacheMisses - a.BlockCacheMisses
	iv.WriteStalls = b.WriteStalls - a.WriteStalls
	iv.WriteStallTime = b.WriteStallTime - a.WriteStallTime
	iv.WALFsyncs = b.WALFsyncs - a.WALFsyncs
	iv.WALFsyncTime = b.WALFsyncTime - a.WALFsyncTime
	iv.WriteAmp, iv.HasWriteAmp = writeAmp(iv.WALBytesWritten, iv.IngestBytes, iv.FlushBytes, iv.CompactionBytes)
	iv.HitRate, iv.HasHitRate = hitRate(iv.BlockCacheHits, iv.BlockCacheMisses)
	return iv
}

// snapshot builds Metrics from Pebble's metrics and the stall counters.
func snapshot(now time.Time, m *pebble.Metrics, stalls *stallCounter) Metrics {
	var flush, compaction, compactionRead uint64
	for i := range m.Levels {
		l := &m.Levels[i]
		flush += l.TableBytesFlushed + l.BlobBytesFlushed
		compaction += l.TableBytesCompacted + l.BlobBytesCompacted
		compactionRead += l.TableBytesRead
	}
	total := m.Total()
	out := Metrics{
		Time:                now,
		Uptime:              m.Uptime,
		WALBytesIn:          m.WAL.BytesIn,
		WALBytesWritten:     m.WAL.BytesWritten,
		FlushBytes:          flush,
		CompactionBytes:     compaction,
		IngestBytes:         total.TableBytesIngested,
		CompactionReadBytes: compactionRead,
		Flushes:             m.Flush.Count,
		Compactions:         m.Compact.Count,
		BlockCacheHits:      m.BlockCache.Hits,
		BlockCacheMisses:    m.BlockCache.Misses,
		ReadAmp:             m.ReadAmp(),
		L0Sublevels:         int(m.Levels[0].Sublevels),
		LiveSize:            m.Table.Local.LiveSize + m.BlobFiles.Local.LiveSize,
		DiskSize:            m.DiskSpaceUsage(),
		CompactionDebt:      m.Compact.EstimatedDebt,
		MemTableSize:        m.MemTable.Size,
		MemTables:           m.MemTable.Count,
		BlockCacheSize:      m.BlockCache.Size,
	}
	out.WriteStalls, out.WriteStallTime, out.WriteStalled = stalls.load()
	out.WALFsyncs, out.WALFsyncTime, out.HasWALFsyncs = fsyncs(m.LogWriter.FsyncLatency)
	return out
}

// fsyncs reads the count and the sum of Pebble's WAL fsync latency
// histogram (recorded in nanoseconds); ok is false without one.
func fsyncs(h prometheus.Histogram) (n int64, total time.Duration, ok bool) {
	if h == nil {
		return 0, 0, false
	}
	var m dto.Metric
	if err := h.Write(&m); err != nil || m.Histogram == nil {
		return 0, 0, false
	}
	return int64(m.Histogram.GetSampleCount()), time.Duration(m.Histogram.GetSampleSum()), true
}

// stallCounter counts write stalls and their time from Pebble's
// EventListener, with atomics: Pebble calls WriteStallBegin and
// WriteStallEnd on its commit path, and a snapshot must not wait for it.
// A sequence number (odd while a stall begins or ends) lets a snapshot
// read the count, the total and the stall in progress as one state, so
// that snapshots never go backwards.
type stallCounter struct {
	seq   atomic.Uint64
	count atomic.Int64
	total atomic.Int64 // ns of the stalls that ended
	since atomic.Int64 // start of the stall in progress, ns after start; 0 when none
	start time.Time    // since's origin
}

func newStallCounter() *stallCounter { return &stallCounter{start: time.Now()} }

// now returns the time since the counter's creation, at least 1 ns (0
// means "no stall" in since).
func (s *stallCounter) now() int64 { return max(1, int64(time.Since(s.start))) }

// update runs f as the only writer, with seq odd.
func (s *stallCounter) update(f func()) {
	for {
		if q := s.seq.Load(); q%2 == 0 && s.seq.CompareAndSwap(q, q+1) {
			f()
			s.seq.Store(q + 2)
			return
		}
		runtime.Gosched()
	}
}

func (s *stallCounter) begin(pebble.WriteStallBeginInfo) {
	s.update(func() {
		s.count.Add(1)
		if s.since.Load() == 0 { // Pebble does not nest stalls
			s.since.Store(s.now())
		}
	})
}

func (s *stallCounter) end() {
	s.update(func() {
		if t := s.since.Load(); t != 0 {
			s.total.Add(s.now() - t)
			s.since.Store(0)
		}
	})
}

// load returns the stalls so far, the time of the one in progress
// included, and whether one is in progress.
func (s *stallCounter) load() (count int64, total time.Duration, active bool) {
	for {
		q := s.seq.Load()
		if q%2 == 1 {
			runtime.Gosched()
			continue
		}
		c, tot, since, now := s.count.Load(), s.total.Load(), s.since.Load(), s.now()
		if s.seq.Load() != q {
			continue
		}
		if since != 0 {
			tot += now - since
		}
		return c, time.Duration(tot), since != 0
	}
}

// listener returns the EventListener that counts stalls, teed with
// Pebble's logging listener when the store has a logger.
func (s *stallCounter) listener(log *slog.Logger) pebble.EventListener {
	l := pebble.EventListener{
		WriteStallBegin: s.begin,
		WriteStallEnd:   s.end,
	}
	if log != nil {
		l = pebble.TeeEventListener(l, pebble.MakeLoggingEventListener(slogLogger{log}))
	}
	return l
}
