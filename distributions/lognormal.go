package distributions

import "math"

// LogNormal is LinkBench's LogNormalDistribution over [min, max) (reference
// §7.5): Choose returns exp(σZ + μ) rounded to an integer and clamped, with
// Z standard normal and μ = ln(median). LinkBench uses it for payload sizes:
// links LogNormal(0, 255, link_datasize, 1), nodes LogNormal(0, 1048576,
// node_datasize, 1). Immutable and safe for concurrent use.
//
// LinkBench implements only Choose and CDF (its pdf, expectedCount and
// quantile throw). Here PDF is the exact probability that Choose returns the
// id, ExpectedCount equals PDF, and Quantile inverts CDF; note that CDF is
// LinkBench's continuous log-normal CDF at id, not the cumulative sum of
// PDF (which is the CDF at id+0.5).
type LogNormal struct {
	min, max     int64
	median, mu   float64
	sigma, sqrt2 float64 // sqrt2 = σ√2
}

// NewLogNormal returns the log-normal distribution over [min, max) with the
// given median (> 0) and shape σ = sigma (> 0).
// Errors (*ParamError): max <= min ("max"); median not > 0 or not finite
// ("median"); sigma not > 0 or not finite ("sigma").
func NewLogNormal(min, max int64, median, sigma float64) (*LogNormal, error) {
	// LinkBench quirk §11.2-19 (LogNormal reads the unprefixed median and sigma keys): decided by the caller, which passes them.
	if err := checkRange(min, max); err != nil {
		return nil, err
	}
	if !(median > 0) || math.IsInf(median, 0) {
		return nil, paramErr("median", median, "must be > 0 and finite")
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, paramErr("sigma", sigma, "must be > 0 and finite")
	}
	return &LogNormal{min: min, max: max, median: median, mu: math.Log(median),
		sigma: sigma, sqrt2: sigma * math.Sqrt2}, nil
}

// cdfAt is the continuous log-normal CDF at x > 0 as Apache Commons Math's
// LogNormalDistribution(scale μ, shape σ) computes it: 0 for x <= 0,
// saturating to 0 or 1 when |ln x - μ| > 40σ, else 0.5 + 0.5*erf((ln x - μ)/(σ√2)).
func (l *LogNormal) cdfAt(x float64) float64 {
	if x <= 0 {
		return 0
	}
	dev := math.Log(x) - l.mu
	if math.Abs(dev) > 40*l.sigma {
		if dev < 0 {
			return 0
		}
		return 1
	}
	return 0.5 + 0.5*math.Erf(dev/l.sqrt2)
}

// CDF returns 0 below min, 1 at or above max, else the continuous log-normal
// CDF at id (reference §7.5).
func (l *LogNormal) CDF(id int64) float64 {
	if id < l.min {
		return 0
	}
	if id >= l.max {
		return 1
	}
	return l.cdfAt(float64(id))
}

// PDF returns the probability that Choose returns id: with F the continuous
// CDF, F(id+0.5) - F(id-0.5) inside the range, the clamped mass F(min+0.5) at
// min and 1 - F(max-1.5) at max-1 (Choose rounds half up). A Go extension:
// LinkBench's pdf throws.
func (l *LogNormal) PDF(id int64) float64 {
	if id < l.min || id >= l.max {
		return 0
	}
	lo, hi := 0.0, 1.0
	if id > l.min {
		lo = l.cdfAt(float64(id) - 0.5)
	}
	if id < l.max-1 {
		hi = l.cdfAt(float64(id) + 0.5)
	}
	return hi - lo
}

// ExpectedCount returns PDF(id) (the distribution has no scale). A Go
// extension: LinkBench's expectedCount throws, so LogNormal cannot be an
// out-degree model ([NewClassOutDegree] rejects it).
func (l *LogNormal) ExpectedCount(id int64) float64 { return l.PDF(id) }

// Quantile returns the smallest id in [min, max) with CDF(id) >= p (up to
// the rounding of the inverse error function): ceil(exp(μ + σ√2 erfinv(2p-1)))
// clamped to the range. p <= 0 gives min, p >= 1 gives max-1. A Go
// extension: LinkBench's quantile throws.
func (l *LogNormal) Quantile(p float64) int64 {
	if !(p > 0) {
		return l.min
	}
	if p >= 1 {
		return l.max - 1
	}
	x := math.Exp(l.mu + l.sqrt2*math.Erfinv(2*p-1))
	id := javaLong(math.Ceil(x))
	if id < l.min {
		return l.min
	}
	if id >= l.max {
		return l.max - 1
	}
	return id
}

// Choose returns clamp(Math.round(exp(r.NormFloat64()*σ + μ)), min, max-1)
// with Java's Math.round (ties up): one Gaussian draw (reference §7.5).
func (l *LogNormal) Choose(r Source) int64 {
	// float64() prevents fusing into an FMA: Java rounds the product.
	v := javaRound(math.Exp(float64(r.NormFloat64()*l.sigma) + l.mu))
	if v < l.min {
		return l.min
	}
	if v >= l.max {
		return l.max - 1
	}
	return v
}
