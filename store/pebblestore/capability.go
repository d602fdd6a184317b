package pebblestore

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"

	"github.com/cockroachdb/pebble/v2"

	"github.com/linkbench-go/linkbench/store"
)

// HasData reports whether the store holds any node, link or count row
// (store.Contents): a load refuses to mix a new graph with an old one.
// Errors: ctx's, Pebble's, or store.ErrClosed, wrapped.
func (s *Store) HasData(ctx context.Context) (bool, error) {
	g, err := s.enter(ctx, "HasData")
	if err != nil {
		return false, err
	}
	defer leave(g)
	for _, p := range []byte{prefixNode, prefixLink, prefixCount} {
		it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{p}, UpperBound: prefixEnd(p)})
		if err != nil {
			return false, fmt.Errorf("pebblestore: HasData: %w", err)
		}
		found := it.First()
		if err := errors.Join(it.Error(), it.Close()); err != nil {
			return false, fmt.Errorf("pebblestore: HasData: %w", err)
		}
		if found {
			return true, nil
		}
	}
	return false, nil
}

// pebbleVersion is the version of the Pebble module this program is
// built with ("(unknown)" without build information, as in tests).
func pebbleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/cockroachdb/pebble/v2" {
				if m.Replace != nil {
					return m.Replace.Version
				}
				return m.Version
			}
		}
	}
	return "(unknown)"
}

// Settings returns the options in effect (Options after the defaults and
// the OPTIONS file), by their text keys, for a result file: the knobs
// actually applied. A per-level setting whose levels differ is
// "per-level" (PebbleOptions has them).
func (s *Store) Settings() map[string]string {
	o := s.set.opts
	perLevel := func(v int64, ok bool) string {
		if !ok {
			return "per-level"
		}
		return strconv.FormatInt(v, 10)
	}
	m := map[string]string{
		"dir":                      o.Dir,
		"compression":              o.Compression,
		"block_size":               perLevel(int64(o.BlockSize), o.BlockSize != 0),
		"cache_size":               strconv.FormatInt(o.CacheSize, 10),
		"bloom_bits_per_key":       perLevel(int64(o.BloomBitsPerKey), o.BloomBitsPerKey != 0),
		"mem_table_size":           strconv.FormatInt(o.MemTableSize, 10),
		"l0_compaction_threshold":  strconv.Itoa(o.L0CompactionThreshold),
		"l0_stop_writes_threshold": strconv.Itoa(o.L0StopWritesThreshold),
		"compaction_concurrency":   strconv.Itoa(o.CompactionConcurrency),
		"wal_sync":                 o.Sync.String(),
		"format_major_version":     strconv.FormatUint(uint64(s.db.FormatMajorVersion()), 10),
	}
	if o.Compression == "" {
		m["compression"] = "per-level"
	}
	if o.OptionsFile != "" {
		m["options_file"] = o.OptionsFile
	}
	return m
}

// DescribeServer describes the engine for result files and host metrics
// (store.ServerDescriber): Kind "Pebble", the module's version, the
// options in effect (Settings), the directory (on this host), and the
// database's size as Pebble counts it (every file of the directory:
// sstables, WAL, manifest), read after a flush at a phase's end so that
// the memtables' data is in sstables. The databases are ignored: the
// store has one. Errors: store.ErrClosed (wrapped) after Close.
func (s *Store) DescribeServer(ctx context.Context, _ []string) (*store.Server, error) {
	g, err := s.enter(ctx, "DescribeServer")
	if err != nil {
		return nil, err
	}
	defer leave(g)
	return &store.Server{
		Kind:     "Pebble",
		Version:  pebbleVersion(),
		Settings: s.Settings(),
		Datadir:  s.set.opts.Dir,
		Local:    true,
		Size: func(context.Context) (int64, error) {
			m, err := s.Metrics()
			if err != nil {
				return 0, err
			}
			return int64(m.DiskSize), nil
		},
		SizeSource: "Pebble's disk space usage (sstables, WAL, manifest)",
		Flush:      s.Flush,
	}, nil
}

// EngineMetrics returns a snapshot of Pebble's metrics (Metrics) by
// store.EngineSnapshot's names (store.EngineMetrics): the WAL bytes
// written (with the records' framing), the bytes flushes, compactions and
// ingestions wrote, flush and compaction counts, block cache hits and
// misses, write stalls and their time (from Pebble's event listener), and
// the read amplification, live and total size on disk, compaction debt
// and memtable bytes. Errors: ctx's, or store.ErrClosed (wrapped).
func (s *Store) EngineMetrics(ctx context.Context) (store.EngineSnapshot, error) {
	if err := ctx.Err(); err != nil {
		return store.EngineSnapshot{}, fmt.Errorf("pebblestore: EngineMetrics: %w", err)
	}
	m, err := s.Metrics()
	if err != nil {
		return store.EngineSnapshot{}, err
	}
	snap := store.EngineSnapshot{
		Engine: "pebble",
		Time:   m.Time,
		Counters: map[string]float64{
			store.EngineWALBytes:          float64(m.WALBytesWritten),
			store.EngineFlushBytes:        float64(m.FlushBytes),
			store.EngineCompactionBytes:   float64(m.CompactionBytes),
			store.EngineIngestBytes:       float64(m.IngestBytes),
			store.EngineFlushes:           float64(m.Flushes),
			store.EngineCompactions:       float64(m.Compactions),
			store.EngineCacheHits:         float64(m.BlockCacheHits),
			store.EngineCacheMisses:       float64(m.BlockCacheMisses),
			store.EngineWriteStalls:       float64(m.WriteStalls),
			store.EngineWriteStallSeconds: m.WriteStallTime.Seconds(),
		},
		Gauges: map[string]float64{
			store.EngineReadAmp:        float64(m.ReadAmp),
			store.EngineLiveBytes:      float64(m.LiveSize),
			store.EngineDiskBytes:      float64(m.DiskSize),
			store.EngineCompactionDebt: float64(m.CompactionDebt),
			store.EngineMemTableBytes:  float64(m.MemTableSize),
		},
	}
	if m.HasWALFsyncs {
		snap.Counters[store.EngineWALFsyncs] = float64(m.WALFsyncs)
		snap.Counters[store.EngineWALFsyncSeconds] = m.WALFsyncTime.Seconds()
	}
	return snap, nil
}

var (
	_ store.Contents        = (*Store)(nil)
	_ store.ServerDescriber = (*Store)(nil)
	_ store.EngineMetrics   = (*Store)(nil)
)
