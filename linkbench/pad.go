package linkbench

import (
	"pgregory.net/rand"

	"github.com/linkbench-go/linkbench/internal/cacheline"
)

// cacheLinePad keeps what one worker writes on every request or link (its
// random generator's state, its counters) off another worker's lines (see
// cacheline.Pad). Without it, the 48-byte generators of requesters made one
// after another shared lines: each draw of one requester invalidated the
// other's copy (false sharing), and with 2 requesters on 2 cores the
// generator's draws took a quarter of the discard store's CPU (pprof:
// sfc64.next64 25-27 % flat, 6 % padded).
type cacheLinePad = cacheline.Pad

// ownedRand is a random generator alone on its cache lines (see
// cacheLinePad).
type ownedRand struct {
	_ cacheLinePad
	r rand.Rand
	_ cacheLinePad
}

// newOwnedRand returns rand.New(seed...) (the same stream) placed alone on
// its cache lines, for a worker goroutine that draws from it on every
// request or link.
func newOwnedRand(seed ...uint64) *rand.Rand {
	o := &ownedRand{r: *rand.New(seed...)}
	return &o.r
}
