package distributions

import (
	"math"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rand"
)

func mustCursors(tb testing.TB, d *RealData) *RealCursors {
	tb.Helper()
	c, err := NewRealCursors(d)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestRealJavaGolden checks reference §10.2: REAL LINK_READS on [1, 1001)
// with fresh cursors and java.util.Random(42), ten draws, for both data
// vintages (n = 1000 <= 1024 groups, so the shuffler is the identity).
func TestRealJavaGolden(t *testing.T) {
	want := []int64{1, 1, 1, 1, 1, 1, 1, 2, 1, 1}
	for _, f := range []string{"Distribution.dat", "Distribution_2011.dat"} {
		d := loadRef(t, f)
		cur := mustCursors(t, d)
		a, err := javaAccess(LinkReads, Spec{Kind: KindReal}, 1, 1001, d, cur)
		if err != nil {
			t.Fatal(err)
		}
		r := NewJavaRandom(42)
		for i, w := range want {
			if got := a.NextID(r, 0); got != w {
				t.Errorf("%s: draw %d = %d, want %d", f, i+1, got, w)
			}
		}
	}
}

// javaCS materialises LinkBench's arrays literally (reference §7.6): pdf
// over 0..last, ccdf summed from the top, cs summed from 0.
func javaCS(s *section) []float64 {
	last := s.values[len(s.values)-1]
	pdf := make([]float64, last+1)
	pdf[s.values[0]] = s.probs[0]
	for i := 1; i < len(s.values); i++ {
		pdf[s.values[i]] = s.probs[i] - s.probs[i-1]
	}
	ccdf := make([]float64, last+1)
	ccdf[last] = pdf[last]
	for i := last - 1; i >= 0; i-- {
		ccdf[i] = ccdf[i+1] + pdf[i]
	}
	cs := make([]float64, last+1)
	for i := int64(1); i <= last; i++ {
		cs[i] = cs[i-1] + ccdf[i]
	}
	return cs
}

// TestRealJavaCS checks that the cs arrays are LinkBench's bit for bit
// (lengths of reference §10.2) and that the fast search returns exactly
// Java's binary search result, for random keys, for keys equal to cs
// elements (where the bisection path matters) and from any estimate.
func TestRealJavaCS(t *testing.T) {
	lens := map[string][3]int{
		"Distribution.dat":      {150783, 84507, 2196},
		"Distribution_2011.dat": {95719, 75880, 23832},
	}
	r := rand.New(41)
	for f, want := range lens {
		d := loadRef(t, f)
		cur := mustCursors(t, d)
		for i, s := range []Section{SectionLinkNReads, SectionLinkNWrites, SectionNodeNReads} {
			g := cur.groups[s]
			if len(g.cs) != want[i] {
				t.Errorf("%s %s: cs has %d entries, want %d", f, s, len(g.cs), want[i])
			}
			ref := javaCS(d.sec[s])
			for k := range ref {
				if math.Float64bits(ref[k]) != math.Float64bits(g.cs[k]) {
					t.Fatalf("%s %s: cs[%d] = %v, LinkBench's %v", f, s, k, g.cs[k], ref[k])
				}
			}
			equalRuns := 0
			for k := 1; k < len(ref); k++ {
				if ref[k] == ref[k-1] {
					equalRuns++
				}
			}
			t.Logf("%s %s: %d cs entries equal to their predecessor", f, s, equalRuns)
			last := ref[len(ref)-1]
			for j := 0; j < 200000; j++ {
				var p float64
				switch j % 3 {
				case 0:
					p = last * r.Float64()
				case 1:
					p = ref[r.Intn(len(ref))]
				default:
					p = math.Nextafter(ref[1+r.Intn(len(ref)-1)], 0)
				}
				est := r.Intn(len(ref)+10) - 5
				if got, w := g.search(p, est), javaBinarySearch(ref, p); got != w {
					t.Fatalf("%s %s: search(%v, est %d) = %d, Java %d", f, s, p, est, got, w)
				}
			}
		}
	}
}

func TestJavaBinarySearch(t *testing.T) {
	// Reference §10.1 "binary search on doubles".
	a := []float64{0, 0.5, 1}
	for i, key := range []float64{0, 0.001, 0.4, 0.5, 0.50001, 1, 1.33} {
		if got, want := javaBinarySearch(a, key), []int{0, 1, 1, 1, 2, 2, 3}[i]; got != want {
			t.Errorf("binarySearch(%v) = %d, want %d", key, got, want)
		}
	}
	// Runs of equal values: Java's bisection meets the middle one first.
	b := []float64{0, 1, 1, 1, 1, 1, 2}
	if got := javaBinarySearch(b, 1); got != 3 {
		t.Errorf("binarySearch on a run = %d, want 3 (Java's first probe)", got)
	}
	g := &cursorGroup{cs: b}
	for est := -2; est < 10; est++ {
		if got := g.search(1, est); got != 3 {
			t.Errorf("search(1, est %d) = %d, want 3", est, got)
		}
	}
}

// TestRealJavaCursors checks the cursor semantics on small data: each layer
// hands out ranks 0, 1, 2, ... mod n, LinkWrites and NodeUpdates share the
// link-writes cursors, and every Access built with the same RealCursors
// shares them too.
func TestRealJavaCursors(t *testing.T) {
	d, err := ParseRealData(strings.NewReader("link_nreads 0 50 2 100 link_nwrites 0 25 1 100 node_nwrites 0 90 3 100 node_nreads 0 99 1 100"))
	if err != nil {
		t.Fatal(err)
	}
	cur := mustCursors(t, d)
	// link_nreads: cs = [0, 0.5, 1]; p <= 0.5 takes layer 1, else layer 2.
	a, err := javaAccess(LinkReads, Spec{Kind: KindReal}, 10, 13, d, cur)
	if err != nil {
		t.Fatal(err)
	}
	model := [3]int64{}
	r1, r2 := NewJavaRandom(5), NewJavaRandom(5)
	for i := 0; i < 50; i++ {
		u := r2.Float64()
		k := 2
		if u <= 0.5 {
			k = 1
		}
		want := 10 + model[k]
		model[k] = (model[k] + 1) % 3
		if got := a.NextID(r1, 0); got != want {
			t.Fatalf("draw %d: %d, want %d", i, got, want)
		}
	}
	// Shared link-writes cursors: one layer (cs = [0, 0.75]).
	w, _ := javaAccess(LinkWrites, Spec{Kind: KindReal}, 0, 1000, d, cur)
	u, err := javaAccess(NodeUpdates, Spec{Kind: KindReal}, 0, 1000, d, cur)
	if err != nil {
		t.Fatal(err)
	}
	w2, _ := javaAccess(LinkWrites, Spec{Kind: KindReal}, 0, 1000, d, cur)
	r := NewJavaRandom(1)
	for i, acc := range []*Access{w, u, w2, u, w} {
		if got := acc.NextID(r, 0); got != int64(i) {
			t.Errorf("shared cursor: draw %d = %d, want %d", i, got, i)
		}
	}
	// A second RealCursors starts afresh.
	fresh, _ := javaAccess(LinkWrites, Spec{Kind: KindReal}, 0, 1000, d, mustCursors(t, d))
	if got := fresh.NextID(r, 0); got != 0 {
		t.Errorf("fresh cursors: %d, want 0", got)
	}
	// Errors: cursors of other data (given, or created by the mode for
	// its first REAL distribution), the links section, and a section with
	// only the value 0.
	m := JavaMode(nil)
	if _, err := m.Access(LinkReads, Spec{Kind: KindReal}, 0, 10, d); err != nil {
		t.Errorf("a Java mode without cursors did not create them: %v", err)
	}
	if _, err := m.Access(LinkReads, Spec{Kind: KindReal}, 0, 10, loadRef(t, "Distribution.dat")); err == nil {
		t.Error("a Java mode's REAL distributions of two data files accepted")
	}
	other := mustCursors(t, loadRef(t, "Distribution.dat"))
	if _, err := javaAccess(LinkReads, Spec{Kind: KindReal}, 0, 10, d, other); err == nil {
		t.Error("cursors of other data accepted")
	}
	if _, err := javaDistribution(Spec{Kind: KindReal, RealDist: SectionNLinks}, 0, 10, loadRef(t, "Distribution.dat"), other); err == nil {
		t.Error("links section sampled")
	}
	z, _ := ParseRealData(strings.NewReader("link_nreads 0 100"))
	if _, err := javaAccess(LinkReads, Spec{Kind: KindReal}, 0, 10, z, mustCursors(t, z)); err == nil {
		t.Error("all-zero section accepted")
	}
	big, _ := ParseRealData(strings.NewReader("link_nreads 0 99 5000000 100"))
	if _, err := NewRealCursors(big); err == nil {
		t.Error("cursors built for 5e6 layers (limit 2^22)")
	}
	// The class RealDistribution with realdist shares the REAL cursors.
	cd, err := javaDistribution(Spec{Kind: KindReal, RealDist: SectionLinkNWrites}, 0, 1000, d, cur)
	if err != nil {
		t.Fatal(err)
	}
	if got := cd.Choose(r); got != 5 {
		t.Errorf("class RealDistribution after 5 shared draws: %d, want 5", got)
	}
}

// TestRealJavaConcurrent draws from one cursor from several goroutines:
// with the atomic cursors no update is lost, so the ranks handed out are
// exactly 0..N-1 once each (LinkBench's unsynchronised arrays would lose
// some). Run with -race.
func TestRealJavaConcurrent(t *testing.T) {
	d, err := ParseRealData(strings.NewReader("link_nreads 1 100"))
	if err != nil {
		t.Fatal(err)
	}
	cur := mustCursors(t, d)
	a, err := javaAccess(LinkReads, Spec{Kind: KindReal, RealDist: SectionLinkNReads}, 0, 1<<30, d, cur)
	if err != nil {
		t.Fatal(err)
	}
	a.shuf = nil // compare raw ranks (the test sees the unexported field)
	const workers, each = 4, 5000
	got := make([][]int64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := NewJavaRandom(int64(w))
			for i := 0; i < each; i++ {
				got[w] = append(got[w], a.dist.Choose(r))
			}
		}(w)
	}
	wg.Wait()
	seen := make([]bool, workers*each)
	for _, g := range got {
		for _, v := range g {
			if v < 0 || v >= workers*each || seen[v] {
				t.Fatalf("rank %d handed out twice or out of range", v)
			}
			seen[v] = true
		}
	}
}
