package linkbench

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/internal/units"
	"github.com/linkbench-go/linkbench/stats"
)

// keyDef is one configuration key, declared once: its name, a one-line
// doc, its default, its allowed values, and how to set, print and check it.
// Set, Config.Properties, KnownKeys, Keys, DefaultConfig and Validate all
// read this table (keyTable); nothing else knows a key's default or range.
type keyDef struct {
	name string
	// doc is one line, for listings (Keys, the tool's -keys).
	doc string
	// def is the default as the key is written; DefaultConfig sets every
	// key that hasDef, in table order. A key without one leaves its field's
	// zero value.
	def    string
	hasDef bool
	// allowed describes the values check allows (a range, a list of
	// names), for listings and for check's messages.
	allowed string
	// set stores a value (surrounding white space already trimmed) into
	// c; a malformed value is a *ConfigError naming key (the key as
	// written: an alias names itself). Ranges are check's.
	set func(c *Config, key, v string) error
	// get returns the value as the key is written and whether
	// Config.Properties prints it; nil for keys that are never printed
	// (other spellings, keys without a field, the password).
	get func(c *Config) (string, bool)
	// check returns "" when c's value is allowed, else why not, with the
	// allowed range; nil when every value set accepts is allowed.
	check func(c *Config) string
	// aliasOf names the key this one is another spelling of.
	aliasOf string
	// ignored marks keys accepted for compatibility that have no effect.
	ignored bool
	// conn marks a Connection key (host, port, user, password): not
	// Config's (set does nothing; Config.Set refuses it).
	conn bool
}

// keyTable returns every configuration key, in the order Config.Properties
// prints them and Validate checks them. The table is built once and never
// changed.
var keyTable = sync.OnceValue(buildKeyTable)

// keyIndex maps each key name to its entry of keyTable.
var keyIndex = sync.OnceValue(func() map[string]*keyDef {
	t := keyTable()
	m := make(map[string]*keyDef, len(t))
	for i := range t {
		if _, dup := m[t[i].name]; dup {
			panic("linkbench: configuration key declared twice: " + t[i].name)
		}
		m[t[i].name] = &t[i]
	}
	return m
})

// ---- Parsing and printing values -------------------------------------

func malformed(key, v, what string) error {
	return &ConfigError{Key: key, Value: v, Reason: "malformed " + what}
}

func parseInt64(key, v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, &ConfigError{Key: key, Value: v, Reason: "out of range (-9223372036854775808..9223372036854775807)"}
	}
	if err != nil {
		return 0, malformed(key, v, "integer (a whole decimal number is expected)")
	}
	return n, nil
}

func parseInt(key, v string) (int, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	if errors.Is(err, strconv.ErrRange) {
		return 0, &ConfigError{Key: key, Value: v, Reason: "out of range (-2147483648..2147483647)"}
	}
	if err != nil {
		return 0, malformed(key, v, "integer (a whole decimal number in -2147483648..2147483647 is expected)")
	}
	return int(n), nil
}

func parseFloat(key, v string) (float64, error) {
	// Java's Double.parseDouble accepts a trailing d/D/f/F type suffix.
	s := strings.TrimRight(v, "dDfF")
	if s == "" {
		s = v
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, malformed(key, v, "number (a finite decimal number is expected)")
	}
	return f, nil
}

func parseBool(key, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, &ConfigError{Key: key, Value: v, Reason: "must be true or false"}
}

// secondsForm is what parseSeconds reads, for its errors.
const secondsForm = "number of seconds (a decimal number with at most 9 decimals, such as 30 or 0.25)"

// parseSeconds reads a duration in seconds: a whole number, as LinkBench
// reads it, or (a linkbench-go extension, so that every time.Duration
// prints and reads back exactly) a decimal number with at most nine
// decimals.
func parseSeconds(key, v string) (time.Duration, error) {
	whole, frac, hasFrac := strings.Cut(v, ".")
	if !hasFrac {
		n, err := strconv.ParseInt(v, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return 0, &ConfigError{Key: key, Value: v, Reason: "out of range (seconds, at most 9223372036.854775807)"}
		}
		if err != nil {
			return 0, malformed(key, v, secondsForm)
		}
		if n > math.MaxInt64/int64(time.Second) || n < math.MinInt64/int64(time.Second) {
			return 0, &ConfigError{Key: key, Value: v, Reason: "out of range (seconds, at most 9223372036.854775807)"}
		}
		return time.Duration(n) * time.Second, nil
	}
	neg := strings.HasPrefix(whole, "-")
	digits := strings.TrimPrefix(strings.TrimPrefix(whole, "-"), "+")
	if len(frac) == 0 || len(frac) > 9 || strings.Trim(frac, "0123456789") != "" || strings.Trim(digits, "0123456789") != "" {
		return 0, malformed(key, v, secondsForm)
	}
	var n int64
	if digits != "" {
		var err error
		if n, err = strconv.ParseInt(digits, 10, 64); err != nil || n > math.MaxInt64/int64(time.Second) {
			return 0, &ConfigError{Key: key, Value: v, Reason: "out of range (seconds, at most 9223372036.854775807)"}
		}
	}
	ns, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	d := n * int64(time.Second)
	if d > math.MaxInt64-ns {
		return 0, &ConfigError{Key: key, Value: v, Reason: "out of range (seconds, at most 9223372036.854775807)"}
	}
	d += ns
	if neg {
		d = -d
	}
	return time.Duration(d), nil
}

// formatSeconds writes d in seconds, exactly: a whole number when it is
// one, else with the decimals it needs (parseSeconds reads both).
func formatSeconds(d time.Duration) string {
	s, ns := int64(d/time.Second), int64(d%time.Second)
	if ns == 0 {
		return strconv.FormatInt(s, 10)
	}
	sign := ""
	if d < 0 {
		sign, s, ns = "-", -s, -ns
	}
	return sign + strconv.FormatInt(s, 10) + "." + strings.TrimRight(fmt.Sprintf("%09d", ns), "0")
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func formatFloats(v []float64) string {
	s := make([]string, len(v))
	for i, f := range v {
		s[i] = formatFloat(f)
	}
	return strings.Join(s, ",")
}

// formatPoints writes piecewise points as ParsePoints reads them
// ("value percent, ..."), each percent written so that it reads back as
// the same probability.
func formatPoints(pts []distributions.Point) string {
	s := make([]string, len(pts))
	for i, pt := range pts {
		s[i] = strconv.FormatInt(pt.Value, 10) + " " + percentOf(pt.Prob)
	}
	return strings.Join(s, ", ")
}

// percentOf returns the shortest decimal x with x/100 == p, as ParsePoints
// computes it (p*100 itself may not read back as p).
func percentOf(p float64) string {
	x := p * 100
	for range 8 {
		if x/100 == p {
			return formatFloat(x) // shortest text that reads back as x
		}
		if x/100 < p {
			x = math.Nextafter(x, math.Inf(1))
		} else {
			x = math.Nextafter(x, math.Inf(-1))
		}
	}
	return formatFloat(p * 100)
}

// ---- Ranges --------------------------------------------------------------

// bound is a numeric range: [lo, hi], either end optional, lo possibly
// excluded. Its String is the allowed range as listings and errors state
// it.
type bound[T int64 | float64] struct {
	lo, hi       T
	hasLo, hasHi bool
	loOpen       bool
}

func atLeast[T int64 | float64](lo T) bound[T] { return bound[T]{lo: lo, hasLo: true} }
func above[T int64 | float64](lo T) bound[T]   { return bound[T]{lo: lo, hasLo: true, loOpen: true} }
func between[T int64 | float64](lo, hi T) bound[T] {
	return bound[T]{lo: lo, hi: hi, hasLo: true, hasHi: true}
}
func (b bound[T]) upTo(hi T) bound[T] { b.hi, b.hasHi = hi, true; return b }
func (b bound[T]) any() bool          { return !b.hasLo && !b.hasHi }
func (b bound[T]) contains(v T) bool  { return b.any() || b.inside(v) }
func (b bound[T]) inside(v T) bool {
	if v != v { // NaN
		return false
	}
	if b.hasLo && (v < b.lo || b.loOpen && v == b.lo) {
		return false
	}
	return !b.hasHi || v <= b.hi
}

func formatNumber[T int64 | float64](v T) string {
	switch x := any(v).(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// String is the range as Keys lists it: "1..4096", ">= 0", "> 0 and <= 1e9".
func (b bound[T]) String() string {
	switch {
	case b.hasLo && b.hasHi && !b.loOpen:
		return formatNumber(b.lo) + ".." + formatNumber(b.hi)
	case b.hasLo && b.hasHi:
		return "> " + formatNumber(b.lo) + " and <= " + formatNumber(b.hi)
	case b.hasLo && b.loOpen:
		return "> " + formatNumber(b.lo)
	case b.hasLo:
		return ">= " + formatNumber(b.lo)
	case b.hasHi:
		return "<= " + formatNumber(b.hi)
	}
	return ""
}

// mustBe turns an allowed range into a reason: "must be in 1..4096",
// "must be >= 0".
func mustBe(allowed string) string {
	if allowed != "" && (allowed[0] >= '0' && allowed[0] <= '9' || allowed[0] == '-') {
		return "must be in " + allowed
	}
	return "must be " + allowed
}

// withNote appends a parenthesised note to an allowed range.
func withNote(allowed, note string) string {
	if note == "" {
		return allowed
	}
	if allowed == "" {
		return note
	}
	return allowed + " (" + note + ")"
}

// ---- Key constructors ----------------------------------------------------

// dflt gives d its default (as the key is written).
func (d keyDef) dflt(v string) keyDef { d.def, d.hasDef = v, true; return d }

// omitZero makes Config.Properties skip the key while its value prints
// as zero (its zero value, written) and its default is zero or absent: a
// value that reads back as what DefaultConfig has anyway.
func (d keyDef) omitZero(zero string) keyDef {
	get := d.get
	keep := d.hasDef && d.def != zero
	d.get = func(c *Config) (string, bool) {
		v, ok := get(c)
		return v, ok && (keep || v != zero)
	}
	return d
}

// when makes check apply only when cond holds.
func (d keyDef) when(cond func(*Config) bool) keyDef {
	check := d.check
	if check != nil {
		d.check = func(c *Config) string {
			if !cond(c) {
				return ""
			}
			return check(c)
		}
	}
	return d
}

// rule adds a check (its allowed text appended to the key's).
func (d keyDef) rule(allowed string, check func(*Config) string) keyDef {
	prev := d.check
	d.check = func(c *Config) string {
		if prev != nil {
			if r := prev(c); r != "" {
				return r
			}
		}
		return check(c)
	}
	switch {
	case allowed == "":
	case prev == nil || d.allowed == "": // no range so far: "any integer" is no longer true
		d.allowed = allowed
	default:
		d.allowed += "; " + allowed
	}
	return d
}

// allow replaces the key's allowed text (for a rule that narrows the
// range only where another key says so).
func (d keyDef) allow(allowed string) keyDef { d.allowed = allowed; return d }

func printAlways(s string) (string, bool) { return s, true }

func int64Key(name string, f func(*Config) *int64, b bound[int64], note, doc string) keyDef {
	allowed := b.String()
	if b.any() {
		allowed = "any integer"
	}
	d := keyDef{name: name, doc: doc, allowed: withNote(allowed, note),
		set: func(c *Config, k, v string) error {
			n, err := parseInt64(k, v)
			if err == nil {
				*f(c) = n
			}
			return err
		},
		get: func(c *Config) (string, bool) { return printAlways(strconv.FormatInt(*f(c), 10)) },
	}
	if !b.any() {
		d.check = func(c *Config) string {
			if b.contains(*f(c)) {
				return ""
			}
			return mustBe(d.allowed)
		}
	}
	return d
}

// intKey is an int64Key of an int field, read as LinkBench reads it (a
// Java int): an end b leaves open is the int32 limit there, and the
// allowed range says so.
func intKey(name string, f func(*Config) *int, b bound[int64], note, doc string) keyDef {
	if !b.hasLo {
		b.lo, b.hasLo, b.loOpen = math.MinInt32, true, false
	}
	if !b.hasHi {
		b = b.upTo(math.MaxInt32)
	}
	d := int64Key(name, nil, b, note, doc)
	d.set = func(c *Config, k, v string) error {
		n, err := parseInt64(k, v)
		if err != nil {
			return err
		}
		if n < math.MinInt32 || n > math.MaxInt32 {
			return &ConfigError{Key: k, Value: v, Reason: mustBe(d.allowed)}
		}
		*f(c) = int(n)
		return nil
	}
	d.get = func(c *Config) (string, bool) { return printAlways(strconv.Itoa(*f(c))) }
	if d.check != nil {
		d.check = func(c *Config) string {
			if b.contains(int64(*f(c))) {
				return ""
			}
			return mustBe(d.allowed)
		}
	}
	return d
}

func floatKey(name string, f func(*Config) *float64, b bound[float64], note, doc string) keyDef {
	allowed := b.String()
	if b.any() {
		allowed = "any number"
	}
	d := keyDef{name: name, doc: doc, allowed: withNote(allowed, note),
		set: func(c *Config, k, v string) error {
			x, err := parseFloat(k, v)
			if err == nil {
				*f(c) = x
			}
			return err
		},
		get: func(c *Config) (string, bool) { return printAlways(formatFloat(*f(c))) },
	}
	d.check = func(c *Config) string {
		if x := *f(c); !math.IsNaN(x) && !math.IsInf(x, 0) && b.contains(x) {
			return ""
		}
		if b.any() {
			return "must be a finite number"
		}
		return mustBe(d.allowed)
	}
	return d
}

func boolKey(name string, f func(*Config) *bool, doc string) keyDef {
	return keyDef{name: name, doc: doc, allowed: "true, false (any case)",
		set: func(c *Config, k, v string) error {
			b, err := parseBool(k, v)
			if err == nil {
				*f(c) = b
			}
			return err
		},
		get: func(c *Config) (string, bool) { return printAlways(strconv.FormatBool(*f(c))) },
	}
}

func stringKey(name string, f func(*Config) *string, allowed, doc string) keyDef {
	return keyDef{name: name, doc: doc, allowed: allowed,
		set: func(c *Config, _, v string) error { *f(c) = v; return nil },
		get: func(c *Config) (string, bool) { return printAlways(*f(c)) },
	}
}

// secondsKey is a duration written in seconds (up to 9 decimals), >= 0.
func secondsKey(name string, f func(*Config) *time.Duration, note, doc string) keyDef {
	if note != "" {
		note = "; " + note
	}
	d := keyDef{name: name, doc: doc, allowed: ">= 0 seconds (up to 9 decimals" + note + ")",
		set: func(c *Config, k, v string) error {
			x, err := parseSeconds(k, v)
			if err == nil {
				*f(c) = x
			}
			return err
		},
		get: func(c *Config) (string, bool) { return printAlways(formatSeconds(*f(c))) },
	}
	d.check = func(c *Config) string {
		if *f(c) >= 0 {
			return ""
		}
		return "must be >= 0 seconds"
	}
	return d
}

// clampedSeconds makes a seconds key read a negative value as 0 (as
// LinkBench reads warmup_time); Validate still refuses a negative field.
func clampedSeconds(d keyDef, f func(*Config) *time.Duration) keyDef {
	d.allowed = "any number of seconds (up to 9 decimals; a negative value means 0, as in LinkBench)"
	d.check = func(c *Config) string {
		if *f(c) < 0 {
			return "must be >= 0 seconds"
		}
		return ""
	}
	set := d.set
	d.set = func(c *Config, k, v string) error {
		if err := set(c, k, v); err != nil {
			return err
		}
		*f(c) = max(*f(c), 0)
		return nil
	}
	return d
}

func seedKey(name string, f func(*Config) *Seed, doc string) keyDef {
	return keyDef{name: name, doc: doc, allowed: "any integer (absent: drawn at random, and reported)",
		set: func(c *Config, k, v string) error {
			n, err := parseInt64(k, v)
			if err == nil {
				*f(c) = FixedSeed(n)
			}
			return err
		},
		get: func(c *Config) (string, bool) {
			s := *f(c)
			return strconv.FormatInt(s.Value, 10), s.Set
		},
	}
}

// aliasKey is another spelling of the key canonical (defined with set).
func aliasKey(name, canonical string, set func(c *Config, key, v string) error, why string) keyDef {
	return keyDef{name: name, aliasOf: canonical, set: set, allowed: "as " + canonical,
		doc: "another spelling of " + canonical + " (" + why + ")"}
}

// ignoredKey is accepted for compatibility and has no effect.
func ignoredKey(name, why string) keyDef {
	return keyDef{name: name, doc: "no effect: " + why, allowed: "any", ignored: true,
		set: func(*Config, string, string) error { return nil }}
}

// distKinds is the allowed text of a distribution key.
const (
	distClasses = "uniform, zipf, zipf_exact, geometric, lognormal, real, piecewise or their Java class " +
		"(com.facebook.LinkBench.distributions.ZipfDistribution, ...)"
	accessKinds = distClasses + ", or a built-in mode: REAL, ROUND_ROBIN, RECIPROCAL, MULTIPLE, POWER, PERFECT_POWER"
)

// distParams holds the defaults of one distribution's keys.
type distParams struct {
	function, shape, prob, config string
}

// distKeys returns the keys of one distribution: fnKey (the function,
// "" for none: nlinks_func names nlinks_'s class), then "<prefix>shape",
// "<prefix>mean", "<prefix>prob", "<prefix>median", "<prefix>sigma",
// "<prefix>config" (unless noConfig), "<prefix>points", "<prefix>realdist".
// what names the distribution in docs.
func distKeys(prefix, fnKey, what, allowed string, f func(*Config) *DistConfig, def distParams, noConfig bool) []keyDef {
	spec := func(c *Config) *distributions.Spec { return &f(c).Spec }
	var keys []keyDef
	if fnKey != "" {
		fn := keyDef{name: fnKey, doc: what + ": the distribution (empty: none)", allowed: allowed + "; empty: none",
			set: func(c *Config, k, v string) error {
				d := f(c)
				if v == "" { // none: the zero DistConfig's Function, Kind and Set
					d.Function, d.Spec.Kind, d.Set = "", 0, false
					return nil
				}
				kind, err := distributions.ParseKind(v)
				if err != nil {
					return &ConfigError{Key: k, Value: v, Reason: err.Error()}
				}
				d.Function, d.Spec.Kind, d.Set = v, kind, true
				return nil
			},
			get: func(c *Config) (string, bool) {
				d := f(c)
				switch {
				case !d.Set:
					return "", def.function != "" // written out only to unset a default
				case d.Function == "":
					return d.Spec.Kind.String(), true
				}
				return d.Function, true
			},
		}
		if def.function != "" {
			fn = fn.dflt(def.function)
		}
		keys = append(keys, fn)
	}
	param := func(name, doc string, p func(*distributions.Spec) *float64, def string) keyDef {
		d := floatKey(prefix+name, func(c *Config) *float64 { return p(spec(c)) }, bound[float64]{}, "", what+": "+doc)
		d.allowed, d.check = "a number (checked by the distribution when the run is prepared)", nil
		if def != "" {
			d = d.dflt(def)
		}
		return d.omitZero("0")
	}
	keys = append(keys,
		param("shape", "Zipf exponent", func(s *distributions.Spec) *float64 { return &s.Shape }, def.shape),
		keyDef{name: prefix + "mean", doc: what + ": scale of Uniform, Zipf or Geometric (absent: none)",
			allowed: "a number (checked by the distribution when the run is prepared)",
			set: func(c *Config, k, v string) error {
				x, err := parseFloat(k, v)
				if err == nil {
					spec(c).Mean, spec(c).HasMean = x, true
				}
				return err
			},
			get: func(c *Config) (string, bool) { return formatFloat(spec(c).Mean), spec(c).HasMean },
		},
		param("prob", "Geometric success probability", func(s *distributions.Spec) *float64 { return &s.Prob }, def.prob),
		param("median", "LogNormal median", func(s *distributions.Spec) *float64 { return &s.Median }, ""),
		param("sigma", "LogNormal sigma", func(s *distributions.Spec) *float64 { return &s.Sigma }, ""),
	)
	if !noConfig {
		cfg := int64Key(prefix+"config", func(c *Config) *int64 { return &spec(c).Config }, bound[int64]{},
			"", what+": parameter of a built-in access mode")
		cfg.allowed = "an integer (checked by the mode when the run is prepared)"
		if def.config != "" {
			cfg = cfg.dflt(def.config)
		}
		keys = append(keys, cfg.omitZero("0"))
	}
	keys = append(keys,
		keyDef{name: prefix + "points", doc: what + ": points of a piecewise distribution",
			allowed: `"value percent, ..." (cumulative percent, as in Distribution.dat)`,
			set: func(c *Config, k, v string) error {
				if v == "" {
					spec(c).Points = nil
					return nil
				}
				pts, err := distributions.ParsePoints(v)
				if err != nil {
					return keyError(prefix, v, err)
				}
				spec(c).Points = pts
				return nil
			},
			get: func(c *Config) (string, bool) { return formatPoints(spec(c).Points), len(spec(c).Points) > 0 },
		},
		keyDef{name: prefix + "realdist", doc: what + ": section of Distribution.dat for the RealDistribution class",
			allowed: "links, link_reads, link_writes, node_reads, node_writes (or the file's names: nlinks, ...)",
			set: func(c *Config, k, v string) error {
				s, err := distributions.ParseSection(v)
				if err != nil {
					return &ConfigError{Key: k, Value: v, Reason: err.Error()}
				}
				spec(c).RealDist = s
				return nil
			},
			get: func(c *Config) (string, bool) {
				s := spec(c).RealDist
				return realdistName(s), s != distributions.SectionNone
			},
		},
	)
	return keys
}

// realdistName is the "<prefix>realdist" value of section s, as LinkBench
// writes it (ParseSection also reads Distribution.dat's names).
func realdistName(s distributions.Section) string {
	switch s {
	case distributions.SectionNLinks:
		return "links"
	case distributions.SectionLinkNReads:
		return "link_reads"
	case distributions.SectionLinkNWrites:
		return "link_writes"
	case distributions.SectionNodeNReads:
		return "node_reads"
	case distributions.SectionNodeNWrites:
		return "node_writes"
	}
	return s.String()
}

// parseDataGenKind accepts the generator's Java class name, its simple
// name or a short name, case-insensitively.
func parseDataGenKind(v string) (DataGenKind, bool) {
	s := strings.ToLower(v)
	s = strings.TrimPrefix(s, "com.facebook.linkbench.generators.")
	switch s {
	case "motifdatagenerator", "motif":
		return DataGenMotif, true
	case "uniformdatagenerator", "uniform":
		return DataGenUniform, true
	}
	return "", false
}

const dataGenNames = "motif, uniform (any case) or their class (com.facebook.LinkBench.generators.MotifDataGenerator, ...)"

// dataGenKeys returns the keys of one payload generator: gen,
// gen_startbyte, gen_endbyte, gen_uniqueness, gen_motif_length. used
// tells whether a run needs the generator (it must then be set).
func dataGenKeys(gen, what string, f func(*Config) *DataGenConfig, used func(*Config) bool, usedWhen string,
	start, end, uniq string) []keyDef {
	isSet := func(c *Config) bool { return f(c).Set }
	kind := keyDef{name: gen, doc: what + ": the payload generator (empty: none)", allowed: dataGenNames + "; empty: none (required " + usedWhen + ")",
		set: func(c *Config, k, v string) error {
			g := f(c)
			if v == "" {
				g.Kind, g.Set = "", false
				return nil
			}
			kind, ok := parseDataGenKind(v)
			if !ok {
				return &ConfigError{Key: k, Value: v, Reason: "must be com.facebook.LinkBench.generators." +
					"MotifDataGenerator or ...UniformDataGenerator (or motif, uniform)"}
			}
			g.Kind, g.Set = kind, true
			return nil
		},
		get: func(c *Config) (string, bool) {
			g := f(c)
			if !g.Set {
				return "", true // the default is set: written out to unset it
			}
			return string(g.Kind), true
		},
		check: func(c *Config) string {
			g := f(c)
			switch {
			case !g.Set && used(c):
				return "must be set (a MotifDataGenerator or UniformDataGenerator class) " + usedWhen
			case g.Set && g.Kind != DataGenMotif && g.Kind != DataGenUniform:
				return "must be MotifDataGenerator or UniformDataGenerator"
			}
			return ""
		},
	}.dflt("motif")
	startByte := intKey(gen+"_startbyte", func(c *Config) *int { return &f(c).StartByte }, between[int64](0, 254), "",
		what+": smallest payload byte").when(isSet).dflt(start)
	endByte := intKey(gen+"_endbyte", func(c *Config) *int { return &f(c).EndByte }, bound[int64]{}, "",
		what+": largest payload byte").dflt(end)
	endByte.allowed = "> " + gen + "_startbyte, at most 255"
	endByte.check = func(c *Config) string {
		g := f(c)
		if !g.Set || g.EndByte > g.StartByte && g.EndByte <= 255 {
			return ""
		}
		return fmt.Sprintf("must be in %d..255 (greater than %s_startbyte)", g.StartByte+1, gen)
	}
	uniqueness := floatKey(gen+"_uniqueness", func(c *Config) *float64 { return &f(c).Uniqueness }, between[float64](0, 1),
		"motif only", what+": share of fresh 128-byte chunks (motif)").
		when(func(c *Config) bool { return f(c).Set && f(c).Kind == DataGenMotif }).dflt(uniq)
	return []keyDef{kind, startByte, endByte, uniqueness,
		// Quirk §11.1-6 (motif buffer fixed at 512 bytes): kept in both modes.
		ignoredKey(gen+"_motif_length", "LinkBench never reads it: the motif buffer is always 512 bytes"),
	}
}

// arithmeticModes are the arithmetic out-degree models of nlinks_func
// (reference §5.4), in lower case.
var arithmeticModes = []string{"const", "reciprocal", "multiples", "exponential", "perfect_squares", "perfect_powers"}

// nlinksFuncAllowed is nlinks_func's allowed text.
const nlinksFuncAllowed = "real, const, reciprocal, multiples, exponential, perfect_squares, perfect_powers " +
	"(any case) or a distribution class"

// ---- The table -------------------------------------------------------------

func buildKeyTable() []keyDef {
	bulkInsertCount := func(c *Config) *int { return &c.BulkInsertCount }
	binlog := func(c *Config) *bool { return &c.Store.DisableBinlogLoad }
	hasNodeOps := func(c *Config) bool { return c.Mix.HasNodeOps() }
	dbprefix := stringKey("dbprefix", func(c *Config) *string { return &c.DBPrefix }, "any non-empty text",
		"database name prefix: the databases are dbprefix0, dbprefix1, ...").dflt("linkdb")
	dbprefix.check = func(c *Config) string {
		if c.DBPrefix == "" {
			return "must not be empty"
		}
		return ""
	}

	t := []keyDef{
		// Graph and load phase.
		int64Key("startid1", func(c *Config) *int64 { return &c.StartID1 }, atLeast[int64](1), "",
			"first node id").dflt("1"),
		int64Key("maxid1", func(c *Config) *int64 { return &c.MaxID1 }, bound[int64]{}, "",
			"one past the last node id loaded").dflt("10000001").
			rule("> startid1, at most startid1 + 2^60", func(c *Config) string {
				switch {
				case c.MaxID1 <= c.StartID1:
					return fmt.Sprintf("must be greater than startid1 (%d)", c.StartID1)
				case c.MaxID1-c.StartID1 > maxIDs:
					return fmt.Sprintf("must be at most startid1 + %d (2^60 ids)", int64(maxIDs))
				}
				return ""
			}),
		intKey("loaders", func(c *Config) *int { return &c.Loaders }, between[int64](1, 4096), "",
			"link loader goroutines").dflt("10"),
		boolKey("generate_nodes", func(c *Config) *bool { return &c.GenerateNodes }, "also load the nodes").dflt("true"),
		int64Key("loader_chunk_size", func(c *Config) *int64 { return &c.LoaderChunkSize }, atLeast[int64](1), "",
			"id1s per load work chunk").dflt("2048"),
		intKey("bulk_insert_count", bulkInsertCount, between[int64](1, 1_000_000), "",
			"rows per bulk insert").dflt("1024"),
		// Quirk §11.2-18 (keys documented as MySQL_...): both spellings accepted.
		aliasKey("mysql_bulk_insert_batch", "bulk_insert_count", intKey("", bulkInsertCount, bound[int64]{}, "", "").set,
			"the original benchmark's MySQL key"),
		aliasKey("MySQL_bulk_insert_batch", "bulk_insert_count", intKey("", bulkInsertCount, bound[int64]{}, "", "").set,
			"as LinkBench's sample configuration spells it"),
		intKey("bulk_insert_kb", func(c *Config) *int { return &c.BulkInsertKB }, atLeast[int64](0), "0: no KiB cap",
			"also flush node batches at this many KiB").dflt("0"),
		seedKey("load_random_seed", func(c *Config) *Seed { return &c.LoadRandomSeed }, "seed of the load phase"),
		{name: "shard", doc: "this process's shard of a run driven by N processes: it loads shard I's chunks, its requesters are I*requesters..",
			allowed: shardAllowed, def: "0/1", hasDef: true,
			set: func(c *Config, k, v string) error {
				s, err := ParseShard(v)
				if err != nil { // the value as given, not as a Shard would print it
					return &ConfigError{Key: k, Value: v, Reason: err.Error() + "; allowed: " + shardAllowed}
				}
				c.Shard = s
				return nil
			},
			get: func(c *Config) (string, bool) { return c.Shard.String(), true },
			check: func(c *Config) string {
				if r := c.Shard.Check(); r != "" { // a Config set field by field
					return r
				}
				if c.Shard.Sharded() && c.RNG == RNGJava {
					return "a sharded run needs rng = fast (rng = java draws LinkBench's sequential streams)"
				}
				return ""
			},
		},
		{name: "rng", doc: "random mode: fast (own stream per chunk and requester) or java (LinkBench's draws)",
			allowed: "fast, java (any case)", def: "fast", hasDef: true,
			set: func(c *Config, k, v string) error {
				switch strings.ToLower(v) {
				case "fast":
					c.RNG = RNGFast
				case "java":
					c.RNG = RNGJava
				default:
					return &ConfigError{Key: k, Value: v, Reason: "must be fast or java"}
				}
				return nil
			},
			get: func(c *Config) (string, bool) {
				if c.RNG == "" {
					return string(RNGFast), true
				}
				return string(c.RNG), true
			},
			check: func(c *Config) string {
				if c.RNG != "" && c.RNG != RNGFast && c.RNG != RNGJava {
					return "must be fast or java"
				}
				return ""
			},
		},

		// Out-degree and payloads.
		{name: "workload_file", doc: "a second .properties file that fills the keys still absent (read by ParseProperties)",
			allowed: "a path (relative: under $LINKBENCH_HOME, beside the file naming it, in PropertiesOptions.WorkDir)",
			set:     func(*Config, string, string) error { return nil }},
		stringKey("data_file", func(c *Config) *string { return &c.DataFile },
			"a path; empty: the built-in model (fast mode only)",
			"LinkBench's Distribution.dat; the default stands for the built-in model unless ParseProperties finds the file").
			dflt(DefaultDataFile),
		{name: "data_vintage", doc: "built-in model used without data_file: 2017 (maintained fork) or 2011 (original)",
			allowed: "2017 (md, current), 2011 (fb, legacy)", def: "2017", hasDef: true,
			set: func(c *Config, k, v string) error {
				vin, err := distributions.ParseVintage(v)
				if err != nil {
					return keyError("", v, err)
				}
				c.DataVintage = vin
				return nil
			},
			get: func(c *Config) (string, bool) { return c.DataVintage.String(), true },
			check: func(c *Config) string {
				if c.DataVintage != distributions.Vintage2017 && c.DataVintage != distributions.Vintage2011 {
					return "must be 2017 or 2011"
				}
				return ""
			},
		},
		int64Key("link_type_count", func(c *Config) *int64 { return &c.LinkTypeCount }, between[int64](1, 1000), "",
			"link types per id1").dflt("2"),
		stringKey("nlinks_func", func(c *Config) *string { return &c.NLinksFunc }, nlinksFuncAllowed,
			"out-degree model").dflt("real").
			rule("", func(c *Config) string {
				if fn := strings.ToLower(c.NLinksFunc); fn == "real" || slices.Contains(arithmeticModes, fn) {
					return ""
				}
				if _, err := distributions.ParseKind(c.NLinksFunc); err != nil {
					return "must be " + nlinksFuncAllowed
				}
				return ""
			}),
	}
	t = append(t, distKeys("nlinks_", "", "class-based out-degree", "", func(c *Config) *DistConfig { return &c.NLinks },
		distParams{}, true)...)
	t = append(t,
		int64Key("nlinks_config", func(c *Config) *int64 { return &c.NLinksConfig }, bound[int64]{}, "",
			"parameter of the arithmetic out-degree models").dflt("0").
			rule("", func(c *Config) string {
				switch strings.ToLower(c.NLinksFunc) {
				case "multiples", "perfect_squares", "perfect_powers":
					if c.NLinksConfig < 1 {
						return fmt.Sprintf("must be >= 1 when nlinks_func is %s", c.NLinksFunc)
					}
				case "exponential":
					if c.NLinksConfig < 2 {
						return fmt.Sprintf("must be >= 2 (the base) when nlinks_func is %s", c.NLinksFunc)
					}
				}
				return ""
			}).
			allow("any integer; >= 1 when nlinks_func is multiples, perfect_squares or perfect_powers; "+
				">= 2 when nlinks_func is exponential"),
		int64Key("nlinks_default", func(c *Config) *int64 { return &c.NLinksDefault }, atLeast[int64](0), "",
			"base out-degree of the arithmetic models").dflt("0"),
		int64Key("randomid2max", func(c *Config) *int64 { return &c.RandomID2Max }, between[int64](0, math.MaxInt32),
			"0: id2s follow id1", "if > 0, id2s are uniform in [0, randomid2max)").dflt("0"),
		floatKey("link_datasize", func(c *Config) *float64 { return &c.LinkDataSize }, above[float64](0).upTo(1e9), "",
			"median link payload, bytes").dflt("23"),
		floatKey("node_datasize", func(c *Config) *float64 { return &c.NodeDataSize }, above[float64](0).upTo(1e9), "",
			"median node payload, bytes").dflt("168"),
	)
	always := func(*Config) bool { return true }
	t = append(t, dataGenKeys("link_add_datagen", "new link payloads", func(c *Config) *DataGenConfig { return &c.LinkAddData },
		always, "always", "32", "100", "0.225")...)
	t = append(t, dataGenKeys("link_up_datagen", "updated link payloads", func(c *Config) *DataGenConfig { return &c.LinkUpData },
		always, "always", "32", "100", "0.225")...)
	t = append(t, dataGenKeys("node_add_datagen", "new node payloads", func(c *Config) *DataGenConfig { return &c.NodeAddData },
		func(c *Config) bool { return c.GenerateNodes || c.Mix.HasNodeOps() },
		"when generate_nodes is true or the mix has node operations", "50", "220", "0.63")...)
	t = append(t, dataGenKeys("node_up_datagen", "updated node payloads", func(c *Config) *DataGenConfig { return &c.NodeUpData },
		hasNodeOps, "when the mix has node operations", "50", "220", "0.63")...)

	// Request phase.
	t = append(t,
		intKey("requesters", func(c *Config) *int { return &c.Requesters }, between[int64](0, 100000),
			"0 skips the request phase", "request goroutines").dflt("100"),
		int64Key("requests", func(c *Config) *int64 { return &c.Requests }, atLeast[int64](0),
			"9223372036854775807: Unlimited, maxtime ends the phase", "requests per requester after the warm-up").dflt("500000"),
		floatKey("requestrate", func(c *Config) *float64 { return &c.RequestRate }, atLeast[float64](0),
			"requests/s; 0: unthrottled", "mean request rate of each requester (open loop)").dflt("0"),
		floatKey("total_requestrate", func(c *Config) *float64 { return &c.TotalRequestRate }, atLeast[float64](0),
			"requests/s; 0: none, requestrate decides", "mean request rate of all requesters together, shared equally").
			dflt("0").omitZero("0").
			rule("", func(c *Config) string {
				if c.TotalRequestRate > 0 && c.RequestRate > 0 {
					return fmt.Sprintf("cannot be combined with requestrate (%g): set one of them", c.RequestRate)
				}
				return ""
			}),
		secondsKey("maxtime", func(c *Config) *time.Duration { return &c.MaxTime },
			"0: stop after the first request; 9223372036.854775807: NoTimeLimit",
			"time limit of the measured request phase, after the warm-up").dflt("100000"),
		clampedSeconds(secondsKey("warmup_time", func(c *Config) *time.Duration { return &c.WarmupTime },
			"", "unmeasured warm-up before the measured requests").dflt("0"),
			func(c *Config) *time.Duration { return &c.WarmupTime }),
		int64Key("max_failed_requests", func(c *Config) *int64 { return &c.MaxFailedRequests }, bound[int64]{},
			"negative: never abort", "a requester aborts when its failed requests exceed this").
			// Quirk §11.2-11 (0 when the key is absent): fixed, the shipped 100 is the default.
			dflt("100"),
		secondsKey("grace_time", func(c *Config) *time.Duration { return &c.GraceTime }, "0: cancel at once",
			"after maxtime, how long calls still waiting for the store may take before they are cancelled (abandoned)").dflt("5"),
		secondsKey("request_timeout", func(c *Config) *time.Duration { return &c.RequestTimeout }, "0: no timeout",
			"a call waiting longer for the store is cancelled (abandoned) and the requester goes on").dflt("0").omitZero("0"),
		seedKey("request_random_seed", func(c *Config) *Seed { return &c.RequestRandomSeed }, "seed of the request phase"),
	)
	// The operation mix, in LinkBench's cumulative-threshold order.
	for _, o := range requestOps {
		t = append(t, floatKey(o.key, func(c *Config) *float64 { return o.field(&c.Mix) }, between[float64](0, 100),
			"the ten shares sum to 100", "percent of requests that "+o.doc).dflt(o.share))
	}
	// Quirk §11.1-2 (getlinklist_history is a percentage): kept in both modes.
	t = append(t,
		floatKey("getlinklist_history", func(c *Config) *float64 { return &c.GetLinkListHistory }, between[float64](0, 100),
			"percent", "percent of link-list reads that page into older history").dflt("0.3"),
		intKey("id2gen_config", func(c *Config) *int { return &c.ID2GenConfig }, between[int64](0, 1),
			"1: each requester uses its own id2s", "per-requester disjoint id2s").dflt("0"),
	)
	zipf := "com.facebook.LinkBench.distributions.ZipfDistribution"
	t = append(t, distKeys("read_", "read_function", "link reads", accessKinds, func(c *Config) *DistConfig { return &c.Read },
		distParams{function: zipf, shape: "0.8"}, false)...)
	t = append(t, distKeys("read_uncorr_", "read_uncorr_function", "uncorrelated link reads and writes", accessKinds,
		func(c *Config) *DistConfig { return &c.ReadUncorr }, distParams{function: zipf, shape: "0.8"}, false)...)
	// Quirk §11.1-1 (write-uncorrelated keys read with the read_uncorr_
	// prefix, writes blended at read_uncorr_blend): kept in both modes.
	t = append(t, floatKey("read_uncorr_blend", func(c *Config) *float64 { return &c.ReadUncorrBlend }, between[float64](0, 100),
		"percent", "percent of link reads AND writes that use read_uncorr_").dflt("99.5"))
	t = append(t, distKeys("write_", "write_function", "link writes", accessKinds, func(c *Config) *DistConfig { return &c.Write },
		distParams{function: zipf, shape: "0.741"}, false)...)
	wu := distKeys("write_uncorr_", "write_uncorr_function", "never read (LinkBench quirk §11.1-1)", accessKinds,
		func(c *Config) *DistConfig { return &c.WriteUncorr }, distParams{shape: "0.741", config: "1"}, false)
	t = append(t, wu...)
	wub := floatKey("write_uncorr_blend", func(c *Config) *float64 { return &c.WriteUncorrBlend }, bound[float64]{},
		"", "never read (LinkBench quirk §11.1-1): read_uncorr_blend applies to writes").dflt("95")
	wub.check = nil
	t = append(t, wub)
	t = append(t, distKeys("node_read_", "node_read_function", "node reads", accessKinds, func(c *Config) *DistConfig { return &c.NodeRead },
		distParams{function: zipf, shape: "0.625"}, false)...)
	t = append(t, distKeys("node_update_", "node_update_function", "node updates", accessKinds, func(c *Config) *DistConfig { return &c.NodeUpdate },
		distParams{function: zipf, shape: "0.606"}, false)...)
	t = append(t, distKeys("node_delete_", "node_delete_function", "node deletes", accessKinds, func(c *Config) *DistConfig { return &c.NodeDelete },
		distParams{function: "com.facebook.LinkBench.distributions.UniformDistribution"}, false)...)
	t = append(t, distKeys("link_multiget_dist_", "link_multiget_dist", "ids per multiget", distClasses+" (empty: one id2 per multiget)",
		func(c *Config) *DistConfig { return &c.MultigetDist },
		distParams{function: "com.facebook.LinkBench.distributions.GeometricDistribution", prob: "0.382"}, false)...)
	multigetMax := int64Key("link_multiget_dist_max", func(c *Config) *int64 { return &c.MultigetDistMax }, bound[int64]{}, "",
		"ids per multiget: one past the largest").dflt("128")
	multigetMax = multigetMax.rule("> link_multiget_dist_min (when link_multiget_dist is set)", func(c *Config) string {
		if c.MultigetDist.Set && c.MultigetDistMax <= c.MultigetDistMin {
			return fmt.Sprintf("must be greater than link_multiget_dist_min (%d)", c.MultigetDistMin)
		}
		return ""
	})
	t = append(t,
		int64Key("link_multiget_dist_min", func(c *Config) *int64 { return &c.MultigetDistMin }, bound[int64]{}, "",
			"ids per multiget: the smallest").dflt("1"),
		multigetMax,
		boolKey("never_change", func(c *Config) *bool { return &c.NeverChange },
			"the legacy (original 2011) workload rules").dflt("false"),
		boolKey("allow_empty_store", func(c *Config) *bool { return &c.AllowEmptyStore },
			"run the request phase on a store without nodes in [startid1, maxid1)").dflt("false"),

		// Databases.
		dbprefix,
		intKey("dbcount", func(c *Config) *int { return &c.DBCount }, between[int64](1, 100), "", "number of databases").dflt("1"),
		keyDef{name: "dbload", doc: "percent of requests per database (empty: equal shares)",
			allowed: "dbcount comma-separated percentages summing to 100, or empty", def: "", hasDef: true,
			set: func(c *Config, k, v string) error {
				c.DBLoad = nil
				if v == "" {
					return nil
				}
				for _, f := range strings.Split(v, ",") {
					x, err := parseFloat(k, strings.TrimSpace(f))
					if err != nil {
						return &ConfigError{Key: k, Value: v, Reason: "must be a comma-separated list of percentages"}
					}
					c.DBLoad = append(c.DBLoad, x)
				}
				return nil
			},
			get: func(c *Config) (string, bool) { return formatFloats(c.DBLoad), true },
			check: func(c *Config) string {
				if len(c.DBLoad) == 0 {
					return ""
				}
				if len(c.DBLoad) != c.DBCount {
					return fmt.Sprintf("must have dbcount (%d) entries", c.DBCount)
				}
				sum := 0.0
				for _, p := range c.DBLoad {
					if !(p >= 0) || math.IsInf(p, 0) {
						return "entries must be percentages >= 0"
					}
					sum += p
				}
				if math.Abs(sum-100) > 1e-5 {
					return fmt.Sprintf("entries must sum to 100 within 0.00001 (they sum to %.10g)", sum)
				}
				return ""
			},
		},

		// Reporting.
		secondsKey("progressfreq", func(c *Config) *time.Duration { return &c.ProgressFreq }, "0: none",
			"period of the progress lines (the phase's, and LinkBench's per-requester lines) and of Config.OnProgress").dflt("300"),
		secondsKey("displayfreq", func(c *Config) *time.Duration { return &c.DisplayFreq }, "0: never",
			"period of the per-requester -csvstream statistics").dflt("1800"),
		int64Key("load_progress_interval", func(c *Config) *int64 { return &c.LoadProgressInterval }, atLeast[int64](0),
			"0: never", "log load progress every this many links").dflt("50000"),
		int64Key("req_progress_interval", func(c *Config) *int64 { return &c.ReqProgressInterval }, atLeast[int64](0),
			"0: never", "log request progress every this many requests").dflt("10000"),
		int64Key("maxsamples", func(c *Config) *int64 { return &c.MaxSamples }, bound[int64]{}, "",
			"no effect: LinkBench's reservoir size (HDR histograms need none)").dflt("10000"),
		ignoredKey("use_hdr_histogram", "linkbench-go always records latencies in HDR histograms"),
		intKey("hdr_histogram_accuracy", func(c *Config) *int { return &c.HDRAccuracy }, between[int64](1, 5),
			"significant digits", "precision of the latency histograms").dflt("3"),
		int64Key("hdr_histogram_max_latency", func(c *Config) *int64 { return &c.HDRMaxLatency }, between[int64](1000, stats.MaxHighestUs),
			"microseconds", "largest latency recorded as it is; larger ones are clamped and counted").dflt("3600000000"),
		stringKey("debuglevel", func(c *Config) *string { return &c.DebugLevel }, "TRACE, DEBUG, INFO, WARN, ERROR (any case)",
			"log level").dflt("INFO").
			rule("", func(c *Config) string {
				if _, err := parseLogLevel(c.DebugLevel); err != nil {
					return err.Error()
				}
				return ""
			}),

		// Store keys, for the caller that builds the store.
		stringKey("linkstore", func(c *Config) *string { return &c.Store.LinkStore }, "a store name or LinkBench class",
			"link store (the command-line tool: memory, discard, mysql, postgres)").omitZero(""),
		stringKey("nodestore", func(c *Config) *string { return &c.Store.NodeStore }, "a store name or LinkBench class",
			"node store").omitZero(""),
		// The connection keys (Connection): not Config's, never printed
		// by Properties; ParseProperties hands them over separately.
		connKey("host", "SQL server host", "a host name", "", false),
		connKey("port", "SQL server port", "0..65535 (empty: 3306)", "3306", true),
		connKey("user", "SQL user", "a user name", "", false),
		connKey("password", "SQL password (never printed)", "any text", "", false),
		stringKey("dbid", func(c *Config) *string { return &c.Store.DBID }, "a database name",
			"the original benchmark's single database name").omitZero(""),
		stringKey("linktable", func(c *Config) *string { return &c.Store.LinkTable }, "a table name", "link table").dflt("linktable").omitZero(""),
		stringKey("counttable", func(c *Config) *string { return &c.Store.CountTable }, "a table name", "count table").dflt("counttable").omitZero(""),
		stringKey("nodetable", func(c *Config) *string { return &c.Store.NodeTable }, "a table name", "node table").dflt("nodetable").omitZero(""),
		stringKey("engine", func(c *Config) *string { return &c.Store.Engine }, "innodb, rocksdb, myrocks, spider (any case); empty: innodb",
			"MySQL storage engine (spider: the server is a Spider head; -create-schema shards the tables over spider_data_nodes)").dflt("innodb").omitZero("").
			rule("", func(c *Config) string {
				switch strings.ToLower(c.Store.Engine) {
				case "", "innodb", "rocksdb", "myrocks", "spider": // as mysqlstore.ParseEngine
					return ""
				}
				return "must be innodb, rocksdb, myrocks or spider"
			}),
		stringKey("spider_data_nodes", func(c *Config) *string { return &c.Store.SpiderDataNodes },
			"comma-separated host:port (port 1..65535), or empty",
			"engine=spider: the data nodes -create-schema creates the tables on (with the head's user and password), a head partition each, in this order").
			dflt("").omitZero("").
			rule("", func(c *Config) string {
				for _, a := range c.SpiderDataNodeList() {
					i := strings.LastIndexByte(a, ':')
					if i <= 0 {
						return fmt.Sprintf("entry %q: want host:port", a)
					}
					if p, err := strconv.Atoi(a[i+1:]); err != nil || p < 1 || p > 65535 {
						return fmt.Sprintf("entry %q: port must be 1..65535", a)
					}
				}
				return ""
			}),
		boolKey("check_count", func(c *Config) *bool { return &c.Store.CheckCount },
			"LinkBench's count check after every write: refused, the stores keep counts exact in each write's transaction (check them after a run with -verify, linkbench.Verify)").
			dflt("false").rule("false", func(c *Config) string {
			if c.Store.CheckCount {
				return "is not supported: the stores keep counts exact in each write's transaction; check them after a run with -verify (linkbench.Verify)"
			}
			return ""
		}),
		boolKey("mysql_disable_binlog_load", binlog, "MySQL: turn the binary log off in load sessions").dflt("false"),
		aliasKey("MySQL_disable_binlog_load", "mysql_disable_binlog_load", boolKey("", binlog, "").set,
			"as LinkBench's sample configuration spells it"),
		int64Key("memory_limit_mb", func(c *Config) *int64 { return &c.Store.MemoryLimitMB }, atLeast[int64](0),
			"0: the machine's memory", "memory store: refuse a load estimated above this many MiB").dflt("0"),
	)
	t = append(t, pebbleKeys()...)

	// Quirk §11.2-19 (LogNormal and Geometric read the unprefixed keys
	// median, sigma, mean): fixed in both modes; accepted, without effect.
	t = append(t,
		ignoredKey("median", "LinkBench's LogNormalDistribution reads it by mistake; use <prefix>median"),
		ignoredKey("sigma", "LinkBench's LogNormalDistribution reads it by mistake; use <prefix>sigma"),
		ignoredKey("mean", "LinkBench's GeometricDistribution tests it by mistake; use <prefix>mean"),
	)
	// Keys of LinkBench stores that linkbench-go does not provide (MongoDB,
	// the RocksDB Thrift server): accepted so that such a file fails on its
	// linkstore value, which names the stores that exist.
	for _, k := range []string{"url", "max_retries", "skip_transactions", "fle_enable", "bulkinsert_size",
		"write_options_sync", "write_options_disableWAL"} {
		t = append(t, ignoredKey(k, "used only by LinkBench stores that linkbench-go does not provide"))
	}
	return t
}

// ---- Set, KnownKeys, Keys ---------------------------------------------------

// Set applies one LinkBench configuration key to c, as a properties file or
// a -D option would. The value's surrounding white space is trimmed.
// Errors: *ConfigError for an unknown key (naming the closest known key) or
// a malformed value; range checks are left to Validate. Keys lists the keys.
func (c *Config) Set(key, value string) error {
	d, ok := keyIndex()[key]
	if !ok {
		return unknownKey(key)
	}
	if d.conn {
		return &ConfigError{Key: key, Reason: "a connection key: it is not part of Config (see Connection; ParseProperties hands it over through PropertiesOptions.Connection)"}
	}
	return d.set(c, key, strings.TrimSpace(value))
}

// connKey declares a Connection key: Keys lists it, ParseProperties
// routes it to PropertiesOptions.Connection, Config.Set refuses it.
func connKey(name, doc, allowed, def string, hasDef bool) keyDef {
	return keyDef{name: name, doc: doc, allowed: allowed, def: def, hasDef: hasDef, conn: true,
		set: func(*Config, string, string) error { return nil }}
}

// canonicalKey returns the key that key is another spelling of, or key.
func canonicalKey(key string) string {
	if d, ok := keyIndex()[key]; ok && d.aliasOf != "" {
		return d.aliasOf
	}
	return key
}

func unknownKey(key string) error {
	if !printable(key) {
		return &ConfigError{Key: describe(key), Reason: "unknown key (the file is not a .properties text file?)"}
	}
	reason := "unknown key"
	if best := closestKey(key); best != "" {
		reason += fmt.Sprintf(" (did you mean %q?)", best)
	}
	return &ConfigError{Key: key, Reason: reason}
}

// closestKey returns the known key with the smallest edit distance to key
// (ties broken alphabetically), or "" when nothing is reasonably close.
func closestKey(key string) string {
	names := KnownKeys()
	best, bestD := "", math.MaxInt
	lk := strings.ToLower(key)
	for _, n := range names {
		d := editDistance(lk, strings.ToLower(n))
		if d < bestD {
			best, bestD = n, d
		}
	}
	if bestD <= max(3, len(key)/2) {
		return best
	}
	// A known key that starts with what was typed (warmup -> warmup_time).
	if len(key) >= 4 {
		for _, n := range names {
			if strings.HasPrefix(strings.ToLower(n), lk) {
				return n
			}
		}
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// KnownKeys returns every configuration key linkbench-go accepts, sorted.
func KnownKeys() []string {
	t := keyTable()
	out := make([]string, len(t))
	for i := range t {
		out[i] = t[i].name
	}
	sort.Strings(out)
	return out
}

// KeyInfo describes one configuration key, as Keys lists them.
type KeyInfo struct {
	// Name is the key as a .properties file or -D writes it.
	Name string
	// Default is the key's value in DefaultConfig, as it is written, when
	// HasDefault; keys without a default (the seeds, drawn at random when
	// absent; optional distribution parameters; other spellings; keys
	// without effect) leave their field's zero value.
	Default    string
	HasDefault bool // the key has a default (Default, possibly "")
	// Allowed states the values Validate accepts: a range ("1..4096",
	// ">= 0"), a list of names, with notes on special values.
	Allowed string
	// Doc says what the key sets, in one line.
	Doc string
	// AliasOf names the key this one is another spelling of ("" for none).
	AliasOf string
	// Ignored reports a key accepted for compatibility without effect.
	Ignored bool
	// Connection reports a connection key (host, port, user, password):
	// not Config's (see Connection).
	Connection bool
}

// Keys describes every configuration key linkbench-go accepts, in the order
// Config.Properties prints them (graph and load, out-degree and payloads,
// request phase, databases, reporting, store; then keys without effect).
// The command-line tool's -keys flag prints this list.
func Keys() []KeyInfo {
	t := keyTable()
	out := make([]KeyInfo, len(t))
	for i, d := range t {
		out[i] = KeyInfo{Name: d.name, Default: d.def, HasDefault: d.hasDef, Allowed: d.allowed, Doc: d.doc,
			AliasOf: d.aliasOf, Ignored: d.ignored, Connection: d.conn}
	}
	return out
}

// pebbleKeys are the Pebble store's engine knobs (StoreConfig.Pebble),
// kept as written, with the ranges pebblestore.Options takes (the store
// checks them again when it opens, with its OPTIONS file).
func pebbleKeys() []keyDef {
	p := func(c *Config) *PebbleConfig { return &c.Store.Pebble }
	key := func(name string, f func(*PebbleConfig) *string, allowed, doc string, ok func(v string) bool) keyDef {
		d := stringKey("pebble_"+name, func(c *Config) *string { return f(p(c)) }, allowed, "Pebble store: "+doc).omitZero("")
		d.check = func(c *Config) string {
			if v := strings.TrimSpace(*f(p(c))); v != "" && !ok(v) {
				return mustBe(allowed)
			}
			return ""
		}
		return d
	}
	// number parses an integer, with a KiB, MiB or GiB suffix when size
	// (as the store parses its options).
	number := func(v string, size bool) (int64, bool) {
		n, err := units.ParseInt(v, size)
		return n, err == nil
	}
	within := func(lo, hi int64, size bool) func(string) bool {
		return func(v string) bool {
			n, ok := number(v, size)
			return ok && n >= lo && n <= hi
		}
	}
	oneOf := func(names ...string) func(string) bool {
		return func(v string) bool { return slices.Contains(names, strings.ToLower(v)) }
	}
	keys := []keyDef{
		key("compression", func(p *PebbleConfig) *string { return &p.Compression },
			"none, snappy, zstd, minlz, or Pebble's profiles fastest, fast, balanced, good; empty: snappy",
			"compression of the sstables' blocks, every level",
			oneOf("none", "snappy", "zstd", "minlz", "fastest", "fast", "balanced", "good")),
		key("block_size", func(p *PebbleConfig) *string { return &p.BlockSize },
			"1KiB..16MiB (bytes, or a number with a KiB, MiB or GiB suffix); empty: 16KiB",
			"target uncompressed size of an sstable data block", within(1<<10, 16<<20, true)),
		key("cache_size", func(p *PebbleConfig) *string { return &p.CacheSize },
			"1MiB..1024GiB (bytes, or a number with a KiB, MiB or GiB suffix), and more than the memtables Pebble reserves in it (2 x pebble_mem_table_size); empty: 128MiB plus that reservation",
			"block cache size", within(1<<20, 1<<40, true)),
		key("bloom_bits_per_key", func(p *PebbleConfig) *string { return &p.BloomBitsPerKey },
			"1..32, or -1 for no filter; empty: 10",
			"bits per key of the sstables' bloom filters",
			func(v string) bool { return within(1, 32, false)(v) || v == "-1" }),
		key("mem_table_size", func(p *PebbleConfig) *string { return &p.MemTableSize },
			"1MiB..4GiB-1 (bytes, or a number with a KiB, MiB or GiB suffix); empty: 64MiB",
			"size of a memtable (writes stall when two are full)", within(1<<20, 4<<30-1, true)),
		key("l0_compaction_threshold", func(p *PebbleConfig) *string { return &p.L0CompactionThreshold },
			"1..1000; empty: 4",
			"L0 sublevels at which an L0 compaction starts", within(1, 1000, false)),
		key("l0_stop_writes_threshold", func(p *PebbleConfig) *string { return &p.L0StopWritesThreshold },
			"pebble_l0_compaction_threshold (empty: 4)..1000; empty: 12",
			"L0 sublevels at which writes stop until compactions catch up", within(1, 1000, false)),
		key("compaction_concurrency", func(p *PebbleConfig) *string { return &p.CompactionConcurrency },
			"1..64; empty: 2",
			"most compactions at once", within(1, 64, false)),
		key("wal_sync", func(p *PebbleConfig) *string { return &p.WALSync },
			"on (like rocksdb_flush_log_at_trx_commit=1: an acknowledged write survives a crash) or off (like =2: the last writes may be lost); empty: on",
			"fsync the WAL at every commit", oneOf("on", "off")),
		key("options_file", func(p *PebbleConfig) *string { return &p.OptionsFile },
			"the path of a Pebble OPTIONS file; empty: none",
			"Pebble OPTIONS file for every other engine setting (the pebble_* keys win over it)",
			func(string) bool { return true }),
	}
	// The stop threshold is at least the compaction threshold (4 when
	// empty; an OPTIONS file's is checked by the store).
	stop := &keys[6]
	stop.check = func(prev func(*Config) string) func(*Config) string {
		return func(c *Config) string {
			if r := prev(c); r != "" {
				return r
			}
			pc := p(c)
			if strings.TrimSpace(pc.L0StopWritesThreshold) == "" {
				return ""
			}
			s, _ := number(strings.TrimSpace(pc.L0StopWritesThreshold), false)
			lo := int64(4)
			if v := strings.TrimSpace(pc.L0CompactionThreshold); v != "" {
				lo, _ = number(v, false)
			}
			if s < lo {
				return fmt.Sprintf("must be in pebble_l0_compaction_threshold (%d)..1000", lo)
			}
			return ""
		}
	}(stop.check)
	return keys
}
