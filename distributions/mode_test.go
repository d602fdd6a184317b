package distributions

import (
	"testing"
)

// TestModes: DefaultMode builds what the package's constructors build, and
// JavaMode builds LinkBench's variants, as types of their own, only where
// they differ: the Uniform beyond 2^31-1 ids (and the access distributions
// drawing from it, which return the ids it puts outside the range
// unshuffled), Zipf, the arithmetic out-degrees, and the shuffler of
// 2^31 ids or more (also the id2 choosers' out-degree shuffler).
func TestModes(t *testing.T) {
	def, java := DefaultMode(), JavaMode(nil)
	if def.String() != "default" || java.String() != "java" {
		t.Errorf("mode names %q, %q", def, java)
	}
	const wide = 1 + 3_000_000_000
	for _, c := range []struct {
		mode     Mode
		spec     Spec
		max      int64
		wantType any
	}{
		{def, Spec{Kind: KindUniform}, wide, &Uniform{}},
		{java, Spec{Kind: KindUniform}, 1001, &Uniform{}}, // LinkBench draws the same below 2^31
		{java, Spec{Kind: KindUniform}, wide, &javaUniform{}},
		{def, Spec{Kind: KindZipf, Shape: 0.8}, 1001, &Zipf{}},
		{java, Spec{Kind: KindZipf, Shape: 0.8}, 1001, &zipfJava{}},
		{java, Spec{Kind: KindGeometric, Prob: 0.5}, 1001, &Geometric{}},
	} {
		d, err := c.mode.Distribution(c.spec, 1, c.max, nil)
		if err != nil {
			t.Fatalf("%s %v: %v", c.mode, c.spec.Kind, err)
		}
		if got, want := typeName(d), typeName(c.wantType); got != want {
			t.Errorf("%s mode's %v over %d ids: %s, want %s", c.mode, c.spec.Kind, c.max-1, got, want)
		}
	}

	// Access: the wide Java Uniform's ids outside [min, max) come back
	// unshuffled; the default mode's stay inside.
	// (n = 2^32 + 2^20: LinkBench's shuffler fails for 2^31 <= n < 2^32.)
	const min, n = 10_000_000_000_000, 1<<32 + 1<<20
	ja, err := java.Access(LinkReads, Spec{Kind: KindUniform}, min, min+n, nil)
	if err != nil {
		t.Fatal(err)
	}
	da, err := def.Access(LinkReads, Spec{Kind: KindUniform}, min, min+n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ja.step != stepShuffledWide || da.step != stepShuffled {
		t.Errorf("access steps: java %d, default %d", ja.step, da.step)
	}
	r := NewJavaRandom(3)
	for range 1000 {
		if id := ja.NextID(r, 0); id >= min {
			t.Fatalf("Java Uniform access gave %d, inside the range (LinkBench's draw forgets min)", id)
		}
		if id := da.NextID(r, 0); id < min || id >= min+n {
			t.Fatalf("default Uniform access gave %d, outside the range", id)
		}
	}

	// Out-degrees: Java's PERFECT_SQUARES accumulates, the default's does not.
	for _, m := range []Mode{def, java} {
		od, err := m.ArithmeticOutDegree("perfect_squares", 1, 2, 1, 21)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for s := int64(1); s < 21; s++ {
			sum += od.NLinks(s)
		}
		// Bonuses at 1, 4, 9, 16: 1, 3, 5, 7; d = 1.
		want := int64(20 + 1 + 3 + 5 + 7)
		if m == java {
			want = 3*2 + 5*5 + 7*10 + 5*17 // each bonus stays in nlinks_default
		}
		if sum != want {
			t.Errorf("%s PERFECT_SQUARES: sum of NLinks(1..20) = %d, want %d", m, sum, want)
		}
	}

	// Shufflers of 2^31 + 2^20 ids: LinkBench's 32-bit cast makes the group
	// size negative, which the Java mode refuses, as LinkBench fails; the id2
	// chooser's out-degree shuffler is the mode's.
	m := int64(1<<31 + 1<<20)
	if _, err := def.Shuffler(ShuffleSeedLinks, ShuffleGroups, m); err != nil {
		t.Errorf("default shuffler of %d ids: %v", m, err)
	}
	if _, err := java.Shuffler(ShuffleSeedLinks, ShuffleGroups, m); err == nil {
		t.Errorf("Java shuffler of %d ids accepted", m)
	}
	cfg := ID2Config{StartID1: 1, MaxID1: 1 + m, LinkTypeCount: 1}
	if _, err := def.ID2Chooser(cfg, BuiltinOutDegree(1, 1+m)); err != nil {
		t.Errorf("default id2 chooser: %v", err)
	}
	if _, err := java.ID2Chooser(cfg, BuiltinOutDegree(1, 1+m)); err == nil {
		t.Error("Java id2 chooser accepted a range its shuffler cannot handle")
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *Uniform:
		return "*Uniform"
	case *javaUniform:
		return "*javaUniform"
	case *Zipf:
		return "*Zipf"
	case *zipfJava:
		return "*zipfJava"
	case *Geometric:
		return "*Geometric"
	}
	return "other"
}
