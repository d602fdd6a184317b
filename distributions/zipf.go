package distributions

import (
	"math"
)

// Harmonic returns the generalised harmonic number H(n, m) = Σ_{k=1..n} k^-m,
// summed from k = n down to 1 as LinkBench does (the order fixes the
// floating-point result bit for bit, reference §7.3). It costs O(n) time;
// n <= 0 gives 0.
func Harmonic(n int64, m float64) float64 {
	s := 0.0
	for k := n; k >= 1; k-- {
		s += 1 / powJ(float64(k), m)
	}
	return s
}

// approxHarmonicExactBelow is the n below which ApproxHarmonic sums exactly.
const approxHarmonicExactBelow = 100000

// ApproxHarmonic returns LinkBench's O(1) approximation of H(n, m) for
// 0 <= m <= 1 (reference §7.3):
//
//   - n < 100000: the exact Harmonic(n, m);
//   - m == 1: ln n + 0.5772156649015329 (Euler's constant; LinkBench's
//     intended 1/(2n) term is an integer division and is therefore 0,
//     §11.2-13, kept for bit compatibility);
//   - otherwise n^(1-m)/(1-m) + 0.58 - 1/(1-m) (LinkBench's empirical
//     constant; within 0.05 % of the exact sum for the tested shapes, §10.1).
//
// m outside [0, 1] (or NaN) returns a *ParamError with Param "shape"; n < 0
// one with Param "n".
func ApproxHarmonic(n int64, m float64) (float64, error) {
	if !(m >= 0 && m <= 1) {
		return 0, paramErr("shape", m, "ApproxHarmonic needs 0 <= shape <= 1")
	}
	if n < 0 {
		return 0, paramErr("n", n, "must be >= 0")
	}
	return approxHarmonic(n, m), nil
}

func approxHarmonic(n int64, m float64) float64 {
	switch {
	case n < approxHarmonicExactBelow:
		return Harmonic(n, m)
	case m == 1:
		// LinkBench quirk §11.2-13 (ApproxHarmonic's 1/(2n) term is an integer division, 0): kept in both modes (bit compatibility).
		return math.Log(float64(n)) + 0.5772156649015329
	}
	return powJ(float64(n), 1-m)/(1-m) + 0.58 - 1/(1-m)
}

// harmonicExactMax is the largest n for which harmonicAbove1 sums exactly.
const harmonicExactMax = 10_000_000

// harmonicAbove1 returns H(n, m) for m > 1: the exact LinkBench sum (O(n))
// for n <= 10^7, and above that an O(1) Euler-Maclaurin evaluation: the
// first 999 terms summed exactly, plus for the tail Σ_{k=1000..n} k^-m the
// integral, the end-point correction and the Bernoulli terms up to B6
// (Abramowitz & Stegun 23.1.30). The truncation error of the tail is below
// m^7 * 1000^(-m-7) / 10^5, far under one ulp; measured against the exact
// sum (n = 10^3 .. 10^7, m from 0.1 to 3) the largest relative difference
// is 1.1e-13, most of it the rounding of the exact sum itself
// (TestHarmonicEulerMaclaurin asserts 1e-12).
func harmonicAbove1(n int64, m float64) float64 {
	if n <= harmonicExactMax {
		return Harmonic(n, m)
	}
	return eulerMaclaurinHarmonic(n, m)
}

// eulerMaclaurinHarmonic approximates H(n, m) for large n (see
// harmonicAbove1). Valid for m > 0, m != 1 and n >= 1000.
func eulerMaclaurinHarmonic(n int64, m float64) float64 {
	const a = 1000.0
	b := float64(n)
	f := func(x float64) float64 { return powJ(x, -m) }
	// Derivatives of x^-m: f'(x) = -m x^(-m-1), f'''(x) = -m(m+1)(m+2) x^(-m-3),
	// f^(5)(x) = -m(m+1)(m+2)(m+3)(m+4) x^(-m-5).
	d1 := func(x float64) float64 { return -m * powJ(x, -m-1) }
	d3 := func(x float64) float64 { return -m * (m + 1) * (m + 2) * powJ(x, -m-3) }
	d5 := func(x float64) float64 {
		return -m * (m + 1) * (m + 2) * (m + 3) * (m + 4) * powJ(x, -m-5)
	}
	integral := (powJ(b, 1-m) - powJ(a, 1-m)) / (1 - m)
	tail := integral + (f(a)+f(b))/2 +
		(d1(b)-d1(a))/12 - (d3(b)-d3(a))/720 + (d5(b)-d5(a))/30240
	return tail + Harmonic(int64(a)-1, m)
}

// Zipf is the Zipf distribution over [min, max) with shape θ: P(min + k) is
// proportional to (k+1)^-θ (LinkBench's ZipfDistribution, reference §7.3).
// Sampling uses the quantile approximation of Gray et al., "Quickly
// Generating Billion-Record Synthetic Databases", SIGMOD 1994, LinkBench's
// formula, evaluated in the default mode with a fast power function whose
// result may differ from LinkBench's in the last bits (see Quantile);
// the Zipf of [JavaMode] evaluates it as LinkBench does, bit for bit. Immutable and safe
// for concurrent use.
type Zipf struct {
	min, max, n int64
	shape       float64
	scale       float64
	zetan       float64 // H(n, θ): ApproxHarmonic for θ < 1, harmonicAbove1 for θ > 1
	alpha       float64 // 1/(1-θ)
	eta         float64 // (1 - (2/n)^(1-θ)) / (1 - H(2, θ)/zetan)
	half        float64 // 0.5^θ
	pow         zipfPowKind
	ialpha      int // alpha as an integer (pow == zipfPowInt)
}

// zipfPowKind is how Zipf.Quantile evaluates q^alpha.
type zipfPowKind uint8

const (
	zipfPowLean  zipfPowKind = iota // zipfPow
	zipfPowInt                      // intPowF(q, ialpha): alpha is an integer to within its rounding
	zipfPowExact                    // powJ: |alpha| > zipfPowMaxY (θ within 1/1024 of 1)
)

// zipfIntAlphaTol is the relative distance of alpha from an integer below
// which Quantile raises to the integer power: alpha = 1/(1-θ) of a θ such as
// 0.8 (alpha = 5.000000000000001) or 0.5 is an integer but for the rounding
// of 1-θ. The relative difference between q^k and q^alpha is then
// |k-alpha| |ln q| <= 2^-50 |alpha ln q| <= 2^-50 ln(n/2) < 2^-44 (the
// quantile's |alpha ln q| is at most about ln(n/2)), within zipfPow's own
// error; intPowF's own error is below (1 + |k|) 2^-52 <= 2^-45.9 for
// |k| <= zipfIntPowMaxK.
const zipfIntAlphaTol = 0x1p-50

// NewZipf returns the Zipf distribution over [min, max) with shape θ = shape.
// With hasMean, ExpectedCount(id) = n*mean*PDF(id); otherwise it is PDF(id).
//
// Set-up: zetan = H(n, θ) is LinkBench's ApproxHarmonic for θ < 1 (O(1)
// beyond n = 10^5), the exact sum for θ > 1 and n <= 10^7 (O(n), as
// LinkBench, bit-compatible), and an Euler-Maclaurin evaluation beyond 10^7
// (O(1); measured relative error 1.1e-13, see harmonicAbove1). Unlike LinkBench
// there is no process-wide cache of zetan.
//
// Errors (*ParamError): max <= min ("max"); shape not > 0, shape == 1
// (LinkBench's alpha = 1/(1-θ) is then infinite), NaN or infinite ("shape");
// mean negative or not finite ("mean").
func NewZipf(min, max int64, shape float64, mean float64, hasMean bool) (*Zipf, error) {
	if err := checkRange(min, max); err != nil {
		return nil, err
	}
	if !(shape > 0) || math.IsInf(shape, 0) {
		return nil, paramErr("shape", shape, "must be > 0 and finite (and != 1)")
	}
	if shape == 1 {
		// LinkBench quirk §11.2-13 (Zipf with shape 1 is undefined): fixed in both modes, rejected (Java draws degenerate ids); zipf_exact supports it.
		return nil, paramErr("shape", shape, "shape 1 is not supported by LinkBench's Zipf (the Gray et al. sampler's alpha = 1/(1-shape) is infinite); use zipf_exact, or e.g. 0.99 or 1.01")
	}
	z := &Zipf{min: min, max: max, n: max - min, shape: shape, scale: 1}
	if hasMean {
		if !(mean >= 0) || math.IsInf(mean, 0) {
			return nil, paramErr("mean", mean, "must be finite and >= 0")
		}
		z.scale = float64(z.n) * mean
	}
	z.zetan = z.harmonic(z.n)
	z.alpha = 1 / (1 - shape)
	n := float64(z.n)
	z.eta = (1 - powJ(2/n, 1-shape)) / (1 - (powJ(2, -shape)+1)/z.zetan)
	z.half = powJ(0.5, shape)
	switch k := math.Round(z.alpha); {
	case math.Abs(z.alpha) > zipfPowMaxY:
		z.pow = zipfPowExact
	case k != 0 && math.Abs(k) <= zipfIntPowMaxK && math.Abs(z.alpha-k) <= zipfIntAlphaTol*math.Abs(z.alpha):
		z.pow, z.ialpha = zipfPowInt, int(k)
	}
	return z, nil
}

// zipfJava is [Zipf] with LinkBench's evaluation of the quantile, bit for
// bit (Quantile, Choose), for Java-compatible runs ([JavaMode]); PDF, CDF
// and ExpectedCount are Zipf's (they are LinkBench's already).
type zipfJava struct {
	Zipf
}

// harmonic is H(k, θ) as this distribution computes it: ApproxHarmonic for
// θ < 1, harmonicAbove1 for θ > 1.
func (z *Zipf) harmonic(k int64) float64 {
	if z.shape < 1 {
		return approxHarmonic(k, z.shape)
	}
	return harmonicAbove1(k, z.shape)
}

// PDF returns (id+1-min)^-θ / zetan inside [min, max), 0 outside.
func (z *Zipf) PDF(id int64) float64 {
	if id < z.min || id >= z.max {
		return 0
	}
	return 1 / powJ(float64(id+1-z.min), z.shape) / z.zetan
}

// ExpectedCount returns scale * PDF(id) (scale = n*mean, or 1).
func (z *Zipf) ExpectedCount(id int64) float64 {
	return z.scale * z.PDF(id)
}

// CDF returns H(id+1-min, θ)/zetan inside the range (with H computed as for
// zetan, so it costs O(id - min) time for ids within 10^5 of min when
// θ < 1 and within 10^7 when θ > 1), 0 below min, 1 at or above max.
func (z *Zipf) CDF(id int64) float64 {
	if id < z.min {
		return 0
	}
	if id >= z.max {
		return 1
	}
	return z.harmonic(id+1-z.min) / z.zetan
}

// Quantile is the Gray et al. inverse (reference §7.3): with uz = p*zetan,
// min if uz < 1, min+1 if uz < 1 + 0.5^θ, else
// min + floor(n * q^alpha), q = eta*p - eta + 1, capped at max-1 (for a
// range of one id the min+1 case returns min; NaN gives min). q is
// LinkBench's, and the power is evaluated with a relative error below about
// 2^-45: by repeated multiplication when alpha is an integer but for its
// rounding (θ = 0.8: alpha = 5), else with zipfPow, and for |alpha| > 1024
// (θ within 1/1024 of 1) with powJ (then the id is LinkBench's). The
// id therefore differs from LinkBench's (see [JavaMode]) only where
// n*q^alpha lies within about 2^-44 n of an integer, and then by one: none
// in a million draws of each shipped shape over 1e9 ids
// (TestZipfFastMatchesJava), whose sampler CDF stays within 1e-9 of
// LinkBench's (TestZipfFastChiSquare).
func (z *Zipf) Quantile(p float64) int64 {
	uz := p * z.zetan
	if uz < 1 {
		return z.min
	}
	if uz < 1+z.half {
		if z.n < 2 {
			return z.min
		}
		return z.min + 1
	}
	// q as LinkBench computes it (float64() keeps the compiler from fusing
	// eta*p - eta into an FMA): a differently rounded q would move q^alpha
	// by up to alpha ulps.
	q := float64(z.eta*p) - z.eta + 1
	var y float64
	switch z.pow {
	case zipfPowInt:
		y = intPowF(q, z.ialpha)
	case zipfPowLean:
		y = zipfPow(q, z.alpha)
	default:
		y = powJ(q, z.alpha)
	}
	v := float64(z.n) * y
	if v >= float64(z.n) {
		return z.max - 1
	}
	if v > 0 {
		return z.min + int64(v)
	}
	return z.min
}

// Choose returns Quantile(r.Float64()): one draw.
func (z *Zipf) Choose(r Source) int64 {
	return z.Quantile(r.Float64())
}

// Quantile is Zipf's quantile evaluated as LinkBench does (reference
// §7.3): min + (long)(n * (eta*p - eta + 1)^alpha) in the main case, the
// power evaluated with the fast plain-double power and redone with powJ
// (Java's Math.pow) only when the product lies within its error bound of an
// integer, so the result is LinkBench's bit for bit (see javaFloorMulPow).
func (z *zipfJava) Quantile(p float64) int64 {
	uz := p * z.zetan
	if uz < 1 {
		return z.min
	}
	if uz < 1+z.half {
		if z.n < 2 {
			return z.min
		}
		return z.min + 1
	}
	// float64() keeps the compiler from fusing eta*p - eta into an FMA
	// (Java rounds the product).
	off := javaFloorMulPow(float64(z.n), float64(z.eta*p)-z.eta+1, z.alpha)
	if off >= z.n {
		return z.max - 1
	}
	if off < 0 {
		return z.min
	}
	return z.min + off
}

// Choose returns Quantile(r.Float64()): one draw, as LinkBench's choose.
func (z *zipfJava) Choose(r Source) int64 {
	return z.Quantile(r.Float64())
}
