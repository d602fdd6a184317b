package linkbench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
)

// ErrLoadVerify is returned (wrapped) when the node table does not hold
// exactly the ids startid1..maxid1-1 after a load.
var ErrLoadVerify = errors.New("load verification failed")

// Load runs LinkBench's load phase (reference §5) against st: one node
// loader writing nodes startid1..maxid1-1 of every database (when
// generate_nodes is set), and `loaders` link loaders that generate, for
// every id1 in [startid1, maxid1), its out-links of every link type (the
// out-degree model of nlinks_func, split per type as the reference's §5.4
// says) with log-normal payload sizes and Motif or Uniform payloads.
//
// The id1 range is cut into chunks of loader_chunk_size ids that loaders
// take from a shared counter, the chunks that hold the largest adjacency
// lists first (so that the giant list of the real out-degree does not
// finish last: the fix of reference §11.2-2). Each chunk draws from its own
// random stream rand.New(seed, chunk): the loaded data is a pure function of
// the configuration and load_random_seed, whatever the number of loaders
// and their timing. The nodes are drawn likewise, a stream per chunk of
// loader_chunk_size ids. With Config.Shard (I/N), Load writes shard I's
// share (see Shard): the N shards write the rows one Load writes, with the
// same Config.StartAt (the rows' times; the clock without it). A shard
// does not call ResetNodeStore nor check the node table after its load.
//
// With rng = java (Config.RNG == RNGJava) the load draws instead as
// LinkBench does (reference §5.1-§5.5, Appendix A.2 and B): a SHA1PRNG
// master seeded with load_random_seed, whose first nextLong is discarded,
// gives the node loader new Random(master.nextLong()) when generate_nodes
// is set, then one new Random(master.nextLong()) that all chunks share;
// chunks are taken in LinkBench's order (each database's chunks from the
// highest id down), each loader keeps one payload generator whose motif
// buffer is built by the first fill, and each link draws its id2 (when
// randomid2max > 0), size, payload and time in that order. As in Java, such
// a load is reproducible only with loaders = 1: with more, loaders race for
// chunks and for the shared generator (quirk §11.2-24, kept in this mode).
//
// When st implements store.BulkLinkLoader (store.BulkNodeLoader), links
// and count rows (nodes) are sent in batches of bulk_insert_count rows,
// never an empty batch; otherwise AddLink (AddNode) is called per row.
// With randomid2max > 0 an id1's id2s are drawn with replacement, and a
// repeated id2 overwrites the earlier link (stores upsert): the count row
// holds the number of distinct id2s (and the newest time among the links
// that remain), and the report counts distinct links. (With rng = java the
// count row holds the number of links generated, as LinkBench's does.)
// After the node load, a store implementing store.Checker is asked for its
// node count and id range, which must be exactly the loaded ids.
//
// The returned report has one histogram per load operation (LOAD_NODE_BULK,
// LOAD_LINKS_BULK, LOAD_COUNTS_BULK, or LOAD_LINK for row-by-row loads),
// the rows written and the elapsed time. Errors: *ConfigError for bad
// configuration (before anything is written), the first store error
// (wrapped, with the operation) otherwise, ErrLoadVerify, or ctx's error.
// On error the report covers what was done and may be nil for config errors.
func Load(ctx context.Context, cfg Config, st store.Store) (*stats.Report, error) {
	w, err := prepare(cfg, false)
	if err != nil {
		return nil, err
	}
	c := startCounters(st)
	rep, err := w.load(ctx, st)
	c.finish(rep)
	return rep, err
}

// shardIDs is the number of ids of one database whose links and nodes
// the shard loads (w.n without shards).
func (w *workload) shardIDs() int64 {
	sh, size := w.cfg.Shard, w.cfg.LoaderChunkSize
	if !sh.Sharded() {
		return w.n
	}
	var n int64
	for c := int64(sh.Index); c < w.numChunks(); c += int64(sh.Count) {
		n += min(size, w.n-c*size)
	}
	return n
}

// loadNow is the wall clock the loaded rows' times come from: the
// measured window's start when Config.StartAt is set (the same in every
// shard), else the clock (Config.Now).
func (w *workload) loadNow() time.Time {
	if !w.cfg.StartAt.IsZero() {
		return w.cfg.StartAt
	}
	return w.cfg.now()
}

// numChunks is the number of chunks of one database's id1 range.
func (w *workload) numChunks() int64 {
	return (w.n + w.cfg.LoaderChunkSize - 1) / w.cfg.LoaderChunkSize
}

// load runs the load phase of the prepared workload w against st: the
// mode's plan, the loaders and the node loader on sessions of their own,
// then the report and the node check.
func (w *workload) load(ctx context.Context, st store.Store) (*stats.Report, error) {
	cfg := &w.cfg
	stores, dbNames, err := dbStores(ctx, cfg, st)
	if err != nil {
		return nil, err
	}
	seed := resolveSeed(cfg.LoadRandomSeed)
	log := cfg.logger()
	// Quirk §11.2-26 (single-association mode when maxid1 = startid1 + 1,
	// with null payloads and inconsistent ids): fixed in both modes, such a
	// graph is loaded and requested like any other.
	plan := w.mode.loadPlan(w, seed)
	if cfg.Shard.Sharded() && plan.len() == 0 {
		log.Warn(fmt.Sprintf("shard %s gets no chunk of id1s (the graph has %d): it loads nothing (use fewer shards or a smaller loader_chunk_size)",
			cfg.Shard, w.numChunks()*int64(cfg.DBCount)),
			"shard", cfg.Shard.String(), "loader_chunk_size", cfg.LoaderChunkSize, "maxid1", cfg.MaxID1)
	}
	// Quirk §11.2-5 (histograms shared between threads without locking):
	// fixed in both modes, one recorder per worker, into a collector whose
	// histograms it updates under a lock, a batch of values at a time.
	col, err := newCollector(cfg)
	if err != nil {
		return nil, err
	}
	nodeWorkers := 0
	if cfg.GenerateNodes {
		nodeWorkers = 1
	}
	// Each loader works on sessions of its own (store.OpenSession): with
	// the SQL stores, connections it owns for the whole phase, as each of
	// LinkBench's loaders owns its store object.
	sessions, closeSessions, err := workerSessions(ctx, stores, cfg.Loaders+nodeWorkers)
	if err != nil {
		return nil, err
	}
	defer closeSessions()
	loaders, nl, err := w.newLoaders(seed, plan, sessions, col)
	if err != nil {
		return nil, err
	}

	if err := waitStart(ctx, cfg, "load"); err != nil {
		return nil, err
	}
	if tr := traceOf(st); tr != nil {
		tr.Comment(fmt.Sprintf("load load_random_seed=%d rng=%s loaders=%d maxid1=%d", seed, rngName(cfg.RNG), cfg.Loaders, cfg.MaxID1))
	}
	log.Info("starting load", "loaders", cfg.Loaders, "generate_nodes", cfg.GenerateNodes,
		"maxid1", cfg.MaxID1, "load_random_seed", seed, "out-degree", w.outDegreeSource)
	prog := &loadProgress{total: w.n * int64(cfg.DBCount), interval: cfg.LoadProgressInterval, log: log}
	if cfg.Shard.Sharded() { // the id1s of the shard's chunks
		prog.total = 0
		for k := range plan.len() {
			_, _, lo, hi := plan.chunk(cfg, k)
			prog.total += hi - lo
		}
	}
	start := cfg.now()
	prog.start = start
	// The rows expected (0: unknown) give the progress reports their
	// estimate of the time left: the share of the id1 range done says
	// little when one chunk holds most of the links (the real out-degree).
	var expected int64
	if e, err := EstimateGraph(*cfg); err == nil {
		expected = e.Links + e.Lists + e.Nodes
	}
	mon := startMonitor(cfg, stats.PhaseLoad, col, nil, time.Now(), func() (done, total, rows, exp int64) {
		rows = prog.committed.Load()
		if nl != nil {
			rows += nl.loaded.Load()
		}
		return prog.id1s.Load(), prog.total, rows, expected
	}, nil, nil)
	runErr := w.runLoaders(ctx, plan, loaders, nl, prog)
	elapsed := cfg.now().Sub(start)
	mon.stop()

	rep := col.Report(stats.PhaseLoad)
	rep.Start, rep.Elapsed = start, elapsed
	rep.Load = w.loadTotals(loaders, nl)
	w.describe(rep, seed, "load_random_seed")
	if runErr != nil {
		rep.Status = stats.Failed
		if ctx.Err() != nil {
			rep.Status = stats.Interrupted
		}
		return rep, runErr
	}
	if nl != nil && !cfg.Shard.Sharded() { // a shard's nodes are a part of the table: -verify after all shards
		if err := verifyNodes(ctx, cfg, stores, dbNames); err != nil {
			return rep, err
		}
	}
	log.Info("load phase completed", "nodes", rep.Load.Nodes, "links", rep.Load.Links, "counts", rep.Load.Counts,
		"seconds", elapsed.Seconds())
	return rep, nil
}

// newLoaders builds the link loaders (loader i on sessions[i]) and, with
// generate_nodes, the node loader (on the last sessions), each recording
// into a recorder of its own.
func (w *workload) newLoaders(seed int64, plan loadPlan, sessions [][]store.Store, col *stats.Collector) ([]*linkLoader, *nodeLoader, error) {
	cfg := &w.cfg
	loaders := make([]*linkLoader, cfg.Loaders)
	for i := range loaders {
		ll, err := newLinkLoader(w, plan, sessions[i], col.NewRecorder())
		if err != nil {
			return nil, nil, err
		}
		for d, s := range sessions[i] {
			if b, ok := store.AsBulkLinkLoader(s); ok {
				if ll.bulkLinks == nil {
					ll.bulkLinks = make([]store.BulkLinkLoader, len(sessions[i]))
				}
				ll.bulkLinks[d] = b
			}
		}
		loaders[i] = ll
	}
	if !cfg.GenerateNodes {
		return loaders, nil, nil
	}
	nl, err := newNodeLoader(w, plan, sessions[cfg.Loaders], col.NewRecorder())
	if err != nil {
		return nil, nil, err
	}
	return loaders, nl, nil
}

// runLoaders runs the loaders, which take the plan's chunks from a shared
// counter, and the node loader, until all are done or one fails.
//
// The loaders stop between store calls when ctx is done (or a loader
// failed), but the call under way is let finish, for grace_time at most,
// so that a batch the database commits is a batch the report counts (a
// call cut short may have committed without the loader knowing).
func (w *workload) runLoaders(ctx context.Context, plan loadPlan, loaders []*linkLoader, nl *nodeLoader, prog *loadProgress) error {
	cfg := &w.cfg
	total := plan.len()
	var next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	callCtx, cancelCalls := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelCalls()
	stopGrace := context.AfterFunc(gctx, func() { time.AfterFunc(cfg.GraceTime, cancelCalls) })
	defer stopGrace()
	for i, ll := range loaders {
		ll.stop, ll.committed = gctx, &prog.committed
		g.Go(func() error {
			gctx := withWorker(callCtx, stats.PhaseLoad, i)
			for {
				k := next.Add(1) - 1
				if k >= total {
					return ll.flush(gctx)
				}
				if err := ll.stop.Err(); err != nil {
					return err
				}
				db, c, lo, hi := plan.chunk(cfg, k)
				if err := ll.chunk(gctx, db, c, lo, hi); err != nil {
					return err
				}
				prog.update(hi-lo, ll.chunkLinks, ll.chunkCounts)
			}
		})
	}
	if nl != nil {
		nl.stop = gctx
		g.Go(func() error { return nl.run(withWorker(callCtx, stats.PhaseLoad, cfg.Loaders)) })
	}
	return g.Wait()
}

// loadTotals adds up the rows the loaders wrote.
func (w *workload) loadTotals(loaders []*linkLoader, nl *nodeLoader) *stats.LoadTotals {
	// Quirk §11.2-23 (expected nodes ignore dbcount): fixed in both modes.
	totals := &stats.LoadTotals{ExpectedNodes: w.shardIDs() * int64(w.cfg.DBCount)}
	if !w.cfg.GenerateNodes {
		totals.ExpectedNodes = 0
	}
	for _, ll := range loaders {
		// Links whose id2 repeats one of their list (randomid2max > 0)
		// overwrite it: they are not counted.
		totals.Links += max(ll.linksLoaded-ll.repeats, 0)
		totals.Counts += ll.countsLoaded
	}
	if nl != nil {
		totals.Nodes = nl.loaded.Load()
	}
	return totals
}

// verifyNodes checks, for stores implementing store.Checker, that each
// database holds exactly the nodes startid1..maxid1-1.
func verifyNodes(ctx context.Context, cfg *Config, stores []store.Store, names []string) error {
	want := store.NodeStats{Count: cfg.MaxID1 - cfg.StartID1, MinID: cfg.StartID1, MaxID: cfg.MaxID1 - 1}
	for i, s := range stores {
		ch, ok := store.AsChecker(s)
		if !ok {
			continue
		}
		got, err := ch.NodeStats(ctx)
		if err != nil {
			return fmt.Errorf("verify nodes of %s: %w", names[i], err)
		}
		if got != want {
			return fmt.Errorf("%w: database %s holds %d nodes with ids %d..%d, want %d nodes %d..%d",
				ErrLoadVerify, names[i], got.Count, got.MinID, got.MaxID, want.Count, want.MinID, want.MaxID)
		}
	}
	return nil
}

// chunkOrder lists the chunks of one database: first the chunks holding
// the heaviest out-degree ranks, then all others in ascending order.
type chunkOrder struct {
	n      int64   // number of chunks
	heavy  []int64 // distinct chunks, heaviest first
	sorted []int64 // heavy, ascending
}

// heavyRanks is how many of the largest adjacency lists are scheduled
// first. The real out-degree gives rank 0 about 4.2 M links and rank 1
// about 0.45 M; rank 64 has under 20 K.
const heavyRanks = 64

func newChunkOrder(w *workload, numChunks int64) *chunkOrder {
	o := &chunkOrder{n: numChunks}
	if !w.outDegree.Shuffled() {
		return o // arithmetic models: the heaviest ids are not known in advance, and they are small
	}
	sh, err := distributions.NewInvertibleShuffler(distributions.ShuffleSeedLinks, distributions.ShuffleGroups, w.n)
	if err != nil {
		return o
	}
	seen := map[int64]bool{}
	for r := int64(0); r < min(heavyRanks, w.n); r++ {
		c := sh.Permute(r) / w.cfg.LoaderChunkSize
		if !seen[c] {
			seen[c] = true
			o.heavy = append(o.heavy, c)
		}
	}
	o.sorted = slices.Clone(o.heavy)
	slices.Sort(o.sorted)
	return o
}

func (o *chunkOrder) len() int64 { return o.n }

// at returns the k-th chunk to load, 0 <= k < n.
func (o *chunkOrder) at(k int64) int64 {
	if k < int64(len(o.heavy)) {
		return o.heavy[k]
	}
	// The (k-len(heavy))-th chunk that is not heavy: walk past the heavy
	// chunks at or below the candidate (there are at most heavyRanks).
	c := k - int64(len(o.heavy))
	for _, h := range o.sorted {
		if h <= c {
			c++
		}
	}
	return c
}

// loadProgress logs LinkBench's load progress line when the loaded-links
// total crosses a multiple of load_progress_interval or all id1s are done.
type loadProgress struct {
	total, interval   int64
	id1s, links, cnts atomic.Int64 // per finished chunk (LinkBench's lines)
	committed         atomic.Int64 // link and count rows, per committed batch (the progress reports)
	start             time.Time
	log               interface {
		Info(msg string, args ...any)
	}
}

func (p *loadProgress) update(id1s, links, counts int64) {
	done := p.id1s.Add(id1s)
	l := p.links.Add(links)
	c := p.cnts.Add(counts)
	crossed := p.interval > 0 && l/p.interval != (l-links)/p.interval
	if !crossed && done != p.total {
		return
	}
	secs := time.Since(p.start).Seconds()
	if secs <= 0 {
		secs = math.SmallestNonzeroFloat64
	}
	p.log.Info(fmt.Sprintf("%d/%d id1s (%.1f%%) at %.1f /sec. %d links at %.1f /sec. %d counts at %.1f /sec. link+count at %.1f /sec.",
		done, p.total, 100*float64(done)/float64(p.total), float64(done)/secs, l, float64(l)/secs,
		c, float64(c)/secs, float64(l+c)/secs))
}

// linkLoader is one link-loading worker (LinkBench's LinkBenchLoad thread).
type linkLoader struct {
	_         cacheLinePad // written per link: off another loader's lines
	w         *workload
	plan      loadPlan
	stores    []store.Store
	bulkLinks []store.BulkLinkLoader // per db; nil entries: row-by-row
	rec       *stats.Recorder
	chooser   *distributions.ID2Chooser
	gen       distributions.DataGen
	batchSize int

	// src is the random source of the current chunk (the plan's): its own
	// stream in fast mode, the source all chunks share in Java mode.
	src distributions.Source

	// Per-chunk state.
	db         int
	nowMs      int64
	chunkLinks int64
	// chunkCounts counts the count rows generated in the chunk.
	chunkCounts int64

	// Buffers, reused: links and counts of the current database.
	links    []store.Link
	counts   []store.LinkCount
	linksDB  int
	perType  []int64 // link counts per type of the current id1
	typeTime []int64 // newest link time per type of the current id1
	oneLink  store.Link
	drawn    []drawnLink // randomid2max > 0: the id2s and times of the current list

	linksLoaded, countsLoaded int64
	// stop is done when the loader must stop (between store calls; the
	// calls' own context ends grace_time later); committed counts the rows
	// of every committed call, for the progress reports.
	stop      context.Context
	committed *atomic.Int64
	// repeats counts the links whose id2 repeated an earlier one of their
	// (id1, link_type) (randomid2max > 0): stores upsert them.
	repeats int64
	_       cacheLinePad // off the next loader's lines
}

func newLinkLoader(w *workload, plan loadPlan, stores []store.Store, rec *stats.Recorder) (*linkLoader, error) {
	ch, err := w.id2Chooser(1, 1)
	if err != nil {
		return nil, err
	}
	gen, err := newDataGen("link_add_datagen", w.cfg.LinkAddData)
	if err != nil {
		return nil, err
	}
	bs := w.cfg.BulkInsertCount
	return &linkLoader{
		w: w, plan: plan, stores: stores, rec: rec, chooser: ch, gen: gen, batchSize: bs,
		links:    make([]store.Link, 0, bs),
		counts:   make([]store.LinkCount, 0, bs),
		perType:  make([]int64, 0, w.cfg.LinkTypeCount),
		typeTime: make([]int64, w.cfg.LinkTypeCount),
	}, nil
}

// chunk generates and stores the links of id1s [lo, hi) of database db.
func (ll *linkLoader) chunk(ctx context.Context, db int, c, lo, hi int64) error {
	if db != ll.linksDB {
		// Batches never mix databases.
		if err := ll.flush(ctx); err != nil {
			return err
		}
		ll.linksDB = db
	}
	ll.db = db
	// Fast mode: the chunk's own stream, from which the generator rebuilds
	// its lazy state; Java mode: the shared source, and one generator per
	// loader whose motif buffer the first fill built, as in LinkBench.
	ll.plan.startChunk(ll, db, c)
	ll.nowMs = ll.w.loadNow().UnixMilli()
	ll.chunkLinks, ll.chunkCounts = 0, 0
	for id1 := lo; id1 < hi; id1++ {
		if err := ll.id1(ctx, id1); err != nil {
			return err
		}
	}
	return nil
}

// id1 generates the out-links of one id1 (LinkBench's createOutLinks): for
// each link type in ascending order, the links j = 0..k-1 with their id2,
// payload and time drawn in LinkBench's order (reference Appendix B).
func (ll *linkLoader) id1(ctx context.Context, id1 int64) error {
	w := ll.w
	// Quirk §11.1-4 (default rules drop the remainder of tot/ltc and give
	// every type a link; legacy rules over-allocate): kept in both modes.
	ll.perType = ll.chooser.LinkCounts(id1, ll.perType[:0])
	bulk := ll.bulkLinks != nil && ll.bulkLinks[ll.db] != nil
	randomID2 := w.cfg.RandomID2Max > 0
	for t, k := range ll.perType {
		linkType := store.DefaultLinkType + int64(t)
		ll.chunkLinks += k
		var newest int64 = math.MinInt64
		ll.drawn = ll.drawn[:0]
		for j := int64(0); j < k; j++ {
			var l *store.Link
			if bulk {
				if len(ll.links) == cap(ll.links) {
					if err := ll.flushLinks(ctx); err != nil {
						return err
					}
				}
				ll.links = ll.links[:len(ll.links)+1]
				l = &ll.links[len(ll.links)-1]
			} else {
				l = &ll.oneLink
			}
			l.ID1, l.LinkType, l.Visibility, l.Version = id1, linkType, store.VisibilityDefault, 0
			// Draw order of reference Appendix B: [id2], size, payload, time.
			l.ID2 = ll.chooser.ChooseForLoad(ll.src, id1, linkType, j)
			size := int(w.linkSize.Choose(ll.src))
			l.Data = ll.gen.Fill(ll.src, grow(l.Data, size))
			// Quirk §11.1-8 (load times now - 2^31 + nextInt(), up to ~49.7
			// days back): kept in both modes.
			l.Time = ll.nowMs - (1 << 31) + int64(int32(ll.src.Uint32()))
			newest = max(newest, l.Time)
			if randomID2 {
				ll.drawn = append(ll.drawn, drawnLink{l.ID2, l.Time})
			}
			if !bulk {
				if err := ll.addLink(ctx, l); err != nil {
					return err
				}
			}
		}
		count := k
		if randomID2 && k > 1 {
			// Repeated id2s collapse into one link (the last one written).
			distinct, newestKept := distinctLinks(ll.drawn)
			ll.repeats += k - distinct
			ll.chunkLinks -= k - distinct
			// Quirk §11.2-27 (with randomid2max > 0 the count row says how
			// many links were generated, repeats included, so it exceeds the
			// visible links): kept in Java mode (its count rows are
			// LinkBench's store calls), fixed in fast mode.
			count, newest = ll.plan.countRow(k, distinct, newest, newestKept)
		}
		if bulk && k > 0 {
			if len(ll.counts) == cap(ll.counts) {
				if err := ll.flushCounts(ctx); err != nil {
					return err
				}
			}
			ll.counts = append(ll.counts, store.LinkCount{ID1: id1, LinkType: linkType, Time: newest, Count: count})
			ll.chunkCounts++
		}
	}
	return nil
}

func (ll *linkLoader) addLink(ctx context.Context, l *store.Link) error {
	if err := ll.stop.Err(); err != nil {
		return err
	}
	// Quirk §11.2-1 (load latencies in ns where us were expected): fixed in
	// both modes (microseconds everywhere).
	t0 := time.Now()
	_, err := ll.stores[ll.db].AddLink(ctx, *l, true)
	d := time.Since(t0)
	if err != nil && ctx.Err() == nil {
		ll.rec.RecordError(stats.LoadLink, errorClass(err), d)
	}
	if err != nil {
		// Quirk §11.2-11 (LinkBench exits the process on a load error, or
		// with never_change logs it and goes on): fixed in both modes, Load
		// stops and returns the error.
		return fmt.Errorf("load: AddLink id1=%d link_type=%d id2=%d: %w", l.ID1, l.LinkType, l.ID2, err)
	}
	ll.rec.Record(stats.LoadLink, stats.Success, d)
	ll.linksLoaded++
	ll.committed.Add(2) // the link and its count
	// Quirk §11.2-23 (one "count" per row-by-row link; LinkBench times only
	// the last link of each (id1, type)): the count kept in both modes, every
	// link timed in both modes (statistics only, not the streams).
	ll.countsLoaded++
	ll.chunkCounts++
	return nil
}

func (ll *linkLoader) flushLinks(ctx context.Context) error {
	if len(ll.links) == 0 {
		return nil
	}
	if err := ll.stop.Err(); err != nil {
		return err
	}
	n := len(ll.links)
	err := ll.batch(ctx, stats.LoadLinksBulk, stats.LoadLinksBulkNLinks, n, func() error {
		return ll.bulkLinks[ll.linksDB].AddBulkLinks(ctx, ll.links, true)
	})
	if err != nil {
		return fmt.Errorf("load: AddBulkLinks (%d links): %w", n, err)
	}
	ll.linksLoaded += int64(n)
	ll.committed.Add(int64(n))
	ll.links = ll.links[:0]
	return nil
}

func (ll *linkLoader) flushCounts(ctx context.Context) error {
	if len(ll.counts) == 0 {
		return nil
	}
	if err := ll.stop.Err(); err != nil {
		return err
	}
	n := len(ll.counts)
	err := ll.batch(ctx, stats.LoadCountsBulk, stats.LoadCountsBulkNLinks, n, func() error {
		return ll.bulkLinks[ll.linksDB].AddBulkCounts(ctx, ll.counts)
	})
	if err != nil {
		return fmt.Errorf("load: AddBulkCounts (%d counts): %w", n, err)
	}
	ll.countsLoaded += int64(n)
	ll.committed.Add(int64(n))
	ll.counts = ll.counts[:0]
	return nil
}

// batch times one bulk call of n rows and records its latency under op
// (an error only when not caused by cancellation) and, on success, its
// size under sizeOp.
func (ll *linkLoader) batch(ctx context.Context, op, sizeOp stats.Op, n int, call func() error) error {
	t0 := time.Now()
	err := call()
	d := time.Since(t0)
	switch {
	case err == nil:
		ll.rec.Record(op, stats.Success, d)
		ll.rec.RecordSize(sizeOp, int64(n))
	case ctx.Err() == nil:
		ll.rec.RecordError(op, errorClass(err), d)
	}
	// A bulk call is a round trip of many rows: its values go to the
	// collector now, into the progress interval it was made in (else they
	// would wait for a batch of values, an interval or more).
	ll.rec.Flush()
	return err
}

// flush sends the partial batches left at the end (or before switching
// database).
func (ll *linkLoader) flush(ctx context.Context) error {
	if ll.bulkLinks == nil || ll.bulkLinks[ll.linksDB] == nil {
		return nil
	}
	if err := ll.flushLinks(ctx); err != nil {
		return err
	}
	return ll.flushCounts(ctx)
}

// grow returns b resized to n bytes, reusing its capacity.
func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]byte, n, max(n, 2*cap(b)))
}

// nodeLoader is LinkBench's NodeLoader: one worker writing every node.
type nodeLoader struct {
	w      *workload
	plan   loadPlan // gives each database's source
	stores []store.Store
	rec    *stats.Recorder
	gen    distributions.DataGen
	nodes  []store.Node
	bytes  int64
	loaded atomic.Int64    // read by the progress monitor
	stop   context.Context // done when the loader must stop (see linkLoader.stop)
}

func newNodeLoader(w *workload, plan loadPlan, stores []store.Store, rec *stats.Recorder) (*nodeLoader, error) {
	gen, err := newDataGen("node_add_datagen", w.cfg.NodeAddData)
	if err != nil {
		return nil, err
	}
	return &nodeLoader{w: w, plan: plan, stores: stores, rec: rec, gen: gen,
		nodes: make([]store.Node, 0, w.cfg.BulkInsertCount)}, nil
}

func (nl *nodeLoader) run(ctx context.Context) error {
	cfg := &nl.w.cfg
	for db, st := range nl.stores {
		// A shard must not empty the node table the other shards load
		// into: the nodes' ids are explicit, and the tables start empty
		// (Run's CheckEmpty is the unsharded load's check).
		if !cfg.Shard.Sharded() {
			if err := st.ResetNodeStore(ctx, cfg.StartID1); err != nil {
				return fmt.Errorf("load: ResetNodeStore: %w", err)
			}
		}
		bulk, _ := store.AsBulkNodeLoader(st)
		// Fast mode: one stream per database. (Java mode: one Random and
		// one generator continue across databases, as in LinkBench.)
		nowSec := int32(nl.w.loadNow().Unix())
		// The nodes of every shards-th chunk of ids, from the shard's:
		// each chunk from its own source (fast mode).
		sh := cfg.Shard
		for c := int64(sh.Index); c < nl.w.numChunks(); c += int64(sh.count()) {
			rng := nl.plan.nodeSource(db, c, nl.gen)
			lo := cfg.StartID1 + c*cfg.LoaderChunkSize
			for id := lo; id < min(lo+cfg.LoaderChunkSize, cfg.MaxID1); id++ {
				if id&1023 == 0 {
					if err := nl.stop.Err(); err != nil {
						return err
					}
					nowSec = int32(nl.w.loadNow().Unix())
				}
				nl.nodes = nl.nodes[:len(nl.nodes)+1]
				n := &nl.nodes[len(nl.nodes)-1]
				size := int(nl.w.nodeSize.Choose(rng))
				n.ID, n.Type, n.Version, n.Time = id, store.DefaultNodeType, 1, nowSec
				n.Data = nl.gen.Fill(rng, grow(n.Data, size))
				nl.bytes += int64(size) + 24
				if len(nl.nodes) == cap(nl.nodes) || (cfg.BulkInsertKB > 0 && nl.bytes/1024 >= int64(cfg.BulkInsertKB)) {
					if err := nl.flush(ctx, st, bulk); err != nil {
						return err
					}
				}
			}
		}
		if err := nl.flush(ctx, st, bulk); err != nil {
			return err
		}
	}
	return nil
}

func (nl *nodeLoader) flush(ctx context.Context, st store.Store, bulk store.BulkNodeLoader) error {
	nl.bytes = 0
	// Quirk §11.2-8 (LinkBench's final flush sends an empty batch): fixed
	// in both modes (no store call; it draws nothing).
	if len(nl.nodes) == 0 {
		return nil
	}
	if err := nl.stop.Err(); err != nil {
		return err
	}
	t0 := time.Now()
	var err error
	if bulk != nil {
		err = bulk.AddBulkNodes(ctx, nl.nodes)
	} else {
		for _, n := range nl.nodes {
			var id int64
			if id, err = st.AddNode(ctx, n); err != nil {
				break
			}
			if id != n.ID {
				err = fmt.Errorf("%w: the store assigned node id %d where %d was expected (ResetNodeStore(%d) must make ids sequential)",
					ErrLoadVerify, id, n.ID, nl.w.cfg.StartID1)
				break
			}
		}
	}
	d := time.Since(t0)
	if err != nil && ctx.Err() == nil {
		nl.rec.RecordError(stats.LoadNodeBulk, errorClass(err), d)
	}
	if err != nil {
		return fmt.Errorf("load: nodes %d..%d: %w", nl.nodes[0].ID, nl.nodes[len(nl.nodes)-1].ID, err)
	}
	nl.rec.Record(stats.LoadNodeBulk, stats.Success, d)
	nl.rec.Flush() // into this progress interval (see linkLoader.batch)
	nl.loaded.Add(int64(len(nl.nodes)))
	nl.nodes = nl.nodes[:0]
	return nil
}
