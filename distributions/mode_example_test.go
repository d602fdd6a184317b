package distributions_test

import (
	"fmt"

	"github.com/linkbench-go/linkbench/distributions"
)

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
