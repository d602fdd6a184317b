// Command paired measures linkbench-go side by side with Java LinkBench
// against one MySQL-protocol server: the same configuration, the same
// tables, the tools taking turns. By default the tables (created if
// missing) are truncated and loaded once, by one tool's load phase (-l;
// -load-with go or java, default go), and then -pairs pairs (default 3)
// of request phases (-r) alternate the tools on the loaded tables: pair 1
// runs java then go, pair 2 go then java, and so on. -load-each instead
// loads before each tool's own request phase (the tables truncated
// first), so that the loads are compared too; -skip-load loads nothing.
//
// Before every measured phase paired waits, at most -settle (default
// 120s; 0: no wait), until the server is quiet: polled every second, over
// the last 2 s Innodb_data_written grew by less than 64 KiB/s, ROCKSDB's
// flushes and compactions wrote nothing (Rocksdb_flush_write_bytes +
// Rocksdb_compact_write_bytes, when the server has the engine; its
// pending compactions are not in SHOW GLOBAL STATUS, so what they write is
// the sign), and Innodb_buffer_pool_pages_dirty is at most 1 % of the
// buffer pool or stopped falling. It prints how long it waited and what
// it saw; a server still busy at -settle is reported as NOT QUIET and
// measured anyway.
//
// For each run it prints, side by side with the ratio go/java:
//
//   - load: rows/s (nodes + links + counts per second), the client's CPU
//     per loaded link, the server's CPU per row, the client's peak RSS;
//   - request: requests/s, the client's CPU per request (user + system,
//     the whole process: start-up, connecting and for Java the JIT
//     included), the server's CPU per request (when the server runs on
//     this host: its pid from @@pid_file, its CPU from /proc), the
//     client's peak RSS, the statements per request the server counted
//     (SHOW GLOBAL STATUS deltas) and the server's background writing
//     during the run: Innodb_buffer_pool_pages_dirty at its start and
//     end, Innodb_buffer_pool_pages_flushed, Innodb_data_written and
//     Innodb_os_log_written per request and, with ROCKSDB,
//     Rocksdb_bytes_written, Rocksdb_flush_write_bytes and
//     Rocksdb_compact_write_bytes per request and Rocksdb_stall_micros.
//
// After more than one pair it prints for every row the median of each
// tool and the median of the per-pair ratios go/java with their spread,
// e.g. "1.15 (1.08-1.32)" (without -java: linkbench-go's median and
// spread).
//
// -graph chooses the graph: real (the default) is maxid1 200001 with
// LinkBench's real out-degree (nlinks_func as the configuration says,
// real in the shipped files); small is maxid1 20001 with a constant 10
// links per node (nlinks_func=const, nlinks_default=10, nlinks_config=0,
// passed to both tools). -maxid1 and -D keys win over the graph's.
//
// -syscalls counts the system calls: after the measured pairs, one extra
// pair of request phases (java then go) runs each tool under
// `strace -f -c` and prints the calls (and failed calls) per request of
// every system call, both tools, sorted by their sum. strace slows the
// tools down unequally, so nothing is timed in that pair: only its
// requests/s are shown, to tell the runs apart, never to compare them
// (the counts of calls that depend on timing, such as reads failing with
// EAGAIN, epoll_pwait and futex, move with the slowdown too); the strace
// summaries are kept beside the log. Kinds that no tool makes at least
// 0.001 times per request (start-up calls) are counted, not listed.
//
// It never contains, builds or fetches Java code: -java names a launcher
// of a Java LinkBench built elsewhere (a script or binary that runs
// LinkBench's driver and passes its arguments through, such as one that
// execs `java ... com.facebook.LinkBench.LinkBenchDriver "$@"`). Without
// -java it measures linkbench-go alone.
//
// Usage (from the repository's root):
//
//	go run ./cmd/paired -dsn 'user:pw@tcp(127.0.0.1:3306)/' [-java /path/to/linkbench-java]
//	    [-config LinkConfigMysql.properties] [-engine innodb|rocksdb] [-graph real|small] [-maxid1 N]
//	    [-loaders 2] [-requesters 16] [-maxtime 60s] [-pairs 3]
//	    [-load-with go|java | -load-each | -skip-load] [-settle 120s] [-syscalls] [-D key=value]...
//
// The server must be one the tools may write to: the database dbprefix0
// (-db, default lbpaired) is created if missing and its three tables are
// truncated before each load. Java's MariaDB Connector/J needs the server
// started with character-set-server=latin1 and
// skip-character-set-client-handshake for binary payloads. Both tools connect with -dsn's
// user, address and password (MYSQL_PWD's when -dsn has none), whatever
// the configuration file holds; the password is never printed nor put on
// the tools' command lines (give -dsn without it, and MYSQL_PWD, to keep it
// off paired's own).
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/internal/properties"
	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/store/mysqlstore"
)

// statusVars are the server's statement counters reported per request.
var statusVars = []string{"Com_begin", "Com_commit", "Com_rollback", "Com_stmt_execute", "Com_stmt_prepare",
	"Com_select", "Com_insert", "Com_update", "Com_delete", "Questions"}

// workVars are the server's counters of the work behind the statements,
// reported per request: the bytes each way (a client's extra protocol
// packets show here), the handler calls and rows the engines did, and
// InnoDB's row lock waits (Innodb_row_lock_time in ms: a run bound by lock
// waits, not CPU, shows here and in the cores' busy share).
var workVars = []string{"Bytes_received", "Bytes_sent", "Handler_commit", "Handler_read_key", "Handler_read_next",
	"Handler_read_prev", "Handler_read_rnd_next", "Handler_write", "Handler_update", "Handler_delete",
	"Innodb_rows_read", "Innodb_row_lock_waits", "Innodb_row_lock_time", "Created_tmp_tables", "Select_scan"}

// clkTck is the kernel's USER_HZ, the unit of /proc/PID/stat's CPU times
// (100 on every Linux ABI Go supports).
const clkTck = 100

// The graphs of -graph.
const (
	graphReal   = "real"  // maxid1 200001, the configuration's out-degree
	graphSmall  = "small" // maxid1 20001, a constant smallDegree links per node
	smallDegree = 10
)

type defs []string

func (d *defs) String() string     { return strings.Join(*d, " ") }
func (d *defs) Set(s string) error { *d = append(*d, s); return nil }

type options struct {
	dsn, java, config, linkbench, engine, db string
	graph                                    string
	maxid1                                   int64
	loaders, requesters, pairs               int
	maxtime, settle                          time.Duration
	skipLoad, loadEach, syscalls             bool
	generator                                bool   // -generator: the workload generators alone, no server
	dummy                                    string // Java's store class with -generator
	loadWith                                 string // the loading tool's name ("" with -skip-load or -load-each)
	strace                                   string // strace's path, with -syscalls
	defs                                     defs
	goArgs                                   string
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0) // -h: the usage is printed
		}
		fmt.Fprintln(os.Stderr, "paired:", err)
		var ue usageErr
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageErr struct{ error }

func (u usageErr) Unwrap() error { return u.error }

func parse(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("paired", flag.ContinueOnError)
	fs.StringVar(&o.dsn, "dsn", "", "go-sql-driver `DSN` of the server, e.g. user:pw@tcp(127.0.0.1:3306)/ (required)")
	fs.StringVar(&o.java, "java", "", "`path` of a Java LinkBench launcher (built outside this repository); empty: linkbench-go alone")
	fs.StringVar(&o.config, "config", "", "LinkBench .properties `file` for both tools (default: config/LinkConfigMysql.properties beside the Java launcher or in the directory above it; without -java, the shipped workload)")
	fs.StringVar(&o.linkbench, "linkbench", "", "`path` of the linkbench-go binary (default: built from ./cmd/linkbench)")
	fs.StringVar(&o.engine, "engine", "innodb", "table engine: innodb or rocksdb (rocksdb: both tools run in READ COMMITTED, as MyRocks runs do)")
	fs.StringVar(&o.db, "db", "lbpaired", "dbprefix: the tools use the database `prefix`0 (its tables are truncated before each load)")
	fs.StringVar(&o.graph, "graph", graphReal, "the graph: real (maxid1 200001, LinkBench's real out-degree) or small (maxid1 20001, a constant 10 links per node)")
	fs.Int64Var(&o.maxid1, "maxid1", 0, "maxid1 of the graph (default: the -graph's, 200001 or 20001)")
	fs.IntVar(&o.loaders, "loaders", 2, "loaders")
	fs.IntVar(&o.requesters, "requesters", 16, "requesters")
	fs.DurationVar(&o.maxtime, "maxtime", 60*time.Second, "length of each request phase (whole seconds)")
	fs.IntVar(&o.pairs, "pairs", 3, "pairs of request phases, the tools' order alternating (pair 1: java then go)")
	loadWith := fs.String("load-with", "go", "the tool whose load phase loads the tables, once, before the pairs: go or java")
	fs.BoolVar(&o.loadEach, "load-each", false, "load before each tool's own request phase (tables truncated first) and compare the loads too, instead of loading once")
	fs.BoolVar(&o.skipLoad, "skip-load", false, "run the request phases on the tables as they are (no truncation, no load)")
	fs.DurationVar(&o.settle, "settle", 120*time.Second, "wait at most this `long` before each phase until the server stops flushing (0: no wait)")
	fs.BoolVar(&o.syscalls, "syscalls", false, "after the measured pairs, one extra pair under strace -f -c: system calls per request (its timings are not measurements)")
	fs.BoolVar(&o.generator, "generator", false, "measure the workload generators alone, no server: Java with its dummy store (-java-dummy), linkbench-go with -store discard; -dsn is not needed")
	fs.StringVar(&o.dummy, "java-dummy", "com.facebook.LinkBench.DummyLinkStore", "with -generator: the `class` Java LinkBench uses as its link and node store")
	fs.Var(&o.defs, "D", "extra configuration `key=value` for both tools (repeatable; maxid1, loaders, requesters, maxtime, dbprefix and engine set the flags)")
	fs.StringVar(&o.goArgs, "go-args", "", "extra `flags` for linkbench-go only, space-separated (e.g. -gomaxprocs 2)")
	// A bad flag gets one line (the flag package's error), not the whole
	// usage; -h prints the usage.
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(os.Stderr)
			fs.Usage()
			return nil, err
		}
		return nil, usageErr{fmt.Errorf("%w (paired -h lists the flags)", err)}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := flagDefs(o, set); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, usageErr{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	case o.dsn == "" && !o.generator:
		return nil, usageErr{errors.New("-dsn is required (or -generator, which needs no server)")}
	case o.generator && (o.dsn != "" || o.loadEach || o.skipLoad || set["load-with"] || set["engine"] || set["settle"]):
		return nil, usageErr{errors.New("-generator: no -dsn, -engine, -settle, -load-with, -load-each or -skip-load (it loads nothing and uses no server)")}
	case o.engine != "innodb" && o.engine != "rocksdb":
		return nil, usageErr{fmt.Errorf("-engine %q: want innodb or rocksdb", o.engine)}
	case o.graph != graphReal && o.graph != graphSmall:
		return nil, usageErr{fmt.Errorf("-graph %q: want real or small", o.graph)}
	case set["maxid1"] && o.maxid1 < 2:
		return nil, usageErr{fmt.Errorf("-maxid1 %d: want >= 2", o.maxid1)}
	case o.loaders < 1 || o.loaders > 1024:
		return nil, usageErr{fmt.Errorf("-loaders %d: want 1..1024", o.loaders)}
	case o.requesters < 1 || o.requesters > 1024:
		return nil, usageErr{fmt.Errorf("-requesters %d: want 1..1024", o.requesters)}
	case o.pairs < 1 || o.pairs > 1000:
		return nil, usageErr{fmt.Errorf("-pairs %d: want 1..1000", o.pairs)}
	case set["java-dummy"] && !o.generator:
		return nil, usageErr{errors.New("-java-dummy: only with -generator")}
	case o.maxtime < time.Second || o.maxtime%time.Second != 0:
		return nil, usageErr{fmt.Errorf("-maxtime %v: want whole seconds >= 1s", o.maxtime)}
	case o.settle < 0:
		return nil, usageErr{fmt.Errorf("-settle %v: want >= 0 (0: no wait)", o.settle)}
	case *loadWith != "go" && *loadWith != "java":
		return nil, usageErr{fmt.Errorf("-load-with %q: want go or java", *loadWith)}
	case *loadWith == "java" && o.java == "":
		return nil, usageErr{errors.New("-load-with java: needs -java")}
	case o.skipLoad && o.loadEach:
		return nil, usageErr{errors.New("-skip-load and -load-each: give one at most")}
	case set["load-with"] && (o.skipLoad || o.loadEach):
		return nil, usageErr{errors.New("-load-with: not with -skip-load or -load-each (which load nothing, or with each tool)")}
	}
	if o.generator {
		o.skipLoad, o.settle = true, 0
	}
	if !o.skipLoad && !o.loadEach {
		o.loadWith = *loadWith
	}
	if !set["maxid1"] {
		o.maxid1 = 200001
		if o.graph == graphSmall {
			o.maxid1 = 20001
		}
	}
	if o.java != "" && o.config == "" {
		o.config = defaultConfig(o.java)
	}
	// Everything that can be checked is checked before the server is
	// touched (tables created or truncated).
	if o.java != "" {
		if fi, err := os.Stat(o.java); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return nil, usageErr{fmt.Errorf("-java %s: not an executable file", o.java)}
		}
	}
	if o.config != "" {
		if _, err := os.Stat(o.config); err != nil {
			return nil, usageErr{fmt.Errorf("-config %s: %v", o.config, errors.Unwrap(err))}
		}
	}
	if o.linkbench != "" {
		if fi, err := os.Stat(o.linkbench); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return nil, usageErr{fmt.Errorf("-linkbench %s: not an executable file", o.linkbench)}
		}
	}
	if o.syscalls {
		p, err := exec.LookPath("strace")
		if err != nil {
			return nil, usageErr{fmt.Errorf("-syscalls: strace not found in PATH (%v)", errors.Unwrap(err))}
		}
		o.strace = p
	}
	// A launcher, binary or file named relative to the working directory
	// stays that file when paired runs it (exec looks a bare name up in
	// PATH).
	o.java, o.linkbench, o.config = absIfSet(o.java), absIfSet(o.linkbench), absIfSet(o.config)
	for _, d := range o.defs {
		if !strings.Contains(d, "=") {
			return nil, usageErr{fmt.Errorf("-D %q: want key=value", d)}
		}
	}
	if err := checkIdent(o.db); err != nil {
		return nil, usageErr{fmt.Errorf("-db %q: %v", o.db, err)}
	}
	if o.config != "" {
		if err := checkHome(o.config); err != nil {
			return nil, usageErr{err}
		}
	}
	if err := checkConfig(o); err != nil {
		return nil, usageErr{err}
	}
	return o, nil
}

// absIfSet returns p made absolute, "" for "".
func absIfSet(p string) string {
	if p == "" {
		return ""
	}
	return absPath(p)
}

// checkConfig validates the configuration both tools get (the file, the
// graph's keys, the run's and the -D keys) as linkbench-go will, so that a
// value out of range is refused before the server is touched, and refuses
// table names other than LinkBench's (paired creates and truncates
// linktable, counttable and nodetable) and a debuglevel above INFO, which
// hides the result lines paired reads.
func checkConfig(o *options) error {
	over := map[string]string{}
	for _, d := range slices.Concat(graphDefs(o), runDefs(o), o.defs) {
		k, v, _ := strings.Cut(d, "=")
		over[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	// The connection keys of the file are -dsn's for both tools: dropped
	// here (ParseProperties checks and drops them without a Connection).
	home := os.Getenv("LINKBENCH_HOME")
	if home == "" && o.config != "" {
		home = guessedHome(o.config)
	}
	cfg, err := linkbench.ParseProperties(o.config, linkbench.PropertiesOptions{Overrides: over, Home: home})
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		if o.config != "" {
			return fmt.Errorf("-config %s with paired's keys: %w", o.config, err)
		}
		return err
	}
	if lvl, _ := cfg.LogLevel(); lvl > slog.LevelInfo {
		return fmt.Errorf("debuglevel = %q: want TRACE, DEBUG or INFO (paired reads the tools' INFO lines: their results)", cfg.DebugLevel)
	}
	for _, t := range [][2]string{{"linktable", cfg.Store.LinkTable}, {"counttable", cfg.Store.CountTable}, {"nodetable", cfg.Store.NodeTable}} {
		if t[1] != "" && t[1] != t[0] {
			return fmt.Errorf("%s = %q: paired creates and truncates LinkBench's tables linktable, counttable and nodetable in -db's database; give the default names", t[0], t[1])
		}
	}
	return nil
}

// runDefs are the keys of the run both tools get besides the graph's and
// -D's: paired's flags, one database, no request count limit.
func runDefs(o *options) []string {
	return []string{
		"loaders=" + strconv.Itoa(o.loaders),
		"requesters=" + strconv.Itoa(o.requesters),
		"maxtime=" + strconv.Itoa(int(o.maxtime/time.Second)),
		"requests=1000000000",
		"dbprefix=" + o.db,
		"dbcount=1",
	}
}

// defaultConfig returns the configuration file paired uses with -java and
// no -config: config/LinkConfigMysql.properties beside the launcher, or,
// when there is none, in the directory above it (a LinkBench checkout,
// whose launcher is bin/linkbench).
func defaultConfig(java string) string {
	dir := filepath.Dir(java)
	p := filepath.Join(dir, "config", "LinkConfigMysql.properties")
	if q := filepath.Join(filepath.Dir(dir), "config", "LinkConfigMysql.properties"); !fileExists(p) && fileExists(q) {
		return q
	}
	return p
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// flagKeys are the configuration keys paired sets from its own flags; a
// -D of one of them sets the flag (it must agree with the flag when both
// are given), so that both tools and paired's header agree.
var flagKeys = map[string]string{
	"maxid1": "maxid1", "loaders": "loaders", "requesters": "requesters", "maxtime": "maxtime",
	"dbprefix": "db", "engine": "engine",
}

// connectionKeys are the keys both tools take from -dsn.
var connectionKeys = map[string]bool{"user": true, "password": true, "host": true, "port": true}

// flagDefs applies the -D keys that paired's flags own (flagKeys) to o and
// removes them from o.defs; it refuses the connection keys (-dsn gives
// them) and dbcount (paired uses one database), never echoing a value.
func flagDefs(o *options, set map[string]bool) error {
	var rest defs
	for _, d := range o.defs {
		k, v, ok := strings.Cut(d, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case !ok:
			rest = append(rest, d) // refused later, "want key=value"
			continue
		case connectionKeys[strings.ToLower(k)]:
			return usageErr{fmt.Errorf("-D %s: both tools connect with -dsn's user, address and password; give them there", k)}
		case k == "dbcount":
			return usageErr{fmt.Errorf("-D dbcount: paired uses one database, -db's prefix followed by 0")}
		}
		name, owned := flagKeys[k]
		if !owned {
			rest = append(rest, d)
			continue
		}
		var err error
		var was string
		switch name {
		case "maxid1":
			was = strconv.FormatInt(o.maxid1, 10)
			o.maxid1, err = strconv.ParseInt(v, 10, 64)
		case "loaders":
			was = strconv.Itoa(o.loaders)
			o.loaders, err = strconv.Atoi(v)
		case "requesters":
			was = strconv.Itoa(o.requesters)
			o.requesters, err = strconv.Atoi(v)
		case "maxtime":
			was = strconv.FormatInt(int64(o.maxtime/time.Second), 10)
			var secs int64
			secs, err = strconv.ParseInt(v, 10, 64)
			o.maxtime = time.Duration(secs) * time.Second
		case "db":
			was, o.db = o.db, v
		case "engine":
			was, o.engine = o.engine, strings.ToLower(v)
		}
		if err != nil {
			return usageErr{fmt.Errorf("-D %s=%s: want a whole number (it sets -%s)", k, v, name)}
		}
		if set[name] && was != v && !(name == "engine" && strings.EqualFold(was, v)) {
			return usageErr{fmt.Errorf("-D %s=%s and -%s %s disagree: give one", k, v, name, was)}
		}
		set[name] = true
	}
	o.defs = rest
	return nil
}

// guessedHome is the LinkBench home paired gives linkbench-go when
// LINKBENCH_HOME is not set: the directory above the configuration file's
// (a home holds config/), where the config's relative workload_file and
// data_file are resolved.
func guessedHome(config string) string { return filepath.Dir(filepath.Dir(absPath(config))) }

// checkHome refuses a configuration file whose relative workload_file or
// data_file linkbench-go would not find under the LinkBench home paired
// gives it ($LINKBENCH_HOME, else the directory above the file's): it
// would fail (workload_file), or quietly use its built-in out-degree
// (data_file) where Java reads the file, after the tables were touched.
func checkHome(config string) error {
	f, err := os.Open(config)
	if err != nil {
		return fmt.Errorf("-config %s: %w", config, err)
	}
	defer f.Close()
	props, err := properties.Read(f)
	if err != nil {
		return fmt.Errorf("-config %s: %w", config, err)
	}
	home, fromEnv := os.Getenv("LINKBENCH_HOME"), true
	if home == "" {
		home, fromEnv = guessedHome(config), false
	}
	for _, pr := range props {
		key, v := pr.Key, pr.Value
		if key != "workload_file" && key != "data_file" || v == "" || filepath.IsAbs(v) {
			continue
		}
		if p := filepath.Join(home, v); !fileExists(p) {
			how := "the directory above the configuration file's (set LINKBENCH_HOME to the LinkBench home that holds it)"
			if fromEnv {
				how = "$LINKBENCH_HOME"
			}
			return fmt.Errorf("-config %s: %s %q is not in %s: not found at %s", config, key, v, how, p)
		}
	}
	return nil
}

// graphDefs returns the configuration keys of the graph for both tools:
// maxid1 (-maxid1 or the graph's) and, for the small graph, a constant
// out-degree of smallDegree links per node. Keys given with -D come
// after them, and win.
func graphDefs(o *options) []string {
	d := []string{"maxid1=" + strconv.FormatInt(o.maxid1, 10)}
	if o.graph == graphSmall {
		d = append(d, "nlinks_func=const", "nlinks_default="+strconv.Itoa(smallDegree), "nlinks_config=0")
	}
	return d
}

// checkIdent accepts a database prefix the tools can both use: letters,
// digits, '_' and '$' (Java LinkBench does not quote database names), at
// most 63 characters (the database name adds a digit).
func checkIdent(p string) error {
	if p == "" || len(p) > 63 {
		return errors.New("want 1..63 characters")
	}
	for _, c := range p {
		if !(c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return fmt.Errorf("character %q: want letters, digits, _ or $ (Java LinkBench does not quote database names)", c)
		}
	}
	return nil
}

// quoteIdent quotes a MySQL identifier.
func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// server is what the tool knows of the database server.
type server struct {
	db   *sql.DB
	pid  int // 0 when the server is not on this host
	cfg  *mysql.Config
	host string
	port string
}

func openServer(ctx context.Context, dsn string, needTCP bool) (*server, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, usageErr{fmt.Errorf("-dsn %s: %v", mysqlstore.RedactDSN(dsn), err)}
	}
	if cfg.Passwd == "" {
		// As linkbench-go and the MySQL client: a DSN without a password
		// takes MYSQL_PWD's, which keeps it off paired's command line.
		cfg.Passwd = os.Getenv("MYSQL_PWD")
	}
	var host, port string
	switch {
	case cfg.Net == "tcp":
		if host, port, err = net.SplitHostPort(cfg.Addr); err != nil {
			return nil, usageErr{fmt.Errorf("-dsn %s: %v", mysqlstore.RedactDSN(dsn), err)}
		}
	case needTCP:
		return nil, usageErr{fmt.Errorf("-dsn %s: want a tcp(host:port) address with -java (the Java tool connects over TCP)", mysqlstore.RedactDSN(dsn))}
	case cfg.Net != "unix":
		return nil, usageErr{fmt.Errorf("-dsn %s: want a tcp(host:port) or unix(socket) address", mysqlstore.RedactDSN(dsn))}
	}
	c := cfg.Clone()
	c.DBName = ""
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect %s: %w", mysqlstore.RedactDSN(dsn), err)
	}
	s := &server{db: db, cfg: cfg, host: host, port: port}
	var pidFile string
	if err := db.QueryRowContext(ctx, "SELECT @@pid_file").Scan(&pidFile); err == nil {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				if _, err := os.Stat(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
					s.pid = pid
				}
			}
		}
	}
	return s, nil
}

// cpu returns the server's CPU time (user + system) so far; ok is false
// when the server is not on this host.
func (s *server) cpu() (time.Duration, bool) {
	if s.pid == 0 {
		return 0, false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.pid))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	if len(f) < 13 {
		return 0, false
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * time.Second / clkTck, true
}

// status reads the server's global status counters (SHOW GLOBAL STATUS):
// the statement counters (statusVars and every other Com_*), the counters
// of background writing (Innodb_data_written, Innodb_buffer_pool_pages_*, Rocksdb_*) and of the work per statement
// (workVars); a counter the server does not have (ROCKSDB's without the
// engine) is missing from the map, and so are the non-numeric ones.
func (s *server) status(ctx context.Context) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, "SHOW GLOBAL STATUS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]int64{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			m[k] = n
		}
	}
	return m, rows.Err()
}

// ctxSwitches returns the context switches (voluntary + involuntary) of
// the server's threads so far, summed over /proc/PID/task/*/status; a
// thread that exited takes its count with it. ok is false when the server
// is not on this host.
func (s *server) ctxSwitches() (int64, bool) {
	if s.pid == 0 {
		return 0, false
	}
	dirs, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", s.pid))
	if err != nil {
		return 0, false
	}
	var sum int64
	for _, d := range dirs {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", s.pid, d.Name()))
		if err != nil {
			continue // the thread exited
		}
		sum += ctxSwitchesOf(string(b))
	}
	return sum, true
}

// ctxSwitchesOf sums the voluntary_ctxt_switches and
// nonvoluntary_ctxt_switches lines of a /proc status file.
func ctxSwitchesOf(status string) int64 {
	var sum int64
	for _, l := range strings.Split(status, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if ok && (k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches") {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			sum += n
		}
	}
	return sum
}

// measurement is one phase of one tool.
type measurement struct {
	wall       time.Duration
	user, sys  time.Duration
	maxRSS     int64 // KiB
	serverCPU  time.Duration
	serverCS   int64 // the server threads' context switches
	hasServer  bool
	status     map[string]int64 // deltas
	start, end map[string]int64 // the counters at the start and at the end
	nodes      int64            // load
	links      int64
	counts     int64
	requests   int64   // request
	reportRate float64 // the tool's own rate line
}

var (
	loadRE = regexp.MustCompile(`LOAD PHASE COMPLETED\. Loaded (\d+) nodes \(Expected \d+\), (\d+) links \([^)]*\), (\d+) counts \([^)]*\)\. ([\d.]+) seconds`)
	reqRE  = regexp.MustCompile(`REQUEST PHASE COMPLETED\. (\d+) requests done in (\d+) seconds\. Requests/second = (\d+)`)
)

// runPhase runs one tool's phase as a child process and measures it.
func runPhase(ctx context.Context, s *server, name string, argv []string, env []string, logw io.Writer) (*measurement, error) {
	var (
		st0, st1  map[string]int64
		c0, c1    time.Duration
		x0, x1    int64
		hasServer bool
		err       error
	)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: interrupted", name)
	}
	if s != nil {
		if st0, err = s.status(ctx); err != nil {
			return nil, fmt.Errorf("%s: the server's status before it: %w", name, err)
		}
		c0, hasServer = s.cpu()
		x0, _ = s.ctxSwitches()
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	// Its own process group, stopped whole on cancellation (a signal to
	// paired: SIGINT, SIGTERM, SIGHUP, a closed output): a launcher script's java child goes too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var out strings.Builder
	cmd.Stdout = io.MultiWriter(&out, logw)
	cmd.Stderr = io.MultiWriter(&out, logw)
	t0 := time.Now()
	runErr := cmd.Run()
	wall := time.Since(t0)
	if ctx.Err() != nil {
		// A signal: the status query would fail too.
		return nil, fmt.Errorf("%s: interrupted", name)
	}
	if runErr != nil {
		// The tool's own failure first: the server's status may fail for
		// the same reason (a server that went away).
		return nil, fmt.Errorf("%s: %w: %s (all its output is in the log)", name, runErr, lastLines(out.String(), 3))
	}
	if s != nil {
		c1, _ = s.cpu()
		x1, _ = s.ctxSwitches()
		if st1, err = s.status(ctx); err != nil {
			return nil, fmt.Errorf("%s: the server's status after it: %w", name, err)
		}
	}
	m := &measurement{wall: wall, serverCPU: c1 - c0, serverCS: x1 - x0, hasServer: hasServer, status: map[string]int64{}, start: st0, end: st1}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.user = time.Duration(ru.Utime.Nano())
		m.sys = time.Duration(ru.Stime.Nano())
		m.maxRSS = ru.Maxrss
	}
	for k, v := range st1 {
		m.status[k] = v - st0[k]
	}
	text := out.String()
	if g := loadRE.FindStringSubmatch(text); g != nil {
		m.nodes, _ = strconv.ParseInt(g[1], 10, 64)
		m.links, _ = strconv.ParseInt(g[2], 10, 64)
		m.counts, _ = strconv.ParseInt(g[3], 10, 64)
	}
	if g := reqRE.FindStringSubmatch(text); g != nil {
		m.requests, _ = strconv.ParseInt(g[1], 10, 64)
		m.reportRate, _ = strconv.ParseFloat(g[3], 64)
	}
	// A tool that exits 0 without its phase's result line measured
	// nothing paired can compare (a debuglevel above INFO in the
	// configuration file hides it; a launcher that is not LinkBench's).
	re, line := reqRE, "REQUEST PHASE COMPLETED"
	if argv[len(argv)-1] == "-l" {
		re, line = loadRE, "LOAD PHASE COMPLETED"
	}
	if re.FindStringIndex(text) == nil {
		return nil, fmt.Errorf("%s: exited without its %q line (a debuglevel above INFO hides it; all its output is in the log)", name, line)
	}
	return m, nil
}

// lastLines returns the last n non-empty lines of s, joined by " | ".
func lastLines(s string, n int) string {
	var keep []string
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			keep = append([]string{l}, keep...)
		}
	}
	return strings.Join(keep, " | ")
}

// tool is one side of the pair.
type tool struct {
	name string
	argv func(phase string) []string
	env  []string
}

func run(args []string, stdout io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	// SIGHUP (the terminal closed) and SIGPIPE (paired's output piped into
	// a reader that left) end the run like SIGINT and SIGTERM: the tools
	// stopped, the isolation restored, the private configuration removed.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	defer stop()

	tmp, err := os.MkdirTemp("", "paired-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	lb := o.linkbench
	if lb == "" {
		lb = filepath.Join(tmp, "linkbench")
		build := exec.Command("go", "build", "-o", lb, "./cmd/linkbench")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building linkbench-go (run from the repository's root, or give -linkbench): %w", err)
		}
	}
	if err := checkGoArgs(ctx, lb, o.goArgs); err != nil {
		return err
	}
	var s *server // nil with -generator
	if !o.generator {
		if s, err = openServer(ctx, o.dsn, o.java != ""); err != nil {
			return err
		}
		defer s.db.Close()
	}
	if s != nil && o.skipLoad {
		if err := checkLoaded(ctx, s, o.db+"0"); err != nil {
			return err
		}
	}
	logf, err := os.CreateTemp("", "paired-"+time.Now().Format("20060102-150405")+"-*.log")
	if err != nil {
		return err
	}
	defer logf.Close()
	logPath := logf.Name()
	fmt.Fprintf(stdout, "paired: tool output in %s\n", logPath)
	if s != nil {
		// The tables, once, for both tools.
		if err := createTables(ctx, s, o); err != nil {
			return err
		}
	}
	if s != nil && o.engine == "rocksdb" {
		restore, old, err := readCommitted(ctx, s)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "paired: the server's global isolation is READ COMMITTED for the run (Java LinkBench has no session setting for it); %s is restored at the end, also on SIGINT, SIGTERM or SIGHUP\n", old)
		defer restore()
	}

	common := slices.Concat(graphDefs(o), runDefs(o), o.defs)
	withDefs := func(argv []string, extra ...string) []string {
		for _, d := range slices.Concat(common, extra) {
			argv = append(argv, "-D", d)
		}
		return argv
	}
	var tools []tool
	if s == nil {
		tools = generatorTools(o, lb, withDefs)
	} else if tools, err = pairTools(o, s, tmp, lb, withDefs); err != nil {
		return err
	}
	names := toolNames(tools)
	where := "server CPU: not on this host"
	switch {
	case s == nil:
		where = "the generators alone: Java's " + o.dummy + ", linkbench-go's discard store"
	case s.pid != 0:
		where = fmt.Sprintf("server pid %d", s.pid)
	}
	if s == nil {
		fmt.Fprintf(stdout, "paired: generator graph=%s maxid1=%d requesters=%d maxtime=%v pairs=%d (%s)\n",
			o.graph, o.maxid1, o.requesters, o.maxtime, o.pairs, where)
	} else {
		fmt.Fprintf(stdout, "paired: engine=%s graph=%s maxid1=%d loaders=%d requesters=%d maxtime=%v pairs=%d settle=%v (%s)\n",
			o.engine, o.graph, o.maxid1, o.loaders, o.requesters, o.maxtime, o.pairs, o.settle, where)
	}

	truncate := func() error {
		for _, tbl := range []string{"linktable", "counttable", "nodetable"} {
			if _, err := s.db.ExecContext(ctx, "TRUNCATE TABLE "+quoteIdent(o.db+"0")+"."+tbl); err != nil {
				return err
			}
		}
		return nil
	}
	// phase settles the server, then runs one tool's phase (-l or -r),
	// under strace -f -c writing to straceOut when that is not empty.
	phase := func(label string, t tool, ph, straceOut string) (*measurement, error) {
		if err := settle(ctx, s, o.settle, stdout, label); err != nil {
			return nil, err
		}
		fl := "-r"
		if ph == "load" {
			fl = "-l"
		}
		argv := append(t.argv(ph), fl)
		if straceOut != "" {
			argv = append([]string{o.strace, "-f", "-c", "-o", straceOut, "--"}, argv...)
		}
		fmt.Fprintf(stdout, "%s ...\n", label)
		pw := ""
		if s != nil {
			pw = s.cfg.Passwd
		}
		fmt.Fprintf(logf, "\n=== %s: %s\n", label, redactArgs(argv, pw))
		m, err := runPhase(ctx, s, label, argv, t.env, logf)
		if err == nil && ph == "load" && o.engine == "rocksdb" {
			// What the load left in ROCKSDB's memtables is flushed now,
			// and waited for by the next settle, not during a measured
			// request phase.
			if _, err := s.db.ExecContext(ctx, "SET GLOBAL rocksdb_force_flush_memtable_now=1"); err != nil {
				return nil, fmt.Errorf("%s: flushing ROCKSDB's memtables after the load: %w", label, err)
			}
			fmt.Fprintf(stdout, "%s: ROCKSDB's memtables flushed (rocksdb_force_flush_memtable_now)\n", label)
		}
		return m, err
	}

	if o.loadWith != "" {
		// Load once, with one tool; the pairs run on what it loaded.
		var loader tool
		for _, t := range tools {
			if t.name == o.loadWith {
				loader = t
			}
		}
		if err := truncate(); err != nil {
			return err
		}
		load, err := phase(loader.name+" load (once, for every pair)", loader, "load", "")
		if err != nil {
			return err
		}
		printTable(stdout, "load by "+loader.name, []string{loader.name}, result{loader.name: {load, nil}})
	}

	results := make([]result, 0, o.pairs)
	for p := range o.pairs {
		order := pairOrder(p, tools)
		res := result{}
		for _, t := range order {
			var load *measurement
			if o.loadEach {
				if err := truncate(); err != nil {
					return err
				}
				if load, err = phase(fmt.Sprintf("pair %d: %s load", p+1, t.name), t, "load", ""); err != nil {
					return err
				}
			}
			req, err := phase(fmt.Sprintf("pair %d: %s request", p+1, t.name), t, "request", "")
			if err != nil {
				return err
			}
			res[t.name] = [2]*measurement{load, req}
		}
		results = append(results, res)
		printTable(stdout, fmt.Sprintf("pair %d (%s)", p+1, joinThen(toolNames(order))), names, res)
	}
	if o.pairs > 1 {
		printMedians(stdout, names, results)
	}
	if o.syscalls {
		return syscallPair(ctx, stdout, logPath, tools, phase)
	}
	return nil
}

// createTables creates the database -db's prefix followed by 0 and
// LinkBench's tables in it when they are missing, connecting as -dsn says
// with -dsn's password, or MYSQL_PWD's when -dsn has none (s.cfg).
func createTables(ctx context.Context, s *server, o *options) error {
	st, err := mysqlstore.Open(ctx, mysqlstore.Options{DSN: s.cfg.FormatDSN(), DBPrefix: o.db, Engine: engineOf(o.engine)})
	if err != nil {
		return err
	}
	defer st.Close()
	return st.CreateSchema(ctx, "", mysqlstore.SchemaOptions{IfNotExists: true})
}

// pairOrder returns the order of the tools' runs in pair p (from 0): the
// tools' own order (java, go) in the first pair, reversed in the second,
// and so on alternately.
func pairOrder(p int, tools []tool) []tool {
	if p%2 == 0 || len(tools) < 2 {
		return tools
	}
	r := make([]tool, len(tools))
	for i, t := range tools {
		r[len(tools)-1-i] = t
	}
	return r
}

// syscallPair runs the extra pair of -syscalls: each tool's request phase
// under strace -f -c (its summary kept beside the log, logPath), then the
// system calls per request of both.
func syscallPair(ctx context.Context, w io.Writer, logPath string, tools []tool,
	phase func(label string, t tool, ph, straceOut string) (*measurement, error)) error {
	base := strings.TrimSuffix(logPath, ".log")
	var (
		counts   []map[string]syscallCount
		requests []int64
		tps      []float64
	)
	fmt.Fprintln(w, "\nsyscalls: an extra pair under strace -f -c, after the measured pairs; strace slows each tool down unequally, so its timings are not measurements and are not compared")
	for _, t := range tools {
		out := base + "-" + t.name + ".strace"
		m, err := phase("syscalls: "+t.name+" request under strace", t, "request", out)
		if err != nil {
			return err
		}
		f, err := os.Open(out)
		if err != nil {
			return err
		}
		c, err := parseStrace(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", out, err)
		}
		if m.requests == 0 {
			return fmt.Errorf("syscalls: %s made no requests under strace (its output is in the log)", t.name)
		}
		fmt.Fprintf(w, "syscalls: %s's strace summary in %s\n", t.name, out)
		counts, requests, tps = append(counts, c), append(requests, m.requests), append(tps, m.reportRate)
	}
	fmt.Fprintln(w)
	printSyscalls(w, toolNames(tools), counts, requests, tps)
	return nil
}

// pairTools returns the pair's tools: Java's (when -java is given) and
// linkbench-go's (the binary lb), their argument lists built by withDefs.
// Both connect with the same credentials, -dsn's: its user and address
// as arguments, its password never on a command line (ps shows those):
// when the configuration file is given, both tools read a private copy of
// the file with -dsn's password appended (empty when -dsn has none), so
// that it wins over a password the file already holds (the copy, in tmp,
// readable by this user only); linkbench-go also gets it in MYSQL_PWD,
// which it reads when the file gives none.
func pairTools(o *options, s *server, tmp, lb string, withDefs func(argv []string, extra ...string) []string) ([]tool, error) {
	config := o.config
	if o.config != "" {
		var err error
		if config, err = privateConfig(tmp, o.config, s.cfg.Passwd); err != nil {
			return nil, err
		}
	}
	var tools []tool
	if o.java != "" {
		javaConfig := config // with -java, parse gave -config a default
		javaDefs := []string{"host=" + s.host, "port=" + s.port, "user=" + s.cfg.User}
		tools = append(tools, tool{name: "java", argv: func(phase string) []string {
			return withDefs([]string{o.java, "-c", javaConfig}, javaDefs...)
		}})
	}
	goDSN := s.cfg.Clone()
	goDSN.Passwd = ""
	goBase := []string{lb, "-store", "mysql", "-dsn", goDSN.FormatDSN()}
	if config != "" {
		goBase = append(goBase, "-c", config)
	}
	goBase = append(goBase, strings.Fields(o.goArgs)...)
	// MYSQL_PWD: -dsn's password (MYSQL_PWD's when -dsn has none), even
	// an empty one.
	goEnv := []string{"MYSQL_PWD=" + s.cfg.Passwd}
	if o.config != "" && os.Getenv("LINKBENCH_HOME") == "" {
		// LinkBench resolves the config's relative paths (workload_file,
		// data_file) under its home: the directory holding config/.
		goEnv = append(goEnv, "LINKBENCH_HOME="+guessedHome(o.config))
	}
	tools = append(tools, tool{name: "go", env: goEnv, argv: func(string) []string {
		return withDefs(append([]string(nil), goBase...), "engine="+o.engine)
	}})
	return tools, nil
}

// checkGoArgs runs linkbench-go (lb) with -go-args and -h: an unknown
// flag or a value that does not parse exits 2 there, before paired
// touches the server.
func checkGoArgs(ctx context.Context, lb, goArgs string) error {
	if strings.TrimSpace(goArgs) == "" {
		return nil
	}
	out, err := exec.CommandContext(ctx, lb, append(strings.Fields(goArgs), "-h")...).CombinedOutput()
	if err != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		return usageErr{fmt.Errorf("-go-args %q: %s", goArgs, first)}
	}
	return nil
}

// checkLoaded refuses -skip-load on a database without loaded tables:
// the request phases would run on what they write themselves.
func checkLoaded(ctx context.Context, s *server, db string) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// In READ COMMITTED, whatever the server's global isolation: MyRocks
	// refuses a read in another (error 4057), and paired sets the global
	// isolation for -engine rocksdb only after this check.
	if _, err := conn.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"); err != nil {
		return err
	}
	var one int
	err = conn.QueryRowContext(ctx, "SELECT 1 FROM "+quoteIdent(db)+".nodetable LIMIT 1").Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return usageErr{fmt.Errorf("-skip-load: %s.nodetable is empty: load the tables first (run paired without -skip-load)", db)}
	case err != nil:
		return usageErr{fmt.Errorf("-skip-load: no loaded tables in %s (%v): load them first (run paired without -skip-load)", db, err)}
	}
	return nil
}

// generatorTools returns the tools of -generator: Java LinkBench with
// o.dummy as its link and node store (when -java is given) and
// linkbench-go with its discard store, both with the configuration file
// when one is given; no server is involved.
func generatorTools(o *options, lb string, withDefs func(argv []string, extra ...string) []string) []tool {
	var tools []tool
	if o.java != "" {
		tools = append(tools, tool{name: "java", argv: func(string) []string {
			return withDefs([]string{o.java, "-c", o.config}, "linkstore="+o.dummy, "nodestore="+o.dummy)
		}})
	}
	goBase := []string{lb, "-store", "discard"}
	if o.config != "" {
		goBase = append(goBase, "-c", o.config)
	}
	goBase = append(goBase, strings.Fields(o.goArgs)...)
	var goEnv []string
	if o.config != "" && os.Getenv("LINKBENCH_HOME") == "" {
		goEnv = append(goEnv, "LINKBENCH_HOME="+guessedHome(o.config))
	}
	tools = append(tools, tool{name: "go", env: goEnv, argv: func(string) []string {
		return withDefs(append([]string(nil), goBase...))
	}})
	return tools
}

// privateConfig writes a copy of the configuration file config with the
// password appended, readable by this user only, into dir.
func privateConfig(dir, config, password string) (string, error) {
	b, err := os.ReadFile(config)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "java-config.properties")
	b = append(b, "\npassword="+escapeProperty(password)+"\n"...)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		return "", err
	}
	return p, nil
}

// escapeProperty escapes a value for a Java .properties file, which Java
// reads as ISO-8859-1: every character outside printable ASCII is written
// as \uXXXX (UTF-16 code units, a surrogate pair above U+FFFF), so that a
// UTF-8 password reaches Java as the same characters.
func escapeProperty(v string) string {
	var b strings.Builder
	for i, c := range v {
		switch {
		case c == '\\' || c == '#' || c == '!' || c == '=' || c == ':':
			b.WriteByte('\\')
		case c == ' ' && i == 0:
			b.WriteByte('\\')
		case c < 0x20 || c > 0x7e:
			for _, u := range utf16.Encode([]rune{c}) {
				fmt.Fprintf(&b, "\\u%04x", u)
			}
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func engineOf(e string) mysqlstore.Engine {
	if e == "rocksdb" {
		return mysqlstore.RocksDB
	}
	return mysqlstore.InnoDB
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// readCommitted sets the server's default isolation to READ COMMITTED for
// the run and returns what restores it and the level it restores.
func readCommitted(ctx context.Context, s *server) (func(), string, error) {
	var old string
	if err := s.db.QueryRowContext(ctx, "SELECT @@GLOBAL.tx_isolation").Scan(&old); err != nil {
		if err := s.db.QueryRowContext(ctx, "SELECT @@GLOBAL.transaction_isolation").Scan(&old); err != nil {
			return nil, "", err
		}
	}
	if _, err := s.db.ExecContext(ctx, "SET GLOBAL TRANSACTION ISOLATION LEVEL READ COMMITTED"); err != nil {
		return nil, "", fmt.Errorf("-engine rocksdb: setting the server's isolation to READ COMMITTED: %w", err)
	}
	level := strings.ReplaceAll(old, "-", " ")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = s.db.ExecContext(ctx, "SET GLOBAL TRANSACTION ISOLATION LEVEL "+level)
	}, old, nil
}

func redactArgs(argv []string, pw string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		switch {
		case strings.HasPrefix(a, "password="):
			a = "password=*****"
		case strings.Contains(a, "@tcp(") || strings.Contains(a, "@unix("):
			a = mysqlstore.RedactDSN(a)
		case pw != "" && strings.Contains(a, pw):
			a = strings.ReplaceAll(a, pw, "*****")
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
