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
	native  map[int]int64
	zero    uint64
}

// add adds the values of all minus those of minus (an hdr histogram of
// the same geometry holding a subset of all's values, or nil), each in
// unit, to h: a value is that of the middle of its hdr bucket (about 1 %
// wide at stats.IntervalSigFigs).
func (h *hist) add(all, minus *hdr.Histogram, unit time.Duration, bounds []float64, schema int32) {
	if all == nil || all.TotalCount() == 0 {
		return
	}
	if h.classic == nil {
		h.classic = make([]uint64, len(bounds)+1)
		h.native = map[int]int64{}
	}
	var sub []hdr.Bar
	if minus != nil && minus.TotalCount() > 0 {
		sub = minus.Distribution()
	}
	perUnit := unit.Seconds()
	scale := math.Ldexp(1, int(schema))
	for i, b := range all.Distribution() {
		c := b.Count
		if i < len(sub) {
			c -= sub[i].Count
		}
		if c <= 0 {
			continue
		}
		v := float64(b.From+b.To) / 2 * perUnit
		h.count += uint64(c)
		h.sum += float64(c) * v
		h.classic[sort.SearchFloat64s(bounds, v)] += uint64(c)
		if v <= prometheus.DefNativeHistogramZeroThreshold {
			h.zero += uint64(c)
			continue
		}
		h.native[nativeKey(v, scale)] += c
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

// downscale returns the buckets of m one schema lower (two buckets into
// one: index i becomes ceil(i/2)).
func downscale(m map[int]int64) map[int]int64 {
	out := make(map[int]int64, len(m)/2+1)
	for k, c := range m {
		out[(k+1)>>1] += c // an arithmetic shift: ceil(k/2) for negative k too
	}
	return out
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
	native := h.native
	for len(native) > maxBuckets && schema > minSchema {
		native = downscale(native)
		schema--
	}
	d.Schema = new(schema)
	d.ZeroThreshold = new(prometheus.DefNativeHistogramZeroThreshold)
	d.ZeroCount = new(h.zero)
	d.PositiveSpan, d.PositiveDelta = spans(native)
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
func spans(m map[int]int64) ([]*dto.BucketSpan, []int64) {
	if len(m) == 0 {
		return nil, nil
	}
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
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
		push(m[k])
		next = k + 1
	}
	return out, deltas
}
