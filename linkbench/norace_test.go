//go:build !race

package linkbench

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
