package distributions

import (
	"fmt"
	"math"
)

// AccessKind names the purpose of an access distribution: which id1 a
// request of that kind targets (reference §6.6). It selects LinkBench's
// configuration prefix, the section a REAL distribution samples and the
// shuffler.
type AccessKind int

// The access kinds, with LinkBench's key prefix.
const (
	LinkReads        AccessKind = iota // "read_": link reads (count, multiget, range)
	LinkWrites                         // "write_": link writes (add, update, delete)
	LinkReadsUncorr                    // "read_uncorr_": blended uncorrelated link reads
	LinkWritesUncorr                   // "read_uncorr_" too (§11.1-1): blended uncorrelated link writes
	NodeReads                          // "node_read_": get node
	NodeUpdates                        // "node_update_": update node
	NodeDeletes                        // "node_delete_": delete node
	numAccessKinds
)

var accessNames = [numAccessKinds]string{
	"LINK_READS", "LINK_WRITES", "LINK_READS_UNCORR", "LINK_WRITES_UNCORR",
	"NODE_READS", "NODE_UPDATES", "NODE_DELETES",
}

// String returns LinkBench's name of the kind ("LINK_READS", ...).
func (k AccessKind) String() string {
	if k >= 0 && k < numAccessKinds {
		return accessNames[k]
	}
	return fmt.Sprintf("AccessKind(%d)", int(k))
}

// ShuffleSeed returns the seed of the kind's shuffler (reference §6.6):
// ShuffleSeedLinks for LinkReads and LinkWrites, ShuffleSeedUncorr for the
// uncorrelated kinds, ShuffleSeedNodes for the node kinds.
func (k AccessKind) ShuffleSeed() int64 {
	switch k {
	case LinkReads, LinkWrites:
		return ShuffleSeedLinks
	case LinkReadsUncorr, LinkWritesUncorr:
		// LinkBench quirk §11.1-1 (uncorrelated writes read the read_uncorr_ keys): kept in both modes; the caller reads the keys, this kind only selects the shuffler.
		return ShuffleSeedUncorr
	}
	return ShuffleSeedNodes
}

// realSection is the section the REAL access mode samples for the kind, or
// SectionNone when LinkBench rejects REAL for it.
func (k AccessKind) realSection() Section {
	switch k {
	case LinkReads:
		return SectionLinkNReads
	case LinkWrites:
		return SectionLinkNWrites
	case NodeReads:
		return SectionNodeNReads
	case NodeUpdates:
		// Points of node_nwrites, layers of link_nwrites (see
		// RealData.Distribution).
		// LinkBench quirk §11.1-7 (NODE_UPDATES samples the link-writes layers and cursors): kept in both modes.
		return SectionNodeNWrites
	}
	return SectionNone
}

// Access chooses the id1 (or node id) of a request of one kind (LinkBench's
// chooseRequestID and loadAccessDistribution, reference §6.6 and §7.7).
// Immutable and safe for concurrent use: share one per kind among requesters.
type Access struct {
	kind     AccessKind
	mode     Kind
	step     accessStep // what NextID does, decided at construction
	min, max int64
	config   int64
	uniform  Distribution // built-in modes: u = uniform id in [min, max)
	dist     Distribution // class kinds and REAL
	shuf     *InvertibleShuffler
	logC     float64 // POWER: ln(config), as Java's Math.log(config)
	invC     float64 // PERFECT_POWER: 1.0/config
}

// accessStep is what an Access's NextID does.
type accessStep uint8

const (
	stepShuffled     accessStep = iota // the distribution's id, shuffled
	stepShuffledWide                   // the same, ids outside [min, max) unshuffled (Java mode's wide Uniform)
	stepRoundRobin
	stepReciprocal
	stepMultiple
	stepPower
	stepPerfectPower
)

// builtinSteps maps the built-in modes to their steps.
var builtinSteps = map[Kind]accessStep{KindRoundRobin: stepRoundRobin, KindReciprocal: stepReciprocal,
	KindMultiple: stepMultiple, KindPower: stepPower, KindPerfectPower: stepPerfectPower}

// NewAccess builds the access distribution of the given kind over [min, max)
// (the loaded ids [startid1, maxid1)), in the default mode.
//
// Distribution classes (KindUniform, KindZipf, KindZipfExact, KindGeometric,
// KindLogNormal, KindPiecewise) and KindReal are followed by the kind's
// shuffler (§6.6): the chosen rank r becomes min + Permute(r). KindReal with
// spec.RealDist == SectionNone is LinkBench's REAL mode: it samples
// link_nreads (LinkReads), link_nwrites (LinkWrites), node_nreads
// (NodeReads) or node_nwrites (NodeUpdates; with LinkBench's quirk, kept, of
// drawing from the link_nwrites layers); it is rejected for the
// uncorrelated kinds and NodeDeletes, as in LinkBench. KindReal with
// RealDist set is the class RealDistribution with that section (any kind;
// "links" is rejected, LinkBench cannot sample it). See [Real.Choose] for
// the stateless default-mode sampler, and [JavaMode] for LinkBench's exact
// behaviour.
//
// Built-in modes (no shuffler; quirks kept, they are deliberate
// configurations, §7.7, §11.2-12), with u = a uniform id in [min, max)
// (one draw) and c = spec.Config:
//
//   - KindRoundRobin: no draw; prev <= min gives min, else prev+1, wrapping
//     to min at max. Link requests pass prev = 0, so they always get min.
//   - KindReciprocal: ceil((max-min)/u) (floating-point division) clamped to
//     [min, max]; collapses to min unless min = 1, and returns max when u = 0.
//   - KindMultiple: c*(u/c) with integer division (rounds down; below min
//     when min is not a multiple of c). Needs c >= 1.
//   - KindPower: min(max-1, (long)c^ceil(ln u / ln c)). Needs c >= 2.
//   - KindPerfectPower: min(max-1, (long)ceil(u^(1/c))^c). Needs c >= 1.
//
// Errors: *ParamError for bad parameters ("config", "realdist", "kind",
// "real", and those of the distribution), including a REAL spec with no
// real data.
func NewAccess(kind AccessKind, spec Spec, min, max int64, real *RealData) (*Access, error) {
	return newAccess(kind, spec, min, max, real, defaultMode{})
}

// newAccess builds the access distribution with the distributions,
// uniform draw, REAL sampler and shuffler of mode m.
func newAccess(kind AccessKind, spec Spec, min, max int64, real *RealData, m accessBuilder) (*Access, error) {
	if kind < 0 || kind >= numAccessKinds {
		return nil, paramErr("kind", kind.String(), "unknown access kind")
	}
	if err := checkRange(min, max); err != nil {
		return nil, err
	}
	a := &Access{kind: kind, mode: spec.Kind, min: min, max: max, config: spec.Config,
		logC: math.Log(float64(spec.Config)), invC: 1 / float64(spec.Config)}
	if spec.Kind.builtin() {
		a.step = builtinSteps[spec.Kind]
		var err error
		if a.uniform, err = m.uniform(min, max); err != nil {
			return nil, err
		}
		switch c := spec.Config; spec.Kind {
		case KindMultiple, KindPerfectPower:
			if c < 1 {
				return nil, paramErr("config", c, "%s needs config >= 1", spec.Kind)
			}
		case KindPower:
			if c < 2 {
				return nil, paramErr("config", c, "POWER needs config >= 2 (the base of the powers)")
			}
		}
		return a, nil
	}
	switch spec.Kind {
	case KindReal:
		if real == nil {
			return nil, paramErr("real", "", "%s of %s needs LinkBench's Distribution.dat (a *RealData)", spec.Kind, kind)
		}
		s := spec.RealDist
		if s == SectionNone {
			if s = kind.realSection(); s == SectionNone {
				return nil, paramErr("kind", kind.String(), "REAL is not available for %s (only LINK_READS, LINK_WRITES, NODE_READS and NODE_UPDATES, as in LinkBench)", kind)
			}
		} else if s == SectionNLinks {
			return nil, paramErr("realdist", s.String(), "the links section is an out-degree, not an access distribution; use link_reads, link_writes, node_reads or node_writes")
		}
		var err error
		if a.dist, err = m.realAccess(real, s, min, max); err != nil {
			return nil, err
		}
	case KindUniform, KindZipf, KindZipfExact, KindGeometric, KindLogNormal, KindPiecewise:
		var err error
		if a.dist, err = m.Distribution(spec, min, max, real); err != nil {
			return nil, err
		}
	default:
		return nil, paramErr("kind", spec.Kind.String(), "not an access distribution")
	}
	var err error
	if a.shuf, err = m.Shuffler(kind.ShuffleSeed(), ShuffleGroups, max-min); err != nil {
		return nil, err
	}
	return a, nil
}

// Kind returns the access kind.
func (a *Access) Kind() AccessKind { return a.kind }

// Mode returns the configured distribution kind or built-in mode.
func (a *Access) Mode() Kind { return a.mode }

// Shuffled reports whether NextID applies the kind's shuffler.
func (a *Access) Shuffled() bool { return a.shuf != nil }

// NextID returns the next id: the distribution's choice (or the built-in
// mode's value, see NewAccess; prev is the previous id of this kind, read only
// by ROUND_ROBIN) followed, for REAL and the distribution classes, by
// min + shuffler.Permute(id - min) (reference §6.6, §7.7). Draws: those of
// the distribution (Zipf, Geometric, REAL layer: one Float64, REAL adds one
// Int63n; Uniform: one Int31n; LogNormal one Gaussian; built-ins: one
// uniform draw except ROUND_ROBIN: none). The blend between correlated and
// uncorrelated distributions is the caller's (its draw comes first).
func (a *Access) NextID(r Source, prev int64) int64 {
	switch a.step {
	case stepShuffled:
		return a.min + a.shuf.Permute(a.dist.Choose(r)-a.min)
	case stepShuffledWide:
		// LinkBench's Uniform over more than 2^31-1 ids (Java mode) draws ids
		// outside the range, where its shuffler throws: returned unshuffled.
		id := a.dist.Choose(r)
		if uint64(id-a.min) >= uint64(a.max-a.min) {
			return id
		}
		return a.min + a.shuf.Permute(id-a.min)
	case stepRoundRobin:
		// LinkBench quirk §11.2-12 (ROUND_ROBIN always gives min to link ops, prev = 0): kept in both modes (a configuration).
		if prev <= a.min {
			return a.min
		}
		if prev+1 >= a.max {
			return a.min
		}
		return prev + 1
	case stepReciprocal:
		// LinkBench quirk §11.2-12 (RECIPROCAL collapses to min unless min = 1, may return max): kept in both modes.
		u := a.uniform.Choose(r)
		v := javaLong(math.Ceil(float64(a.max-a.min) / float64(u)))
		return clamp(v, a.min, a.max)
	case stepMultiple:
		// LinkBench quirk §11.2-12 (MULTIPLE rounds down and can fall below min): kept in both modes.
		u := a.uniform.Choose(r)
		return a.config * (u / a.config)
	case stepPower:
		u := a.uniform.Choose(r)
		e := math.Ceil(math.Log(float64(u)) / a.logC)
		return min(a.max-1, javaPowLong(a.config, e))
	default: // stepPerfectPower
		u := a.uniform.Choose(r)
		root := javaCeilPow(float64(u), a.invC)
		return min(a.max-1, javaPowLong(javaLong(root), float64(a.config)))
	}
}

// intPow returns base^e for an integer-valued e >= 0 and base >= 0 when the
// result is at most 2^53: then it is exactly representable, so it equals
// the correctly rounded Math.pow(base, e) that LinkBench computes (and
// powJ), at a fraction of the cost. ok is false otherwise (the caller then
// uses powJ).
func intPow(base int64, e float64) (v int64, ok bool) {
	const limit = 1 << 53
	if !(e >= 0 && e <= 64) || base < 0 {
		return 0, false
	}
	n := int(e)
	if float64(n) != e {
		return 0, false
	}
	v = 1
	b := base
	for {
		if n&1 != 0 {
			if b != 0 && v > limit/b {
				return 0, false
			}
			v *= b
		}
		n >>= 1
		if n == 0 {
			return v, v <= limit
		}
		if b > 1 && b > limit/b {
			// b^2 alone exceeds the limit; the result does unless no
			// further factor is taken, which n > 0 rules out.
			return 0, false
		}
		b *= b
	}
}

// javaPowLong returns Java's (long) Math.pow(b, e) for an integer base:
// intPow when the result is at most 2^53, else powJ.
func javaPowLong(b int64, e float64) int64 {
	if v, ok := intPow(b, e); ok {
		return v
	}
	return javaLong(powJ(float64(b), e))
}

func clamp(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
