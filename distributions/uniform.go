package distributions

import (
	"math"
)

// Uniform is the uniform distribution over [min, max) (LinkBench's
// UniformDistribution, reference §7.2). Immutable and safe for concurrent
// use.
type Uniform struct {
	min, max, n int64
	scale       float64
}

// NewUniform returns the uniform distribution over [min, max). With hasMean,
// ExpectedCount is mean for every id (scale = n*mean); otherwise it is 1/n.
// Errors (*ParamError): max <= min ("max"); mean negative, NaN or infinite
// ("mean").
func NewUniform(min, max int64, mean float64, hasMean bool) (*Uniform, error) {
	if err := checkRange(min, max); err != nil {
		return nil, err
	}
	u := &Uniform{min: min, max: max, n: max - min, scale: 1}
	if hasMean {
		if !(mean >= 0) || math.IsInf(mean, 0) {
			return nil, paramErr("mean", mean, "must be finite and >= 0")
		}
		u.scale = float64(u.n) * mean
	}
	return u, nil
}

// PDF returns 1/n inside [min, max), 0 outside.
func (u *Uniform) PDF(id int64) float64 {
	if id < u.min || id >= u.max {
		return 0
	}
	return 1 / float64(u.n)
}

// ExpectedCount returns scale/n inside [min, max) (the configured mean, or
// 1/n), 0 outside.
func (u *Uniform) ExpectedCount(id int64) float64 {
	if id < u.min || id >= u.max {
		return 0
	}
	return u.scale / float64(u.n)
}

// CDF returns (id - min + 1)/n inside the range, 0 below min, 1 at or above
// max.
func (u *Uniform) CDF(id int64) float64 {
	if id < u.min {
		return 0
	}
	if id >= u.max {
		return 1
	}
	return float64(id-u.min+1) / float64(u.n)
}

// Quantile returns min + floor(p*n), or max-1 when that reaches max (p = 1);
// p below 0 gives min.
func (u *Uniform) Quantile(p float64) int64 {
	off := javaLong(p * float64(u.n))
	if off >= u.n {
		return u.max - 1
	}
	if off < 0 {
		return u.min
	}
	return u.min + off
}

// Choose returns min + r.Int31n(n) when n <= 2^31-1 (LinkBench's
// min + nextInt(n): one draw), else min + r.Int63n(n) (the default mode;
// [JavaMode] builds LinkBench's own draw, see there).
func (u *Uniform) Choose(r Source) int64 {
	if u.n <= math.MaxInt32 {
		return u.min + int64(r.Int31n(int32(u.n)))
	}
	// LinkBench quirk §11.2-13 (Uniform forgets min for n >= 2^31): fixed in default mode.
	return u.min + r.Int63n(u.n)
}

// uintRange is LinkBench's UINT_RANGE, Integer.MAX_VALUE - Integer.MIN_VALUE
// = 2^32 - 1.
const uintRange = math.MaxInt32 - math.MinInt32

// javaUniform is the Uniform of Java-compatible runs over more than
// 2^31-1 ids, with LinkBench's own Choose (see [JavaMode]).
type javaUniform struct {
	Uniform
}

// newJavaUniform returns the Java-compatible Uniform over [min, max): the
// default one for n <= 2^31-1, where LinkBench draws the same, else a
// javaUniform. Errors: those of NewUniform, and a *ParamError ("max") when
// n / (2^32-1) exceeds 2^31-1, where LinkBench's nextInt of the negative
// int cast throws on every draw.
func newJavaUniform(min, max int64, mean float64, hasMean bool) (Distribution, error) {
	u, err := NewUniform(min, max, mean, hasMean)
	if err != nil {
		return nil, err
	}
	if u.n <= math.MaxInt32 {
		return u, nil
	}
	if u.n/uintRange > math.MaxInt32 {
		return nil, paramErr("max", max, "LinkBench's UniformDistribution cannot draw from %d ids (its nextInt bound overflows)", u.n)
	}
	return &javaUniform{Uniform: *u}, nil
}

// Choose is LinkBench's choose for n > 2^31-1 (see JavaMode).
func (u *javaUniform) Choose(r Source) int64 {
	// LinkBench quirk §11.2-13 (Uniform forgets min for n >= 2^31): kept in Java-compatible mode.
	if u.n < uintRange {
		return randint2(r, u.n)
	}
	return uintRange*int64(r.Int31n(int32(u.n/uintRange))) + randint2(r, u.n%uintRange)
}

// randint2 is LinkBench's helper for m < 2^32-1 (see JavaMode).
func randint2(r Source, m int64) int64 {
	p := math.MaxInt32 / float64(m) // +Inf for m = 0: the first branch
	if r.Float64() < p {
		return int64(r.Int31n(math.MaxInt32))
	}
	return math.MaxInt32 + int64(r.Int31n(int32(m-math.MaxInt32)))
}
