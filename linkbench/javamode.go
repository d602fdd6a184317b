package linkbench

import (
	"math"
	"sync"

	"github.com/linkbench-go/linkbench/distributions"
)

// The Java-compatible mode (rng = java, reference Appendix A and B).
//
// Every quirk of reference §11 that lives in this package is decided at
// the code it concerns, with a one-line comment "Quirk §11.x-n (...)"
// saying whether it is kept in Java mode and whether the fast mode fixes
// it. Quirks of the distributions, the stores and the statistics are
// decided in those packages.

// javaHooks replace, in tests, the sources a Java-mode phase derives from
// its SHA1PRNG master, so that reference §10.3's traces (which start from
// new Random(7) and new Random(42)) can be replayed through the drivers.
type javaHooks struct {
	// chunks, when not nil, are the id1 ranges [lo, hi) of database 0 the
	// Java-mode load processes, in this order, instead of LinkBench's queue.
	chunks [][2]int64
	// chunkSeed, nodeSeed: when set, the chunk and node Randoms are
	// new Random(seed) instead of the master's draws.
	chunkSeed, nodeSeed *int64
	// requesterSeed: when not nil, requester i's Random is new
	// Random(requesterSeed(i)).
	requesterSeed func(i int) int64
}

// javaLoadSources are the random sources of a Java-mode load (reference
// §5.1): master = SHA1PRNG(load_random_seed), one nextLong discarded; the
// node loader's Random (when generate_nodes) from the next nextLong, then
// the Random every chunk shares.
type javaLoadSources struct {
	nodeSrc  distributions.Source // nil without generate_nodes
	chunkSrc distributions.Source
	chunks   [][2]int64 // test hook, see javaHooks
}

func newJavaLoadSources(cfg *Config, seed int64) *javaLoadSources {
	master := distributions.NewSHA1PRNG(seed)
	// Quirk §11.1-11 (the draw LinkBench spends on a debug message): kept.
	master.NextLong()
	j := &javaLoadSources{}
	var node *distributions.JavaRandom
	if cfg.GenerateNodes {
		node = distributions.NewJavaRandom(master.NextLong())
	}
	chunk := distributions.NewJavaRandom(master.NextLong())
	if h := cfg.hooks; h != nil {
		j.chunks = h.chunks
		if h.chunkSeed != nil {
			chunk = distributions.NewJavaRandom(*h.chunkSeed)
		}
		if h.nodeSeed != nil && node != nil {
			node = distributions.NewJavaRandom(*h.nodeSeed)
		}
	}
	if node != nil {
		j.nodeSrc = node
	}
	j.chunkSrc = chunk
	if cfg.Loaders > 1 {
		// java.util.Random is safe for concurrent use, one draw at a time:
		// loaders sharing it interleave their draws unpredictably (quirk
		// §11.2-24, kept in Java mode).
		j.chunkSrc = &lockedSource{r: chunk}
	}
	return j
}

// javaRequesterSeeds returns the seeds of the requesters' Randoms
// (reference §6.1): master = SHA1PRNG(request_random_seed), one nextLong
// discarded, then one nextLong per requester in order.
func javaRequesterSeeds(cfg *Config, seed int64) []int64 {
	master := distributions.NewSHA1PRNG(seed)
	master.NextLong() // Quirk §11.1-11 (debug-message draw): kept.
	seeds := make([]int64, cfg.Requesters)
	for i := range seeds {
		seeds[i] = master.NextLong()
		if h := cfg.hooks; h != nil && h.requesterSeed != nil {
			seeds[i] = h.requesterSeed(i)
		}
	}
	return seeds
}

// lockedSource makes a java.util.Random shareable as Java's is: each draw
// is atomic.
type lockedSource struct {
	mu sync.Mutex
	r  *distributions.JavaRandom
}

func (l *lockedSource) Float64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Float64()
}

func (l *lockedSource) Int31n(n int32) int32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Int31n(n)
}

func (l *lockedSource) Int63n(n int64) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Int63n(n)
}

func (l *lockedSource) Uint32() uint32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Uint32()
}

func (l *lockedSource) Uint64() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Uint64()
}

func (l *lockedSource) NormFloat64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.NormFloat64()
}

// javaRound is Java's Math.round(double): the closest long, ties toward
// positive infinity, NaN to 0, saturating at the int64 limits.
func javaRound(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(f)
}

// rngName is the rng key's value for m ("" is fast).
func rngName(m RNGMode) string {
	if m == "" {
		return string(RNGFast)
	}
	return string(m)
}
