package testdb_test

import (
	"fmt"
	"os"

	"github.com/linkbench-go/linkbench/internal/testdb"
)

// A test asks testdb.MySQLDSN(t) for its server: without one it is
// skipped, except in CI (LINKBENCH_CI=1), where it fails.
func ExampleCI() {
	os.Setenv(testdb.EnvCI, "1")
	fmt.Println(testdb.EnvCI, testdb.CI())
	os.Setenv(testdb.EnvCI, "")
	fmt.Println(testdb.EnvCI, testdb.CI())
	// Output:
	// LINKBENCH_CI true
	// LINKBENCH_CI false
}
