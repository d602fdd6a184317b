// Package testref locates LinkBench's reference data files for tests.
//
// The project never contains a copy of LinkBench's Distribution.dat files.
// Tests read them from the directory named by $LINKBENCH_REFERENCE_DIR or,
// when that is unset, from ../shared/reference beside the repository root
// (where this project's CI keeps them). When the files are absent the
// calling test is skipped, unless $LINKBENCH_REQUIRE_REFERENCE=1, which CI
// sets so that a missing file fails instead of hiding a test.
package testref

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the reference directory, or skips (or fails, see the package
// documentation) the test when it cannot be found.
func Dir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("LINKBENCH_REFERENCE_DIR"); d != "" {
		return check(tb, d)
	}
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatalf("testref: %v", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return check(tb, filepath.Join(d, "..", "shared", "reference"))
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	missing(tb, "no go.mod above "+wd)
	return ""
}

// File returns the path of the named reference file (for example
// "Distribution.dat"), or skips or fails the test as Dir does.
func File(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(Dir(tb), name)
	if _, err := os.Stat(p); err != nil {
		missing(tb, err.Error())
	}
	return p
}

func check(tb testing.TB, d string) string {
	tb.Helper()
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		missing(tb, "reference directory "+d+" not found")
	}
	return d
}

func missing(tb testing.TB, why string) {
	tb.Helper()
	msg := "LinkBench reference data unavailable (" + why + "); set LINKBENCH_REFERENCE_DIR to the folder holding Distribution.dat"
	if os.Getenv("LINKBENCH_REQUIRE_REFERENCE") == "1" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}
