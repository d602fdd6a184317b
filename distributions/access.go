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
	min, max int64
	config   int64
	uniform  *Uniform     // built-in modes: u = uniform id in [min, max)
	dist     Distribution // class kinds and REAL
	shuf     *InvertibleShuffler
}

// NewAccess builds the access distribution of the given kind over [min, max)
// (the loaded ids [startid1, maxid1)).
//
// Distribution classes (KindUniform, KindZipf, KindGeometric, KindLogNormal)
// and KindReal are followed by the kind's shuffler (§6.6): the chosen rank r
// becomes min + Permute(r). KindReal with spec.RealDist == SectionNone is
// LinkBench's REAL mode: it samples link_nreads (LinkReads), link_nwrites
// (LinkWrites), node_nreads (NodeReads) or node_nwrites (NodeUpdates; with
// LinkBench's quirk, kept, of drawing from the link_nwrites layers); it is
// rejected for the uncorrelated kinds and NodeDeletes, as in LinkBench.
// KindReal with RealDist set is the class RealDistribution with that
// section (any kind; "links" is rejected, LinkBench cannot sample it). See
// [Real.Choose] for the stateless default-mode sampler.
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
// "data_file", and those of the distribution), including a REAL spec with no
// real data.
func NewAccess(kind AccessKind, spec Spec, min, max int64, real *RealData) (*Access, error) {
	if kind < 0 || kind >= numAccessKinds {
		return nil, paramErr("kind", kind.String(), "unknown access kind")
	}
	if err := checkRange(min, max); err != nil {
		return nil, err
	}
	a := &Access{kind: kind, mode: spec.Kind, min: min, max: max, config: spec.Config}
	if spec.Kind.builtin() {
		var err error
		if a.uniform, err = NewUniform(min, max, 0, false); err != nil {
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
			return nil, paramErr("data_file", "", "%s of %s needs LinkBench's Distribution.dat (data_file)", spec.Kind, kind)
		}
		s := spec.RealDist
		if s == SectionNone {
			if s = kind.realSection(); s == SectionNone {
				return nil, paramErr("kind", kind.String(), "REAL is not available for %s (only LINK_READS, LINK_WRITES, NODE_READS and NODE_UPDATES, as in LinkBench)", kind)
			}
		} else if s == SectionNLinks {
			return nil, paramErr("realdist", s.String(), "the links section is an out-degree, not an access distribution; use link_reads, link_writes, node_reads or node_writes")
		}
		d, err := real.Distribution(s, min, max)
		if err != nil {
			return nil, err
		}
		a.dist = d
	case KindUniform, KindZipf, KindGeometric, KindLogNormal:
		d, err := NewDistribution(spec, min, max, real)
		if err != nil {
			return nil, err
		}
		a.dist = d
	default:
		return nil, paramErr("kind", spec.Kind.String(), "not an access distribution")
	}
	var err error
	if a.shuf, err = shufflerFor(kind.ShuffleSeed(), max-min); err != nil {
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
	var id int64
	switch a.mode {
	case KindRoundRobin:
		if prev <= a.min {
			return a.min
		}
		if prev+1 >= a.max {
			return a.min
		}
		return prev + 1
	case KindReciprocal:
		u := a.uniform.Choose(r)
		v := javaLong(math.Ceil(float64(a.max-a.min) / float64(u)))
		return clamp(v, a.min, a.max)
	case KindMultiple:
		u := a.uniform.Choose(r)
		return a.config * (u / a.config)
	case KindPower:
		u := a.uniform.Choose(r)
		c := float64(a.config)
		v := javaLong(powJ(c, math.Ceil(math.Log(float64(u))/math.Log(c))))
		return min(a.max-1, v)
	case KindPerfectPower:
		u := a.uniform.Choose(r)
		c := float64(a.config)
		v := javaLong(powJ(math.Ceil(powJ(float64(u), 1/c)), c))
		return min(a.max-1, v)
	default:
		id = a.dist.Choose(r)
	}
	return a.min + a.shuf.Permute(id-a.min)
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
