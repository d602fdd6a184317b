package distributions

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"pgregory.net/rand"
)

func TestOutDegreeTableGolden(t *testing.T) {
	type row struct{ tot, t0, t1 int64 }
	type want struct {
		ids             [10]row
		sumTot, sumLoad int64
		zeroIDs         int64 // -1: not given
	}
	cases := []struct {
		file   string
		legacy bool
		w      want
	}{
		{"Distribution.dat", true, want{ids: [10]row{{1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {2, 2, 1}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {1, 1, 0}, {5, 3, 3}}, sumTot: 282675, sumLoad: 305126, zeroIDs: -1}},
		{"Distribution.dat", false, want{ids: [10]row{{2, 1, 1}, {2, 1, 1}, {2, 1, 1}, {2, 1, 1}, {2, 1, 1}, {2, 1, 1}, {2, 1, 1}, {2, 1, 1}, {2, 1, 1}, {5, 2, 2}}, sumTot: 362993, sumLoad: 357196, zeroIDs: -1}},
		{"Distribution_2011.dat", true, want{ids: [10]row{{0, 0, 0}, {1, 1, 0}, {0, 0, 0}, {1, 1, 0}, {3, 2, 2}, {1, 1, 0}, {0, 0, 0}, {1, 1, 0}, {2, 2, 1}, {6, 4, 4}}, sumTot: 281979, sumLoad: 308509, zeroIDs: 48443}},
		{"Distribution_2011.dat", false, want{ids: [10]row{{2, 1, 1}, {2, 1, 1}, {2, 1, 1}, {2, 1, 1}, {3, 1, 1}, {2, 1, 1}, {2, 1, 1}, {2, 1, 1}, {2, 1, 1}, {6, 3, 3}}, sumTot: 408511, sumLoad: 400340, zeroIDs: -1}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s legacy=%v", c.file, c.legacy), func(t *testing.T) {
			d := loadRef(t, c.file)
			od, err := d.OutDegree(1, 10000001)
			if err != nil {
				t.Fatal(err)
			}
			ch, err := NewID2Chooser(ID2Config{StartID1: 1, MaxID1: 10000001, LinkTypeCount: 2, NeverChange: c.legacy}, od)
			if err != nil {
				t.Fatal(err)
			}
			counts := make([]int64, 0, 2)
			for i, w := range c.w.ids {
				id1 := int64(i + 1)
				counts = ch.LinkCounts(id1, counts)
				got := row{ch.TotalLinkCount(id1), counts[0], counts[1]}
				if got != w {
					t.Errorf("id1 %d: total (type0+type1) = %d (%d+%d), want %d (%d+%d)", id1, got.tot, got.t0, got.t1, w.tot, w.t0, w.t1)
				}
				if a, b := ch.LinkCount(id1, firstLinkType), ch.LinkCount(id1, firstLinkType+1); a != counts[0] || b != counts[1] {
					t.Errorf("id1 %d: LinkCount %d, %d disagrees with LinkCounts %v", id1, a, b, counts)
				}
			}
			var sumTot, sumLoad, zero int64
			for id1 := int64(1); id1 < 100001; id1++ {
				tot := ch.TotalLinkCount(id1)
				sumTot += tot
				counts = ch.LinkCounts(id1, counts)
				if counts[0]+counts[1] == 0 {
					zero++
				}
				sumLoad += counts[0] + counts[1]
			}
			if sumTot != c.w.sumTot || sumLoad != c.w.sumLoad {
				t.Errorf("over [1, 100001): Σ total %d, loaded %d; want %d, %d", sumTot, sumLoad, c.w.sumTot, c.w.sumLoad)
			}
			if c.w.zeroIDs >= 0 && zero != c.w.zeroIDs {
				t.Errorf("ids with no links: %d, want %d", zero, c.w.zeroIDs)
			}
		})
	}
}

func zipfHalfOutDegree(t *testing.T, min, max int64, mean float64, hasMean bool) OutDegree {
	t.Helper()
	od, err := NewClassOutDegree(Spec{Kind: KindZipf, Shape: 0.5, Mean: mean, HasMean: hasMean}, min, max, nil)
	if err != nil {
		t.Fatal(err)
	}
	return od
}

func TestID2ChooserLoadIDs(t *testing.T) {
	ch, err := NewID2Chooser(ID2Config{StartID1: 500, MaxID1: 10500, LinkTypeCount: 1}, zipfHalfOutDegree(t, 500, 10500, 0, false))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	r := rand.New(1)
	for j := int64(0); j < 50; j++ {
		seen[ch.ChooseForLoad(r, 1234, firstLinkType, j)] = true
	}
	if len(seen) != 50 {
		t.Errorf("50 loads gave %d distinct id2s", len(seen))
	}
}

// hitRates runs the reference's hit-rate test (§10.1): for id1 in [500, 1e6)
// step 3763, existing = the id2s loaded for the default type; p = 1 must
// always hit when existing is non-empty, p = 0.5 must hit 0.5 ± 0.05 of the
// time. It returns the number of p = 0.5 draws on ids with links.
func hitRates(t *testing.T, ch *ID2Chooser, draws int) (n int, rate float64) {
	t.Helper()
	r := rand.New(7)
	hits := 0
	for id1 := int64(500); id1 < 1_000_000; id1 += 3763 {
		nl := ch.LinkCount(id1, firstLinkType)
		if nl == 0 {
			continue
		}
		existing := map[int64]bool{}
		for j := int64(0); j < nl; j++ {
			existing[ch.ChooseForLoad(r, id1, firstLinkType, j)] = true
		}
		for i := 0; i < draws; i++ {
			if id2 := ch.ChooseForOp(r, id1, firstLinkType, 1.0); !existing[id2] {
				t.Fatalf("p = 1: id2 %d of id1 %d is not a loaded link (%d links)", id2, id1, nl)
			}
			if existing[ch.ChooseForOp(r, id1, firstLinkType, 0.5)] {
				hits++
			}
			n++
		}
	}
	if n > 0 {
		rate = float64(hits) / float64(n)
	}
	return n, rate
}

func TestID2ChooserHitRate(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		// The reference configuration: Zipf(0.5) without a mean, so that most
		// ids get round(pdf) = 0 links (1 in the default mode, which raises
		// every id to link_type_count).
		ch, err := NewID2Chooser(ID2Config{StartID1: 500, MaxID1: 1_000_000, LinkTypeCount: 1, NeverChange: legacy}, zipfHalfOutDegree(t, 500, 1_000_000, 0, false))
		if err != nil {
			t.Fatal(err)
		}
		n, rate := hitRates(t, ch, 20)
		if n > 0 && math.Abs(rate-0.5) > 0.05 {
			t.Errorf("legacy=%v: p = 0.5 hit rate %v over %d draws, want 0.5 ± 0.05", legacy, rate, n)
		}
		if !legacy && n == 0 {
			t.Error("default mode: no id has links")
		}
		t.Logf("reference config, legacy=%v: %d draws on ids with links, hit rate %.4f", legacy, n, rate)

		// With a mean, ids have 1 to ~10^4 links and the legacy hit rate
		// is nl/ceil(nl/p) per id: compare with the exact expectation
		// within 5 standard deviations.
		ch, err = NewID2Chooser(ID2Config{StartID1: 500, MaxID1: 1_000_000, LinkTypeCount: 1, NeverChange: legacy}, zipfHalfOutDegree(t, 500, 1_000_000, 2, true))
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(9)
		var hits, draws int
		var expect, variance float64
		for id1 := int64(500); id1 < 1_000_000; id1 += 3763 {
			nl := ch.LinkCount(id1, firstLinkType)
			p := 0.5
			q := p
			if legacy {
				q = float64(nl) / float64(legacyRange(nl, p))
			}
			for i := 0; i < 200; i++ {
				id2 := ch.ChooseForOp(r, id1, firstLinkType, p)
				if id2 >= id1 && id2 < id1+nl {
					hits++
				}
				draws++
				expect += q
				variance += q * (1 - q)
			}
		}
		// In the default mode a "new" id2 hits a loaded link with
		// probability nl/maxid1 at most: negligible against the tolerance.
		if d := math.Abs(float64(hits) - expect); d > 5*math.Sqrt(variance)+float64(draws)*0.001 {
			t.Errorf("legacy=%v with mean: %d hits in %d draws, expected %.1f ± %.1f", legacy, hits, draws, expect, 5*math.Sqrt(variance))
		}
	}
}

func TestID2ChooserTypeSplit(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		ch, err := NewID2Chooser(ID2Config{StartID1: 1, MaxID1: 1000, LinkTypeCount: 10, NeverChange: legacy}, zipfHalfOutDegree(t, 1, 1000, 0, false))
		if err != nil {
			t.Fatal(err)
		}
		for id1 := int64(1); id1 < 1000; id1 += 7 {
			sum := int64(0)
			for tp := firstLinkType; tp < firstLinkType+10; tp++ {
				sum += ch.LinkCount(id1, tp)
			}
			if tot := ch.TotalLinkCount(id1); sum != tot {
				t.Errorf("legacy=%v id1 %d: Σ link counts %d != total %d", legacy, id1, sum, tot)
			}
		}
	}
	// The split rules of §5.4 for link_type_count 2 (legacy over-allocates).
	for tot, want := range map[int64][2][2]int64{
		0: {{1, 1}, {0, 0}}, 1: {{1, 1}, {1, 0}}, 2: {{1, 1}, {2, 1}}, 3: {{1, 1}, {2, 2}},
		4: {{2, 2}, {3, 3}}, 5: {{2, 2}, {3, 3}}, 6: {{3, 3}, {4, 4}},
	} {
		for mode, legacy := range []bool{false, true} {
			od, _ := NewArithmeticOutDegree("CONST", tot, 0, 1, 100)
			ch, err := NewID2Chooser(ID2Config{StartID1: 1, MaxID1: 100, LinkTypeCount: 2, NeverChange: legacy}, od)
			if err != nil {
				t.Fatal(err)
			}
			got := [2]int64{ch.LinkCount(5, firstLinkType), ch.LinkCount(5, firstLinkType+1)}
			if got != want[mode] {
				t.Errorf("tot %d legacy=%v: split %v, want %v", tot, legacy, got, want[mode])
			}
		}
	}
}

func TestID2ChooserDrawsAndModes(t *testing.T) {
	od, _ := NewArithmeticOutDegree("CONST", 7, 0, 1, 1001)
	// Default mode draws: Float64 (existing), then Int63n(nl) or Int63n(maxid1).
	ch, _ := NewID2Chooser(ID2Config{StartID1: 1, MaxID1: 1001, LinkTypeCount: 1}, od)
	a, b := NewJavaRandom(42), NewJavaRandom(42)
	for i := 0; i < 50; i++ {
		got := ch.ChooseForOp(a, 10, firstLinkType, 0.5)
		var want int64
		if b.Float64() < 0.5 {
			want = 10 + int64(b.Int31n(7))
		} else {
			want = int64(b.Int31n(1001))
		}
		if got != want {
			t.Fatalf("draw %d: %d, want %d", i, got, want)
		}
	}
	// Legacy: range = ceil(nl/p) = 8 for nl 7 and p 0.9; id1 + nextInt(8).
	lg, _ := NewID2Chooser(ID2Config{StartID1: 1, MaxID1: 1001, LinkTypeCount: 1, NeverChange: true}, od)
	a, b = NewJavaRandom(3), NewJavaRandom(3)
	for i := 0; i < 50; i++ {
		if got, want := lg.ChooseForOp(a, 10, firstLinkType, 0.9), 10+int64(b.Int31n(8)); got != want {
			t.Fatalf("legacy draw %d: %d, want %d", i, got, want)
		}
	}
	// Legacy multiget: range 8 <= k = 9 gives the block without draws.
	dst := lg.ChooseMultipleForOp(a, 10, firstLinkType, 9, 0.9, nil)
	if fmt.Sprint(dst) != "[10 11 12 13 14 15 16 17 18]" {
		t.Errorf("legacy block multiget = %v", dst)
	}
	if a.Float64() != b.Float64() {
		t.Error("legacy block multiget consumed draws")
	}
	// Legacy multiget with range 8 > k = 5: distinct id2s.
	dst = lg.ChooseMultipleForOp(rand.New(1), 10, firstLinkType, 5, 0.9, dst)
	seen := map[int64]bool{}
	for _, v := range dst {
		if seen[v] || v < 10 || v >= 18 {
			t.Errorf("legacy multiget %v: repeated or out-of-range id2", dst)
		}
		seen[v] = true
	}
	// Default multiget: k independent draws, same stream as k ChooseForOp.
	a, b = NewJavaRandom(5), NewJavaRandom(5)
	dst = ch.ChooseMultipleForOp(a, 10, firstLinkType, 4, 0.5, dst)
	for i, v := range dst {
		if w := ch.ChooseForOp(b, 10, firstLinkType, 0.5); v != w {
			t.Errorf("default multiget[%d] = %d, want %d", i, v, w)
		}
	}
	// fixId2: requester 2 of 5 only uses id2 ≡ 2 (mod 5).
	fx, _ := NewID2Chooser(ID2Config{StartID1: 1, MaxID1: 1001, LinkTypeCount: 1, ID2GenConfig: 1, Requesters: 5, RequesterID: 2}, od)
	r := rand.New(2)
	for i := 0; i < 1000; i++ {
		if v := fx.ChooseForOp(r, 10, firstLinkType, 0.5); v%5 != 2 {
			t.Fatalf("fixId2: id2 %d is not 2 mod 5", v)
		}
	}
	// randomid2max: id2 in [0, randomid2max) at load and in requests.
	rm, _ := NewID2Chooser(ID2Config{StartID1: 1, MaxID1: 1001, LinkTypeCount: 1, RandomID2Max: 77}, od)
	for i := 0; i < 1000; i++ {
		if v := rm.ChooseForOp(r, 10, firstLinkType, 0.5); v < 0 || v >= 77 {
			t.Fatalf("randomid2max: %d", v)
		}
		if v := rm.ChooseForLoad(r, 10, firstLinkType, 3); v < 0 || v >= 77 {
			t.Fatalf("randomid2max at load: %d", v)
		}
	}
	// Out-of-range ids and types have no links.
	if ch.TotalLinkCount(0) != 0 || ch.TotalLinkCount(1001) != 0 || ch.LinkCount(5, firstLinkType+1) != 0 {
		t.Error("out-of-range id1 or link type has links")
	}
	var pe *ParamError
	for _, cfg := range []ID2Config{
		{StartID1: 5, MaxID1: 5, LinkTypeCount: 1},
		{StartID1: 1, MaxID1: 5, LinkTypeCount: 0},
		{StartID1: 1, MaxID1: 5, LinkTypeCount: 1, RandomID2Max: 1 << 31},
		{StartID1: 1, MaxID1: 5, LinkTypeCount: 1, ID2GenConfig: 2},
		{StartID1: 1, MaxID1: 5, LinkTypeCount: 1, ID2GenConfig: 1},
	} {
		if _, err := NewID2Chooser(cfg, od); !errors.As(err, &pe) {
			t.Errorf("NewID2Chooser(%+v) = %v, want a *ParamError", cfg, err)
		}
	}
}

func TestArithmeticOutDegree(t *testing.T) {
	cases := []struct {
		mode     string
		def, cfg int64
		ids      []int64
		want     []int64
	}{
		{"const", 3, 0, []int64{1, 2, 99}, []int64{3, 3, 3}},
		// n = 99: at s = min the fix gives d + n; else d + ceil(n/(s-min)).
		{"RECIPROCAL", 1, 0, []int64{1, 2, 3, 50, 99}, []int64{100, 100, 51, 4, 3}},
		{"Multiples", 2, 5, []int64{5, 6, 10, 11}, []int64{7, 2, 7, 2}},
		// c = 2: powers of 2 get s - the previous power.
		{"EXPONENTIAL", 1, 2, []int64{1, 2, 4, 5, 64}, []int64{2, 2, 3, 1, 33}},
		// c = 3 keeps LinkBench's floating-point quirk: ln 9 / ln 3 is
		// 2.0000000000000004, so e = 3 and 9 gets no bonus; 243 (ratio
		// exactly 5) does.
		{"EXPONENTIAL", 1, 3, []int64{3, 9, 27, 243}, []int64{3, 1, 1, 163}},
		// c = 2: perfect squares get s - (r-1)^2, without accumulation.
		{"PERFECT_SQUARES", 1, 2, []int64{1, 4, 5, 9, 16, 17}, []int64{2, 4, 1, 6, 8, 1}},
		{"perfect_powers", 1, 2, []int64{4, 5}, []int64{4, 1}},
	}
	for _, c := range cases {
		od, err := NewArithmeticOutDegree(c.mode, c.def, c.cfg, 1, 100)
		if err != nil {
			t.Fatal(err)
		}
		if od.Shuffled() {
			t.Errorf("%s is shuffled", c.mode)
		}
		for i, s := range c.ids {
			if got := od.NLinks(s); got != c.want[i] {
				t.Errorf("%s(d %d, c %d).NLinks(%d) = %d, want %d", c.mode, c.def, c.cfg, s, got, c.want[i])
			}
		}
		// Stateless: asking again (in any order) gives the same answers.
		for i := len(c.ids) - 1; i >= 0; i-- {
			if got := od.NLinks(c.ids[i]); got != c.want[i] {
				t.Errorf("%s: NLinks(%d) changed to %d on a second call", c.mode, c.ids[i], got)
			}
		}
		if od.Describe() == "" {
			t.Error("empty description")
		}
	}
	var pe *ParamError
	for _, bad := range []struct {
		mode     string
		def, cfg int64
		param    string
	}{{"SQUARES", 1, 2, "mode"}, {"CONST", -1, 0, "default"}, {"MULTIPLES", 1, 0, "config"}, {"EXPONENTIAL", 1, 1, "config"}} {
		_, err := NewArithmeticOutDegree(bad.mode, bad.def, bad.cfg, 1, 100)
		if !errors.As(err, &pe) || pe.Param != bad.param {
			t.Errorf("NewArithmeticOutDegree(%s, %d, %d) = %v, want a *ParamError on %s", bad.mode, bad.def, bad.cfg, err, bad.param)
		}
	}
	if _, err := NewClassOutDegree(Spec{Kind: KindLogNormal, Median: 5, Sigma: 1}, 1, 100, nil); err == nil {
		t.Error("LogNormal accepted as an out-degree model")
	}
}

// TestHotPathsDoNotAllocate runs on the built-in model of Distribution.dat
// (what it checks does not need the real file), so that it never skips.
func TestHotPathsDoNotAllocate(t *testing.T) {
	d := BuiltinRealData(Vintage2017)
	od, _ := d.OutDegree(1, 1_000_001)
	ch, _ := NewID2Chooser(ID2Config{StartID1: 1, MaxID1: 1_000_001, LinkTypeCount: 2}, od)
	lg, _ := NewID2Chooser(ID2Config{StartID1: 1, MaxID1: 1_000_001, LinkTypeCount: 2, NeverChange: true}, BuiltinOutDegree(1, 1_000_001))
	zipf, _ := NewAccess(LinkReads, Spec{Kind: KindZipf, Shape: 0.8}, 1, 1_000_001, nil)
	real, _ := NewAccess(LinkReads, Spec{Kind: KindReal}, 1, 1_000_001, d)
	size, _ := NewLogNormal(0, 255, 23, 1)
	cur, _ := NewRealCursors(d)
	realJ, _ := javaAccess(LinkReads, Spec{Kind: KindReal}, 1, 1_000_001, d, cur)
	ze, _ := NewAccess(LinkReads, Spec{Kind: KindZipfExact, Shape: 0.8}, 1, 1_000_001, nil)
	power, _ := javaAccess(LinkReads, Spec{Kind: KindPower, Config: 3}, 1, 1_000_001, nil, nil)
	r := rand.New(1)
	dst := make([]int64, 0, 16)
	id := int64(1)
	for name, f := range map[string]func(){
		"ChooseForOp":         func() { id = 1 + ch.ChooseForOp(r, id%1_000_000+1, firstLinkType, PGetExist)%1_000_000 },
		"ChooseMultipleForOp": func() { dst = ch.ChooseMultipleForOp(r, 5, firstLinkType, 8, PGetExist, dst) },
		"legacy multiget":     func() { dst = lg.ChooseMultipleForOp(r, 5, firstLinkType, 8, PGetExist, dst) },
		"LinkCounts":          func() { dst = ch.LinkCounts(id, dst) },
		"NextID Zipf":         func() { id = zipf.NextID(r, 0) },
		"NextID REAL":         func() { id = real.NextID(r, 0) },
		"LogNormal.Choose":    func() { _ = size.Choose(r) },
		"NextID REAL Java":    func() { id = realJ.NextID(r, 0) },
		"NextID ZipfExact":    func() { id = ze.NextID(r, 0) },
		"NextID POWER Java":   func() { id = power.NextID(r, 0) },
	} {
		if a := testing.AllocsPerRun(200, f); a != 0 {
			t.Errorf("%s allocates %v times per call", name, a)
		}
	}
}
