package distributions

import (
	"math"
)

// Target probabilities that a request's id2 names a pre-loaded link
// (LinkBench's ID2Chooser constants, reference §1.1, §6.5).
const (
	PGetExist    = 0.5  // MULTIGET_LINK
	PUpdateExist = 0.9  // UPDATE_LINK
	PDeleteExist = 0.9  // DELETE_LINK
	PAddExist    = 0.05 // ADD_LINK
)

// firstLinkType is the first link type (LinkBench's DEFAULT_LINK_TYPE,
// exported as store.DefaultLinkType); link types are firstLinkType + i
// for i in [0, link_type_count).
const firstLinkType int64 = 123456789

// maxUniqIters is LinkBench's MAX_UNIQ_ITERS: extra draws the legacy
// multiget makes to avoid a duplicate id2.
const maxUniqIters = 100

// ID2Config configures an [ID2Chooser] (reference §5.4, §6.7).
type ID2Config struct {
	// StartID1 and MaxID1 bound the loaded id1s: [StartID1, MaxID1).
	StartID1, MaxID1 int64
	// LinkTypeCount is link_type_count (>= 1).
	LinkTypeCount int64
	// RandomID2Max is randomid2max: 0 (id2s follow id1), or > 0 to draw id2s
	// uniformly from [0, RandomID2Max) (at most 2^31-1, an int in LinkBench).
	RandomID2Max int64
	// ID2GenConfig is id2gen_config: 0, or 1 to give each requester its own
	// id2 residue class modulo Requesters (fixId2).
	ID2GenConfig int
	// NeverChange selects LinkBench's legacy rules (never_change=true, the
	// FB behaviour, reference §11.3) for link counts and request id2s.
	NeverChange bool
	// Requesters and RequesterID (0-based) feed fixId2 when ID2GenConfig is
	// 1: Requesters >= 1, RequesterID >= 0.
	Requesters, RequesterID int
	// Shuffler, when not nil, is the out-degree shuffler to use instead of
	// building one: the result of an earlier chooser's Shuffler with the
	// same StartID1 and MaxID1, built by the same [Mode] (shufflers are
	// immutable, so the choosers of a phase's workers can share one).
	Shuffler *InvertibleShuffler
}

// ID2Chooser decides how many links each (id1, link type) has and which
// id2s the load writes and requests target (LinkBench's ID2Chooser,
// reference §5.4, §6.7). Immutable and safe for concurrent use; its methods
// allocate nothing.
type ID2Chooser struct {
	cfg ID2Config
	n   int64
	od  OutDegree
	nls *InvertibleShuffler // out-degree shuffler, nil when od is not shuffled
}

// Shuffler returns the chooser's out-degree shuffler (nil when its model
// is not shuffled), to share with other choosers (ID2Config.Shuffler).
func (c *ID2Chooser) Shuffler() *InvertibleShuffler { return c.nls }

// NewID2Chooser returns the chooser for cfg with out-degree model od, in
// the default mode (see [Mode.ID2Chooser] for the others: they differ in
// the out-degree shuffler).
// Errors (*ParamError, Param naming the ID2Config field): MaxID1 <=
// StartID1 ("MaxID1"), LinkTypeCount < 1, RandomID2Max < 0 or > 2^31-1,
// ID2GenConfig not 0 or 1, and with ID2GenConfig 1: Requesters < 1 or
// RequesterID < 0. A nil od is an error too ("od"), and so is a range the
// mode's shuffler cannot handle ("n", see [JavaMode]).
func NewID2Chooser(cfg ID2Config, od OutDegree) (*ID2Chooser, error) {
	return newID2Chooser(cfg, od, defaultMode{})
}

func newID2Chooser(cfg ID2Config, od OutDegree, m Mode) (*ID2Chooser, error) {
	if cfg.MaxID1 <= cfg.StartID1 || cfg.MaxID1-cfg.StartID1 <= 0 {
		return nil, paramErr("MaxID1", cfg.MaxID1, "must exceed StartID1 = %d", cfg.StartID1)
	}
	if cfg.LinkTypeCount < 1 {
		return nil, paramErr("LinkTypeCount", cfg.LinkTypeCount, "must be >= 1")
	}
	if cfg.RandomID2Max < 0 || cfg.RandomID2Max > math.MaxInt32 {
		return nil, paramErr("RandomID2Max", cfg.RandomID2Max, "must be in [0, 2^31-1]")
	}
	switch cfg.ID2GenConfig {
	case 0:
	case 1:
		if cfg.Requesters < 1 {
			return nil, paramErr("Requesters", cfg.Requesters, "ID2GenConfig = 1 needs Requesters >= 1")
		}
		if cfg.RequesterID < 0 {
			return nil, paramErr("RequesterID", cfg.RequesterID, "must be >= 0")
		}
	default:
		return nil, paramErr("ID2GenConfig", cfg.ID2GenConfig, "must be 0 or 1")
	}
	if od == nil {
		return nil, paramErr("od", "", "no out-degree model")
	}
	c := &ID2Chooser{cfg: cfg, n: cfg.MaxID1 - cfg.StartID1, od: od}
	if od.Shuffled() {
		c.nls = cfg.Shuffler
		if c.nls == nil || c.nls.n != c.n {
			var err error
			if c.nls, err = m.Shuffler(ShuffleSeedLinks, ShuffleGroups, c.n); err != nil {
				return nil, err
			}
		}
	}
	c.cfg.Shuffler = nil
	return c, nil
}

// Config returns the configuration.
func (c *ID2Chooser) Config() ID2Config { return c.cfg }

// OutDegree returns the out-degree model.
func (c *ID2Chooser) OutDegree() OutDegree { return c.od }

// TotalLinkCount returns LinkBench's calcTotalLinkCount(id1) (§5.4): the
// out-degree model's NLinks of s, where s = StartID1 +
// InvertPermute(id1 - StartID1) with the out-degree shuffler (seed
// ShuffleSeedLinks, 1024 groups) when the model is shuffled, else s = id1;
// in the default mode (NeverChange false) raised to at least LinkTypeCount.
// An id1 outside [StartID1, MaxID1) has 0 links (LinkBench throws in the
// shuffler).
func (c *ID2Chooser) TotalLinkCount(id1 int64) int64 {
	if id1 < c.cfg.StartID1 || id1 >= c.cfg.MaxID1 {
		return 0
	}
	s := id1
	if c.nls != nil {
		s = c.cfg.StartID1 + c.nls.InvertPermute(id1-c.cfg.StartID1)
	}
	tot := c.od.NLinks(s)
	if !c.cfg.NeverChange && tot < c.cfg.LinkTypeCount {
		tot = c.cfg.LinkTypeCount
	}
	return tot
}

// splitCount is calcLinkCount given the total: base = tot / ltc for every
// type in the default mode (the remainder is dropped, §11.1-4); in the
// legacy mode type index i gets base+1 when i < tot - base (LinkBench's
// intended tot mod ltc, kept: it over-allocates once tot >= 2).
func (c *ID2Chooser) splitCount(tot, typeIndex int64) int64 {
	// LinkBench quirk §11.1-4 (out-degree split: remainder dropped, or legacy over-allocation): kept in both modes.
	base := tot / c.cfg.LinkTypeCount
	if c.cfg.NeverChange && typeIndex < tot-base {
		return base + 1
	}
	return base
}

// LinkCount returns the number of links loaded for (id1, linkType),
// LinkBench's calcLinkCount (§5.4, see splitCount); 0 for a link type
// outside [store.DefaultLinkType, store.DefaultLinkType + LinkTypeCount).
func (c *ID2Chooser) LinkCount(id1, linkType int64) int64 {
	i := linkType - firstLinkType
	if i < 0 || i >= c.cfg.LinkTypeCount {
		return 0
	}
	return c.splitCount(c.TotalLinkCount(id1), i)
}

// LinkCounts appends the link counts of every link type of id1 to dst[:0]
// (index i is link type store.DefaultLinkType + i) and returns it, computing the
// total once. It allocates only when dst is too short.
func (c *ID2Chooser) LinkCounts(id1 int64, dst []int64) []int64 {
	dst = dst[:0]
	tot := c.TotalLinkCount(id1)
	for i := int64(0); i < c.cfg.LinkTypeCount; i++ {
		dst = append(dst, c.splitCount(tot, i))
	}
	return dst
}

// ChooseForLoad returns the id2 of the j-th link (0-based) of
// (id1, linkType) at load time: id1 + j, or r.Int31n(RandomID2Max) when
// RandomID2Max > 0 (duplicates possible, as in LinkBench). fixId2 is not
// applied at load.
func (c *ID2Chooser) ChooseForLoad(r Source, id1, linkType, j int64) int64 {
	if c.cfg.RandomID2Max > 0 {
		return int64(r.Int31n(int32(c.cfg.RandomID2Max)))
	}
	return id1 + j
}

// ChooseForOp returns an id2 for a request on (id1, linkType) that names a
// loaded link with probability about p (reference §6.7).
//
// Default mode (chooseForOpNew): existing = r.Float64() < p; with
// RandomID2Max == 0 the id2 is id1 + r.Int63n(max(1, nl)) when existing
// (nl = LinkCount(id1, linkType)), else r.Int63n(MaxID1) (any id in
// [0, MaxID1)); with RandomID2Max > 0 it is r.Int31n(RandomID2Max) after the
// existing draw, which is still made.
//
// Legacy mode (chooseForOpOld): range = max(1, (long)ceil(nl/p)), id2 =
// id1 + r.Int63n(range) (or r.Int31n(RandomID2Max)); the hit probability is
// then only approximately p.
//
// With ID2GenConfig 1 the result goes through fixId2:
// v = id2 - id2 mod R + RequesterID, minus R when RandomID2Max > 0 and
// v > RandomID2Max. (JavaRandom's Int63n equals nextInt for the bounds
// LinkBench uses, so the draws match Java's.)
func (c *ID2Chooser) ChooseForOp(r Source, id1, linkType int64, p float64) int64 {
	nl := c.LinkCount(id1, linkType)
	// LinkBench §11.3 (never_change=true restores FB's id2 rules): selected by NeverChange, both kept.
	if c.cfg.NeverChange {
		return c.chooseOld(r, id1, legacyRange(nl, p))
	}
	return c.chooseNew(r, id1, nl, p)
}

// legacyRange is max(1, (long)ceil((1/p)*nl)), capped at 2^31-1 (LinkBench
// draws nextInt of it as an int; only p close to 0 could exceed that).
func legacyRange(nl int64, p float64) int64 {
	rng := javaLong(math.Ceil((1 / p) * float64(nl)))
	return clamp(rng, 1, math.MaxInt32)
}

func (c *ID2Chooser) chooseNew(r Source, id1, nl int64, p float64) int64 {
	existing := r.Float64() < p
	if c.cfg.RandomID2Max > 0 {
		return c.fix(int64(r.Int31n(int32(c.cfg.RandomID2Max))))
	}
	// id1 + Int63n(max(1, nl)) when existing, else Int63n(MaxID1): one
	// draw whose base and bound the coin selects (conditional moves
	// rather than a branch, which a fair coin, multiget's, mispredicts
	// half of the time).
	base, bound := int64(0), c.cfg.MaxID1
	if existing {
		base, bound = id1, max(1, nl)
	}
	return c.fix(base + r.Int63n(bound))
}

func (c *ID2Chooser) chooseOld(r Source, id1, rng int64) int64 {
	var id2 int64
	if c.cfg.RandomID2Max > 0 {
		id2 = int64(r.Int31n(int32(c.cfg.RandomID2Max)))
	} else {
		id2 = id1 + r.Int63n(rng)
	}
	return c.fix(id2)
}

// fix is LinkBench's fixId2 (§6.7), applied when ID2GenConfig is 1.
func (c *ID2Chooser) fix(id2 int64) int64 {
	if c.cfg.ID2GenConfig != 1 {
		return id2
	}
	rq := int64(c.cfg.Requesters)
	v := id2 - id2%rq + int64(c.cfg.RequesterID)
	if c.cfg.RandomID2Max > 0 && v > c.cfg.RandomID2Max {
		v -= rq
	}
	return v
}

// ChooseMultipleForOp appends k id2s for a multiget on (id1, linkType) to
// dst[:0] and returns it (reference §6.7). It allocates only when dst is too
// short.
//
// Default mode: k independent ChooseForOp draws (duplicates allowed).
// Legacy mode: with range = max(1, ceil(nl/p)) <= k and RandomID2Max == 0,
// the block id1, id1+1, ..., id1+k-1 (through fixId2 when configured; no
// draws); otherwise each position draws as ChooseForOp until the id2 differs
// from the earlier positions, at most 1 + 100 draws (LinkBench's
// MAX_UNIQ_ITERS; the last draw is kept even if it repeats).
func (c *ID2Chooser) ChooseMultipleForOp(r Source, id1, linkType int64, k int, p float64, dst []int64) []int64 {
	dst = dst[:0]
	nl := c.LinkCount(id1, linkType)
	if !c.cfg.NeverChange {
		for i := 0; i < k; i++ {
			dst = append(dst, c.chooseNew(r, id1, nl, p))
		}
		return dst
	}
	rng := legacyRange(nl, p)
	if rng <= int64(k) && c.cfg.RandomID2Max == 0 {
		for i := 0; i < k; i++ {
			dst = append(dst, c.fix(id1+int64(i)))
		}
		return dst
	}
	for i := 0; i < k; i++ {
		id2 := c.chooseOld(r, id1, rng)
		for it := 0; it < maxUniqIters && contains(dst, id2); it++ {
			id2 = c.chooseOld(r, id1, rng)
		}
		dst = append(dst, id2)
	}
	return dst
}

func contains(a []int64, x int64) bool {
	for _, v := range a {
		if v == x {
			return true
		}
	}
	return false
}
