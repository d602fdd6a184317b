package distributions

import (
	"math"
	"math/big"
	"testing"

	"pgregory.net/rand"
)

const bigPrec = 300

func bf(x float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(x) }

// bigLn returns ln x for x > 0 at bigPrec bits: k ln 2 + 2 atanh((m-1)/(m+1)).
func bigLn(x *big.Float) *big.Float {
	m := new(big.Float).SetPrec(bigPrec)
	k := x.MantExp(m) // x = m * 2^k, m in [0.5, 1)
	atanh := func(s *big.Float) *big.Float {
		sum, term := bf(0), new(big.Float).SetPrec(bigPrec).Set(s)
		s2 := bf(0).Mul(s, s)
		for i := 0; i < 2000; i++ {
			t := bf(0).Quo(term, bf(float64(2*i+1)))
			sum.Add(sum, t)
			if t.Sign() == 0 || t.MantExp(nil)-sum.MantExp(nil) < -bigPrec {
				break
			}
			term.Mul(term, s2)
		}
		return sum.Mul(sum, bf(2))
	}
	frac := func(v *big.Float) *big.Float {
		return atanh(bf(0).Quo(bf(0).Sub(v, bf(1)), bf(0).Add(v, bf(1))))
	}
	ln2 := frac(bf(2))
	l := frac(m)
	return l.Add(l, bf(0).Mul(ln2, bf(float64(k))))
}

// bigExp returns e^a at bigPrec bits: 2^q e^r with r = a - q ln 2.
func bigExp(a *big.Float) *big.Float {
	ln2 := bigLn(bf(2))
	qf, _ := bf(0).Quo(a, ln2).Float64()
	q := math.Round(qf)
	r := bf(0).Sub(a, bf(0).Mul(ln2, bf(q)))
	sum, term := bf(1), bf(1)
	for i := 1; i < 500; i++ {
		term.Mul(term, r)
		term.Quo(term, bf(float64(i)))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil) < -bigPrec-4 {
			break
		}
	}
	return sum.SetMantExp(sum, int(q))
}

// bigPow returns x^y correctly rounded to float64.
func bigPow(x, y float64) float64 {
	a := bigLn(bf(x))
	a.Mul(a, bf(y))
	f, _ := bigExp(a).Float64()
	return f
}

func TestPowJ(t *testing.T) {
	// The values Java's Math.pow gives in reference §10.2 (and math.Pow
	// does not).
	m1, m2 := 0.8, 0.625 // variables: 1-m must be rounded as at run time
	if got := powJ(1e7, 1-m1); got != 25.118864315095784 {
		t.Errorf("powJ(1e7, 1-0.8) = %v, want 25.118864315095784", got)
	}
	if got := powJ(1e7, 1-m2); got != 421.6965034285823 {
		t.Errorf("powJ(1e7, 0.375) = %v, want 421.6965034285823", got)
	}
	r := rand.New(11)
	bad := 0
	const samples = 4000
	for i := 0; i < samples; i++ {
		x := math.Exp((r.Float64()*2 - 1) * 40)
		y := (r.Float64()*2 - 1) * 4
		switch i % 4 {
		case 1:
			x = math.Floor(x) + 1 // integers, as in the harmonic sums
		case 2:
			x = 1 - r.Float64()*0.01 // near 1, as Zipf's quantile
			y = 1 / (1 - r.Float64()*0.99)
		}
		got, want := powJ(x, y), bigPow(x, y)
		if got != want {
			bad++
			if math.Abs(got-want) > math.Abs(want)*0x1p-52 {
				t.Errorf("powJ(%v, %v) = %v, want %v: more than 1 ulp off", x, y, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("powJ not correctly rounded in %d of %d cases", bad, samples)
	}
	// math.Pow for comparison (logged, not asserted).
	r = rand.New(11)
	off := 0
	for i := 0; i < 1000; i++ {
		x := math.Exp((r.Float64()*2 - 1) * 40)
		y := (r.Float64()*2 - 1) * 4
		if math.Pow(x, y) != bigPow(x, y) {
			off++
		}
	}
	t.Logf("math.Pow is not correctly rounded in %d of 1000 cases", off)
	// Special cases go to math.Pow.
	for _, c := range [][2]float64{{0, 2}, {-2, 3}, {2, 0}, {math.Inf(1), 2}, {2, math.NaN()}, {1, 5}, {2, 2000}, {2, -2000}} {
		got, want := powJ(c[0], c[1]), math.Pow(c[0], c[1])
		if !(got == want || (got != got && want != want)) {
			t.Errorf("powJ(%v, %v) = %v, want %v", c[0], c[1], got, want)
		}
	}
}

func BenchmarkPowJ(b *testing.B) {
	x := 0.7
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += powJ(x, 5.26)
		x += 1e-9
	}
	_ = s
}

func BenchmarkMathPow(b *testing.B) {
	x := 0.7
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += math.Pow(x, 5.26)
		x += 1e-9
	}
	_ = s
}

// TestFastPow checks fastPow against powJ (correctly rounded) over random
// operands spanning ZipfExact's uses: the relative error stays below
// (1 + |y ln x|) 2^-50, the rounding of the product y ln x (|y ln x| 2^-53)
// plus a few ulps.
func TestFastPow(t *testing.T) {
	r := rand.New(61)
	worst := 0.0
	for i := 0; i < 1_000_000; i++ {
		x := math.Exp(r.Float64()*80 - 20) // e^-20 .. e^60
		y := r.Float64()*40 - 20
		z := math.Abs(y * math.Log(x))
		if z > 700 {
			continue
		}
		got, want := fastPow(x, y), powJ(x, y)
		if rel := math.Abs(got-want) / want / (1 + z); rel > worst {
			worst = rel
		}
	}
	t.Logf("fastPow: largest relative error / (1 + |y ln x|) = %.3g (2^%.1f)", worst, math.Log2(worst))
	if worst > 0x1p-50 {
		t.Errorf("fastPow relative error / (1 + |y ln x|) = %v > 2^-50", worst)
	}
	for _, c := range [][2]float64{{0, 2}, {-1, 0.5}, {2, 1e308}, {1e-310, 2}} {
		if got, want := fastPow(c[0], c[1]), math.Pow(c[0], c[1]); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("fastPow(%v, %v) = %v, math.Pow %v", c[0], c[1], got, want)
		}
	}
}

func BenchmarkFastPow(b *testing.B) {
	x := 0.7
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += fastPow(x, 5.26)
		x += 1e-9
	}
	_ = s
}

// TestJavaFloorMulPow checks that the fastPow shortcuts truncate exactly as
// Java's (long)(m * Math.pow(b, e)) and Math.ceil(Math.pow(b, e)) (powJ),
// on random operands and on operands built to land next to an integer,
// where the shortcut must fall back.
func TestJavaFloorMulPow(t *testing.T) {
	r := rand.New(62)
	near := 0
	for i := 0; i < 400_000; i++ {
		m := []float64{1000, 1e9, 0x1p40, 12345678}[i%4]
		e := r.Float64()*20 - 10
		var b float64
		if i%2 == 0 {
			b = r.Float64() * 2
		} else {
			// b^e close to K/m for an integer K.
			k := math.Floor(r.Float64() * m)
			b = math.Pow(k/m, 1/e)
			near++
		}
		if got, want := javaFloorMulPow(m, b, e), javaLong(m*powJ(b, e)); got != want {
			t.Fatalf("javaFloorMulPow(%v, %v, %v) = %d, Java %d", m, b, e, got, want)
		}
		x := r.Float64() * 1e9
		c := 1 / float64(1+i%7)
		if i%2 == 1 {
			x = math.Pow(math.Floor(r.Float64()*3e4), float64(1+i%7)) // perfect powers
		}
		if got, want := javaCeilPow(x, c), math.Ceil(powJ(x, c)); got != want {
			t.Fatalf("javaCeilPow(%v, %v) = %v, Java %v", x, c, got, want)
		}
	}
}

// TestZipfPow checks zipfPow against powJ (correctly rounded but for rare
// cases) over random operands with |y| <= 1024 and |y ln x| <= 700: the
// relative error stays below (2 + |y ln x|) 2^-51 (the rounding of
// y ln x and of ln x, plus the tables and polynomials); over the operands
// of Zipf's quantile (x in [0.01, 1], the shipped shapes' alphas, where
// |y ln x| <= 44) below 2^-45. intPowF stays below (1 + |k|) 2^-52 for
// |k| <= zipfIntPowMaxK.
func TestZipfPow(t *testing.T) {
	r := rand.New(63)
	worst, worstZipf, worstInt := 0.0, 0.0, 0.0
	for i := 0; i < 1_000_000; i++ {
		var x, y float64
		switch i % 3 {
		case 0:
			x = math.Exp(r.Float64()*90 - 45)
			y = (r.Float64()*2 - 1) * zipfPowMaxY
		case 1:
			x = math.Exp(r.Float64()*90 - 45)
			y = (r.Float64()*2 - 1) * 8
		default:
			x = 0.01 + 0.99*r.Float64()
			y = []float64{1 / (1 - 0.606), 1 / (1 - 0.625), 1 / (1 - 0.741), 1 / (1 - 0.8), 1 / (1 - 0.9), 1 / (1 - 0.99)}[i%6]
		}
		z := math.Abs(y * math.Log(x))
		if z > 700 {
			continue
		}
		got, want := zipfPow(x, y), powJ(x, y)
		rel := math.Abs(got-want) / want
		worst = math.Max(worst, rel/(2+z))
		if i%3 == 2 && z <= 44 {
			worstZipf = math.Max(worstZipf, rel)
		}
		if k := 1 + i%zipfIntPowMaxK; i%4 == 0 {
			if i%8 == 0 {
				k = -k
			}
			xi := 0.01 + 0.99*r.Float64()
			g, w := intPowF(xi, k), powJ(xi, float64(k))
			worstInt = math.Max(worstInt, math.Abs(g-w)/w/(1+math.Abs(float64(k))))
		}
	}
	t.Logf("zipfPow: largest relative error / (2 + |y ln x|) = %.3g (2^%.1f); over Zipf's operands %.3g (2^%.1f)",
		worst, math.Log2(worst), worstZipf, math.Log2(worstZipf))
	t.Logf("intPowF: largest relative error / (1 + |k|) = %.3g (2^%.1f)", worstInt, math.Log2(worstInt))
	if worst > 0x1p-51 {
		t.Errorf("zipfPow relative error / (2 + |y ln x|) = %v > 2^-51", worst)
	}
	if worstZipf > 0x1p-45 {
		t.Errorf("zipfPow relative error over Zipf's operands %v > 2^-45", worstZipf)
	}
	if worstInt > 0x1p-52 {
		t.Errorf("intPowF relative error / (1 + |k|) = %v > 2^-52", worstInt)
	}
	for _, c := range [][2]float64{{0, 2}, {-1, 0.5}, {2, 1e308}, {1e-310, 2}, {math.Inf(1), 2}, {math.NaN(), 2}, {2, 1023}} {
		if got, want := zipfPow(c[0], c[1]), math.Pow(c[0], c[1]); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("zipfPow(%v, %v) = %v, math.Pow %v", c[0], c[1], got, want)
		}
	}
}

func BenchmarkZipfPow(b *testing.B) {
	x := 0.7
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += zipfPow(x, 5.26)
		x += 1e-9
	}
	_ = s
}
