package testref_test

import (
	"testing"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/internal/testref"
)

// A test that needs LinkBench's Distribution.dat asks for it by name: it
// is skipped (saying where it looked) when the file is absent, and fails
// instead when LINKBENCH_REQUIRE_REFERENCE=1. Compiled, not run: it needs
// the *testing.T of a test.
func ExampleFile() {
	testRealData := func(t *testing.T) {
		d, err := distributions.LoadRealData(testref.File(t, "Distribution.dat"))
		if err != nil {
			t.Fatal(err)
		}
		_ = d
	}
	_ = testRealData
}
