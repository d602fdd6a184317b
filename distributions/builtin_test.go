package distributions

import (
	"math"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rand"
)

// stepCDF returns P(value <= x) of a section (a right-continuous step
// function of x).
func stepCDF(s *section, x int64) float64 {
	i := sort.Search(len(s.values), func(i int) bool { return s.values[i] > x })
	if i == 0 {
		return 0
	}
	return s.probs[i-1]
}

// TestBuiltinRealDataFit measures each of the ten built-in models against
// the real file it was fitted to (reference data through testref):
//
//   - mean value per id (LinkBench's expected_val): asserted within 1 % of
//     the file's (the fit keeps it within 1e-4 relative by construction);
//   - largest |model CDF - file CDF| over every value (both are step
//     functions, so checking every value of either table is exhaustive):
//     asserted at most builtinCDFTolerance = 1e-4, the fit's construction
//     bound. Why 1e-4 is small enough: it is the Kolmogorov-Smirnov
//     distance that a sample of N ids drawn from the file itself reaches by
//     chance (95 % critical value 1.36/sqrt(N)) for N = 1.8e8, so the model
//     cannot be told from the file by the degrees or access counts of fewer
//     ids than that; and in the tail, where 1e-4 would be large, the third
//     bound applies;
//   - relative difference of the survival functions 1 - CDF at every value
//     below the largest: at most builtinSurvivalTolerance = 10 %, so the
//     number of ids with at least x links or accesses keeps its order of
//     magnitude all along the heavy tail;
//
// and checks that the largest value (rank 0's out-degree) is the file's and
// that each table is compact.
func TestBuiltinRealDataFit(t *testing.T) {
	for _, vf := range []struct {
		v    Vintage
		file string
	}{{Vintage2017, "Distribution.dat"}, {Vintage2011, "Distribution_2011.dat"}} {
		file := loadRef(t, vf.file)
		model := BuiltinRealData(vf.v)
		if vv, ok := model.Builtin(); !ok || vv != vf.v || !strings.Contains(model.Describe(), vf.v.String()) {
			t.Errorf("vintage %v: Builtin() = %v, %v; Describe %q", vf.v, vv, ok, model.Describe())
		}
		for s := SectionNLinks; s < numSections; s++ {
			m, f := model.sec[s], file.sec[s]
			if n := len(m.values); n < 10 || n > 200 {
				t.Errorf("%v %s: %d knots, not a compact table", vf.v, s, n)
			}
			meanErr := (m.expected - f.expected) / f.expected
			if math.Abs(meanErr) > 0.01 {
				t.Errorf("%v %s: model mean %v not within 1 %% of the file's %v", vf.v, s, m.expected, f.expected)
			}
			if m.values[len(m.values)-1] != f.values[len(f.values)-1] {
				t.Errorf("%v %s: largest value %d, file %d", vf.v, s, m.values[len(m.values)-1], f.values[len(f.values)-1])
			}
			worst, at := 0.0, int64(0)
			worstRel, atRel := 0.0, int64(0)
			last := f.values[len(f.values)-1]
			for _, x := range append(append([]int64{}, f.values...), m.values...) {
				cm, cf := stepCDF(m, x), stepCDF(f, x)
				if d := math.Abs(cm - cf); d > worst {
					worst, at = d, x
				}
				if x < last {
					if r := math.Abs(cm-cf) / (1 - cf); r > worstRel {
						worstRel, atRel = r, x
					}
				}
			}
			t.Logf("%v %-12s %3d knots (file %5d points): mean %.9g vs file %.9g (%+.2e %%); largest |CDF diff| %.3g at %d; largest survival difference %.1f %% at %d",
				vf.v, s, len(m.values), len(f.values), m.expected, f.expected, 100*meanErr, worst, at, 100*worstRel, atRel)
			if worst > builtinCDFTolerance {
				t.Errorf("%v %s: CDF difference %v exceeds %v", vf.v, s, worst, builtinCDFTolerance)
			}
			if worstRel > builtinSurvivalTolerance*(1+1e-9) {
				t.Errorf("%v %s: survival difference %v exceeds %v", vf.v, s, worstRel, builtinSurvivalTolerance)
			}
		}

		// The links a load writes: n = 10^6, link_type_count 2, MD default
		// split, model vs file, with and without the rank-0 id (which has
		// the file's largest value in both).
		sum := func(od OutDegree) int64 {
			ch, err := NewID2Chooser(ID2Config{StartID1: 1, MaxID1: 1_000_001, LinkTypeCount: 2}, od)
			if err != nil {
				t.Fatal(err)
			}
			var s int64
			dst := make([]int64, 0, 2)
			for id1 := int64(1); id1 < 1_000_001; id1++ {
				dst = ch.LinkCounts(id1, dst)
				s += dst[0] + dst[1]
			}
			return s
		}
		om, _ := model.OutDegree(1, 1_000_001)
		of, _ := file.OutDegree(1, 1_000_001)
		sm, sf := sum(om), sum(of)
		giant := 2 * (f0(file) / 2)
		t.Logf("%v: links loaded for n = 1e6, 2 link types: model %d, file %d (%+.3f %%); without rank 0: %+.3f %%",
			vf.v, sm, sf, 100*float64(sm-sf)/float64(sf), 100*float64(sm-sf)/float64(sf-giant))
		if math.Abs(float64(sm-sf)) > 0.01*float64(sf-giant) {
			t.Errorf("%v: model loads %d links, file %d: not within 1 %% (without the rank-0 id)", vf.v, sm, sf)
		}
	}
}

// f0 is the largest nlinks value of d.
func f0(d *RealData) int64 { return d.MaxValue(SectionNLinks) }

// TestBuiltinRealDataUse checks that the built-in data serves every REAL
// use: access for each kind (default and Java-compatible), the class
// RealDistribution, and the out-degree wrapper.
func TestBuiltinRealDataUse(t *testing.T) {
	if BuiltinRealData(Vintage(7)) != nil {
		t.Error("unknown vintage gave data")
	}
	for _, v := range []Vintage{Vintage2017, Vintage2011} {
		d := BuiltinRealData(v)
		cur := mustCursors(t, d)
		r := rand.New(51)
		for _, k := range []AccessKind{LinkReads, LinkWrites, NodeReads, NodeUpdates} {
			for _, java := range []bool{false, true} {
				var a *Access
				var err error
				if java {
					a, err = javaAccess(k, Spec{Kind: KindReal}, 1, 100001, d, cur)
				} else {
					a, err = NewAccess(k, Spec{Kind: KindReal}, 1, 100001, d)
				}
				if err != nil {
					t.Fatalf("%v %v java=%v: %v", v, k, java, err)
				}
				for i := 0; i < 1000; i++ {
					if id := a.NextID(r, 0); id < 1 || id >= 100001 {
						t.Fatalf("%v %v: id %d", v, k, id)
					}
				}
			}
		}
		if _, err := NewDistribution(Spec{Kind: KindReal, RealDist: SectionNodeNWrites}, 0, 10, d); err != nil {
			t.Error(err)
		}
		od, err := d.OutDegree(1, 11)
		if err != nil || od.NLinks(1) != d.MaxValue(SectionNLinks) || !strings.Contains(od.Describe(), "built-in") {
			t.Errorf("%v out-degree: %v, rank 0 %d, %q", v, err, od.NLinks(1), od.Describe())
		}
	}
	for _, c := range []struct {
		in   string
		want Vintage
	}{{"2017", Vintage2017}, {" MD ", Vintage2017}, {"2011", Vintage2011}, {"fb", Vintage2011}} {
		if got, err := ParseVintage(c.in); err != nil || got != c.want {
			t.Errorf("ParseVintage(%q) = %v, %v", c.in, got, err)
		}
	}
	if _, err := ParseVintage("1999"); err == nil {
		t.Error("ParseVintage accepted 1999")
	}
	// BuiltinOutDegree is the 2017 model's REAL out-degree.
	a, b := BuiltinOutDegree(1, 1_000_001), func() OutDegree { od, _ := BuiltinRealData(Vintage2017).OutDegree(1, 1_000_001); return od }()
	for s := int64(1); s < 1_000_001; s += 997 {
		if a.NLinks(s) != b.NLinks(s) {
			t.Fatalf("BuiltinOutDegree differs at %d", s)
		}
	}
	if !a.Shuffled() || !strings.Contains(a.Describe(), "built-in model of the 2017") {
		t.Errorf("Shuffled %v, Describe %q", a.Shuffled(), a.Describe())
	}
}

func TestBuiltinOutDegreeRange(t *testing.T) {
	o := BuiltinOutDegree(10, 20)
	if o.NLinks(9) != 0 || o.NLinks(20) != 0 || o.NLinks(10) != 4181357 {
		t.Error("range handling")
	}
	for s := int64(10); s < 20; s++ {
		if o.NLinks(s) < 1 {
			t.Errorf("NLinks(%d) = %d", s, o.NLinks(s))
		}
	}
	e := BuiltinOutDegree(5, 5)
	if e.NLinks(5) != 0 {
		t.Error("empty range has links")
	}
	// Monotone non-increasing in rank, over a large range.
	b := BuiltinOutDegree(1, 1_000_000_001)
	prev := int64(math.MaxInt64)
	for s := int64(1); s < 1_000_000_001; s += 9973 {
		v := b.NLinks(s)
		if v > prev || v < 1 {
			t.Fatalf("NLinks(%d) = %d after %d", s, v, prev)
		}
		prev = v
	}
}
