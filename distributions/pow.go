package distributions

import "math"

// powJ returns x^y rounded as Java's Math.pow rounds it.
//
// Java's Math.pow (fdlibm's algorithm, or HotSpot's intrinsic) is accurate
// to well under one ulp, so it returns the correctly rounded x^y in all but
// rare cases; Go's math.Pow is often one or two ulps away (for example
// 10^7^0.375: Java 421.6965034285823, math.Pow 421.69650342858216), which
// changes LinkBench's harmonic numbers and Zipf probabilities in the last
// bits (reference §10.2 pins them). powJ evaluates exp(y ln x) in
// double-double arithmetic (ln x and exp each to about 2^-70 relative, by
// table-driven argument reduction and short polynomials, with the exact
// products of math.FMA), so its result is the correctly rounded x^y except
// when x^y lies within about 2^-70 of a rounding boundary (tested against
// 300-bit math/big evaluations in TestPowJ).
//
// Special operands (x <= 0, infinities, NaN, y == 0) and results beyond
// e^±708 (overflow, subnormals) are delegated to math.Pow.
func powJ(x, y float64) float64 {
	if !(x > 0) || x > math.MaxFloat64 || y == 0 || !(math.Abs(y) <= math.MaxFloat64) || x == 1 {
		return math.Pow(x, y)
	}
	if y == 1 {
		return x
	}
	lh, ll := ddLog(x)
	ph := y * lh
	pl := math.FMA(y, lh, -ph) + y*ll
	if !(math.Abs(ph) <= 708) {
		return math.Pow(x, y)
	}
	return ddExp(ph, pl)
}

// twoSum returns s = fl(a+b) and the exact error a+b-s (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// ddLog returns ln x as a double-double hi + lo for finite x > 0, with a
// relative error below about 2^-70.
//
// x = 2^k m with m in [1/√2, √2); inv = logTable's 8-bit reciprocal of the
// nearest 1 + j/128, so r = m*inv - 1 is exact (|r| < 2^-7) and
// ln x = k ln 2 - ln(inv) + ln(1+r), with ln(1+r) = r - r²/2 + r³(1/3 - r/4 + ...).
func ddLog(x float64) (hi, lo float64) {
	b := math.Float64bits(x)
	k := int(b>>52) - 1023
	if k == -1023 { // subnormal
		b = math.Float64bits(x * 0x1p54)
		k = int(b>>52) - 1023 - 54
	}
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // [1, 2)
	if m > math.Sqrt2 {
		m *= 0.5
		k++
	}
	j := int((m-1)*128+128.5) - 128 - logTableBase // round((m-1)*128); the sum is positive
	e := &logTable[j]
	r := math.FMA(m, e[0], -1) // exact
	r2 := r * r
	r2l := math.FMA(r, r, -r2)
	t := r * r2 * (1.0/3 - r*(1.0/4-r*(1.0/5-r*(1.0/6-r*(1.0/7-r*(1.0/8-r*(1.0/9-r*(1.0/10))))))))
	fk := float64(k)
	s, e1 := twoSum(fk*ln2Hi, e[1])
	s, e2 := twoSum(s, r)
	s, e3 := twoSum(s, -0.5*r2)
	l := e1 + e2 + e3 + fk*ln2Lo + e[2] - 0.5*r2l + t
	hi = s + l
	lo = l - (hi - s)
	return hi, lo
}

// ddExp returns e^(hi+lo) rounded to a float64, for |hi| <= 708 and
// |lo| <= ulp(hi): 2^(n/64) = 2^(n>>6) * exp2Table[n&63] times e^r with
// |r| <= ln(2)/128, e^r - 1 = r + r²/2 + r³(1/6 + r/24 + ...).
func ddExp(hi, lo float64) float64 {
	nf := math.Floor(hi*invLn2x64 + 0.5)
	n := int(nf)
	rh := hi - nf*ln2By64Hi // exact
	rl := lo - nf*ln2By64Lo
	r, rlo := twoSum(rh, rl)
	r2 := r * r
	r2l := math.FMA(r, r, -r2)
	t := r * r2 * (1.0/6 + r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040+r*(1.0/40320))))))
	s, e := twoSum(r, 0.5*r2)
	low := e + 0.5*r2l + t + rlo + rlo*r // e^r - 1 = s + low
	tab := &exp2Table[n&63]
	ph := tab[0] * s
	pl := math.FMA(tab[0], s, -ph)
	rest := pl + tab[0]*low + tab[1] + tab[1]*s
	z, ze := twoSum(tab[0], ph)
	// Scale by 2^(n>>6), |n>>6| <= 1022: the result stays normal (|hi| <= 708),
	// so the multiplication by a power of two is exact.
	return (z + (ze + rest)) * math.Float64frombits(uint64(1023+(n>>6))<<52)
}

// fastPow returns x^y for finite x > 0 and |y ln x| <= 708 with a relative
// error below (1 + |y ln x|) 2^-50 (the rounding of the product y ln x plus
// a few ulps; TestFastPow), for uses that need no Java
// bit-compatibility (ZipfExact). It shares powJ's tables and argument
// reductions but works in plain double arithmetic (short polynomials, no
// double-double corrections), which roughly halves its latency. Other
// operands are delegated to math.Pow.
func fastPow(x, y float64) float64 {
	if !(x > 0) || x > math.MaxFloat64 || !(math.Abs(y) <= 1e300) {
		return math.Pow(x, y)
	}
	b := math.Float64bits(x)
	k := int(b>>52) - 1023
	if k == -1023 { // subnormal
		return math.Pow(x, y)
	}
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // [1, 2)
	if m > math.Sqrt2 {
		m *= 0.5
		k++
	}
	j := int((m-1)*128+128.5) - 128 - logTableBase
	e := &logTable[j]
	r := math.FMA(m, e[0], -1) // exact, |r| < 2^-7
	// ln(1+r) to |r|^8/8 < 2^-59.
	lr := r - r*r*(0.5-r*(1.0/3-r*(0.25-r*(0.2-r*(1.0/6-r*(1.0/7))))))
	lx := (float64(k)*ln2Hi + e[1]) + (lr + (float64(k)*ln2Lo + e[2]))
	z := y * lx
	if !(math.Abs(z) <= 708) {
		return math.Pow(x, y)
	}
	return fastExp(z)
}

// fastExp returns e^z for |z| <= 708 with a relative error of a few ulps
// (the table 2^(n/64) and a degree-6 polynomial for e^t - 1 on
// |t| <= ln(2)/128), faster than math.Exp on the machines measured.
func fastExp(z float64) float64 {
	nf := math.Floor(z*invLn2x64 + 0.5)
	n := int(nf)
	t := (z - nf*ln2By64Hi) - nf*ln2By64Lo // |t| <= ln(2)/128 (+ rounding)
	// e^t - 1 to t^7/5040 < 2^-60.
	p := t * (1 + t*(0.5+t*(1.0/6+t*(1.0/24+t*(1.0/120+t*(1.0/720))))))
	tab := &exp2Table[n&63]
	return (tab[0] + (tab[0]*p + tab[1])) * math.Float64frombits(uint64(1023+(n>>6))<<52)
}

// fastPowSlack bounds the relative difference between fastPow and powJ
// (Java's Math.pow) for results whose |ln| is at most 44 (every result in
// [2^-63, 2^63]): (1 + 44) 2^-50 < 2^-44.5 (TestFastPow), widened 4-fold.
const fastPowSlack = 0x1p-42

// javaFloorMulPow returns Java's (long)(m * Math.pow(b, e)) for m >= 0 and
// a product below 2^63 or saturating: it computes the power with fastPow
// and falls back to powJ only when m*b^e lies within fastPowSlack (relative)
// of an integer, where the two could truncate differently (a fraction of
// about 2^-41 * m*b^e of the calls). Results below 1/2 are 0 in both (their
// error is far below 1/2), and so are NaN products, which fall back.
func javaFloorMulPow(m, b, e float64) int64 {
	v := m * fastPow(b, e)
	d := v * fastPowSlack
	if v < 0.5 || (v < 1<<52 && math.Floor(v-d) == math.Floor(v+d)) {
		return javaLong(v)
	}
	return javaLong(m * powJ(b, e))
}

// javaCeilPow returns Math.ceil(Math.pow(b, e)) as Java computes it (powJ),
// through fastPow unless the power lies within fastPowSlack of an integer.
func javaCeilPow(b, e float64) float64 {
	v := fastPow(b, e)
	d := v * fastPowSlack
	if v < 1<<52 && math.Ceil(v-d) == math.Ceil(v+d) {
		return math.Ceil(v)
	}
	return math.Ceil(powJ(b, e))
}

// zipfPowMaxY is the largest |y| for which zipfPow's error bound holds.
const zipfPowMaxY = 1024

// zipfPow returns x^y for |y| <= zipfPowMaxY with a relative error below
// (2 + |y ln x|) 2^-51 (TestZipfPow, against powJ): the power of Zipf's
// default-mode quantile, where |y ln x| <= ln(n/2) < 44, about twice as fast
// as fastPow. ln x = k ln 2 - ln(inv_j) + ln(1+r), with inv_j the
// reciprocal of the centre of the 256th of [1, 2) holding x's mantissa m
// (lnMantTable, -ln(inv_j) as a double-double) and r = m inv_j - 1,
// |r| <= 2^-9, ln(1+r) to degree 6 (truncation below 2^-65); e^z is
// 2^(n/64) (exp2Table) times e^u, |u| <= ln(2)/128, e^u - 1 to degree 5
// (truncation below 2^-54); both polynomials in Estrin's form, in plain
// double arithmetic. The error is dominated by the rounding of
// z = y ln x. x not a positive normal float64 and results beyond e^±700
// are delegated to math.Pow.
func zipfPow(x, y float64) float64 {
	if !(x >= 0x1p-1022 && x <= math.MaxFloat64) {
		return math.Pow(x, y)
	}
	b := math.Float64bits(x)
	k := float64(int(b>>52) - 1023)
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // [1, 2)
	e := &lnMantTable[(b>>44)&255]
	r := math.FMA(m, e[0], -1)
	r2 := r * r
	// ln(1+r) = r - r²/2 + r³/3 - r⁴/4 + r⁵/5 - r⁶/6
	lr := r + r2*((-0.5+r*(1.0/3))+r2*((-0.25+r*0.2)+r2*(-1.0/6)))
	z := y * ((k*ln2Hi + e[1]) + (lr + (k*ln2Lo + e[2])))
	if !(math.Abs(z) <= 700) {
		return math.Pow(x, y)
	}
	// n = round(z 64/ln 2) by the 1.5·2^52 shift (|n| < 2^16).
	const shift = 0x1.8p52
	t := z*invLn2x64 + shift
	n := int64(math.Float64bits(t) - math.Float64bits(shift))
	nf := t - shift
	u := (z - nf*ln2By64Hi) - nf*ln2By64Lo
	u2 := u * u
	// e^u - 1 = u + u²/2 + u³/6 + u⁴/24 + u⁵/120
	p := u + u2*((0.5+u*(1.0/6))+u2*(1.0/24+u*(1.0/120)))
	tab := &exp2Table[n&63]
	return (tab[0] + (tab[0]*p + tab[1])) * math.Float64frombits(uint64(1023+(n>>6))<<52)
}

// zipfIntPowMaxK is the largest |k| for which Zipf's quantile uses intPowF.
const zipfIntPowMaxK = 64

// intPowF returns x^k for an integer k != 0 by repeated squaring (and for
// k < 0 a reciprocal): each squaring doubles the relative error of its
// operand, so the relative error stays below (1 + |k|) 2^-52 (TestZipfPow,
// for |k| <= zipfIntPowMaxK).
func intPowF(x float64, k int) float64 {
	inv := k < 0
	if inv {
		k = -k
	}
	v := 1.0
	for {
		if k&1 != 0 {
			v *= x
		}
		k >>= 1
		if k == 0 {
			break
		}
		x *= x
	}
	if inv {
		return 1 / v
	}
	return v
}
