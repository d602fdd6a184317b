package distributions

import (
	"math"
)

// emCut is the first term of a power sum that powerSumTail evaluates by the
// Euler-Maclaurin formula; the terms below it are summed exactly.
const emCut = 1000

// powerSum returns Σ_{k=1..n} k^-q summed exactly, from k = n down to 1
// (O(n); used for n < emCut).
func powerSum(n int64, q float64) float64 {
	s := 0.0
	for k := n; k >= 1; k-- {
		s += math.Pow(float64(k), -q)
	}
	return s
}

// powDiffOverA returns (b^a - x^a)/a for 0 < x <= b, and ln(b/x) for a = 0,
// computed as x^a * expm1(a ln(b/x))/a, which stays accurate when a is
// close to 0 (no cancellation between b^a and x^a).
func powDiffOverA(x, b, a float64) float64 {
	l := math.Log(b / x)
	t := a * l
	if t == 0 {
		return math.Pow(x, a) * l
	}
	return math.Pow(x, a) * (math.Expm1(t) / t) * l
}

// powerSumTail returns Σ_{k=a..b} k^-q for integers emCut <= a <= b (given
// as float64; b may be rounded when above 2^53) and any q > 0, by the
// Euler-Maclaurin summation formula (Abramowitz & Stegun 23.1.30): the
// integral, the end-point correction (f(a)+f(b))/2 and the Bernoulli terms
// B2/2! f^(1), B4/4! f^(3) and B6/6! f^(5) at both ends, with f(x) = x^-q.
// The first omitted term is bounded by |B8|/8! |f^(7)(a)| =
// q(q+1)...(q+6) a^(-q-7)/1209600, which for a >= 1000 is below 1e-26 of
// the whole sum H(n, q) for every q up to 10 (and relatively smaller still
// for larger q, whose sums are dominated by their first term).
func powerSumTail(a, b, q float64) float64 {
	if b < a {
		return 0
	}
	f := func(x float64) float64 { return math.Pow(x, -q) }
	// Odd derivatives of x^-q: f' = -q x^(-q-1),
	// f''' = -q(q+1)(q+2) x^(-q-3), f^(5) = -q(q+1)(q+2)(q+3)(q+4) x^(-q-5).
	c1 := -q
	c3 := c1 * (q + 1) * (q + 2)
	c5 := c3 * (q + 3) * (q + 4)
	d := func(c, e, x float64) float64 { return c * math.Pow(x, -q-e) }
	s := powDiffOverA(a, b, 1-q) + (f(a)+f(b))/2
	s += (d(c1, 1, b) - d(c1, 1, a)) / 12
	s -= (d(c3, 3, b) - d(c3, 3, a)) / 720
	s += (d(c5, 5, b) - d(c5, 5, a)) / 30240
	return s
}

// zipfBlockBits is log2 of the number of blocks per octave [2^e, 2^(e+1))
// of ranks in which ZipfExact.Choose picks a block with the continuous
// sampler and the id inside it uniformly: blocks of 2^(e-20) ranks, from
// rank 2^21 on (one rank per block below).
const zipfBlockBits = 20

// zipfNoTestFrom is the rank from which Choose accepts without the
// rejection test: a cell's hat mass exceeds h(k) by the relative
// θ(θ+1)/(24k^2) (midpoint rule), below 2^-40 θ(θ+1)/24 from here on.
const zipfNoTestFrom = 1 << 20

// ZipfExact is the Zipf distribution over [min, max) with shape θ > 0:
// P(min + k - 1) = k^-θ / H(n, θ) for the rank k in [1, n], n = max - min,
// sampled exactly by rejection-inversion (W. Hörmann and G. Derflinger,
// "Rejection-inversion to generate variates from monotone discrete
// distributions", ACM TOMACS 6(3), 1996). It is the "exact" variant of
// LinkBench's [Zipf] (which uses the approximate quantile of Gray et al.):
// any θ > 0 works, including θ = 1 and θ > 1, for n up to 2^63-1, with O(1)
// set-up and memory. It has no LinkBench counterpart, so no Java-compatible
// stream. Immutable and safe for concurrent use.
//
// PDF, CDF and ExpectedCount are the exact Zipf values: the normalising
// constant H(n, θ) = Σ_{k=1..n} k^-θ is summed exactly up to k = 999 and
// completed by the Euler-Maclaurin formula (see powerSumTail; relative error
// below 1e-13, the rounding of the sum itself).
//
// Precision of Choose: an id's probability is exact up to the floating-point
// rounding of the hat function, below 1e-7 relative for ranks under 2^21.
// From rank 2^21 on, a double cannot resolve single ids over the whole range
// (n may reach 2^63), so Choose picks a block of 2^-20 of the current power
// of two (2 ids at 2^21, 2^42 ids near 2^62) with the continuous sampler and
// the id uniformly inside it: the relative error of an id's probability is
// then at most θ·2^-20 (the slope of k^-θ across a block). Probabilities
// below about 2^-53 of the whole (ids that a 53-bit uniform cannot reach)
// are not resolved either.
type ZipfExact struct {
	min, max, n int64
	q, a, invA  float64 // θ, 1 - θ and 1/(1 - θ) (0 for θ = 1)
	scale       float64
	zetan       float64 // H(n, θ)
	head        float64 // H(min(n, emCut-1), θ)
	tailForm    bool    // hat integral x^a/a instead of (x^a - 1)/a, see hatH
	hx1, hn     float64 // hat integral at the ends: H(3/2) - h(1) and H(n + 1/2)
	s           float64 // squeeze: k - x <= s accepts without evaluating H
}

// NewZipfExact returns the exact Zipf distribution over [min, max) with shape
// θ = shape. With hasMean, ExpectedCount(id) = n*mean*PDF(id) (LinkBench's
// scale convention, as for [Zipf]); otherwise it is PDF(id).
//
// Errors (*ParamError): max <= min ("max"); shape not > 0, NaN or infinite
// ("shape"); mean negative or not finite ("mean").
func NewZipfExact(min, max int64, shape float64, mean float64, hasMean bool) (*ZipfExact, error) {
	if err := checkRange(min, max); err != nil {
		return nil, err
	}
	if !(shape > 0) || math.IsInf(shape, 0) {
		return nil, paramErr("shape", shape, "must be > 0 and finite")
	}
	z := &ZipfExact{min: min, max: max, n: max - min, q: shape, a: 1 - shape, scale: 1}
	if z.a != 0 {
		z.invA = 1 / z.a
	}
	if hasMean {
		if !(mean >= 0) || math.IsInf(mean, 0) {
			return nil, paramErr("mean", mean, "must be finite and >= 0")
		}
		z.scale = float64(z.n) * mean
	}
	if z.n < emCut {
		z.head = powerSum(z.n, shape)
		z.zetan = z.head
	} else {
		z.head = powerSum(emCut-1, shape)
		z.zetan = z.head + powerSumTail(emCut, float64(z.n), shape)
	}
	nf := float64(z.n)
	// For θ > 1 the hat integral (x^a - 1)/a tends to 1/(θ-1) and loses the
	// small differences between far cells to cancellation; x^a/a tends to 0
	// and keeps them. It is used when some x in the range has x^a < 1/2.
	z.tailForm = shape > 1 && (shape-1)*math.Log(nf+0.5) > math.Ln2
	z.hx1 = z.hatH(1.5) - 1
	z.hn = z.hatH(nf + 0.5)
	z.s = 2 - z.hatHInv(z.hatH(2.5)-z.h(2))
	return z, nil
}

// h is the unnormalised probability x^-θ.
func (z *ZipfExact) h(x float64) float64 { return fastPow(x, -z.q) }

// hatH is an antiderivative of h: (x^a - 1)/a = ln(x) * expm1(a ln x)/(a ln x)
// (ln x for θ = 1, with no cancellation near θ = 1), or x^a/a in tail form.
func (z *ZipfExact) hatH(x float64) float64 {
	lx := math.Log(x)
	t := z.a * lx
	if z.tailForm {
		return math.Exp(t) / z.a
	}
	if t == 0 {
		return lx
	}
	return lx * (math.Expm1(t) / t)
}

// hatHInv inverts hatH: x = (1 + a y)^(1/a) (e^y for θ = 1), or
// (a y)^(1/a) in tail form. Values of y beyond the range of hatH give +Inf.
// The power is fastPow (relative error below (1 + |ln x|) 2^-50), whose
// latency is a third of math.Log followed by math.Exp.
func (z *ZipfExact) hatHInv(y float64) float64 {
	t := z.a * y
	if z.tailForm {
		return fastPow(t, z.invA)
	}
	if t <= -1 {
		return math.Inf(1)
	}
	if z.a == 0 {
		if y > 708 {
			return math.Inf(1)
		}
		return fastExp(y)
	}
	if t > -0.25 && t < 0.5 {
		// Near x = 1: 1 + t would round t away.
		return math.Exp(math.Log1p(t) * z.invA)
	}
	return fastPow(1+t, z.invA)
}

// Choose draws an id by rejection-inversion (Hörmann & Derflinger 1996):
// the hat is the continuous density x^-θ over [x0, n + 1/2], x0 chosen so
// that the cell of rank 1 has exactly mass h(1) = 1; a uniform u over the
// hat's integral (one r.Float64()) gives x = H^-1(u) and the rank
// k = round(x), accepted when x lies in the part of its cell whose hat mass
// equals h(k), i.e. u >= H(k + 1/2) - h(k) (with the paper's squeeze
// k - x <= s = 2 - H^-1(H(5/2) - h(2)) skipping that test), else retried.
// The test is skipped from rank 2^20 on, where the hat's excess over h(k)
// is below 2^-40 θ(θ+1)/24 relative. Acceptance is above 0.98 for every θ
// measured (TestZipfExactAcceptance; rejection vanishes as θ → 0 or ∞).
//
// Each attempt also draws one r.Uint64(), whose low bits pick the id inside
// the block from rank 2^21 on (see ZipfExact; below, blocks hold one id);
// drawing it always keeps the code free of unpredictable branches. The
// partial last block of the range may draw one more r.Int63n.
func (z *ZipfExact) Choose(r Source) int64 {
	if z.n == 1 {
		return z.min
	}
	for {
		uf := r.Float64()
		bitsv := r.Uint64()
		u := z.hx1 + uf*(z.hn-z.hx1)
		x := z.hatHInv(u)
		y := x + 0.5 // rank k is y in [k, k+1)
		if !(y < 1<<62) {
			return z.min + z.lastBlock(r, y)
		}
		// 2^e <= y < 2^(e+1); blocks of w = 2^(e-zipfBlockBits) ranks from
		// 2^(zipfBlockBits+1) on, single ranks below.
		e := int(math.Float64bits(y)>>52) - 1023
		shift := max(e-zipfBlockBits, 0)
		w := int64(1) << uint(shift)
		kd := max(javaLong(y), 1) // the rank of the cell holding x
		k := kd&^(w-1) + int64(bitsv&uint64(w-1))
		if k > z.n {
			return z.min + z.lastBlock(r, y)
		}
		// The squeeze first: it holds for all but a few % of the draws,
		// which keeps the branch predictable.
		if float64(kd)-x <= z.s || kd >= zipfNoTestFrom || u >= z.hatH(float64(k)+0.5)-z.h(float64(k)) {
			return z.min + k - 1
		}
	}
}

// lastBlock returns a rank (minus 1) of the block holding min(y, n), or of
// the last block of the range, uniformly among its ranks <= n: the end of
// the range, reached through the partial last block or the rounding of the
// hat (y just above n + 1/2, or +Inf from an underflowed hat).
func (z *ZipfExact) lastBlock(r Source, y float64) int64 {
	if nf := float64(z.n); !(y <= nf) {
		y = nf
	}
	e := int(math.Float64bits(y)>>52) - 1023
	w := int64(1) << uint(max(e-zipfBlockBits, 0))
	b := max(javaLong(y)&^(w-1), 1)
	if b > z.n {
		b = z.n &^ (w - 1)
	}
	return b - 1 + r.Int63n(min(w, z.n-b+1))
}

// PDF returns k^-θ / H(n, θ) for the rank k = id - min + 1 inside
// [min, max), 0 outside.
func (z *ZipfExact) PDF(id int64) float64 {
	if id < z.min || id >= z.max {
		return 0
	}
	return z.h(float64(id-z.min+1)) / z.zetan
}

// ExpectedCount returns scale * PDF(id) (scale = n*mean, or 1).
func (z *ZipfExact) ExpectedCount(id int64) float64 {
	return z.scale * z.PDF(id)
}

// CDF returns H(k, θ)/H(n, θ) for the rank k = id - min + 1: the exact sum
// for k < 1000 (O(k) time), else 1 - Σ_{j=k+1..n} j^-θ / H(n, θ) by the
// Euler-Maclaurin formula (O(1)); 0 below min, 1 at or above max-1.
func (z *ZipfExact) CDF(id int64) float64 {
	if id < z.min {
		return 0
	}
	if id >= z.max-1 {
		return 1
	}
	k := id - z.min + 1
	if k < emCut {
		return powerSum(k, z.q) / z.zetan
	}
	return 1 - powerSumTail(float64(k+1), float64(z.n), z.q)/z.zetan
}

// Quantile returns the smallest id in [min, max) with CDF(id) >= p, by
// bisection over the ranks (O(log n) CDF evaluations). p <= 0 (or NaN)
// gives min, p >= 1 gives max-1.
func (z *ZipfExact) Quantile(p float64) int64 {
	if !(p > 0) {
		return z.min
	}
	if p >= 1 {
		return z.max - 1
	}
	lo, hi := z.min, z.max-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if z.CDF(mid) >= p {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
