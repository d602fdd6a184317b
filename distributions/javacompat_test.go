package distributions

import (
	"math"
	"testing"
)

// TestUniformJava checks LinkBench's Uniform draw beyond 2^31-1 ids (quirk
// §11.2-13, kept by JavaMode) against the algorithm of reference §7.2
// replayed on a second java.util.Random, and the default-mode fix.
func TestUniformJava(t *testing.T) {
	// n <= 2^31-1: both modes draw min + nextInt(n) (reference §10.2).
	uj, err := newJavaUniform(1, 10000001, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	r := NewJavaRandom(42)
	for i, w := range []int64{2431131, 7392764, 7211249, 2948885, 2969971} {
		if got := uj.Choose(r); got != w {
			t.Errorf("Uniform[1,1e7+1) draw %d = %d, want %d", i, got, w)
		}
	}
	// Reference §10.1: init(0, 2^31.5) and init(0, 2^34.23), 10000 draws
	// each, all in [0, max) (true only because min = 0).
	for _, max := range []int64{int64(math.Pow(2, 31.5)), int64(math.Pow(2, 34.23))} {
		for _, m := range []Mode{DefaultMode(), JavaMode(nil)} {
			u, err := m.Distribution(Spec{Kind: KindUniform}, 0, max, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := NewJavaRandom(7)
			for i := 0; i < 10000; i++ {
				if v := u.Choose(r); v < 0 || v >= max {
					t.Fatalf("Uniform[0, %d) mode %s: %d", max, m, v)
				}
			}
		}
	}
	// The Java draw, replayed: randint2 for n < 2^32-1, the two-part draw
	// beyond; min is not added.
	const min = 10_000_000_000_000 // above every Java draw
	for _, n := range []int64{3_000_000_000, 5_000_000_000, 1 << 40} {
		uj, err := newJavaUniform(min, min+n, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		ud, _ := NewUniform(min, min+n, 0, false)
		a, b := NewJavaRandom(int64(n)), NewJavaRandom(int64(n))
		randint2 := func(m int64) int64 {
			if b.Float64() < float64(math.MaxInt32)/float64(m) {
				return int64(b.Int31n(math.MaxInt32))
			}
			return math.MaxInt32 + int64(b.Int31n(int32(m-math.MaxInt32)))
		}
		below := 0
		for i := 0; i < 2000; i++ {
			var want int64
			if n < uintRange {
				want = randint2(n)
			} else {
				want = uintRange*int64(b.Int31n(int32(n/uintRange))) + randint2(n%uintRange)
			}
			got := uj.Choose(a)
			if got != want {
				t.Fatalf("n %d draw %d: %d, want %d", n, i, got, want)
			}
			if got < min {
				below++
			}
		}
		if below != 2000 {
			t.Errorf("n %d: %d of 2000 Java draws below min; LinkBench never adds min here", n, below)
		}
		// The default mode stays in range.
		c := NewJavaRandom(3)
		for i := 0; i < 2000; i++ {
			if v := ud.Choose(c); v < min || v >= min+n {
				t.Fatalf("default Uniform over %d ids: %d outside the range", n, v)
			}
		}
	}
	if _, err := newJavaUniform(0, math.MaxInt64, 0, false); err == nil {
		t.Error("the Java Uniform accepted a range whose nextInt bound overflows")
	}
}

// TestShufflerJava checks LinkBench's 32-bit cast of n (quirk §11.2-13,
// kept by JavaMode): identical permutations below 2^31,
// LinkBench's failure for 2^31 <= n < 2^32, and beyond that a bijection
// whose inverse is not InvertPermute; the default shuffler stays exact.
func TestShufflerJava(t *testing.T) {
	for _, n := range []int64{10, 100, 10031, 10_000_000, math.MaxInt32} {
		d, _ := NewInvertibleShuffler(ShuffleSeedLinks, ShuffleGroups, n)
		j, err := newJavaShuffler(ShuffleSeedLinks, ShuffleGroups, n)
		if err != nil {
			t.Fatal(err)
		}
		for i := int64(0); i < min(n, 5000); i++ {
			k := i * (n / min(n, 5000))
			if d.Permute(k) != j.Permute(k) || d.InvertPermute(k) != j.InvertPermute(k) {
				t.Fatalf("n %d: the Java shuffler differs at %d", n, k)
			}
		}
	}
	for _, n := range []int64{1 << 31, 3_000_000_000, 1<<32 + 1000} {
		if _, err := newJavaShuffler(1, ShuffleGroups, n); err == nil {
			t.Errorf("n %d: LinkBench's nextInt(%d) throws, but the Java shuffler was built", n, int64(int32(n))/ShuffleGroups)
		}
	}
	n := int64(1<<32 + 1<<20)
	j, err := newJavaShuffler(ShuffleSeedLinks, ShuffleGroups, n)
	if err != nil {
		t.Fatal(err)
	}
	if j.minGroupSize != 1024 {
		t.Errorf("Java min group size %d, want (int)n/1024 = 1024", j.minGroupSize)
	}
	d, _ := NewInvertibleShuffler(ShuffleSeedLinks, ShuffleGroups, n)
	broken := 0
	for i := int64(0); i < 100000; i++ {
		k := i * 42949
		p := j.Permute(k)
		if p < 0 || p >= n || p%ShuffleGroups != k%ShuffleGroups {
			t.Fatalf("Java Permute(%d) = %d: not in the group of %d", k, p, k)
		}
		if j.InvertPermute(p) != k {
			broken++
		}
		if d.InvertPermute(d.Permute(k)) != k {
			t.Fatalf("default shuffler: InvertPermute(Permute(%d)) != %d", k, k)
		}
	}
	if broken == 0 {
		t.Error("the Java shuffler's inverse should not invert Permute beyond 2^32 (LinkBench's cast)")
	}
	// Forward is still a bijection: exhaustively on one group's ring.
	seen := make([]bool, n/ShuffleGroups+1)
	for k := int64(5); k < n; k += ShuffleGroups {
		p := j.Permute(k)
		if seen[p/ShuffleGroups] {
			t.Fatalf("Java Permute is not injective: %d repeats", p)
		}
		seen[p/ShuffleGroups] = true
	}
	// ID2Chooser and the Java Access use it.
	if _, err := JavaMode(nil).ID2Chooser(ID2Config{StartID1: 1, MaxID1: 1 + 3_000_000_000, LinkTypeCount: 1}, BuiltinOutDegree(1, 1+3_000_000_000)); err == nil {
		t.Error("Java ID2Chooser built over a range LinkBench's shuffler rejects")
	}
	if _, err := javaAccess(LinkReads, Spec{Kind: KindZipf, Shape: 0.8}, 1, 1+3_000_000_000, nil, nil); err == nil {
		t.Error("Java access built over a range LinkBench's shuffler rejects")
	}
	if _, err := NewAccess(LinkReads, Spec{Kind: KindZipf, Shape: 0.8}, 1, 1+3_000_000_000, nil); err != nil {
		t.Errorf("default access over 3e9 ids: %v", err)
	}
}

// TestArithmeticOutDegreeJava checks LinkBench's RECIPROCAL overflow and
// PERFECT_SQUARES accumulation (quirks §11.2-14, kept by
// the Java mode's arithmetic) against the default-mode fixes.
func TestArithmeticOutDegreeJava(t *testing.T) {
	for _, d := range []int64{0, 1, 5} {
		j, _ := javaArithmetic("RECIPROCAL", d, 0, 1, 1001)
		f, _ := NewArithmeticOutDegree("RECIPROCAL", d, 0, 1, 1001)
		if got, want := j.NLinks(1), d+math.MaxInt64; got != want {
			t.Errorf("Java RECIPROCAL(%d) at startid1 = %d, want %d (wrapped)", d, got, want)
		}
		if got := f.NLinks(1); got != d+1000 {
			t.Errorf("default RECIPROCAL(%d) at startid1 = %d, want %d", d, got, d+1000)
		}
		for s := int64(2); s < 1001; s += 97 {
			if j.NLinks(s) != f.NLinks(s) {
				t.Errorf("RECIPROCAL at %d differs between modes", s)
			}
		}
	}
	j, _ := javaArithmetic("perfect_squares", 1, 2, 1, 21)
	f, _ := NewArithmeticOutDegree("perfect_squares", 1, 2, 1, 21)
	// Bonuses s - (r-1)^2 at s = 1, 4, 9, 16: 1, 3, 5, 7.
	wantJ := []int64{2, 2, 2, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 10, 17, 17, 17, 17, 17}
	wantF := []int64{2, 1, 1, 4, 1, 1, 1, 1, 6, 1, 1, 1, 1, 1, 1, 8, 1, 1, 1, 1}
	for s := int64(1); s <= 20; s++ {
		if got := j.NLinks(s); got != wantJ[s-1] {
			t.Errorf("Java PERFECT_SQUARES NLinks(%d) = %d, want %d", s, got, wantJ[s-1])
		}
		if got := f.NLinks(s); got != wantF[s-1] {
			t.Errorf("default PERFECT_SQUARES NLinks(%d) = %d, want %d", s, got, wantF[s-1])
		}
	}
	// The Java state persists: calling 16 again adds its bonus again.
	if got := j.NLinks(16); got != 24 {
		t.Errorf("Java PERFECT_SQUARES NLinks(16) again = %d, want 24", got)
	}
	for _, m := range []string{"CONST", "MULTIPLES", "EXPONENTIAL"} {
		j, _ := javaArithmetic(m, 2, 3, 1, 1000)
		f, _ := NewArithmeticOutDegree(m, 2, 3, 1, 1000)
		for s := int64(1); s < 1000; s++ {
			if j.NLinks(s) != f.NLinks(s) {
				t.Fatalf("%s at %d differs between modes", m, s)
			}
		}
	}
}

// TestIntPow checks the exact integer power used by the POWER and
// PERFECT_POWER access modes against powJ (Java's Math.pow): equal whenever
// it answers, and it answers for every result up to 2^53.
func TestIntPow(t *testing.T) {
	for base := int64(0); base <= 1000; base++ {
		for e := 0; e <= 64; e++ {
			want := powJ(float64(base), float64(e))
			v, ok := intPow(base, float64(e))
			if ok && v != javaLong(want) {
				t.Fatalf("intPow(%d, %d) = %d, powJ %v", base, e, v, want)
			}
			if !ok && want <= 1<<53 {
				t.Fatalf("intPow(%d, %d) declined a result of %v <= 2^53", base, e, want)
			}
		}
	}
	for _, e := range []float64{-1, 0.5, math.NaN(), math.Inf(1), 65} {
		if _, ok := intPow(3, e); ok {
			t.Errorf("intPow(3, %v) answered", e)
		}
	}
}

// TestPowerModesFormula replays POWER and PERFECT_POWER (reference §7.7)
// with powJ throughout on a second java.util.Random and compares every
// draw, so the integer shortcut cannot change LinkBench's values.
func TestPowerModesFormula(t *testing.T) {
	for _, max := range []int64{12345, 1_000_000_001, 1 << 60} {
		for _, c := range []int64{2, 3, 7} {
			for _, mode := range []Kind{KindPower, KindPerfectPower} {
				a, err := javaAccess(LinkReads, Spec{Kind: mode, Config: c}, 1, max, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				r1, r2 := NewJavaRandom(c), NewJavaRandom(c)
				u, _ := newJavaUniform(1, max, 0, false)
				cf := float64(c)
				for i := 0; i < 20000; i++ {
					x := float64(u.Choose(r2))
					var want int64
					if mode == KindPower {
						want = javaLong(powJ(cf, math.Ceil(math.Log(x)/math.Log(cf))))
					} else {
						want = javaLong(powJ(math.Ceil(powJ(x, 1/cf)), cf))
					}
					want = min(max-1, want)
					if got := a.NextID(r1, 0); got != want {
						t.Fatalf("%v config %d max %d draw %d: %d, formula %d", mode, c, max, i, got, want)
					}
				}
			}
		}
	}
}

// TestArithmeticFormula replays EXPONENTIAL and PERFECT_SQUARES (reference
// §5.4) with powJ throughout and compares every id, including perfect
// powers up to 2^62, so the integer shortcuts cannot change LinkBench's
// values.
func TestArithmeticFormula(t *testing.T) {
	const d = 1
	for _, c := range []int64{2, 3, 5, 10} {
		cf := float64(c)
		exp := func(s int64) int64 {
			e := math.Ceil(math.Log(float64(s)) / math.Log(cf))
			if javaLong(powJ(cf, e)) == s {
				return d + s - javaLong(powJ(cf, e-1))
			}
			return d
		}
		sq := func(s int64) int64 {
			r := math.Ceil(powJ(float64(s), 1/cf))
			if javaLong(powJ(r, cf)) == s {
				return d + s - javaLong(powJ(r-1, cf))
			}
			return d
		}
		eo, _ := NewArithmeticOutDegree("EXPONENTIAL", d, c, 1, math.MaxInt64)
		so, _ := NewArithmeticOutDegree("PERFECT_SQUARES", d, c, 1, math.MaxInt64)
		ids := []int64{}
		for s := int64(1); s <= 200000; s++ {
			ids = append(ids, s)
		}
		for b := int64(2); b < 1<<31; b = b*3/2 + 1 {
			if p, ok := intPow(b, cf); ok || b < 1<<20 {
				ids = append(ids, p-1, p, p+1)
			}
		}
		for _, s := range ids {
			if s < 1 {
				continue
			}
			if got, want := eo.NLinks(s), exp(s); got != want {
				t.Fatalf("EXPONENTIAL(%d) at %d: %d, formula %d", c, s, got, want)
			}
			if got, want := so.NLinks(s), sq(s); got != want {
				t.Fatalf("PERFECT_SQUARES(%d) at %d: %d, formula %d", c, s, got, want)
			}
		}
	}
}

// TestZipfModes: the Java-compatible constructors give LinkBench's Zipf
// quantile (zipfJava), the default ones the fast one (Zipf).
func TestZipfModes(t *testing.T) {
	spec := Spec{Kind: KindZipf, Shape: 0.8}
	d, err := NewDistribution(spec, 1, 1001, nil)
	if _, ok := d.(*Zipf); err != nil || !ok {
		t.Errorf("NewDistribution(zipf) = %T, %v; want *Zipf", d, err)
	}
	d, err = javaDistribution(spec, 1, 1001, nil, nil)
	if _, ok := d.(*zipfJava); err != nil || !ok {
		t.Errorf("JavaMode.Distribution(zipf) = %T, %v; want *zipfJava", d, err)
	}
	a, err := javaAccess(LinkReads, spec, 1, 1001, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.dist.(*zipfJava); !ok {
		t.Errorf("JavaMode.Access(zipf) samples with %T, want *zipfJava", a.dist)
	}
	if _, err := newZipfJava(1, 1, 0.8, 0, false); err == nil {
		t.Error("the Java Zipf accepted an empty range")
	}
}
