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
