package distributions

import (
	"sync"
)

// Mode is a random mode: it builds the distributions, access patterns,
// out-degree models, shufflers and id2 choosers of a run. A run picks its
// mode once, when it is prepared, and builds everything through it; the
// objects built then draw without asking which mode they belong to.
//
// [DefaultMode] builds this package's own objects, which fix the LinkBench
// bugs that shape the random streams where the documentation says so.
// [JavaMode] builds LinkBench's exact behaviour, for Java-compatible runs
// that draw from [JavaRandom] sources (reference Appendix B): REAL access
// with LinkBench's shared cursors (quirk §11.1-7), the Uniform draw beyond
// 2^31-1 ids and the shuffler's 32-bit cast of n (§11.2-13), Zipf's
// quantile bit for bit, and the arithmetic out-degrees' overflow and
// accumulation (§11.2-14). Everything else is built the same in both.
//
// The methods' errors are *ParamError values, as the package's
// constructors return.
type Mode interface {
	// String names the mode: "default" or "java".
	String() string
	// Distribution builds the distribution spec describes over [min, max)
	// (see [NewDistribution] for the kinds and errors).
	Distribution(spec Spec, min, max int64, real *RealData) (Distribution, error)
	// Access builds the access distribution of the given kind over
	// [min, max) (see [NewAccess]).
	Access(kind AccessKind, spec Spec, min, max int64, real *RealData) (*Access, error)
	// ArithmeticOutDegree builds one of LinkBench's arithmetic out-degree
	// models (see [NewArithmeticOutDegree]).
	ArithmeticOutDegree(mode string, nlinksDefault, nlinksConfig, min, max int64) (OutDegree, error)
	// Shuffler builds the shuffler of [0, n) with the given seed and number
	// of groups (see [NewInvertibleShuffler]).
	Shuffler(seed, groups, n int64) (*InvertibleShuffler, error)
	// ID2Chooser builds the id2 chooser for cfg with out-degree model od
	// (see [NewID2Chooser]); its out-degree shuffler is the mode's.
	ID2Chooser(cfg ID2Config, od OutDegree) (*ID2Chooser, error)

	sealed() // the two modes are this package's
}

// DefaultMode returns the default (fast) mode: the package's constructors
// ([NewDistribution], [NewAccess], [NewArithmeticOutDegree],
// [NewInvertibleShuffler], [NewID2Chooser]).
func DefaultMode() Mode { return defaultMode{} }

type defaultMode struct{}

func (defaultMode) sealed()        {}
func (defaultMode) String() string { return "default" }

func (defaultMode) Distribution(spec Spec, min, max int64, real *RealData) (Distribution, error) {
	return NewDistribution(spec, min, max, real)
}

func (m defaultMode) Access(kind AccessKind, spec Spec, min, max int64, real *RealData) (*Access, error) {
	return newAccess(kind, spec, min, max, real, m)
}

func (defaultMode) ArithmeticOutDegree(mode string, nlinksDefault, nlinksConfig, min, max int64) (OutDegree, error) {
	return NewArithmeticOutDegree(mode, nlinksDefault, nlinksConfig, min, max)
}

func (defaultMode) Shuffler(seed, groups, n int64) (*InvertibleShuffler, error) {
	return NewInvertibleShuffler(seed, groups, n)
}

func (m defaultMode) ID2Chooser(cfg ID2Config, od OutDegree) (*ID2Chooser, error) {
	return newID2Chooser(cfg, od, m)
}

// uniform is the Uniform of the built-in access modes' draw.
func (defaultMode) uniform(min, max int64) (Distribution, error) {
	return NewUniform(min, max, 0, false)
}

// realAccess is the REAL access sampler of section s: stateless, so that
// each requester draws independently.
func (defaultMode) realAccess(real *RealData, s Section, min, max int64) (Distribution, error) {
	// LinkBench quirk §11.1-7 (REAL access cursors shared process-wide): fixed in default mode (stateless).
	return real.Distribution(s, min, max)
}

// JavaMode returns a Java-compatible mode, for runs that reproduce
// LinkBench's streams with [JavaRandom] sources. It builds:
//
//   - KindUniform (and the uniform draw u of the built-in access modes)
//     with LinkBench's draw for more than 2^31-1 ids (quirk §11.2-13, kept):
//     for 2^31-1 < n < 2^32-1 it draws randint2(n), and for n >= 2^32-1
//     (2^32-1)*nextInt(n / (2^32-1)) + randint2(n mod (2^32-1)), in both
//     cases without adding min, so ids may fall outside [min, max) (below
//     min when min > 0; and randint2 of a remainder below 2^31-1 draws
//     nextInt(2^31-1) whatever the remainder). randint2(m): with one
//     nextDouble, if it is below (2^31-1)/m, nextInt(2^31-1), else
//     2^31-1 + nextInt(m - (2^31-1)). For n <= 2^31-1, and for PDF, CDF,
//     Quantile and ExpectedCount, it is [NewUniform]'s distribution. A range
//     where n / (2^32-1) exceeds 2^31-1 is refused ("max": LinkBench's
//     nextInt of the negative int cast throws on every draw). An access
//     distribution returns the ids this draw puts outside [min, max)
//     unshuffled, where LinkBench's shuffler would throw.
//   - KindZipf with LinkBench's evaluation of the quantile, bit for bit
//     (Quantile, Choose); PDF, CDF and ExpectedCount are [Zipf]'s.
//   - KindReal sampled with LinkBench's stateful cursors (quirk §11.1-7,
//     kept): the layer k is Java's binary search of cs[last]*U in the exact
//     cs array, and the id is min + cursor[k] mod n, the cursor then
//     advancing. Every REAL distribution the mode builds shares the cursors
//     (as LinkBench's static arrays are shared), LinkWrites and NodeUpdates
//     using the same ones: cursors, when not nil (from NewRealCursors), or
//     else the cursors the mode creates from the RealData of its first REAL
//     distribution. A REAL distribution of other data is then refused
//     ("cursors"), and so is the links section ("realdist"), which
//     LinkBench cannot sample, and a section holding only the value 0
//     ("real"). PDF, CDF, Quantile and ExpectedCount are those of
//     [Real]: over the first n*expected_val draws LinkBench's cursors give
//     each id about the share Real.PDF assigns it; beyond, they drift toward
//     uniform (reference §7.6).
//   - Shufflers with LinkBench's 32-bit cast of n (quirk §11.2-13, kept):
//     the minimum group size, which seeds the offsets (|nextInt(mgs)|) and
//     sizes the inverse rotation, is ((int) n) / G. For n < 2^31 it is
//     [NewInvertibleShuffler]'s permutation; beyond, Permute is still a
//     bijection (its rings use the 64-bit n) but with far smaller offsets,
//     and InvertPermute is no longer its inverse (the out-degree then stops
//     being correlated with the access ranks, as in LinkBench). Refused:
//     groups above 2^31-1 (an int in LinkBench) and ranges where
//     ((int) n) / G <= 0 ("n"), where LinkBench's nextInt throws (for
//     example 2^31 <= n < 2^32). The id2 choosers use this shuffler.
//   - Arithmetic out-degrees as LinkBench computes them (quirk §11.2-14,
//     both kept): RECIPROCAL at s == min is d + 2^63-1, wrapping around to
//     a negative count for d >= 1 (n/0.0 is +Inf, (long) of it 2^63-1);
//     PERFECT_SQUARES adds each bonus to nlinks_default itself and returns
//     the accumulated value, so every id after a perfect power inherits all
//     earlier bonuses and the result depends on the order of the calls.
//     That model is therefore stateful: LinkBench has one per loader or
//     requester thread (in its ID2Chooser), and so should the caller
//     (concurrent calls are free of data races, the state is atomic, but
//     interleave their bonuses). Negative results are returned as they are.
//
// The other kinds (Geometric, LogNormal, ZipfExact, Piecewise, the
// built-in access modes' arithmetic) are the default mode's: they draw as
// LinkBench does, or have no LinkBench configuration to match. Build one
// Java mode per run: its REAL cursors are the run's.
func JavaMode(cursors *RealCursors) Mode { return &javaMode{cursors: cursors} }

type javaMode struct {
	mu      sync.Mutex
	cursors *RealCursors // the run's REAL cursors; nil until the first REAL distribution
}

func (*javaMode) sealed()        {}
func (*javaMode) String() string { return "java" }

func (m *javaMode) Distribution(spec Spec, min, max int64, real *RealData) (Distribution, error) {
	switch spec.Kind {
	case KindUniform:
		return newJavaUniform(min, max, spec.Mean, spec.HasMean)
	case KindZipf:
		z, err := NewZipf(min, max, spec.Shape, spec.Mean, spec.HasMean)
		if err != nil {
			return nil, err
		}
		return &zipfJava{Zipf: *z}, nil
	case KindReal:
		if spec.RealDist == SectionNone || real == nil {
			return NewDistribution(spec, min, max, real) // the error
		}
		return m.realAccess(real, spec.RealDist, min, max)
	}
	return NewDistribution(spec, min, max, real)
}

func (m *javaMode) Access(kind AccessKind, spec Spec, min, max int64, real *RealData) (*Access, error) {
	a, err := newAccess(kind, spec, min, max, real, m)
	if err != nil {
		return nil, err
	}
	if _, wide := a.dist.(*javaUniform); wide {
		a.step = stepShuffledWide
	}
	return a, nil
}

func (*javaMode) ArithmeticOutDegree(mode string, nlinksDefault, nlinksConfig, min, max int64) (OutDegree, error) {
	o, err := newArithModel(mode, nlinksDefault, nlinksConfig, min, max)
	if err != nil {
		return nil, err
	}
	j := &javaArithOutDegree{arithModel: o}
	j.acc.Store(nlinksDefault)
	return j, nil
}

func (*javaMode) Shuffler(seed, groups, n int64) (*InvertibleShuffler, error) {
	return newJavaShuffler(seed, groups, n)
}

func (m *javaMode) ID2Chooser(cfg ID2Config, od OutDegree) (*ID2Chooser, error) {
	return newID2Chooser(cfg, od, m)
}

func (*javaMode) uniform(min, max int64) (Distribution, error) {
	return newJavaUniform(min, max, 0, false)
}

// realAccess is LinkBench's REAL sampler of section s, drawing from the
// mode's cursors (created from real at the first call).
func (m *javaMode) realAccess(real *RealData, s Section, min, max int64) (Distribution, error) {
	m.mu.Lock()
	if m.cursors == nil {
		c, err := NewRealCursors(real)
		if err != nil {
			m.mu.Unlock()
			return nil, err
		}
		m.cursors = c
	}
	c := m.cursors
	m.mu.Unlock()
	// LinkBench quirk §11.1-7 (REAL access cursors shared process-wide): kept in Java-compatible mode.
	return real.javaDistribution(s, min, max, c)
}

// accessBuilder is what newAccess asks of a mode.
type accessBuilder interface {
	Distribution(spec Spec, min, max int64, real *RealData) (Distribution, error)
	Shuffler(seed, groups, n int64) (*InvertibleShuffler, error)
	uniform(min, max int64) (Distribution, error)
	realAccess(real *RealData, s Section, min, max int64) (Distribution, error)
}

var (
	_ accessBuilder = defaultMode{}
	_ accessBuilder = (*javaMode)(nil)
)
