package stats

import (
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Summary is the digest of one series of an operation: the count of values
// and their percentiles, extremes and mean, in microseconds (latency series;
// fractional with Options.Unit = time.Nanosecond) or rows (RangeSize,
// LoadLinksBulkNLinks, LoadCountsBulkNLinks).
//
// The numbers follow Java HdrHistogram 2.1.12, which LinkBench reports with
// (reference §9.3), not hdrhistogram-go's own query methods where they
// differ:
//   - percentile p is the highest value equivalent (within the histogram's
//     precision) to the value of rank max(1, ceil(nextDown(p)·Count/100)) in
//     ascending order (AbstractHistogram.getValueAtPercentile).
//     hdrhistogram-go v1.4.0 rounds the rank to nearest instead, which gives
//     a lower value for e.g. p25 of 5 values;
//   - Max is the highest value equivalent to the largest recorded value;
//     Min the lowest value equivalent to the smallest;
//   - Mean is Σ count·medianEquivalent(v) / Count, summed in ascending value
//     order then divided once, as Java does (hdrhistogram-go divides every
//     term, which can differ in the last bits).
//
// All fields are zero when Count is 0.
type Summary struct {
	Count int64   `json:"count"`
	P25   float64 `json:"p25"`
	P50   float64 `json:"p50"`
	P75   float64 `json:"p75"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	P9999 float64 `json:"p9999"`
	Max   float64 `json:"max"`
	Min   float64 `json:"min"`
	Mean  float64 `json:"mean"`
}

// percentileRank is Java HdrHistogram's count at percentile p (0..100) of a
// histogram holding total values: max(1, ceil(nextDown(p) clamped to
// [0, 100] · total / 100)). The one-ulp step down keeps e.g. p = 25 of 100
// values at rank 25 when 25·100/100 rounds up in floating point.
func percentileRank(p float64, total int64) int64 {
	q := math.Min(math.Max(math.Nextafter(p, math.Inf(-1)), 0), 100)
	r := int64(math.Ceil(q * float64(total) / 100))
	if r < 1 {
		r = 1
	}
	return r
}

// quantiles digests the histogram of count values whose populated buckets
// b visits: Count, Min, Max, Mean, and the value at each of the
// percentiles ps (ascending, each in (0, 100]) stored in out (len(out) ==
// len(ps)). It walks the buckets once, in ascending order.
func quantiles(count int64, b bucketSeq, ps []float64, out []int64) (_, lo, hi int64, mean float64) {
	if count == 0 {
		clear(out)
		return 0, 0, 0, 0
	}
	var buf [len(summaryPercentiles)]int64
	ranks := buf[:0]
	if len(ps) > len(buf) {
		ranks = make([]int64, 0, len(ps))
	}
	for _, p := range ps {
		ranks = append(ranks, percentileRank(p, count))
	}
	var cum int64
	var sum float64
	next := 0
	first := true
	b(func(from, to, n int64) bool {
		if first {
			lo = from
			first = false
		}
		hi = to
		// medianEquivalentValue = lowest + (size of the equivalence range >> 1).
		sum += float64(from+(to-from+1)>>1) * float64(n)
		cum += n
		for next < len(ps) && cum >= ranks[next] {
			out[next] = to
			next++
		}
		return true
	})
	for ; next < len(out); next++ { // unreachable: ranks never exceed count
		out[next] = hi
	}
	return count, lo, hi, sum / float64(count)
}

// denseQuantiles is quantiles of a dense histogram (nil or empty: zeros).
func denseQuantiles(h *hdr.Histogram, ps []float64, out []int64) (count, lo, hi int64, mean float64) {
	if h == nil || h.TotalCount() == 0 {
		return quantiles(0, nil, ps, out)
	}
	return quantiles(h.TotalCount(), denseBuckets(h), ps, out)
}

// pagedQuantiles is quantiles of a paged histogram (nil or empty: zeros).
func pagedQuantiles(h *pagedHist, ps []float64, out []int64) (count, lo, hi int64, mean float64) {
	if h == nil || h.total == 0 {
		return quantiles(0, nil, ps, out)
	}
	return quantiles(h.total, h.buckets, ps, out)
}

// summaryPercentiles are the percentiles of Summary's fields, in order.
var summaryPercentiles = [...]float64{25, 50, 75, 95, 99, 99.9, 99.99}

// summarize digests h, whose values are in units of unit (nil or empty
// gives the zero Summary), in microseconds (unit = time.Microsecond gives
// the values as they are: rows, for the size ops).
func summarize(h *hdr.Histogram, unit time.Duration) Summary {
	var v [len(summaryPercentiles)]int64
	c, lo, hi, mean := denseQuantiles(h, summaryPercentiles[:], v[:])
	return summaryOf(unit, v, c, lo, hi, mean)
}

// summarizePaged is summarize of a paged histogram.
func summarizePaged(h *pagedHist, unit time.Duration) Summary {
	var v [len(summaryPercentiles)]int64
	c, lo, hi, mean := pagedQuantiles(h, summaryPercentiles[:], v[:])
	return summaryOf(unit, v, c, lo, hi, mean)
}

// summaryOf makes the Summary of quantiles' results (v: the values at
// summaryPercentiles) in microseconds, the values being in units of unit.
func summaryOf(unit time.Duration, v [len(summaryPercentiles)]int64, c, lo, hi int64, mean float64) Summary {
	if c == 0 {
		return Summary{}
	}
	f := float64(unit) / float64(time.Microsecond)
	us := func(x int64) float64 { return float64(x) * f }
	return Summary{
		Count: c,
		P25:   us(v[0]), P50: us(v[1]), P75: us(v[2]), P95: us(v[3]), P99: us(v[4]), P999: us(v[5]), P9999: us(v[6]),
		Max: us(hi), Min: us(lo), Mean: mean * f,
	}
}

// valueAtRank returns the highest value equivalent to the value of rank
// (1..total) in ascending order of h (which holds total values), without
// allocating. It asks hdrhistogram-go's ValueAtPercentile, whose rank is
// round(p·total/100 + 0.5) clamped to [1, total], for p = (rank − 0.25) ·
// 100 / total, i.e. rank + 0.25 before truncation: the requested rank
// whatever the floating-point error (far below 0.25 for any int64 count).
func valueAtRank(h *hdr.Histogram, rank, total int64) int64 {
	return h.ValueAtPercentile((float64(rank) - 0.25) * 100 / float64(total))
}

// Summarize digests h, whose values are in units of unit, as a report's
// series are digested (Java HdrHistogram's percentiles, see Summary): in
// microseconds for latencies, or, with unit = time.Microsecond, the
// values as they are (rows, for the size ops). A nil or empty h gives the
// zero Summary. Merged result files (results.Merge) digest their summed
// histograms with it.
func Summarize(h *hdr.Histogram, unit time.Duration) Summary { return summarize(h, unit) }
