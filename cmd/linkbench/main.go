// Command linkbench runs the LinkBench social-graph benchmark: a load phase
// that builds the graph and a request phase that drives LinkBench's
// operation mix against it, then prints LinkBench's report.
//
// With no arguments it runs both phases on the embedded in-memory store
// with a graph small enough for a laptop (maxid1 = 100001 and 4 requesters
// for 30 s; about a minute on 2 cores). The flags are those of the Java
// benchmark:
//
//	linkbench [-c file] [-l] [-r] [-D key=value]... [-csvstats file] [-csvstream file]
//	          [-store memory|discard|mysql|postgres] [-dsn DSN] [-create-schema] [-defer-index]
//	          [-isolation level] [-dialect name] [-verify] [-trace file] [-cpuprofile file]
//	linkbench -keys
//
// -c names a LinkBench .properties file (its workload_file is read too);
// -l runs the load phase and -r the request phase (with -c, at least one
// of them, or -verify, is required, as in LinkBench); -D overrides a key
// (repeatable, also written glued: -Dmaxid1=20001); -csvstats writes each
// phase's latency table as CSV; -csvstream writes per-requester interval
// statistics every displayfreq seconds; -store selects the store (memory,
// discard, mysql or postgres; default: the linkstore key if it names one,
// else memory). -keys lists every configuration key (name, default,
// allowed values, what it sets) and exits.
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
// equals the visible links. Passwords are never printed. -trace writes
// every store call of the phases, one per line, in the format LinkBench's
// calls were logged in (so that a run with -D rng=java can be diffed against
// the Java benchmark's).
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
// written then), 1 when a phase fails.
package main

import (
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
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
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
	logFile      string
	gomaxprocs   int
	keys         bool
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
	fs.StringVar(&o.store, "store", "", "store: memory, discard, mysql or postgres (default: the linkstore key, else memory)")
	fs.StringVar(&o.dsn, "dsn", "", "MySQL store: go-sql-driver `DSN`, e.g. user:pw@tcp(127.0.0.1:3306)/; postgres store: postgres://user:pw@host:5432/linkbench (default: the host, port, user, password keys)")
	fs.BoolVar(&o.createSchema, "create-schema", false, "SQL stores: create the databases (MySQL; engine key: innodb or rocksdb) or schemas (PostgreSQL) dbprefix0.. and their tables if missing")
	fs.BoolVar(&o.deferIndex, "defer-index", false, "SQL stores: with -create-schema, create the id1_type index after the load phase, not before")
	fs.StringVar(&o.isolation, "isolation", "", "postgres store: transaction isolation, read-committed (default), repeatable-read or serializable")
	fs.StringVar(&o.dialect, "dialect", "", "postgres store: server dialect, postgres (default), cockroachdb or yugabytedb (the last two untested)")
	fs.StringVar(&o.trace, "trace", "", "write every store call of the phases to `file`, one per line (LinkBench's trace format)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the client to `file` (go tool pprof)")
	fs.IntVar(&o.gomaxprocs, "gomaxprocs", -1, "the client's GOMAXPROCS: `n` >= 1, 0 for Go's default, -1 (auto) for max(1, CPUs/4) with a database server store and Go's default otherwise (the GOMAXPROCS environment variable, when set, wins over auto)")
	fs.BoolVar(&o.keys, "keys", false, "list every configuration key (name, default, allowed values, what it sets) and exit")
	fs.BoolVar(&o.verify, "verify", false, "after the phases (or alone, with -c or -store mysql), check that every count equals the visible links and report the node id range")
	usage := func() {
		fs.SetOutput(stderr)
		fmt.Fprintln(stderr, "usage: linkbench [-c file] [-l] [-r] [-D key=value]... [-csvstats file] [-csvstream file] [-L file] [-store memory|discard|mysql|postgres] [-dsn DSN] [-create-schema] [-defer-index] [-isolation level] [-dialect name] [-verify] [-trace file] [-cpuprofile file] [-gomaxprocs n] [-keys]")
		fmt.Fprintln(stderr, "With no arguments: load and request phases of a laptop-sized graph on the in-memory store.")
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
	if o.gomaxprocs < -1 {
		return nil, usageError{fmt.Errorf("-gomaxprocs %d: want -1 (auto), 0 (Go's default) or a number of threads >= 1", o.gomaxprocs)}
	}
	if !o.load && !o.req {
		switch {
		case o.verify && (o.config != "" || o.store == "mysql" || o.store == "postgres"):
			// -verify alone checks an existing database.
		case o.config != "":
			return nil, usageError{errors.New("did not select benchmark mode: give -l (load) and/or -r (request), or -verify")}
		default:
			o.load, o.req = true, true // the main job
		}
	}
	// Output files must differ from each other.
	seen := map[string]string{}
	for _, f := range []struct{ flag, path string }{{"-csvstats", o.csvStats}, {"-csvstream", o.csvStream},
		{"-trace", o.trace}, {"-cpuprofile", o.cpuProfile}, {"-L", o.logFile}} {
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
	cfg, err := linkbench.ParseProperties(o.config, linkbench.PropertiesOptions{Overrides: defs, WorkDir: wd})
	if err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	var password, dsn string
	fail := func(err error) int {
		// One line, whatever the error says.
		msg := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(redact(err.Error(), dsn, password))
		fmt.Fprintln(stderr, "linkbench:", msg)
		var ue usageError
		var ce *linkbench.ConfigError
		if errors.As(err, &ue) || errors.As(err, &ce) || errors.Is(err, linkbench.ErrEmptyStore) {
			return 2
		}
		return 1
	}
	o, err := parseArgs(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return fail(err)
	}
	if o.keys {
		if err := writeKeys(stdout); err != nil {
			return fail(err)
		}
		return 0
	}
	dsn = o.dsn
	cfg, err := buildConfig(o)
	password = cfg.Store.Password
	if err != nil {
		return fail(err)
	}
	level, err := cfg.LogLevel()
	if err != nil {
		return fail(&linkbench.ConfigError{Key: "debuglevel", Value: cfg.DebugLevel, Reason: err.Error()})
	}
	name, err := storeName(o, &cfg)
	if err != nil {
		return fail(err)
	}
	if name != "mysql" && name != "postgres" && (o.dsn != "" || o.createSchema || o.deferIndex) {
		return fail(usageError{fmt.Errorf("-dsn, -create-schema and -defer-index need -store mysql or postgres (the store is %s)", name)})
	}
	if name != "postgres" && (o.isolation != "" || o.dialect != "") {
		return fail(usageError{fmt.Errorf("-isolation and -dialect need -store postgres (the store is %s)", name)})
	}
	if o.verify && name == "discard" {
		return fail(usageError{errors.New("-verify: the discard store keeps nothing to verify")})
	}
	if o.verify && !o.load && !o.req && name != "mysql" && name != "postgres" {
		return fail(usageError{fmt.Errorf("-verify alone: the %s store starts empty; add -l (and -r), or use -store mysql or postgres", name)})
	}
	if cfg.Store.DBID != "" && cfg.DBCount > 1 {
		return fail(usageError{&linkbench.ConfigError{Key: "dbid", Value: cfg.Store.DBID,
			Reason: "names one database: it cannot be combined with dbcount > 1 (use dbprefix)"}})
	}
	// Check everything before writing anything.
	if err := linkbench.Check(cfg, o.req); err != nil {
		return fail(usageError{err})
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
	switch name {
	case "mysql":
		if _, err := mysqlOptions(o, &cfg); err != nil {
			return fail(err)
		}
	case "postgres":
		if _, err := pgOptions(o, &cfg); err != nil {
			return fail(err)
		}
	}

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	procsDesc := clientProcs(o.gomaxprocs, name)

	// From here on the run is interrupted by SIGINT and SIGTERM: the phases
	// stop and their partial reports are printed, marked INTERRUPTED, and
	// the tool exits with 128 + the signal's number (130, 143); a second
	// signal exits at once.
	ctx, sig, stop := interruptible(ctx, stderr)
	defer stop()
	interrupted := func(phase string) (int, bool) {
		s := sig()
		if s == nil {
			return 0, false
		}
		if phase == "load" {
			fmt.Fprintln(stderr, "linkbench: the load was interrupted: the graph may be incomplete or inconsistent; check it with -verify, or load it again into empty tables")
		}
		fmt.Fprintf(stderr, "linkbench: interrupted by %v\n", s)
		return signalStatus(s), true
	}

	logOut := stderr
	if o.logFile != "" {
		_, statErr := os.Stat(o.logFile)
		f, err := os.Create(o.logFile)
		if err != nil {
			return fail(usageError{fmt.Errorf("-L: %w", err)})
		}
		defer func() {
			f.Close()
			// A run refused before it starts leaves no log file it created
			// (the refusal is on standard error).
			if st, err := os.Stat(o.logFile); code == 2 && errors.Is(statErr, fs.ErrNotExist) && err == nil && st.Size() == 0 {
				os.Remove(o.logFile)
			}
		}()
		logOut = f
	}
	cfg.Logger = slog.New(slog.NewTextHandler(&redactingWriter{w: logOut, dsn: dsn, password: password},
		&slog.HandlerOptions{Level: level}))

	st, err := openStore(ctx, name, o, &cfg)
	if err != nil {
		return fail(err)
	}
	defer st.close()
	if err := preflight(ctx, o, &cfg, st); err != nil {
		return fail(err)
	}
	if o.createSchema {
		if err := st.createSchema(ctx, &cfg, o.deferIndex); err != nil {
			return fail(err)
		}
	}
	if o.load {
		// LinkBench loads into empty tables: a load over an old graph would
		// leave its links beside the new counts.
		if db, full, err := st.hasData(ctx, &cfg); err != nil {
			if missingSchema(err) {
				err = usageError{fmt.Errorf("-l: %w: the database has no LinkBench tables; add -create-schema", err)}
			}
			return fail(err)
		} else if full {
			return fail(usageError{fmt.Errorf("-l: database %s already holds a graph: load into a new dbprefix, or drop it first", db)})
		}
	}

	var csvStats, csvStream *os.File
	if o.csvStats != "" {
		if csvStats, err = os.Create(o.csvStats); err != nil {
			return fail(usageError{fmt.Errorf("-csvstats: %w", err)})
		}
		defer csvStats.Close()
	}
	if o.csvStream != "" {
		if csvStream, err = os.Create(o.csvStream); err != nil {
			return fail(usageError{fmt.Errorf("-csvstream: %w", err)})
		}
		defer csvStream.Close()
		if cfg.Stream, err = stats.NewStreamWriter(csvStream); err != nil {
			return fail(err)
		}
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return fail(usageError{fmt.Errorf("-cpuprofile: %w", err)})
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail(fmt.Errorf("-cpuprofile: %w", err))
		}
		defer pprof.StopCPUProfile()
	}
	runStore := st.Store
	if o.trace != "" {
		f, err := os.Create(o.trace)
		if err != nil {
			return fail(usageError{fmt.Errorf("-trace: %w", err)})
		}
		defer f.Close()
		tr := linkbench.NewTracer(f)
		defer func() {
			if err := tr.Close(); err != nil {
				fmt.Fprintln(stderr, "linkbench: -trace:", err)
			}
		}()
		if err := tr.WriteConfig(&cfg); err != nil {
			return fail(fmt.Errorf("-trace: %w", err))
		}
		runStore = tr.Wrap(st.Store)
	}

	phases := []struct {
		name  string
		on    bool
		run   func(context.Context, linkbench.Config, store.Store) (*stats.Report, error)
		after func() error
	}{
		{"load", o.load, linkbench.Load, func() error {
			if o.deferIndex {
				return st.createSecondaryIndex(ctx, &cfg)
			}
			return nil
		}},
		{"request", o.req, func(ctx context.Context, c linkbench.Config, s store.Store) (*stats.Report, error) {
			// preflight checked that the graph is there (or the load put its
			// nodes there and verified them): Request need not count the
			// nodes again, which takes seconds on a large SQL table.
			c.AllowEmptyStore = true
			return linkbench.Request(ctx, c, s)
		}, nil},
	}
	for _, p := range phases {
		if !p.on {
			continue
		}
		// Each loader and requester opens its own session (connections)
		// before the measured window. The sessions the store's own methods
		// used before (its check at Open, preflight's queries) are idle
		// through the phase: PostgreSQL's are closed, so that the server
		// holds only the workers' backends. (MySQL's *sql.DB keeps its
		// idle connections, which its checks reuse.)
		if st.pg != nil {
			st.pg.CloseIdle()
		}
		before := st.counters()
		rep, err := p.run(ctx, cfg, runStore)
		if rep != nil {
			rep.Header = append([]stats.KV{{Key: "store", Value: st.desc}, {Key: "client", Value: procsDesc}}, rep.Header...)
			rep.Counters = append(rep.Counters, counterDelta(before, st.counters())...)
			if werr := rep.WriteText(stdout); werr != nil {
				return fail(werr)
			}
			fmt.Fprintln(stdout)
			if csvStats != nil {
				if werr := rep.WriteCSV(csvStats, true); werr != nil {
					return fail(fmt.Errorf("-csvstats: %w", werr))
				}
			}
		}
		if code, ok := interrupted(p.name); ok {
			return code
		}
		if err != nil {
			return fail(err)
		}
		if p.after != nil {
			if err := p.after(); err != nil {
				return fail(err)
			}
		}
	}
	if o.verify {
		if !o.load && !o.req {
			fmt.Fprintf(stdout, "store: %s\n", st.desc)
		}
		res, err := linkbench.Verify(ctx, cfg, st.Store)
		if werr := linkbench.WriteVerify(stdout, res); werr != nil {
			return fail(werr)
		}
		if code, ok := interrupted("verify"); ok {
			return code
		}
		if err != nil {
			return fail(err)
		}
	}
	return 0
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

// exitNow ends the process at a second SIGINT or SIGTERM.
var exitNow = os.Exit

// interruptible returns ctx cancelled at the first SIGINT or SIGTERM, a
// function that returns that signal (nil before), and stop, which stops
// listening. At a second signal the process exits at once with 128 + its
// number.
func interruptible(ctx context.Context, stderr io.Writer) (context.Context, func() os.Signal, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
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
	return ctx, sig, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// signalStatus is the exit status of a process stopped by s: 128 + its
// number (130 for SIGINT, 143 for SIGTERM).
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
	case storeName == "mysql" || storeName == "postgres":
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
