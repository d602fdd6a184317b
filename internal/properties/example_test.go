package properties_test

import (
	"fmt"
	"strings"

	"github.com/linkbench-go/linkbench/internal/properties"
)

// Read Java .properties text: comments, both separators, continued lines
// and escapes.
func Example() {
	text := "# LinkBench\nmaxid1 = 10001\nworkload_file: config/FBWorkload.properties\n" +
		"dbprefix linkdb\nlong = one, \\\n      two\nunicode = caf\\u00e9\n"
	props, err := properties.Read(strings.NewReader(text))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range props {
		fmt.Printf("%d %s=%q\n", p.Line, p.Key, p.Value)
	}
	// Output:
	// 2 maxid1="10001"
	// 3 workload_file="config/FBWorkload.properties"
	// 4 dbprefix="linkdb"
	// 5 long="one, two"
	// 7 unicode="café"
}
