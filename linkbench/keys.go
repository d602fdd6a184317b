package linkbench

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/linkbench-go/linkbench/distributions"
)

// keyDef is one LinkBench configuration key: how a string value is stored
// into a Config. set receives the value with surrounding white space
// trimmed and returns a *ConfigError for a malformed value.
type keyDef struct {
	name string
	set  func(c *Config, key, v string) error
	// note marks keys that are accepted for compatibility but have no effect.
	note string
}

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

func parseSeconds(key, v string) (time.Duration, error) {
	n, err := parseInt64(key, v)
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt64/int64(time.Second) || n < math.MinInt64/int64(time.Second) {
		return 0, &ConfigError{Key: key, Value: v, Reason: "out of range (seconds, at most 9223372036)"}
	}
	return time.Duration(n) * time.Second, nil
}

func int64Key(name string, f func(*Config) *int64) keyDef {
	return keyDef{name: name, set: func(c *Config, k, v string) error {
		n, err := parseInt64(k, v)
		if err == nil {
			*f(c) = n
		}
		return err
	}}
}

func intKey(name string, f func(*Config) *int) keyDef {
	return keyDef{name: name, set: func(c *Config, k, v string) error {
		n, err := parseInt(k, v)
		if err == nil {
			*f(c) = n
		}
		return err
	}}
}

func floatKey(name string, f func(*Config) *float64) keyDef {
	return keyDef{name: name, set: func(c *Config, k, v string) error {
		x, err := parseFloat(k, v)
		if err == nil {
			*f(c) = x
		}
		return err
	}}
}

func boolKey(name string, f func(*Config) *bool) keyDef {
	return keyDef{name: name, set: func(c *Config, k, v string) error {
		b, err := parseBool(k, v)
		if err == nil {
			*f(c) = b
		}
		return err
	}}
}

func stringKey(name string, f func(*Config) *string) keyDef {
	return keyDef{name: name, set: func(c *Config, _, v string) error { *f(c) = v; return nil }}
}

func secondsKey(name string, f func(*Config) *time.Duration) keyDef {
	return keyDef{name: name, set: func(c *Config, k, v string) error {
		d, err := parseSeconds(k, v)
		if err == nil {
			*f(c) = d
		}
		return err
	}}
}

func seedKey(name string, f func(*Config) *Seed) keyDef {
	return keyDef{name: name, set: func(c *Config, k, v string) error {
		n, err := parseInt64(k, v)
		if err == nil {
			*f(c) = FixedSeed(n)
		}
		return err
	}}
}

func ignoredKey(name, why string) keyDef {
	return keyDef{name: name, note: why, set: func(*Config, string, string) error { return nil }}
}

// distKeys returns the keys "<prefix>function" (or fnKey when not empty),
// "<prefix>shape", "<prefix>mean", ... of one distribution.
func distKeys(prefix, fnKey string, f func(*Config) *DistConfig) []keyDef {
	if fnKey == "" {
		fnKey = prefix + "function"
	}
	spec := func(c *Config) *distributions.Spec { return &f(c).Spec }
	return []keyDef{
		{name: fnKey, set: func(c *Config, k, v string) error {
			kind, err := distributions.ParseKind(v)
			if err != nil {
				return &ConfigError{Key: k, Value: v, Reason: err.Error()}
			}
			d := f(c)
			d.Function, d.Spec.Kind, d.Set = v, kind, true
			return nil
		}},
		floatKey(prefix+"shape", func(c *Config) *float64 { return &spec(c).Shape }),
		{name: prefix + "mean", set: func(c *Config, k, v string) error {
			x, err := parseFloat(k, v)
			if err == nil {
				spec(c).Mean, spec(c).HasMean = x, true
			}
			return err
		}},
		floatKey(prefix+"prob", func(c *Config) *float64 { return &spec(c).Prob }),
		floatKey(prefix+"median", func(c *Config) *float64 { return &spec(c).Median }),
		floatKey(prefix+"sigma", func(c *Config) *float64 { return &spec(c).Sigma }),
		int64Key(prefix+"config", func(c *Config) *int64 { return &spec(c).Config }),
		{name: prefix + "points", set: func(c *Config, k, v string) error {
			pts, err := distributions.ParsePoints(v)
			if err != nil {
				return keyError(prefix, v, err)
			}
			spec(c).Points = pts
			return nil
		}},
		{name: prefix + "realdist", set: func(c *Config, k, v string) error {
			s, err := distributions.ParseSection(v)
			if err != nil {
				return &ConfigError{Key: k, Value: v, Reason: err.Error()}
			}
			spec(c).RealDist = s
			return nil
		}},
	}
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

func dataGenKeys(gen string, f func(*Config) *DataGenConfig) []keyDef {
	return []keyDef{
		{name: gen, set: func(c *Config, k, v string) error {
			kind, ok := parseDataGenKind(v)
			if !ok {
				return &ConfigError{Key: k, Value: v, Reason: "must be com.facebook.LinkBench.generators." +
					"MotifDataGenerator or ...UniformDataGenerator (or motif, uniform)"}
			}
			g := f(c)
			g.Kind, g.Set = kind, true
			return nil
		}},
		intKey(gen+"_startbyte", func(c *Config) *int { return &f(c).StartByte }),
		intKey(gen+"_endbyte", func(c *Config) *int { return &f(c).EndByte }),
		floatKey(gen+"_uniqueness", func(c *Config) *float64 { return &f(c).Uniqueness }),
		// Quirk §11.1-6 (motif buffer fixed at 512 bytes): kept in both modes.
		ignoredKey(gen+"_motif_length", "LinkBench never reads it: the motif buffer is always 512 bytes"),
	}
}

// allKeys returns every configuration key linkbench-go accepts.
func allKeys() map[string]keyDef {
	defs := []keyDef{
		// Files.
		ignoredKey("workload_file", "read by ParseProperties"),
		stringKey("data_file", func(c *Config) *string { return &c.DataFile }),
		{name: "data_vintage", set: func(c *Config, k, v string) error {
			vin, err := distributions.ParseVintage(v)
			if err != nil {
				return keyError("", v, err)
			}
			c.DataVintage = vin
			return nil
		}},

		// Load.
		int64Key("startid1", func(c *Config) *int64 { return &c.StartID1 }),
		int64Key("maxid1", func(c *Config) *int64 { return &c.MaxID1 }),
		intKey("loaders", func(c *Config) *int { return &c.Loaders }),
		boolKey("generate_nodes", func(c *Config) *bool { return &c.GenerateNodes }),
		int64Key("loader_chunk_size", func(c *Config) *int64 { return &c.LoaderChunkSize }),
		intKey("bulk_insert_count", func(c *Config) *int { return &c.BulkInsertCount }),
		// Quirk §11.2-18 (keys documented as MySQL_...): both spellings accepted.
		intKey("mysql_bulk_insert_batch", func(c *Config) *int { return &c.BulkInsertCount }),
		intKey("MySQL_bulk_insert_batch", func(c *Config) *int { return &c.BulkInsertCount }),
		intKey("bulk_insert_kb", func(c *Config) *int { return &c.BulkInsertKB }),
		seedKey("load_random_seed", func(c *Config) *Seed { return &c.LoadRandomSeed }),

		// Graph shape and payloads.
		int64Key("link_type_count", func(c *Config) *int64 { return &c.LinkTypeCount }),
		stringKey("nlinks_func", func(c *Config) *string { return &c.NLinksFunc }),
		int64Key("nlinks_default", func(c *Config) *int64 { return &c.NLinksDefault }),
		int64Key("randomid2max", func(c *Config) *int64 { return &c.RandomID2Max }),
		floatKey("link_datasize", func(c *Config) *float64 { return &c.LinkDataSize }),
		floatKey("node_datasize", func(c *Config) *float64 { return &c.NodeDataSize }),
		// Quirk §11.2-19 (LogNormal and Geometric read the unprefixed keys
		// median, sigma, mean): fixed in both modes; accepted, without effect.
		ignoredKey("median", "LinkBench's LogNormalDistribution reads it by mistake; use <prefix>median"),
		ignoredKey("sigma", "LinkBench's LogNormalDistribution reads it by mistake; use <prefix>sigma"),
		ignoredKey("mean", "LinkBench's GeometricDistribution tests it by mistake; use <prefix>mean"),

		// Request phase.
		intKey("requesters", func(c *Config) *int { return &c.Requesters }),
		int64Key("requests", func(c *Config) *int64 { return &c.Requests }),
		floatKey("requestrate", func(c *Config) *float64 { return &c.RequestRate }),
		secondsKey("maxtime", func(c *Config) *time.Duration { return &c.MaxTime }),
		{name: "warmup_time", set: func(c *Config, k, v string) error {
			d, err := parseSeconds(k, v)
			if err == nil {
				c.WarmupTime = max(d, 0) // LinkBench treats a negative warm-up as 0
			}
			return err
		}},
		int64Key("max_failed_requests", func(c *Config) *int64 { return &c.MaxFailedRequests }),
		secondsKey("grace_time", func(c *Config) *time.Duration { return &c.GraceTime }),
		{name: "request_timeout", set: func(c *Config, k, v string) error {
			f, err := parseFloat(k, v)
			if err != nil {
				return err
			}
			if !(f >= 0 && f < float64(math.MaxInt64)/float64(time.Second)) {
				return &ConfigError{Key: k, Value: v, Reason: "must be >= 0 seconds (0: no timeout)"}
			}
			c.RequestTimeout = time.Duration(f * float64(time.Second))
			return nil
		}},
		seedKey("request_random_seed", func(c *Config) *Seed { return &c.RequestRandomSeed }),
		// Quirk §11.1-2 (getlinklist_history is a percentage): kept in both modes.
		floatKey("getlinklist_history", func(c *Config) *float64 { return &c.GetLinkListHistory }),
		intKey("id2gen_config", func(c *Config) *int { return &c.ID2GenConfig }),
		floatKey("read_uncorr_blend", func(c *Config) *float64 { return &c.ReadUncorrBlend }),
		floatKey("write_uncorr_blend", func(c *Config) *float64 { return &c.WriteUncorrBlend }),
		int64Key("link_multiget_dist_min", func(c *Config) *int64 { return &c.MultigetDistMin }),
		int64Key("link_multiget_dist_max", func(c *Config) *int64 { return &c.MultigetDistMax }),
		boolKey("never_change", func(c *Config) *bool { return &c.NeverChange }),
		boolKey("allow_empty_store", func(c *Config) *bool { return &c.AllowEmptyStore }),
		{name: "rng", set: func(c *Config, k, v string) error {
			switch strings.ToLower(v) {
			case "fast":
				c.RNG = RNGFast
			case "java":
				c.RNG = RNGJava
			default:
				return &ConfigError{Key: k, Value: v, Reason: "must be fast or java"}
			}
			return nil
		}},

		// Databases.
		stringKey("dbprefix", func(c *Config) *string { return &c.DBPrefix }),
		intKey("dbcount", func(c *Config) *int { return &c.DBCount }),
		{name: "dbload", set: func(c *Config, k, v string) error {
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
		}},

		// Reporting.
		secondsKey("progressfreq", func(c *Config) *time.Duration { return &c.ProgressFreq }),
		secondsKey("displayfreq", func(c *Config) *time.Duration { return &c.DisplayFreq }),
		int64Key("load_progress_interval", func(c *Config) *int64 { return &c.LoadProgressInterval }),
		int64Key("req_progress_interval", func(c *Config) *int64 { return &c.ReqProgressInterval }),
		int64Key("maxsamples", func(c *Config) *int64 { return &c.MaxSamples }),
		ignoredKey("use_hdr_histogram", "linkbench-go always records latencies in HDR histograms"),
		intKey("hdr_histogram_accuracy", func(c *Config) *int { return &c.HDRAccuracy }),
		int64Key("hdr_histogram_max_latency", func(c *Config) *int64 { return &c.HDRMaxLatency }),
		stringKey("debuglevel", func(c *Config) *string { return &c.DebugLevel }),

		// Store connection.
		stringKey("linkstore", func(c *Config) *string { return &c.Store.LinkStore }),
		stringKey("nodestore", func(c *Config) *string { return &c.Store.NodeStore }),
		stringKey("host", func(c *Config) *string { return &c.Store.Host }),
		{name: "port", set: func(c *Config, k, v string) error {
			if v == "" { // LinkBench: absent or empty means the default port
				c.Store.Port = 3306
				return nil
			}
			n, err := parseInt(k, v)
			if err == nil {
				c.Store.Port = n
			}
			return err
		}},
		stringKey("user", func(c *Config) *string { return &c.Store.User }),
		stringKey("password", func(c *Config) *string { return &c.Store.Password }),
		stringKey("dbid", func(c *Config) *string { return &c.Store.DBID }),
		stringKey("linktable", func(c *Config) *string { return &c.Store.LinkTable }),
		stringKey("counttable", func(c *Config) *string { return &c.Store.CountTable }),
		stringKey("nodetable", func(c *Config) *string { return &c.Store.NodeTable }),
		stringKey("engine", func(c *Config) *string { return &c.Store.Engine }),
		boolKey("check_count", func(c *Config) *bool { return &c.Store.CheckCount }),
		boolKey("mysql_disable_binlog_load", func(c *Config) *bool { return &c.Store.DisableBinlogLoad }),
		boolKey("MySQL_disable_binlog_load", func(c *Config) *bool { return &c.Store.DisableBinlogLoad }),
		int64Key("memory_limit_mb", func(c *Config) *int64 { return &c.Store.MemoryLimitMB }),
	}
	// Keys of LinkBench stores that linkbench-go does not provide (MongoDB,
	// the RocksDB Thrift server): accepted so that such a file fails on its
	// linkstore value, which names the stores that exist.
	for _, k := range []string{"url", "max_retries", "skip_transactions", "fle_enable", "bulkinsert_size",
		"write_options_sync", "write_options_disableWAL"} {
		defs = append(defs, ignoredKey(k, "used only by LinkBench stores that linkbench-go does not provide"))
	}
	for i, k := range mixKeys {
		defs = append(defs, floatKey(k, func(c *Config) *float64 { return c.Mix.shares()[i] }))
	}
	for _, d := range []struct {
		prefix, fn string
		f          func(*Config) *DistConfig
	}{
		{"read_", "", func(c *Config) *DistConfig { return &c.Read }},
		{"read_uncorr_", "", func(c *Config) *DistConfig { return &c.ReadUncorr }},
		{"write_", "", func(c *Config) *DistConfig { return &c.Write }},
		{"write_uncorr_", "", func(c *Config) *DistConfig { return &c.WriteUncorr }},
		{"node_read_", "", func(c *Config) *DistConfig { return &c.NodeRead }},
		{"node_update_", "", func(c *Config) *DistConfig { return &c.NodeUpdate }},
		{"node_delete_", "", func(c *Config) *DistConfig { return &c.NodeDelete }},
		{"link_multiget_dist_", "link_multiget_dist", func(c *Config) *DistConfig { return &c.MultigetDist }},
		{"nlinks_", "nlinks_function", func(c *Config) *DistConfig { return &c.NLinks }},
	} {
		defs = append(defs, distKeys(d.prefix, d.fn, d.f)...)
	}
	for _, g := range []struct {
		name string
		f    func(*Config) *DataGenConfig
	}{
		{"link_add_datagen", func(c *Config) *DataGenConfig { return &c.LinkAddData }},
		{"link_up_datagen", func(c *Config) *DataGenConfig { return &c.LinkUpData }},
		{"node_add_datagen", func(c *Config) *DataGenConfig { return &c.NodeAddData }},
		{"node_up_datagen", func(c *Config) *DataGenConfig { return &c.NodeUpData }},
	} {
		defs = append(defs, dataGenKeys(g.name, g.f)...)
	}
	m := make(map[string]keyDef, len(defs))
	for _, d := range defs {
		if d.name == "nlinks_function" {
			continue // the out-degree mode key is nlinks_func
		}
		if d.name == "nlinks_config" {
			d = int64Key("nlinks_config", func(c *Config) *int64 { return &c.NLinksConfig })
		}
		m[d.name] = d
	}
	return m
}

// Set applies one LinkBench configuration key to c, as a properties file or
// a -D option would. The value's surrounding white space is trimmed.
// Errors: *ConfigError for an unknown key (naming the closest known key) or
// a malformed value; range checks are left to Validate.
func (c *Config) Set(key, value string) error {
	return c.set(allKeys(), key, value)
}

func (c *Config) set(keys map[string]keyDef, key, value string) error {
	d, ok := keys[key]
	if !ok {
		return unknownKey(keys, key)
	}
	return d.set(c, key, strings.TrimSpace(value))
}

func unknownKey(keys map[string]keyDef, key string) error {
	if !printable(key) {
		return &ConfigError{Key: describe(key), Reason: "unknown key (the file is not a .properties text file?)"}
	}
	reason := "unknown key"
	if best := closestKey(keys, key); best != "" {
		reason += fmt.Sprintf(" (did you mean %q?)", best)
	}
	return &ConfigError{Key: key, Reason: reason}
}

// closestKey returns the known key with the smallest edit distance to key
// (ties broken alphabetically), or "" when nothing is reasonably close.
func closestKey(keys map[string]keyDef, key string) string {
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
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
	keys := allKeys()
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
