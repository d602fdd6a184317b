package distributions

import (
	"fmt"
	"math"
	"sync/atomic"
)

// RealCursors is the shared state of LinkBench's REAL access sampler, for
// Java-compatible runs (reference §7.6, quirk §11.1-7): for each sampled
// section, the cumulative-sum array cs exactly as LinkBench computes it, and
// one cursor per layer k (LinkBench's right_points), the next rank that
// layer hands out. In LinkBench these arrays are static: shared by every
// thread and every RealDistribution instance of the process, the link-writes
// cursors serving both LINK_WRITES and NODE_UPDATES. Here they live in this
// explicit object, held by a run's [JavaMode] (which creates it, or is
// given one made with [NewRealCursors]), so that every Java-compatible REAL
// distribution of the run shares cursors as LinkBench's do.
//
// Safe for concurrent use: each cursor is advanced with an atomic
// compare-and-swap, so concurrent requesters never lose or repeat an update
// (LinkBench's unsynchronised arrays may); with a single requester the
// sequence of ids is exactly LinkBench's. Memory: one float64 and one int64
// per layer of each sampled section (cs has MaxValue+1 entries: about 3.8 MB
// for the 2017 Distribution.dat, 3.1 MB for the 2011 one), independent of
// the id range.
type RealCursors struct {
	data   *RealData
	groups [numSections]*cursorGroup // by sampled section
}

// cursorGroup is one section's cs array and cursors.
type cursorGroup struct {
	cs     []float64      // cs[k] = cs[k-1] + ccdf[k], cs[0] = 0 (LinkBench's doubles, bit for bit)
	runEnd []int          // per layer run of the section: its last layer k (a point's value)
	cur    []atomic.Int64 // right_points[k]
}

// NewRealCursors returns fresh cursors (all 0, as LinkBench's at start-up)
// for the REAL access sections of d: link_nreads (LINK_READS), link_nwrites
// (LINK_WRITES and NODE_UPDATES) and node_nreads (NODE_READS), those d
// holds. It computes each cs array as LinkBench does (reference §7.6:
// P_i = percent/100; pdf[v_0] = P_0 and pdf[v_i] = P_i - P_{i-1}; ccdf summed
// from the largest value down, ccdf[k] = ccdf[k+1] + pdf[k]; cs summed up
// from cs[0] = 0), in O(MaxValue) time (a few ms for a whole file). The
// node_nwrites cs array, which LinkBench computes but never samples, is not
// built.
//
// Errors: a *ParamError ("real") when a sampled section's largest value
// exceeds maxCursorLayers = 2^22 (LinkBench would allocate arrays of that
// many entries; the real files stay below 2^18).
func NewRealCursors(d *RealData) (*RealCursors, error) {
	c := &RealCursors{data: d}
	for _, s := range []Section{SectionLinkNReads, SectionLinkNWrites, SectionNodeNReads} {
		if !d.Has(s) {
			continue
		}
		if m := d.MaxValue(s); m > maxCursorLayers {
			return nil, paramErr("real", d.path, "section %s of %s has values up to %d: more layers than the %d the Java-compatible REAL sampler holds", s, d.Describe(), m, maxCursorLayers)
		}
		c.groups[s] = newCursorGroup(d.sec[s])
	}
	return c, nil
}

// maxCursorLayers bounds the largest value of a section sampled by the
// Java-compatible REAL sampler (its cs and cursor arrays have one entry per
// value: 64 MB at this bound).
const maxCursorLayers = 1 << 22

func newCursorGroup(s *section) *cursorGroup {
	last := s.values[len(s.values)-1]
	g := &cursorGroup{cs: make([]float64, last+1), cur: make([]atomic.Int64, last+1)}
	// ccdf is constant between two values of the file (pdf is 0 there and
	// x + 0 == x), so it is computed per point: c[i] = c[i+1] + pdf[v_i].
	c := make([]float64, len(s.values))
	acc := 0.0
	for i := len(s.values) - 1; i >= 0; i-- {
		pdf := s.probs[i]
		if i > 0 {
			pdf = s.probs[i] - s.probs[i-1]
		}
		acc += pdf
		c[i] = acc
	}
	k := int64(1)
	for i, v := range s.values {
		for ; k <= v; k++ { // layers (v_{i-1}, v_i] have ccdf c[i]
			g.cs[k] = g.cs[k-1] + c[i]
		}
	}
	for _, v := range s.values {
		if v > 0 {
			g.runEnd = append(g.runEnd, int(v))
		}
	}
	return g
}

// Data returns the RealData the cursors were built for.
func (c *RealCursors) Data() *RealData { return c.data }

// group returns the cursors the REAL sampler of section s uses:
// link_nwrites for node_nwrites (LinkBench's NODE_UPDATES quirk, §7.6).
func (c *RealCursors) group(s Section) (*cursorGroup, error) {
	if s == SectionNodeNWrites {
		s = SectionLinkNWrites
	}
	if s <= SectionNLinks || s >= numSections || c.groups[s] == nil {
		return nil, paramErr("real", c.data.path, "no %s section to sample", s)
	}
	g := c.groups[s]
	if len(g.cs) < 2 {
		return nil, paramErr("real", c.data.path, "section %s has only the value 0: LinkBench's REAL sampler fails on it", s)
	}
	return g, nil
}

// javaBinarySearch is java.util.Arrays.binarySearch(double[], double) on a
// sorted array without NaN or negative zero, converted as LinkBench does:
// the index of an element equal to key (the first one its bisection meets,
// low = 0, high = len-1, mid = (low+high)>>>1), else the insertion point.
func javaBinarySearch(a []float64, key float64) int {
	lo, hi := 0, len(a)-1
	for lo <= hi {
		mid := int(uint(lo+hi) >> 1)
		switch v := a[mid]; {
		case v < key:
			lo = mid + 1
		case v > key:
			hi = mid - 1
		default:
			return mid
		}
	}
	return lo
}

// search returns javaBinarySearch(cs, p) for 0 <= p <= cs[last]. It finds
// the first index with cs >= p from an estimate (the run of layers holding
// p, found in the section's run form, then the layer by linear
// interpolation), corrected by galloping on cs itself; when cs holds no
// element equal to p that index is the insertion point Java returns (it is
// unique), and when it does the whole Java bisection is replayed, since
// which of several equal elements Java returns depends on its path.
func (g *cursorGroup) search(p float64, est int) int {
	cs := g.cs
	if !(p > 0) {
		return javaBinarySearch(cs, p)
	}
	k := est
	if k < 1 {
		k = 1
	} else if k >= len(cs) {
		k = len(cs) - 1
	}
	// Gallop to lo < target <= hi, with cs[lo] < p <= cs[hi] (cs[0] = 0).
	lo, hi := 0, len(cs)-1
	if cs[k] >= p {
		hi = k
		for step := 1; ; step *= 2 {
			j := k - step
			if j <= 0 {
				break
			}
			if cs[j] < p {
				lo = j
				break
			}
			hi = j
		}
	} else {
		lo = k
		for step := 1; ; step *= 2 {
			j := k + step
			if j >= len(cs)-1 {
				break
			}
			if cs[j] >= p {
				hi = j
				break
			}
			lo = j
		}
	}
	// Lower bound in (lo, hi].
	for lo+1 < hi {
		mid := int(uint(lo+hi) >> 1)
		if cs[mid] < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	if cs[hi] == p {
		return javaBinarySearch(cs, p)
	}
	return hi
}

// realJava is the Java-compatible REAL sampler: Real's points and
// probabilities, LinkBench's cs array and shared cursors.
type realJava struct {
	*Real
	g *cursorGroup
}

// javaDistribution returns section s over [min, max) with LinkBench's
// stateful sampler drawing from the cursors c.
func (d *RealData) javaDistribution(s Section, min, max int64, c *RealCursors) (*realJava, error) {
	if c == nil {
		return nil, paramErr("cursors", "nil", "Java-compatible REAL sampling needs the run's RealCursors")
	}
	if c.data != d {
		return nil, paramErr("cursors", fmt.Sprintf("%p", c.data), "the RealCursors were built for other real data")
	}
	rd, err := d.Distribution(s, min, max)
	if err != nil {
		return nil, err
	}
	if s == SectionNLinks {
		return nil, paramErr("realdist", s.String(), "LinkBench cannot sample the links section (it has no cs array)")
	}
	g, err := c.group(s)
	if err != nil {
		return nil, err
	}
	return &realJava{Real: rd, g: g}, nil
}

// Choose is LinkBench's PiecewiseLinearDistribution.choose (reference §7.6,
// quirk §11.1-7): p = cs[last] * r.Float64() (one draw), k = Java's binary
// search of p in cs (1 if it returns 0), then the id min + (cursor[k] mod n)
// and the cursor set to (that + 1) mod n, n = max - min. The cursors are
// the shared RealCursors.
func (rj *realJava) Choose(r Source) int64 {
	cs := rj.g.cs
	u := r.Float64()
	p := cs[len(cs)-1] * u
	// Estimate: the run of layers holding p in the section's run form (its
	// cumulative masses differ from cs only by rounding), then the layer by
	// interpolation within the run.
	est := 1
	if rj.layers != nil && len(rj.g.runEnd) == len(rj.layers) {
		i := rj.run(u)
		start := 0
		below := 0.0
		if i > 0 {
			start = rj.g.runEnd[i-1]
			below = rj.layers[i-1].cum
		}
		est = start + int(math.Ceil((p-below)/rj.layers[i].c))
	}
	idx := rj.g.search(p, est)
	if idx == 0 {
		idx = 1
	}
	n := rj.n
	cur := &rj.g.cur[idx]
	for {
		old := cur.Load()
		res := old % n
		if cur.CompareAndSwap(old, (res+1)%n) {
			return rj.min + res
		}
	}
}
