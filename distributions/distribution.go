package distributions

import (
	"fmt"
	"strings"
)

// Distribution is a probability distribution over the integers of [min, max),
// ranked so that min is the most likely value (LinkBench's
// ProbabilityDistribution, reference §7.1). Implementations are immutable and
// safe for concurrent use; randomness comes from the Source passed to Choose.
type Distribution interface {
	// PDF returns P(X = id); 0 outside [min, max).
	PDF(id int64) float64
	// ExpectedCount returns PDF(id) times the distribution's scale (1, or
	// n*mean when a mean was configured): an expected number of items, used
	// as an out-degree. 0 outside [min, max).
	ExpectedCount(id int64) float64
	// CDF returns P(X <= id): 0 below min, 1 at or above max.
	CDF(id int64) float64
	// Quantile returns the smallest id in [min, max) whose CDF is >= p
	// (approximately, as each type documents), for p in [0, 1].
	Quantile(p float64) int64
	// Choose draws one id in [min, max) from r.
	Choose(r Source) int64
}

// Kind names a distribution class or a built-in access mode, as LinkBench's
// "*_function", "nlinks_func" and "link_multiget_dist" keys do.
type Kind int

// The kinds. KindUniform to KindReal, KindZipfExact and KindPiecewise are
// distribution classes usable anywhere a distribution is configured;
// KindRoundRobin to KindPerfectPower are the built-in access modes of §7.7,
// usable only as access distributions ([NewAccess]). The values are stable:
// new kinds are appended.
const (
	KindUniform      Kind = iota + 1 // UniformDistribution (§7.2)
	KindZipf                         // ZipfDistribution (§7.3)
	KindGeometric                    // GeometricDistribution (§7.4)
	KindLogNormal                    // LogNormalDistribution (§7.5)
	KindReal                         // RealDistribution / the REAL mode (§7.6)
	KindRoundRobin                   // ROUND_ROBIN access mode
	KindReciprocal                   // RECIPROCAL access mode
	KindMultiple                     // MULTIPLE access mode
	KindPower                        // POWER access mode
	KindPerfectPower                 // PERFECT_POWER access mode
	KindZipfExact                    // exact Zipf by rejection-inversion ([ZipfExact]; no LinkBench class)
	KindPiecewise                    // PiecewiseLinearDistribution over Spec.Points (§7.6)
)

const javaDistPrefix = "com.facebook.linkbench.distributions."

var kindNames = [...]struct {
	kind  Kind
	names []string // lower case; the first is String()
}{
	{KindUniform, []string{"uniform", javaDistPrefix + "uniformdistribution"}},
	{KindZipf, []string{"zipf", javaDistPrefix + "zipfdistribution"}},
	{KindGeometric, []string{"geometric", javaDistPrefix + "geometricdistribution"}},
	{KindLogNormal, []string{"lognormal", javaDistPrefix + "lognormaldistribution"}},
	{KindReal, []string{"real", "com.facebook.linkbench.realdistribution"}},
	{KindRoundRobin, []string{"round_robin"}},
	{KindReciprocal, []string{"reciprocal"}},
	{KindMultiple, []string{"multiple"}},
	{KindPower, []string{"power"}},
	{KindPerfectPower, []string{"perfect_power"}},
	{KindZipfExact, []string{"zipf_exact", "zipfexact"}},
	{KindPiecewise, []string{"piecewise", "piecewise_linear", "piecewiselinear", javaDistPrefix + "piecewiselineardistribution"}},
}

// ParseKind maps a LinkBench distribution name to its Kind, ignoring case.
// Accepted: the built-in access mode names of §7.7 (REAL, ROUND_ROBIN,
// RECIPROCAL, MULTIPLE, POWER, PERFECT_POWER), the short names uniform, zipf,
// geometric, lognormal and real, the Java class names
// com.facebook.LinkBench.distributions.{Uniform,Zipf,Geometric,LogNormal}Distribution
// and com.facebook.LinkBench.RealDistribution, zipf_exact (or ZipfExact) for
// [KindZipfExact], and piecewise (piecewise_linear, PiecewiseLinear,
// com.facebook.LinkBench.distributions.PiecewiseLinearDistribution) for
// [KindPiecewise]. Surrounding white space is ignored. Any other name
// returns a *ParamError (Param "kind") listing the accepted names.
func ParseKind(s string) (Kind, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	for _, kn := range kindNames {
		for _, n := range kn.names {
			if l == n {
				return kn.kind, nil
			}
		}
	}
	return 0, paramErr("kind", s, "unknown distribution; accepted (any case): "+
		"uniform, zipf, zipf_exact, geometric, lognormal, real, piecewise, round_robin, reciprocal, multiple, power, perfect_power, "+
		"com.facebook.LinkBench.distributions.UniformDistribution, com.facebook.LinkBench.distributions.ZipfDistribution, "+
		"com.facebook.LinkBench.distributions.GeometricDistribution, com.facebook.LinkBench.distributions.LogNormalDistribution, "+
		"com.facebook.LinkBench.RealDistribution, com.facebook.LinkBench.distributions.PiecewiseLinearDistribution")
}

// String returns the short name ("uniform", "zipf", "geometric",
// "lognormal", "real", "zipf_exact", "piecewise") or the built-in mode name
// in LinkBench's upper case ("ROUND_ROBIN", ...); ParseKind accepts either
// back.
func (k Kind) String() string {
	for _, kn := range kindNames {
		if kn.kind == k {
			if k.builtin() {
				return strings.ToUpper(kn.names[0])
			}
			return kn.names[0]
		}
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// builtin reports whether k is a built-in access mode (no distribution).
func (k Kind) builtin() bool { return k >= KindRoundRobin && k <= KindPerfectPower }

// Spec is a distribution's configuration in typed form; the caller parses
// LinkBench's "<prefix>..." keys into it. Only the fields of the chosen Kind
// are read.
type Spec struct {
	Kind Kind
	// Shape is Zipf's exponent θ ("<prefix>shape"), > 0 and != 1 for
	// KindZipf, any value > 0 for KindZipfExact.
	Shape float64
	// Mean is the optional scale ("<prefix>mean") of Uniform, Zipf and
	// Geometric, used when HasMean is set: ExpectedCount becomes
	// n*Mean*PDF.
	Mean    float64
	HasMean bool
	// Prob is Geometric's success probability p ("<prefix>prob"), in (0, 1].
	Prob float64
	// Median (> 0) and Sigma (> 0) parameterise LogNormal (LinkBench reads
	// the unprefixed keys "median" and "sigma", §11.2-19).
	Median, Sigma float64
	// Config is the parameter of the built-in access modes
	// ("<prefix>config").
	Config int64
	// RealDist selects the section when KindReal is configured as the class
	// com.facebook.LinkBench.RealDistribution ("<prefix>realdist");
	// SectionNone means "by access kind", as the REAL mode does.
	RealDist Section
	// Points are the points of KindPiecewise: a discrete cumulative
	// distribution, as a Distribution.dat section (see [ParsePoints] for the
	// text form a "<prefix>points" key may hold, and [NewPiecewise]).
	Points []Point
}

// NewDistribution builds the distribution spec describes over [min, max), in
// the default mode. Kinds: KindUniform, KindZipf, KindZipfExact,
// KindGeometric, KindLogNormal, KindPiecewise (spec.Points) and KindReal
// with spec.RealDist naming the section (real must then hold it). Built-in
// access modes and KindReal without RealDist are not distributions (use
// [NewAccess]); they, bad parameters and a missing section return a
// *ParamError. See [JavaMode] for LinkBench's exact behaviour.
func NewDistribution(spec Spec, min, max int64, real *RealData) (Distribution, error) {
	switch spec.Kind {
	case KindUniform:
		return NewUniform(min, max, spec.Mean, spec.HasMean)
	case KindZipf:
		return NewZipf(min, max, spec.Shape, spec.Mean, spec.HasMean)
	case KindZipfExact:
		return NewZipfExact(min, max, spec.Shape, spec.Mean, spec.HasMean)
	case KindPiecewise:
		return newPiecewisePoints(min, max, spec.Points)
	case KindGeometric:
		return NewGeometric(min, max, spec.Prob, spec.Mean, spec.HasMean)
	case KindLogNormal:
		return NewLogNormal(min, max, spec.Median, spec.Sigma)
	case KindReal:
		if spec.RealDist == SectionNone {
			return nil, paramErr("realdist", "", "RealDistribution as a class needs realdist (links, link_reads, link_writes, node_reads or node_writes)")
		}
		if real == nil {
			return nil, paramErr("real", "", "the real distributions need LinkBench's Distribution.dat (a *RealData)")
		}
		return real.Distribution(spec.RealDist, min, max)
	}
	return nil, paramErr("kind", spec.Kind.String(), "not a distribution class (uniform, zipf, zipf_exact, geometric, lognormal, piecewise, or real with realdist)")
}
