package doccheck_test

import (
	"fmt"

	"github.com/linkbench-go/linkbench/internal/doccheck"
)

// Find the references of a doc comment and the sections of a document.
func Example() {
	fmt.Println(doccheck.Refs("LinkBench quirk §11.2-17, see §5.1-§5.5 and § 7"))
	s := doccheck.Sections("## 7. Distributions\n### 7.6 Empirical\n#### 11.2-17 Oddities\n")
	fmt.Println(s["7"], s["7.6"], s["11.2-17"], s["11.2"])
	// Output:
	// [11.2-17 5.1 5.5 7]
	// true true true false
}
