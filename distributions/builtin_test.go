package distributions

import (
	"math"
	"strings"
	"testing"
)

// modelQ returns 1-u where the interpolated interval ending at knot j of the
// built-in model reaches value x (ln x linear in ln(1-u)).
func modelQ(o *builtinOutDegree, j int, x float64) float64 {
	t := (math.Log(x) - o.ly[j-1]) / (o.ly[j] - o.ly[j-1])
	return math.Exp(o.lq[j-1] + t*(o.lq[j]-o.lq[j-1]))
}

func interpolated(o *builtinOutDegree, j int) bool { return j >= o.nhead && j < len(o.lq)-1 }

// builtinMean is the exact mean of the model's values over u in (0, 1]:
// steps contribute (P_j - P_{j-1}) v_j; an interpolated interval gives the
// integer value L where the curve lies in (L-1, L].
func builtinMean(o *builtinOutDegree) float64 {
	v, p := o.knots.values, o.knots.probs
	s := p[0] * float64(v[0])
	for j := 1; j < len(v); j++ {
		if !interpolated(o, j) {
			s += (p[j] - p[j-1]) * float64(v[j])
			continue
		}
		qPrev := 1 - p[j-1]
		for L := v[j-1] + 1; L <= v[j]; L++ {
			q := 1 - p[j]
			if L < v[j] {
				q = modelQ(o, j, float64(L))
			}
			s += float64(L) * (qPrev - q)
			qPrev = q
		}
	}
	return s
}

// builtinCDF returns the model's P(value <= x) for an integer x >= 1.
func builtinCDF(o *builtinOutDegree, x int64) float64 {
	v, p := o.knots.values, o.knots.probs
	j := 0
	for j+1 < len(v) && v[j+1] <= x {
		j++
	}
	if x < v[0] {
		return 0
	}
	if j+1 < len(v) && interpolated(o, j+1) && x > v[j] {
		return 1 - modelQ(o, j+1, float64(x))
	}
	return p[j]
}

func TestBuiltinOutDegreeFit(t *testing.T) {
	d := loadRef(t, "Distribution.dat")
	sec := d.sec[SectionNLinks]
	o := BuiltinOutDegree(1, 1_000_001).(*builtinOutDegree)
	if !o.Shuffled() || !strings.Contains(o.Describe(), "built-in model") {
		t.Errorf("Shuffled %v, Describe %q", o.Shuffled(), o.Describe())
	}
	if n := len(o.lq); n < 20 || 2*n > 400 {
		t.Errorf("%d knots: not a compact table", n)
	}
	// The head is exact and rank 0 gets the largest value of the file.
	if v := o.NLinks(1); v != 4181357 {
		t.Errorf("rank 0 gets %d links, want 4181357", v)
	}
	for j := 0; j < o.nhead; j++ {
		i := lowerBoundFloat(sec.probs, 0, len(sec.probs), o.knots.probs[j])
		if sec.values[i] != o.knots.values[j] || sec.probs[i] != o.knots.probs[j] {
			t.Errorf("head knot %d (%d, %v) is not a point of the file", j, o.knots.values[j], o.knots.probs[j])
		}
	}
	real, err := d.OutDegree(1, 1_000_001)
	if err != nil {
		t.Fatal(err)
	}
	headP := o.knots.probs[o.nhead-1]
	for s := int64(1); s < 1_000_001; s++ {
		if 1-float64(s-1)/1e6 > headP {
			continue
		}
		if a, b := o.NLinks(s), real.NLinks(s); a != b {
			t.Fatalf("head rank %d: model %d, file %d", s-1, a, b)
		}
	}

	// Mean links per node: the model's expected value vs the file's.
	mean, want := builtinMean(o), d.ExpectedValue(SectionNLinks)
	t.Logf("mean out-degree: model %.6f, file %.6f (%+.3f %%)", mean, want, 100*(mean-want)/want)
	if math.Abs(mean-want) > 0.01*want {
		t.Errorf("model mean %v not within 1 %% of the file's %v", mean, want)
	}

	// The links a load writes: n = 10^6, link_type_count 2, MD default split.
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
	sm, sr := sum(o), sum(real)
	t.Logf("links loaded, n = 1e6, 2 link types: model %d, file %d (%+.3f %%)", sm, sr, 100*float64(sm-sr)/float64(sr))
	if math.Abs(float64(sm-sr)) > 0.01*float64(sr) {
		t.Errorf("model loads %d links, file %d: not within 1 %%", sm, sr)
	}
	// Half of that is the rank-0 id (4181357 links, 2*2090678 loaded) in
	// both: compare the rest too.
	const giant = 2 * (4181357 / 2)
	t.Logf("without the rank-0 id: model %d, file %d (%+.3f %%)", sm-giant, sr-giant, 100*float64(sm-sr)/float64(sr-giant))
	if math.Abs(float64(sm-sr)) > 0.01*float64(sr-giant) {
		t.Errorf("without the rank-0 id, model loads %d links, file %d: not within 1 %%", sm-giant, sr-giant)
	}

	// Largest CDF difference over every value. Bound: both CDFs are
	// non-decreasing and, at each tail knot value v_j, the model's CDF is
	// P'_j, the file's is within half a step of it (P'_j is the file's P_j,
	// or the middle of its step in the sparse tail, see fitnlinks), so
	// between two knots they differ by at most the knot gap P'_j - P'_{j-1}
	// plus that half step. The largest such gap is the bound.
	bound := 0.0
	for j := o.nhead; j < len(o.lq); j++ {
		i := lowerBoundFloat(sec.probs, 0, len(sec.probs), o.knots.probs[j])
		half := 0.0
		if i > 0 {
			half = (sec.probs[i] - sec.probs[i-1]) / 2
		}
		bound = math.Max(bound, o.knots.probs[j]-o.knots.probs[j-1]+half)
	}
	worst, at := 0.0, int64(0)
	fi := 0
	for x := int64(1); x <= sec.values[len(sec.values)-1]; x++ {
		for fi+1 < len(sec.values) && sec.values[fi+1] <= x {
			fi++
		}
		if diff := math.Abs(builtinCDF(o, x) - sec.probs[fi]); diff > worst {
			worst, at = diff, x
		}
	}
	t.Logf("largest |model CDF - file CDF| = %.3g at %d links (bound %.3g)", worst, at, bound)
	if worst > bound {
		t.Errorf("CDF difference %v exceeds the bound %v", worst, bound)
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
