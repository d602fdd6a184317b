package stats

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// javaBuckets is the number of buckets of LinkBench's default latency
// histogram (LatencyStats, reference §9.2).
const javaBuckets = 128

// javaBucket returns LatencyStats' bucket of a latency of us microseconds.
func javaBucket(us int64) int {
	ms := us / 1000
	switch {
	case us < 0:
		return 0
	case ms == 0:
		return int(us / 100)
	case ms < 100:
		return 10 + int(ms) - 1
	case ms < 1000:
		return 109 + int(ms/100) - 1
	case ms < 10000:
		return 118 + int(ms/1000) - 1
	}
	return 127
}

// javaBucketBounds returns bucket b's bounds [low, high) in microseconds.
func javaBucketBounds(b int) (low, high int64) {
	switch {
	case b < 10:
		return 100 * int64(b), 100 * int64(b+1)
	case b < 109:
		return int64(b-9) * 1000, int64(b-8) * 1000
	case b < 118:
		h := int64(b - 108)
		return h * 100000, (h + 1) * 100000
	case b < 127:
		sec := int64(b - 117)
		return sec * 1000000, (sec + 1) * 1000000
	}
	return 10000000, 100000000
}

// javaBucketLine writes op's LatencyStats console line (reference §9.2):
// "<OP> count = n  p25 = [lo,hi]ms ... p99 = [lo,hi]ms  max = <#.###>ms
// mean = <#.###>ms threads = T". The bucket counts come from the op's HDR
// histogram: each recorded value is placed by its highest equivalent value
// (the value HDR percentiles report), so a value within the histogram's
// precision below a bucket edge may fall in the next bucket. It reports false when the op has no histogram
// (a report read from JSON).
func (o OpReport) javaBucketLine(b *strings.Builder) bool {
	if o.lat == nil {
		return false
	}
	var counts [javaBuckets]int64
	f := float64(o.unit) / float64(time.Microsecond)
	var total int64
	o.lat.buckets(func(_, hi, n int64) bool {
		counts[javaBucket(int64(float64(hi)*f))] += n
		total += n
		return true
	})
	fmt.Fprintf(b, "%v count = %d", o.Op, total)
	for _, p := range [...]float64{25, 50, 75, 95, 99} {
		rank := int64(p / 100 * float64(total))
		var cum int64
		bk := javaBuckets - 1
		for i, c := range counts {
			cum += c
			if cum >= rank {
				bk = i
				break
			}
		}
		lo, hi := javaBucketBounds(bk)
		fmt.Fprintf(b, "  p%v = [%s,%s]ms", p, decimalFormat(float64(lo)/1000, 2), decimalFormat(float64(hi)/1000, 2))
	}
	fmt.Fprintf(b, "  max = %sms  mean = %sms threads = %d\n", decimalFormat(o.Latency.Max/1000, 3),
		decimalFormat(o.Latency.Mean/1000, 3), o.Threads)
	return true
}

// WriteJavaBuckets writes, per latency operation with values, LinkBench's
// default histogram line with bucket-range percentiles ("GET_NODE count =
// 10  p25 = [0.2,0.3]ms  p50 = [2,3]ms ... threads = 2", reference §9.2),
// for scripts that parse that format. Operations whose histogram is not
// held (a report read back from JSON) are left out.
func (r *Report) WriteJavaBuckets(w io.Writer) error {
	var b strings.Builder
	for _, o := range r.Ops {
		if o.Op.IsSize() || o.Latency.Count == 0 {
			continue
		}
		o.javaBucketLine(&b)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("stats: writing bucket percentiles: %w", err)
	}
	return nil
}
