package distributions

import (
	"math"
	"strconv"
	"testing"

	"pgregory.net/rand"
)

var zipfExactShapes = []float64{0.5, 0.8, 1.0, 1.5, 3}

// TestZipfExactChiSquare compares the sampled ranks with the exact Zipf
// probabilities k^-θ / Σ_{j<=n} j^-θ (computed here by direct summation),
// per id on n = 1000 and in bins on n = 10^9 and n = 2^62, at a critical
// value computed from the degrees of freedom (chiSquare).
func TestZipfExactChiSquare(t *testing.T) {
	for si, q := range zipfExactShapes {
		const lo, n = 7, 1000
		z, err := NewZipfExact(lo, lo+n, q, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		p := make([]float64, n)
		sum := 0.0
		for k := n; k >= 1; k-- {
			p[k-1] = math.Pow(float64(k), -q)
			sum += p[k-1]
		}
		for k := range p {
			p[k] /= sum
			if d := math.Abs(z.PDF(lo+int64(k)) - p[k]); d > 1e-15 {
				t.Errorf("shape %v: PDF(rank %d) = %v, exact %v", q, k+1, z.PDF(lo+int64(k)), p[k])
			}
		}
		const draws = 1_000_000
		counts := make([]int64, n)
		r := rand.New(31, uint64(si))
		for i := 0; i < draws; i++ {
			counts[z.Choose(r)-lo]++
		}
		chiSquare(t, "ZipfExact("+ftoa(q)+") n=1000", counts, p, draws)
	}
	for _, n := range []int64{1_000_000_000, 1 << 62} {
		for si, q := range zipfExactShapes {
			z, err := NewZipfExact(1, 1+n, q, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			// Bin tops: every rank up to 16, then powers of 2^(1/4).
			var tops []int64
			for k := int64(1); k <= 16; k++ {
				tops = append(tops, k)
			}
			for x := 16.0; ; x *= math.Pow(2, 0.25) {
				k := int64(x)
				if k >= n {
					break
				}
				if k > tops[len(tops)-1] {
					tops = append(tops, k)
				}
			}
			tops = append(tops, n)
			p := make([]float64, len(tops))
			prev := 0.0
			for i, k := range tops {
				c := z.CDF(k) // CDF(id) with id = rank since min = 1
				p[i] = c - prev
				prev = c
			}
			const draws = 1_000_000
			counts := make([]int64, len(tops))
			r := rand.New(32, uint64(si))
			for i := 0; i < draws; i++ {
				k := z.Choose(r)
				j := lowerBoundInt(tops, k)
				counts[j]++
			}
			chiSquare(t, "ZipfExact("+ftoa(q)+") n="+itoa(n), counts, p, draws)
		}
	}
}

func lowerBoundInt(a []int64, x int64) int {
	lo, hi := 0, len(a)
	for lo < hi {
		m := (lo + hi) / 2
		if a[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// TestZipfExactLowBits checks the ids inside the blocks of the far range
// (ranks >= 2^24, see ZipfExact): with n = 2^62 the rank modulo 256 of
// draws beyond 2^32 (blocks of at least 2^12 ids) must be uniform. Without
// the block step the ranks would be rounded doubles, multiples of large
// powers of two.
func TestZipfExactLowBits(t *testing.T) {
	for si, q := range []float64{0.5, 1.0} {
		z, err := NewZipfExact(1, 1+(1<<62), q, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int64, 256)
		r := rand.New(33, uint64(si))
		var m int64
		for i := 0; i < 500_000; i++ {
			k := z.Choose(r)
			if k >= 1<<32 {
				counts[k%256]++
				m++
			}
		}
		p := make([]float64, 256)
		for i := range p {
			p[i] = 1.0 / 256
		}
		chiSquare(t, "ZipfExact("+ftoa(q)+") n=2^62 rank mod 256", counts, p, m)
	}
}

// TestZipfExactHarmonic checks the Euler-Maclaurin normalising constant
// against exact sums (n = 10^6; relative 1e-12) and the CDF against
// partial sums.
func TestZipfExactHarmonic(t *testing.T) {
	const n = 1_000_000
	for _, q := range append([]float64{0.01, 0.1, 0.99, 0.999999, 1.000001, 1.01, 2, 7}, zipfExactShapes...) {
		z, err := NewZipfExact(0, n, q, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		exact := powerSum(n, q)
		if rel := math.Abs(z.zetan-exact) / exact; rel > 1e-12 {
			t.Errorf("shape %v: H(10^6) = %v, exact %v (relative %.2g)", q, z.zetan, exact, rel)
		}
		for _, k := range []int64{1, 2, 999, 1000, 1001, 54321, 999_999} {
			want := powerSum(k, q) / exact
			if d := math.Abs(z.CDF(k-1) - want); d > 1e-12 {
				t.Errorf("shape %v: CDF(rank %d) = %v, exact %v", q, k, z.CDF(k-1), want)
			}
		}
	}
}

// TestZipfExactSqueeze checks the squeeze of the rejection-inversion step:
// for every rank k >= 2 the accept region of its cell,
// x >= H^-1(H(k+1/2) - h(k)), contains [k - s, k + 1/2], so accepting
// k - x <= s without the test never accepts a rejected point (checked for
// k up to 10^5 and at powers of two up to 2^40, wherever k^-θ does not
// underflow: beyond, the cells have no mass a double can represent).
func TestZipfExactSqueeze(t *testing.T) {
	for _, q := range []float64{1e-6, 0.01, 0.5, 0.8, 1, 1.5, 3, 10, 100} {
		z, err := NewZipfExact(0, 1<<50, q, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		check := func(k int64) {
			kf := float64(k)
			if z.h(kf+1) < 1e-290 {
				return
			}
			a := z.hatHInv(z.hatH(kf+0.5) - z.h(kf))
			if kf-z.s < a-1e-9*kf {
				t.Fatalf("shape %v: rank %d accepts from %v but the squeeze from %v", q, k, a, kf-z.s)
			}
		}
		for k := int64(2); k <= 100_000; k++ {
			check(k)
		}
		for k := int64(1 << 17); k <= 1<<40; k *= 2 {
			check(k)
		}
	}
}

// countingSource counts Float64 draws.
type countingSource struct {
	*rand.Rand
	floats int
}

func (c *countingSource) Float64() float64 { c.floats++; return c.Rand.Float64() }

// TestZipfExactAcceptance checks the rejection rate: the acceptance
// probability is Σ h(k) / (hat mass) = H(n)/(H(n+1/2) - H(3/2) + 1) exactly;
// it must be at least 0.9 for every shape, and the observed number of
// uniform draws per sample must match it within 5 sigma.
func TestZipfExactAcceptance(t *testing.T) {
	for si, q := range []float64{1e-6, 0.1, 0.5, 0.8, 1, 1.2, 1.5, 2, 3, 10, 100} {
		z, err := NewZipfExact(0, 1_000_000, q, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		acc := z.zetan / (z.hn - z.hx1)
		if acc < 0.9 || acc > 1+1e-12 {
			t.Errorf("shape %v: acceptance %v", q, acc)
		}
		src := &countingSource{Rand: rand.New(34, uint64(si))}
		const samples = 200_000
		for i := 0; i < samples; i++ {
			z.Choose(src)
		}
		// Draws per sample are geometric with mean 1/acc and variance
		// (1-acc)/acc^2.
		mean := float64(src.floats) / samples
		sd := math.Sqrt((1-acc)/(acc*acc)) / math.Sqrt(samples)
		if math.Abs(mean-1/acc) > 5*sd+1e-12 {
			t.Errorf("shape %v: %.5f draws per sample, want %.5f ± %.5f", q, mean, 1/acc, 5*sd)
		}
		t.Logf("shape %v: acceptance %.5f, draws per sample %.5f", q, acc, mean)
	}
}

// TestZipfExactEdges covers one-id ranges, the largest range, extreme
// shapes, Quantile and the Spec route.
func TestZipfExactEdges(t *testing.T) {
	r := rand.New(35)
	one, _ := NewZipfExact(5, 6, 0.7, 0, false)
	if one.Choose(r) != 5 || one.CDF(5) != 1 || one.PDF(5) != 1 || one.Quantile(0.5) != 5 {
		t.Error("one-id range")
	}
	for _, q := range []float64{1e-9, 0.5, 1, 2, 1e3} {
		z, err := NewZipfExact(0, math.MaxInt64, q, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20000; i++ {
			if v := z.Choose(r); v < 0 || v == math.MaxInt64 {
				t.Fatalf("shape %v: Choose = %d outside [0, 2^63-1)", q, v)
			}
		}
		if v := z.Quantile(1); v != math.MaxInt64-1 {
			t.Errorf("shape %v: Quantile(1) = %d", q, v)
		}
		if z.CDF(math.MaxInt64-1) != 1 || z.CDF(-1) != 0 {
			t.Errorf("shape %v: CDF ends", q)
		}
	}
	z, _ := NewZipfExact(10, 1010, 1, 2, true)
	if got, want := z.ExpectedCount(10), 1000*2*z.PDF(10); got != want {
		t.Errorf("ExpectedCount = %v, want %v", got, want)
	}
	for _, p := range []float64{0.1, 0.5, 0.9, 0.999} {
		id := z.Quantile(p)
		if z.CDF(id) < p || (id > 10 && z.CDF(id-1) >= p) {
			t.Errorf("Quantile(%v) = %d: CDF %v, previous %v", p, id, z.CDF(id), z.CDF(id-1))
		}
	}
	for _, name := range []string{"zipf_exact", "ZipfExact", " ZIPF_EXACT "} {
		k, err := ParseKind(name)
		if err != nil || k != KindZipfExact {
			t.Errorf("ParseKind(%q) = %v, %v", name, k, err)
		}
	}
	d, err := NewDistribution(Spec{Kind: KindZipfExact, Shape: 1}, 1, 101, nil)
	if _, ok := d.(*ZipfExact); err != nil || !ok {
		t.Errorf("NewDistribution(KindZipfExact) = %T, %v", d, err)
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := NewZipfExact(0, 10, bad, 0, false); err == nil {
			t.Errorf("shape %v accepted", bad)
		}
	}
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
func itoa(x int64) string   { return strconv.FormatInt(x, 10) }
