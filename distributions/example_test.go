package distributions_test

import (
	"fmt"

	"pgregory.net/rand"

	"github.com/linkbench-go/linkbench/distributions"
)

// Permute ids with LinkBench's invertible shuffler and draw from a
// uniform distribution with the caller's random source.
func Example() {
	sh, err := distributions.NewInvertibleShuffler(13, 4, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	seen := map[int64]bool{}
	for i := range sh.N() {
		p := sh.Permute(i)
		seen[p] = true
		if sh.InvertPermute(p) != i {
			fmt.Println("not inverted at", i)
		}
	}
	fmt.Println("a permutation of", len(seen), "ids")

	u, err := distributions.NewUniform(100, 200, 0, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := rand.New(1) // each worker owns its source
	inRange := true
	for range 1000 {
		if id := u.Choose(r); id < 100 || id >= 200 {
			inRange = false
		}
	}
	fmt.Println("uniform ids in [100, 200):", inRange, "median", u.Quantile(0.5))
	// Output:
	// a permutation of 10 ids
	// uniform ids in [100, 200): true median 150
}

// A run picks its mode once and builds its access distributions through
// it; the Java-compatible mode with a JavaRandom source draws LinkBench's
// ids. Over this range the default mode draws the same ones: the modes
// differ beyond 2^31-1 ids, in REAL sampling, and where the default Zipf's
// fast power lands one id off (about one draw in 10^4).
func ExampleMode() {
	for _, m := range []distributions.Mode{distributions.DefaultMode(), distributions.JavaMode(nil)} {
		a, err := m.Access(distributions.NodeReads, distributions.Spec{Kind: distributions.KindZipf, Shape: 0.625}, 1, 100001, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		r := distributions.NewJavaRandom(42)
		fmt.Println(m, a.NextID(r, 0), a.NextID(r, 0), a.NextID(r, 0))
	}
	// Output:
	// default 67785 97033 56817
	// java 67785 97033 56817
}
