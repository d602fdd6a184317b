package linkbench

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// keySamples gives every key that Config.Properties can print a value that
// differs from its default; TestKeysRoundTrip sets them all. A new key
// without a sample fails the test.
var keySamples = map[string]string{
	"startid1": "7", "maxid1": "5007", "loaders": "3", "generate_nodes": "false", "loader_chunk_size": "64",
	"bulk_insert_count": "99", "bulk_insert_kb": "16", "load_random_seed": "-5", "rng": "java",
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

	"linkstore": "mysql", "nodestore": "mysql", "host": "db.example", "port": "5432", "user": "bench", "dbid": "one",
	"linktable": "lt", "counttable": "ct", "nodetable": "nt", "engine": "myrocks", "check_count": "true",
	"mysql_disable_binlog_load": "true", "memory_limit_mb": "64", "grace_time": "2.5", "request_timeout": "0.75",
}

// leavesNotSetByKeys are the Config fields (paths as leafPaths writes them)
// that no key sets: the Go-only fields, and NLinks' class, which
// nlinks_func names.
var leavesNotSetByKeys = []string{"NLinks.Function", "NLinks.Spec.Kind", "NLinks.Set", "NLinks.Spec.Config",
	"Logger", "Now", "OnProgress", "OnInterval", "IntervalFreq", "Stream", "SourceFiles", "monotonic", "origins"}

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
	if err := cfg.Set("password", "s3cret"); err != nil {
		t.Fatal(err)
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
	back.Store.Password = cfg.Store.Password
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

var (
	rangeRE   = regexp.MustCompile(`^(-?\d+)\.\.(-?\d+)\b`)
	atLeastRE = regexp.MustCompile(`^>= (-?\d+)\b`)
	aboveRE   = regexp.MustCompile(`^> (-?\d+)(?: and <= (\d+))?\b`)
)

// TestAllowedRangesAreChecked: for every key whose allowed values are a
// numeric range, Validate accepts the ends of the range (whatever else it
// then refuses, it does not name this key) and refuses the values just
// outside it, naming the key and stating the range. The range a listing
// shows is thus the range Validate checks.
func TestAllowedRangesAreChecked(t *testing.T) {
	n := 0
	for _, k := range Keys() {
		var in, out []int64
		if m := rangeRE.FindStringSubmatch(k.Allowed); m != nil {
			lo, _ := strconv.ParseInt(m[1], 10, 64)
			hi, _ := strconv.ParseInt(m[2], 10, 64)
			in, out = []int64{lo, hi}, []int64{lo - 1, hi + 1}
		} else if m := atLeastRE.FindStringSubmatch(k.Allowed); m != nil {
			lo, _ := strconv.ParseInt(m[1], 10, 64)
			in, out = []int64{lo}, []int64{lo - 1}
		} else if m := aboveRE.FindStringSubmatch(k.Allowed); m != nil {
			lo, _ := strconv.ParseInt(m[1], 10, 64)
			in, out = []int64{lo + 1}, []int64{lo}
			if m[2] != "" {
				hi, _ := strconv.ParseInt(m[2], 10, 64)
				in, out = append(in, hi), append(out, hi+1)
			}
		} else {
			continue
		}
		n++
		for _, v := range in {
			cfg := DefaultConfig()
			if err := cfg.Set(k.Name, fmt.Sprint(v)); err != nil {
				t.Errorf("%s = %d (allowed %s): Set: %v", k.Name, v, k.Allowed, err)
				continue
			}
			var ce *ConfigError
			if err := cfg.Validate(); errors.As(err, &ce) && ce.Key == k.Name {
				t.Errorf("%s = %d (allowed %s) refused: %v", k.Name, v, k.Allowed, err)
			}
		}
		for _, v := range out {
			cfg := DefaultConfig()
			if err := cfg.Set(k.Name, fmt.Sprint(v)); err != nil {
				continue // refused by Set (out of the field's type): fine
			}
			err := cfg.Validate()
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Key != k.Name {
				t.Errorf("%s = %d (allowed %s): Validate = %v, want an error naming %s", k.Name, v, k.Allowed, err, k.Name)
				continue
			}
			bare, _, _ := strings.Cut(k.Allowed, " (")
			if !strings.Contains(ce.Reason, bare) {
				t.Errorf("%s = %d: the reason %q does not state the allowed range %q", k.Name, v, ce.Reason, bare)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d keys have a numeric range", n)
	}
}
