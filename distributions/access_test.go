package distributions

import (
	"errors"
	"testing"

	"pgregory.net/rand"
)

func TestAccessRanges(t *testing.T) {
	// Reference §10.1: built-in modes on [123, 12345) with prev fed back.
	for _, k := range []Kind{KindMultiple, KindPerfectPower, KindPower, KindReciprocal, KindRoundRobin} {
		cfg := int64(3)
		if k == KindRoundRobin {
			cfg = 0
		}
		a, err := NewAccess(NodeReads, Spec{Kind: k, Config: cfg}, 123, 12345, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.Shuffled() {
			t.Errorf("%v is shuffled", k)
		}
		r := rand.New(1)
		prev := int64(1)
		for i := 0; i < 10000; i++ {
			id := a.NextID(r, prev)
			if id < 123 || id >= 12345 {
				t.Fatalf("%v: id %d outside [123, 12345)", k, id)
			}
			prev = id
		}
	}
	// Uniform, Zipf(0.5) and REAL(LINK_READS) on [100, 200), unshuffled and
	// through InvertibleShuffler(13, 25, 100).
	d := loadRef(t, "Distribution.dat")
	sh, err := NewInvertibleShuffler(13, 25, 100)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := NewUniform(100, 200, 0, false)
	z, _ := NewZipf(100, 200, 0.5, 0, false)
	rl, err := d.Distribution(SectionLinkNReads, 100, 200)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(2)
	for _, dist := range []Distribution{u, z, rl} {
		for i := 0; i < 10000; i++ {
			id := dist.Choose(r)
			if id < 100 || id >= 200 {
				t.Fatalf("%T: %d outside [100, 200)", dist, id)
			}
			if s := 100 + sh.Permute(id-100); s < 100 || s >= 200 {
				t.Fatalf("%T shuffled: %d outside [100, 200)", dist, s)
			}
		}
	}
	for _, kind := range []AccessKind{LinkReads, LinkWrites, NodeReads, NodeUpdates} {
		a, err := NewAccess(kind, Spec{Kind: KindReal}, 100, 200, d)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10000; i++ {
			if id := a.NextID(r, 0); id < 100 || id >= 200 {
				t.Fatalf("REAL %v: %d outside [100, 200)", kind, id)
			}
		}
	}
}

func TestAccessBuiltinModes(t *testing.T) {
	nextIDs := func(k Kind, cfg, min, max, prev int64, n int) []int64 {
		a, err := NewAccess(LinkReads, Spec{Kind: k, Config: cfg}, min, max, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := NewJavaRandom(42)
		var out []int64
		for i := 0; i < n; i++ {
			out = append(out, a.NextID(r, prev))
		}
		return out
	}
	// ROUND_ROBIN: link ops pass prev = 0 and always get min (§11.2-12).
	for _, v := range nextIDs(KindRoundRobin, 0, 10, 20, 0, 5) {
		if v != 10 {
			t.Errorf("ROUND_ROBIN with prev 0 = %d, want min 10", v)
		}
	}
	a, _ := NewAccess(NodeUpdates, Spec{Kind: KindRoundRobin}, 10, 13, nil)
	for _, c := range [][2]int64{{5, 10}, {10, 10}, {11, 12}, {12, 10}, {1000, 10}} {
		if got := a.NextID(nil, c[0]); got != c[1] {
			t.Errorf("ROUND_ROBIN [10, 13) after %d = %d, want %d", c[0], got, c[1])
		}
	}
	// RECIPROCAL collapses to min unless min = 1.
	for _, v := range nextIDs(KindReciprocal, 0, 123, 12345, 0, 100) {
		if v != 123 {
			t.Fatalf("RECIPROCAL on [123, 12345) = %d, want 123", v)
		}
	}
	// MULTIPLE: c * (u / c), u = 123 + nextInt(12222).
	r := NewJavaRandom(42)
	for i, v := range nextIDs(KindMultiple, 7, 123, 12345, 0, 20) {
		u := 123 + int64(r.Int31n(12222))
		if want := 7 * (u / 7); v != want {
			t.Errorf("MULTIPLE #%d = %d, want %d", i, v, want)
		}
	}
	// POWER 2: the next power of two at or above u, capped at max-1.
	r = NewJavaRandom(42)
	for i, v := range nextIDs(KindPower, 2, 1, 5000, 0, 20) {
		u := 1 + int64(r.Int31n(4999))
		want := int64(1)
		for want < u {
			want *= 2
		}
		if want > 4999 {
			want = 4999
		}
		if v != want {
			t.Errorf("POWER 2 #%d (u %d) = %d, want %d", i, u, v, want)
		}
	}
	// PERFECT_POWER 2: the next perfect square at or above u.
	r = NewJavaRandom(42)
	for i, v := range nextIDs(KindPerfectPower, 2, 1, 5000, 0, 20) {
		u := 1 + int64(r.Int31n(4999))
		root := int64(1)
		for root*root < u {
			root++
		}
		if want := min(root*root, 4999); v != want {
			t.Errorf("PERFECT_POWER 2 #%d (u %d) = %d, want %d", i, u, v, want)
		}
	}
}

func TestAccessShuffleAndErrors(t *testing.T) {
	// A class distribution is followed by the kind's shuffler.
	for _, kind := range []AccessKind{LinkReads, LinkWrites, LinkReadsUncorr, LinkWritesUncorr, NodeReads, NodeUpdates, NodeDeletes} {
		a, err := NewAccess(kind, Spec{Kind: KindZipf, Shape: 0.8}, 1, 10000001, nil)
		if err != nil {
			t.Fatal(err)
		}
		sh, _ := NewInvertibleShuffler(kind.ShuffleSeed(), ShuffleGroups, 10000000)
		z, _ := NewZipf(1, 10000001, 0.8, 0, false)
		r1, r2 := NewJavaRandom(42), NewJavaRandom(42)
		for i := 0; i < 5; i++ {
			got := a.NextID(r1, 0)
			want := 1 + sh.Permute(z.Choose(r2)-1)
			if got != want {
				t.Errorf("%v: NextID #%d = %d, want %d", kind, i, got, want)
			}
		}
	}
	// Zipf[1,1e7+1) choose with Random(42) gives 2168498 first (§10.2), so
	// LINK_READS gives its image under the links shuffler.
	if LinkReads.ShuffleSeed() != ShuffleSeedLinks || LinkWritesUncorr.ShuffleSeed() != ShuffleSeedUncorr || NodeDeletes.ShuffleSeed() != ShuffleSeedNodes {
		t.Error("shuffle seeds per kind")
	}
	d := loadRef(t, "Distribution.dat")
	var pe *ParamError
	for _, kind := range []AccessKind{LinkReadsUncorr, LinkWritesUncorr, NodeDeletes} {
		if _, err := NewAccess(kind, Spec{Kind: KindReal}, 1, 1000, d); !errors.As(err, &pe) {
			t.Errorf("REAL for %v: %v, want an error", kind, err)
		}
		// As a class with realdist, any kind works.
		if _, err := NewAccess(kind, Spec{Kind: KindReal, RealDist: SectionLinkNReads}, 1, 1000, d); err != nil {
			t.Errorf("RealDistribution(link_reads) for %v: %v", kind, err)
		}
	}
	if _, err := NewAccess(LinkReads, Spec{Kind: KindReal, RealDist: SectionNLinks}, 1, 1000, d); !errors.As(err, &pe) {
		t.Errorf("realdist links as access: %v, want an error", err)
	}
	if _, err := NewAccess(LinkReads, Spec{Kind: KindReal}, 1, 1000, nil); !errors.As(err, &pe) || pe.Param != "real" {
		t.Errorf("REAL without data: %v", err)
	}
	for _, c := range []struct {
		k   Kind
		cfg int64
	}{{KindMultiple, 0}, {KindPower, 1}, {KindPerfectPower, 0}} {
		if _, err := NewAccess(LinkReads, Spec{Kind: c.k, Config: c.cfg}, 1, 1000, nil); !errors.As(err, &pe) || pe.Param != "config" {
			t.Errorf("%v config %d: %v, want a config error", c.k, c.cfg, err)
		}
	}
	// NODE_UPDATES samples the link_nwrites layers (LinkBench's quirk):
	// its ranks are those of a link_nwrites distribution.
	nu, err := NewAccess(NodeUpdates, Spec{Kind: KindReal}, 1, 1000001, d)
	if err != nil {
		t.Fatal(err)
	}
	lw, _ := d.Distribution(SectionLinkNWrites, 1, 1000001)
	sh, _ := NewInvertibleShuffler(ShuffleSeedNodes, ShuffleGroups, 1000000)
	r1, r2 := rand.New(4), rand.New(4)
	for i := 0; i < 1000; i++ {
		if got, want := nu.NextID(r1, 0), 1+sh.Permute(lw.Choose(r2)-1); got != want {
			t.Fatalf("NODE_UPDATES draw %d = %d, want %d (link_nwrites layers)", i, got, want)
		}
	}
}

// TestConcurrentUse shares one Access, one ID2Chooser and one RealData among
// goroutines, each with its own source (run with -race).
//
// What it checks does not need the real file: it runs on the built-in
// model of Distribution.dat, so that it never skips.
func TestConcurrentUse(t *testing.T) {
	d := BuiltinRealData(Vintage2017)
	a, err := NewAccess(LinkReads, Spec{Kind: KindReal}, 1, 100001, d)
	if err != nil {
		t.Fatal(err)
	}
	od, _ := d.OutDegree(1, 100001)
	ch, _ := NewID2Chooser(ID2Config{StartID1: 1, MaxID1: 100001, LinkTypeCount: 2}, od)
	done := make(chan [2]int64)
	for g := 0; g < 4; g++ {
		go func(seed uint64) {
			r := rand.New(seed)
			var ids, links int64
			for i := 0; i < 2000; i++ {
				id := a.NextID(r, 0)
				ids += id
				links += ch.ChooseForOp(r, id, firstLinkType, PGetExist)
			}
			done <- [2]int64{ids, links}
		}(uint64(g))
	}
	results := map[[2]int64]bool{}
	for g := 0; g < 4; g++ {
		results[<-done] = true
	}
	// Sequential replay of goroutine 0 gives the same stream.
	r := rand.New(0)
	var ids, links int64
	for i := 0; i < 2000; i++ {
		id := a.NextID(r, 0)
		ids += id
		links += ch.ChooseForOp(r, id, firstLinkType, PGetExist)
	}
	if !results[[2]int64{ids, links}] {
		t.Error("a goroutine's stream differs from its sequential replay")
	}
}
