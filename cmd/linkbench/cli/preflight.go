package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// preflight runs the checks that need the store, after it is open and
// before anything is created or written: the memory a load into the
// in-memory store needs, the flags the store's capabilities serve, the
// connections the phases open on a database server (a store with
// store.ConnectionLimiter), and, for a request phase without a load, that
// the graph is there. Its refusals are usage errors (exit status 2).
func preflight(ctx context.Context, o *options, cfg *linkbench.Config, st *openedStore) error {
	if st.name == "memory" && o.load {
		if err := checkMemory(cfg); err != nil {
			return err
		}
	}
	if err := st.checkCapabilities(o); err != nil {
		return err
	}
	if l, ok := store.AsConnectionLimiter(st.Store); ok {
		if err := checkConnections(ctx, o, cfg, l, st.name); err != nil {
			return err
		}
	}
	if o.req && (!o.load || !cfg.GenerateNodes) {
		// A request phase on a graph that was never loaded measures misses.
		// (A load with generate_nodes = false adds no nodes: the request
		// phase after it needs them already, as Request will check.)
		// The check waits for the node table: a lock another session
		// holds would stall it, so it gets the request phase's own time
		// bound (warm-up + maxtime + grace_time), not more.
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if bound := cfg.WarmupTime + cfg.MaxTime + cfg.GraceTime; bound > 0 && bound < linkbench.NoTimeLimit/2 && cfg.MaxTime < linkbench.NoTimeLimit {
			cctx, cancel = context.WithTimeout(ctx, bound)
		}
		err := linkbench.CheckLoaded(cctx, *cfg, st.Store)
		timedOut := ctx.Err() == nil && cctx.Err() != nil
		cancel()
		if timedOut {
			return fmt.Errorf("-r: the check that the graph is loaded did not finish within the request phase's time "+
				"(warm-up + maxtime + grace_time = %v): the server is stalled or the node table is locked; no request was sent: %w",
				cfg.WarmupTime+cfg.MaxTime+cfg.GraceTime, err)
		}
		if err != nil {
			switch {
			case errors.Is(err, linkbench.ErrEmptyStore) && o.load:
				return usageError{fmt.Errorf("-r: %w; the load (-l) adds none with generate_nodes = false", err)}
			case errors.Is(err, linkbench.ErrEmptyStore):
				return usageError{fmt.Errorf("-r: %w; load the graph first with -l", err)}
			case missingSchema(err):
				if o.createSchema {
					return usageError{fmt.Errorf("-r: %w: -create-schema would create empty tables: add -l (-create-schema -l -r) to load the graph into them", err)}
				}
				return usageError{fmt.Errorf("-r: %w: the database has no LinkBench tables; create and load it first with -create-schema -l", err)}
			}
			return err
		}
	}
	if o.verify && !o.createSchema && !o.load && !o.req {
		// Only a missing schema is refused here: an empty one verifies.
		if err := linkbench.CheckLoaded(ctx, *cfg, st.Store); err != nil && missingSchema(err) {
			return usageError{fmt.Errorf("-verify: %w: the database has no LinkBench tables; create and load them with -create-schema -l", err)}
		}
	}
	return nil
}

// missingSchema reports whether err says the database has no LinkBench
// tables (the stores wrap such errors with store.ErrNoSchema: MySQL's
// unknown database or table, PostgreSQL's undefined table or schema).
func missingSchema(err error) bool { return errors.Is(err, store.ErrNoSchema) }

// located returns a *ConfigError for key with the value and reason,
// naming where the key was set.
func located(cfg *linkbench.Config, key string, value any, reason string) error {
	return &linkbench.ConfigError{Key: key, Value: fmt.Sprint(value), Reason: reason, Where: cfg.KeyOrigin(key)}
}

const mib = 1 << 20

// checkMemory refuses a load into the in-memory store whose estimated size
// exceeds memory_limit_mb, or by default the machine's memory, naming the
// key that makes the graph large (largestFactor); it then
// sets the Go runtime's soft memory limit to that memory (unless
// GOMEMLIMIT is set), so that the garbage collector keeps the heap within
// it rather than letting garbage double it.
func checkMemory(cfg *linkbench.Config) error {
	g, err := linkbench.EstimateGraph(*cfg)
	if err != nil {
		return usageError{err}
	}
	need := memstore.EstimateBytes(g.Nodes, g.NodeData, g.Links, g.LinkData, g.Lists)
	limit, what := cfg.Store.MemoryLimitMB*mib, fmt.Sprintf("memory_limit_mb = %d", cfg.Store.MemoryLimitMB)
	if limit == 0 {
		m, src := machineMemory()
		if m <= 0 {
			return nil // unknown: not checked
		}
		limit, what = m, fmt.Sprintf("this machine's memory (%s, %.1f GiB)", src, float64(m)/(1<<30))
	}
	if need > limit {
		f, value, without := largestFactor(cfg, need)
		why := "lower maxid1"
		if f.key != "maxid1" || without > 0 {
			why = fmt.Sprintf("%s makes it large (with %s at its default, %s, the estimate is %s): lower it",
				f.key, f.what, f.def, sizeText(without))
		}
		return located(cfg, f.key, value, fmt.Sprintf(
			"the memory store needs about %.1f GiB for this graph (estimated: %d nodes, %d links), more than %s: "+
				"%s, use a database store (-store mysql), or set memory_limit_mb = %d to load it anyway",
			float64(need)/(1<<30), g.Nodes, g.Links, what, why, need/mib+1))
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
	return nil
}

// sizeFactor is a key (or a group of keys, named by key) that sets how
// large a graph is: reset puts them back to their defaults (def) in a
// copy of the configuration, value is the key's value.
type sizeFactor struct {
	key, what, def string
	reset          func(c, def *linkbench.Config)
	value          func(c *linkbench.Config) string
}

// sizeFactors are the keys the memory estimate (EstimateGraph and
// memstore.EstimateBytes) depends on: the number of id1s, of databases,
// the out-degree model (nlinks_func, nlinks_default, nlinks_config and
// nlinks_func's parameters), the lists per id1 and the payload sizes.
var sizeFactors = []sizeFactor{
	{key: "maxid1", what: "the id range maxid1 - startid1", def: "10000000 ids",
		reset: func(c, d *linkbench.Config) { c.MaxID1 = c.StartID1 + (d.MaxID1 - d.StartID1) },
		value: func(c *linkbench.Config) string { return strconv.FormatInt(c.MaxID1, 10) }},
	{key: "dbcount", what: "dbcount", def: "1",
		reset: func(c, d *linkbench.Config) { c.DBCount, c.DBLoad = d.DBCount, d.DBLoad },
		value: func(c *linkbench.Config) string { return strconv.Itoa(c.DBCount) }},
	{key: "nlinks_func", what: "the out-degree model", def: "real",
		reset: func(c, d *linkbench.Config) {
			c.NLinksFunc, c.NLinks, c.NLinksDefault, c.NLinksConfig = d.NLinksFunc, d.NLinks, d.NLinksDefault, d.NLinksConfig
		},
		value: func(c *linkbench.Config) string { return c.NLinksFunc }},
	{key: "link_type_count", what: "link_type_count", def: "2",
		reset: func(c, d *linkbench.Config) { c.LinkTypeCount = d.LinkTypeCount },
		value: func(c *linkbench.Config) string { return strconv.FormatInt(c.LinkTypeCount, 10) }},
	{key: "link_datasize", what: "link_datasize", def: "23",
		reset: func(c, d *linkbench.Config) { c.LinkDataSize = d.LinkDataSize },
		value: func(c *linkbench.Config) string { return strconv.FormatFloat(c.LinkDataSize, 'f', -1, 64) }},
	{key: "node_datasize", what: "node_datasize", def: "168",
		reset: func(c, d *linkbench.Config) { c.NodeDataSize = d.NodeDataSize },
		value: func(c *linkbench.Config) string { return strconv.FormatFloat(c.NodeDataSize, 'f', -1, 64) }},
}

// nlinksDefaultFactor is the out-degree's base, named instead of
// nlinks_func when it carries most of the out-degree.
var nlinksDefaultFactor = sizeFactor{key: "nlinks_default", what: "nlinks_default", def: "0",
	reset: func(c, d *linkbench.Config) { c.NLinksDefault = d.NLinksDefault },
	value: func(c *linkbench.Config) string { return strconv.FormatInt(c.NLinksDefault, 10) }}

// sizeText writes n bytes in GiB, or MiB below 1 GiB.
func sizeText(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.0f MiB", float64(n)/mib)
}

// estimateBytes is the memory store's estimate for cfg (see checkMemory).
func estimateBytes(cfg linkbench.Config) (int64, error) {
	g, err := linkbench.EstimateGraph(cfg)
	if err != nil {
		return 0, err
	}
	return memstore.EstimateBytes(g.Nodes, g.NodeData, g.Links, g.LinkData, g.Lists), nil
}

// largestFactor returns the factor that makes cfg's graph, estimated at
// need bytes, large: of sizeFactors, the one whose reset to its defaults
// shrinks the estimate the most, by a quarter at least (without: the
// estimate then). Within the out-degree model, nlinks_default is named
// when resetting it alone halves the estimate (an arithmetic model's base
// out-degree); otherwise nlinks_func. When no reset shrinks it that much
// (the factors near or below their defaults: a small memory limit), it is
// maxid1, without 0: fewer ids shrink every part of the graph.
func largestFactor(cfg *linkbench.Config, need int64) (f sizeFactor, value string, without int64) {
	def := linkbench.DefaultConfig()
	f, without = sizeFactors[0], 0
	best := 4.0 / 3 // need / without: a factor must account for a quarter of the estimate
	for _, sf := range sizeFactors {
		c := *cfg
		sf.reset(&c, &def)
		n, err := estimateBytes(c)
		if err != nil || n <= 0 {
			continue // not valid with the other keys as they are
		}
		if r := float64(need) / float64(n); r >= best {
			f, without, best = sf, n, r
		}
	}
	if f.key == "nlinks_func" {
		c := *cfg
		nlinksDefaultFactor.reset(&c, &def)
		if n, err := estimateBytes(c); err == nil && n <= need/2 {
			f, without = nlinksDefaultFactor, n
		}
	}
	return f, f.value(cfg), without
}

// machineMemory returns the memory this process may use: the machine's
// (MemTotal of /proc/meminfo), or its cgroup's limit when lower, and where
// the number comes from; 0 when unknown.
func machineMemory() (int64, string) {
	var total int64
	src := ""
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				if err == nil {
					total, src = kb*1024, "MemTotal"
				}
			}
		}
		f.Close()
	}
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			total, src = n, "the cgroup's limit"
		}
		break
	}
	return total, src
}

// checkConnections refuses phases whose sessions do not fit in the
// connections the server still accepts: each loader (and the node loader)
// or requester opens a session per database, of the connections the
// store says a session holds (two on MySQL, one on PostgreSQL).
func checkConnections(ctx context.Context, o *options, cfg *linkbench.Config, l store.ConnectionLimiter, name string) error {
	type phase struct {
		on      bool
		key     string
		workers int
		what    string
	}
	nodeLoader := 0
	if cfg.GenerateNodes {
		nodeLoader = 1
	}
	phases := []phase{
		{o.load, "loaders", cfg.Loaders + nodeLoader, "load phase"},
		{o.req && cfg.Requesters > 0, "requesters", cfg.Requesters, "request phase"},
	}
	if !phases[0].on && !phases[1].on {
		return nil
	}
	k, err := l.Connections(ctx)
	if err != nil {
		if k.Server != "" {
			name = strings.ToLower(k.Server)
		}
		return fmt.Errorf("%s store: %w", name, err)
	}
	k.PerSession = max(k.PerSession, 1)
	limit, connected := k.Limit, k.Connected
	free := limit - connected
	for _, p := range phases {
		need := int64(p.workers) * int64(cfg.DBCount) * k.PerSession
		if !p.on || need <= free {
			continue
		}
		value := cfg.Loaders
		if p.key == "requesters" {
			value = cfg.Requesters
		}
		return located(cfg, p.key, value, fmt.Sprintf(
			"the %s needs %d connections to the %s server (%d per worker and database: %d workers, %d databases), "+
				"and it accepts %d more (%s = %d, %d connected): lower %s, or raise the server's %s",
			p.what, need, k.Server, k.PerSession, p.workers, cfg.DBCount, max(free, 0), k.LimitName, limit, connected, p.key, raiseWhat(k.LimitName)))
	}
	return nil
}

// describe returns s quoted, or, when it holds characters that are not
// printable (binary input), its length: input is described, never echoed.
func describe(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return fmt.Sprintf("<%d bytes with non-printable characters>", len(s))
		}
	}
	return strconv.Quote(s)
}

// raiseWhat is the server setting to raise for a connection limit named
// limitName ("max_connections - superuser_reserved_connections": its
// first term).
func raiseWhat(limitName string) string {
	if name, _, ok := strings.Cut(limitName, " "); ok {
		return name
	}
	if limitName == "" {
		return "connection limit"
	}
	return limitName
}
