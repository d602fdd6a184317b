package linkbench

import (
	"errors"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// keySamples gives every key that Config.Properties can print a value that
// differs from its default; TestKeysRoundTrip sets them all. A new key
// without a sample fails the test.
var keySamples = map[string]string{
	"startid1": "7", "maxid1": "5007", "loaders": "3", "generate_nodes": "false", "loader_chunk_size": "64",
	"bulk_insert_count": "99", "bulk_insert_kb": "16", "load_random_seed": "-5", "rng": "java", "shard": "2/3",
	"data_file": "/no/such/Distribution.dat", "data_vintage": "2011", "link_type_count": "3", "nlinks_func": "const",
	"nlinks_shape": "0.5", "nlinks_mean": "4", "nlinks_prob": "0.25", "nlinks_median": "11", "nlinks_sigma": "1.5",
	"nlinks_points": "0 10, 1 15, 2 17, 120 100", "nlinks_realdist": "links",
	"nlinks_config": "2", "nlinks_default": "5", "randomid2max": "1000", "link_datasize": "31.5", "node_datasize": "99",

	"link_add_datagen": "", "link_add_datagen_startbyte": "1", "link_add_datagen_endbyte": "200", "link_add_datagen_uniqueness": "0.5",
	"link_up_datagen": "", "link_up_datagen_startbyte": "2", "link_up_datagen_endbyte": "201", "link_up_datagen_uniqueness": "0.25",
	"node_add_datagen": "", "node_add_datagen_startbyte": "3", "node_add_datagen_endbyte": "202", "node_add_datagen_uniqueness": "0.125",
	"node_up_datagen": "", "node_up_datagen_startbyte": "4", "node_up_datagen_endbyte": "203", "node_up_datagen_uniqueness": "1",

	"requesters": "9", "requests": "1234", "requestrate": "250.5", "total_requestrate": "1000", "maxtime": "7.25", "warmup_time": "3",
	"max_failed_requests": "-1", "request_random_seed": "77",
	"addlink": "10", "deletelink": "10", "updatelink": "10", "countlink": "10", "getlink": "10", "getlinklist": "10",
	"addnode": "10", "updatenode": "10", "deletenode": "10", "getnode": "10",
	"getlinklist_history": "1.5", "id2gen_config": "1",

	"read_function": "", "read_shape": "0", "read_mean": "2", "read_prob": "0.1", "read_median": "3", "read_sigma": "0.4",
	"read_config": "5", "read_points": "0 50, 9 100", "read_realdist": "link_reads",
	"read_uncorr_function": "", "read_uncorr_shape": "0.9", "read_uncorr_mean": "1", "read_uncorr_prob": "0.2",
	"read_uncorr_median": "4", "read_uncorr_sigma": "0.5", "read_uncorr_config": "6", "read_uncorr_points": "1 25, 2 100",
	"read_uncorr_realdist": "link_writes", "read_uncorr_blend": "50",
	"write_function": "", "write_shape": "0.7", "write_mean": "3", "write_prob": "0.3", "write_median": "5",
	"write_sigma": "0.6", "write_config": "7", "write_points": "2 20, 3 100", "write_realdist": "node_reads",
	"write_uncorr_function": "ROUND_ROBIN", "write_uncorr_shape": "0.5", "write_uncorr_mean": "4", "write_uncorr_prob": "0.4",
	"write_uncorr_median": "6", "write_uncorr_sigma": "0.7", "write_uncorr_config": "2", "write_uncorr_points": "3 30, 4 100",
	"write_uncorr_realdist": "node_writes", "write_uncorr_blend": "12",
	"node_read_function": "", "node_read_shape": "0.6", "node_read_mean": "5", "node_read_prob": "0.5",
	"node_read_median": "7", "node_read_sigma": "0.8", "node_read_config": "8", "node_read_points": "4 40, 5 100",
	"node_read_realdist":   "links",
	"node_update_function": "", "node_update_shape": "0.3",
	"node_update_mean": "6", "node_update_prob": "0.6", "node_update_median": "8", "node_update_sigma": "0.9",
	"node_update_config": "9", "node_update_points": "5 50, 6 100", "node_update_realdist": "link_reads",
	"node_delete_function": "", "node_delete_shape": "1", "node_delete_mean": "7", "node_delete_prob": "0.7",
	"node_delete_median": "9", "node_delete_sigma": "1.1", "node_delete_config": "10", "node_delete_points": "6 60, 7 100",
	"node_delete_realdist": "node_writes",
	"link_multiget_dist":   "", "link_multiget_dist_shape": "2", "link_multiget_dist_mean": "8", "link_multiget_dist_prob": "0.9",
	"link_multiget_dist_median": "10", "link_multiget_dist_sigma": "1.2", "link_multiget_dist_config": "11",
	"link_multiget_dist_points": "1 33.3, 8 100", "link_multiget_dist_realdist": "node_reads",
	"link_multiget_dist_min": "2", "link_multiget_dist_max": "64", "never_change": "true", "allow_empty_store": "true",

	"dbprefix": "bench", "dbcount": "2", "dbload": "30,70",
	"progressfreq": "10", "displayfreq": "0.25", "load_progress_interval": "7", "req_progress_interval": "8",
	"maxsamples": "5", "hdr_histogram_accuracy": "2", "hdr_histogram_max_latency": "5000", "debuglevel": "DEBUG",

	"linkstore": "mysql", "nodestore": "mysql", "dbid": "one",
	"linktable": "lt", "counttable": "ct", "nodetable": "nt", "engine": "myrocks", "spider_data_nodes": "127.0.0.1:4508,127.0.0.1:4509", "check_count": "true",
	"mysql_disable_binlog_load": "true", "memory_limit_mb": "64",
	"pebble_compression": "zstd", "pebble_block_size": "8KiB", "pebble_cache_size": "1GiB", "pebble_bloom_bits_per_key": "-1",
	"pebble_mem_table_size": "32MiB", "pebble_l0_compaction_threshold": "2", "pebble_l0_stop_writes_threshold": "20",
	"pebble_compaction_concurrency": "4", "pebble_wal_sync": "off", "pebble_options_file": "/no/such/OPTIONS", "grace_time": "2.5", "request_timeout": "0.75",
}

// leavesNotSetByKeys are the Config fields (paths as leafPaths writes them)
// that no key sets: the Go-only fields, and NLinks' class, which
// nlinks_func names.
var leavesNotSetByKeys = []string{"NLinks.Function", "NLinks.Spec.Kind", "NLinks.Set", "NLinks.Spec.Config",
	"Logger", "Now", "OnProgress", "OnInterval", "IntervalFreq", "Stream", "SourceFiles", "monotonic", "origins",
	"StartAt", "Step", "Sweep"}

// leafPaths returns the path and value of every leaf field of v (a
// struct), recursively through structs.
func leafPaths(v reflect.Value, prefix string, out map[string]reflect.Value) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		fv := v.Field(i)
		p := prefix + f.Name
		if f.Type.Kind() == reflect.Struct && f.Type.String() != "time.Time" {
			leafPaths(fv, p+".", out)
			continue
		}
		out[p] = fv
	}
}

// TestKeysRoundTrip sets every key to a value other than its default; every
// field of Config a key sets then differs from DefaultConfig's, and
// Properties, read back with Set on DefaultConfig, gives the same Config.
func TestKeysRoundTrip(t *testing.T) {
	cfg := DefaultConfig()
	for _, d := range keyTable() {
		if d.get == nil {
			if _, ok := keySamples[d.name]; ok {
				t.Errorf("%s has a sample but is never printed", d.name)
			}
			continue
		}
		v, ok := keySamples[d.name]
		if !ok {
			t.Errorf("key %s has no sample in keySamples", d.name)
			continue
		}
		if d.hasDef && v == d.def {
			t.Errorf("%s: the sample %q is the default", d.name, v)
		}
		if err := cfg.Set(d.name, v); err != nil {
			t.Errorf("Set(%s, %q): %v", d.name, v, err)
		}
	}
	for _, k := range ConnectionKeys() { // not Config's
		if err := cfg.Set(k, "1"); err == nil {
			t.Errorf("Set(%s) accepted: a connection key is not Config's", k)
		}
	}
	for _, d := range keyTable() { // each sample prints as it was written
		if v, ok := keySamples[d.name]; ok {
			if got, _ := d.get(&cfg); got != v {
				t.Errorf("%s = %q prints as %q", d.name, v, got)
			}
		}
	}

	def, got := map[string]reflect.Value{}, map[string]reflect.Value{}
	leafPaths(reflect.ValueOf(DefaultConfig()), "", def)
	leafPaths(reflect.ValueOf(cfg), "", got)
	for p, dv := range def {
		if slices.Contains(leavesNotSetByKeys, p) {
			continue
		}
		if reflect.DeepEqual(dv.Interface(), got[p].Interface()) {
			t.Errorf("field %s keeps its default value %v: no key sets it, or no sample changes it", p, dv)
		}
	}

	back := DefaultConfig()
	for _, p := range cfg.Properties() {
		if p.Key == "password" {
			t.Errorf("Properties includes the password")
		}
		if err := back.Set(p.Key, p.Value); err != nil {
			t.Errorf("Set(%s, %q): %v", p.Key, p.Value, err)
		}
	}
	if !reflect.DeepEqual(back, cfg) {
		t.Errorf("read back from Properties:\n got %+v\nwant %+v", back, cfg)
	}
}

// TestPropertiesRoundTripZeroValues: values that used to be left out by
// the printer (a zero distribution parameter whose default is not zero,
// an empty table name, a distribution or generator unset where the
// default sets one) are written, so that they read back.
func TestPropertiesRoundTripZeroValues(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Read.Spec.Shape = 0
	cfg.Store.LinkTable = ""
	cfg.MultigetDist.Function, cfg.MultigetDist.Spec.Kind, cfg.MultigetDist.Set = "", 0, false
	cfg.NodeUpData = DataGenConfig{StartByte: 50, EndByte: 220, Uniqueness: 0.63}
	cfg.WriteUncorrBlend = 0
	cfg.WriteUncorr.Spec.Config = 3
	back := DefaultConfig()
	for _, p := range cfg.Properties() {
		if err := back.Set(p.Key, p.Value); err != nil {
			t.Fatalf("Set(%s, %q): %v", p.Key, p.Value, err)
		}
	}
	if !reflect.DeepEqual(back, cfg) {
		t.Errorf("read back from Properties:\n got %+v\nwant %+v", back, cfg)
	}
}

// TestDistFunctionsRoundTrip: each way of naming a distribution prints and
// reads back as it was written.
func TestDistFunctionsRoundTrip(t *testing.T) {
	for _, v := range []string{"uniform", "zipf", "ROUND_ROBIN", "real", "perfect_power", "zipf_exact", "piecewise",
		"com.facebook.LinkBench.distributions.LogNormalDistribution", "com.facebook.LinkBench.RealDistribution", ""} {
		cfg := DefaultConfig()
		if err := cfg.Set("node_update_function", v); err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		back := DefaultConfig()
		for _, p := range cfg.Properties() {
			if err := back.Set(p.Key, p.Value); err != nil {
				t.Fatalf("Set(%s, %q): %v", p.Key, p.Value, err)
			}
		}
		if !reflect.DeepEqual(back.NodeUpdate, cfg.NodeUpdate) {
			t.Errorf("node_update_function = %q reads back as %+v, want %+v", v, back.NodeUpdate, cfg.NodeUpdate)
		}
	}
	// Set in Go without Function: the kind is written.
	cfg := DefaultConfig()
	cfg.NodeUpdate.Function = ""
	if p := cfg.Properties(); !slices.Contains(p, Property{Key: "node_update_function", Value: "zipf"}) {
		t.Errorf("a DistConfig without Function does not print its kind")
	}
}

// TestKeyDefaults: DefaultConfig prints each default as the table writes
// it, passes Validate, and every key is documented.
func TestKeyDefaults(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, d := range keyTable() {
		if d.doc == "" || d.allowed == "" {
			t.Errorf("%s: doc %q, allowed %q", d.name, d.doc, d.allowed)
		}
		if strings.Contains(d.doc, "\n") || strings.Contains(d.allowed, "\n") {
			t.Errorf("%s: doc or allowed spans lines", d.name)
		}
		if d.aliasOf != "" {
			if a, ok := keyIndex()[d.aliasOf]; !ok || a.aliasOf != "" {
				t.Errorf("%s is another spelling of %q, which is not a key", d.name, d.aliasOf)
			}
		}
		if !d.hasDef || d.get == nil {
			continue
		}
		if got, _ := d.get(&cfg); got != d.def {
			t.Errorf("%s: DefaultConfig prints %q, the table's default is %q", d.name, got, d.def)
		}
	}
}

// TestKnownKeysAndKeys: KnownKeys is sorted and names the keys Keys
// describes; every known key is accepted by Set.
func TestKnownKeysAndKeys(t *testing.T) {
	known := KnownKeys()
	if !slices.IsSorted(known) {
		t.Error("KnownKeys is not sorted")
	}
	var names []string
	for _, k := range Keys() {
		names = append(names, k.Name)
	}
	slices.Sort(names)
	if !slices.Equal(known, names) {
		t.Errorf("KnownKeys and Keys differ")
	}
	for _, k := range []string{"maxid1", "MySQL_bulk_insert_batch", "read_uncorr_points", "url", "workload_file", "password"} {
		if !slices.Contains(known, k) {
			t.Errorf("%s is not known", k)
		}
	}
}

// allowedClause is one clause of a key's allowed values as Keys states
// them: a numeric range ("1..4096", ">= 0", "> 0 and <= 1000000000",
// "any integer", ">= 0 seconds") that holds everywhere, or, with whenKey,
// only where another key has one of whenValues ("; >= 1 when nlinks_func
// is multiples or perfect_squares"). The ends are as written ("" for
// none).
type allowedClause struct {
	text       string // the range as written, which a refusal must state
	lo, hi     string
	loOpen     bool
	seconds    bool
	whenKey    string
	whenValues []string
}

var (
	clauseRangeRE = regexp.MustCompile(`^(?:(-?[0-9.]+)\.\.(-?[0-9.]+)|>= (-?[0-9.]+)|> (-?[0-9.]+)(?: and <= (-?[0-9.]+))?|<= (-?[0-9.]+)|any integer|any number)( seconds| of seconds)?`)
	clauseWhenRE  = regexp.MustCompile(`^[^(]* when ([a-z0-9_]+) is ([a-z0-9_, ]+)$`)
)

// parseAllowed parses a key's allowed text into its clauses: the first,
// which must be a numeric range (ok false otherwise), then each "; RANGE
// when KEY is A, B or C". Notes in parentheses are left out.
func parseAllowed(allowed string) (cs []allowedClause, ok bool) {
	for i, part := range strings.Split(allowed, "; ") {
		m := clauseRangeRE.FindStringSubmatch(part)
		w := clauseWhenRE.FindStringSubmatch(part)
		if i > 0 && (m == nil || w == nil) {
			continue // a note, not a clause
		}
		if m == nil {
			return nil, false
		}
		c := allowedClause{text: strings.TrimSuffix(strings.TrimSuffix(m[0], " of seconds"), " seconds"), seconds: m[7] != ""}
		switch {
		case m[1] != "":
			c.lo, c.hi = m[1], m[2]
		case m[3] != "":
			c.lo = m[3]
		case m[4] != "":
			c.lo, c.hi, c.loOpen = m[4], m[5], true
		case m[6] != "":
			c.hi = m[6]
		}
		if i > 0 {
			c.whenKey = w[1]
			for _, v := range strings.Split(strings.ReplaceAll(w[2], " or ", ", "), ", ") {
				c.whenValues = append(c.whenValues, strings.TrimSpace(v))
			}
		}
		cs = append(cs, c)
	}
	return cs, true
}

// clauseValues returns the values at the ends of c's range, written as the
// key reads them: in, which the key must accept, and out (just outside),
// which it must refuse. kind is "int", "float" or "seconds"; a range
// without an end is taken to the type's limit there (int64, float64,
// time.Duration).
func clauseValues(t *testing.T, c allowedClause, kind string) (in, out []string) {
	t.Helper()
	switch kind {
	case "int":
		// A range without an end goes to the int64 limits, whatever
		// the field's type: an int key states its limit.
		typeLo, typeHi := int64(math.MinInt64), int64(math.MaxInt64)
		num := func(s string) int64 {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("range %q: %v", c.text, err)
			}
			return n
		}
		lo, hi := typeLo, typeHi
		if c.lo != "" {
			lo = num(c.lo)
			if c.loOpen {
				lo++
			}
			if lo > typeLo {
				out = append(out, strconv.FormatInt(lo-1, 10))
			}
		}
		if c.hi != "" {
			hi = num(c.hi)
			if hi < typeHi {
				out = append(out, strconv.FormatInt(hi+1, 10))
			}
		}
		in = append(in, strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10))
	case "float":
		num := func(s string) float64 {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("range %q: %v", c.text, err)
			}
			return f
		}
		lo, hi := -math.MaxFloat64, math.MaxFloat64
		if c.lo != "" {
			lo = num(c.lo)
			if c.loOpen {
				out = append(out, formatFloat(lo))
				lo = math.Nextafter(lo, math.Inf(1))
			} else {
				out = append(out, formatFloat(math.Nextafter(lo, math.Inf(-1))))
			}
		}
		if c.hi != "" {
			hi = num(c.hi)
			out = append(out, formatFloat(math.Nextafter(hi, math.Inf(1))))
		}
		in = append(in, formatFloat(lo), formatFloat(hi))
	case "seconds":
		num := func(s string) time.Duration {
			d, err := parseSeconds("range", s)
			if err != nil {
				t.Fatalf("range %q: %v", c.text, err)
			}
			return d
		}
		lo, hi := time.Duration(math.MinInt64+1), time.Duration(math.MaxInt64)
		if c.lo != "" {
			lo = num(c.lo)
			if c.loOpen {
				lo++
			}
			out = append(out, formatSeconds(lo-1))
		}
		if c.hi != "" {
			hi = num(c.hi)
			out = append(out, formatSeconds(hi+1))
		}
		in = append(in, formatSeconds(lo), formatSeconds(hi))
	}
	return in, out
}

// relationalKeys are the numeric keys whose allowed values are stated
// relative to another key ("> startid1"): the keys they name check them.
var relationalKeys = []string{"maxid1", "link_add_datagen_endbyte", "link_up_datagen_endbyte", "node_add_datagen_endbyte",
	"node_up_datagen_endbyte", "link_multiget_dist_max", "dbload"}

// TestAllowedValuesAgreeWithValidation walks Keys: for every key whose
// allowed values are a numeric range, the ends of the range are accepted
// and the values just outside refused, naming the key and stating the
// range, by everything that validates a configuration before a run sends
// anything (Set, Validate, Check's distributions, the phase's statistics
// collector), in the default configuration and in one per arithmetic
// out-degree model (where nlinks_default and nlinks_config are read); a
// clause "RANGE when KEY is A or B" is checked where KEY is A or B, the
// first clause elsewhere. An integer range is of whole numbers (0.5 is
// refused as not an integer); a key that takes fractions never asks for
// an integer or a whole number when it refuses a malformed value. A
// numeric key whose allowed text is not a range is relative to another
// key (relationalKeys) or checked by its distribution when the run is
// prepared.
func TestAllowedValuesAgreeWithValidation(t *testing.T) {
	contexts := []map[string]string{{}}
	for _, m := range arithmeticModes {
		ctx := map[string]string{"nlinks_func": m}
		switch m {
		case "multiples", "perfect_squares", "perfect_powers":
			ctx["nlinks_config"] = "1"
		case "exponential":
			ctx["nlinks_config"] = "2"
		}
		contexts = append(contexts, ctx)
	}
	base := func(ctx map[string]string) Config {
		cfg := DefaultConfig()
		cfg.MaxID1 = 1001
		cfg.Requesters = 4
		for k, v := range ctx {
			if err := cfg.Set(k, v); err != nil {
				t.Fatalf("context %v: %v", ctx, err)
			}
		}
		return cfg
	}
	for _, ctx := range contexts {
		cfg := base(ctx)
		if err := Check(cfg, true); err != nil {
			t.Fatalf("context %v is not valid: %v", ctx, err)
		}
	}
	// validate runs everything that checks a configuration before a phase
	// sends anything.
	validate := func(cfg Config) error {
		if err := Check(cfg, true); err != nil {
			return err
		}
		_, err := newCollector(&cfg)
		return err
	}
	allowedOf := map[string]string{}
	for _, k := range Keys() {
		allowedOf[k.Name] = k.Allowed
	}
	walked := 0
	usedClause := map[string]bool{}
	for _, k := range Keys() {
		if k.AliasOf != "" || k.Ignored || k.Connection { // the connection keys: TestConnectionKeys
			continue
		}
		probe := DefaultConfig()
		numeric := probe.Set(k.Name, "1") == nil && probe.Set(k.Name, "x1") != nil
		clauses, ok := parseAllowed(k.Allowed)
		if !ok {
			if numeric && !slices.Contains(relationalKeys, k.Name) && !strings.Contains(k.Allowed, "checked by") {
				t.Errorf("%s: allowed %q is neither a range, nor relative to another key, nor checked later", k.Name, k.Allowed)
			}
			continue
		}
		walked++
		kind := "seconds"
		switch {
		case clauses[0].seconds:
		case probe.Set(k.Name, "0.5") == nil:
			kind = "float"
		default:
			kind = "int"
		}
		// Malformed values: an integer key asks for an integer; a key
		// that takes fractions does not.
		if kind == "int" {
			var ce *ConfigError
			if err := probe.Set(k.Name, "0.5"); !errors.As(err, &ce) || ce.Key != k.Name || !strings.Contains(ce.Reason, "integer") {
				t.Errorf("%s = 0.5 (allowed %s): Set = %v, want an error naming %s that asks for an integer", k.Name, k.Allowed, err, k.Name)
			}
		} else {
			for _, v := range []string{"1e-3", "0.0000000001", "2.5x", "1/2"} {
				if err := probe.Set(k.Name, v); err != nil && (strings.Contains(err.Error(), "integer") || strings.Contains(err.Error(), "whole")) {
					t.Errorf("%s = %s (allowed %s, fractions taken): the error asks for an integer: %v", k.Name, v, k.Allowed, err)
				}
			}
		}
		for _, ctx := range contexts {
			// The clause that applies here: a "when" clause whose key has
			// one of its values in this context, else the first.
			c := clauses[0]
			for _, w := range clauses[1:] {
				if slices.ContainsFunc(w.whenValues, func(v string) bool { return strings.EqualFold(v, ctx[w.whenKey]) }) {
					c = w
					usedClause[k.Name+" "+w.text] = true
				}
			}
			in, out := clauseValues(t, c, kind)
			for _, v := range in {
				cfg := base(ctx)
				if err := cfg.Set(k.Name, v); err != nil {
					t.Errorf("%s = %s (allowed %s; context %v): Set: %v", k.Name, v, k.Allowed, ctx, err)
					continue
				}
				err := validate(cfg)
				var ce *ConfigError
				if err == nil {
					continue
				}
				// Another key may refuse it when its own range is stated
				// relative to this one (startid1 past maxid1), and a group
				// of keys when their sum is off (the operation mix).
				if errors.As(err, &ce) && ce.Key != k.Name && (strings.Contains(allowedOf[ce.Key], k.Name) ||
					strings.Contains(ce.Key, "+") && slices.Contains(strings.Split(ce.Key, "+"), k.Name)) {
					continue
				}
				t.Errorf("%s = %s (allowed %s; context %v) refused: %v", k.Name, v, k.Allowed, ctx, err)
			}
			for _, v := range out {
				cfg := base(ctx)
				err := cfg.Set(k.Name, v)
				if err == nil {
					err = validate(cfg)
				}
				var ce *ConfigError
				if !errors.As(err, &ce) || ce.Key != k.Name {
					t.Errorf("%s = %s (allowed %s; context %v): got %v, want an error naming %s", k.Name, v, k.Allowed, ctx, err, k.Name)
					continue
				}
				if !strings.Contains(ce.Reason, c.text) {
					t.Errorf("%s = %s (context %v): the reason %q does not state the allowed range %q", k.Name, v, ctx, ce.Reason, c.text)
				}
			}
		}
		for _, w := range clauses[1:] {
			if !usedClause[k.Name+" "+w.text] {
				t.Errorf("%s: no context has %s = %v, so the clause %q is not checked", k.Name, w.whenKey, w.whenValues, w.text)
			}
		}
	}
	if walked < 50 {
		t.Errorf("only %d keys have a numeric range", walked)
	}
}
