package distributions

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// OutDegree is an out-degree model: how many links each id1 gets before the
// link-type split (LinkBench's LinkDistributions and nlinks_func, reference
// §5.4, §7.8). Implementations are immutable, safe for concurrent use, O(1)
// in memory with respect to n and fast (NLinks runs on every link request).
type OutDegree interface {
	// NLinks returns getNlinks(s) >= 0 for s in [startid1, maxid1). When
	// Shuffled reports true, s is the rank (startid1 = most links) that the
	// ID2Chooser obtains by un-shuffling the id1.
	NLinks(s int64) int64
	// Shuffled reports whether the ID2Chooser applies the out-degree
	// shuffler (seed ShuffleSeedLinks) to id1 before NLinks.
	Shuffled() bool
	// Describe says which model this is, for reports.
	Describe() string
}

// realOutDegree is the REAL model: LinkBench's step lookup of the nlinks
// section.
type realOutDegree struct {
	min, max, n int64
	sec         *section
	desc        string
}

// OutDegree returns the REAL out-degree model of reference §5.4 over
// [min, max): NLinks(s) = round(expectedCount(s)) of the nlinks section,
// i.e. the value of the first point whose cumulative probability reaches
// u = 1 - (s-min)/n (rank 0 gets the largest value of the file); 0 outside
// the range. Shuffled. Errors (*ParamError): max <= min ("max"), no nlinks
// section ("real").
func (d *RealData) OutDegree(min, max int64) (OutDegree, error) {
	if err := checkRange(min, max); err != nil {
		return nil, err
	}
	if _, err := d.need(SectionNLinks); err != nil {
		return nil, err
	}
	return d.outDegree(min, max), nil
}

// outDegree builds the REAL model without checking the range (an empty or
// inverted range has no id inside).
func (d *RealData) outDegree(min, max int64) *realOutDegree {
	sec := d.sec[SectionNLinks]
	desc := fmt.Sprintf("real distribution nlinks (%d points) of %s", len(sec.values), d.Describe())
	return &realOutDegree{min: min, max: max, n: max - min, sec: sec, desc: desc}
}

// NLinks returns the file's value at rank s-min (0 outside the range).
func (o *realOutDegree) NLinks(s int64) int64 {
	if s < o.min || s >= o.max {
		return 0
	}
	// LinkBench quirk §11.1-5 (rank 0 gets the file's largest value whatever n is): kept in both modes.
	return o.sec.lookup(1 - float64(s-o.min)/float64(o.n))
}

// Shuffled returns true: REAL ranks are shuffled.
func (o *realOutDegree) Shuffled() bool { return true }

// Describe names the data (the file, or the built-in model).
func (o *realOutDegree) Describe() string { return o.desc }

// BuiltinOutDegree returns the built-in out-degree model over [min, max),
// for runs without LinkBench's Distribution.dat: the REAL out-degree
// ([RealData.OutDegree]) of BuiltinRealData(Vintage2017), the fitted model
// of the nlinks section of the 2017 Distribution.dat (see [BuiltinRealData]
// for the model and its measured fit). Shuffled, like REAL; rank 0 gets the
// file's largest value (4181357). NLinks is 0 outside the range; for
// max <= min every id is outside.
func BuiltinOutDegree(min, max int64) OutDegree {
	d := &RealData{vintage: Vintage2017, builtin: true}
	d.sec[SectionNLinks] = builtinSection(Vintage2017, SectionNLinks)
	return d.outDegree(min, max)
}

// classOutDegree is a class-based model: round(dist.ExpectedCount(s)).
type classOutDegree struct {
	dist Distribution
	desc string
}

// NewClassOutDegree returns the out-degree model of a distribution class
// (nlinks_func = a class name, reference §5.4): NLinks(s) =
// round(dist.ExpectedCount(s)) (Java Math.round), with the distribution
// built by NewDistribution(spec, min, max, real) (LinkBench reads its
// parameters with the prefix "nlinks_"; for Zipf, ExpectedCount is
// n*mean*pdf with nlinks_mean, or pdf alone without it). Shuffled.
// LogNormal is rejected, as in LinkBench (its expectedCount throws). Errors:
// those of NewDistribution, or a *ParamError ("kind").
func NewClassOutDegree(spec Spec, min, max int64, real *RealData) (OutDegree, error) {
	if spec.Kind == KindLogNormal {
		return nil, paramErr("kind", spec.Kind.String(), "LogNormal has no expected count and cannot be an out-degree model (as in LinkBench)")
	}
	if spec.Kind == KindReal && spec.RealDist == SectionNone {
		spec.RealDist = SectionNLinks
	}
	d, err := NewDistribution(spec, min, max, real)
	if err != nil {
		return nil, err
	}
	return &classOutDegree{dist: d, desc: fmt.Sprintf("%s distribution: round(expectedCount) over [%d, %d)", spec.Kind, min, max)}, nil
}

// NLinks returns round(ExpectedCount(s)), at least 0.
func (o *classOutDegree) NLinks(s int64) int64 {
	v := javaRound(o.dist.ExpectedCount(s))
	if v < 0 {
		return 0
	}
	return v
}

// Shuffled returns true: class-based ranks are shuffled.
func (o *classOutDegree) Shuffled() bool { return true }

// Describe names the class and range.
func (o *classOutDegree) Describe() string { return o.desc }

// Arithmetic out-degree modes.
const (
	arithConst = iota
	arithReciprocal
	arithMultiples
	arithExponential
	arithPerfectSquares
)

// arithModel is the formula of an arithmetic model of §5.4, shared by the
// default and the Java-compatible out-degrees.
type arithModel struct {
	mode         int
	name         string
	def, cfg     int64
	min, n       int64
	fcfg, invCfg float64
	logCfg       float64 // ln(nlinks_config), as Java's Math.log(nlinks_config)
}

// arithOutDegree is the default mode's arithmetic out-degree: stateless,
// never negative.
type arithOutDegree struct {
	arithModel
}

// javaArithOutDegree is LinkBench's arithmetic out-degree (see [JavaMode]):
// RECIPROCAL overflows at s == min, PERFECT_SQUARES accumulates.
type javaArithOutDegree struct {
	arithModel
	acc atomic.Int64 // PERFECT_SQUARES: nlinks_default with the bonuses added so far
}

// NewArithmeticOutDegree returns one of LinkBench's arithmetic out-degree
// models (nlinks_func, reference §5.4), not shuffled, over ids
// s in [min, max) (min = startid1, n = max - min), with d = nlinksDefault
// and c = nlinksConfig. mode is matched ignoring case:
//
//   - CONST: d.
//   - RECIPROCAL: d + ceil(n / (s - min)) (floating-point division); at
//     s == min, where LinkBench divides by zero and overflows (§11.2-14),
//     d + n.
//   - MULTIPLES: d + (c if s mod c == 0, else 0). Needs c >= 1.
//   - EXPONENTIAL: with e = ceil(ln s / ln c): d + s - (long)c^(e-1) if
//     (long)c^e == s, else d. Needs c >= 2.
//   - PERFECT_SQUARES (also accepted as PERFECT_POWERS, the name LinkBench's
//     sample configuration documents but does not accept): with
//     r = ceil(s^(1/c)): d + s - (long)(r-1)^c if (long)r^c == s, else d.
//     Needs c >= 1. LinkBench adds the bonus into nlinks_default itself, so
//     that later ids inherit earlier bonuses (§11.2-14); here NLinks is
//     stateless (fixed).
//
// Negative results are reported as 0. Errors (*ParamError): unknown mode
// ("mode"), d < 0 ("default"), c out of range ("config"), max <= min
// ("max"). [JavaMode] builds LinkBench's
// arithmetic instead.
func NewArithmeticOutDegree(mode string, nlinksDefault, nlinksConfig, min, max int64) (OutDegree, error) {
	m, err := newArithModel(mode, nlinksDefault, nlinksConfig, min, max)
	if err != nil {
		return nil, err
	}
	return &arithOutDegree{arithModel: m}, nil
}

func newArithModel(mode string, nlinksDefault, nlinksConfig, min, max int64) (arithModel, error) {
	if err := checkRange(min, max); err != nil {
		return arithModel{}, err
	}
	o := arithModel{def: nlinksDefault, cfg: nlinksConfig, min: min, n: max - min, fcfg: float64(nlinksConfig)}
	switch strings.ToUpper(strings.TrimSpace(mode)) {
	case "CONST":
		o.mode, o.name = arithConst, "CONST"
	case "RECIPROCAL":
		o.mode, o.name = arithReciprocal, "RECIPROCAL"
	case "MULTIPLES":
		o.mode, o.name = arithMultiples, "MULTIPLES"
	case "EXPONENTIAL":
		o.mode, o.name = arithExponential, "EXPONENTIAL"
	case "PERFECT_SQUARES", "PERFECT_POWERS":
		// LinkBench quirk §11.2-14 (PERFECT_POWERS documented but not accepted): fixed, the documented name is an alias in both modes.
		o.mode, o.name = arithPerfectSquares, "PERFECT_SQUARES"
	default:
		return arithModel{}, paramErr("mode", mode, "unknown out-degree mode; accepted (any case): real, CONST, RECIPROCAL, MULTIPLES, EXPONENTIAL, PERFECT_SQUARES (alias PERFECT_POWERS), or a distribution class name")
	}
	if nlinksDefault < 0 {
		return arithModel{}, paramErr("default", nlinksDefault, "must be >= 0")
	}
	switch o.mode {
	case arithMultiples, arithPerfectSquares:
		if nlinksConfig < 1 {
			return arithModel{}, paramErr("config", nlinksConfig, "%s needs a config >= 1", o.name)
		}
	case arithExponential:
		if nlinksConfig < 2 {
			return arithModel{}, paramErr("config", nlinksConfig, "EXPONENTIAL needs a config >= 2 (the base)")
		}
	}
	o.invCfg = 1 / o.fcfg
	o.logCfg = math.Log(o.fcfg)
	return o, nil
}

// bonus returns what the mode's formula adds to nlinks_default at s (for
// RECIPROCAL, s != min).
func (o *arithModel) bonus(s int64) int64 {
	switch o.mode {
	case arithReciprocal:
		return javaLong(math.Ceil(float64(o.n) / float64(s-o.min)))
	case arithMultiples:
		if s%o.cfg == 0 {
			return o.cfg
		}
	case arithExponential:
		e := math.Ceil(math.Log(float64(s)) / o.logCfg)
		if javaPowLong(o.cfg, e) == s {
			return s - javaPowLong(o.cfg, e-1)
		}
	case arithPerfectSquares:
		r := javaLong(javaCeilPow(float64(s), o.invCfg))
		if javaPowLong(r, o.fcfg) == s {
			return s - javaPowLong(r-1, o.fcfg)
		}
	}
	return 0
}

// NLinks evaluates the mode's formula at s (see NewArithmeticOutDegree).
func (o *arithOutDegree) NLinks(s int64) int64 {
	var v int64
	if o.mode == arithReciprocal && s == o.min {
		// LinkBench quirk §11.2-14 (RECIPROCAL overflows at id1 = startid1): fixed in default mode (d + n).
		v = o.def + o.n
	} else {
		// LinkBench quirk §11.2-14 (PERFECT_SQUARES accumulates into nlinks_default): fixed in default mode (stateless).
		v = o.def + o.bonus(s)
	}
	return max(v, 0)
}

// NLinks evaluates the mode's formula at s as LinkBench does (see
// JavaMode).
func (o *javaArithOutDegree) NLinks(s int64) int64 {
	switch {
	case o.mode == arithReciprocal && s == o.min:
		// LinkBench quirk §11.2-14 (RECIPROCAL overflows at id1 = startid1): kept in Java-compatible mode.
		return o.def + math.MaxInt64 // wraps around, as Java's long addition
	case o.mode == arithPerfectSquares:
		// LinkBench quirk §11.2-14 (PERFECT_SQUARES accumulates into nlinks_default): kept in Java-compatible mode.
		return o.acc.Add(o.bonus(s))
	}
	return o.def + o.bonus(s)
}

// Shuffled returns false: arithmetic modes are not shuffled.
func (o *javaArithOutDegree) Shuffled() bool { return false }

// Describe names the mode and its parameters.
func (o *javaArithOutDegree) Describe() string { return o.describe(", Java-compatible") }

// Shuffled returns false: arithmetic modes are not shuffled.
func (o *arithOutDegree) Shuffled() bool { return false }

// Describe names the mode and its parameters.
func (o *arithOutDegree) Describe() string { return o.describe("") }

func (o *arithModel) describe(variant string) string {
	return o.name + variant + " out-degree (nlinks_default " + strconv.FormatInt(o.def, 10) +
		", nlinks_config " + strconv.FormatInt(o.cfg, 10) + ")"
}
