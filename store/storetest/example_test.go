package storetest_test

import (
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
	"github.com/linkbench-go/linkbench/store/storetest"
)

// In a _test.go file of your store's package, a test runs the suite on a
// fresh store per case (examples/customstore does so for a complete
// store). Compiled, not run: the suite needs the *testing.T of a test.
func ExampleRun() {
	testConformance := func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) store.Store {
			s := memstore.New()
			t.Cleanup(func() { s.Close() })
			return s
		})
	}
	_ = testConformance
}
