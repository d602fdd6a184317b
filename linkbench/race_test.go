//go:build race

package linkbench

// raceEnabled: the race detector slows the loads of millions of links
// about tenfold; tests skip those (their code paths are covered by smaller
// runs).
const raceEnabled = true
