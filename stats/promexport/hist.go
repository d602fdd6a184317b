package promexport

import (
	"math"
	"slices"
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// hist is one cumulative latency histogram of the exporter, in seconds:
// classic buckets (counts per bucket, not cumulative; the last one is
// +Inf) and native buckets at the finest schema (index i holds the values
// in (2^((i-1)/2^schema), 2^(i/2^schema)]), with a zero bucket for 0.
type hist struct {
	count   uint64
	sum     float64
	classic []uint64 // len(bounds)+1
	native  dense
	zero    uint64
}

// dense holds counts by native bucket index, from lo on.
type dense struct {
	lo int
	c  []int64
}

// cover makes d hold the indexes lo..hi.
func (d *dense) cover(lo, hi int) {
	if len(d.c) == 0 {
		d.lo, d.c = lo, make([]int64, hi-lo+1)
		return
	}
	if lo < d.lo {
		d.c = append(make([]int64, d.lo-lo, d.lo-lo+len(d.c)), d.c...)
		d.lo = lo
	}
	if n := hi - d.lo + 1; n > len(d.c) {
		d.c = append(d.c, make([]int64, n-len(d.c))...)
	}
}

// nonZero returns the indexes and counts of d's non-empty buckets, in
// index order.
func (d *dense) nonZero() (keys []int, counts []int64) {
	for i, c := range d.c {
		if c != 0 {
			keys = append(keys, d.lo+i)
			counts = append(counts, c)
		}
	}
	return keys, counts
}

// clone returns a copy of h that shares nothing with it.
func (h *hist) clone() hist {
	c := *h
	c.classic = slices.Clone(h.classic)
	c.native.c = slices.Clone(h.native.c)
	return c
}

// bucketTable maps the counts of an hdr histogram geometry (its Export's
// Counts, index by index) to the exporter's buckets: each index's value is
// the middle of its hdr bucket (about 1 % wide at stats.IntervalSigFigs),
// in seconds.
type bucketTable struct {
	mid            []float64
	native         []int // native bucket index at the finest schema (unused when zero)
	classic        []int // classic bucket index
	zero           []bool
	minKey, maxKey int // the range of native
}

// geometry identifies an hdr histogram geometry and its unit.
type geometry struct {
	highest, sigFigs int64
	unit             time.Duration
}

// newBucketTable returns the table of g for the classic bounds and the
// native schema.
func newBucketTable(g geometry, bounds []float64, schema int32) *bucketTable {
	h := hdr.New(1, g.highest, int(g.sigFigs))
	_ = h.RecordValue(g.highest) // so that Distribution covers every index
	bars := h.Distribution()
	t := &bucketTable{mid: make([]float64, len(bars)), native: make([]int, len(bars)),
		classic: make([]int, len(bars)), zero: make([]bool, len(bars)), minKey: math.MaxInt, maxKey: math.MinInt}
	perUnit := g.unit.Seconds()
	scale := math.Ldexp(1, int(schema))
	for i, b := range bars {
		v := float64(b.From+b.To) / 2 * perUnit
		t.mid[i] = v
		t.classic[i] = sort.SearchFloat64s(bounds, v)
		if v <= prometheus.DefNativeHistogramZeroThreshold {
			t.zero[i] = true
			continue
		}
		k := nativeKey(v, scale)
		t.native[i] = k
		t.minKey, t.maxKey = min(t.minKey, k), max(t.maxKey, k)
	}
	return t
}

// add adds to h the counts all minus the counts minus (index by index;
// minus may be nil), of the table's geometry.
func (h *hist) add(all, minus []int64, t *bucketTable, nBounds int) {
	if h.classic == nil {
		h.classic = make([]uint64, nBounds+1)
	}
	if t.minKey <= t.maxKey {
		h.native.cover(t.minKey, t.maxKey)
	}
	last := len(t.mid) - 1
	for i, c := range all {
		if c == 0 {
			continue
		}
		if i < len(minus) {
			c -= minus[i]
		}
		if c <= 0 {
			continue
		}
		j := min(i, last) // no value lies above the highest's index
		h.count += uint64(c)
		h.sum += float64(c) * t.mid[j]
		h.classic[t.classic[j]] += uint64(c)
		if t.zero[j] {
			h.zero += uint64(c)
			continue
		}
		h.native.c[t.native[j]-h.native.lo] += c
	}
}

// nativeKey returns the index of the native bucket of v > 0 at the schema
// whose buckets per power of two are scale (2^schema): the i with
// 2^((i-1)/scale) < v <= 2^(i/scale).
func nativeKey(v, scale float64) int {
	frac, exp := math.Frexp(v) // v = frac·2^exp, frac in [0.5, 1)
	if frac == 0.5 {
		return int(float64(exp-1) * scale) // an exact power of two closes its bucket
	}
	return int(math.Ceil((float64(exp-1) + math.Log2(2*frac)) * scale))
}

// downscale returns the buckets one schema lower (two buckets into one:
// index k becomes ceil(k/2)), keys in order.
func downscale(keys []int, counts []int64) ([]int, []int64) {
	var k2 []int
	var c2 []int64
	for i, k := range keys {
		k = (k + 1) >> 1 // an arithmetic shift: ceil(k/2) for negative k too
		if n := len(k2); n > 0 && k2[n-1] == k {
			c2[n-1] += counts[i]
			continue
		}
		k2 = append(k2, k)
		c2 = append(c2, counts[i])
	}
	return k2, c2
}

// histMetric is a histogram sample with classic and native buckets, as
// client_golang's own histograms expose it (prometheus.NewConstHistogram
// has no native buckets and NewConstNativeHistogram no classic ones).
type histMetric struct {
	desc   *prometheus.Desc
	labels []*dto.LabelPair
	h      dto.Histogram
}

// newHistMetric returns h's sample, with its native buckets at schema
// or lower (at most maxBuckets of them).
func newHistMetric(desc *prometheus.Desc, h *hist, bounds []float64, schema int32, maxBuckets int, created time.Time, labelValues ...string) *histMetric {
	m := &histMetric{desc: desc, labels: prometheus.MakeLabelPairs(desc, labelValues)}
	d := &m.h
	d.SampleCount = new(h.count)
	d.SampleSum = new(h.sum)
	d.CreatedTimestamp = timestamppb.New(created)
	var cum uint64
	for i, ub := range bounds {
		if h.classic != nil {
			cum += h.classic[i]
		}
		d.Bucket = append(d.Bucket, &dto.Bucket{UpperBound: new(ub), CumulativeCount: new(cum)})
	}
	keys, counts := h.native.nonZero()
	for len(keys) > maxBuckets && schema > minSchema {
		keys, counts = downscale(keys, counts)
		schema--
	}
	d.Schema = new(schema)
	d.ZeroThreshold = new(prometheus.DefNativeHistogramZeroThreshold)
	d.ZeroCount = new(h.zero)
	d.PositiveSpan, d.PositiveDelta = spans(keys, counts)
	if len(d.PositiveSpan) == 0 {
		// A native histogram with no bucket yet still says it is one
		// (as client_golang's do).
		d.PositiveSpan = []*dto.BucketSpan{{Offset: new(int32(0)), Length: new(uint32(0))}}
	}
	return m
}

// Desc implements prometheus.Metric.
func (m *histMetric) Desc() *prometheus.Desc { return m.desc }

// Write implements prometheus.Metric.
func (m *histMetric) Write(out *dto.Metric) error {
	out.Label = m.labels
	out.Histogram = &m.h
	return nil
}

// spans encodes native buckets as the exposition's spans and deltas: runs
// of consecutive indexes (gaps of one or two empty buckets are filled
// with zeros, as client_golang does), each count as the difference from
// the previous one.
func spans(keys []int, counts []int64) ([]*dto.BucketSpan, []int64) {
	var (
		out    []*dto.BucketSpan
		deltas []int64
		prev   int64
		next   int
	)
	push := func(c int64) {
		*out[len(out)-1].Length++
		deltas = append(deltas, c-prev)
		prev = c
	}
	for n, k := range keys {
		gap := k - next
		if n == 0 || gap > 2 {
			out = append(out, &dto.BucketSpan{Offset: new(int32(gap)), Length: new(uint32(0))})
		} else {
			for range gap {
				push(0)
			}
		}
		push(counts[n])
		next = k + 1
	}
	return out, deltas
}
