package distributions

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Section names one empirical distribution of LinkBench's Distribution.dat
// (reference §7.6).
type Section int

// The sections. SectionNone is the zero value: "no section" (see
// Spec.RealDist).
const (
	SectionNone        Section = iota
	SectionNLinks              // "nlinks": links per id (out-degree)
	SectionLinkNReads          // "link_nreads": link reads per id1
	SectionLinkNWrites         // "link_nwrites": link writes per id1
	SectionNodeNReads          // "node_nreads": reads per node
	SectionNodeNWrites         // "node_nwrites": writes per node
	numSections
)

var sectionNames = [numSections]struct{ file, realdist string }{
	{"", ""},
	{"nlinks", "links"},
	{"link_nreads", "link_reads"},
	{"link_nwrites", "link_writes"},
	{"node_nreads", "node_reads"},
	{"node_nwrites", "node_writes"},
}

// String returns the section's name in Distribution.dat ("nlinks",
// "link_nreads", ...), or "none".
func (s Section) String() string {
	if s > SectionNone && s < numSections {
		return sectionNames[s].file
	}
	if s == SectionNone {
		return "none"
	}
	return fmt.Sprintf("Section(%d)", int(s))
}

// ParseSection maps a section name to its Section, ignoring case and
// surrounding white space. It accepts the names used in Distribution.dat
// (nlinks, link_nreads, link_nwrites, node_nreads, node_nwrites) and the
// values of LinkBench's "<prefix>realdist" key (links, link_reads,
// link_writes, node_reads, node_writes). Anything else returns a *ParamError
// (Param "realdist") listing them.
func ParseSection(s string) (Section, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	for i := SectionNLinks; i < numSections; i++ {
		if l == sectionNames[i].file || l == sectionNames[i].realdist {
			return i, nil
		}
	}
	return SectionNone, paramErr("realdist", s, "unknown section; accepted: links, link_reads, link_writes, node_reads, node_writes "+
		"(or the Distribution.dat names nlinks, link_nreads, link_nwrites, node_nreads, node_nwrites)")
}

// RealData holds the empirical distributions of a LinkBench Distribution.dat
// file, or their built-in models. It is immutable and safe for concurrent
// use; build it once per run with [LoadRealData], [ParseRealData] or
// [BuiltinRealData] and share it.
type RealData struct {
	path    string
	sec     [numSections]*section
	builtin bool    // BuiltinRealData
	vintage Vintage // of a built-in model
}

// section is one parsed distribution: the points (v_i, P_i) of a discrete
// cumulative distribution (P_i = percent/100 = fraction of ids whose value is
// <= v_i), plus derived data.
type section struct {
	name     Section
	values   []int64
	probs    []float64
	pcts     []float64 // the percents as read
	expected float64   // expected_val of §7.6
	guide    []int32   // lookup acceleration for lowerBound, see buildGuide
	// layers is the layer form of ccdf/cs (buildLayers), built on first
	// use (layerRuns): only a section sampled as an access distribution
	// needs it, and the largest, nlinks (23616 points in LinkBench's
	// file, 24 bytes each), seldom is.
	layers     []layer
	layersOnce sync.Once
}

// layer is a run of consecutive access layers k in (prevValue, value] that
// share one ccdf[k] = c, the fraction of ids with at least k accesses
// (reference §7.6). mass is (value - prevValue)*c, cum the cumulative mass up
// to and including this run: cum of the last run is expected_val (the "area"
// cs[last]).
type layer struct {
	c, mass, cum float64
}

// LoadRealData reads and validates the Distribution.dat file at path (see
// ParseRealData). Errors wrap the file error or the parse error with the path.
func LoadRealData(path string) (*RealData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("real distributions: %w", err)
	}
	defer f.Close()
	d, err := ParseRealData(f)
	if err != nil {
		return nil, fmt.Errorf("real distributions %s: %w", path, err)
	}
	d.path = path
	return d, nil
}

// maxTokenBytes bounds one token of Distribution.dat.
const maxTokenBytes = 1 << 16

// ParseRealData parses LinkBench's Distribution.dat format (reference §7.6):
// white-space separated tokens (any line endings); a section starts with its
// name (nlinks, link_nreads, link_nwrites, node_nreads or node_nwrites),
// followed by pairs "<integer value> <percent>" up to the next non-integer
// token. Percents are decimal numbers with a '.' decimal point (as Java reads
// them in an English locale). Sections may come in any order; absent ones are
// reported by [RealData.Has].
//
// Validation: every section appears at most once and has at least one point;
// values are integers >= 0 in strictly ascending order; percents are finite,
// in [0, 100] and non-decreasing; the last percent is 100 within 1e-9.
// Errors name the token number (1-based), the section and what was expected.
// ParseRealData never panics, whatever the input.
func ParseRealData(r io.Reader) (*RealData, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxTokenBytes)
	sc.Split(bufio.ScanWords)
	d := &RealData{}
	var cur *section
	tok := 0
	finish := func() error {
		if cur == nil {
			return nil
		}
		if err := cur.validate(); err != nil {
			return err
		}
		cur.derive()
		d.sec[cur.name] = cur
		return nil
	}
	for sc.Scan() {
		tok++
		t := sc.Text()
		v, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			if isIntegerSyntax(t) {
				return nil, fmt.Errorf("token %d (%s): value %q is out of range", tok, where(cur), t)
			}
			// A section name.
			name := SectionNone
			for i := SectionNLinks; i < numSections; i++ {
				if t == sectionNames[i].file {
					name = i
				}
			}
			if name == SectionNone {
				what := "a section name (nlinks, link_nreads, link_nwrites, node_nreads or node_nwrites)"
				if cur != nil {
					what = "an integer value or " + what
				}
				return nil, fmt.Errorf("token %d (%s): expected %s, got %q", tok, where(cur), what, clip(t))
			}
			if err := finish(); err != nil {
				return nil, err
			}
			if d.sec[name] != nil {
				return nil, fmt.Errorf("token %d: section %s appears twice", tok, name)
			}
			cur = &section{name: name}
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("token %d: expected a section name (nlinks, link_nreads, link_nwrites, node_nreads or node_nwrites), got the number %q", tok, clip(t))
		}
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return nil, scanErr(tok+1, cur, err)
			}
			return nil, fmt.Errorf("token %d (%s): expected a percent after value %d, got end of input", tok+1, where(cur), v)
		}
		tok++
		pt := sc.Text()
		p, err := strconv.ParseFloat(pt, 64)
		if err != nil || !isDecimalSyntax(pt) {
			return nil, fmt.Errorf("token %d (%s): expected a percent (decimal number) after value %d, got %q", tok, where(cur), v, clip(pt))
		}
		i := len(cur.values)
		switch {
		case v < 0:
			return nil, fmt.Errorf("token %d (%s): value %d is negative", tok-1, where(cur), v)
		case i > 0 && v <= cur.values[i-1]:
			return nil, fmt.Errorf("token %d (%s): value %d does not exceed the previous value %d (values must ascend)", tok-1, where(cur), v, cur.values[i-1])
		case !(p >= 0 && p <= 100):
			return nil, fmt.Errorf("token %d (%s): percent %s is outside [0, 100]", tok, where(cur), pt)
		case i > 0 && p < cur.pcts[i-1]:
			return nil, fmt.Errorf("token %d (%s): percent %s is below the previous percent %v (percents must not decrease)", tok, where(cur), pt, cur.pcts[i-1])
		}
		cur.values = append(cur.values, v)
		cur.pcts = append(cur.pcts, p)
	}
	if err := sc.Err(); err != nil {
		return nil, scanErr(tok+1, cur, err)
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if cur == nil {
		return nil, errors.New("no sections (expected nlinks, link_nreads, link_nwrites, node_nreads or node_nwrites)")
	}
	return d, nil
}

// scanErr reports a read error (or an over-long token) at token tok.
func scanErr(tok int, cur *section, err error) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("token %d (%s): token longer than %d bytes", tok, where(cur), maxTokenBytes)
	}
	return fmt.Errorf("token %d (%s): %w", tok, where(cur), err)
}

func where(s *section) string {
	if s == nil {
		return "before any section"
	}
	return fmt.Sprintf("section %s, point %d", s.name, len(s.values)+1)
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// isIntegerSyntax reports whether t looks like a decimal integer (so a parse
// failure means overflow rather than "not a number").
func isIntegerSyntax(t string) bool {
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

// isDecimalSyntax accepts the decimal forms Java's Double.parseDouble and an
// English-locale Scanner agree on: optional sign, digits with an optional '.'
// fraction, optional exponent. It rejects Go-only forms (hexadecimal floats,
// "inf", "nan", underscores).
func isDecimalSyntax(t string) bool {
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	digits := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
		digits++
	}
	if i < len(t) && t[i] == '.' {
		i++
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		e := 0
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
			e++
		}
		if e == 0 {
			return false
		}
	}
	return i == len(t)
}

func (s *section) validate() error {
	if len(s.values) == 0 {
		return fmt.Errorf("section %s has no points", s.name)
	}
	if last := s.pcts[len(s.pcts)-1]; math.Abs(last-100) > 1e-9 {
		return fmt.Errorf("section %s: the last percent is %v, expected 100 (the points are cumulative)", s.name, last)
	}
	return nil
}

// derive computes the probabilities, expected_val, the lookup guide and the
// layers.
func (s *section) derive() {
	s.probs = make([]float64, len(s.pcts))
	for i, p := range s.pcts {
		s.probs[i] = p / 100
	}
	// expected_val = P_0*v_0 + Σ_{i>=1} (P_i - P_{i-1})*v_i (reference §7.6).
	e := s.probs[0] * float64(s.values[0])
	for i := 1; i < len(s.values); i++ {
		e += (s.probs[i] - s.probs[i-1]) * float64(s.values[i])
	}
	s.expected = e
	s.buildGuide()
	// The points were appended as read: keep them without the spare
	// capacity (up to a quarter more) for the rest of the run.
	s.values = slices.Clone(s.values)
	s.pcts = slices.Clone(s.pcts)
}

// layerRuns returns the section's layers, building them on first use
// (safe for concurrent use).
func (s *section) layerRuns() []layer {
	s.layersOnce.Do(s.buildLayers)
	return s.layers
}

// guideBuckets is the number of equal-width buckets of the guide table
// over [0, 1] (a power of two, so u*guideBuckets is exact).
const guideBuckets = 4096

// buildGuide fills guide[b] = lowerBound(probs, b/guideBuckets) for
// b = 0..guideBuckets, so that a lookup of u in [b/G, (b+1)/G) only searches
// probs[guide[b] : guide[b+1]+1].
func (s *section) buildGuide() {
	s.guide = make([]int32, guideBuckets+2)
	for b := 0; b <= guideBuckets; b++ {
		s.guide[b] = int32(lowerBoundFloat(s.probs, 0, len(s.probs), float64(b)/guideBuckets))
	}
	s.guide[guideBuckets+1] = int32(len(s.probs))
}

// lowerBoundFloat returns the first index i in [lo, hi) with a[i] >= x, or hi.
func lowerBoundFloat(a []float64, lo, hi int, x float64) int {
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if a[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// index returns the index of the first point with P_i >= u (the step
// inverse CDF of §7.6), or the last point when u exceeds every P_i (which a
// file whose last percent is 100 - 1e-9 could otherwise cause).
func (s *section) index(u float64) int {
	// The step lookup of §7.6 (no interpolation), which causes quirk §11.1-5: kept in both modes.
	b := int(u * guideBuckets)
	if b < 0 {
		b = 0
	} else if b > guideBuckets {
		b = guideBuckets
	}
	lo, hi := int(s.guide[b]), int(s.guide[b+1])+1
	if hi > len(s.probs) {
		hi = len(s.probs)
	}
	i := lowerBoundFloat(s.probs, lo, hi, u)
	if i >= len(s.values) {
		i = len(s.values) - 1
	}
	return i
}

// lookup returns the value at index(u).
func (s *section) lookup(u float64) int64 { return s.values[s.index(u)] }

// buildLayers derives the layer form of LinkBench's ccdf and cs arrays
// (reference §7.6). LinkBench materialises ccdf[k] (fraction of ids with at
// least k accesses) and cs[k] = Σ_{j=1..k} ccdf[j] for every k up to the
// largest value; ccdf is constant between consecutive values of the file, so
// the same information fits in one run per point: layers (v_{i-1}, v_i] with
// ccdf = 1 - P_{i-1} (1 for the first point, whose layers are 1..v_0). Runs
// without layers (v_0 = 0) or with ccdf 0 are dropped.
func (s *section) buildLayers() {
	prev := int64(0)
	cum := 0.0
	for i, v := range s.values {
		c := 1.0
		if i > 0 {
			// (100 - pct)/100 rather than 1 - P: the subtraction of close
			// percents is exact, so tail fractions keep their precision.
			c = (100 - s.pcts[i-1]) / 100
		}
		width := v - prev
		prev = v
		if width <= 0 || !(c > 0) {
			continue
		}
		m := float64(width) * c
		cum += m
		s.layers = append(s.layers, layer{c: c, mass: m, cum: cum})
	}
	s.layers = slices.Clone(s.layers) // without append's spare capacity
}

// Path returns the file LoadRealData read, or "" for ParseRealData.
func (d *RealData) Path() string { return d.path }

// Has reports whether the data holds section s.
func (d *RealData) Has(s Section) bool {
	return s > SectionNone && s < numSections && d.sec[s] != nil
}

// ExpectedValue returns the mean value per id of section s, LinkBench's
// expected_val = P_0*v_0 + Σ_{i>=1} (P_i - P_{i-1})*v_i (reference §7.6);
// NaN when the section is absent.
func (d *RealData) ExpectedValue(s Section) float64 {
	if !d.Has(s) {
		return math.NaN()
	}
	return d.sec[s].expected
}

// Points returns the number of points of section s (0 when absent).
func (d *RealData) Points(s Section) int {
	if !d.Has(s) {
		return 0
	}
	return len(d.sec[s].values)
}

// MaxValue returns the largest value of section s (the value of the last
// point, 0 when absent). LinkBench's cs array for an access section has
// MaxValue+1 entries.
func (d *RealData) MaxValue(s Section) int64 {
	if !d.Has(s) {
		return 0
	}
	return d.sec[s].values[len(d.sec[s].values)-1]
}

func (d *RealData) need(s Section) (*section, error) {
	if s <= SectionNone || s >= numSections {
		return nil, paramErr("realdist", s.String(), "no such section")
	}
	if d.sec[s] == nil {
		return nil, paramErr("real", d.path, "%s has no %s section", d.Describe(), s)
	}
	return d.sec[s], nil
}
