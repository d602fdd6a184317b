package distributions

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Real is an empirical distribution of Distribution.dat over the ids
// [min, max) (LinkBench's RealDistribution, reference §7.6), ranked so that
// min is the id with the largest value. Immutable and safe for concurrent
// use; it holds O(points of the section) memory, independent of n.
//
// ExpectedCount(id) is LinkBench's step lookup of the inverse CDF: with
// u = 1 - (id-min)/n, the value of the first point whose cumulative
// probability is >= u (no interpolation). The rank-0 id gets the largest
// value of the file whatever n is (§11.1-5). This is the out-degree of the
// REAL model.
//
// Choose is the default-mode (reproducible, stateless) form of LinkBench's
// layered sampler; see [Real.Choose]. PDF, CDF and Quantile describe Choose
// exactly (LinkBench's pdf is ExpectedCount/(n*expected_val), which PDF
// approaches as n grows; its cdf and quantile throw).
type Real struct {
	min, max, n int64
	points      *section  // ExpectedCount
	layers      []layer   // Choose: the runs of layers of the sampling section
	area        float64   // total layer mass: cs[last] = expected_val
	cum         []float64 // per run: cumulative layer mass (the run form of cs)
	guide       []int32   // guide[b] = first run with cum >= area*b/layerGuide
	top         []int64   // per run: ids reached by its layers, ceil(n*c) clamped to [1, n]
	w           []float64
}

// layerGuide is the number of buckets of the guide table that narrows the
// search for the layer run (a power of two, so U*layerGuide is exact).
const layerGuide = 1024

// Distribution returns section s over [min, max) as a [Real] distribution.
//
// Choose samples the layers of s, except for SectionNodeNWrites, whose
// layers are those of link_nwrites: LinkBench's NODE_UPDATES kind samples
// the link-writes cs array (the node_nwrites one is computed but unused,
// reference §7.6); that quirk is kept, so node_nwrites needs link_nwrites.
// ExpectedCount always uses the points of s. A section whose values are all
// 0 has no layer; its Choose is uniform over [min, max) (LinkBench fails).
//
// Errors (*ParamError): max <= min ("max"); s not a section ("realdist");
// a needed section absent from the data ("real").
func (d *RealData) Distribution(s Section, min, max int64) (*Real, error) {
	if err := checkRange(min, max); err != nil {
		return nil, err
	}
	pts, err := d.need(s)
	if err != nil {
		return nil, err
	}
	ls := pts
	if s == SectionNodeNWrites {
		if ls, err = d.need(SectionLinkNWrites); err != nil {
			return nil, err
		}
	}
	rd := &Real{min: min, max: max, n: max - min, points: pts, layers: ls.layerRuns()}
	if len(rd.layers) == 0 {
		// Every id has value 0: there is no layer to sample (LinkBench
		// fails). Sample every id with equal probability instead.
		rd.layers = []layer{{c: 1, mass: 1, cum: 1}}
	}
	n := float64(rd.n)
	rd.top = make([]int64, len(rd.layers))
	rd.w = make([]float64, len(rd.layers)+1)
	rd.area = rd.layers[len(rd.layers)-1].cum
	rd.cum = make([]float64, len(rd.layers))
	for i, l := range rd.layers {
		rd.cum[i] = l.cum
	}
	rd.guide = make([]int32, layerGuide+1)
	for b := range rd.guide {
		rd.guide[b] = int32(lowerBoundFloat(rd.cum, 0, len(rd.cum), rd.area*(float64(b)/layerGuide)))
	}
	for i, l := range rd.layers {
		t := javaLong(math.Ceil(n * l.c))
		if t < 1 {
			t = 1
		} else if t > rd.n {
			t = rd.n
		}
		rd.top[i] = t
		rd.w[i+1] = rd.w[i] + l.mass/rd.area/float64(t)
	}
	return rd, nil
}

// ExpectedCount returns the section's value at rank id-min (LinkBench's
// expectedCount, see [Real]); 0 outside [min, max).
func (rd *Real) ExpectedCount(id int64) float64 {
	if id < rd.min || id >= rd.max {
		return 0
	}
	return float64(rd.points.lookup(1 - float64(id-rd.min)/float64(rd.n)))
}

// Choose draws an id in [min, max): one r.Float64() picks the layer k
// (ids with at least k accesses) with probability ccdf[k]/expected_val
// exactly as LinkBench does (p = expected_val*U, then the layer where the
// cumulative sum cs reaches p; p = 0 gives layer 1), and one r.Int63n(m_k)
// picks uniformly among the m_k = ceil(n*ccdf[k]) top-ranked ids of that
// layer (clamped to [1, n]); the result is min + that rank.
//
// This is the default-mode fix of reference §11.1-7. LinkBench hands out the
// ids of each layer round-robin from cursors shared by every thread and
// instance (non-reproducible, and drifting toward uniform once n*expected_val
// draws are exceeded). Sampling a uniform rank within the layer instead gives
// every rank r the probability count(r)/(n*expected_val) for ever, where
// count(r) = ExpectedCount(min+r), up to the rounding of n*ccdf[k]; the
// layer choice itself is unchanged. The cs array is held in run form (one
// entry per point of the file, see buildLayers), so the layer found may
// differ from LinkBench's binary search on the materialised cs array only
// through floating-point rounding at a run boundary. The Java-compatible
// sampler ([JavaMode]) searches LinkBench's
// materialised cs array instead and reads the id from its shared per-layer
// cursors ([RealCursors]).
func (rd *Real) Choose(r Source) int64 {
	i := rd.run(r.Float64())
	return rd.min + r.Int63n(rd.top[i])
}

// run returns the layer run for the uniform draw u: the first run whose
// cumulative mass reaches p = area*u (Java's binary search on cs returns
// the insertion point, the first cs[k] > p, or an index with cs[k] == p:
// both lie in this run). p lies between area*(b/G) and area*((b+1)/G) for
// b = floor(u*G) (multiplication is monotone), so the run is in
// [guide[b], guide[b+1]].
func (rd *Real) run(u float64) int {
	b := int(u * layerGuide)
	lo, hi := int(rd.guide[b]), int(rd.guide[b+1])
	if hi >= len(rd.cum) {
		hi = len(rd.cum) - 1
	}
	return lowerBoundFloat(rd.cum, lo, hi, rd.area*u)
}

// firstTopAtMost returns the first run i with top[i] <= x (top is
// non-increasing), or len(top).
func (rd *Real) firstTopAtMost(x int64) int {
	lo, hi := 0, len(rd.top)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if rd.top[mid] > x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// PDF returns the probability that Choose returns id: the sum over runs
// whose m_k exceeds the rank of mass/(expected_val*m_k). 0 outside the range.
func (rd *Real) PDF(id int64) float64 {
	if id < rd.min || id >= rd.max {
		return 0
	}
	return rd.w[rd.firstTopAtMost(id-rd.min)]
}

// CDF returns the probability that Choose returns an id <= id: 0 below min,
// 1 at or above max.
func (rd *Real) CDF(id int64) float64 {
	if id < rd.min {
		return 0
	}
	if id >= rd.max-1 {
		return 1
	}
	k := id - rd.min + 1 // number of ranks covered
	j := rd.firstTopAtMost(k)
	// Runs j.. reach at most k ids: all their mass is covered; runs before j
	// contribute k ids of probability w each.
	below := 0.0
	if j > 0 {
		below = rd.layers[j-1].cum
	}
	c := (rd.area-below)/rd.area + float64(k)*rd.w[j]
	if c > 1 {
		c = 1
	}
	return c
}

// Quantile returns the smallest id in [min, max) with CDF(id) >= p
// (bisection over the ids).
func (rd *Real) Quantile(p float64) int64 {
	lo, hi := rd.min, rd.max-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if rd.CDF(mid) < p {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Point is one point of a discrete cumulative distribution (a row of a
// Distribution.dat section, reference §7.6): Prob is the fraction of ids
// whose value (accesses or links per id) is <= Value.
type Point struct {
	Value int64   // >= 0; strictly ascending along a distribution's points
	Prob  float64 // in [0, 1]; non-decreasing, the last 1
}

// ParsePoints parses the points of a piecewise distribution written as a
// Distribution.dat section is (reference §7.6): "<value> <percent>" pairs,
// separated by white space or commas, the percent being 100 times the
// cumulative fraction (Prob = percent/100, as LinkBench reads the file). For
// example "0 10, 1 15, 2 17, 120 100". The points are validated as
// [NewPiecewise] does. Errors are *ParamError with Param "points".
func ParsePoints(s string) ([]Point, error) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	if len(f) == 0 || len(f)%2 != 0 {
		return nil, paramErr("points", s, "need \"<value> <percent>\" pairs (got %d fields)", len(f))
	}
	pts := make([]Point, len(f)/2)
	for i := range pts {
		v, err := strconv.ParseInt(f[2*i], 10, 64)
		if err != nil {
			return nil, paramErr("points", f[2*i], "point %d: the value must be an integer", i+1)
		}
		p, err := strconv.ParseFloat(f[2*i+1], 64)
		if err != nil || !isDecimalSyntax(f[2*i+1]) {
			return nil, paramErr("points", f[2*i+1], "point %d: the percent must be a decimal number", i+1)
		}
		pts[i] = Point{Value: v, Prob: p / 100}
	}
	if _, err := newPiecewiseSection(pts); err != nil {
		return nil, err
	}
	return pts, nil
}

// newPiecewiseSection validates points and derives a section from them.
func newPiecewiseSection(pts []Point) (*section, error) {
	if len(pts) == 0 {
		return nil, paramErr("points", 0, "need at least one point")
	}
	s := &section{name: SectionNone}
	for i, pt := range pts {
		v, p := pt.Value, pt.Prob
		switch {
		case v < 0 || (i > 0 && v <= pts[i-1].Value):
			return nil, paramErr("points", v, "value %d: values must be >= 0 and strictly ascending", i)
		case !(p >= 0 && p <= 1) || (i > 0 && p < pts[i-1].Prob):
			return nil, paramErr("points", p, "probability %d: must be in [0, 1] and non-decreasing", i)
		}
		s.values = append(s.values, v)
		s.pcts = append(s.pcts, p*100)
	}
	if err := s.validate(); err != nil {
		return nil, paramErr("points", pts[len(pts)-1].Prob, "%v", err)
	}
	s.derive()
	return s, nil
}

// newPiecewisePoints builds KindPiecewise from Spec.Points.
func newPiecewisePoints(min, max int64, pts []Point) (*Real, error) {
	s, err := newPiecewiseSection(pts)
	if err != nil {
		return nil, err
	}
	d := &RealData{}
	d.sec[SectionNLinks] = s
	return d.Distribution(SectionNLinks, min, max)
}

// NewPiecewise returns the empirical distribution given by the points of a
// discrete cumulative distribution over [min, max), LinkBench's
// PiecewiseLinearDistribution (the base of RealDistribution, reference §7.6):
// cumProbs[i] is the fraction of ids whose value is <= values[i]. The points
// are validated as a Distribution.dat section is (values >= 0 strictly
// ascending, probabilities in [0, 1] non-decreasing, the last within 1e-11 of
// 1); errors are *ParamError with Param "points". The result behaves exactly
// like a section of RealData (see [Real]).
func NewPiecewise(min, max int64, values []int64, cumProbs []float64) (*Real, error) {
	if len(values) == 0 || len(values) != len(cumProbs) {
		return nil, paramErr("points", len(values), "need as many values as probabilities, at least one (got %d and %d)", len(values), len(cumProbs))
	}
	pts := make([]Point, len(values))
	for i, v := range values {
		pts[i] = Point{Value: v, Prob: cumProbs[i]}
	}
	return newPiecewisePoints(min, max, pts)
}
