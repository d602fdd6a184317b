package stats

import (
	"fmt"
	"io"
	"math/bits"
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

// streamOp is one operation's values in the current -csvstream interval
// of one Recorder: count, sum, extremes, and a compact log-linear histogram
// (values below 64 exact, above with 64 buckets per power of two, about
// 1.6 % wide), whose rows exist only from the lowest to the highest row a
// value reached.
type streamOp struct {
	n, sum, lo, hi int64
	first          int           // row of rows[0]
	rows           []*[64]uint32 // rows first, first+1, ...; nil entries not reached
}

// streamIndex returns the row and bucket of v >= 0.
func streamIndex(v int64) (row, sub int) {
	if v < 64 {
		return 0, int(v)
	}
	e := bits.Len64(uint64(v)) // 7..63
	return e - 6, int(v>>(e-7)) & 63
}

// streamHigh is the highest value of bucket sub of row.
func streamHigh(row, sub int) int64 {
	if row == 0 {
		return int64(sub)
	}
	shift := row - 1
	return (int64(64+sub) << shift) + (1 << shift) - 1
}

func (s *streamOp) add(v int64) {
	if s.n == 0 || v < s.lo {
		s.lo = v
	}
	if s.n == 0 || v > s.hi {
		s.hi = v
	}
	s.n++
	s.sum += v
	row, sub := streamIndex(v)
	switch {
	case len(s.rows) == 0:
		s.first = row
		s.rows = append(s.rows, nil)
	case row < s.first:
		s.rows = append(make([]*[64]uint32, s.first-row), s.rows...)
		s.first = row
	case row >= s.first+len(s.rows):
		s.rows = append(s.rows, make([]*[64]uint32, row-s.first-len(s.rows)+1)...)
	}
	r := s.rows[row-s.first]
	if r == nil {
		r = new([64]uint32)
		s.rows[row-s.first] = r
	}
	r[sub]++
}

// valueAt returns the highest value of the bucket holding rank (1..n) in
// ascending order, capped at the largest value recorded.
func (s *streamOp) valueAt(rank int64) int64 {
	var cum int64
	for i, r := range s.rows {
		if r == nil {
			continue
		}
		for sub, c := range r {
			cum += int64(c)
			if c > 0 && cum >= rank {
				return min(streamHigh(s.first+i, sub), s.hi)
			}
		}
	}
	return s.hi
}

func (s *streamOp) reset() {
	s.n, s.sum, s.lo, s.hi = 0, 0, 0, 0
	for _, r := range s.rows {
		if r != nil {
			clear(r[:])
		}
	}
}

// WriteInterval writes one -csvstream row per op in ops, in that order, for
// the interval [start, now], then starts a new interval (LinkBench's
// resetSamples). It needs Options.Interval (otherwise it returns
// ErrNoInterval, wrapped, and writes nothing).
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
// values as Java's Double.toString, and min, percentiles and max in
// microseconds (rows for size ops). An op with no value in the interval
// gets LinkBench's short form "t,sec,OP,totalops,totalerrors,0,duration,0,,,,,,,,,".
//
// Deviation from LinkBench: the percentiles come from a compact histogram
// of every value of the interval (buckets about 1.6 % wide; the highest
// value of the bucket of rank max(1, ceil(p·n/100)), never above the
// maximum) instead of LinkBench's reservoir of at most maxsamples values
// indexed at e/4, e/2, ... (reference §9.4); min, max and mean are exact.
// With Options.Unit = time.Nanosecond, latencies are printed in
// microseconds with up to three decimals.
//
// The rows are formatted in the recorder's scratch buffer and written with
// one Write, allocating nothing once the buffer has grown; a write error is
// returned wrapped, after the reset.
func (r *Recorder) WriteInterval(sw *StreamWriter, threadID int, start, now time.Time, ops []Op) error {
	if r.stream == nil {
		return fmt.Errorf("stats: WriteInterval: %w", ErrNoInterval)
	}
	perUs := int64(time.Microsecond / r.c.opts.Unit)
	val := func(b []byte, op Op, v int64) []byte {
		if op.IsSize() || perUs == 1 {
			return strconv.AppendInt(b, v, 10)
		}
		return appendMicros(b, v, perUs)
	}
	b := r.scratch[:0]
	sec := now.UnixMilli() / 1000
	durMs := now.Sub(start).Milliseconds()
	ps := [...]float64{25, 50, 75, 90, 95, 99}
	for _, op := range ops {
		s := &r.stream[op]
		n := s.n
		b = strconv.AppendInt(b, int64(threadID), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, sec, 10)
		b = append(b, ',')
		b = append(b, op.String()...)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.calls[op], 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.errs[op], 10)
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
		mean := float64(s.sum) / float64(n)
		if !op.IsSize() {
			mean /= float64(perUs)
		}
		b = append(b, ',')
		b = appendJavaDouble(b, mean)
		b = append(b, ',')
		b = val(b, op, s.lo)
		for _, p := range ps {
			b = append(b, ',')
			b = val(b, op, s.valueAt(percentileRank(p, n)))
		}
		b = append(b, ',')
		b = val(b, op, s.hi)
		b = append(b, '\n')
	}
	r.scratch = b
	for i := range r.stream {
		if r.stream[i].n > 0 {
			r.stream[i].reset()
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

// appendMicros appends v units (perUs of them in a microsecond) as
// microseconds, with up to three decimals and no trailing zeros.
func appendMicros(b []byte, v, perUs int64) []byte {
	b = strconv.AppendInt(b, v/perUs, 10)
	frac := (v % perUs) * 1000 / perUs
	if frac == 0 {
		return b
	}
	d := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	k := 3
	for k > 0 && d[k-1] == '0' {
		k--
	}
	b = append(b, '.')
	return append(b, d[:k]...)
}
