// Command durability measures what durability costs on MariaDB: the binary
// log, two-phase commit between the binary log and the engine, fsync
// settings and a replica applying the stream, for InnoDB and MyRocks
// (ROCKSDB), as one command. It is a custom load tool built on the
// library's public API (linkbench.Config, linkbench.Load,
// linkbench.Request, store/mysqlstore, the stats report).
//
// For each cell of the matrix
//
//	engine (InnoDB, ROCKSDB, TokuDB) x binlog (off, on) x durability (worst, best) x replica (none, one)
//
// it starts throwaway MariaDB servers of its own (mariadb-install-db and
// mariadbd with --no-defaults, datadirs in a temporary directory, free
// loopback ports, the ROCKSDB plugin loaded at start): a master and, for
// replica=one, a GTID replica (server ids 1 and 2, CHANGE MASTER TO ...
// master_use_gtid=slave_pos, the replica with --log-slave-updates
// --skip-slave-start). It loads a small LinkBench graph, waits for the
// replica to apply it, then runs a fixed number of LinkBench write
// transactions (a write-only mix of the request operations) with 4
// requesters and reports, per cell, the elapsed seconds, commits/s, fsyncs
// per commit, the binary log group-commit ratio (from SHOW GLOBAL STATUS)
// and the time the replica took, after the master's end, to reach the
// master's GTID position. The servers are stopped and their directories
// removed after each cell, also on SIGINT, SIGTERM, SIGHUP or a closed
// output (EPIPE; SIGPIPE is ignored); an interrupted run prints the cells
// that finished, then "INTERRUPTED: N of M cells measured", and exits with
// 128 plus the signal's number. With -results DIR each measured cell also
// gets a result file (package results). Each server needs about 1.25 GB of
// disk under -tmpdir, which must be a real disk: on tmpfs (warned about)
// fsyncs cost nothing.
//
// The option sets are those of a published experiment: every server has
// --binlog-format=row --transaction-isolation=READ-COMMITTED
// --innodb-buffer-pool-size=500M --innodb-log-file-size=1000M and --log-bin
// (--skip-log-bin in the binlog=off cells);
//
//   - worst: master and replica --sync-binlog=1 --innodb-flush-log-at-trx-commit=1
//     (MyRocks' default flush: sync on commit);
//   - best: master --sync-binlog=0 --innodb-flush-log-at-trx-commit=0
//     --rocksdb-flush-log-at-trx-commit=0, replica --sync-binlog=0
//     --innodb-flush-log-at-trx-commit=2 --rocksdb-flush-log-at-trx-commit=2.
//
// TokuDB is listed and reported as not available (MariaDB removed it in
// 10.6); the replica=one cells with binlog=off are reported as not
// applicable (a replica reads the master's binary log).
//
// With -sysbench and Debian's sysbench installed, each cell also runs the
// classic oltp_write_only (4 threads, one 100,000-row table, the same
// number of transactions) on the same servers, after LinkBench's.
//
// With -crash it measures instead what a crash loses: for each engine
// (InnoDB, ROCKSDB) and flush-at-commit setting (-crash-flush 1,0:
// innodb_flush_log_at_trx_commit or rocksdb_flush_log_at_trx_commit, no
// binary log) it starts a server, loads the small graph, runs a request
// phase of the write mix with 16 requesters through the audit wrapper
// (package store/audit: every acknowledged write logged before the
// requester's next operation), sends mariadbd SIGKILL -crash-at (3 s) into
// the phase, restarts it on the same datadir (crash recovery; a ROCKSDB
// that refuses its WAL, cut by the kill, is restarted again with
// --rocksdb-wal-recovery-mode=2, point-in-time recovery), lets the
// phase go on -crash-after (3 s) after the restarted server answers and
// ends it (its context cancelled: the calls then in flight count as
// unacknowledged attempts), then verifies the log against the server: per
// cell the writes acknowledged, present, superseded and lost, and the
// count check. It exits 1 when a cell failed or a cell with flush 1 lost
// an acknowledged write. A SIGKILL is a process crash: what the server
// had written to the operating system survives it, synced or not.
//
// Usage:
//
//	go run ./examples/durability [-transactions 5000,400000] [-engines innodb,rocksdb,tokudb]
//	    [-binlog off,on] [-durability worst,best] [-replica none,one] [-requesters 4]
//	    [-maxid1 10001] [-mix addlink=..,updatelink=..] [-sysbench] [-mariadbd PATH]
//	    [-tmpdir DIR] [-results DIR] [-catchup-timeout 10m]
//	go run ./examples/durability -crash [-crash-flush 1,0] [-crash-at 3s] [-crash-after 3s]
//	    [-engines innodb,rocksdb] [-requesters 16] [-maxid1 10001] [-mix ...] [-tmpdir DIR]
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
)

func main() {
	// SIGPIPE ignored: a write to a closed pipe (durability 2>&1 | head -3)
	// returns EPIPE, which run treats as an interruption, instead of
	// killing the tool with its servers running and datadirs in place.
	signal.Ignore(syscall.SIGPIPE)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		if s, ok := (<-sigs).(syscall.Signal); ok {
			cancel(interrupted{s})
		}
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	signal.Stop(sigs)
	cancel(nil)
	os.Exit(code)
}

// interrupted is the cause of a run's end by a signal (SIGINT, SIGTERM,
// SIGHUP) or by a closed output (SIGPIPE); the exit status is 128 plus the
// signal's number.
type interrupted struct{ sig syscall.Signal }

func (i interrupted) Error() string { return "interrupted by " + i.sig.String() }

// pipeWatch passes writes on to w; a write that fails with EPIPE (the
// reader went away) cancels the run, as SIGPIPE would have without its
// servers being stopped.
type pipeWatch struct {
	w      io.Writer
	cancel context.CancelCauseFunc
}

func (p pipeWatch) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		p.cancel(interrupted{syscall.SIGPIPE})
	}
	return n, err
}

// options are the command line's settings.
type options struct {
	engines, binlogs, durabilities, replicas []string
	worstTx, bestTx                          int64
	requesters, loaders                      int
	maxID1, linksPerNode                     int64
	mix                                      linkbench.Mix
	sysbench                                 string // path of sysbench; "" without -sysbench
	sysbenchTableSize                        int
	mariadbd                                 string
	tmpdir                                   string // absolute; "" for os.TempDir()
	tmpfs                                    bool   // the temporary directory is on tmpfs
	resultsDir                               string // -results; "" for no result files
	catchUpTimeout                           time.Duration

	// -crash: the crash measurement instead of the matrix.
	crash               bool
	crashFlush          []int // the flush settings, in order
	crashAt, crashAfter time.Duration
}

// usageError is a bad command line (exit status 2).
type usageError struct{ error }

// Unwrap returns the error, so that errors.Is(err, flag.ErrHelp) sees -h.
func (u usageError) Unwrap() error { return u.error }

// tmpfsMagic is statfs's f_type of a tmpfs file system (TMPFS_MAGIC).
const tmpfsMagic = 0x01021994

// onTmpfs reports whether dir is on a tmpfs file system.
func onTmpfs(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && int64(st.Type) == tmpfsMagic
}

// writeOps are the mix keys of the request operations that write.
var writeOps = []string{"addlink", "deletelink", "updatelink", "addnode", "updatenode", "deletenode"}

// defaultMix is LinkBench's shipped request mix restricted to its write
// operations, rescaled to sum to 100.
func defaultMix() linkbench.Mix {
	d := linkbench.DefaultConfig().Mix
	sum := d.AddLink + d.DeleteLink + d.UpdateLink + d.AddNode + d.UpdateNode + d.DeleteNode
	f := 100 / sum
	return linkbench.Mix{AddLink: d.AddLink * f, DeleteLink: d.DeleteLink * f, UpdateLink: d.UpdateLink * f,
		AddNode: d.AddNode * f, UpdateNode: d.UpdateNode * f, DeleteNode: d.DeleteNode * f}
}

// parseList splits a comma-separated flag value and checks every item
// against allowed (case-insensitively); it returns the allowed spellings.
func parseList(flagName, v string, allowed ...string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		found := false
		for _, a := range allowed {
			if strings.EqualFold(s, a) {
				if slices.Contains(out, a) {
					return nil, fmt.Errorf("-%s %q: %q is listed twice", flagName, v, a)
				}
				out, found = append(out, a), true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("-%s %q: %q is not one of %s", flagName, v, s, strings.Join(allowed, ", "))
		}
	}
	return out, nil
}

func parseOptions(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("durability", flag.ContinueOnError)
	fs.SetOutput(stderr)
	engines := fs.String("engines", "innodb,rocksdb,tokudb", "engines: innodb, rocksdb, tokudb (tokudb is reported as not available)")
	binlogs := fs.String("binlog", "off,on", "binary log settings: off, on")
	durs := fs.String("durability", "worst,best", "durability option sets: worst, best")
	reps := fs.String("replica", "none,one", "replicas: none, one (one needs binlog on)")
	tx := fs.String("transactions", "5000,400000", "write transactions per cell: `N` for every cell, or WORST,BEST (the published run: 5000,400000); rounded up to a multiple of -requesters, and the table shows the number done")
	fs.IntVar(&o.requesters, "requesters", 4, "requesters (client threads)")
	fs.IntVar(&o.loaders, "loaders", 2, "loaders of the pre-loaded graph")
	fs.Int64Var(&o.maxID1, "maxid1", 10001, "maxid1 of the pre-loaded graph (nodes 1..maxid1-1)")
	fs.Int64Var(&o.linksPerNode, "links-per-node", 10, "links per node of the pre-loaded graph (a constant out-degree: LinkBench's real one puts millions of links on the first nodes of a small graph)")
	mix := fs.String("mix", "", "write mix, `op=percent,...` over addlink, deletelink, updatelink, addnode, updatenode, deletenode, summing to 100 (default: LinkBench's shipped mix restricted to these, rescaled)")
	sb := fs.Bool("sysbench", false, "also run sysbench oltp_write_only in each cell (needs sysbench installed)")
	fs.IntVar(&o.sysbenchTableSize, "sysbench-table-size", 100000, "rows of sysbench's table")
	fs.StringVar(&o.mariadbd, "mariadbd", "", "`path` of mariadbd (default: from PATH or /usr/sbin)")
	fs.StringVar(&o.tmpdir, "tmpdir", "", "`directory` for the servers' temporary directory, on a real disk: about 1.2 GB per server (default: $TMPDIR or /tmp)")
	fs.StringVar(&o.resultsDir, "results", "", "`directory` for one result file per measured cell (created if missing; linkbench compare reads them)")
	fs.DurationVar(&o.catchUpTimeout, "catchup-timeout", 10*time.Minute, "longest wait for a replica to catch up (> 0)")
	fs.BoolVar(&o.crash, "crash", false, "instead of the matrix: per engine and -crash-flush setting, SIGKILL mariadbd during a request phase with the audit wrapper, restart it, and count the acknowledged writes lost")
	flushes := fs.String("crash-flush", "1,0", "with -crash: the flush-at-commit settings (innodb_flush_log_at_trx_commit, rocksdb_flush_log_at_trx_commit): 1, 0")
	fs.DurationVar(&o.crashAt, "crash-at", 3*time.Second, "with -crash: the SIGKILL's time after the request phase's start (> 0)")
	fs.DurationVar(&o.crashAfter, "crash-after", 3*time.Second, "with -crash: how long the phase goes on after the restarted server answers (> 0)")
	if err := fs.Parse(args); err != nil {
		return nil, usageError{err}
	}
	if fs.NArg() > 0 {
		return nil, usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	if o.crash {
		if err := crashFlags(o, set, *engines, *flushes); err != nil {
			return nil, usageError{err}
		}
	} else {
		for _, f := range []string{"crash-flush", "crash-at", "crash-after"} {
			if set[f] {
				return nil, usageError{fmt.Errorf("-%s needs -crash", f)}
			}
		}
		if o.engines, err = parseList("engines", *engines, engineInnoDB, engineRocksDB, engineTokuDB); err != nil {
			return nil, usageError{err}
		}
	}
	if o.binlogs, err = parseList("binlog", *binlogs, "off", "on"); err != nil {
		return nil, usageError{err}
	}
	if o.durabilities, err = parseList("durability", *durs, "worst", "best"); err != nil {
		return nil, usageError{err}
	}
	if o.replicas, err = parseList("replica", *reps, "none", "one"); err != nil {
		return nil, usageError{err}
	}
	parts := strings.Split(*tx, ",")
	if len(parts) > 2 {
		return nil, usageError{fmt.Errorf("-transactions %q: want N or WORST,BEST", *tx)}
	}
	var n [2]int64
	for i, p := range parts {
		if n[i], err = strconv.ParseInt(strings.TrimSpace(p), 10, 64); err != nil || n[i] < 1 {
			return nil, usageError{fmt.Errorf("-transactions %q: want whole numbers >= 1", *tx)}
		}
	}
	if len(parts) == 1 {
		n[1] = n[0]
	}
	o.worstTx, o.bestTx = n[0], n[1]
	if o.requesters < 1 || o.loaders < 1 || o.linksPerNode < 1 {
		return nil, usageError{errors.New("-requesters, -loaders and -links-per-node: want >= 1")}
	}
	if o.catchUpTimeout <= 0 {
		return nil, usageError{fmt.Errorf("-catchup-timeout %v: want > 0", o.catchUpTimeout)}
	}
	if o.tmpdir != "" {
		if o.tmpdir, err = filepath.Abs(o.tmpdir); err != nil {
			return nil, usageError{fmt.Errorf("-tmpdir: %w", err)}
		}
		if st, err := os.Stat(o.tmpdir); err != nil || !st.IsDir() {
			return nil, usageError{fmt.Errorf("-tmpdir %q: not an existing directory", o.tmpdir)}
		}
	}
	tmp := o.tmpdir
	if tmp == "" {
		tmp = os.TempDir()
	}
	o.tmpfs = onTmpfs(tmp)
	if o.resultsDir != "" {
		if o.resultsDir, err = filepath.Abs(o.resultsDir); err != nil {
			return nil, usageError{fmt.Errorf("-results: %w", err)}
		}
		if err := os.MkdirAll(o.resultsDir, 0o755); err != nil {
			return nil, usageError{fmt.Errorf("-results %q: %w", o.resultsDir, err)}
		}
	}
	if o.sysbenchTableSize < 1 {
		return nil, usageError{errors.New("-sysbench-table-size: want >= 1")}
	}
	o.mix = defaultMix()
	if *mix != "" {
		if o.mix, err = parseMix(*mix); err != nil {
			return nil, usageError{err}
		}
	}
	if *sb {
		if o.sysbench, err = findSysbench(); err != nil {
			return nil, usageError{err}
		}
	}
	for _, d := range o.durabilities {
		cfg := o.config(d)
		if err := cfg.Validate(); err != nil {
			return nil, usageError{err}
		}
	}
	if o.crash {
		cfg := o.crashConfig()
		if err := cfg.Validate(); err != nil {
			return nil, usageError{err}
		}
	}
	return o, nil
}

// crashFlags reads the flags of -crash: the engines (InnoDB, ROCKSDB), the
// flush settings, the times; -requesters is 16 unless given. The flags of
// the matrix are refused.
func crashFlags(o *options, set map[string]bool, engines, flushes string) error {
	for _, f := range []string{"binlog", "durability", "replica", "transactions", "sysbench", "sysbench-table-size", "results", "catchup-timeout"} {
		if set[f] {
			return fmt.Errorf("-%s applies to the matrix, not to -crash", f)
		}
	}
	if !set["engines"] {
		engines = "innodb,rocksdb"
	}
	var err error
	if o.engines, err = parseList("engines", engines, engineInnoDB, engineRocksDB); err != nil {
		return fmt.Errorf("%w (with -crash)", err)
	}
	fl, err := parseList("crash-flush", flushes, "1", "0")
	if err != nil {
		return err
	}
	for _, f := range fl {
		o.crashFlush = append(o.crashFlush, int(f[0]-'0'))
	}
	if !set["requesters"] {
		o.requesters = 16
	}
	if o.crashAt <= 0 || o.crashAfter <= 0 {
		return fmt.Errorf("-crash-at %v, -crash-after %v: want > 0", o.crashAt, o.crashAfter)
	}
	return nil
}

// parseMix reads -mix: op=percent pairs over the write operations.
func parseMix(v string) (linkbench.Mix, error) {
	cfg := linkbench.DefaultConfig()
	cfg.Mix = linkbench.Mix{}
	for _, kv := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		k = strings.ToLower(strings.TrimSpace(k))
		allowed := false
		for _, w := range writeOps {
			allowed = allowed || k == w
		}
		if !ok || !allowed {
			return linkbench.Mix{}, fmt.Errorf("-mix %q: %q: want op=percent with op one of %s", v, kv, strings.Join(writeOps, ", "))
		}
		if err := cfg.Set(k, strings.TrimSpace(val)); err != nil {
			return linkbench.Mix{}, fmt.Errorf("-mix: %w", err)
		}
	}
	if s := cfg.Mix.Sum(); s < 100-1e-5 || s > 100+1e-5 {
		return linkbench.Mix{}, fmt.Errorf("-mix %q: the percentages sum to %g, want 100", v, s)
	}
	return cfg.Mix, nil
}

// transactions returns the cell's number of write transactions.
func (o *options) transactions(durability string) int64 {
	if durability == "worst" {
		return o.worstTx
	}
	return o.bestTx
}

// transactionsDone returns the number of write transactions a cell with
// the given durability does: -transactions rounded up to a multiple of
// -requesters (each requester does the same number).
func (o *options) transactionsDone(durability string) int64 {
	cfg := o.config(durability)
	return cfg.Requests * int64(cfg.Requesters)
}

// config returns the LinkBench configuration of a cell with the given
// durability: the shipped workload, the small pre-loaded graph, the write
// mix, fixed seeds (every cell does the same operations) and the
// transactions shared by the requesters (rounded up to a multiple of
// their number).
func (o *options) config(durability string) linkbench.Config {
	cfg := linkbench.DefaultConfig()
	cfg.MaxID1 = o.maxID1
	cfg.NLinksFunc = "const"
	cfg.NLinksDefault = o.linksPerNode
	cfg.Loaders = o.loaders
	cfg.Requesters = o.requesters
	cfg.Requests = (o.transactions(durability) + int64(o.requesters) - 1) / int64(o.requesters)
	cfg.MaxTime = linkbench.NoTimeLimit
	cfg.WarmupTime = 0
	cfg.Mix = o.mix
	cfg.LoadRandomSeed = linkbench.FixedSeed(1)
	cfg.RequestRandomSeed = linkbench.FixedSeed(2)
	cfg.DBPrefix = "linkdb"
	return cfg
}

// cells returns the matrix in table order.
func (o *options) cells() []cell {
	var out []cell
	for _, e := range o.engines {
		for _, b := range o.binlogs {
			for _, d := range o.durabilities {
				for _, r := range o.replicas {
					out = append(out, cell{Engine: e, Binlog: b == "on", Durability: d, Replica: r == "one"})
				}
			}
		}
	}
	return out
}

// skipReason says why a cell is not run, or "" when it is.
func skipReason(c cell, version string) string {
	switch {
	case c.Engine == engineTokuDB:
		if version == "" {
			version = "10.11"
		}
		return "not available in MariaDB " + version + " (TokuDB was removed in 10.6)"
	case c.Replica && !c.Binlog:
		return "not applicable: a replica needs the master's binary log (see binlog=on)"
	}
	return ""
}

// run is the tool: it returns the exit status (0, 1 when a cell failed, 2
// for a bad command line, 128+n when interrupted by signal n: 130 for
// SIGINT, 143 for SIGTERM, 129 for SIGHUP, 141 for a closed output).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stdout, stderr = pipeWatch{stdout, cancel}, pipeWatch{stderr, cancel}
	o, err := parseOptions(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "durability:", err)
		return 2
	}
	if o.tmpfs {
		fmt.Fprintln(stderr, "durability: warning:", tmpfsNote(o))
	}
	if o.crash {
		return runCrash(ctx, o, stdout, stderr)
	}
	results, err := runMatrix(ctx, o, func(f string, a ...any) {
		fmt.Fprintf(stderr, "durability: "+f+"\n", a...)
	})
	writeTable(stdout, o, results)
	if ctx.Err() != nil {
		fmt.Fprintf(stdout, "INTERRUPTED: %d of %d cells measured\n", measured(results), runnable(o))
		code := 130
		var in interrupted
		if errors.As(context.Cause(ctx), &in) {
			code = 128 + int(in.sig)
		}
		fmt.Fprintf(stderr, "durability: %v; servers stopped and temporary directories removed\n", context.Cause(ctx))
		return code
	}
	if err != nil {
		fmt.Fprintln(stderr, "durability:", err)
		return 1
	}
	for _, r := range results {
		if r.Err != nil {
			return 1
		}
	}
	return 0
}

// runCrash is the tool with -crash: it returns the exit status (see
// crashExit; 128+n when interrupted by signal n).
func runCrash(ctx context.Context, o *options, stdout, stderr io.Writer) int {
	rs, err := runCrashMatrix(ctx, o, func(f string, a ...any) {
		fmt.Fprintf(stderr, "durability: "+f+"\n", a...)
	})
	writeCrashTable(stdout, o, rs)
	if ctx.Err() != nil {
		fmt.Fprintf(stdout, "INTERRUPTED: %d of %d cells measured\n", len(rs), len(o.crashCells()))
		code := 130
		var in interrupted
		if errors.As(context.Cause(ctx), &in) {
			code = 128 + int(in.sig)
		}
		fmt.Fprintf(stderr, "durability: %v; servers stopped and temporary directories removed\n", context.Cause(ctx))
		return code
	}
	if err != nil {
		fmt.Fprintln(stderr, "durability:", err)
		return 1
	}
	return crashExit(rs)
}

// tmpfsNote says that the servers' directory is on tmpfs.
func tmpfsNote(o *options) string {
	dir := o.tmpdir
	if dir == "" {
		dir = os.TempDir()
	}
	return fmt.Sprintf("the temporary directory %s is on tmpfs, where fsync costs nothing: fsync costs are not measured (use -tmpdir on a real disk)", dir)
}

// runnable returns the number of cells of o's matrix that are measured
// (not TokuDB's, not a replica without a binary log).
func runnable(o *options) int {
	n := 0
	for _, c := range o.cells() {
		if skipReason(c, "") == "" {
			n++
		}
	}
	return n
}

// measured returns the number of cells whose LinkBench transactions were
// measured without error.
func measured(results []result) int {
	n := 0
	for _, r := range results {
		if r.Workload == "linkbench" && r.Skip == "" && r.Err == nil && r.Elapsed > 0 {
			n++
		}
	}
	return n
}

// runMatrix runs every cell of o and returns their results, in order;
// the error is one that stopped the whole run (no MariaDB, no temporary
// directory). When the run is interrupted, the results hold the cells
// that finished before (a cell that finished measuring is kept even when
// the signal came while its servers stopped); the others are absent.
// With o.resultsDir, each measured cell's result file is written as soon
// as the cell is done.
func runMatrix(ctx context.Context, o *options, logf func(string, ...any)) ([]result, error) {
	bin, err := findBinaries(o.mariadbd)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(o.tmpdir, "durability-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	env := &runEnv{o: o, bin: bin, tmp: tmp, template: tmp + "/template", logf: logf}
	logf("installing a datadir template in %s", tmp)
	if err := installTemplate(ctx, bin, env.template); err != nil {
		return nil, err
	}
	version := serverVersion(bin)
	var results []result
	for _, c := range o.cells() {
		if ctx.Err() != nil {
			break
		}
		if why := skipReason(c, version); why != "" {
			results = append(results, result{Cell: c, Workload: "linkbench", Skip: why})
			continue
		}
		if c.Engine == engineRocksDB && bin.rocksdb == "" {
			results = append(results, result{Cell: c, Workload: "linkbench", Err: errors.New("ha_rocksdb.so not found: install mariadb-plugin-rocksdb")})
			continue
		}
		logf("%s: starting servers", c)
		start := time.Now()
		rs := env.runCell(ctx, c, logf)
		if ctx.Err() != nil {
			// Keep what finished measuring; drop what the signal cut short.
			rs = slices.DeleteFunc(rs, func(r result) bool { return r.Err != nil || r.Elapsed == 0 })
		}
		for i := range rs {
			r := &rs[i]
			if r.Err != nil {
				logf("%s: %s FAILED: %v", c, r.Workload, r.Err)
				continue
			}
			if o.resultsDir != "" && r.report != nil {
				path := filepath.Join(o.resultsDir, r.fileName())
				if err := writeResultFile(path, o, r, version); err != nil {
					r.Err = err
					logf("%s: %v", c, err)
				} else {
					logf("%s: wrote %s", c, path)
				}
			}
		}
		results = append(results, rs...)
		if ctx.Err() != nil {
			break
		}
		logf("%s: done in %.1f s", c, time.Since(start).Seconds())
	}
	return results, nil
}

// serverVersion returns mariadbd's version number ("10.11.19"), or "".
func serverVersion(b binaries) string {
	out, err := execOutput(b.mariadbd, "--no-defaults", "--version")
	if err != nil {
		return ""
	}
	f := strings.Fields(out)
	for i, w := range f {
		if w == "Ver" && i+1 < len(f) {
			v, _, _ := strings.Cut(f[i+1], "-")
			return v
		}
	}
	return ""
}

// randomPassword returns a fresh password for the replication user.
func randomPassword() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "r" + hex.EncodeToString(b)
}
