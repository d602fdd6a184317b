package distributions

import (
	"bytes"
	"compress/flate"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"testing"

	"pgregory.net/rand"
)

// chiSquareTail is the upper-tail probability at which the goodness-of-fit
// tests reject: with fixed seeds a correct sampler fails with probability
// 1e-6 per test, so the tests are not flaky.
const chiSquareTail = 1e-6

// chiSquareCritical returns the (1 - chiSquareTail) quantile of the
// chi-square distribution with k degrees of freedom by the Wilson-Hilferty
// approximation (Wilson & Hilferty 1931): k (1 - 2/(9k) + z sqrt(2/(9k)))^3,
// z the standard normal quantile.
func chiSquareCritical(k int) float64 {
	z := math.Sqrt2 * math.Erfinv(1-2*chiSquareTail)
	h := 2 / (9 * float64(k))
	return float64(k) * math.Pow(1-h+z*math.Sqrt(h), 3)
}

// chiSquare compares observed counts of n draws with the probabilities p
// (same length; they should sum to 1): adjacent bins are merged until each
// expects at least 5 draws, then the statistic is compared with the critical
// value for (bins - 1) degrees of freedom.
func chiSquare(t *testing.T, what string, counts []int64, p []float64, n int64) {
	t.Helper()
	var stat float64
	bins := 0
	var o, e float64
	flush := func() {
		stat += (o - e) * (o - e) / e
		bins++
		o, e = 0, 0
	}
	total := 0.0
	for i := range counts {
		o += float64(counts[i])
		e += p[i] * float64(n)
		total += p[i]
		if e >= 5 {
			flush()
		}
	}
	if e > 0 || o > 0 {
		if e == 0 {
			t.Errorf("%s: %v draws in bins of probability 0", what, o)
			return
		}
		flush()
	}
	if math.Abs(total-1) > 1e-9 {
		t.Errorf("%s: probabilities sum to %v", what, total)
	}
	if bins < 2 {
		t.Fatalf("%s: only %d bins", what, bins)
	}
	crit := chiSquareCritical(bins - 1)
	t.Logf("%s: chi-square %.1f with %d degrees of freedom (critical %.1f at tail %g)", what, stat, bins-1, crit, chiSquareTail)
	if stat > crit {
		t.Errorf("%s: chi-square %.1f exceeds %.1f (%d degrees of freedom)", what, stat, crit, bins-1)
	}
}

func TestChiSquareCritical(t *testing.T) {
	// Exact 1e-6 upper quantiles (numerical inversion of the regularised
	// incomplete gamma function): Wilson-Hilferty is slightly conservative,
	// by 2.3 % at 10 degrees of freedom and less than 0.2 % from 100 on.
	for _, c := range []struct {
		k    int
		want float64
	}{{10, 46.863}, {25, 73.895}, {100, 182.127}, {999, 1226.046}} {
		got := chiSquareCritical(c.k)
		if got < c.want || got > 1.025*c.want {
			t.Errorf("chiSquareCritical(%d) = %v, want within [%v, +2.5 %%]", c.k, got, c.want)
		}
	}
}

// samplerCDF returns P(Quantile(U) <= id) for U uniform in [0, 1): the
// largest p with Quantile(p) <= id, found by bisection (Quantile is
// non-decreasing in p).
func samplerCDF(d Distribution, id int64) float64 {
	lo, hi := 0.0, 1.0
	if d.Quantile(0) > id {
		return 0
	}
	for i := 0; i < 64; i++ {
		mid := (lo + hi) / 2
		if d.Quantile(mid) <= id {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

func TestZipfChiSquare(t *testing.T) {
	for _, shape := range []float64{0.8, 1.5} {
		const lo, hi = 0, 1000
		z, err := NewZipf(lo, hi, shape, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		// The exact distribution of Gray et al.'s sampler (the probability
		// of the U interval each id gets); it approximates the Zipf pdf.
		p := make([]float64, hi-lo)
		prev := 0.0
		worst := 0.0
		for k := int64(lo); k < hi; k++ {
			c := samplerCDF(z, k)
			if k == hi-1 {
				c = 1
			}
			p[k-lo] = c - prev
			prev = c
			worst = math.Max(worst, math.Abs(c-z.CDF(k)))
		}
		t.Logf("Zipf(%v) [0,1000): largest |sampler CDF - Zipf CDF| = %.4f", shape, worst)
		const n = 1_000_000
		counts := make([]int64, hi-lo)
		r := rand.New(21)
		for i := 0; i < n; i++ {
			counts[z.Choose(r)-lo]++
		}
		chiSquare(t, "Zipf", counts, p, n)
	}
	// The approximation at the reference's check points (§10.1: range
	// [100, 100000), offsets 0,1,2,3,4,10,20,30,100,1e3,1e4, tolerance
	// 0.01), computed exactly rather than sampled, for the shipped shapes.
	for _, shape := range []float64{0.606, 0.625, 0.741, 0.8, 0.9} {
		z, _ := NewZipf(100, 100000, shape, 0, false)
		worst := 0.0
		for _, off := range []int64{0, 1, 2, 3, 4, 10, 20, 30, 100, 1000, 10000} {
			worst = math.Max(worst, math.Abs(samplerCDF(z, 100+off)-z.CDF(100+off)))
		}
		if worst > 0.01 {
			t.Errorf("Zipf(%v) [100,100000): sampler CDF off by %v > 0.01 at the reference points", shape, worst)
		}
	}
}

func TestGeometricChiSquare(t *testing.T) {
	const lo, hi, prob = 1, 128, 0.382
	g, _ := NewGeometric(lo, hi, prob, 0, false)
	// Sampling distribution (with LinkBench's off-by-one): min + k with
	// P(k) = (1-p)^(k-1) p for k >= 1, the tail from k = n-1 on capped at
	// max-1; min itself only for U == 0 (probability 2^-53, here 0).
	p := make([]float64, hi-lo)
	for k := 1; k < hi-lo-1; k++ {
		p[k] = math.Pow(1-prob, float64(k-1)) * prob
	}
	p[hi-lo-1] = math.Pow(1-prob, float64(hi-lo-2))
	const n = 1_000_000
	counts := make([]int64, hi-lo)
	r := rand.New(22)
	for i := 0; i < n; i++ {
		counts[g.Choose(r)-lo]++
	}
	chiSquare(t, "Geometric", counts, p, n)
}

func TestUniformChiSquare(t *testing.T) {
	const n = 1_000_000
	u, _ := NewUniform(5, 1005, 0, false)
	counts := make([]int64, 1000)
	p := make([]float64, 1000)
	r := rand.New(23)
	for i := 0; i < n; i++ {
		counts[u.Choose(r)-5]++
	}
	for i := range p {
		p[i] = 1.0 / 1000
	}
	chiSquare(t, "Uniform[5,1005)", counts, p, n)
	// A range beyond 2^31 (Int63n path), in 1000 equal bins.
	const big = 1 << 33
	u, _ = NewUniform(7, 7+big, 0, false)
	clear(counts)
	for i := 0; i < n; i++ {
		counts[(u.Choose(r)-7)/(big/1000)]++
	}
	chiSquare(t, "Uniform[7,7+2^33)", counts, p, n)
}

func TestLogNormalChiSquare(t *testing.T) {
	const n = 1_000_000
	l, _ := NewLogNormal(0, 255, 23, 1)
	counts := make([]int64, 255)
	p := make([]float64, 255)
	for id := range p {
		p[id] = l.PDF(int64(id))
	}
	r := rand.New(24)
	sum := 0.0
	for i := 0; i < n; i++ {
		v := l.Choose(r)
		counts[v]++
		sum += float64(v)
	}
	chiSquare(t, "LogNormal(23,1) [0,255)", counts, p, n)
	// Mean link payload ≈ 37.0 bytes (reference §7.5); the mean of the
	// rounded, clamped distribution from its pdf, and the sample mean within
	// 5 standard errors.
	mean, sq := 0.0, 0.0
	for id, q := range p {
		mean += float64(id) * q
		sq += float64(id) * float64(id) * q
	}
	if math.Abs(mean-37.0) > 0.1 {
		t.Errorf("LogNormal(23,1) mean from pdf = %v, want ≈ 37.0", mean)
	}
	if se := math.Sqrt((sq - mean*mean) / n); math.Abs(sum/n-mean) > 5*se {
		t.Errorf("sample mean %v, pdf mean %v ± %v", sum/n, mean, 5*se)
	}
}

func TestRealAccessChiSquare(t *testing.T) {
	d := loadRef(t, "Distribution.dat")
	for _, s := range []Section{SectionLinkNReads, SectionNodeNReads} {
		const min, n = 1, 100_000
		rd, err := d.Distribution(s, min, min+n)
		if err != nil {
			t.Fatal(err)
		}
		// Exact probability of each rank under the stateless layered
		// sampler, from the layer runs directly (independent of PDF).
		p := make([]float64, n)
		area := rd.area
		for i, l := range rd.layers {
			for r := int64(0); r < rd.top[i]; r++ {
				p[r] += l.mass / area / float64(rd.top[i])
			}
		}
		for r := int64(0); r < n; r += 997 {
			if got := rd.PDF(min + r); math.Abs(got-p[r]) > 1e-12 {
				t.Fatalf("%s: PDF(rank %d) = %v, layer sum %v", s, r, got, p[r])
			}
		}
		cdf := 0.0
		for r := int64(0); r < 3000; r++ {
			cdf += p[r]
			if got := rd.CDF(min + r); math.Abs(got-cdf) > 1e-9 {
				t.Fatalf("%s: CDF(rank %d) = %v, want %v", s, r, got, cdf)
			}
		}
		// The layered sampler gives rank r about count(r)/(n E), with
		// count(r) = ExpectedCount(min + r) (§7.6): rank r is reached by the
		// layers k with r < m_k = ceil(n ccdf_k), exactly those counted by
		// count(r), and each gives it (n ccdf_k/m_k)/(n E) instead of
		// 1/(n E), short by less than 1/m_k <= 1/(r+1) of 1/(n E). So
		// |n E p(r) - count(r)| < count(r)/(r+1) (the head ranks, whose
		// layers hold fewer than one id's worth, get less than count(r):
		// the same expected share LinkBench's cursors give them over n E
		// draws).
		e := rd.area
		worst := 0.0
		for r := int64(0); r < n; r++ {
			c := rd.ExpectedCount(min + r)
			got := p[r] * float64(n) * e
			if c == 0 {
				if got != 0 {
					t.Fatalf("%s: rank %d has count 0 but probability %v", s, r, p[r])
				}
				continue
			}
			rel := math.Abs(got-c) / c
			worst = math.Max(worst, rel*float64(r+1))
			if rel >= 1/float64(r+1)+1e-9 {
				t.Fatalf("%s: rank %d: n E p = %v, count %v (relative %v >= 1/(r+1))", s, r, got, c, rel)
			}
		}
		t.Logf("%s n=%d: largest (r+1)|nEp(r) - count(r)|/count(r) = %.3f (bound 1)", s, n, worst)
		const draws = 1_000_000
		counts := make([]int64, n)
		r := rand.New(25)
		for i := 0; i < draws; i++ {
			counts[rd.Choose(r)-min]++
		}
		chiSquare(t, "REAL "+s.String(), counts, p, draws)
	}
}

// TestRealOutDegreeFidelity is the reference's check (§10.1): the per-id
// out-degrees of REAL LINKS over three ranges (no shuffle) reproduce the
// file's CDF, mean squared difference < 1e-4 over at most 10000 points.
func TestRealOutDegreeFidelity(t *testing.T) {
	d := loadRef(t, "Distribution.dat")
	sec := d.sec[SectionNLinks]
	for _, rg := range [][2]int64{{1_000_000, 2_000_001}, {1234567, 7654321}, {97, 10000097}} {
		od, err := d.OutDegree(rg[0], rg[1])
		if err != nil {
			t.Fatal(err)
		}
		hist := map[int64]int64{}
		for s := rg[0]; s < rg[1]; s++ {
			hist[od.NLinks(s)]++
		}
		n := float64(rg[1] - rg[0])
		step := max(1, len(sec.values)/10000)
		var sq float64
		var pts int
		cum, j := int64(0), 0
		for i := 0; i < len(sec.values); i++ {
			cum += hist[sec.values[i]]
			if i%step != 0 && i != len(sec.values)-1 {
				continue
			}
			diff := float64(cum)/n - sec.probs[i]
			sq += diff * diff
			pts++
			j++
		}
		if mse := sq / float64(pts); mse >= 1e-4 {
			t.Errorf("REAL LINKS over [%d, %d): CDF mean squared difference %v >= 1e-4", rg[0], rg[1], mse)
		}
	}
}

// TestMotifCompressibility: a deflate (best compression) of a long stream of
// payloads with the shipped settings and log-normal sizes compresses to
// about 0.24 (links) and 0.61 (nodes) of its size (reference §8.2), within
// 0.02.
func TestMotifCompressibility(t *testing.T) {
	cases := []struct {
		name              string
		start, end        int
		uniq              float64
		median, max       int64
		payloads          int
		want              float64
		useJava           bool
		minBytesForStable int
	}{
		{name: "links", start: 32, end: 100, uniq: 0.225, median: 23, max: 255, payloads: 60000, want: 0.24},
		{name: "links JavaRandom", start: 32, end: 100, uniq: 0.225, median: 23, max: 255, payloads: 30000, want: 0.24, useJava: true},
		{name: "nodes", start: 50, end: 220, uniq: 0.63, median: 168, max: 1 << 20, payloads: 8000, want: 0.61},
	}
	for _, c := range cases {
		m, err := NewMotif(c.start, c.end, c.uniq)
		if err != nil {
			t.Fatal(err)
		}
		size, _ := NewLogNormal(0, c.max, float64(c.median), 1)
		var src Source = rand.New(26)
		if c.useJava {
			src = NewJavaRandom(26)
		}
		var raw bytes.Buffer
		buf := make([]byte, 0, 4096)
		for i := 0; i < c.payloads; i++ {
			k := size.Choose(src)
			if int64(cap(buf)) < k {
				buf = make([]byte, 0, k)
			}
			p := m.Fill(src, buf[:k])
			for _, b := range p {
				if int(b) < c.start || int(b) > c.end {
					t.Fatalf("%s: byte %d outside [%d, %d]", c.name, b, c.start, c.end)
				}
			}
			raw.Write(p)
		}
		var z bytes.Buffer
		w, _ := flate.NewWriter(&z, flate.BestCompression)
		w.Write(raw.Bytes())
		w.Close()
		ratio := float64(z.Len()) / float64(raw.Len())
		t.Logf("%s: %d payloads, %d bytes, deflate ratio %.4f", c.name, c.payloads, raw.Len(), ratio)
		if math.Abs(ratio-c.want) > 0.02 {
			t.Errorf("%s: deflate ratio %.4f, want %.2f ± 0.02", c.name, ratio, c.want)
		}
	}
}

// TestFillFastPathUniform checks the pgregory fast path of the byte fills:
// every byte value of the range appears with frequency 1/range (chi-square),
// for a range that is not a power of two.
func TestFillFastPathUniform(t *testing.T) {
	u, _ := NewUniformData(32, 100)
	const n = 2_000_000
	buf := make([]byte, n)
	u.Fill(rand.New(27), buf)
	counts := make([]int64, 69)
	for _, b := range buf {
		if b < 32 || b > 100 {
			t.Fatalf("byte %d outside [32, 100]", b)
		}
		counts[b-32]++
	}
	p := make([]float64, 69)
	for i := range p {
		p[i] = 1.0 / 69
	}
	chiSquare(t, "UniformData fast path", counts, p, n)
	// Pairs of consecutive bytes (the four digits of one 64-bit draw) are
	// independent.
	pairs := make([]int64, 69*69)
	for i := 0; i+1 < n; i += 2 {
		pairs[int(buf[i]-32)*69+int(buf[i+1]-32)]++
	}
	pp := make([]float64, 69*69)
	for i := range pp {
		pp[i] = 1.0 / (69 * 69)
	}
	chiSquare(t, "UniformData fast path pairs", pairs, pp, n/2)
}

// TestRealGuidedSearch checks the guide table of the layer search against a
// plain search over all runs.
func TestRealGuidedSearch(t *testing.T) {
	d := loadRef(t, "Distribution_2011.dat")
	for s := SectionNLinks; s < numSections; s++ {
		rd, err := d.Distribution(s, 1, 1001)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(30)
		for i := 0; i < 200000; i++ {
			u := r.Float64()
			switch i % 4 {
			case 1:
				u = float64(r.Int31n(layerGuide)) / layerGuide // bucket edges
			case 2:
				u = math.Nextafter(float64(r.Int31n(layerGuide)+1)/layerGuide, 0)
			}
			want := lowerBoundFloat(rd.cum, 0, len(rd.cum), rd.area*u)
			if want >= len(rd.cum) {
				want = len(rd.cum) - 1
			}
			if got := rd.run(u); got != want {
				t.Fatalf("%s: run(%v) = %d, want %d", s, u, got, want)
			}
		}
		if got := rd.run(0); got != 0 {
			t.Errorf("%s: run(0) = %d, want 0 (layer 1, LinkBench's idx 0 -> 1)", s, got)
		}
	}
}

// zipfTestShapes are the shapes of the Zipf tests: the shipped workload's
// (0.606, 0.625, 0.741, 0.8), shapes whose alpha = 1/(1-θ) is an integer
// (0.5, 0.8, 0.9, 1.5, 2: the integer-power path), others above 1 and
// one within 1/1024 of 1 (powJ).
var zipfTestShapes = []float64{0.3, 0.5, 0.606, 0.625, 0.741, 0.8, 0.9, 0.99, 0.9995, 1.5, 2, 3}

// TestZipfFastMatchesJava: the default-mode Zipf quantile (fast power)
// gives LinkBench's id (the Java mode's zipfJava) except, by one, where n*q^alpha lies
// within 2^-44 n of an integer: over [1, 1e9+1) and [0, 1000) and a
// million p per shape (200000 with -short), at most one in 20000 differs.
func TestZipfFastMatchesJava(t *testing.T) {
	r := rand.New(64)
	for _, n := range []int64{1000, 1_000_000_000} {
		for _, shape := range zipfTestShapes {
			z, err := NewZipf(1, 1+n, shape, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			zj, _ := newZipfJava(1, 1+n, shape, 0, false)
			draws := 1_000_000
			if testing.Short() {
				draws = 200_000
			}
			diff := 0
			for i := 0; i < draws; i++ {
				p := r.Float64()
				got, want := z.Quantile(p), zj.Quantile(p)
				if got == want {
					continue
				}
				diff++
				v := float64(n) * powJ(float64(z.eta*p)-z.eta+1, z.alpha)
				if d := got - want; d != 1 && d != -1 || math.Abs(v-math.Round(v)) > float64(n)*0x1p-44 {
					t.Errorf("Zipf(%v) n=%d Quantile(%v) = %d, Java %d (n*q^alpha = %v)", shape, n, p, got, want, v)
				}
			}
			t.Logf("Zipf(%v) n=%d: %d of %d ids differ from Java's (by one)", shape, n, diff, draws)
			if diff > draws/20000 {
				t.Errorf("Zipf(%v) n=%d: %d of %d ids differ from Java's", shape, n, diff, draws)
			}
		}
	}
}

// TestZipfFastChiSquare: draws of the default-mode Zipf follow the
// distribution of LinkBench's sampler (Gray et al.'s quantile as zipfJava
// computes it, reference §7.3), by a chi-square test of a million draws
// (200000 with -short) on [0, 1000) per id and on [1, 1e9+1) in 60
// logarithmic bins, for every power path; and its exact sampler CDF (by
// bisection over p) stays within 1e-9 of the reference's at the bin edges.
func TestZipfFastChiSquare(t *testing.T) {
	for _, c := range []struct{ lo, hi int64 }{{0, 1000}, {1, 1_000_000_001}} {
		var edges []int64 // bins [edges[i], edges[i+1])
		if c.hi-c.lo <= 1000 {
			for id := c.lo; id <= c.hi; id++ {
				edges = append(edges, id)
			}
		} else {
			for e := 0.0; ; e += 0.15 {
				id := c.lo + int64(math.Pow(10, e)) - 1
				if id >= c.hi {
					break
				}
				if len(edges) == 0 || id > edges[len(edges)-1] {
					edges = append(edges, id)
				}
			}
			edges = append(edges, c.hi)
		}
		for si, shape := range zipfTestShapes {
			z, _ := NewZipf(c.lo, c.hi, shape, 0, false)
			zj, _ := newZipfJava(c.lo, c.hi, shape, 0, false)
			p := make([]float64, len(edges)-1)
			prev, worst := 0.0, 0.0
			for i := range p {
				cdf := 1.0
				if i < len(p)-1 {
					cdf = samplerCDF(zj, edges[i+1]-1)
					worst = math.Max(worst, math.Abs(samplerCDF(z, edges[i+1]-1)-cdf))
				}
				p[i] = cdf - prev
				prev = cdf
			}
			if worst > 1e-9 {
				t.Errorf("Zipf(%v) [%d,%d): sampler CDF differs from Java's by %v", shape, c.lo, c.hi, worst)
			}
			n := int64(1_000_000)
			if testing.Short() {
				n = 200_000
			}
			counts := make([]int64, len(p))
			r := rand.New(65, uint64(si))
			for i := int64(0); i < n; i++ {
				id := z.Choose(r)
				b, _ := slices.BinarySearch(edges, id+1)
				counts[b-1]++
			}
			chiSquare(t, fmt.Sprintf("Zipf(%v) [%d,%d)", shape, c.lo, c.hi), counts, p, n)
		}
	}
}

// fillBytesPerByte is fillBytesFast as it was first written, one byte
// store at a time: the reference of TestFillBytesFastWords.
func fillBytesPerByte(r *rand.Rand, buf []byte, start byte, n uint64) {
	i := 0
	for ; i+4 <= len(buf); i += 4 {
		x := r.Uint64()
		for k := range 4 {
			var d uint64
			d, x = bits.Mul64(n, x)
			buf[i+k] = start + byte(d)
		}
	}
	if i < len(buf) {
		x := r.Uint64()
		for ; i < len(buf); i++ {
			var d uint64
			d, x = bits.Mul64(n, x)
			buf[i] = start + byte(d)
		}
	}
}

// TestFillBytesFastWords: fillBytesFast, which stores four bytes as one
// word, writes the bytes of the per-byte stores and draws as much, for
// every byte range (start + n - 1 <= 255) and lengths around the word size.
func TestFillBytesFastWords(t *testing.T) {
	for n := uint64(2); n <= 256; n++ {
		for _, start := range []int{0, 1, 32, 50, 255 - int(n) + 1} {
			if start+int(n)-1 > 255 {
				continue
			}
			for _, size := range []int{0, 1, 3, 4, 5, 7, 8, 9, 31, 128, 277} {
				a, b := rand.New(n, uint64(size)), rand.New(n, uint64(size))
				got, want := make([]byte, size), make([]byte, size)
				fillBytesFast(a, got, byte(start), n)
				fillBytesPerByte(b, want, byte(start), n)
				if !bytes.Equal(got, want) || a.Uint64() != b.Uint64() {
					t.Fatalf("n %d start %d size %d: %v, want %v (or the draws differ)", n, start, size, got, want)
				}
			}
		}
	}
}
