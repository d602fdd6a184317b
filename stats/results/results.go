// Package results is linkbench-go's result file: one JSON document per
// benchmark phase (a load, or one request step of a run), holding what a
// database engineer publishes about it — the configuration, the server,
// per-operation counts and latency percentiles, the host's metrics over the
// measured window and per interval (one second long), and the derived columns of the
// load and query tables (ips, r/i, rkb/i, wkb/i, Mcpu/i, ...).
//
// Every measurement that may be unavailable is a pointer: nil means it was
// not measured (another OS, a server on another host, ...) and is rendered
// as "-", never as 0.
package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"time"

	"github.com/linkbench-go/linkbench/internal/atomicfile"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/hostmetrics"
)

// FormatVersion is the version of the result file format written by Write.
const FormatVersion = 1

// File is one phase's result file.
type File struct {
	// Format is FormatVersion when written.
	Format int `json:"format"`
	// Label names the configuration measured (an engine, a server
	// configuration: "rocksdb.c1", "innodb"); it is the tables' last
	// column.
	Label string `json:"label,omitempty"`
	// Tag names the phase within a run: "L1.P16" for the first request
	// step with 16 requesters, "P4" for the 4-requester point of a sweep;
	// empty for a plain run or a load.
	Tag string `json:"tag,omitempty"`
	// Phase is LOAD or REQUEST.
	Phase stats.Phase `json:"phase"`
	// Config is the whole effective configuration, secrets redacted.
	Config map[string]string `json:"config,omitempty"`
	// Seeds are the random seeds the phase used, by name.
	Seeds map[string]int64 `json:"seeds,omitempty"`
	// Store names the store ("mysql", "postgres", "memory", ...).
	Store string `json:"store"`
	// Server is the database server measured; nil when unknown.
	Server *Server `json:"server,omitempty"`
	// Start and End bound the measured window (a request phase's warm-up
	// excluded); Seconds is its length.
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Seconds float64   `json:"seconds"`
	// Threads is the number of loaders or requesters.
	Threads int `json:"threads"`
	// Status is how the phase ended (stats.Completed, "", or INTERRUPTED,
	// FAILED, OVERRAN, ABANDONED), which Detail explains.
	Status stats.Status `json:"status,omitempty"`
	Detail string       `json:"detail,omitempty"`
	// Rows is the rows a load wrote (nodes, links and counts), Requests
	// the requests a request phase made (failed ones included); Errors the
	// failed requests.
	Rows int64 `json:"rows,omitempty"`
	// Nodes, Links and Counts are a load's rows by table (Rows is their
	// sum).
	Nodes    int64 `json:"nodes,omitempty"`
	Links    int64 `json:"links,omitempty"`
	Counts   int64 `json:"counts,omitempty"`
	Requests int64 `json:"requests,omitempty"`
	Errors   int64 `json:"errors,omitempty"`
	// Ops holds one entry per operation recorded, in LinkBench's order.
	Ops []Op `json:"ops"`
	// HDRUnit is the unit of the values in the ops' HDR interval logs
	// (time.Nanosecond by default; JSON: nanoseconds).
	HDRUnit time.Duration `json:"hdr_unit_ns,omitempty"`
	// ErrorClasses counts the errors by class; Retries the store's retries
	// by name; Counters are the store's other metrics.
	ErrorClasses map[string]int64 `json:"error_classes,omitempty"`
	Retries      map[string]int64 `json:"retries,omitempty"`
	Counters     map[string]int64 `json:"counters,omitempty"`
	// Host is the host metrics over the measured window; nil when none
	// were sampled.
	Host *Host `json:"host,omitempty"`
	// Engine is the storage engine's own metrics; nil when the store's
	// engine gives none.
	Engine *Engine `json:"engine,omitempty"`
	// Intervals are the phase's intervals (one second each, linkbench.Config.OnInterval), in order.
	Intervals []Interval `json:"intervals,omitempty"`
	// Derived holds the tables' columns, computed by Derive.
	Derived Derived `json:"derived"`
	// Parts are the inputs of a merged file (Merge), one per host
	// (shard), each with its own metrics and table row; nil otherwise.
	Parts []Part `json:"parts,omitempty"`
}

// Server describes the database server.
type Server struct {
	Version string `json:"version,omitempty"`
	// Settings are the server variables that matter to a comparison
	// (engine, buffer pool or block cache, flush at commit, sync_binlog,
	// binlog format, compression), by the server's names.
	Settings map[string]string `json:"settings,omitempty"`
	// Datadir, PID and Devices say what was sampled.
	Datadir string   `json:"datadir,omitempty"`
	PID     int      `json:"pid,omitempty"`
	Devices []string `json:"devices,omitempty"`
}

// Op is one operation's counts and latencies over the measured window.
type Op struct {
	Op        stats.Op `json:"name"` // JSON: LinkBench's name, e.g. GET_LINKS_LIST
	Count     int64    `json:"count"`
	Successes int64    `json:"successes"`
	Misses    int64    `json:"misses"`
	Errors    int64    `json:"errors"`
	Abandoned int64    `json:"abandoned,omitempty"`
	// Latency digests the successes', misses' and abandoned calls'
	// latencies; nil for a size series (RANGE_SIZE, ..., rows not times),
	// whose digest is in Sizes.
	Latency *Percentiles   `json:"latency,omitempty"`
	Sizes   *stats.Summary `json:"sizes,omitempty"`
	// HDRLog is the file name, relative to the result file's directory, of
	// the op's HDR interval log (hdrhistogram-go's HistogramLogWriter
	// format, one histogram per interval, values in units of
	// File.HDRUnit; rows for a size op); empty when none was written.
	HDRLog string `json:"hdr_log,omitempty"`
}

// Percentiles are latency percentiles, as durations (JSON: nanoseconds).
type Percentiles struct {
	P25   time.Duration `json:"p25_ns"`
	P50   time.Duration `json:"p50_ns"`
	P75   time.Duration `json:"p75_ns"`
	P95   time.Duration `json:"p95_ns"`
	P99   time.Duration `json:"p99_ns"`
	P999  time.Duration `json:"p99_9_ns"`
	P9999 time.Duration `json:"p99_99_ns"`
	Max   time.Duration `json:"max_ns"`
	Mean  time.Duration `json:"mean_ns"`
}

// PercentilesOf converts a stats.Summary in microseconds.
func PercentilesOf(s stats.Summary) *Percentiles {
	d := func(us float64) time.Duration { return time.Duration(us * float64(time.Microsecond)) }
	return &Percentiles{P25: d(s.P25), P50: d(s.P50), P75: d(s.P75), P95: d(s.P95), P99: d(s.P99),
		P999: d(s.P999), P9999: d(s.P9999), Max: d(s.Max), Mean: d(s.Mean)}
}

// Metrics are host metrics over a window: rates per second and levels at
// its end. A nil field was not measured.
type Metrics struct {
	Seconds float64 `json:"seconds"`
	// ReadsPerSec, ReadMBPerSec and WriteMBPerSec are the database's block
	// devices' reads per second and MB (10^6 bytes) read and written per
	// second (iostat's r/s, rMB/s, wMB/s).
	ReadsPerSec   *float64 `json:"r_s,omitempty"`
	WritesPerSec  *float64 `json:"w_s,omitempty"`
	ReadMBPerSec  *float64 `json:"rmb_s,omitempty"`
	WriteMBPerSec *float64 `json:"wmb_s,omitempty"`
	// CPU is the machine's CPU utilisation, user + system, in percent of
	// all cores (vmstat's us + sy).
	CPU   *float64 `json:"cpu,omitempty"`
	Cores int      `json:"cores,omitempty"`
	// ServerCPU and ClientCPU are the database server's and the benchmark
	// client's CPU time in the window, in percent of all cores (so they
	// add up with CPU).
	ServerCPU *float64 `json:"server_cpu,omitempty"`
	ClientCPU *float64 `json:"client_cpu,omitempty"`
	// ServerRSSGB and ClientRSSGB are resident memory at the window's end,
	// in GB (10^9 bytes); SizeGB the database's size.
	ServerRSSGB *float64 `json:"server_rss_gb,omitempty"`
	ClientRSSGB *float64 `json:"client_rss_gb,omitempty"`
	SizeGB      *float64 `json:"size_gb,omitempty"`
}

// MetricsOf converts a hostmetrics.Window, leaving out what it did not
// measure.
func MetricsOf(w hostmetrics.Window) Metrics {
	m := Metrics{Seconds: w.Seconds}
	if w.HasDisk {
		m.ReadsPerSec, m.WritesPerSec = ptr(w.ReadsPerSec), ptr(w.WritesPerSec)
		m.ReadMBPerSec, m.WriteMBPerSec = ptr(w.ReadMBPerSec), ptr(w.WriteMBPerSec)
	}
	if w.HasCPU {
		m.CPU, m.Cores = ptr(w.CPUPercent), w.Cores
	}
	share := func(d time.Duration) *float64 {
		if w.Cores <= 0 || w.Seconds <= 0 {
			return nil
		}
		return ptr(100 * d.Seconds() / (w.Seconds * float64(w.Cores)))
	}
	if w.HasServer {
		m.ServerCPU, m.ServerRSSGB = share(w.ServerCPU), ptr(float64(w.ServerRSS)/1e9)
	}
	if w.HasClient {
		m.ClientCPU, m.ClientRSSGB = share(w.ClientCPU), ptr(float64(w.ClientRSS)/1e9)
	}
	if w.HasSize {
		m.SizeGB = ptr(float64(w.Size) / 1e9)
	}
	return m
}

// Host is the host metrics of a phase.
type Host struct {
	// Devices are the block devices sampled; ServerPID the server process
	// (0: none).
	Devices   []string `json:"devices,omitempty"`
	ServerPID int      `json:"server_pid,omitempty"`
	// Summary covers the whole measured window.
	Summary Metrics `json:"summary"`
}

// Interval is one interval of a phase (one second, the last one possibly longer).
type Interval struct {
	// T is the interval's end in seconds since File.Start; Seconds its
	// length.
	T       float64 `json:"t"`
	Seconds float64 `json:"seconds"`
	// Ops is the operations done in the interval (requests, or for a load
	// the rows written); Rate = Ops / Seconds.
	Ops  int64   `json:"ops"`
	Rate float64 `json:"rate"`
	// P99Ms is each operation's p99 latency in the interval, in
	// milliseconds, by LinkBench name.
	P99Ms map[stats.Op]float64 `json:"p99_ms,omitempty"`
	// Host is the host metrics over the interval; nil when not sampled.
	Host *Metrics `json:"host,omitempty"`
	// Engine is the storage engine's own metrics over the interval (see
	// Engine.Summary); nil when the store's engine gives none.
	Engine map[string]float64 `json:"engine,omitempty"`
}

// Engine is a storage engine's own metrics over a phase (a store with
// store.EngineMetrics).
type Engine struct {
	// Name names the engine ("pebble").
	Name string `json:"name"`
	// Summary covers the measured window: the growth of the engine's
	// counters (bytes written by the WAL, flushes and compactions, cache
	// hits and misses, write stalls and their seconds), its state at the
	// end (read amplification, live and disk bytes, compaction debt), and
	// the ratios derived from them (EngineWriteAmp, EngineCacheHitRate),
	// by store.EngineSnapshot's names. A metric the engine does not give
	// is absent, never 0.
	Summary map[string]float64 `json:"summary"`
}

// The ratios derived from an engine's counters (Engine.Summary,
// Interval.Engine), present only when their denominator is not 0.
const (
	// EngineWriteAmp is the write amplification: the bytes written to the
	// WAL, by flushes, compactions and ingestions, over the bytes written
	// to the WAL and ingested.
	EngineWriteAmp = "write_amp"
	// EngineCacheHitRate is the block cache's hits over its lookups, 0..1.
	EngineCacheHitRate = "block_cache_hit_rate"
)

// Derived are the columns of the load and query tables (see Derive). For
// a load, Rate is inserts per second (ips) and the per-operation columns
// are per insert; for a request phase, Rate is requests per second (tps)
// and they are per request.
type Derived struct {
	Rate *float64 `json:"rate,omitempty"` // ips or tps
	// ReadsPerOp (r/i, r/t), ReadKBPerOp (rkb/i), WriteKBPerOp (wkb/i),
	// McpuPerOp (Mcpu/i: CPU percent ÷ rate × 10^6) and ServerMcpuPerOp
	// (the same from the host CPU minus the client's own; missing when no
	// server process was measured).
	ReadsPerOp      *float64 `json:"r_op,omitempty"`
	ReadKBPerOp     *float64 `json:"rkb_op,omitempty"`
	WriteKBPerOp    *float64 `json:"wkb_op,omitempty"`
	McpuPerOp       *float64 `json:"mcpu_op,omitempty"`
	ServerMcpuPerOp *float64 `json:"server_mcpu_op,omitempty"`
	// SizeGB is the database's size, RSSGB the server's resident memory.
	SizeGB *float64 `json:"size_gb,omitempty"`
	RSSGB  *float64 `json:"rss_gb,omitempty"`
	// P99 in milliseconds of UPDATE_NODE (un), GET_NODE (gn), UPDATE_LINK
	// (ul) and GET_LINKS_LIST (gl).
	UN *float64 `json:"un_p99_ms,omitempty"`
	GN *float64 `json:"gn_p99_ms,omitempty"`
	UL *float64 `json:"ul_p99_ms,omitempty"`
	GL *float64 `json:"gl_p99_ms,omitempty"`
	// ReadsPerSec (r/s), ReadMBPerSec, WriteMBPerSec and CPU (percent) as
	// measured.
	ReadsPerSec   *float64 `json:"r_s,omitempty"`
	ReadMBPerSec  *float64 `json:"rmb_s,omitempty"`
	WriteMBPerSec *float64 `json:"wmb_s,omitempty"`
	CPU           *float64 `json:"cpu,omitempty"`
	// The storage engine's own figures (File.Engine), missing when it
	// gives none: WriteAmp (wamp), ReadAmp (ramp, at the end), the block
	// cache's hit rate (hit, 0..1) and the write stalls (stalls: their
	// number; stall_s: their seconds).
	WriteAmp          *float64 `json:"write_amp,omitempty"`
	ReadAmp           *float64 `json:"read_amp,omitempty"`
	CacheHitRate      *float64 `json:"cache_hit_rate,omitempty"`
	WriteStalls       *float64 `json:"write_stalls,omitempty"`
	WriteStallSeconds *float64 `json:"write_stall_s,omitempty"`
}

// Headline returns the p99 in milliseconds of a headline op (see
// stats.Headlines: un, gn, ul, gl); nil when missing or not a headline op.
func (d Derived) Headline(op stats.Op) *float64 {
	switch op {
	case stats.UpdateNode:
		return d.UN
	case stats.GetNode:
		return d.GN
	case stats.UpdateLink:
		return d.UL
	case stats.GetLinksList:
		return d.GL
	}
	return nil
}

// setHeadline sets the p99 of headline op op.
func (d *Derived) setHeadline(op stats.Op, v *float64) {
	switch op {
	case stats.UpdateNode:
		d.UN = v
	case stats.GetNode:
		d.GN = v
	case stats.UpdateLink:
		d.UL = v
	case stats.GetLinksList:
		d.GL = v
	}
}

// Derive computes the tables' columns from a rate (inserts or requests
// per second; nil or <= 0: unknown), host metrics and the p99 latencies of
// the headline ops (stats.Headlines, in their order; nil: not recorded). A
// column whose inputs are missing is missing.
func Derive(rate *float64, m Metrics, p99 [4]*time.Duration) Derived {
	d := Derived{Rate: rate, ReadsPerSec: m.ReadsPerSec, ReadMBPerSec: m.ReadMBPerSec,
		WriteMBPerSec: m.WriteMBPerSec, CPU: m.CPU, SizeGB: m.SizeGB, RSSGB: m.ServerRSSGB}
	per := func(v *float64, scale float64) *float64 {
		if v == nil || rate == nil || *rate <= 0 {
			return nil
		}
		return ptr(*v * scale / *rate)
	}
	d.ReadsPerOp = per(m.ReadsPerSec, 1)
	d.ReadKBPerOp = per(m.ReadMBPerSec, 1000)
	d.WriteKBPerOp = per(m.WriteMBPerSec, 1000)
	d.McpuPerOp = per(m.CPU, 1e6)
	// Without a server process measured (the memory or discard store, a
	// server on another host) there is no server CPU to isolate.
	if m.CPU != nil && m.ClientCPU != nil && m.ServerCPU != nil {
		d.ServerMcpuPerOp = per(ptr(max(*m.CPU-*m.ClientCPU, 0)), 1e6)
	}
	ms := func(p *time.Duration) *float64 {
		if p == nil {
			return nil
		}
		return ptr(float64(*p) / float64(time.Millisecond))
	}
	for i, h := range stats.Headlines() {
		d.setHeadline(h.Op, ms(p99[i]))
	}
	return d
}

// Derive fills f.Derived from f's rows or requests, Seconds, Host and Ops.
func (f *File) Derive() {
	var rate *float64
	n := f.Rows
	if f.Phase == stats.PhaseRequest {
		n = f.Requests
	}
	if f.Seconds > 0 {
		rate = ptr(float64(n) / f.Seconds)
	}
	var m Metrics
	if f.Host != nil {
		m = f.Host.Summary
	}
	p99 := func(op stats.Op) *time.Duration {
		for _, o := range f.Ops {
			if o.Op == op && o.Latency != nil && o.Count > 0 {
				v := o.Latency.P99
				return &v
			}
		}
		return nil
	}
	var p99s [4]*time.Duration
	if f.Phase == stats.PhaseRequest {
		for i, h := range stats.Headlines() {
			p99s[i] = p99(h.Op)
		}
	}
	f.Derived = Derive(rate, m, p99s)
	if f.Engine != nil {
		get := func(name string) *float64 {
			if v, ok := f.Engine.Summary[name]; ok {
				return &v
			}
			return nil
		}
		f.Derived.WriteAmp = get(EngineWriteAmp)
		f.Derived.ReadAmp = get("read_amp")
		f.Derived.CacheHitRate = get(EngineCacheHitRate)
		f.Derived.WriteStalls = get("write_stalls")
		f.Derived.WriteStallSeconds = get("write_stall_seconds")
	}
}

// Phase names a phase's result file: the configuration measured (Label),
// the phase within a run (Tag), the store (its registered name) and the
// run's effective configuration (secrets left out) by key.
type Phase struct {
	Label, Tag string
	Store      string
	Config     map[string]string
}

// FromReport returns the result file of a phase's report: its counts,
// latencies, errors by class, the store's counters (retries.* and
// max_retries.* as Retries, the others as Counters), seeds,
// status and times, with p's names, and the derived columns (without host
// metrics: see Host and Intervals, which the run's recorder adds, then
// call Derive again).
func FromReport(rep *stats.Report, p Phase) *File {
	f := &File{Label: p.Label, Tag: p.Tag, Phase: rep.Phase, Store: p.Store, Config: maps.Clone(p.Config),
		Start: rep.Start, End: rep.Start.Add(rep.Elapsed), Seconds: rep.Elapsed.Seconds(), Threads: rep.Threads,
		Status: rep.Status, Detail: rep.Detail, HDRUnit: rep.Unit, Seeds: maps.Clone(rep.Seeds)}
	if rep.Load != nil {
		f.Nodes, f.Links, f.Counts = rep.Load.Nodes, rep.Load.Links, rep.Load.Counts
		f.Rows = f.Nodes + f.Links + f.Counts
	}
	if rep.Request != nil {
		f.Requests, f.Errors, f.Threads = rep.Request.Requests, rep.Request.Errors, rep.Request.Requesters
	}
	for _, o := range rep.Ops {
		op := Op{Op: o.Op, Count: o.Count(), Successes: o.Successes, Misses: o.Misses, Errors: o.Errors, Abandoned: o.Abandoned}
		if o.Op.IsSize() {
			s := o.Latency
			op.Sizes = &s
		} else if o.Latency.Count > 0 {
			op.Latency = PercentilesOf(o.Latency)
		}
		f.Ops = append(f.Ops, op)
	}
	for _, c := range rep.ErrorClasses {
		if f.ErrorClasses == nil {
			f.ErrorClasses = map[string]int64{}
		}
		f.ErrorClasses[c.Name] = c.Value
	}
	for _, c := range rep.Counters {
		m := &f.Counters
		if IsRetryCounter(c.Name) {
			m = &f.Retries
		}
		if *m == nil {
			*m = map[string]int64{}
		}
		(*m)[c.Name] = c.Value
	}
	f.Derive()
	return f
}

// IsRetryCounter reports whether a store counter (store.CounterSource)
// counts retries: its name is "retries.<op>" (attempts after the first)
// or "max_retries.<op>" (the most of one call), the names the SQL stores
// use.
func IsRetryCounter(name string) bool {
	kind, _, _ := strings.Cut(name, ".")
	return kind == "retries" || kind == "max_retries"
}

// Write writes f to path as indented JSON (setting f.Format), through a
// temporary file that is synced and renamed: path never holds a partial file.
func Write(path string, f *File) error {
	f.Format = FormatVersion
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("results: encoding %s: %w", path, err)
	}
	// Under its name only when complete and synced: a reader, a crash or
	// a full disk never sees half a result file.
	if err := atomicfile.WriteFile(path, append(b, '\n')); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// Read reads a result file.
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	if f.Format == 0 {
		return nil, fmt.Errorf("results: %s: %w", path, errNotResult)
	}
	if f.Format > FormatVersion {
		return nil, fmt.Errorf("results: %s: format %d is newer than this program's %d", path, f.Format, FormatVersion)
	}
	return &f, nil
}

var errNotResult = errors.New("not a linkbench result file (no \"format\" member)")

func ptr(v float64) *float64 { return &v }
