package testmod_test

import (
	"fmt"

	"github.com/linkbench-go/linkbench/internal/testmod"
)

// The go.mod of a user's module built against a checkout, and how a
// network failure of the go command is told apart from a build error.
func Example() {
	fmt.Print(testmod.GoMod("example.com/mytool", "/src/linkbench"))
	fmt.Println(testmod.Unreachable(`verifying module: Get "https://sum.golang.org/lookup/x@v1": dial tcp: lookup sum.golang.org: no such host`))
	fmt.Println(testmod.Unreachable("main.go:3:2: undefined: foo"))
	// Output:
	// module example.com/mytool
	//
	// go 1.26.0
	//
	// require github.com/linkbench-go/linkbench v0.0.0
	//
	// replace github.com/linkbench-go/linkbench => /src/linkbench
	// sum.golang.org true
	//  false
}
