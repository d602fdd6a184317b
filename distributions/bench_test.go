package distributions

import (
	"testing"

	"pgregory.net/rand"
)

// Benchmarks at LinkBench scale: ids [1, 1e9+1), pgregory rand.
// Run: go test -run XXX -bench . -benchtime 2000000x ./distributions/

const (
	benchMin = 1
	benchMax = 1_000_000_001
	benchN   = benchMax - benchMin
)

var sink int64

func benchChoose(b *testing.B, d Distribution) {
	r := rand.New(1)
	var s int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s += d.Choose(r)
	}
	sink = s
}

func BenchmarkSetupUniform(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := NewUniform(benchMin, benchMax, 0, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetupZipf08(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := NewZipf(benchMin, benchMax, 0.8, 0, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetupZipf15(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := NewZipf(benchMin, benchMax, 1.5, 0, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetupGeometric(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := NewGeometric(1, 128, 0.382, 0, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetupShuffler(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := NewInvertibleShuffler(ShuffleSeedLinks, ShuffleGroups, benchN); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetupAccessZipf(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := NewAccess(LinkReads, Spec{Kind: KindZipf, Shape: 0.8}, benchMin, benchMax, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetupAccessReal(b *testing.B) {
	d := loadRef(b, "Distribution.dat")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := NewAccess(LinkReads, Spec{Kind: KindReal}, benchMin, benchMax, d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetupBuiltinOutDegree(b *testing.B) {
	for i := 0; i < b.N; i++ {
		BuiltinOutDegree(benchMin, benchMax)
	}
}

func BenchmarkSetupID2Chooser(b *testing.B) {
	od := BuiltinOutDegree(benchMin, benchMax)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := NewID2Chooser(ID2Config{StartID1: benchMin, MaxID1: benchMax, LinkTypeCount: 2}, od); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseRealData(b *testing.B) {
	path := loadRef(b, "Distribution.dat").Path()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := LoadRealData(path); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChooseUniform(b *testing.B) {
	u, _ := NewUniform(benchMin, benchMax, 0, false)
	benchChoose(b, u)
}

func BenchmarkChooseZipf08(b *testing.B) {
	z, _ := NewZipf(benchMin, benchMax, 0.8, 0, false)
	benchChoose(b, z)
}

func BenchmarkChooseZipf15(b *testing.B) {
	z, _ := NewZipf(benchMin, benchMax, 1.5, 0, false)
	benchChoose(b, z)
}

func BenchmarkChooseGeometricMultiget(b *testing.B) {
	g, _ := NewGeometric(1, 128, 0.382, 0, false)
	benchChoose(b, g)
}

func BenchmarkChooseLogNormalLinkSize(b *testing.B) {
	l, _ := NewLogNormal(0, 255, 23, 1)
	benchChoose(b, l)
}

func BenchmarkChooseRealLinkReads(b *testing.B) {
	d := loadRef(b, "Distribution.dat")
	rd, err := d.Distribution(SectionLinkNReads, benchMin, benchMax)
	if err != nil {
		b.Fatal(err)
	}
	benchChoose(b, rd)
}

func benchNextID(b *testing.B, a *Access) {
	r := rand.New(1)
	var s int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s += a.NextID(r, 0)
	}
	sink = s
}

func BenchmarkNextIDZipf08(b *testing.B) {
	a, _ := NewAccess(LinkReads, Spec{Kind: KindZipf, Shape: 0.8}, benchMin, benchMax, nil)
	benchNextID(b, a)
}

func BenchmarkNextIDUniform(b *testing.B) {
	a, _ := NewAccess(NodeDeletes, Spec{Kind: KindUniform}, benchMin, benchMax, nil)
	benchNextID(b, a)
}

func BenchmarkNextIDRealLinkReads(b *testing.B) {
	d := loadRef(b, "Distribution.dat")
	a, err := NewAccess(LinkReads, Spec{Kind: KindReal}, benchMin, benchMax, d)
	if err != nil {
		b.Fatal(err)
	}
	benchNextID(b, a)
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

func BenchmarkNLinksReal(b *testing.B) {
	od, err := loadRef(b, "Distribution.dat").OutDegree(benchMin, benchMax)
	if err != nil {
		b.Fatal(err)
	}
	benchNLinks(b, od)
}

func BenchmarkNLinksBuiltin(b *testing.B) {
	benchNLinks(b, BuiltinOutDegree(benchMin, benchMax))
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
		x += ch.ChooseForOp(r, benchMin+int64(i)*104729%benchN, DefaultLinkType, PUpdateExist)
	}
	sink = x
}

func BenchmarkChooseForOpBuiltin(b *testing.B) {
	benchChooseForOp(b, BuiltinOutDegree(benchMin, benchMax))
}

func BenchmarkChooseForOpReal(b *testing.B) {
	od, err := loadRef(b, "Distribution.dat").OutDegree(benchMin, benchMax)
	if err != nil {
		b.Fatal(err)
	}
	benchChooseForOp(b, od)
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
