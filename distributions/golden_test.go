package distributions

import (
	"math"
	"testing"
)

// Golden values of reference §10.2 (produced by the MD Java code) computed
// with JavaRandom.

func TestJavaRandomGolden(t *testing.T) {
	r := NewJavaRandom(42)
	for i, want := range []int32{-1170105035, 234785527, -1360544799} {
		if got := int32(r.Uint32()); got != want {
			t.Errorf("Random(42).nextInt() #%d = %d, want %d", i, got, want)
		}
	}
	r = NewJavaRandom(42)
	for i, want := range []int32{0, 3, 8, 4, 0, 5, 5, 8, 9, 3} {
		if got := r.Int31n(10); got != want {
			t.Errorf("Random(42).nextInt(10) #%d = %d, want %d", i, got, want)
		}
	}
	r = NewJavaRandom(42)
	for i, want := range []int32{130, 763, 248, 884, 970} {
		if got := r.Int31n(1000); got != want {
			t.Errorf("Random(42).nextInt(1000) #%d = %d, want %d", i, got, want)
		}
	}
	r = NewJavaRandom(42)
	for i, want := range []int64{-5025562857975149833, -5843495416241995736, 5694868678511409995} {
		if got := int64(r.Uint64()); got != want {
			t.Errorf("Random(42).nextLong() #%d = %d, want %d", i, got, want)
		}
	}
	r = NewJavaRandom(42)
	for i, want := range []float64{0.7275636800328681, 0.6832234717598454, 0.30871945533265976} {
		if got := r.Float64(); got != want {
			t.Errorf("Random(42).nextDouble() #%d = %v, want %v", i, got, want)
		}
	}
	r = NewJavaRandom(42)
	for i, want := range []float64{1.1419053154730547, 0.9194079489827879, -0.9498666368908959, -1.1069902863993377} {
		if got := r.NormFloat64(); got != want {
			t.Errorf("Random(42).nextGaussian() #%d = %v, want %v", i, got, want)
		}
	}
	r = NewJavaRandom(-1)
	for i, want := range []int32{282006, 460914, 12866} {
		if got := r.Int31n(1 << 20); got != want {
			t.Errorf("Random(-1).nextInt(2^20) #%d = %d, want %d", i, got, want)
		}
	}
	// Int63n delegates to nextInt for bounds that fit an int.
	a, b := NewJavaRandom(7), NewJavaRandom(7)
	for i := 0; i < 100; i++ {
		if x, y := a.Int63n(1000003), int64(b.Int31n(1000003)); x != y {
			t.Fatalf("Int63n(1000003) = %d, Int31n = %d", x, y)
		}
	}
}

func TestJavaRandomInt63nLarge(t *testing.T) {
	r := NewJavaRandom(1)
	for _, n := range []int64{1 << 31, 1<<40 + 12345, math.MaxInt64} {
		for i := 0; i < 1000; i++ {
			if v := r.Int63n(n); v < 0 || v >= n {
				t.Fatalf("Int63n(%d) = %d", n, v)
			}
		}
	}
	// Power of two: the low bits of one nextLong.
	a, b := NewJavaRandom(3), NewJavaRandom(3)
	if got, want := a.Int63n(1<<40), int64(b.Uint64())&(1<<40-1); got != want {
		t.Errorf("Int63n(2^40) = %d, want nextLong & (2^40-1) = %d", got, want)
	}
}

func TestShufflerGolden(t *testing.T) {
	cases := []struct {
		n, g int64
		want []int64
	}{
		{10, 1, []int64{8, 9, 0, 1, 2, 3, 4, 5, 6, 7}},
		{4, 2, []int64{2, 1, 0, 3}},
		{10, 5, []int64{5, 1, 7, 3, 9, 0, 6, 2, 8, 4}},
		{7, 3, []int64{3, 1, 5, 6, 4, 2, 0}},
		{10, 7, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{10, 11, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{10, 15, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{100, 11, []int64{22, 56, 57, 3, 92, 71, 50, 51, 41, 86, 87, 33, 67, 68, 14, 4, 82, 61, 62, 52, 97, 98, 44, 78, 79, 25, 15, 93, 72, 73, 63, 9, 10, 55, 89, 90, 36, 26, 5, 83, 84, 74, 20, 21, 66, 1, 2, 47, 37, 16, 94, 95, 85, 31, 32, 77, 12, 13, 58, 48, 27, 6, 7, 96, 42, 43, 88, 23, 24, 69, 59, 38, 17, 18, 8, 53, 54, 99, 34, 35, 80, 70, 49, 28, 29, 19, 64, 65, 0, 45, 46, 91, 81, 60, 39, 40, 30, 75, 76, 11}},
	}
	for _, c := range cases {
		s, err := NewInvertibleShuffler(1234, c.g, c.n)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range c.want {
			if got := s.Permute(int64(i)); got != w {
				t.Errorf("shuffler(1234, G %d, n %d).permute(%d) = %d, want %d", c.g, c.n, i, got, w)
			}
			if got := s.InvertPermute(w); got != int64(i) {
				t.Errorf("shuffler(1234, G %d, n %d).invertPermute(%d) = %d, want %d", c.g, c.n, w, got, i)
			}
		}
	}
	s, _ := NewInvertibleShuffler(13, 7, 10031)
	for i, w := range []int64{9457, 64, 7513, 2166, 7102, 9189, 664, 9464, 71, 7520} {
		if got := s.Permute(int64(i)); got != w {
			t.Errorf("shuffler(13, 7, 10031).permute(%d) = %d, want %d", i, got, w)
		}
	}
	prod := []struct {
		name    string
		seed    int64
		perm    []int64
		inverse []int64
	}{
		{"links", ShuffleSeedLinks, []int64{355328, 5764097, 1769474, 6482947, 9030660}, []int64{9645056, 4236289, 8230914, 3517443, 969732}},
		{"uncorr", ShuffleSeedUncorr, []int64{5915648, 7568385, 3737602, 7279619, 7622660}, []int64{4084736, 2432001, 6262786, 2720771, 2377732}},
		{"nodes", ShuffleSeedNodes, []int64{6192128, 7244801, 3036162, 3800067, 6669316}, []int64{3808256, 2755585, 6964226, 6200323, 3331076}},
	}
	for _, p := range prod {
		s, err := NewInvertibleShuffler(p.seed, ShuffleGroups, 10_000_000)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.perm {
			if got := s.Permute(int64(i)); got != p.perm[i] {
				t.Errorf("%s shuffler n=1e7: permute(%d) = %d, want %d", p.name, i, got, p.perm[i])
			}
			if got := s.InvertPermute(int64(i)); got != p.inverse[i] {
				t.Errorf("%s shuffler n=1e7: invertPermute(%d) = %d, want %d", p.name, i, got, p.inverse[i])
			}
		}
	}
}

func TestHarmonicGolden(t *testing.T) {
	exact := []struct {
		n    int64
		m    float64
		want float64
	}{
		{10, 1.5, 1.9953364933456017},
		{1000, 0.5, 61.80100876524327},
		{1_000_000, 0.7, 207.54075792904325},
		{100000, 0.8, 45.56251158403752},
	}
	for _, c := range exact {
		if got := Harmonic(c.n, c.m); got != c.want {
			t.Errorf("Harmonic(%d, %v) = %v, want %v", c.n, c.m, got, c.want)
		}
	}
	approx := []struct {
		n       int64
		m       float64
		want    float64
		relTol  float64
		comment string
	}{
		{99999, 0.8, 45.56241158403753, 0, "exact branch"},
		// Java's Math.pow(1e5, 0.19999999999999996) is 9.999999999999993, one
		// ulp below the correctly rounded 9.999999999999995 that powJ
		// returns (and 1.1 ulp from the exact value): the only §10.2 value
		// where Java's pow is not correctly rounded. One ulp of tolerance.
		{100000, 0.8, 45.57999999999998, 4e-16, "Java pow 1 ulp below the correctly rounded value"},
		{10_000_000, 0.8, 121.17432157547894, 0, ""},
		{10_000_000, 0.625, 1122.4373424762193, 0, ""},
		{10_000_000, 1.0, 16.695311315859854, 0, ""},
	}
	for _, c := range approx {
		got, err := ApproxHarmonic(c.n, c.m)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > c.relTol*c.want {
			t.Errorf("ApproxHarmonic(%d, %v) = %v, want %v (rel tol %g %s)", c.n, c.m, got, c.want, c.relTol, c.comment)
		}
	}
}

// TestZipfGolden: LinkBench's Zipf values (reference §10.2), from
// zipfJava (the default-mode Zipf shares PDF, CDF and ExpectedCount; its
// quantile is compared with zipfJava's in TestZipfFastMatchesJava).
func TestZipfGolden(t *testing.T) {
	z, err := newZipfJava(0, 1000, 0.8, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "Zipf[0,1000) 0.8 pdf(0)", z.PDF(0), 0.06464203343751793, 0)
	closeTo(t, "Zipf[0,1000) 0.8 pdf(1)", z.PDF(1), 0.03712709873667008, 0)
	closeTo(t, "Zipf[0,1000) 0.8 pdf(999)", z.PDF(999), 2.5734457030634816e-4, 0)
	closeTo(t, "Zipf[0,1000) 0.8 cdf(9)", z.CDF(9), 0.2304563796328332, 0)
	quantiles(t, "Zipf[0,1000) 0.8", z, []float64{0, .05, .1, .2, .5, .9, .99, .999999}, []int64{0, 0, 1, 6, 80, 661, 961, 999})

	z, err = newZipfJava(1, 10000001, 0.8, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "Zipf[1,1e7+1) 0.8 pdf(1)", z.PDF(1), 0.008252573540319798, 0)
	closeTo(t, "Zipf[1,1e7+1) 0.8 cdf(100)", z.CDF(100), 0.06713003483146476, 0)
	quantiles(t, "Zipf[1,1e7+1) 0.8", z, []float64{0, .01, .1, .2, .5, .9, .99}, []int64{1, 2, 370, 5966, 367881, 6014516, 9525843})
	r := NewJavaRandom(42)
	for i, want := range []int64{2168498, 1606773, 40123, 24732, 1418391} {
		if got := z.Choose(r); got != want {
			t.Errorf("Zipf[1,1e7+1) 0.8 choose #%d with Random(42) = %d, want %d", i, got, want)
		}
	}

	z, err = newZipfJava(0, 1000, 1.5, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "Zipf[0,1000) 1.5 pdf(0)", z.PDF(0), 0.3922883019531993, 0)
	closeTo(t, "Zipf[0,1000) 1.5 cdf(9)", z.CDF(9), 0.7827471647997972, 0)
	quantiles(t, "Zipf[0,1000) 1.5", z, []float64{0, .5, .7, .9, .99}, []int64{0, 1, 4, 32, 472})

	z, err = newZipfJava(1, 1001, 0.5, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "Zipf[1,1001) 0.5 mean 2 expectedCount(1)", z.ExpectedCount(1), 32.36193130110839, 0)
	closeTo(t, "Zipf[1,1001) 0.5 mean 2 expectedCount(1000)", z.ExpectedCount(1000), 1.0233741239339886, 0)
}

func TestGeometricGolden(t *testing.T) {
	g, err := NewGeometric(1, 128, 0.382, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	quantiles(t, "Geometric[1,128) 0.382", g, []float64{0, .1, .382, .5, .9, .999, .9999999999}, []int64{1, 2, 2, 3, 6, 16, 49})
	r := NewJavaRandom(42)
	for i, want := range []int64{4, 4, 2, 2, 4, 6, 2, 2, 3, 5} {
		if got := g.Choose(r); got != want {
			t.Errorf("Geometric choose #%d with Random(42) = %d, want %d", i, got, want)
		}
	}
	// Mean of 10^6 draws ≈ 3.6198 (reference): the sampled k >= 1 has
	// P(k) = (1-p)^(k-1) p, so the mean is 1 + 1/p = 3.6178 (the cap at 127
	// is irrelevant); the standard deviation of one draw is sqrt(1-p)/p =
	// 2.058, so the 10^6-sample mean is within 5 sigma = 0.0103 of it.
	r = NewJavaRandom(42)
	sum := 0.0
	const draws = 1_000_000
	for i := 0; i < draws; i++ {
		sum += float64(g.Choose(r))
	}
	mean := sum / draws
	if want, tol := 1+1/0.382, 5*math.Sqrt(1-0.382)/0.382/math.Sqrt(draws); math.Abs(mean-want) > tol {
		t.Errorf("Geometric 1e6-draw mean = %v, want %v ± %v", mean, want, tol)
	}
}

func TestLogNormalGolden(t *testing.T) {
	l, err := NewLogNormal(0, 255, 23, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := NewJavaRandom(42)
	for i, want := range []int64{72, 58, 9, 8, 30, 46, 10, 6, 19, 102} {
		if got := l.Choose(r); got != want {
			t.Errorf("LogNormal[0,255) 23 choose #%d = %d, want %d", i, got, want)
		}
	}
	l, err = NewLogNormal(0, 1048576, 168, 1)
	if err != nil {
		t.Fatal(err)
	}
	r = NewJavaRandom(42)
	for i, want := range []int64{526, 421, 65, 56, 223, 333, 74, 42, 139, 743} {
		if got := l.Choose(r); got != want {
			t.Errorf("LogNormal[0,1048576) 168 choose #%d = %d, want %d", i, got, want)
		}
	}
	l, err = NewLogNormal(0, 1000, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	// LinkBench's CDF uses Apache Commons Math's erf (a continued fraction
	// of the regularised gamma function, to about 1e-15), Go's math.Erf is
	// fdlibm's: cdf(16) differs by 1.6e-15 relative. Allow 1e-14.
	for _, c := range []struct {
		id   int64
		want float64
	}{{16, 0.03343241840891681}, {64, 0.3276949357115421}, {100, 0.5}, {128, 0.5974917432757963}, {512, 0.9487817402538523}} {
		closeTo(t, "LogNormal[0,1000) 100 cdf", l.CDF(c.id), c.want, 1e-14)
	}
}

func TestUniformGolden(t *testing.T) {
	u, err := NewUniform(1, 10000001, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	r := NewJavaRandom(42)
	for i, want := range []int64{2431131, 7392764, 7211249, 2948885, 2969971} {
		if got := u.Choose(r); got != want {
			t.Errorf("Uniform choose #%d = %d, want %d", i, got, want)
		}
	}
	quantiles(t, "Uniform[1,1e7+1)", u, []float64{0, 0.5, 1}, []int64{1, 5000001, 10000000})
	closeTo(t, "Uniform cdf(1)", u.CDF(1), 1e-7, 0)
	closeTo(t, "Uniform cdf(5000000)", u.CDF(5000000), 0.5, 0)
}

func TestReciprocalGolden(t *testing.T) {
	a, err := NewAccess(LinkReads, Spec{Kind: KindReciprocal}, 1, 1001, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := NewJavaRandom(42)
	for i, want := range []int64{8, 2, 5, 2, 2, 2, 2, 2, 2, 11} {
		if got := a.NextID(r, 0); got != want {
			t.Errorf("RECIPROCAL [1,1001) #%d = %d, want %d", i, got, want)
		}
	}
}

func TestDataGenGolden(t *testing.T) {
	m, err := NewMotif(32, 100, 0.225)
	if err != nil {
		t.Fatal(err)
	}
	r := NewJavaRandom(42)
	first := m.Fill(r, make([]byte, 40))
	wantBytes(t, "Motif first fill", first, []int8{82, 84, 47, 59, 59, 83, 49, 47, 98, 65, 55, 33, 44, 81, 89, 66, 61, 90, 53, 91, 48, 100, 85, 69, 62, 93, 38, 98, 66, 99, 46, 50, 56, 59, 67, 99, 40, 38, 66, 92})
	second := m.Fill(r, make([]byte, 20))
	wantBytes(t, "Motif second fill", second, []int8{41, 47, 39, 50, 81, 73, 86, 37, 65, 32, 84, 76, 61, 70, 35, 84, 46, 57, 34, 51})

	u, err := NewUniformData(0, 255)
	if err != nil {
		t.Fatal(err)
	}
	wantBytes(t, "Uniform fill", u.Fill(NewJavaRandom(42), make([]byte, 10)), []int8{-70, 13, -82, 12, 79, -15, 70, -75, -86, 23})

	closeTo(t, "link estMaxCompression", m.EstMaxCompression(), 0.0609, 1e-3)
	n, _ := NewMotif(50, 220, 0.63)
	closeTo(t, "node estMaxCompression", n.EstMaxCompression(), 0.4225, 1e-3)
}

func closeTo(t *testing.T, what string, got, want, relTol float64) {
	t.Helper()
	if got == want {
		return
	}
	if math.Abs(got-want) > relTol*math.Abs(want) {
		t.Errorf("%s = %v, want %v (relative tolerance %g)", what, got, want, relTol)
	}
}

func quantiles(t *testing.T, what string, d Distribution, ps []float64, want []int64) {
	t.Helper()
	for i, p := range ps {
		if got := d.Quantile(p); got != want[i] {
			t.Errorf("%s quantile(%v) = %d, want %d", what, p, got, want[i])
		}
	}
}

func wantBytes(t *testing.T, what string, got []byte, want []int8) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(got), len(want))
	}
	for i := range want {
		if int8(got[i]) != want[i] {
			t.Errorf("%s: byte %d = %d, want %d (all: %v)", what, i, int8(got[i]), want[i], got)
			return
		}
	}
}

func TestMotifReset(t *testing.T) {
	m, _ := NewMotif(32, 100, 0.225)
	m.Fill(NewJavaRandom(7), make([]byte, 300))
	m.Reset()
	// After Reset the next Fill rebuilds the motif buffer from its source:
	// the first fill of a fresh generator is reproduced.
	got := m.Fill(NewJavaRandom(42), make([]byte, 40))
	wantBytes(t, "Motif first fill after Reset", got, []int8{82, 84, 47, 59, 59, 83, 49, 47, 98, 65, 55, 33, 44, 81, 89, 66, 61, 90, 53, 91, 48, 100, 85, 69, 62, 93, 38, 98, 66, 99, 46, 50, 56, 59, 67, 99, 40, 38, 66, 92})
	// An empty buffer draws nothing once the motifs exist.
	r1, r2 := NewJavaRandom(3), NewJavaRandom(3)
	m.Fill(r1, nil)
	if r1.Float64() != r2.Float64() {
		t.Error("an empty fill consumed draws")
	}
	// Allocation-free after the first call.
	buf := make([]byte, 277)
	src := NewJavaRandom(1)
	if a := testing.AllocsPerRun(100, func() { m.Fill(src, buf) }); a != 0 {
		t.Errorf("Motif.Fill allocates %v times per call", a)
	}
}
