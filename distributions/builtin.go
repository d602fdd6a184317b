package distributions

import (
	"fmt"
	"strings"
)

// Vintage names one of the two versions of LinkBench's Distribution.dat
// (reference §7.6): the 2017 file of the maintained fork (the default) and
// the 2011 file of the original benchmark (the fork's
// Distribution_2011.dat, identical in content to Facebook's
// Distribution.dat).
type Vintage int

// The vintages. Vintage2017 is the zero value.
const (
	Vintage2017 Vintage = iota // Distribution.dat of the maintained fork (2017)
	Vintage2011                // Distribution_2011.dat, the original (2011) data
)

// String returns "2017" or "2011".
func (v Vintage) String() string {
	switch v {
	case Vintage2017:
		return "2017"
	case Vintage2011:
		return "2011"
	}
	return fmt.Sprintf("Vintage(%d)", int(v))
}

// ParseVintage maps "2017" (or "md", "current") to Vintage2017 and "2011"
// (or "fb", "legacy") to Vintage2011, ignoring case and surrounding white
// space. Anything else returns a *ParamError (Param "vintage").
func ParseVintage(s string) (Vintage, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "2017", "md", "current":
		return Vintage2017, nil
	case "2011", "fb", "legacy":
		return Vintage2011, nil
	}
	return 0, paramErr("vintage", s, "unknown Distribution.dat vintage; accepted: 2017 (md, current), 2011 (fb, legacy)")
}

// builtinSection builds the built-in model of one section from its knots
// (builtin_real.go); nil for an unknown vintage.
func builtinSection(v Vintage, s Section) *section {
	values, pcts := builtinKnots(v, s)
	if values == nil {
		return nil
	}
	sec := &section{name: s, values: values, pcts: pcts}
	sec.derive()
	return sec
}

// BuiltinRealData returns the built-in models of the five sections of
// LinkBench's Distribution.dat of the given vintage, for runs without the
// file: a *RealData usable everywhere a parsed file is (the REAL out-degree,
// REAL access for every kind, the class RealDistribution, and
// Java-compatible cursors, although Java-compatible runs should use the
// real file to match LinkBench). It returns nil for an unknown vintage.
// Each call builds a new value (about 0.1 ms); build it once per run.
//
// Each model is a discrete cumulative distribution with 70 to 141 points
// ("knots", generated into builtin_real.go by internal/fitreal from the
// real files), derived by merging consecutive points of the file: a group
// of points becomes one point carrying the group's probability at an
// integer value near its mean value (a single point keeps its value). The
// largest value of the file, which the REAL out-degree gives to rank 0, is
// always kept as its own point. By construction (see internal/fitreal), for
// every section of both vintages:
//
//   - the mean value per id (LinkBench's expected_val: mean out-degree,
//     mean accesses per id) is within 1e-4 relative of the file's (measured:
//     -0.0037 % for the 2017 node_nreads, within 5e-6 % for the nine
//     others);
//   - the largest difference between the model's CDF and the file's, over
//     every value, is at most 1e-4 (measured 1.1e-6 to 9.99e-5);
//   - the fraction of ids above any value (1 - CDF) is within 10 % of the
//     file's, which keeps the heavy tails' shape.
//
// TestBuiltinRealDataFit measures all three against the real files.
func BuiltinRealData(v Vintage) *RealData {
	d := &RealData{vintage: v, builtin: true}
	for s := SectionNLinks; s < numSections; s++ {
		sec := builtinSection(v, s)
		if sec == nil {
			return nil
		}
		d.sec[s] = sec
	}
	return d
}

// Builtin reports whether d is a built-in model (BuiltinRealData) rather
// than a parsed file, and of which vintage.
func (d *RealData) Builtin() (Vintage, bool) { return d.vintage, d.builtin }

// Describe says where the data comes from, for reports: the file path
// (LoadRealData), "parsed Distribution.dat data" (ParseRealData), or
// "built-in model of the 2017 Distribution.dat" (BuiltinRealData).
func (d *RealData) Describe() string {
	switch {
	case d.builtin:
		return "built-in model of the " + d.vintage.String() + " Distribution.dat"
	case d.path != "":
		return d.path
	}
	return "parsed Distribution.dat data"
}
