// Package promexport exports a running benchmark's figures as Prometheus
// metrics (github.com/prometheus/client_golang): per operation the calls,
// misses, errors by class, abandoned calls and latency histograms (native
// and classic buckets), the calls in flight, the phase, the store's
// retries and counters, and the run's configuration.
//
// An Exporter is fed at the phases' interval boundaries (Config.OnInterval,
// one second by default) from the monitor goroutine, with what the
// workers' recorders moved into the phase's collector: a scrape reads the
// exporter's own copy, under a lock no worker ever takes, and never waits
// for the workers nor slows them down. The figures are therefore at most
// one interval old; at the end of a phase they are its report's (the
// intervals tile the phase).
//
// Every series carries the labels phase ("load", "request"), step (the
// request phase's step, 1.., "" for a load or a phase run outside
// linkbench.Run) and tag (Plan's tag of the phase: "", "P16", "L2.P16").
// Counters never reset within a process: a phase's series keep their last
// values after it ends, and a phase whose labels come again (a second run
// in the same process) adds to them.
//
// The metrics, all prefixed linkbench_:
//
//	calls_total{phase,step,tag,op}              store calls of op (requests; for a load, batches), every outcome
//	misses_total{phase,step,tag,op}             calls that found nothing (found == false)
//	errors_total{phase,step,tag,op,class}       failed calls, by error class
//	abandoned_total{phase,step,tag,op}          calls given up while they waited for the store
//	latency_seconds{phase,step,tag,op}          histogram: successes, misses and abandoned calls (the report's latency)
//	error_latency_seconds{phase,step,tag,op}    histogram: failed calls
//	in_flight_calls{phase,step,tag}             requests under way (calls waiting for the store) at the last interval's end
//	oldest_in_flight_seconds{phase,step,tag}    the age of the oldest of them
//	load_rows_total{phase,step,tag}             rows a load wrote (nodes, links, counts), in committed batches
//	phase_running{phase,step,tag}               1 while the phase runs, then 0
//	store_retries_total{call}                   the store's retries (attempts after the first) of its call
//	store_counter_total{name}                   the store's other counters (store.CounterSource)
//	store_max{name}                             the store's maxima ("max_" counters)
//	config_info{key,value}                      1 per configuration key of the run (Config.Properties)
//	run_info{label,store}                       1: the run's label and store
//
// The latency histograms come from the intervals' HDR histograms
// (stats.IntervalSigFigs significant digits, about 1 %): while a phase
// runs, the exporter adds up each operation's interval counts (two arrays
// of about 36 KB per operation with the default histogram range) and a
// scrape converts them into buckets when they changed, each value
// counting as the middle of its HDR bucket; an ended phase keeps its
// buckets only. Native buckets (exposed to a
// scraper that asks for the protobuf format, as Prometheus does with
// native histograms enabled) grow by a factor of 2^(2^-schema), 1.09 by
// default; classic buckets (Options.Buckets) serve the older servers.
// Size operations (RANGE_SIZE, the bulk loads' rows per batch) are not
// exported.
package promexport

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/store"
	"github.com/prometheus/client_golang/prometheus"
)

// DefaultBuckets are the classic buckets' upper bounds of the latency
// histograms, in seconds: 1, 2 and 5 times each power of ten from 1 µs to
// 100 s (factor 2 to 2.5 from one to the next).
var DefaultBuckets = func() []float64 {
	var b []float64
	for e := -6; e <= 2; e++ {
		p := math.Pow10(e)
		b = append(b, p, 2*p, 5*p)
	}
	return b[:len(b)-2] // up to 100 s
}()

// Defaults of Options.
const (
	// DefaultBucketFactor is the growth factor of the native buckets from
	// one to the next (schema 3: 2^(1/8), about 1.09, is the largest
	// factor not above it).
	DefaultBucketFactor = 1.1
	// DefaultMaxBuckets is the largest number of native buckets one
	// histogram exposes: beyond it, its resolution halves (two buckets
	// into one) until it fits.
	DefaultMaxBuckets = 160
)

// minSchema and maxSchema bound the native histograms' schema (the
// exposition format's range).
const minSchema, maxSchema = -4, 8

// Options configures an Exporter; the zero value gives the defaults.
type Options struct {
	// Buckets are the upper bounds of the latency histograms' classic
	// buckets, in seconds, increasing, each > 0 (+Inf is implied); nil
	// means DefaultBuckets.
	Buckets []float64
	// BucketFactor is the largest growth factor of the native buckets,
	// > 1 (the finest schema whose factor 2^(2^-schema) does not exceed
	// it, from 8 down to -4, is used); 0 means DefaultBucketFactor.
	BucketFactor float64
	// MaxBuckets is the most native buckets one histogram exposes (>= 1);
	// 0 means DefaultMaxBuckets.
	MaxBuckets int
}

// Exporter holds a run's metrics and is their prometheus.Collector. Feed
// it with Attach (or OnInterval, BeforePhase and AfterPhase); it is safe
// for concurrent use.
type Exporter struct {
	bounds     []float64
	schema     int32
	maxBuckets int
	descs      descs
	// attached counts the Attach calls: a hook of an earlier Attach, still
	// in the chain of a Config or Plan attached again, only passes the
	// call on, so that the exporter is fed once.
	attached atomic.Uint64

	mu       sync.Mutex
	tables   map[geometry]*bucketTable
	phases   []*phaseSeries // in order of creation
	current  *phaseSeries   // the phase BeforePhase started, until it ends
	counters store.CounterSource
	ctr      []store.Counter // the store's counters at the last interval
	config   []stats.KV
	label    string
	store    string
}

type descs struct {
	calls, misses, errs, abandoned, lat, errLat      *prometheus.Desc
	inFlight, oldest, rows, running                  *prometheus.Desc
	retries, storeCounter, storeMax, config, runInfo *prometheus.Desc
}

func newDescs() descs {
	p := []string{"phase", "step", "tag"}
	op := append(slices.Clone(p), "op")
	d := func(name, help string, labels []string) *prometheus.Desc {
		return prometheus.NewDesc("linkbench_"+name, help, labels, nil)
	}
	return descs{
		calls:        d("calls_total", "Store calls of the operation (requests; for a load, batches), every outcome: successes, misses, errors and abandoned calls.", op),
		misses:       d("misses_total", "Calls of the operation that found nothing (found == false: a deleted or absent row).", op),
		errs:         d("errors_total", "Failed calls of the operation, by error class.", append(slices.Clone(op), "class")),
		abandoned:    d("abandoned_total", "Calls of the operation given up while they waited for the store (the run's end, request_timeout).", op),
		lat:          d("latency_seconds", "Latency of the operation's successes, misses and abandoned calls (the report's latency), in seconds.", op),
		errLat:       d("error_latency_seconds", "Latency of the operation's failed calls, in seconds.", op),
		inFlight:     d("in_flight_calls", "Requests under way (with a database, their calls waiting for the store) at the end of the last interval.", p),
		oldest:       d("oldest_in_flight_seconds", "Age of the oldest request under way at the end of the last interval, in seconds.", p),
		rows:         d("load_rows_total", "Rows the load wrote (nodes, links and counts), in committed batches.", p),
		running:      d("phase_running", "1 while the phase runs, 0 once it ended.", p),
		retries:      d("store_retries_total", "The store's retries (attempts after the first) of its call, since it was opened.", []string{"call"}),
		storeCounter: d("store_counter_total", "The store's other counters (failures, errors by server code, events), since it was opened.", []string{"name"}),
		storeMax:     d("store_max", "The store's maxima (max_ counters: the most retries of one call, ...).", []string{"name"}),
		config:       d("config_info", "The run's configuration: 1 per key, with its value.", []string{"key", "value"}),
		runInfo:      d("run_info", "The run's label and store.", []string{"label", "store"}),
	}
}

// phaseSeries is one phase's series.
type phaseSeries struct {
	labels   [3]string // phase, step, tag
	created  time.Time
	running  bool
	inFlight int
	oldest   time.Duration
	rows     int64
	ops      [stats.NumOps]*opSeries
}

// opSeries is one operation's series in a phase.
type opSeries struct {
	created                  time.Time
	calls, misses, abandoned int64
	errors                   map[string]int64
	// While the phase runs, all and errs add up its intervals' histogram
	// counts (every outcome, and the errors; hdr histogram counts of
	// geometry geom, index by index), once per interval; a scrape converts
	// them (when they changed since the last one) into lat and errLat on
	// top of base and baseErr, what earlier runs with the same labels
	// left. When the phase ends they are converted for good and dropped:
	// an ended phase keeps its buckets only.
	all, errs                 []int64
	geom                      geometry
	base, baseErr             hist
	lat, errLat               hist
	dirty                     bool
	latM, errM                *histMetric // the samples of lat and errLat (nil: to build)
	latCreated, errLatCreated time.Time
}

// New returns an Exporter registered in reg (a registry of the caller's,
// or prometheus.DefaultRegisterer), so that the caller's own /metrics
// handler serves its metrics; with a nil reg it is not registered (the
// caller registers it, an Exporter being a prometheus.Collector). Errors: an Options value out of range (named
// in the message), reg's (prometheus.AlreadyRegisteredError when reg holds
// linkbench metrics already).
func New(reg prometheus.Registerer, opts Options) (*Exporter, error) {
	e := &Exporter{bounds: opts.Buckets, maxBuckets: opts.MaxBuckets, descs: newDescs()}
	if e.bounds == nil {
		e.bounds = DefaultBuckets
	}
	for i, b := range e.bounds {
		if !(b > 0) || math.IsInf(b, 1) || i > 0 && !(b > e.bounds[i-1]) {
			return nil, fmt.Errorf("promexport: Options.Buckets %v: want increasing finite bounds > 0", e.bounds)
		}
	}
	e.bounds = slices.Clone(e.bounds)
	f := opts.BucketFactor
	if f == 0 {
		f = DefaultBucketFactor
	}
	if !(f > 1) || math.IsInf(f, 1) {
		return nil, fmt.Errorf("promexport: Options.BucketFactor %g: want a finite factor > 1", f)
	}
	// The coarsest schema whose factor does not exceed f (the finest one
	// when even its factor does).
	e.schema = minSchema
	for e.schema < maxSchema && math.Exp2(math.Exp2(-float64(e.schema))) > f {
		e.schema++
	}
	if e.maxBuckets == 0 {
		e.maxBuckets = DefaultMaxBuckets
	}
	if e.maxBuckets < 1 {
		return nil, fmt.Errorf("promexport: Options.MaxBuckets %d: want >= 1", opts.MaxBuckets)
	}
	if reg != nil {
		if err := reg.Register(e); err != nil {
			return nil, fmt.Errorf("promexport: registering the collector: %w", err)
		}
	}
	return e, nil
}

// Schema returns the schema of the native buckets (their growth factor is
// 2^(2^-schema)), before any halving for Options.MaxBuckets.
func (e *Exporter) Schema() int32 { return e.schema }

// Attach makes a run feed the exporter: cfg.OnInterval (the one it had is
// still called, after the exporter's), plan's BeforePhase and AfterPhase
// hooks when plan is not nil (likewise chained), cfg's keys as
// linkbench_config_info, plan's label and store name as linkbench_run_info,
// and st's counters when it has them (store.CounterSource), read at each
// interval (st may be nil). Call it before the run starts; a later Attach
// replaces the configuration, label and store, and the hooks of the
// earlier ones (still in the chain of a Config or Plan attached again)
// stop feeding the exporter: each interval is counted once.
func (e *Exporter) Attach(cfg *linkbench.Config, plan *linkbench.Plan, st store.Store) {
	var kv []stats.KV
	for _, p := range cfg.Properties() {
		kv = append(kv, stats.KV{Key: p.Key, Value: p.Value})
	}
	var src store.CounterSource
	if st != nil {
		src, _ = store.AsCounterSource(st)
	}
	e.mu.Lock()
	e.config = kv
	e.counters = src
	if plan != nil {
		e.label, e.store = plan.Label, plan.StoreName
	}
	e.mu.Unlock()
	gen := e.attached.Add(1)
	current := func() bool { return e.attached.Load() == gen }
	prevInterval := cfg.OnInterval
	cfg.OnInterval = func(p linkbench.Progress) {
		if current() {
			e.OnInterval(p)
		}
		if prevInterval != nil {
			prevInterval(p)
		}
	}
	if plan == nil {
		return
	}
	before, after := plan.Hooks.BeforePhase, plan.Hooks.AfterPhase
	plan.Hooks.BeforePhase = func(ctx context.Context, ps linkbench.PhaseSpec) error {
		if current() {
			_ = e.BeforePhase(ctx, ps)
		}
		if before != nil {
			return before(ctx, ps)
		}
		return nil
	}
	plan.Hooks.AfterPhase = func(ctx context.Context, r linkbench.PhaseResult) error {
		if current() {
			_ = e.AfterPhase(ctx, r)
		}
		if after != nil {
			return after(ctx, r)
		}
		return nil
	}
}

// phaseName is the phase label of p.
func phaseName(p stats.Phase) string { return strings.ToLower(p.String()) }

// series returns the series of the labels, creating them (e.mu held).
func (e *Exporter) series(labels [3]string) *phaseSeries {
	for _, s := range e.phases {
		if s.labels == labels {
			return s
		}
	}
	s := &phaseSeries{labels: labels, created: time.Now()}
	e.phases = append(e.phases, s)
	return s
}

// BeforePhase marks the phase ps as running: the intervals that follow
// carry its step and tag (a linkbench.Hooks function; it never fails).
func (e *Exporter) BeforePhase(_ context.Context, ps linkbench.PhaseSpec) error {
	step := ""
	if ps.Step > 0 {
		step = strconv.Itoa(ps.Step)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.series([3]string{phaseName(ps.Phase), step, ps.Tag})
	s.running = true
	e.current = s
	return nil
}

// AfterPhase marks the phase ended (a linkbench.Hooks function; it never
// fails).
func (e *Exporter) AfterPhase(_ context.Context, _ linkbench.PhaseResult) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s := e.current; s != nil {
		s.running, s.inFlight, s.oldest = false, 0, 0
		e.finish(s)
		e.current = nil
	}
	return nil
}

// finish converts an ended phase's counts into buckets for good and drops
// the counts (e.mu held).
func (e *Exporter) finish(s *phaseSeries) {
	for _, os := range s.ops {
		if os == nil || os.all == nil && os.errs == nil {
			continue
		}
		e.refresh(os)
		os.base, os.baseErr = os.lat.clone(), os.errLat.clone()
		os.all, os.errs = nil, nil
	}
}

// refresh converts os's counts into its buckets when they changed since
// the last time (e.mu held).
func (e *Exporter) refresh(os *opSeries) {
	if !os.dirty {
		return
	}
	os.dirty = false
	os.latM, os.errM = nil, nil
	t := e.tables[os.geom]
	if t == nil {
		if e.tables == nil {
			e.tables = map[geometry]*bucketTable{}
		}
		t = newBucketTable(os.geom, e.bounds, e.schema)
		e.tables[os.geom] = t
	}
	os.lat = os.base.clone()
	if os.all != nil {
		os.lat.add(os.all, os.errs, t, len(e.bounds))
	}
	os.errLat = os.baseErr.clone()
	if os.errs != nil {
		os.errLat.add(os.errs, nil, t, len(e.bounds))
	}
}

// merge adds the counts of the interval histogram h to *dst (its counts
// when nil); it reports whether it changed it.
func merge(dst *[]int64, h *hdr.Histogram) bool {
	if h == nil || h.TotalCount() == 0 {
		return false
	}
	c := h.Export().Counts // a copy
	switch {
	case *dst == nil:
		*dst = c
	case len(c) != len(*dst):
		return false // another geometry: never within a phase (OnInterval finishes first)
	default:
		d := *dst
		for i, n := range c {
			d[i] += n
		}
	}
	return true
}

// OnInterval adds an interval of a running phase (a Config.OnInterval
// function): to the phase BeforePhase started, or, without one, to the
// series of p.Phase with empty step and tag. The final interval
// (p.Final) ends the phase.
func (e *Exporter) OnInterval(p linkbench.Progress) {
	var ctr []store.Counter
	e.mu.Lock()
	src := e.counters
	e.mu.Unlock()
	if src != nil {
		ctr = src.Counters() // atomics of the store: read here, never at a scrape
	}
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if src != nil {
		e.ctr = ctr
	}
	s := e.current
	if s == nil || s.labels[0] != phaseName(p.Phase) {
		s = e.series([3]string{phaseName(p.Phase), "", ""})
	}
	s.running = !p.Final
	s.inFlight, s.oldest = p.InFlight, p.OldestInFlight
	if p.Final {
		s.inFlight, s.oldest = 0, 0
	}
	if p.Phase == stats.PhaseLoad {
		s.rows += p.IntervalRows
	}
	for _, o := range p.Interval.Ops {
		if o.Op.IsSize() || int(o.Op) >= stats.NumOps {
			continue
		}
		os := s.ops[o.Op]
		if os == nil {
			os = &opSeries{created: now}
			s.ops[o.Op] = os
		}
		os.calls += o.Count
		os.misses += o.Misses
		os.abandoned += o.Abandoned
		for _, c := range o.ErrorClasses {
			if os.errors == nil {
				os.errors = map[string]int64{}
			}
			os.errors[c.Name] += c.Value
		}
		if o.Count > o.Errors && os.latCreated.IsZero() {
			os.latCreated = now
		}
		if o.Errors > 0 && os.errLatCreated.IsZero() {
			os.errLatCreated = now
		}
		if o.Hist != nil {
			g := geometry{o.Hist.HighestTrackableValue(), o.Hist.SignificantFigures(), o.Unit()}
			if (os.all != nil || os.errs != nil) && g != os.geom {
				e.finish(s) // another geometry (not within one phase): the buckets so far become the base
			}
			os.geom = g
		}
		a, b := merge(&os.all, o.Hist), merge(&os.errs, o.ErrHist)
		os.dirty = os.dirty || a || b
	}
	if p.Final {
		e.finish(s)
	}
}

// Describe implements prometheus.Collector.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	d := &e.descs
	for _, x := range []*prometheus.Desc{d.calls, d.misses, d.errs, d.abandoned, d.lat, d.errLat,
		d.inFlight, d.oldest, d.rows, d.running, d.retries, d.storeCounter, d.storeMax, d.config, d.runInfo} {
		ch <- x
	}
}

// Collect implements prometheus.Collector: it reads the exporter's copy of
// the figures (never the workers').
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := &e.descs
	counter := func(desc *prometheus.Desc, v int64, created time.Time, labels ...string) {
		ch <- prometheus.MustNewConstMetricWithCreatedTimestamp(desc, prometheus.CounterValue, float64(v), created, labels...)
	}
	gauge := func(desc *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, labels...)
	}
	for _, s := range e.phases {
		l := s.labels[:]
		running := 0.0
		if s.running {
			running = 1
		}
		gauge(d.running, running, l...)
		if s.labels[0] == phaseName(stats.PhaseRequest) {
			gauge(d.inFlight, float64(s.inFlight), l...)
			gauge(d.oldest, s.oldest.Seconds(), l...)
		} else {
			counter(d.rows, s.rows, s.created, l...)
		}
		for op, os := range s.ops {
			if os == nil {
				continue
			}
			ol := append(slices.Clone(l), stats.Op(op).String())
			counter(d.calls, os.calls, os.created, ol...)
			counter(d.misses, os.misses, os.created, ol...)
			counter(d.abandoned, os.abandoned, os.created, ol...)
			classes := make([]string, 0, len(os.errors))
			for c := range os.errors {
				classes = append(classes, c)
			}
			slices.Sort(classes)
			for _, c := range classes {
				counter(d.errs, os.errors[c], os.created, append(slices.Clone(ol), c)...)
			}
			e.refresh(os)
			if !os.latCreated.IsZero() {
				if os.latM == nil {
					os.latM = newHistMetric(d.lat, &os.lat, e.bounds, e.schema, e.maxBuckets, os.latCreated, ol...)
				}
				ch <- os.latM
			}
			if !os.errLatCreated.IsZero() {
				if os.errM == nil {
					os.errM = newHistMetric(d.errLat, &os.errLat, e.bounds, e.schema, e.maxBuckets, os.errLatCreated, ol...)
				}
				ch <- os.errM
			}
		}
	}
	for _, c := range e.ctr {
		switch kind, call, _ := strings.Cut(c.Name, "."); {
		case kind == "retries" && results.IsRetryCounter(c.Name):
			ch <- prometheus.MustNewConstMetric(d.retries, prometheus.CounterValue, float64(c.Value), call)
		case strings.HasPrefix(c.Name, "max_"):
			gauge(d.storeMax, float64(c.Value), c.Name)
		default:
			ch <- prometheus.MustNewConstMetric(d.storeCounter, prometheus.CounterValue, float64(c.Value), c.Name)
		}
	}
	for _, kv := range e.config {
		gauge(d.config, 1, kv.Key, kv.Value)
	}
	if e.config != nil || e.label != "" || e.store != "" {
		gauge(d.runInfo, 1, e.label, e.store)
	}
}
