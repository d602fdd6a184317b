// Command linkbench runs the LinkBench social-graph benchmark: a load phase
// that builds the graph and a request phase that drives LinkBench's
// operation mix against it, then prints LinkBench's report.
//
// With no arguments it runs both phases on the embedded in-memory store
// with a graph small enough for a laptop (maxid1 = 100001 and 4 requesters
// for 30 s; about a minute on 2 cores). The flags are those of the Java
// benchmark:
//
//	linkbench [-c file] [-l] [-r] [-D key=value]... [-csvstats file] [-csvstream file] [-store name]
//
// -c names a LinkBench .properties file (its workload_file is read too);
// -l runs the load phase and -r the request phase (with -c, at least one
// of them is required, as in LinkBench); -D overrides a key (repeatable,
// also written glued: -Dmaxid1=20001); -csvstats writes each phase's
// latency table as CSV; -csvstream writes per-requester interval
// statistics every displayfreq seconds; -store selects the store (memory or
// discard; default: the linkstore key if it names one, else memory).
//
// Exit status: 0 on success, 2 for a usage or configuration error (nothing
// is written then), 1 when a phase fails.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/memstore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
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
	"requests":               "100000000",
	"progressfreq":           "10",
	"load_progress_interval": "2000000",
	"req_progress_interval":  "1000000",
}

type options struct {
	config    string
	load, req bool
	defs      overrides
	csvStats  string
	csvStream string
	store     string
}

func parseArgs(args []string, stderr io.Writer) (*options, error) {
	o := &options{defs: overrides{}}
	fs := flag.NewFlagSet("linkbench", flag.ContinueOnError)
	// Errors are reported in one line by run; -h prints the usage.
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.config, "c", "", "LinkBench `file` (.properties); its workload_file is read too")
	fs.BoolVar(&o.load, "l", false, "run the load phase")
	fs.BoolVar(&o.req, "r", false, "run the request phase")
	fs.Var(o.defs, "D", "override a configuration key: -D `key=value` (repeatable)")
	fs.StringVar(&o.csvStats, "csvstats", "", "write each phase's latency table as CSV to `file`")
	fs.StringVar(&o.csvStream, "csvstream", "", "write per-requester statistics every displayfreq seconds to `file`")
	fs.StringVar(&o.store, "store", "", "store: memory or discard (default: the linkstore key, else memory)")
	usage := func() {
		fs.SetOutput(stderr)
		fmt.Fprintln(stderr, "usage: linkbench [-c file] [-l] [-r] [-D key=value]... [-csvstats file] [-csvstream file] [-store memory|discard]")
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
	if !o.load && !o.req {
		if o.config != "" {
			return nil, usageError{errors.New("did not select benchmark mode: give -l (load) and/or -r (request)")}
		}
		o.load, o.req = true, true
	}
	return o, nil
}

func buildConfig(o *options) (linkbench.Config, error) {
	if o.config != "" {
		cfg, err := linkbench.ParseProperties(o.config, linkbench.PropertiesOptions{Overrides: o.defs})
		if err != nil {
			return cfg, usageError{err}
		}
		return cfg, nil
	}
	cfg := linkbench.DefaultConfig()
	for k, v := range mainJob {
		if err := cfg.Set(k, v); err != nil {
			return cfg, err
		}
	}
	for k, v := range o.defs {
		if err := cfg.Set(k, v); err != nil {
			var ce *linkbench.ConfigError
			if errors.As(err, &ce) {
				ce.Where = "-D"
			}
			return cfg, usageError{err}
		}
	}
	if err := linkbench.ResolveDataFile(&cfg, linkbench.PropertiesOptions{}); err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

// storeNames maps -store values and LinkBench linkstore classes to stores.
func storeName(o *options, cfg *linkbench.Config) (string, error) {
	name := o.store
	key := "-store"
	if name == "" && cfg.Store.LinkStore != "" {
		name, key = cfg.Store.LinkStore, "linkstore"
	}
	switch strings.ToLower(strings.TrimPrefix(name, "com.facebook.LinkBench.")) {
	case "", "memory", "memorylinkstore":
		return "memory", nil
	case "discard", "dummylinkstore":
		return "discard", nil
	}
	return "", usageError{fmt.Errorf("%s %q: unknown store (available: memory, discard)", key, name)}
}

func openStore(name string) (store.Store, func() error) {
	if name == "discard" {
		s := discard.New()
		return s, s.Close
	}
	s := memstore.New()
	return s, s.Close
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "linkbench:", err)
		var ue usageError
		var ce *linkbench.ConfigError
		if errors.As(err, &ue) || errors.As(err, &ce) {
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
	cfg, err := buildConfig(o)
	if err != nil {
		return fail(err)
	}
	level, err := cfg.LogLevel()
	if err != nil {
		return fail(usageError{err})
	}
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	name, err := storeName(o, &cfg)
	if err != nil {
		return fail(err)
	}
	// Check everything before writing anything.
	if err := linkbench.Check(cfg, o.req); err != nil {
		return fail(usageError{err})
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

	st, closeStore := openStore(name)
	defer closeStore()
	fmt.Fprintf(stdout, "store: %s\n", name)

	phases := []struct {
		on  bool
		run func(context.Context, linkbench.Config, store.Store) (*stats.Report, error)
	}{{o.load, linkbench.Load}, {o.req, linkbench.Request}}
	for _, p := range phases {
		if !p.on {
			continue
		}
		rep, err := p.run(ctx, cfg, st)
		if rep != nil {
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
		if err != nil {
			return fail(err)
		}
	}
	return 0
}
