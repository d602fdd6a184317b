// Package cli is the linkbench command-line tool (cmd/linkbench is a
// main package calling Main): a build of the tool of your own, with a
// store of your own registered through store.Register, is
//
//	package main
//
//	import (
//		"github.com/linkbench-go/linkbench/cmd/linkbench/cli"
//		_ "example.com/yourstore" // registers "yourstore" in its init
//	)
//
//	func main() { cli.Main() }
//
// and `-store yourstore` then selects it. The tool runs the LinkBench
// social-graph benchmark: a load phase
// that builds the graph and a request phase that drives LinkBench's
// operation mix against it, then prints LinkBench's report.
//
// With no arguments it runs both phases on the embedded Pebble store, in a
// temporary directory removed at the end (the report names it), with a
// graph small enough for a laptop (maxid1 = 100001 and 4 requesters for
// 30 s; about a minute on 2 cores). The flags are those of the Java
// benchmark:
//
//	linkbench [-c file] [-l] [-r] [-D key=value]... [-csvstats file] [-csvstream file]
//	          [-store pebble|memory|discard|mysql|postgres] [-dsn DSN] [-create-schema] [-defer-index]
//	          [-isolation level] [-dialect name] [-verify] [-trace file] [-audit file] [-cpuprofile file]
//	          [-label name] [-results dir] [-overwrite] [-steps n] [-java-percentiles] [-table text|csv|markdown]
//	          [-datadir dir] [-device name] [-server-pid pid]
//	linkbench -keys
//	linkbench compare [-format text|csv|markdown] [-baseline N|LABEL] FILE...
//	linkbench plot [-title text] [-ops OP,...] [-logy] FILE... -o out.png|out.svg
//	linkbench merge [-overwrite] FILE... -o OUT.json
//	linkbench help [compare|plot|merge]
//
// -c names a LinkBench .properties file (its workload_file is read too);
// -l runs the load phase and -r the request phase (with -c, at least one
// of them, or -verify, is required, as in LinkBench); -D overrides a key
// (repeatable, also written glued: -Dmaxid1=20001); -csvstats writes each
// phase's latency table as CSV; -csvstream writes per-requester interval
// statistics every displayfreq seconds; -store selects the store (pebble,
// memory, discard, mysql, postgres, or any other store registered with
// store.Register: a build of this tool with a file that imports a store's
// package for its init, import _ "example.com/yourstore", has it; default:
// the linkstore key if it names one, else pebble). -keys lists every configuration key (name, default,
// allowed values, what it sets) and exits.
//
// -shard I/N (the shard key) runs shard I of a run driven by N processes:
// its share of the load's chunks, or requesters I*requesters.. of the run;
// -start-at TIME (RFC 3339) prepares, then starts the first phase at TIME,
// so that the processes measure the same seconds. linkbench merge sums the
// shards' result files of one phase into one (exact sums of their HDR logs,
// each host's row kept; files of different graphs or workloads, of one
// shard twice or of windows that do not overlap are refused, exit status 2).
//
// linkbench compare prints the load and query tables of result files (as
// written by -results), one row per file in the order given, the label
// last; -baseline adds, after each table, its rows divided by a baseline
// row (a row number or a label). linkbench plot draws throughput and each
// operation's p99 over time, and each operation's latency by percentile,
// of result files overlaid, to a PNG or SVG file (-o). linkbench help
// prints the usage (-h's, which lists the subcommands too), help compare
// and help plot theirs, on standard output.
//
// The pebble store keeps its database in -dsn's directory (created if
// missing, kept for later runs; a directory another process has open is
// refused with exit status 2), or without -dsn in a temporary directory;
// the pebble_* keys set its engine options.
//
// The mysql store connects with -dsn (a go-sql-driver DSN) or LinkBench's
// host, port, user and password keys, to the databases dbprefix0.. (dbcount
// of them); -create-schema creates them and their tables for the engine key
// (innodb, the default, or rocksdb), -defer-index creates the id1_type
// index after the load. The postgres store connects with -dsn (a
// postgres:// URL or keyword/value pairs) or the same keys (port 5432 unless
// the port key is written out; database linkbench), to the schemas
// dbprefix0.. of that database (a LinkBench database is a schema);
// -create-schema and -defer-index work as for mysql, -isolation sets the
// transaction isolation (read-committed, the default, repeatable-read or
// serializable) and -dialect the server's dialect (postgres; cockroachdb
// and yugabytedb are untested). -verify checks, after the phases, that every count
// equals the visible links; alone (without -l or -r) it checks an existing
// database (mysql, postgres, pebble with -dsn), and is refused on the
// memory store and a temporary Pebble directory, which start empty.
// Passwords are never printed. -trace writes every store call of the
// phases, one per line, in the format LinkBench's calls were logged in (so
// that a run with -D rng=java can be diffed against the Java benchmark's).
// -audit writes every write the store acknowledged during the phases to a
// log (package store/audit; created anew with -l, appended to with -r
// alone) and, with -verify (after the phases, or alone against an existing
// database and its log), checks that the store still shows each of them or
// that a later write explains it: a table of the present, superseded and
// lost writes per operation, and exit status 1 when one was lost.
//
// At the end of a run the tool prints the load and query tables (ips or
// tps, the storage device's and the machine's CPU use per insert or
// request, size, rss, p99s; package results), from host metrics sampled
// at each phase's start and end and every progressfreq seconds (Linux;
// -datadir, -device and -server-pid say what to sample, by default a
// local MySQL or PostgreSQL server's data directory and process). -label
// names the configuration; -results writes a JSON result file per phase
// and per-op HDR interval logs; -steps n runs n request phases of maxtime
// each (tags L1.P16, L2.P16, ...) and -D requesters=1,4,16 sweeps the
// requesters (P1, P4, ...); -java-percentiles adds LinkBench's
// bucket-range percentile lines.
//
// Before anything is written the tool also refuses a request phase on a
// store without nodes in [startid1, maxid1) (-r without -l on a graph that
// was not loaded; allow_empty_store = true allows it), a load into the
// memory store whose estimated size exceeds the machine's memory (the key
// memory_limit_mb overrides it), and phases whose sessions (two
// connections per loader or requester and database) exceed the connections
// the MySQL server still accepts.
//
// Exit status: 0 on success, 2 for a usage or configuration error (one
// line on standard error naming the flag, key or file:line; nothing is
// written then, and every output path is checked before anything runs), 1
// when a phase fails, standard output is full, -verify finds a count that
// differs from the visible links or -audit a lost write, 129, 130 or 143
// when SIGHUP, SIGINT or SIGTERM interrupted it (partial report, result
// files marked INTERRUPTED), 141 when standard output was closed. Result
// files, HDR logs and CSV files are written under a temporary name, synced
// and renamed: they are complete on disk before a phase's report is
// printed, and a closed or full standard output never loses them.
package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/linkbench-go/linkbench/internal/atomicfile"
	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/store"
)

// Main runs the tool with the process's arguments and exits with its
// status: 0, 1 (a failure while running, or standard output full), 2
// (bad input), 129, 130 or 143 (interrupted by SIGHUP, SIGINT or SIGTERM),
// 141 (standard output closed; the result files are complete).
func Main() {
	os.Exit(Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// Run runs the tool with args (without the program name), writing the
// reports to stdout and the log to stderr, and returns its exit status
// (see Main); ctx bounds the run.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return run(ctx, args, stdout, stderr)
}

// usageError is a command-line or configuration problem: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// overrides collects repeated -D key=value flags.
type overrides map[string]string

func (o overrides) String() string { return "" }

func (o overrides) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("-D %q: want key=value", s)
	}
	o[strings.TrimSpace(k)] = v
	return nil
}

// mainJob is the laptop-sized run of the README: these keys override
// DefaultConfig when no -c file is given.
var mainJob = map[string]string{
	"maxid1":                 "100001",
	"loaders":                "2",
	"requesters":             "4",
	"maxtime":                "30",
	"requests":               "9223372036854775807", // linkbench.Unlimited: maxtime ends the run
	"progressfreq":           "10",
	"load_progress_interval": "2000000",
	"req_progress_interval":  "1000000",
}

type options struct {
	config       string
	load, req    bool
	defs         overrides
	csvStats     string
	csvStream    string
	store        string
	dsn          string
	createSchema bool
	deferIndex   bool
	verify       bool
	isolation    string
	dialect      string
	cpuProfile   string
	trace        string
	audit        string
	logFile      string
	gomaxprocs   int
	keys         bool
	conn         linkbench.Connection // the connection keys (buildConfig)

	// Results (issue 9).
	label       string
	resultsDir  string
	steps       int
	overwrite   bool
	sweep       []int // -D requesters=1,4,16: the request phases' requesters
	javaPct     bool
	tableFormat string
	datadir     string
	devices     []string
	serverPID   int

	startAt time.Time // -start-at: the first phase starts then (issue 19)

	metricsAddr   string        // -metrics-addr: serve Prometheus metrics there (issue 22)
	metricsLinger time.Duration // -metrics-linger: serve them this long after the phases
}

func parseArgs(args []string, stderr io.Writer) (*options, error) {
	o := &options{defs: overrides{}}
	fs := flag.NewFlagSet("linkbench", flag.ContinueOnError)
	// Errors are reported in one line by run; -h prints the usage.
	fs.SetOutput(io.Discard)
	fs.Func("c", "LinkBench `file` (.properties); its workload_file is read too", func(v string) error {
		if v == "" {
			return errors.New("empty file name")
		}
		o.config = v
		return nil
	})
	fs.StringVar(&o.logFile, "L", "", "write the log (progress, warnings) to `file` instead of standard error")
	fs.BoolVar(&o.load, "l", false, "run the load phase")
	fs.BoolVar(&o.req, "r", false, "run the request phase")
	fs.Var(o.defs, "D", "override a configuration key: -D `key=value` (repeatable)")
	fs.StringVar(&o.csvStats, "csvstats", "", "write each phase's latency table as CSV to `file`")
	fs.StringVar(&o.csvStream, "csvstream", "", "write per-requester statistics every displayfreq seconds to `file`")
	fs.StringVar(&o.store, "store", "", "store: "+storeNames()+" (default: the linkstore key, else pebble in a temporary directory)")
	fs.StringVar(&o.dsn, "dsn", "", "pebble store: the database's directory (default: a temporary one, removed at the end); MySQL store: go-sql-driver `DSN`, e.g. user:pw@tcp(127.0.0.1:3306)/, or the nodes of a Galera cluster comma-separated (requesters spread over them, moving on when a node fails); postgres store: postgres://user:pw@host:5432/linkbench (default: the host, port, user, password keys)")
	fs.BoolVar(&o.createSchema, "create-schema", false, "SQL stores: create the databases (MySQL; engine key: innodb, rocksdb, or spider with spider_data_nodes) or schemas (PostgreSQL) dbprefix0.. and their tables if missing")
	fs.BoolVar(&o.deferIndex, "defer-index", false, "SQL stores: with -create-schema, create the id1_type index after the load phase, not before")
	fs.StringVar(&o.isolation, "isolation", "", "postgres store: transaction isolation, read-committed (default), repeatable-read or serializable")
	fs.StringVar(&o.dialect, "dialect", "", "postgres store: server dialect, postgres (default), cockroachdb or yugabytedb (the last two untested)")
	fs.StringVar(&o.trace, "trace", "", "write every store call of the phases to `file`, one per line (LinkBench's trace format)")
	fs.StringVar(&o.audit, "audit", "", "log every write the store acknowledged to `file` (with -l: created anew; -r alone: appended to); with -verify, check the store still shows them (exit 1 when one was lost)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the client to `file` (go tool pprof)")
	fs.IntVar(&o.gomaxprocs, "gomaxprocs", -1, "the client's GOMAXPROCS: `n` >= 1, 0 for Go's default, -1 (auto) for max(1, CPUs/4) with a database server store and Go's default otherwise (the GOMAXPROCS environment variable, when set, wins over auto)")
	fs.BoolVar(&o.keys, "keys", false, "list every configuration key (name, default, allowed values, what it sets) and exit")
	fs.StringVar(&o.label, "label", "", "name the configuration measured (engine, server settings) in the result files and tables")
	fs.StringVar(&o.resultsDir, "results", "", "write a JSON result file per phase and per-op HDR interval logs to `dir` (created if missing)")
	fs.BoolVar(&o.overwrite, "overwrite", false, "let -results replace the result files (and HDR logs) of an earlier run with the same -label and tags")
	fs.IntVar(&o.steps, "steps", 1, "run `n` request phases of maxtime each on the same data, tagged L1.P<requesters>, L2..., each with its own result")
	fs.BoolVar(&o.javaPct, "java-percentiles", false, "also print LinkBench's default bucket-range percentiles ([low,high]ms) per op")
	fs.StringVar(&o.tableFormat, "table", "text", "format of the load and query tables printed at the end: text, csv or markdown")
	fs.StringVar(&o.datadir, "datadir", "", "host metrics: the database's data `directory` (its block device and size; default: a local MySQL server's @@datadir, a local PostgreSQL's data_directory)")
	fs.Func("device", "host metrics: a block `device` holding the database, as in /proc/diskstats (repeatable, or comma-separated)", func(v string) error {
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d != "" {
				d = strings.TrimPrefix(d, "/dev/")
				// Linux lists every block device and partition there.
				if _, err := os.Stat("/sys/class/block"); err == nil {
					if _, err := os.Stat(filepath.Join("/sys/class/block", d)); err != nil {
						return fmt.Errorf("%q is not a block device of this host (see /sys/class/block or /proc/diskstats)", d)
					}
				}
				o.devices = append(o.devices, d)
			}
		}
		return nil
	})
	fs.IntVar(&o.serverPID, "server-pid", 0, "host metrics: the database server's process `id` (default: from a local server's pid file)")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve the run's Prometheus metrics at http://`host:port`/metrics while it runs (port 0: a free port, named in the log)")
	fs.DurationVar(&o.metricsLinger, "metrics-linger", 0, "with -metrics-addr: keep serving the metrics for `duration` (e.g. 30s) after the run printed its tables and -verify, so that Prometheus scrapes the final figures (a signal ends the wait; the exit status stays the run's)")
	fs.Func("shard", "run shard `I/N` of a run driven by N processes (the shard key): load shard I's chunks of the graph; request with requesters I*requesters.. of the run", func(v string) error {
		// Checked here, so that the error names -shard and quotes the
		// value as typed; then set as the shard key.
		if _, err := linkbench.ParseShard(v); err != nil {
			return err
		}
		o.defs["shard"] = v
		return nil
	})
	fs.Func("start-at", "prepare, then start the first phase at `time` (RFC 3339, e.g. 2026-12-02T03:00:00Z): the processes of a sharded run measure the same seconds", func(v string) error {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return fmt.Errorf("want an RFC 3339 time such as 2026-12-02T03:00:00Z")
		}
		o.startAt = t
		return nil
	})
	fs.BoolVar(&o.verify, "verify", false, "after the phases (or alone, on a mysql or postgres store or -store pebble -dsn DIR: the memory store starts empty), check that every count equals the visible links and report the node id range")
	usage := func() {
		fs.SetOutput(stderr)
		fmt.Fprintln(stderr, "usage: linkbench [-c file] [-l] [-r] [-D key=value]... [-csvstats file] [-csvstream file] [-L file] [-store pebble|memory|discard|mysql|postgres] [-dsn DSN] [-create-schema] [-defer-index] [-isolation level] [-dialect name] [-verify] [-trace file] [-audit file] [-cpuprofile file] [-gomaxprocs n] [-label name] [-results dir] [-overwrite] [-steps n] [-java-percentiles] [-table text|csv|markdown] [-datadir dir] [-device name] [-server-pid pid] [-metrics-addr host:port] [-metrics-linger duration] [-shard I/N] [-start-at time] [-keys]")
		fmt.Fprintln(stderr, "       linkbench "+strings.TrimPrefix(compareUsage, "usage: linkbench "))
		fmt.Fprintln(stderr, "       linkbench "+strings.TrimPrefix(plotUsage, "usage: linkbench "))
		fmt.Fprintln(stderr, "       linkbench "+strings.TrimPrefix(mergeUsage, "usage: linkbench "))
		fmt.Fprintln(stderr, "       linkbench help [compare|plot|merge]")
		fmt.Fprintln(stderr, "With no arguments: load and request phases of a laptop-sized graph on Pebble, in a temporary directory removed at the end.")
		fmt.Fprintln(stderr, "Subcommands: compare prints the load and query tables of -results files; plot draws them; merge sums the shards' files of one phase (linkbench help compare, help plot, help merge).")
		fs.PrintDefaults()
	}
	// LinkBench also accepts -D glued to its value: -Dkey=value.
	var norm []string
	for _, a := range args {
		if strings.HasPrefix(a, "-D") && len(a) > 2 && !strings.HasPrefix(a, "-D=") {
			norm = append(norm, "-D", a[2:])
			continue
		}
		norm = append(norm, a)
	}
	if err := fs.Parse(norm); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage()
			return nil, err
		}
		return nil, usageError{fmt.Errorf("%w (run with -h for usage)", err)}
	}
	if fs.NArg() > 0 {
		return nil, usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if o.keys {
		return o, nil // -keys lists the keys, whatever else was given
	}
	if o.steps < 1 || o.steps > linkbench.MaxSteps {
		return nil, usageError{fmt.Errorf("-steps %d: want a number of request phases from 1 to %d", o.steps, linkbench.MaxSteps)}
	}
	switch o.tableFormat {
	case "text", "csv", "markdown", "md":
	default:
		return nil, usageError{fmt.Errorf("-table %q: want text, csv or markdown", o.tableFormat)}
	}
	if o.serverPID < 0 {
		return nil, usageError{fmt.Errorf("-server-pid %d: want a process id >= 1", o.serverPID)}
	}
	if o.metricsLinger < 0 || o.metricsLinger > 0 && o.metricsAddr == "" {
		return nil, usageError{fmt.Errorf("-metrics-linger %v: want a duration >= 0, with -metrics-addr", o.metricsLinger)}
	}
	if o.gomaxprocs < -1 {
		return nil, usageError{fmt.Errorf("-gomaxprocs %d: want -1 (auto), 0 (Go's default) or a number of threads >= 1", o.gomaxprocs)}
	}
	if !o.load && !o.req {
		switch {
		case o.verify:
			// -verify alone checks an existing database, with or without
			// -c; check refuses it on a store that starts empty.
		case o.config != "":
			return nil, usageError{errors.New("did not select benchmark mode: give -l (load) and/or -r (request), or -verify")}
		default:
			o.load, o.req = true, true // the main job
		}
	}
	// Output files must differ from each other.
	seen := map[string]string{}
	for _, f := range []struct{ flag, path string }{{"-csvstats", o.csvStats}, {"-csvstream", o.csvStream},
		{"-trace", o.trace}, {"-audit", o.audit}, {"-cpuprofile", o.cpuProfile}, {"-L", o.logFile}} {
		if f.path == "" {
			continue
		}
		abs, err := filepath.Abs(f.path)
		if err != nil {
			return nil, usageError{fmt.Errorf("%s %q: %w", f.flag, f.path, err)}
		}
		if other, ok := seen[abs]; ok {
			return nil, usageError{fmt.Errorf("%s and %s name the same file %q", other, f.flag, f.path)}
		}
		seen[abs] = f.flag
	}
	return o, nil
}

// buildConfig reads -c's file (with -D and its workload_file) or, without
// -c, the main job's settings with -D on top (and a workload_file named by
// -D), as ParseProperties resolves them, the working directory being the
// last place where relative paths are looked up.
func buildConfig(o *options) (linkbench.Config, error) {
	if err := parseSweep(o); err != nil {
		return linkbench.Config{}, err
	}
	defs := o.defs
	if o.config == "" {
		defs = overrides{}
		for k, v := range mainJob {
			defs[k] = v
		}
		for k, v := range o.defs {
			defs[k] = v
		}
	}
	// Like the Java tool run from a LinkBench checkout, relative paths
	// (workload_file, data_file, LinkBench's default config/Distribution.dat)
	// are also looked up in the working directory: the tool says so, the
	// library never does on its own.
	wd, err := os.Getwd()
	if err != nil {
		return linkbench.Config{}, fmt.Errorf("working directory: %w", err)
	}
	// The connection keys (host, port, user, password) are the store's,
	// not the Config's: LinkBench's default port unless a key says more.
	o.conn = linkbench.Connection{Port: 3306}
	cfg, err := linkbench.ParseProperties(o.config, linkbench.PropertiesOptions{Overrides: defs, WorkDir: wd, Connection: &o.conn})
	if err != nil {
		return cfg, usageError{err}
	}
	cfg.StartAt = o.startAt
	return cfg, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	r := &runner{stdout: stdout, stderr: stderr}
	if len(args) > 0 && args[0] == "help" {
		return r.help(args[1:])
	}
	if len(args) > 0 && (args[0] == "compare" || args[0] == "plot" || args[0] == "merge") {
		var err error
		switch args[0] {
		case "compare":
			err = runCompare(args[1:], stdout, stderr)
		case "plot":
			err = runPlot(args[1:], stderr)
		default:
			err = runMerge(args[1:], stdout, stderr)
		}
		switch {
		case errors.Is(err, flag.ErrHelp):
			return 0
		case err != nil:
			return r.fail(err)
		}
		return 0
	}
	o, err := parseArgs(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return r.fail(err)
	}
	if o.keys {
		if err := writeKeys(stdout); err != nil {
			return r.fail(err)
		}
		return 0
	}
	r.o, r.dsn = o, o.dsn
	cfg, err := buildConfig(o)
	r.password = o.conn.Password
	if err != nil {
		return r.fail(err)
	}
	r.cfg = &cfg
	if err := r.check(); err != nil {
		return r.fail(err)
	}
	if o.req && cfg.Requesters == 0 {
		// As the key's help says: 0 skips the request phase (no report,
		// no connection check, no loaded-graph check for it).
		fmt.Fprintln(stdout, "NO REQUEST PHASE CONFIGURED: requesters = 0 skips it.")
		o.req = false
		if !o.load && !o.verify {
			return 0
		}
	}
	if err := r.checkOutputs(); err != nil {
		return r.fail(err)
	}
	if err := r.checkResultFiles(); err != nil {
		return r.fail(err)
	}
	// The metrics' address is taken before anything runs: one that
	// cannot be listened on is a usage error (exit status 2).
	stopMetrics, err := r.listenMetrics()
	if err != nil {
		return r.fail(err)
	}
	defer stopMetrics()
	// The reports go to standard output after the result files are on
	// disk; when it is closed (a pipe's reader gone: EPIPE, not SIGPIPE's
	// death) or full, the run keeps writing its files and ends with the
	// output's exit status (see outputWriter).
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	r.out = &outputWriter{w: stdout, onFail: r.stdoutLost}
	r.stdout = r.out
	defer func() { code = r.exitStatus(code) }()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r.procsDesc = clientProcs(o.gomaxprocs, r.storeName)

	// From here on the run is interrupted by SIGINT, SIGTERM and SIGHUP: the phases
	// stop and their partial reports are printed, marked INTERRUPTED, and
	// the tool exits with 128 + the signal's number (130, 143, 129); a second
	// signal exits at once.
	ctx, sig, stop := interruptible(ctx, stderr)
	defer stop()
	r.sig = sig

	closeLog, err := r.openLog(&code)
	if err != nil {
		return r.fail(err)
	}
	defer closeLog()
	if r.metrics != nil {
		r.cfg.Logger.Info("serving Prometheus metrics", "url", r.metrics.url)
	}
	st, err := openStore(ctx, r.storeName, o, &cfg)
	if err != nil {
		return r.fail(err)
	}
	defer st.close()
	r.st = st
	if err := r.prepareStore(ctx); err != nil {
		return r.fail(err)
	}
	closeOut, err := r.openOutputs(&code)
	defer closeOut()
	if err != nil {
		return r.fail(err)
	}
	code, done := r.runPhases(ctx)
	if !done {
		if c, tablesDone := r.writeTables(); tablesDone {
			code = c
		} else if o.verify {
			code = r.runVerifyAudit(ctx)
		} else {
			code = 0
		}
	}
	if ctx.Err() == nil {
		// Everything is printed and verified: -metrics-linger keeps the
		// endpoint up for the final scrapes; a signal now only ends the
		// wait (the run's exit status stands).
		stop()
		r.lingerMetrics()
	}
	return code
}

// help is "linkbench help [compare|plot]": the usage of the tool or of a
// subcommand, on standard output, exit status 0.
func (r *runner) help(args []string) int {
	var err error
	switch {
	case len(args) == 0:
		_, err = parseArgs([]string{"-h"}, r.stdout)
	case len(args) == 1 && args[0] == "compare":
		err = runCompare([]string{"-h"}, r.stdout, r.stdout)
	case len(args) == 1 && args[0] == "plot":
		err = runPlot([]string{"-h"}, r.stdout)
	case len(args) == 1 && args[0] == "merge":
		err = runMerge([]string{"-h"}, r.stdout, r.stdout)
	default:
		return r.fail(usageError{fmt.Errorf("help %s: want linkbench help, help compare, help plot or help merge", strings.Join(args, " "))})
	}
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return r.fail(err)
	}
	return 0
}

// runner is one invocation of the tool: its options, configuration, store
// and outputs, shared by the steps of run.
type runner struct {
	stdout, stderr io.Writer
	o              *options
	cfg            *linkbench.Config
	dsn, password  string // for redaction
	storeName      string
	procsDesc      string
	sig            func() os.Signal
	st             *openedStore
	runStore       store.Store
	csvStats       bytes.Buffer // -csvstats: every phase's rows so far
	out            *outputWriter
	// outputFailed: an output file could not be completed at the end
	// (exit status 1).
	outputFailed bool
	files        []results.File // the phases' results, in order
	audit        *auditRun      // -audit; nil without it
	metrics      *metricsServer // -metrics-addr; nil without it
}

// fail prints err in one line, passwords removed, and returns the exit
// status: 2 for a usage or configuration error, 1 otherwise.
func (r *runner) fail(err error) int {
	msg := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(redact(err.Error(), r.dsn, r.password))
	fmt.Fprintln(r.stderr, "linkbench:", msg)
	var ue usageError
	var ce *linkbench.ConfigError
	if errors.As(err, &ue) || errors.As(err, &ce) || errors.Is(err, linkbench.ErrEmptyStore) {
		return 2
	}
	return 1
}

// interrupted reports whether a signal stopped the run, and the exit
// status then; after a load it warns that the graph may be incomplete.
func (r *runner) interrupted(phase string) (int, bool) {
	s := r.sig()
	if s == nil {
		return 0, false
	}
	if phase == "load" {
		fmt.Fprintln(r.stderr, "linkbench: the load was interrupted: the graph may be incomplete or inconsistent; check it with -verify, or load it again into empty tables")
	}
	fmt.Fprintf(r.stderr, "linkbench: interrupted by %v\n", s)
	return signalStatus(s), true
}

// check validates the flags against the configuration and the store,
// before anything is opened or written.
func (r *runner) check() error {
	o, cfg := r.o, r.cfg
	if _, err := cfg.LogLevel(); err != nil {
		return &linkbench.ConfigError{Key: "debuglevel", Value: cfg.DebugLevel, Reason: err.Error()}
	}
	name, err := storeName(o, cfg)
	if err != nil {
		return err
	}
	r.storeName = name
	// The built-in stores' flags are checked here; those of a store of
	// another package, once it is open, against its capabilities
	// (openedStore.checkCapabilities).
	b, builtin := builtinStore(name)
	if builtin && !b.server && !b.dir && o.dsn != "" {
		return usageError{fmt.Errorf("-dsn needs -store %s, or pebble (a directory) (the store is %s)", serverStores(), name)}
	}
	if builtin && !b.server && (o.createSchema || o.deferIndex) {
		return usageError{fmt.Errorf("-create-schema and -defer-index need -store %s (the store is %s)", serverStores(), name)}
	}
	if !b.pgFlags && (o.isolation != "" || o.dialect != "") {
		return usageError{fmt.Errorf("-isolation and -dialect need -store postgres (the store is %s)", name)}
	}
	if o.verify && name == "discard" {
		return usageError{errors.New("-verify: the discard store keeps nothing to verify")}
	}
	if o.verify && !o.load && !o.req && builtin && !b.server && (!b.dir || o.dsn == "") {
		if b.dir {
			return usageError{fmt.Errorf("-verify alone: the %s store without -dsn starts empty in a temporary directory; give the database's directory with -dsn DIR, or add -l (and -r)", name)}
		}
		return usageError{fmt.Errorf("-verify alone: the %s store starts empty; add -l (and -r), or use -store %s or -store pebble -dsn DIR", name, serverStores())}
	}
	if err := r.checkAudit(); err != nil {
		return err
	}
	if (o.steps > 1 || len(o.sweep) > 0) && !o.req {
		return usageError{errors.New("-steps and -D requesters=a,b,... need the request phase (-r)")}
	}
	if cfg.Store.DBID != "" && cfg.DBCount > 1 {
		return usageError{&linkbench.ConfigError{Key: "dbid", Value: cfg.Store.DBID,
			Reason: "names one database: it cannot be combined with dbcount > 1 (use dbprefix)"}}
	}
	// Check everything before writing anything.
	if err := linkbench.Check(*cfg, o.req); err != nil {
		return usageError{err}
	}
	if o.load {
		if err := linkbench.CheckShardedLoad(*cfg); err != nil {
			return usageError{err}
		}
	}
	if b.options != nil {
		return b.options(o, cfg)
	}
	return nil
}

// openLog sets the configuration's logger: -L's file or standard error,
// passwords removed. A run refused before it starts (exit status 2) leaves
// no log file it created.
func (r *runner) openLog(code *int) (func(), error) {
	level, _ := r.cfg.LogLevel()
	logOut := r.stderr
	closeLog := func() {}
	if name := r.o.logFile; name != "" {
		_, statErr := os.Stat(name)
		f, err := os.Create(name)
		if err != nil {
			return closeLog, usageError{fmt.Errorf("-L: %w", err)}
		}
		closeLog = func() {
			f.Close()
			if st, err := os.Stat(name); *code == 2 && errors.Is(statErr, fs.ErrNotExist) && err == nil && st.Size() == 0 {
				os.Remove(name)
			}
		}
		logOut = f
	}
	r.cfg.Logger = slog.New(slog.NewTextHandler(&redactingWriter{w: logOut, dsn: r.dsn, password: r.password},
		&slog.HandlerOptions{Level: level}))
	return closeLog, nil
}

// prepareStore runs the preflight checks, creates the schema if asked, and
// refuses a load over an existing graph.
func (r *runner) prepareStore(ctx context.Context) error {
	o, cfg, st := r.o, r.cfg, r.st
	if err := preflight(ctx, o, cfg, st); err != nil {
		return err
	}
	if o.createSchema {
		if err := st.createSchema(ctx, cfg, o.deferIndex); err != nil {
			return err
		}
	}
	if !o.load {
		return nil
	}
	// LinkBench loads into empty tables (linkbench.CheckEmpty, which Run
	// calls too): refused here before anything else is opened.
	if err := linkbench.CheckEmpty(ctx, *cfg, st.Store); err != nil {
		switch {
		case errors.Is(err, linkbench.ErrGraphExists) && cfg.Shard.Sharded():
			return nil // the shards load into the same tables: the others' rows
		case missingSchema(err):
			return usageError{fmt.Errorf("-l: %w: the database has no LinkBench tables; add -create-schema", err)}
		case errors.Is(err, linkbench.ErrGraphExists):
			return usageError{fmt.Errorf("-l: %w", err)}
		}
		return err
	}
	return nil
}

// openOutputs opens -audit (its log, appended to as the writes are
// acknowledged), and -csvstream, -cpuprofile and -trace, each under a
// temporary name until the run ends (-csvstats is written whole after each
// phase); the function returned gives them their final names, complete and
// synced (call it even on error; a run refused with a usage error, exit
// status 2, leaves none).
func (r *runner) openOutputs(code *int) (func(), error) {
	o, cfg := r.o, r.cfg
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	r.runStore = r.st.Store
	create := func(flagName, path string) (*atomicfile.File, error) {
		f, err := atomicfile.Create(path)
		if err != nil {
			return nil, usageError{fmt.Errorf("%s: %w", flagName, err)}
		}
		closers = append(closers, func() {
			if *code == 2 {
				f.Abort()
				return
			}
			if err := f.Commit(); err != nil {
				fmt.Fprintf(r.stderr, "linkbench: %s: %v\n", flagName, err)
				r.outputFailed = true
			}
		})
		return f, nil
	}
	if o.resultsDir != "" {
		if err := os.MkdirAll(o.resultsDir, 0o755); err != nil {
			return closeAll, usageError{fmt.Errorf("-results: %w", err)}
		}
	}
	if o.csvStream != "" {
		f, err := create("-csvstream", o.csvStream)
		if err != nil {
			return closeAll, err
		}
		if cfg.Stream, err = stats.NewStreamWriter(f); err != nil {
			return closeAll, err
		}
	}
	if o.cpuProfile != "" {
		f, err := create("-cpuprofile", o.cpuProfile)
		if err != nil {
			return closeAll, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return closeAll, fmt.Errorf("-cpuprofile: %w", err)
		}
		closers = append(closers, pprof.StopCPUProfile)
	}
	if err := r.openAudit(&closers); err != nil {
		return closeAll, err
	}
	if o.trace != "" {
		f, err := create("-trace", o.trace)
		if err != nil {
			return closeAll, err
		}
		tr := linkbench.NewTracer(f)
		closers = append(closers, func() {
			if err := tr.Close(); err != nil {
				fmt.Fprintln(r.stderr, "linkbench: -trace:", err)
			}
		})
		if err := tr.WriteConfig(cfg); err != nil {
			return closeAll, fmt.Errorf("-trace: %w", err)
		}
		r.runStore = tr.Wrap(r.runStore)
	}
	return closeAll, nil
}

// checkOutputs refuses, before anything runs or is written, output paths
// that cannot be written: -results (a directory, created when missing),
// -csvstats, -csvstream, -trace, -audit, -cpuprofile and -L (files,
// replaced when they exist; -audit's appended to with -r alone). Nothing is left behind by the check.
func (r *runner) checkOutputs() error {
	o := r.o
	if o.resultsDir != "" {
		if err := atomicfile.CheckDir(o.resultsDir); err != nil {
			return usageError{fmt.Errorf("-results: %w", err)}
		}
	}
	for _, f := range []struct{ flag, path string }{
		{"-csvstats", o.csvStats}, {"-csvstream", o.csvStream}, {"-trace", o.trace},
		{"-audit", o.audit}, {"-cpuprofile", o.cpuProfile}, {"-L", o.logFile},
	} {
		if f.path == "" {
			continue
		}
		if err := atomicfile.CheckWritable(f.path); err != nil {
			return usageError{fmt.Errorf("%s: %w", f.flag, err)}
		}
	}
	return nil
}

// plan is the run's plan for the library (linkbench.Run): the phases the
// flags select, the label and result files, host metrics, and the report
// headers' store and client lines.
func (r *runner) plan() linkbench.Plan {
	o := r.o
	p := linkbench.Plan{Load: o.load, Request: o.req, Steps: o.steps, Requesters: o.sweep,
		Label: o.label, ResultsDir: o.resultsDir, Overwrite: o.overwrite, StoreName: r.storeName,
		Host:   &linkbench.HostOptions{Datadir: o.datadir, Devices: o.devices, ServerPID: o.serverPID},
		Header: []stats.KV{{Key: "store", Value: r.st.desc}, {Key: "client", Value: r.procsDesc}}}
	if o.deferIndex {
		p.Hooks.AfterLoad = func(ctx context.Context) error { return r.st.createSecondaryIndex(ctx, r.cfg) }
	}
	return p
}

// checkResultFiles refuses, before anything runs, to overwrite a result
// file of an earlier run (same -results, -label and tags) unless
// -overwrite is given, and a plan the library would refuse.
func (r *runner) checkResultFiles() error {
	p := linkbench.Plan{Load: r.o.load, Request: r.o.req, Steps: r.o.steps, Requesters: r.o.sweep,
		Label: r.o.label, ResultsDir: r.o.resultsDir, Overwrite: r.o.overwrite}
	if err := p.Check(*r.cfg); err != nil {
		if re := (*linkbench.ResultExistsError)(nil); errors.As(err, &re) {
			return usageError{fmt.Errorf("-results: %s exists (a result of an earlier run): use another -label or -results, or -overwrite", re.Path)}
		}
		return usageError{err}
	}
	return nil
}

// errStdoutGone stops a run whose standard output failed and which keeps
// nothing in files.
var errStdoutGone = errors.New("standard output gone")

// runPhases runs the phases through the library (linkbench.Run), printing
// each report as soon as its result files are on disk; it returns done
// with the exit status when the run must stop.
func (r *runner) runPhases(ctx context.Context) (int, bool) {
	if !r.o.load && !r.o.req {
		return 0, false
	}
	cfg := *r.cfg
	plan := r.plan()
	// preflight checked that the graph is there (or the load puts its
	// nodes there and verifies them): Request need not count the nodes
	// again, which takes seconds on a large SQL table.
	plan.GraphChecked = true
	plan.Hooks.AfterPhase = func(_ context.Context, res linkbench.PhaseResult) error {
		if res.Report != nil {
			if err := r.writeReport(res.Report); err != nil {
				return err
			}
		}
		if res.File != nil {
			r.files = append(r.files, *res.File)
		}
		if r.stdoutFailed() && !r.writesFiles() {
			return errStdoutGone // nothing of the phases to come would be kept
		}
		return nil
	}
	if r.metrics != nil {
		r.metrics.exp.Attach(&cfg, &plan, r.runStore)
	}
	res, err := linkbench.Run(ctx, cfg, r.runStore, plan)
	if errors.Is(err, errStdoutGone) {
		return 0, true
	}
	phase := "request"
	if n := len(res); n > 0 && res[n-1].Phase == stats.PhaseLoad {
		phase = "load"
	}
	if code, ok := r.interrupted(phase); ok {
		return code, true
	}
	if err != nil {
		return r.fail(err), true
	}
	return 0, false
}

// writeReport writes a phase's -csvstats rows (the whole file again,
// through a temporary file: complete on disk before anything is printed),
// then prints its report. An error writing -csvstats is returned; one
// printing is the standard output's (see stdoutFailed).
func (r *runner) writeReport(rep *stats.Report) error {
	if r.o.csvStats != "" {
		if err := rep.WriteCSV(&r.csvStats, true); err != nil {
			return fmt.Errorf("-csvstats: %w", err)
		}
		if err := atomicfile.WriteFile(r.o.csvStats, r.csvStats.Bytes()); err != nil {
			return fmt.Errorf("-csvstats: %w", err)
		}
	}
	rep.WriteText(r.stdout)
	if r.o.javaPct {
		rep.WriteJavaBuckets(r.stdout)
	}
	fmt.Fprintln(r.stdout)
	return nil
}

// writeTables prints the load and query tables of the phases run.
func (r *runner) writeTables() (int, bool) {
	if len(r.files) == 0 {
		return 0, false
	}
	if err := results.WriteTables(r.stdout, r.files, results.Format(r.o.tableFormat)); err != nil {
		return r.fail(err), true
	}
	fmt.Fprintln(r.stdout)
	return 0, false
}

// runVerify checks the counts after the phases (or alone).
func (r *runner) runVerify(ctx context.Context) int {
	if !r.o.load && !r.o.req {
		fmt.Fprintf(r.stdout, "store: %s\n", r.st.desc)
	}
	res, err := linkbench.Verify(ctx, *r.cfg, r.st.Store)
	if werr := linkbench.WriteVerify(r.stdout, res); werr != nil {
		return r.fail(werr)
	}
	if code, ok := r.interrupted("verify"); ok {
		return code
	}
	if err != nil {
		return r.fail(err)
	}
	return 0
}

// parseSweep takes a comma-separated -D requesters=1,4,16 as a sweep: one
// request phase (or -steps phases) per value; the configuration gets the
// largest, so that connection pools and checks cover every point.
func parseSweep(o *options) error {
	v, ok := o.defs["requesters"]
	if !ok || !strings.Contains(v, ",") {
		return nil
	}
	o.sweep = nil
	hi := 0
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return usageError{&linkbench.ConfigError{Key: "requesters", Value: v, Reason: "a sweep is a comma-separated list of integers >= 1"}}
		}
		if slices.Contains(o.sweep, n) {
			return usageError{&linkbench.ConfigError{Key: "requesters", Value: v, Reason: fmt.Sprintf("a sweep names each value once (%d is there twice: its phases would share a tag and a result file)", n)}}
		}
		o.sweep = append(o.sweep, n)
		hi = max(hi, n)
	}
	o.defs["requesters"] = strconv.Itoa(hi)
	return nil
}

// writeKeys lists every configuration key, one per line: name, default
// ("-" for none, "" for an empty one), what it sets, and its allowed
// values.
func writeKeys(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tDEFAULT\tWHAT IT SETS; allowed: VALUES")
	for _, k := range linkbench.Keys() {
		def := k.Default
		switch {
		case !k.HasDefault:
			def = "-"
		case def == "":
			def = `""`
		}
		fmt.Fprintf(tw, "%s\t%s\t%s; allowed: %s\n", k.Name, def, k.Doc, k.Allowed)
	}
	return tw.Flush()
}

// exitNow ends the process at a second SIGINT, SIGTERM or SIGHUP.
var exitNow = os.Exit

// interruptible returns ctx cancelled at the first SIGINT, SIGTERM or
// SIGHUP (a closed terminal, a dropped ssh session), a function that
// returns that signal (nil before), and stop, which stops listening. At a
// second signal the process exits at once with 128 + its number.
func interruptible(ctx context.Context, stderr io.Writer) (context.Context, func() os.Signal, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	var got atomic.Value
	go func() {
		select {
		case s := <-ch:
			got.Store(s)
			fmt.Fprintf(stderr, "linkbench: %v: stopping the phase and printing its partial report (a second signal exits at once)\n", s)
			cancel(fmt.Errorf("interrupted by %v", s))
			select {
			case s := <-ch:
				exitNow(signalStatus(s))
			case <-done:
			}
		case <-done:
		}
	}()
	sig := func() os.Signal {
		s, _ := got.Load().(os.Signal)
		return s
	}
	var once sync.Once
	return ctx, sig, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel(nil)
		})
	}
}

// signalStatus is the exit status of a process stopped by s: 128 + its
// number (129 for SIGHUP, 130 for SIGINT, 143 for SIGTERM).
func signalStatus(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}

// clientProcs sets the client's GOMAXPROCS for -gomaxprocs n and the
// store, and describes it for the report. With a database server on the
// same host, a client whose workers mostly wait for replies costs the host
// less CPU with few Ps: idle Ps look for work (spinning) before they
// sleep, and every wake-up of a sleeping thread is a system call. auto
// (-1) therefore takes max(1, CPUs/4) for the database server stores,
// unless the GOMAXPROCS environment variable is set; the embedded stores
// keep Go's default, since the client does all the work there.
func clientProcs(n int, storeName string) string {
	why := "-gomaxprocs"
	switch {
	case n > 0:
		runtime.GOMAXPROCS(n)
	case n == 0:
		runtime.SetDefaultGOMAXPROCS()
		why = "Go's default"
	case os.Getenv("GOMAXPROCS") != "":
		why = "the GOMAXPROCS environment variable"
	case isServerStore(storeName):
		runtime.GOMAXPROCS(max(1, runtime.NumCPU()/4))
		why = fmt.Sprintf("auto for a database server store: max(1, %d CPUs/4)", runtime.NumCPU())
	default:
		why = "Go's default for an embedded store"
	}
	return fmt.Sprintf("GOMAXPROCS=%d (%s)", runtime.GOMAXPROCS(0), why)
}

// redactingWriter removes the DSN's password and the password key from
// everything written through it (the log).
type redactingWriter struct {
	w             io.Writer
	dsn, password string
}

func (r *redactingWriter) Write(p []byte) (int, error) {
	if r.dsn == "" && r.password == "" {
		return r.w.Write(p)
	}
	if _, err := io.WriteString(r.w, redact(string(p), r.dsn, r.password)); err != nil {
		return 0, err
	}
	return len(p), nil
}
