package stats

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// csvStreamHeader is the header line of LinkBench's -csvstream file
// (reference §9.7).
const csvStreamHeader = "threadID,timestamp,op,totalops,totalerrors,ops,sampleDuration_us,sampleOps,mean_us,min_us,p25_us,p50_us,p75_us,p90_us,p95_us,p99_us,max_us\n"

// StreamWriter writes LinkBench's -csvstream file (reference §9.4, §9.7): the
// per-thread interval statistics of every worker, appended as the workers go.
// It is safe for concurrent use: all workers share one; each WriteInterval
// call's rows are written together, with a single Write under a mutex.
type StreamWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewStreamWriter writes the -csvstream header line to w at once and returns
// a StreamWriter appending to w. It returns the header's write error,
// wrapped. The caller owns w (buffering, flushing, closing) and must not
// write to it while the StreamWriter is in use.
func NewStreamWriter(w io.Writer) (*StreamWriter, error) {
	if _, err := io.WriteString(w, csvStreamHeader); err != nil {
		return nil, fmt.Errorf("stats: writing csvstream header: %w", err)
	}
	return &StreamWriter{w: w}, nil
}

func (sw *StreamWriter) write(b []byte) error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	_, err := sw.w.Write(b)
	return err
}

// WriteInterval writes one -csvstream row per op in ops, in that order, for
// the interval [start, now], then empties all the recorder's interval
// histograms (LinkBench's resetSamples). It needs Options.Interval
// (otherwise it returns ErrNoInterval, wrapped, and writes nothing).
//
// A row is LinkBench's (reference §9.7):
//
//	threadID,timestamp,op,totalops,totalerrors,ops,sampleDuration_us,sampleOps,mean_us,min_us,p25_us,p50_us,p75_us,p90_us,p95_us,p99_us,max_us
//
// with timestamp = now in Unix milliseconds / 1000 (integer division, i.e.
// seconds), totalops and totalerrors the op's calls and errors since the
// Recorder was made, ops = sampleOps = values in the interval (every outcome;
// LinkBench samples errors too), sampleDuration_us = now − start in
// milliseconds (sic: LinkBench's column name says us, its value is ms,
// reference §11.2 item 17), mean_us the arithmetic mean of the interval's
// values (as recorded, after clamping) as Java's Double.toString, and min,
// percentiles and max in microseconds (rows for size ops). An op with no
// value in the interval gets LinkBench's short form
// "t,sec,OP,totalops,totalerrors,0,duration,0,,,,,,,,,".
//
// Deviation from LinkBench: min, percentiles and max come from the interval
// HDR histogram (every value; Java HdrHistogram semantics, see Summary)
// instead of LinkBench's reservoir of at most maxsamples values indexed at
// e/4, e/2, ... (reference §9.4), so with few values a percentile can be one
// rank lower than LinkBench's, and values of 10^SigFigs and more are given
// at the histogram's precision (the highest equivalent value; the lowest
// for min).
//
// The rows are formatted in the recorder's scratch buffer and written with
// one Write, allocating nothing once the buffer has grown; a write error is
// returned wrapped, after the reset.
func (r *Recorder) WriteInterval(sw *StreamWriter, threadID int, start, now time.Time, ops []Op) error {
	if !r.opts.Interval {
		return fmt.Errorf("stats: WriteInterval: %w", ErrNoInterval)
	}
	b := r.buf[:0]
	sec := now.UnixMilli() / 1000
	durMs := now.Sub(start).Milliseconds()
	ps := [...]float64{25, 50, 75, 90, 95, 99}
	for _, op := range ops {
		var total, errs, n int64
		s := r.ops[op]
		if s != nil {
			total, errs, n = s.successes+s.misses+s.errors, s.errors, s.ival.TotalCount()
		}
		b = strconv.AppendInt(b, int64(threadID), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, sec, 10)
		b = append(b, ',')
		b = append(b, op.String()...)
		b = append(b, ',')
		b = strconv.AppendInt(b, total, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, errs, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, n, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, durMs, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, n, 10)
		if n == 0 {
			b = append(b, ",,,,,,,,,\n"...)
			continue
		}
		h := s.ival
		b = append(b, ',')
		b = appendJavaDouble(b, float64(s.ivalSum)/float64(n))
		b = append(b, ',')
		b = strconv.AppendInt(b, h.Min(), 10)
		for _, p := range ps {
			b = append(b, ',')
			b = strconv.AppendInt(b, valueAtRank(h, percentileRank(p, n), n), 10)
		}
		b = append(b, ',')
		b = strconv.AppendInt(b, valueAtRank(h, n, n), 10)
		b = append(b, '\n')
	}
	r.buf = b
	for _, s := range r.ops {
		if s != nil && s.ival.TotalCount() > 0 {
			s.ival.Reset()
			s.ivalSum = 0
		}
	}
	if len(b) == 0 {
		return nil
	}
	if err := sw.write(b); err != nil {
		return fmt.Errorf("stats: writing csvstream rows: %w", err)
	}
	return nil
}
