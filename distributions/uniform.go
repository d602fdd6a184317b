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
// min + nextInt(n): one draw), else min + r.Int63n(n).
//
// The second branch is the fix of reference §11.2-13: LinkBench forgets to
// add min for ranges >= 2^31-1 (and splits the draw in two); here every range
// gets a uniform id in [min, max).
func (u *Uniform) Choose(r Source) int64 {
	if u.n <= math.MaxInt32 {
		return u.min + int64(r.Int31n(int32(u.n)))
	}
	return u.min + r.Int63n(u.n)
}
