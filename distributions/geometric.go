package distributions

import "math"

// Geometric is LinkBench's GeometricDistribution over [min, max) with success
// probability p (reference §7.4): PDF(min+k) = (1-p)^k * p.
//
// Sampling keeps LinkBench's off-by-one (§11.1-3, it shapes the multiget
// size): Choose returns min + ceil(ln(1-U)/ln(1-p)), which is >= min+1 for
// every U > 0, so the sampled k follows (1-p)^(k-1) * p for k >= 1 while PDF
// and CDF describe k >= 0. With the shipped multiget setting (min 1, max 128,
// p 0.382) the mean is about 3.62 ids, not the intended 2.6. Immutable and
// safe for concurrent use.
type Geometric struct {
	min, max, n int64
	p           float64
	lnq         float64 // ln(1-p)
	scale       float64
}

// NewGeometric returns the geometric distribution over [min, max) with
// success probability prob. With hasMean, ExpectedCount = n*mean*PDF.
// (LinkBench tests the presence of the unprefixed key "mean" to decide
// hasMean, §11.2-19; the caller decides.)
//
// Errors (*ParamError): max <= min ("max"); prob outside (0, 1] ("prob");
// mean negative or not finite ("mean").
func NewGeometric(min, max int64, prob float64, mean float64, hasMean bool) (*Geometric, error) {
	if err := checkRange(min, max); err != nil {
		return nil, err
	}
	if !(prob > 0 && prob <= 1) {
		return nil, paramErr("prob", prob, "must be in (0, 1]")
	}
	g := &Geometric{min: min, max: max, n: max - min, p: prob, lnq: math.Log(1 - prob), scale: 1}
	// LinkBench quirk §11.2-19 (Geometric tests the unprefixed "mean" key): decided by the caller, which passes hasMean.
	if hasMean {
		if !(mean >= 0) || math.IsInf(mean, 0) {
			return nil, paramErr("mean", mean, "must be finite and >= 0")
		}
		g.scale = float64(g.n) * mean
	}
	return g, nil
}

// PDF returns (1-p)^(id-min) * p inside [min, max), 0 outside.
func (g *Geometric) PDF(id int64) float64 {
	if id < g.min || id >= g.max {
		return 0
	}
	return powJ(1-g.p, float64(id-g.min)) * g.p
}

// ExpectedCount returns scale * PDF(id).
func (g *Geometric) ExpectedCount(id int64) float64 {
	return g.scale * g.PDF(id)
}

// CDF returns 1 - (1-p)^(id-min+1) inside the range, 0 below min, 1 at or
// above max.
func (g *Geometric) CDF(id int64) float64 {
	if id < g.min {
		return 0
	}
	if id >= g.max {
		return 1
	}
	return 1 - powJ(1-g.p, float64(id-g.min+1))
}

// Quantile returns min for p <= 0, else min + (long)ceil(ln(1-p)/ln(1-prob))
// capped at max-1 (reference §7.4, including the off-by-one described on
// Geometric).
func (g *Geometric) Quantile(p float64) int64 {
	if p <= 0 {
		return g.min
	}
	// LinkBench quirk §11.1-3 (Geometric sampling never returns min, multiget size off by one): kept in both modes.
	off := javaLong(math.Ceil(math.Log(1-p) / g.lnq))
	if off >= g.n {
		return g.max - 1
	}
	if off < 0 {
		return g.min
	}
	return g.min + off
}

// Choose returns Quantile(r.Float64()): one draw.
func (g *Geometric) Choose(r Source) int64 {
	return g.Quantile(r.Float64())
}
