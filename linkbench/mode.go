package linkbench

import (
	"math"
	"sync"

	"pgregory.net/rand"

	"github.com/linkbench-go/linkbench/distributions"
)

// runMode is a run's random mode (the rng key), chosen once when the run
// is prepared: everything the drivers do differently in the fast and the
// Java-compatible mode (rng = java, reference Appendix A and B). The
// drivers ask it for their plan and sources before their loops start, and
// never test the mode inside them.
//
// Every quirk of reference §11 that lives in this package is decided at
// the code it concerns, with a one-line comment "Quirk §11.x-n (...)"
// saying whether it is kept in Java mode and whether the fast mode fixes
// it. Quirks of the distributions, the stores and the statistics are
// decided in those packages.
type runMode interface {
	// describe names the mode, for report headers.
	describe() string
	// dists is the mode the run's distributions are built in.
	dists() distributions.Mode
	// withoutDataFile returns the error of a run whose data file is
	// missing (why says how), or nil when the built-in models may stand
	// in for it.
	withoutDataFile(path, why string) error
	// loadPlan returns the order of a load's chunks and its sources.
	loadPlan(w *workload, seed int64) loadPlan
	// requesterSources returns the random source of each requester, from
	// the phase's stream seed (RequestStreamSeed).
	requesterSources(w *workload, seed int64) []requestSource
	// dbShares returns the cumulative dbload shares (percent), one per
	// database, that a requester picks its database from.
	dbShares(cfg *Config) []float64
	// newHistory returns a requester's empty list-tail cache.
	newHistory() listHistory
}

// modeOf returns the mode of the rng key's value.
func modeOf(m RNGMode) runMode {
	if m == RNGJava {
		return &javaMode{dm: distributions.JavaMode(nil)}
	}
	return fastMode{}
}

// fastMode is the default mode: own streams per chunk, database and
// requester (pgregory.net/rand), independent of scheduling.
type fastMode struct{}

func (fastMode) describe() string {
	return "fast (rng=fast: pgregory.net/rand streams per chunk and requester)"
}

func (fastMode) dists() distributions.Mode { return distributions.DefaultMode() }

func (fastMode) withoutDataFile(string, string) error { return nil }

func (fastMode) loadPlan(w *workload, seed int64) loadPlan {
	// Quirk §11.2-2 (straggler: chunks queued highest first, the giant
	// list late): fixed in fast mode, the heaviest chunks first.
	sh := w.cfg.Shard
	return &fastPlan{seed: uint64(seed), order: newChunkOrder(w, w.numChunks()), dbs: int64(w.cfg.DBCount),
		shard: int64(sh.Index), shards: int64(sh.count())}
}

func (fastMode) requesterSources(w *workload, seed int64) []requestSource {
	s := make([]requestSource, w.cfg.Requesters)
	// The run's requester index: shard Index's requesters follow those of
	// the shards before it.
	base := uint64(w.cfg.Shard.Index) * uint64(w.cfg.Requesters)
	for i := range s {
		s[i] = &fastSource{Rand: newOwnedRand(uint64(seed), streamRequester, base+uint64(i)), pick: &w.pick, start: &w.opStart}
	}
	return s
}

func (fastMode) dbShares(cfg *Config) []float64 {
	// dbload: explicit shares, or equal shares (reference §6.3); the last
	// one is 100, whatever rounding did to the sum.
	cum := make([]float64, cfg.DBCount)
	sum := 0.0
	for d := range cum {
		if len(cfg.DBLoad) > 0 {
			sum += cfg.DBLoad[d]
		} else {
			sum = 100 * float64(d+1) / float64(cfg.DBCount)
		}
		cum[d] = sum
	}
	cum[len(cum)-1] = 100
	return cum
}

func (fastMode) newHistory() listHistory {
	// Quirk §11.2-15 (history cache keeps stale index keys): fixed in fast mode.
	return &history{index: make(map[histKey]int)}
}

// javaMode is the Java-compatible mode: LinkBench's sources, seeded from
// SHA1PRNG masters, and its draw order.
type javaMode struct {
	dm    distributions.Mode
	hooks *javaHooks // tests only: see javaHooks
}

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

func (*javaMode) describe() string {
	return "java (rng=java: java.util.Random streams seeded by SHA1PRNG, LinkBench's draw order)"
}

func (m *javaMode) dists() distributions.Mode { return m.dm }

func (*javaMode) withoutDataFile(path, why string) error {
	return &ConfigError{Key: "data_file", Value: path, Reason: "rng = java needs LinkBench's Distribution.dat" + why}
}

// loadPlan returns LinkBench's load (reference §5.1): master =
// SHA1PRNG(load_random_seed), one nextLong discarded; the node loader's
// Random (when generate_nodes) from the next nextLong, then the Random
// every chunk shares; the chunks of each database from the highest down.
func (m *javaMode) loadPlan(w *workload, seed int64) loadPlan {
	cfg := &w.cfg
	master := distributions.NewSHA1PRNG(seed)
	// Quirk §11.1-11 (the draw LinkBench spends on a debug message): kept.
	master.NextLong()
	var node *distributions.JavaRandom
	if cfg.GenerateNodes {
		node = distributions.NewJavaRandom(master.NextLong())
	}
	chunk := distributions.NewJavaRandom(master.NextLong())
	// Quirk §11.2-2 (straggler: chunks queued highest first, the giant
	// list late): kept in Java mode.
	p := &javaPlan{numChunks: w.numChunks(), dbs: int64(cfg.DBCount)}
	if h := m.hooks; h != nil {
		p.ranges = h.chunks
		if h.chunkSeed != nil {
			chunk = distributions.NewJavaRandom(*h.chunkSeed)
		}
		if h.nodeSeed != nil && node != nil {
			node = distributions.NewJavaRandom(*h.nodeSeed)
		}
	}
	if node != nil {
		p.nodeSrc = node
	}
	p.chunkSrc = chunk
	if cfg.Loaders > 1 {
		// java.util.Random is safe for concurrent use, one draw at a time:
		// loaders sharing it interleave their draws unpredictably (quirk
		// §11.2-24, kept in Java mode).
		p.chunkSrc = &lockedSource{r: chunk}
	}
	return p
}

// requesterSources returns the requesters' Randoms (reference §6.1):
// master = SHA1PRNG(request_random_seed), one nextLong discarded, then one
// nextLong per requester in order seeds requester i's Random, which
// discards one nextLong before its first request.
func (m *javaMode) requesterSources(w *workload, seed int64) []requestSource {
	master := distributions.NewSHA1PRNG(seed)
	master.NextLong() // Quirk §11.1-11 (debug-message draw): kept.
	s := make([]requestSource, w.cfg.Requesters)
	for i := range s {
		rs := master.NextLong()
		if h := m.hooks; h != nil && h.requesterSeed != nil {
			rs = h.requesterSeed(i)
		}
		jr := distributions.NewJavaRandom(rs)
		// Quirk §11.1-11 (the nextLong a requester spends on a debug message
		// at start): kept in Java mode.
		jr.Uint64()
		s[i] = &javaSource{JavaRandom: jr, thresholds: &w.thresholds}
	}
	return s
}

func (*javaMode) dbShares(cfg *Config) []float64 {
	cum := make([]float64, cfg.DBCount)
	sum := 0.0
	for d := range cum {
		if len(cfg.DBLoad) > 0 {
			sum += cfg.DBLoad[d]
		} else {
			// LinkBench's equal shares: 100/dbcount in integer arithmetic,
			// the last one raised to 100.
			sum = float64(100 / cfg.DBCount * (d + 1))
		}
		cum[d] = sum
	}
	if len(cfg.DBLoad) == 0 {
		cum[len(cum)-1] = 100
	}
	return cum
}

func (*javaMode) newHistory() listHistory {
	// Quirk §11.2-15 (history cache keeps stale index keys): kept in Java mode.
	return &staleHistory{history{index: make(map[histKey]int)}}
}

// loadPlan is how a load is cut and drawn: its chunks in the order the
// loaders take them, the random source of each chunk and of each
// database's nodes, and the count row of a list with repeated id2s.
type loadPlan interface {
	// len returns the number of chunks, all databases together.
	len() int64
	// chunk returns the k-th chunk to load (0 <= k < len): chunk c of
	// database db, the id1s [lo, hi).
	chunk(cfg *Config, k int64) (db int, c, lo, hi int64)
	// startChunk sets ll's source for chunk c of database db.
	startChunk(ll *linkLoader, db int, c int64)
	// nodeSource returns the source of the nodes of chunk c (the ids
	// startid1 + c*loader_chunk_size ..) of database db, generated with
	// gen; the node loader asks for it at each chunk, in ascending order.
	nodeSource(db int, c int64, gen distributions.DataGen) distributions.Source
	// countRow returns the count and time of the count row of a list of k
	// links, distinct of them with distinct id2s, the newest at newest and
	// the newest of those that remain at newestKept.
	countRow(k, distinct, newest, newestKept int64) (count, time int64)
}

// fastPlan is the fast mode's load: each chunk of links and each chunk of
// nodes draw from their own stream, so the data depends neither on
// scheduling nor on which process (shard) loads it.
type fastPlan struct {
	seed  uint64
	order *chunkOrder
	dbs   int64
	// shard of shards: the plan holds the positions k of the whole
	// load's order with k % shards == shard (round robin, so that the
	// heaviest chunks, first in the order, go to different shards).
	shard, shards int64
}

func (p *fastPlan) len() int64 {
	total := p.order.len() * p.dbs
	return (total - p.shard + p.shards - 1) / p.shards
}

func (p *fastPlan) chunk(cfg *Config, k int64) (db int, c, lo, hi int64) {
	k = k*p.shards + p.shard // the position in the whole load's order
	db, c = int(k/p.order.len()), p.order.at(k%p.order.len())
	lo = cfg.StartID1 + c*cfg.LoaderChunkSize
	return db, c, lo, min(lo+cfg.LoaderChunkSize, cfg.MaxID1)
}

func (p *fastPlan) startChunk(ll *linkLoader, db int, c int64) {
	ll.src = newOwnedRand(p.seed, streamLinkChunk, uint64(db)<<40|uint64(c))
	// Each chunk rebuilds the generator's lazy state from its own stream.
	ll.gen.Reset()
}

func (p *fastPlan) nodeSource(db int, c int64, gen distributions.DataGen) distributions.Source {
	// Each chunk of nodes rebuilds the generator's lazy state from its own
	// stream: a shard loading every N-th chunk writes what one process
	// writes.
	gen.Reset()
	return newOwnedRand(p.seed, streamNodes, uint64(db)<<40|uint64(c))
}

func (*fastPlan) countRow(_, distinct, _, newestKept int64) (count, time int64) {
	// Quirk §11.2-27 (with randomid2max > 0 the count row says how many
	// links were generated, repeats included): fixed in fast mode.
	return distinct, newestKept
}

// javaPlan is LinkBench's load: one Random for the nodes of every
// database, one shared by every chunk, and one payload generator per
// loader whose motif buffer the first fill builds.
type javaPlan struct {
	numChunks, dbs int64 // chunks per database, databases
	ranges         [][2]int64
	chunkSrc       distributions.Source
	nodeSrc        distributions.Source // nil without generate_nodes
}

func (p *javaPlan) len() int64 {
	if p.ranges != nil {
		return int64(len(p.ranges))
	}
	return p.numChunks * p.dbs
}

func (p *javaPlan) chunk(cfg *Config, k int64) (db int, c, lo, hi int64) {
	if p.ranges != nil { // test hook: given id1 ranges of database 0
		return 0, k, p.ranges[k][0], p.ranges[k][1]
	}
	// LinkBench's queues: per database, highest chunk first.
	db, c = int(k/p.numChunks), p.numChunks-1-k%p.numChunks
	lo = cfg.StartID1 + c*cfg.LoaderChunkSize
	return db, c, lo, min(lo+cfg.LoaderChunkSize, cfg.MaxID1)
}

func (p *javaPlan) startChunk(ll *linkLoader, _ int, _ int64) { ll.src = p.chunkSrc }

func (p *javaPlan) nodeSource(_ int, _ int64, _ distributions.DataGen) distributions.Source {
	// One Random and one generator continue across databases.
	return p.nodeSrc
}

func (*javaPlan) countRow(k, _, newest, _ int64) (count, time int64) {
	// Quirk §11.2-27: kept in Java mode (its count rows are LinkBench's
	// store calls).
	return k, newest
}

// requestSource is a requester's random source, with the draws its mode
// makes its own way: the database, the send time and the operation.
type requestSource interface {
	// source returns the source itself, for the distributions and payload
	// generators (which recognise its concrete type).
	source() distributions.Source
	// pickDB draws the database of a request from the cumulative shares
	// cum (percent) of two databases or more: one draw.
	pickDB(cum []float64) int
	// sendGap draws the time to the next send, ns, at rateNs requests per
	// ns (exponential inter-arrival times: Poisson arrivals).
	sendGap(rateNs float64) int64
	// pickOp draws the operation: an index of requestOps, or noOp.
	pickOp() (op int, noOp bool)
}

// fastSource is the fast mode's requester source.
type fastSource struct {
	*rand.Rand
	pick  *[numRequestOps]float64 // the workload's pick thresholds
	start *[opBuckets]uint8       // and their opStarts table
}

func (s *fastSource) source() distributions.Source { return s.Rand }

// pickDB returns the first database whose cumulative share is > x.
func (s *fastSource) pickDB(cum []float64) int {
	db, x := 0, s.Float64()*100
	for db < len(cum)-1 && x >= cum[db] {
		db++
	}
	return db
}

// sendGap is round(-ln(1-U)/rate): 1-U avoids ln(0).
func (s *fastSource) sendGap(rateNs float64) int64 {
	return int64(math.Round(-math.Log(1-s.Float64()) / rateNs))
}

// pickOp draws the operation: the first whose cumulative share exceeds
// U*100 (strictly, so that an operation with share 0 is never chosen; the
// last operation with a share takes every draw above the shares before it,
// whatever rounding did to the sum). The search starts at the first
// threshold that can exceed U*100 for U's bucket (opStarts), so it
// usually makes one comparison.
func (s *fastSource) pickOp() (int, bool) {
	return opFor(s.Float64(), s.pick, s.start), false
}

// javaSource is the Java mode's requester source: LinkBench's Random.
type javaSource struct {
	*distributions.JavaRandom
	thresholds *[numRequestOps]float64 // the mix's cumulative shares
}

func (s *javaSource) source() distributions.Source { return s.JavaRandom }

// pickDB returns the first database whose cumulative share is >= x.
func (s *javaSource) pickDB(cum []float64) int {
	db, x := 0, s.Float64()*100
	for db < len(cum)-1 && x > cum[db] {
		db++
	}
	return db
}

// sendGap is LinkBench's Math.round(-ln(U) / rate), U = nextDouble.
func (s *javaSource) sendGap(rateNs float64) int64 {
	return javaRound(-math.Log(s.Float64()) / rateNs)
}

// pickOp draws the operation as LinkBench does (reference §6.4): the
// first whose cumulative share c satisfies U*100 <= c (inclusive, so an
// operation of share 0 is chosen when U*100 equals the previous share);
// noOp when U*100 exceeds the last cumulative share.
func (s *javaSource) pickOp() (int, bool) {
	return javaOpFor(s.Float64()*100, s.thresholds)
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
