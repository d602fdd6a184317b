package linkbench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
)

// Profile names the workload rules in effect: the maintained fork's
// default (never_change=false) or the legacy rules of the original 2011
// benchmark (never_change=true, reference §11.3).
func (c *Config) Profile() string {
	if c.NeverChange {
		return "legacy (never_change=true: original 2011 LinkBench rules)"
	}
	return "default (never_change=false: maintained LinkBench fork rules)"
}

// RNGDescription names the random mode in effect (the rng key), for
// report headers.
func (c *Config) RNGDescription() string { return modeOf(c.RNG).describe() }

// describe sets the report's header (header) and its seed, seedKey
// naming it (load_random_seed, request_random_seed).
func (w *workload) describe(rep *stats.Report, seed int64, seedKey string) {
	rep.Header = w.header(seed, seedKey)
	rep.Seeds = map[string]int64{seedKey: seed}
	if seedKey == "request_random_seed" {
		c := &w.cfg
		ss := RequestStreamSeed(seed, c.Step, c.Sweep)
		rep.Seeds["request_stream_seed"] = ss
		first := c.Shard.Index * c.Requesters
		rep.Header = append(rep.Header, stats.KV{Key: "request streams", Value: fmt.Sprintf(
			"request_stream_seed=%d (step %d, sweep %d), requesters %d..%d of the run (shard %s)",
			ss, max(c.Step, 1), c.Sweep, first, first+max(c.Requesters, 1)-1, c.Shard)})
	}
}

// phaseCounters takes the store's counters (store.CounterSource) at a
// phase's start; finish puts what the phase added into its report.
type phaseCounters struct {
	src    store.CounterSource
	before map[string]int64
}

// startCounters reads st's counters, if it has any.
func startCounters(st store.Store) phaseCounters {
	src, ok := store.AsCounterSource(st)
	if !ok {
		return phaseCounters{}
	}
	before := map[string]int64{}
	for _, c := range src.Counters() {
		before[c.Name] = c.Value
	}
	return phaseCounters{src: src, before: before}
}

// finish sets rep.Counters to the counters that grew during the phase, in
// name order: the growth of each, the value of a maximum ("max_" names).
func (c phaseCounters) finish(rep *stats.Report) {
	if c.src == nil || rep == nil {
		return
	}
	var out []stats.Counter
	for _, x := range c.src.Counters() {
		d := x.Value - c.before[x.Name]
		if strings.HasPrefix(x.Name, "max_") {
			d = x.Value
		}
		if d != 0 {
			out = append(out, stats.Counter{Name: x.Name, Value: d})
		}
	}
	slices.SortFunc(out, func(a, b stats.Counter) int { return strings.Compare(a.Name, b.Name) })
	rep.Counters = append(rep.Counters, out...)
}

// header lists the settings a reader needs to interpret a phase's report.
func (w *workload) header(seed int64, seedKey string) []stats.KV {
	c := &w.cfg
	kv := []stats.KV{
		{Key: "workload profile", Value: c.Profile()},
		{Key: "random mode", Value: c.RNGDescription()},
		{Key: seedKey, Value: fmt.Sprint(seed)},
		{Key: "id1 range", Value: fmt.Sprintf("startid1=%d maxid1=%d (%d ids)", c.StartID1, c.MaxID1, w.n)},
		{Key: "out-degree", Value: w.outDegreeSource},
		{Key: "link_type_count", Value: fmt.Sprint(c.LinkTypeCount)},
	}
	if seedKey == "load_random_seed" {
		kv = append(kv, stats.KV{Key: "loaders", Value: fmt.Sprintf("%d (loader_chunk_size=%d, bulk_insert_count=%d, generate_nodes=%v)",
			c.Loaders, c.LoaderChunkSize, c.BulkInsertCount, c.GenerateNodes)})
	} else {
		rate := "unthrottled"
		switch {
		case c.TotalRequestRate > 0:
			rate = fmt.Sprintf("%g/s in total, %g/s per requester (total_requestrate, open loop)",
				c.TotalRequestRate, c.TotalRequestRate/float64(max(c.Requesters, 1)))
		case c.RequestRate > 0:
			rate = fmt.Sprintf("%g/s per requester (open loop)", c.RequestRate)
		}
		requests, maxTime := fmt.Sprint(c.Requests), c.MaxTime.String()
		if c.Requests == Unlimited {
			requests = "unlimited"
		}
		if c.MaxTime == NoTimeLimit {
			maxTime = "none"
		}
		kv = append(kv,
			stats.KV{Key: "requesters", Value: fmt.Sprintf("%d (requests=%s, maxtime=%s, warmup_time=%s, requestrate=%s)",
				c.Requesters, requests, maxTime, c.WarmupTime, rate)},
			stats.KV{Key: "access", Value: fmt.Sprintf("read=%s write=%s uncorrelated=%s at %g%%",
				distName(c.Read), distName(c.Write), distName(c.ReadUncorr), c.ReadUncorrBlend)})
	}
	switch names := c.DatabaseNames(); {
	case len(names) > 1:
		kv = append(kv, stats.KV{Key: "databases", Value: names[0] + ".." + names[len(names)-1]})
	case c.Store.DBID != "":
		kv = append(kv, stats.KV{Key: "database", Value: names[0] + " (dbid)"})
	}
	if len(c.SourceFiles) > 0 {
		kv = append(kv, stats.KV{Key: "config files", Value: strings.Join(c.SourceFiles, ", ")})
	}
	return kv
}

func distName(d DistConfig) string {
	if !d.Set {
		return "-"
	}
	s := d.Spec.Kind.String()
	if k := d.Spec.Kind; d.Spec.Shape != 0 && (k == distributions.KindZipf || k == distributions.KindZipfExact) {
		s += fmt.Sprintf("(%g)", d.Spec.Shape)
	}
	return s
}
