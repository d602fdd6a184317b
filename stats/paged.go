package stats

import (
	"math"
	"math/bits"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/linkbench-go/linkbench/internal/cacheline"
)

// pagedHist is an HDR histogram of lowest discernible value 1 (every
// histogram of a Collector) whose counts are allocated one power-of-two
// bucket at a time, by the first value that falls in it. A dense
// hdrhistogram-go Histogram allocates the counts of its whole range: 264
// KiB for 1 ns .. 1 h at 3 significant digits, of which a phase's
// latencies, spanning a few decades, use a third or less, and a size op's
// row counts (1 .. 10000) a few pages of 33. Values are placed at
// hdrhistogram-go's flat counts indexes, so that the same values give the
// same counts as in a dense Histogram of the same significant digits
// (dense and denseBuckets convert), and a bucket's equivalent value range
// is the dense histogram's.
//
// Page 0 holds the indexes of the lower half of bucket 0 (values 0 ..
// half-1), page 1 its upper half, page k+1 bucket k (values half<<k ..
// (2·half<<k)-1, each counting for 1<<k values), where half = 2^m is
// hdrhistogram-go's subBucketHalfCount. A pagedHist is not safe for
// concurrent use (a Collector's stripe mutex guards it).
type pagedHist struct {
	m     uint      // hdrhistogram-go's subBucketHalfCountMagnitude
	pages [][]int64 // pages[p][i]: the count of flat index p<<m + i; nil until used
	total int64
	// A histogram of one stripe is written (total) while another's,
	// allocated next to it, is written by another worker's flush: each
	// on lines of its own (false sharing).
	_ [cacheline.Size - 40]byte
}

// halfMagnitude is hdrhistogram-go's subBucketHalfCountMagnitude for
// sigFigs significant digits (0..5): the counts of bucket 0 give unit
// resolution up to 2·10^sigFigs.
func halfMagnitude(sigFigs int) uint {
	m := int(math.Ceil(math.Log2(2 * math.Pow10(sigFigs))))
	return uint(max(m, 1) - 1)
}

// newPagedHist returns an empty histogram of sigFigs significant digits.
func newPagedHist(sigFigs int) *pagedHist { return &pagedHist{m: halfMagnitude(sigFigs)} }

// valueAt returns the lowest value of flat index idx, as hdrhistogram-go's
// valueFromFlatIndex, and the size of its equivalent range (1<<bucket).
func (h *pagedHist) valueAt(idx int) (lo, size int64) {
	half := 1 << h.m
	bucket := idx>>h.m - 1
	sub := idx&(half-1) + half
	if bucket < 0 {
		sub -= half
		bucket = 0
	}
	return int64(sub) << uint(bucket), 1 << uint(bucket)
}

// record adds one occurrence of v, 0 <= v (the caller clamps values to
// the collector's highest trackable value). Its flat index, as
// hdrhistogram-go's countsIndexFor with unit magnitude 0, is
// (bucket+1)<<m + sub - half = bucket<<m + sub, with bucket = the number
// of bits of v|(2·half-1) minus m+1 and sub = v>>bucket: page
// bucket + sub>>m, slot sub&(half-1). Computed so, with shifts the
// compiler need not guard and a page's length standing for its presence,
// a value costs a few dozen instructions and one increment when its page
// exists.
func (h *pagedHist) record(v int64) {
	m := h.m & 63
	bucket := bits.Len64(uint64(v)|(2<<m-1)) - int(m) - 1
	sub := int(v >> (uint(bucket) & 63))
	p, i := bucket+sub>>m, sub&(1<<m-1)
	if p < len(h.pages) {
		if pg := h.pages[p]; i < len(pg) {
			pg[i]++
			h.total++
			return
		}
	}
	h.newPage(p)
	h.pages[p][i]++
	h.total++
}

// newPage allocates page p (and the page slots up to it).
func (h *pagedHist) newPage(p int) {
	if p >= len(h.pages) {
		h.pages = append(h.pages, make([][]int64, p+1-len(h.pages))...)
	}
	if h.pages[p] == nil {
		h.pages[p] = make([]int64, 1<<h.m)
	}
}

// add adds the counts of o (of the same significant digits) to h.
func (h *pagedHist) add(o *pagedHist) {
	if len(o.pages) > len(h.pages) {
		h.pages = append(h.pages, make([][]int64, len(o.pages)-len(h.pages))...)
	}
	for p, src := range o.pages {
		if src == nil {
			continue
		}
		dst := h.pages[p]
		if dst == nil {
			h.pages[p] = append([]int64(nil), src...)
			continue
		}
		for i, n := range src {
			dst[i] += n
		}
	}
	h.total += o.total
}

// reset empties h, keeping its pages for the next values.
func (h *pagedHist) reset() {
	for _, pg := range h.pages {
		clear(pg)
	}
	h.total = 0
}

// bytes returns the memory of h's counts.
func (h *pagedHist) bytes() int {
	n := 8 * cap(h.pages) * 3 // the slice headers
	for _, pg := range h.pages {
		n += 8 * cap(pg)
	}
	return n
}

// buckets visits h's populated buckets in ascending value order (see
// bucketSeq).
func (h *pagedHist) buckets(visit func(lo, hi, n int64) bool) {
	for p, pg := range h.pages {
		for i, n := range pg {
			if n == 0 {
				continue
			}
			lo, size := h.valueAt(p<<h.m + i)
			if !visit(lo, lo+size-1, n) {
				return
			}
		}
	}
}

// addTo records h's counts into d, a dense histogram of lowest discernible
// value 1 and the same significant digits whose range holds h's values:
// each bucket's count at its lowest value, which d places at the same
// index (as hdrhistogram-go's Merge does).
func (h *pagedHist) addTo(d *hdr.Histogram) {
	h.buckets(func(lo, _, n int64) bool {
		_ = d.RecordValues(lo, n) // in range: h's values were
		return true
	})
}

// dense returns h as a dense histogram of range 1 .. highest and sigFigs
// significant digits (h's), the same counts at the same indexes.
func (h *pagedHist) dense(highest int64, sigFigs int) *hdr.Histogram {
	d := hdr.New(1, highest, sigFigs)
	h.addTo(d)
	return d
}

// bucketSeq visits a histogram's populated buckets in ascending value
// order: lo and hi are the lowest and highest values equivalent to the
// bucket's (hdrhistogram-go's Distribution bars' From and To), n its
// count. It stops when visit returns false.
type bucketSeq func(visit func(lo, hi, n int64) bool)

// denseBuckets returns the populated buckets of a dense histogram, read
// through a sparse copy (hdrhistogram-go's PackedHistogram, whose memory
// follows the populated buckets) rather than Histogram.Distribution, which
// makes a 24-byte bar of every bucket up to the largest value: 0.8 MB for
// a 3-digit histogram of 1 ns .. 1 h, at every interval's p99.
func denseBuckets(h *hdr.Histogram) bucketSeq {
	lowest := max(h.LowestTrackableValue(), 1)
	p := hdr.NewPacked(lowest, h.HighestTrackableValue(), int(h.SignificantFigures()))
	p.MergeFrom(h)                               // the same geometry: nothing is dropped
	unit := uint(bits.Len64(uint64(lowest)) - 1) // hdrhistogram-go's unitMagnitude
	m := halfMagnitude(int(h.SignificantFigures()))
	mask := (uint64(1)<<(m+1) - 1) << unit
	return func(visit func(lo, hi, n int64) bool) {
		p.ForEachBucket(func(lo, n int64) bool {
			// lo is its bucket's lowest value; the bucket spans
			// 1<<(unit+bucket) values (sizeOfEquivalentValueRange).
			bucket := 64 - bits.LeadingZeros64(uint64(lo)|mask) - int(unit) - int(m+1)
			return visit(lo, lo+int64(1)<<(unit+uint(bucket))-1, n)
		})
	}
}
