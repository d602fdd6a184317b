package linkbench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/hostmetrics"
	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/store"
)

// MaxSteps is the largest Plan.Steps: a day of hourly steps is 24, and
// every step's result is kept until the run ends.
const MaxSteps = 10000

// Plan is what a run does beyond one phase, as LinkBench's command line
// says it (-l, -r, -steps, a requesters sweep) plus what it keeps (the
// label, the result files, host metrics): Run carries it out, so that a Go
// harness gets what the linkbench tool gets.
type Plan struct {
	// Load and Request select the phases: the load, then the request
	// phase(s).
	Load, Request bool
	// Steps is the number of request phases run one after the other on
	// the same data (for each requesters value of a sweep), tagged
	// L1.P<requesters>, L2...: 24 steps of maxtime = 3600 report a day
	// hour by hour. 1..MaxSteps; 0 means 1.
	Steps int
	// Requesters, when not empty, is a sweep: one request phase (or Steps
	// phases) per value, tagged P<requesters> (L<step>.P<requesters> with
	// Steps > 1), each value once, each >= 1. Empty: Config.Requesters.
	Requesters []int
	// Label names the configuration measured (an engine, server
	// settings): the result files' names start with it and the tables
	// show it.
	Label string
	// ResultsDir, when not "", receives each phase's result file
	// (<label>.load.json, <label>.request[.<tag>].json) and per operation
	// an HDR interval log (<...>.<OP>.hlog), each complete on disk (a
	// temporary file synced and renamed) before Hooks.AfterPhase sees the
	// phase. The directory is created if missing.
	ResultsDir string
	// Overwrite lets the result files replace those of an earlier run
	// (same directory, label and tags); without it Check refuses them.
	Overwrite bool
	// Host, when not nil, samples host metrics (devices, CPU, the
	// server's and the client's processes, the database size) for the
	// result files and tables; the store's server description
	// (store.ServerDescriber) says where its data and process are.
	Host *HostOptions
	// StoreName names the store in the result files ("mysql", "memory",
	// ...); "" means "unknown".
	StoreName string
	// Header lines go first in every phase's report header (the store's
	// description, the client's settings); the label and the tag follow.
	Header []stats.KV
	// GraphChecked says the caller checked that the graph is loaded
	// (CheckLoaded, with its own time bound): the request phases do not
	// check it again (as Config.AllowEmptyStore, which the result files
	// record as the user set it).
	GraphChecked bool
	// Hooks are called around the phases; a nil hook is skipped.
	Hooks Hooks
}

// Hooks are optional functions a run calls around its phases, from the
// goroutine that called Run. An error a hook returns stops the run: Run
// returns it (wrapped) with the phases done so far.
type Hooks struct {
	// BeforePhase is called before each phase, once the store's idle
	// connections are closed (store.IdleCloser).
	BeforePhase func(ctx context.Context, p PhaseSpec) error
	// AfterPhase is called with each phase's result as soon as its
	// result files are on disk, also for a phase that failed or was
	// interrupted (Result.Err says it): print its report here.
	AfterPhase func(ctx context.Context, r PhaseResult) error
	// AfterLoad is called after a load that completed, before any request
	// phase (for example to create an index the load went without:
	// store.SchemaCreator.CreateDeferredIndex).
	AfterLoad func(ctx context.Context) error
}

// PhaseSpec is one phase of a plan.
type PhaseSpec struct {
	Phase stats.Phase
	// Step (1..Steps) and Requesters of a request phase; 0 for the load.
	Step, Requesters int
	// Tag names the phase within the run: "" for a load or a single
	// request phase, "P16" for a sweep's point, "L2.P16" for a step.
	Tag string
	// Base is the phase's result file name without its extension
	// ([label.]load, [label.]request[.tag]).
	Base string
}

// PhaseResult is what a phase of a run produced.
type PhaseResult struct {
	PhaseSpec
	// Report is the phase's report (nil when it could not start).
	Report *stats.Report
	// File is its result file, also when Plan.ResultsDir is "" (then it
	// is not written): what the tables show (results.WriteTables).
	File *results.File
	// Err is the phase's error: a store failure, an interruption, a
	// result file that could not be written.
	Err error
}

// ErrResultExists is matched (errors.Is) by the *ResultExistsError that
// Plan.Check and Run return when a result file of the plan exists already
// and Plan.Overwrite is false.
var ErrResultExists = errors.New("a result file of an earlier run exists")

// ResultExistsError says which result file of a plan exists already.
type ResultExistsError struct {
	Path string
}

// Error implements error.
func (e *ResultExistsError) Error() string {
	return e.Path + " exists (a result of an earlier run): use another label or directory, or overwrite it"
}

// Is reports whether target is ErrResultExists.
func (e *ResultExistsError) Is(target error) bool { return target == ErrResultExists }

// Phases returns the phases of the plan in the order Run runs them, for
// cfg: the load, then for each requesters value (Plan.Requesters, else
// cfg.Requesters) the steps.
func (p Plan) Phases(cfg Config) []PhaseSpec {
	var ps []PhaseSpec
	if p.Load {
		ps = append(ps, PhaseSpec{Phase: stats.PhaseLoad, Base: p.base("load", "")})
	}
	if !p.Request {
		return ps
	}
	counts := p.Requesters
	if len(counts) == 0 {
		counts = []int{cfg.Requesters}
	}
	steps := max(p.Steps, 1)
	for _, n := range counts {
		for step := 1; step <= steps; step++ {
			tag := ""
			switch {
			case steps > 1:
				tag = fmt.Sprintf("L%d.P%d", step, n)
			case len(p.Requesters) > 0:
				tag = fmt.Sprintf("P%d", n)
			}
			ps = append(ps, PhaseSpec{Phase: stats.PhaseRequest, Step: step, Requesters: n, Tag: tag, Base: p.base("request", tag)})
		}
	}
	return ps
}

// base is a phase's result file name without extension.
func (p Plan) base(phase, tag string) string {
	b := phase
	if p.Label != "" {
		b = FileSafe(p.Label) + "." + b
	}
	if tag != "" {
		b += "." + tag
	}
	return b
}

// FileSafe makes a label usable in a file name: path separators, blanks,
// colons and control characters become '_'.
func FileSafe(s string) string {
	return strings.Map(func(c rune) rune {
		if c == '/' || c == '\\' || c == ' ' || c == ':' || c < ' ' {
			return '_'
		}
		return c
	}, s)
}

// Check validates the plan for cfg before anything runs: Steps in
// 1..MaxSteps, sweep values >= 1 and distinct, Steps or a sweep only with
// a request phase, a sharded load only with an explicit load_random_seed
// (CheckShardedLoad), and no result file of an earlier run in ResultsDir
// unless Overwrite (ErrResultExists). Errors name the plan's field.
func (p Plan) Check(cfg Config) error {
	if p.Steps < 0 || p.Steps > MaxSteps {
		return fmt.Errorf("plan: Steps %d: want a number of request phases from 1 to %d", p.Steps, MaxSteps)
	}
	for i, n := range p.Requesters {
		if n < 1 {
			return fmt.Errorf("plan: Requesters %v: each value must be >= 1", p.Requesters)
		}
		if slices.Contains(p.Requesters[:i], n) {
			return fmt.Errorf("plan: Requesters %v: %d is there twice (its phases would share a tag and a result file)", p.Requesters, n)
		}
	}
	if (p.Steps > 1 || len(p.Requesters) > 0) && !p.Request {
		return errors.New("plan: Steps and Requesters need a request phase (Request)")
	}
	if p.Load {
		if err := CheckShardedLoad(cfg); err != nil {
			return err
		}
	}
	if p.ResultsDir == "" || p.Overwrite {
		return nil
	}
	for _, ph := range p.Phases(cfg) {
		name := filepath.Join(p.ResultsDir, ph.Base+".json")
		if _, err := os.Lstat(name); err == nil {
			return &ResultExistsError{Path: name}
		}
	}
	return nil
}

// Run runs the plan's phases against st with cfg, as the linkbench tool
// does: each phase with its own collector, its intervals (one per second,
// Config.OnInterval; a caller's OnInterval still gets them) and host
// metrics, its result file and HDR logs (Plan.ResultsDir), and the store's
// counters in its report. Only the run's first phase checks the store
// for the loaded graph (a request phase without a load; see
// Config.AllowEmptyStore): the phases after it do not again.
//
// A load into a database that holds a graph already is refused before
// anything runs (CheckEmpty: *GraphExistsError), except a sharded load
// (Config.Shard), whose shards load into the same tables. Config.StartAt
// applies to the first phase only.
//
// It returns the result of every phase that ran, in order (also those
// that failed), and the error that stopped the run: a phase's, a hook's,
// or the plan's (Check). A cancelled ctx stops the phase under way
// (Status INTERRUPTED) and the run after it.
func Run(ctx context.Context, cfg Config, st store.Store, plan Plan) ([]PhaseResult, error) {
	if err := plan.Check(cfg); err != nil {
		return nil, err
	}
	if plan.ResultsDir != "" {
		if err := os.MkdirAll(plan.ResultsDir, 0o755); err != nil {
			return nil, fmt.Errorf("results: %w", err)
		}
	}
	// The shards of a sharded load write into the same tables, one
	// before the other: each would find the others' rows.
	if plan.Load && !cfg.Shard.Sharded() {
		if err := CheckEmpty(ctx, cfg, st); err != nil {
			return nil, err
		}
	}
	log := cfg.logger()
	var host *hostSource
	var sampler *hostmetrics.Sampler
	if plan.Host != nil {
		host = newHostSource(ctx, *plan.Host, st, cfg.DatabaseNames())
		defer host.close()
		sampler = host.sampler(log)
	}
	var engine *engineSampler
	if e, ok := store.AsEngineMetrics(st); ok {
		engine = &engineSampler{src: e}
	}
	props := map[string]string{}
	for _, p := range cfg.Properties() {
		props[p.Key] = p.Value
	}
	storeName := plan.StoreName
	if storeName == "" {
		storeName = "unknown"
	}
	var out []PhaseResult
	loaded := plan.GraphChecked
	for _, ph := range plan.Phases(cfg) {
		if ic, ok := store.AsIdleCloser(st); ok {
			// The workers open sessions of their own: the connections the
			// store's shared methods used before are idle through the
			// phase.
			ic.CloseIdle()
		}
		if h := plan.Hooks.BeforePhase; h != nil {
			if err := h(ctx, ph); err != nil {
				return out, err
			}
		}
		c := cfg
		if len(out) > 0 {
			c.StartAt = time.Time{} // -start-at starts the run's first phase
		}
		if ph.Phase == stats.PhaseRequest {
			c.Requesters = ph.Requesters
			// Each step and sweep value draws streams of its own.
			c.Step = ph.Step
			if len(plan.Requesters) > 0 {
				c.Sweep = ph.Requesters
			}
			if loaded {
				c.AllowEmptyStore = true // the load checked its nodes, or a phase before found them
			}
		}
		rec := newPhaseRecorder(ctx, ph.Phase, sampler, host, engine, plan.ResultsDir, ph.Base, max(c.ProgressFreq, time.Second))
		userInterval := c.OnInterval
		c.OnInterval = func(p Progress) {
			rec.onInterval(ctx, p)
			if userInterval != nil {
				userInterval(p)
			}
		}
		var rep *stats.Report
		var err error
		if ph.Phase == stats.PhaseLoad {
			rep, err = Load(ctx, c, st)
		} else {
			rep, err = Request(ctx, c, st)
		}
		r := PhaseResult{PhaseSpec: ph, Report: rep, Err: err}
		if rep != nil {
			head := slices.Clone(plan.Header)
			if plan.Label != "" {
				head = append(head, stats.KV{Key: "label", Value: plan.Label})
			}
			if ph.Tag != "" {
				head = append(head, stats.KV{Key: "tag", Value: ph.Tag})
			}
			rep.Header = append(head, rep.Header...)
			phaseProps := props
			if ph.Phase == stats.PhaseRequest && props["requesters"] != strconv.Itoa(c.Requesters) {
				// A sweep's phase records its own requesters value.
				phaseProps = maps.Clone(props)
				phaseProps["requesters"] = strconv.Itoa(c.Requesters)
			}
			f, ferr := rec.finish(context.WithoutCancel(ctx), rep, results.Phase{Label: plan.Label, Tag: ph.Tag, Store: storeName, Config: phaseProps})
			if ph.Phase == stats.PhaseLoad {
				f.Threads = c.Loaders
			}
			r.File = f
			if r.Err == nil {
				r.Err = ferr
			}
		}
		out = append(out, r)
		if h := plan.Hooks.AfterPhase; h != nil {
			if err := h(ctx, r); err != nil {
				return out, err
			}
		}
		if r.Err != nil {
			return out, r.Err
		}
		if ctx.Err() != nil {
			return out, context.Cause(ctx)
		}
		loaded = true // the next request phases need not check the graph again
		if ph.Phase == stats.PhaseLoad {
			if h := plan.Hooks.AfterLoad; h != nil {
				if err := h(ctx); err != nil {
					return out, err
				}
			}
		}
	}
	return out, nil
}

// ErrGraphExists is matched (errors.Is) by the *GraphExistsError of
// CheckEmpty: LinkBench loads into empty tables, and a load over an old
// graph would leave its links beside the new counts.
var ErrGraphExists = errors.New("the database already holds a graph")

// GraphExistsError names the database that holds a graph already.
type GraphExistsError struct {
	Database string
}

// Error implements error.
func (e *GraphExistsError) Error() string {
	return "database " + e.Database + " already holds a graph: load into a new dbprefix, or drop it first"
}

// Is reports whether target is ErrGraphExists.
func (e *GraphExistsError) Is(target error) bool { return target == ErrGraphExists }

// CheckEmpty checks that the databases a load of cfg writes
// (Config.DatabaseNames, as Load reaches them) hold no graph, through the
// store's store.Contents; a store without it (an embedded store that
// starts empty) passes. Run calls it before a load. Errors: a
// *GraphExistsError; the store's (wrapping store.ErrNoSchema when the
// tables do not exist).
func CheckEmpty(ctx context.Context, cfg Config, st store.Store) error {
	if _, ok := store.AsContents(st); !ok {
		return nil
	}
	stores, names, err := dbStores(ctx, &cfg, st)
	if err != nil {
		return err
	}
	for i, s := range stores {
		c, ok := store.AsContents(s)
		if !ok {
			return fmt.Errorf("database %s: the store's view of it cannot tell its contents: %w", names[i], errors.ErrUnsupported)
		}
		full, err := c.HasData(ctx)
		if err != nil {
			return fmt.Errorf("database %s: %w", names[i], err)
		}
		if full {
			return &GraphExistsError{Database: names[i]}
		}
	}
	return nil
}
