package distributions

import (
	"testing"

	"pgregory.net/rand"
)

// Benchmarks at LinkBench scale: ids [1, 1e9+1), pgregory rand (the
// default source) unless the name says JavaRandom. Set-up benchmarks report
// the bytes allocated by one construction (B/op), which must not grow with
// n; sampling benchmarks must stay under 50 ns/op.
//
// Run: go test -run XXX -bench . -benchtime 200000x ./distributions/

const (
	benchMin = 1
	benchMax = 1_000_000_001
	benchN   = benchMax - benchMin
)

var sink int64

// benchDist is one distribution of the benchmarks.
type benchDist struct {
	name string
	make func() (Distribution, error)
}

func benchDists(b *testing.B) []benchDist {
	spec := func(s Spec) func() (Distribution, error) {
		return func() (Distribution, error) { return NewDistribution(s, benchMin, benchMax, nil) }
	}
	specJava := func(s Spec) func() (Distribution, error) {
		return func() (Distribution, error) { return javaDistribution(s, benchMin, benchMax, nil, nil) }
	}
	pts, _ := ParsePoints(piecewiseTestPoints)
	file, builtin := loadRef(b, "Distribution.dat"), BuiltinRealData(Vintage2017)
	cur := mustCursors(b, file)
	real := func(s Section, d *RealData) func() (Distribution, error) {
		return func() (Distribution, error) { return d.Distribution(s, benchMin, benchMax) }
	}
	realJava := func(s Section) func() (Distribution, error) {
		return func() (Distribution, error) {
			return javaDistribution(Spec{Kind: KindReal, RealDist: s}, benchMin, benchMax, file, cur)
		}
	}
	return []benchDist{
		{"Uniform", spec(Spec{Kind: KindUniform})},
		{"UniformJava", func() (Distribution, error) { return newJavaUniform(benchMin, benchMax, 0, false) }},
		{"Zipf0.8", spec(Spec{Kind: KindZipf, Shape: 0.8})},
		{"Zipf0.625", spec(Spec{Kind: KindZipf, Shape: 0.625})},
		{"Zipf1.5", spec(Spec{Kind: KindZipf, Shape: 1.5})},
		{"ZipfJava0.8", specJava(Spec{Kind: KindZipf, Shape: 0.8})},
		{"ZipfJava0.625", specJava(Spec{Kind: KindZipf, Shape: 0.625})},
		{"ZipfExact0.5", spec(Spec{Kind: KindZipfExact, Shape: 0.5})},
		{"ZipfExact0.8", spec(Spec{Kind: KindZipfExact, Shape: 0.8})},
		{"ZipfExact1", spec(Spec{Kind: KindZipfExact, Shape: 1})},
		{"ZipfExact1.5", spec(Spec{Kind: KindZipfExact, Shape: 1.5})},
		{"ZipfExact3", spec(Spec{Kind: KindZipfExact, Shape: 3})},
		{"Geometric", spec(Spec{Kind: KindGeometric, Prob: 0.382})},
		{"LogNormal", spec(Spec{Kind: KindLogNormal, Median: 168, Sigma: 1})},
		{"Piecewise", spec(Spec{Kind: KindPiecewise, Points: pts})},
		{"RealLinkReads", real(SectionLinkNReads, file)},
		{"RealLinkWrites", real(SectionLinkNWrites, file)},
		{"RealNodeReads", real(SectionNodeNReads, file)},
		{"RealNodeWrites", real(SectionNodeNWrites, file)},
		{"RealLinkReadsJava", realJava(SectionLinkNReads)},
		{"RealNodeWritesJava", realJava(SectionNodeNWrites)},
		{"BuiltinLinkReads", real(SectionLinkNReads, builtin)},
		{"BuiltinNodeWrites", real(SectionNodeNWrites, builtin)},
	}
}

// BenchmarkSetup measures the construction of every distribution over 1e9
// ids (time and bytes allocated per construction).
func BenchmarkSetup(b *testing.B) {
	for _, c := range benchDists(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := c.make(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkChoose measures one draw of every distribution over 1e9 ids.
func BenchmarkChoose(b *testing.B) {
	for _, c := range benchDists(b) {
		b.Run(c.name, func(b *testing.B) {
			d, err := c.make()
			if err != nil {
				b.Fatal(err)
			}
			r := rand.New(1)
			var s int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s += d.Choose(r)
			}
			sink = s
		})
	}
}

// benchAccess is one access distribution of the benchmarks.
type benchAccess struct {
	name string
	kind AccessKind
	spec Spec
	java bool
}

func benchAccesses() []benchAccess {
	pts, _ := ParsePoints(piecewiseTestPoints)
	var out []benchAccess
	for _, java := range []bool{false, true} {
		suffix := ""
		if java {
			suffix = "Java"
		}
		for _, a := range []benchAccess{
			{"REALLinkReads", LinkReads, Spec{Kind: KindReal}, java},
			{"REALLinkWrites", LinkWrites, Spec{Kind: KindReal}, java},
			{"REALNodeReads", NodeReads, Spec{Kind: KindReal}, java},
			{"REALNodeUpdates", NodeUpdates, Spec{Kind: KindReal}, java},
			{"RoundRobin", NodeUpdates, Spec{Kind: KindRoundRobin}, java},
			{"Reciprocal", LinkReads, Spec{Kind: KindReciprocal}, java},
			{"Multiple", LinkReads, Spec{Kind: KindMultiple, Config: 3}, java},
			{"Power", LinkReads, Spec{Kind: KindPower, Config: 3}, java},
			{"PerfectPower", LinkReads, Spec{Kind: KindPerfectPower, Config: 3}, java},
			{"Uniform", NodeDeletes, Spec{Kind: KindUniform}, java},
			{"Zipf0.8", LinkReadsUncorr, Spec{Kind: KindZipf, Shape: 0.8}, java},
			{"ZipfExact0.8", LinkReads, Spec{Kind: KindZipfExact, Shape: 0.8}, java},
			{"Geometric", LinkReads, Spec{Kind: KindGeometric, Prob: 0.01}, java},
			{"LogNormal", LinkReads, Spec{Kind: KindLogNormal, Median: 1000, Sigma: 1}, java},
			{"Piecewise", LinkReads, Spec{Kind: KindPiecewise, Points: pts}, java},
		} {
			a.name += suffix
			out = append(out, a)
		}
	}
	return out
}

func makeAccess(b *testing.B, a benchAccess, d *RealData, cur *RealCursors) *Access {
	var acc *Access
	var err error
	if a.java {
		acc, err = javaAccess(a.kind, a.spec, benchMin, benchMax, d, cur)
	} else {
		acc, err = NewAccess(a.kind, a.spec, benchMin, benchMax, d)
	}
	if err != nil {
		b.Fatal(err)
	}
	return acc
}

// BenchmarkSetupAccess measures the construction of every access mode over
// 1e9 ids, shuffler included (the Java REAL cursors are built once per run,
// outside the loop: see BenchmarkSetupRun).
func BenchmarkSetupAccess(b *testing.B) {
	d := loadRef(b, "Distribution.dat")
	cur := mustCursors(b, d)
	for _, a := range benchAccesses() {
		b.Run(a.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				makeAccess(b, a, d, cur)
			}
		})
	}
}

// BenchmarkNextID measures one id choice of every access mode over 1e9 ids
// (the distribution's draw and the shuffler), with pgregory rand, and for
// the Java-compatible modes with JavaRandom too.
func BenchmarkNextID(b *testing.B) {
	d := loadRef(b, "Distribution.dat")
	cur := mustCursors(b, d)
	run := func(b *testing.B, a *Access, r Source) {
		var s, prev int64
		for i := 0; i < b.N; i++ {
			prev = a.NextID(r, prev)
			s += prev
		}
		sink = s
	}
	for _, a := range benchAccesses() {
		b.Run(a.name, func(b *testing.B) {
			acc := makeAccess(b, a, d, cur)
			b.ResetTimer()
			run(b, acc, rand.New(1))
		})
		if a.java {
			b.Run(a.name+"/JavaRandom", func(b *testing.B) {
				acc := makeAccess(b, a, d, cur)
				b.ResetTimer()
				run(b, acc, NewJavaRandom(1))
			})
		}
	}
}

// BenchmarkSetupRun measures the once-per-run objects: parsed and built-in
// real data, Java REAL cursors, shufflers, the ID2 chooser, out-degrees.
func BenchmarkSetupRun(b *testing.B) {
	file := loadRef(b, "Distribution.dat")
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"ParseRealData", func() error { _, err := LoadRealData(file.Path()); return err }},
		{"BuiltinRealData", func() error { BuiltinRealData(Vintage2017); return nil }},
		{"RealCursors", func() error { _, err := NewRealCursors(file); return err }},
		{"Shuffler", func() error { _, err := NewInvertibleShuffler(ShuffleSeedLinks, ShuffleGroups, benchN); return err }},
		{"ShufflerJava", func() error { _, err := newJavaShuffler(ShuffleSeedLinks, ShuffleGroups, benchN); return err }},
		{"OutDegreeReal", func() error { _, err := file.OutDegree(benchMin, benchMax); return err }},
		{"OutDegreeBuiltin", func() error { BuiltinOutDegree(benchMin, benchMax); return nil }},
		{"OutDegreeZipf", func() error {
			_, err := NewClassOutDegree(Spec{Kind: KindZipf, Shape: 0.5, Mean: 4, HasMean: true}, benchMin, benchMax, nil)
			return err
		}},
		{"OutDegreePerfectSquaresJava", func() error {
			_, err := javaArithmetic("PERFECT_SQUARES", 1, 2, benchMin, benchMax)
			return err
		}},
		{"ID2Chooser", func() error {
			_, err := NewID2Chooser(ID2Config{StartID1: benchMin, MaxID1: benchMax, LinkTypeCount: 2}, BuiltinOutDegree(benchMin, benchMax))
			return err
		}},
		{"SHA1PRNG", func() error { NewSHA1PRNG(12345).NextLong(); return nil }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := c.f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkShufflerPermute(b *testing.B) {
	s, _ := NewInvertibleShuffler(ShuffleSeedLinks, ShuffleGroups, benchN)
	var x int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x += s.Permute(int64(i) * 7919 % benchN)
	}
	sink = x
}

func benchNLinks(b *testing.B, od OutDegree) {
	var x int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x += od.NLinks(benchMin + int64(i)*104729%benchN)
	}
	sink = x
}

func BenchmarkNLinks(b *testing.B) {
	file := loadRef(b, "Distribution.dat")
	real, err := file.OutDegree(benchMin, benchMax)
	if err != nil {
		b.Fatal(err)
	}
	zipf, _ := NewClassOutDegree(Spec{Kind: KindZipf, Shape: 0.5, Mean: 4, HasMean: true}, benchMin, benchMax, nil)
	ps, _ := javaArithmetic("PERFECT_SQUARES", 1, 2, benchMin, benchMax)
	b.Run("Real", func(b *testing.B) { benchNLinks(b, real) })
	b.Run("Builtin", func(b *testing.B) { benchNLinks(b, BuiltinOutDegree(benchMin, benchMax)) })
	b.Run("Zipf", func(b *testing.B) { benchNLinks(b, zipf) })
	b.Run("PerfectSquaresJava", func(b *testing.B) { benchNLinks(b, ps) })
}

func benchChooseForOp(b *testing.B, od OutDegree) {
	ch, err := NewID2Chooser(ID2Config{StartID1: benchMin, MaxID1: benchMax, LinkTypeCount: 2}, od)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(1)
	var x int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x += ch.ChooseForOp(r, benchMin+int64(i)*104729%benchN, firstLinkType, PUpdateExist)
	}
	sink = x
}

func BenchmarkChooseForOp(b *testing.B) {
	b.Run("Builtin", func(b *testing.B) { benchChooseForOp(b, BuiltinOutDegree(benchMin, benchMax)) })
	b.Run("Real", func(b *testing.B) {
		od, err := loadRef(b, "Distribution.dat").OutDegree(benchMin, benchMax)
		if err != nil {
			b.Fatal(err)
		}
		benchChooseForOp(b, od)
	})
}

func benchFill(b *testing.B, g DataGen, n int, src Source) {
	buf := make([]byte, n)
	g.Fill(src, buf)
	b.SetBytes(int64(n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g.Fill(src, buf)
	}
}

func BenchmarkMotifFill37(b *testing.B) {
	m, _ := NewMotif(32, 100, 0.225)
	benchFill(b, m, 37, rand.New(1))
}

func BenchmarkMotifFill277(b *testing.B) {
	m, _ := NewMotif(50, 220, 0.63)
	benchFill(b, m, 277, rand.New(1))
}

func BenchmarkMotifFill277JavaRandom(b *testing.B) {
	m, _ := NewMotif(50, 220, 0.63)
	benchFill(b, m, 277, NewJavaRandom(1))
}

func BenchmarkUniformFill277(b *testing.B) {
	u, _ := NewUniformData(0, 255)
	benchFill(b, u, 277, rand.New(1))
}
