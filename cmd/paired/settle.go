package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// The settling rule: the server is quiet when, over the last settleWindow
// (settleSamples samples one settlePoll apart), InnoDB wrote less than
// quietBytesPerSec (Innodb_data_written), ROCKSDB's flushes and
// compactions wrote nothing (Rocksdb_flush_write_bytes +
// Rocksdb_compact_write_bytes, when the server has them), and the dirty
// pages are at most dirtyFraction of the buffer pool or stopped falling.
const (
	settlePoll       = time.Second
	settleSamples    = 3 // two intervals: settleWindow
	settleWindow     = (settleSamples - 1) * settlePoll
	quietBytesPerSec = 64 << 10
	dirtyFraction    = 0.01
)

// flushSample is one reading of the counters of background writing.
type flushSample struct {
	at      time.Duration // since the wait began
	dirty   int64         // Innodb_buffer_pool_pages_dirty
	total   int64         // Innodb_buffer_pool_pages_total
	written int64         // Innodb_data_written, bytes
	flushed int64         // Innodb_buffer_pool_pages_flushed
	rocks   bool          // the server has ROCKSDB's counters
	rocksBG int64         // Rocksdb_flush_write_bytes + Rocksdb_compact_write_bytes
}

func sampleOf(at time.Duration, st map[string]int64) flushSample {
	_, rocks := st["Rocksdb_flush_write_bytes"]
	return flushSample{
		at:      at,
		dirty:   st["Innodb_buffer_pool_pages_dirty"],
		total:   st["Innodb_buffer_pool_pages_total"],
		written: st["Innodb_data_written"],
		flushed: st["Innodb_buffer_pool_pages_flushed"],
		rocks:   rocks,
		rocksBG: st["Rocksdb_flush_write_bytes"] + st["Rocksdb_compact_write_bytes"],
	}
}

// quiet applies the settling rule to the samples' last settleSamples.
func quiet(samples []flushSample) bool {
	if len(samples) < settleSamples {
		return false
	}
	w := samples[len(samples)-settleSamples:]
	for i := 1; i < len(w); i++ {
		dt := (w[i].at - w[i-1].at).Seconds()
		if dt <= 0 {
			return false
		}
		if float64(w[i].written-w[i-1].written)/dt >= quietBytesPerSec {
			return false
		}
		if w[i].rocks && w[i].rocksBG != w[i-1].rocksBG {
			return false
		}
	}
	first, last := w[0], w[len(w)-1]
	low := float64(last.dirty) <= dirtyFraction*float64(last.total)
	stopped := last.dirty >= first.dirty
	return low || stopped
}

// describeWindow tells what the last samples show: the dirty pages and
// the background writing per second over the window.
func describeWindow(samples []flushSample) string {
	last := samples[len(samples)-1]
	first := samples[0]
	if len(samples) > settleSamples {
		first = samples[len(samples)-settleSamples]
	}
	s := fmt.Sprintf("dirty pages %d of %d", last.dirty, last.total)
	if dt := (last.at - first.at).Seconds(); dt > 0 {
		s += fmt.Sprintf(", over the last %.0f s: data written %.0f KiB/s, pages flushed %.0f/s",
			dt, float64(last.written-first.written)/1024/dt, float64(last.flushed-first.flushed)/dt)
		if last.rocks {
			s += fmt.Sprintf(", rocksdb flush+compaction written %.0f KiB/s", float64(last.rocksBG-first.rocksBG)/1024/dt)
		}
	}
	return s
}

// settle waits, at most max, until the server is quiet (see quiet) and
// prints how long it waited and what it saw; a server still busy at max
// is reported and measured anyway. max 0 waits for nothing.
func settle(ctx context.Context, s *server, max time.Duration, w io.Writer, before string) error {
	if max == 0 {
		return nil
	}
	t0 := time.Now()
	var samples []flushSample
	for {
		st, err := s.status(ctx)
		if ctx.Err() != nil {
			return fmt.Errorf("settling before %s: interrupted", before)
		}
		if err != nil {
			return fmt.Errorf("settling before %s: %w", before, err)
		}
		samples = append(samples, sampleOf(time.Since(t0), st))
		if quiet(samples) {
			fmt.Fprintf(w, "settle before %s: quiet after %.0f s (%s)\n", before, time.Since(t0).Seconds(), describeWindow(samples))
			return nil
		}
		if time.Since(t0)+settlePoll > max {
			fmt.Fprintf(w, "settle before %s: NOT QUIET after %.0f s (-settle %v): %s; measuring anyway\n",
				before, time.Since(t0).Seconds(), max, describeWindow(samples))
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("settling before %s: interrupted", before)
		case <-time.After(settlePoll):
		}
	}
}
