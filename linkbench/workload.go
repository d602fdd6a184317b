package linkbench

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
)

// Random stream indices: every random source of a run is
// rand.New(seed, stream, ...), so that each is independent of the others
// and of scheduling.
const (
	streamLinkChunk uint64 = iota + 1 // (db<<40 | chunk): link generation of one chunk
	streamNodes                       // (db<<40 | chunk): node generation of one chunk of ids
	streamRequester                   // (requester): a requester's whole op stream
)

// workload is the prepared, immutable form of a Config: the distributions
// and choosers shared (read-only) by all workers of a phase.
type workload struct {
	cfg  Config
	mode runMode // the random mode (rng), chosen once by prepare
	n    int64   // maxid1 - startid1

	real *distributions.RealData // nil when no data file was read
	// builtinWhy, when not empty, says why real holds the built-in models
	// of Distribution.dat instead of the file's data.
	builtinWhy string
	outDegree  distributions.OutDegree
	// outDegreeSource says which out-degree is used, for reports.
	outDegreeSource string
	arithmetic      bool // outDegree is an arithmetic model (nlinks_func const, ...)

	linkSize *distributions.LogNormal
	nodeSize *distributions.LogNormal

	// Request phase only.
	read, readUncorr   *distributions.Access
	write, writeUncorr *distributions.Access
	blend              float64 // read_uncorr_blend/100, for reads and writes
	nodeRead           *distributions.Access
	nodeUpdate         *distributions.Access
	nodeDelete         *distributions.Access
	multiget           distributions.Distribution        // nil: one id2 per multiget
	thresholds         [numRequestOps]float64            // cumulative mix, LinkBench order
	pick               [numRequestOps]float64            // thresholds of the fast mode's pickOp (see buildMix)
	shuffler           *distributions.InvertibleShuffler // the out-degree shuffler all the workers' choosers share (nil: each builds its own)
	opStart            [opBuckets]uint8                  // pickOp's first candidate threshold per bucket of U
	pHistory           float64                           // getlinklist_history / 100
}

// keyError wraps a distributions.ParamError (or any error) as a
// ConfigError naming the LinkBench key it comes from (paramKey).
func keyError(prefix string, value string, err error) error {
	var pe *distributions.ParamError
	if errors.As(err, &pe) {
		return &ConfigError{Key: paramKey(prefix, pe.Param), Value: strings.Trim(pe.Value, `"`), Reason: pe.Reason}
	}
	return &ConfigError{Key: strings.TrimSuffix(prefix, "_"), Value: value, Reason: err.Error()}
}

// paramKey is the LinkBench key of a distributions parameter (a
// ParamError's Param: the constructor's own parameter name) read with the
// key prefix (read_, nlinks_, link_multiget_dist_, ...): the one place
// where the distributions' names meet the configuration's.
func paramKey(prefix, param string) string {
	switch param {
	case "kind":
		if prefix == "nlinks_" {
			return "nlinks_func"
		}
		return prefix + "function"
	case "mode", "od":
		return "nlinks_func"
	case "min", "max", "n":
		// The range of ids comes from startid1 and maxid1 (the multiget
		// size from link_multiget_dist_min/max).
		if prefix == "link_multiget_dist_" {
			return prefix + param
		}
		return "maxid1"
	case "real":
		return "data_file"
	case "vintage":
		return "data_vintage"
	case "StartID1":
		return "startid1"
	case "MaxID1":
		return "maxid1"
	case "LinkTypeCount":
		return "link_type_count"
	case "RandomID2Max":
		return "randomid2max"
	case "ID2GenConfig":
		return "id2gen_config"
	case "Requesters", "RequesterID":
		return "requesters"
	}
	return prefix + param
}

// Check validates cfg and builds every distribution the load phase (and,
// with request, the request phase) needs, reading the data file, without
// touching a store: the errors Load and Request would return for this
// configuration before sending anything (*ConfigError).
func Check(cfg Config, request bool) error {
	_, err := prepare(cfg, request)
	return err
}

// prepare validates cfg and builds what the phases need. forRequest also
// builds the request-phase distributions. Every error is a *ConfigError,
// naming where its key was set when ParseProperties read it.
func prepare(cfg Config, forRequest bool) (*workload, error) {
	w, err := prepareWorkload(cfg, forRequest)
	if err != nil {
		return nil, cfg.locate(err)
	}
	return w, nil
}

// prepareWorkload builds the workload of cfg in its steps: the mode, the
// data file and out-degree, the payload sizes, and for the request phase
// the access distributions, the multiget size and the operation mix.
func prepareWorkload(cfg Config, forRequest bool) (*workload, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &workload{cfg: cfg, mode: modeOf(cfg.RNG), n: cfg.MaxID1 - cfg.StartID1}
	if cfg.TotalRequestRate > 0 && cfg.Requesters > 0 {
		// The requesters share the total rate equally: each one's loop reads
		// its share as its requestrate.
		w.cfg.RequestRate = cfg.TotalRequestRate / float64(cfg.Requesters)
	}
	if w.needsRealData(forRequest) {
		if err := w.loadRealData(); err != nil {
			return nil, err
		}
	}
	if err := w.buildOutDegree(); err != nil {
		return nil, err
	}
	var err error
	if w.linkSize, err = distributions.NewLogNormal(0, store.MaxLinkData, cfg.LinkDataSize, 1); err != nil {
		return nil, keyError("link_datasize", fmt.Sprint(cfg.LinkDataSize), err)
	}
	if w.nodeSize, err = distributions.NewLogNormal(0, store.MaxNodeData, cfg.NodeDataSize, 1); err != nil {
		return nil, keyError("node_datasize", fmt.Sprint(cfg.NodeDataSize), err)
	}
	if !forRequest {
		return w, nil
	}
	if err := w.buildAccess(); err != nil {
		return nil, err
	}
	if cfg.MultigetDist.Set {
		d, err := w.mode.dists().Distribution(cfg.MultigetDist.Spec, cfg.MultigetDistMin, cfg.MultigetDistMax, w.real)
		if err != nil {
			return nil, keyError("link_multiget_dist_", cfg.MultigetDist.Function, err)
		}
		w.multiget = d
	}
	w.buildMix()
	if w.outDegree != nil && w.outDegree.Shuffled() {
		// One out-degree shuffler (immutable) for every worker's chooser.
		if c, err := w.mode.dists().ID2Chooser(distributions.ID2Config{StartID1: cfg.StartID1, MaxID1: cfg.MaxID1,
			LinkTypeCount: 1}, w.outDegree); err == nil {
			w.shuffler = c.Shuffler()
		}
	}
	w.pHistory = cfg.GetLinkListHistory / 100 // quirk §11.1-2: a percentage (kept)
	return w, nil
}

// accessConfigs are the access distributions a run uses: reads and
// writes, the uncorrelated ones when blended, the node ones when the mix
// has node operations.
func (c *Config) accessConfigs() []*DistConfig {
	access := []*DistConfig{&c.Read, &c.Write}
	if c.ReadUncorrBlend > 0 {
		access = append(access, &c.ReadUncorr)
	}
	if c.Mix.HasNodeOps() {
		access = append(access, &c.NodeRead, &c.NodeUpdate, &c.NodeDelete)
	}
	return access
}

// needsRealData reports whether the run reads the data file: a REAL
// out-degree (nlinks_func real, or the class RealDistribution) or, for the
// request phase, a REAL access distribution.
func (w *workload) needsRealData(forRequest bool) bool {
	cfg := &w.cfg
	if strings.EqualFold(cfg.NLinksFunc, "real") {
		return true
	}
	if forRequest {
		for _, d := range cfg.accessConfigs() {
			if d.Set && d.Spec.Kind == distributions.KindReal {
				return true
			}
		}
	}
	// A class-based out-degree names its class in nlinks_func (NLinks holds
	// only its parameters): com.facebook.LinkBench.RealDistribution reads
	// the data file too.
	kind, err := distributions.ParseKind(cfg.NLinksFunc)
	return err == nil && kind == distributions.KindReal
}

// buildAccess builds the request phase's access distributions.
func (w *workload) buildAccess() error {
	cfg := &w.cfg
	mk := func(kind distributions.AccessKind, prefix string, d DistConfig) (*distributions.Access, error) {
		if d.Set && d.Spec.Kind == distributions.KindReal && w.real == nil {
			return nil, &ConfigError{Key: prefix + "function", Value: d.Function, Reason: fmt.Sprintf(
				"needs LinkBench's Distribution.dat, and data_file (%q) was not found", cfg.DataFile)}
		}
		if !d.Set {
			return nil, &ConfigError{Key: prefix + "function", Reason: "must be set (a distribution class or " +
				"one of REAL, ROUND_ROBIN, RECIPROCAL, MULTIPLE, POWER, PERFECT_POWER)"}
		}
		// Quirk §11.1-7 (REAL access cursors shared by all threads): kept
		// in Java mode; fast mode samples REAL statelessly (fixed).
		a, err := w.mode.dists().Access(kind, d.Spec, cfg.StartID1, cfg.MaxID1, w.real)
		if err != nil {
			return nil, keyError(prefix, d.Function, err)
		}
		return a, nil
	}
	var err error
	if w.read, err = mk(distributions.LinkReads, "read_", cfg.Read); err != nil {
		return err
	}
	if w.write, err = mk(distributions.LinkWrites, "write_", cfg.Write); err != nil {
		return err
	}
	// Quirk §11.1-1 (write-uncorrelated keys read with the read_uncorr_
	// prefix, writes blended at read_uncorr_blend): kept in both modes.
	if cfg.ReadUncorrBlend > 0 {
		w.blend = cfg.ReadUncorrBlend / 100
		if w.readUncorr, err = mk(distributions.LinkReadsUncorr, "read_uncorr_", cfg.ReadUncorr); err != nil {
			return err
		}
		if w.writeUncorr, err = mk(distributions.LinkWritesUncorr, "read_uncorr_", cfg.ReadUncorr); err != nil {
			return err
		}
	}
	if cfg.Mix.HasNodeOps() {
		if w.nodeRead, err = mk(distributions.NodeReads, "node_read_", cfg.NodeRead); err != nil {
			return err
		}
		if w.nodeUpdate, err = mk(distributions.NodeUpdates, "node_update_", cfg.NodeUpdate); err != nil {
			return err
		}
		if w.nodeDelete, err = mk(distributions.NodeDeletes, "node_delete_", cfg.NodeDelete); err != nil {
			return err
		}
	}
	return nil
}

// buildMix computes the cumulative shares of the mix the operations are
// picked from (requestOps' order).
func (w *workload) buildMix() {
	sum := 0.0
	last := 0 // the last operation with a share
	for i, p := range w.cfg.Mix.shares() {
		sum += *p
		w.thresholds[i] = sum
		if *p > 0 {
			last = i
		}
	}
	// The fast mode picks only operations with a share: a draw above a
	// sum that rounding left below 100 goes to the last of them (Java mode
	// keeps LinkBench's thresholds and its failed no-op, javaSource.pickOp).
	w.pick = w.thresholds
	for i := last; i < len(w.pick); i++ {
		w.pick[i] = math.Inf(1)
	}
	w.opStart = opStarts(&w.pick)
}

// loadRealData reads cfg.DataFile. When it is empty, or LinkBench's
// default path that ParseProperties or ResolveDataFile did not find (an
// unresolved DefaultDataFile, which is never looked for here), the
// built-in model of the file stands in for it in fast mode; Java mode
// refuses both.
func (w *workload) loadRealData() error {
	path := w.cfg.DataFile
	if path == "" {
		if err := w.mode.withoutDataFile("", " (the built-in model does not reproduce LinkBench's draws)"); err != nil {
			return err
		}
		w.useBuiltin("no data_file")
		return nil
	}
	if path == DefaultDataFile {
		// LinkBench's default, not found by ParseProperties or
		// ResolveDataFile (which store the path they find): the library
		// never looks for it in the working directory on its own.
		if err := w.mode.withoutDataFile(path, ", and "+DefaultDataFile+" was not found (give its path)"); err != nil {
			return err
		}
		w.useBuiltin("data_file " + path + " not found")
		return nil
	}
	d, err := loadDataFile(path)
	if err != nil {
		return dataFileError(path, path, err)
	}
	w.real = d
	return nil
}

// useBuiltin makes the built-in models of Distribution.dat (of the
// data_vintage) stand in for the file, saying why in reports.
func (w *workload) useBuiltin(why string) {
	w.real = distributions.BuiltinRealData(w.cfg.DataVintage)
	w.builtinWhy = why
}

func (w *workload) buildOutDegree() error {
	cfg := &w.cfg
	min, max := cfg.StartID1, cfg.MaxID1
	fn := strings.ToLower(cfg.NLinksFunc)
	switch {
	case fn == "real":
		if w.real == nil || !w.real.Has(distributions.SectionNLinks) {
			return &ConfigError{Key: "data_file", Value: cfg.DataFile, Reason: "has no nlinks section"}
		}
		// Quirk §11.1-5 (the rank-0 id1 gets the file's largest out-degree,
		// whatever maxid1): kept in both modes.
		od, err := w.real.OutDegree(min, max)
		if err != nil {
			return &ConfigError{Key: "data_file", Value: cfg.DataFile, Reason: err.Error()}
		}
		w.outDegree = od
		w.outDegreeSource = "real distribution nlinks from " + cfg.DataFile
		if w.builtinWhy != "" {
			w.outDegreeSource = fmt.Sprintf("built-in model of the %s Distribution.dat nlinks (%s)", cfg.DataVintage, w.builtinWhy)
		}
		return nil
	case slices.Contains(arithmeticModes, fn):
		od, err := w.arithmeticOutDegree()
		if err != nil {
			return err
		}
		w.outDegree = od
		w.outDegreeSource = od.Describe()
		w.arithmetic = true
		return nil
	}
	kind, err := distributions.ParseKind(cfg.NLinksFunc)
	if err != nil {
		return &ConfigError{Key: "nlinks_func", Value: cfg.NLinksFunc, Reason: "must be " + nlinksFuncAllowed + ": " + err.Error()}
	}
	spec := cfg.NLinks.Spec
	spec.Kind = kind
	od, err := distributions.NewClassOutDegree(spec, min, max, w.real)
	if err != nil {
		return keyError("nlinks_", cfg.NLinksFunc, err)
	}
	w.outDegree = od
	w.outDegreeSource = od.Describe()
	return nil
}

// arithmeticOutDegree builds the arithmetic out-degree model of
// nlinks_func (Java mode: LinkBench's arithmetic, quirk §11.2-14 kept;
// fast mode: fixed).
func (w *workload) arithmeticOutDegree() (distributions.OutDegree, error) {
	cfg := &w.cfg
	od, err := w.mode.dists().ArithmeticOutDegree(strings.ToLower(cfg.NLinksFunc), cfg.NLinksDefault, cfg.NLinksConfig, cfg.StartID1, cfg.MaxID1)
	if err != nil {
		return nil, keyError("nlinks_", cfg.NLinksFunc, err)
	}
	return od, nil
}

// id2Chooser returns the ID2 chooser of requester i of r (the load phase
// uses LinkBench's (1 requester, id 1)).
func (w *workload) id2Chooser(requesters, i int) (*distributions.ID2Chooser, error) {
	od := w.outDegree
	if w.arithmetic {
		// LinkBench builds the out-degree model per chooser, that is per
		// loader and requester; its PERFECT_SQUARES accumulates per instance
		// (quirk §11.2-14, kept in Java mode; the fast mode's model is
		// stateless, so a model of its own changes nothing).
		var err error
		if od, err = w.arithmeticOutDegree(); err != nil {
			return nil, err
		}
	}
	c, err := w.mode.dists().ID2Chooser(distributions.ID2Config{
		StartID1: w.cfg.StartID1, MaxID1: w.cfg.MaxID1, LinkTypeCount: w.cfg.LinkTypeCount,
		RandomID2Max: w.cfg.RandomID2Max, ID2GenConfig: w.cfg.ID2GenConfig, NeverChange: w.cfg.NeverChange,
		Requesters: requesters, RequesterID: i, Shuffler: w.shuffler,
	}, od)
	if err != nil {
		return nil, keyError("", "", err)
	}
	return c, nil
}

// newDataGen builds a payload generator (one per worker: generators keep
// per-worker state).
func newDataGen(key string, g DataGenConfig) (distributions.DataGen, error) {
	var (
		gen distributions.DataGen
		err error
	)
	switch g.Kind {
	case DataGenUniform:
		gen, err = distributions.NewUniformData(g.StartByte, g.EndByte)
	default:
		gen, err = distributions.NewMotif(g.StartByte, g.EndByte, g.Uniqueness)
	}
	if err != nil {
		return nil, keyError(key+"_", string(g.Kind), err)
	}
	return gen, nil
}

// dbStores returns the store serving each of the dbcount databases
// (Config.DatabaseNames): with one database, st itself (whatever database
// it serves: a store built for LinkBench's database dbprefix0, or dbid,
// serves that one); with several, the stores st.Database(name) returns.
// Quirk §11.2-9 (a LinkBench SQL store object serves a single dbid, so
// dbcount > 1 fails): fixed in both modes, each database is its own Store.
func dbStores(ctx context.Context, cfg *Config, st store.Store) ([]store.Store, []string, error) {
	names := cfg.DatabaseNames()
	stores := make([]store.Store, cfg.DBCount)
	dbs, multi := store.AsDatabases(st)
	for i := range names {
		if !multi || cfg.DBCount == 1 {
			if cfg.DBCount > 1 {
				return nil, nil, &ConfigError{Key: "dbcount", Value: fmt.Sprint(cfg.DBCount),
					Reason: "must be 1: this store serves a single database (it does not implement store.Databases)"}
			}
			stores[i] = st
			continue
		}
		s, err := dbs.Database(ctx, names[i])
		if err != nil {
			return nil, nil, fmt.Errorf("database %s: %w", names[i], err)
		}
		stores[i] = s
	}
	return stores, names, nil
}

// newCollector returns the statistics collector of a phase: histograms of
// hdr_histogram_accuracy digits up to hdr_histogram_max_latency, at
// nanosecond resolution, with per-requester interval statistics when
// -csvstream is written.
func newCollector(cfg *Config) (*stats.Collector, error) {
	c, err := stats.NewCollector(stats.Options{HighestUs: cfg.HDRMaxLatency, SigFigs: cfg.HDRAccuracy,
		Interval: cfg.Stream != nil})
	if err != nil {
		return nil, &ConfigError{Key: "hdr_histogram_accuracy", Reason: err.Error()}
	}
	return c, nil
}

// errorClass names the class of a failed call's error, for the report's
// errors by class and the failure log: "no-op" (Java mode's failed op
// choice), "transient" (store.IsTransient: a fault that may pass, such as
// a deadlock that outlived the store's retries or a lost connection), the
// class an error in the chain names with an ErrorClass() string method,
// else "error".
func errorClass(err error) string {
	if errors.Is(err, errNoOp) {
		return "no-op"
	}
	var c interface{ ErrorClass() string }
	if errors.As(err, &c) {
		if name := c.ErrorClass(); name != "" {
			return name
		}
	}
	if store.IsTransient(err) {
		return "transient"
	}
	return "error"
}

// workerSessions opens, for each of n workers, a session of every
// database store that has store.Sessions (the others are used as they
// are), a few at a time. closeAll closes them; on error the sessions
// already opened are closed.
func workerSessions(ctx context.Context, stores []store.Store, n int) (sessions [][]store.Store, closeAll func(), err error) {
	opened := make([][]store.Session, n)
	for i := range opened {
		opened[i] = make([]store.Session, len(stores))
	}
	closeAll = func() {
		for _, ws := range opened {
			for _, s := range ws {
				if s != nil {
					_ = s.Close()
				}
			}
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i := range opened {
		for d, st := range stores {
			if _, ok := store.AsSessions(st); !ok {
				continue // the store itself, without a wrapper on the hot path
			}
			g.Go(func() error {
				s, err := store.OpenSession(gctx, st)
				if err != nil {
					return fmt.Errorf("open a session of database %d for worker %d: %w", d, i, err)
				}
				opened[i][d] = s
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		closeAll()
		return nil, nil, err
	}
	sessions = make([][]store.Store, n)
	for i, ws := range opened {
		sessions[i] = make([]store.Store, len(ws))
		for d, s := range ws {
			sessions[i][d] = s
			if s == nil {
				sessions[i][d] = stores[d]
			}
		}
	}
	return sessions, closeAll, nil
}

// resolveSeed returns the seed to use: the configured one, or a fresh
// random one (reported, so that the run can be repeated).
func resolveSeed(s Seed) int64 {
	if s.Set {
		return s.Value
	}
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}
