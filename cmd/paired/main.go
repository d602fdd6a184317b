// Command paired measures linkbench-go side by side with Java LinkBench
// against one MySQL-protocol server: the same configuration, the same
// tables (created once, truncated before each load), one tool after the
// other. For each tool it runs the load phase (-l) and the request phase
// (-r) as child processes and prints, side by side with their ratio:
//
//   - load: rows/s (nodes + links + counts per second) and the client's CPU
//     per loaded link;
//   - request: requests/s, the client's CPU per request (user + system,
//     the whole process: start-up, connecting and for Java the JIT
//     included), the server's CPU per request (when the server runs on
//     this host: its pid from @@pid_file, its CPU from /proc), the
//     statements per request the server counted (SHOW GLOBAL STATUS
//     deltas), and the client's peak RSS.
//
// It never contains, builds or fetches Java code: -java names a launcher
// of a Java LinkBench built elsewhere (a script or binary that runs
// LinkBench's driver and passes its arguments through, such as one that
// execs `java ... com.facebook.LinkBench.LinkBenchDriver "$@"`). Without
// -java it measures linkbench-go alone.
//
// Usage (from the repository's root):
//
//	go run ./bench/paired -dsn 'user:pw@tcp(127.0.0.1:3306)/' [-java /path/to/linkbench-java]
//	    [-config LinkConfigMysql.properties] [-engine innodb|rocksdb] [-maxid1 200001]
//	    [-loaders 2] [-requesters 16] [-maxtime 60s] [-pairs 1] [-skip-load] [-D key=value]...
//
// The server must be one the tools may write to: the database dbprefix0
// (-db, default linkdb0) is created if missing and its three tables are
// truncated before each load. Java's MariaDB Connector/J needs the server
// started with character-set-server=latin1 and
// skip-character-set-client-handshake for binary payloads. The password is
// never printed.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/store/mysqlstore"
)

// statusVars are the server's statement counters reported per request.
var statusVars = []string{"Com_begin", "Com_commit", "Com_rollback", "Com_stmt_execute", "Com_stmt_prepare",
	"Com_select", "Com_insert", "Com_update", "Com_delete", "Questions"}

// clkTck is the kernel's USER_HZ, the unit of /proc/PID/stat's CPU times
// (100 on every Linux ABI Go supports).
const clkTck = 100

type defs []string

func (d *defs) String() string     { return strings.Join(*d, " ") }
func (d *defs) Set(s string) error { *d = append(*d, s); return nil }

type options struct {
	dsn, java, config, linkbench, engine, db string
	maxid1                                   int64
	loaders, requesters, pairs               int
	maxtime                                  time.Duration
	skipLoad                                 bool
	defs                                     defs
	goArgs                                   string
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "paired:", err)
		var ue usageErr
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageErr struct{ error }

func parse(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("paired", flag.ContinueOnError)
	fs.StringVar(&o.dsn, "dsn", "", "go-sql-driver `DSN` of the server, e.g. user:pw@tcp(127.0.0.1:3306)/ (required)")
	fs.StringVar(&o.java, "java", "", "`path` of a Java LinkBench launcher (built outside this repository); empty: linkbench-go alone")
	fs.StringVar(&o.config, "config", "", "LinkBench .properties `file` for both tools (default: config/LinkConfigMysql.properties beside the Java launcher; without -java, the shipped workload)")
	fs.StringVar(&o.linkbench, "linkbench", "", "`path` of the linkbench-go binary (default: built from ./cmd/linkbench)")
	fs.StringVar(&o.engine, "engine", "innodb", "table engine: innodb or rocksdb (rocksdb: both tools run in READ COMMITTED, as MyRocks runs do)")
	fs.StringVar(&o.db, "db", "lbpaired", "dbprefix: the tools use the database `prefix`0 (its tables are truncated before each load)")
	fs.Int64Var(&o.maxid1, "maxid1", 200001, "maxid1 of the graph")
	fs.IntVar(&o.loaders, "loaders", 2, "loaders")
	fs.IntVar(&o.requesters, "requesters", 16, "requesters")
	fs.DurationVar(&o.maxtime, "maxtime", 60*time.Second, "length of each request phase (whole seconds)")
	fs.IntVar(&o.pairs, "pairs", 1, "how many times to measure both tools (the order alternates)")
	fs.BoolVar(&o.skipLoad, "skip-load", false, "run the request phases on the tables as they are (no truncation, no load)")
	fs.Var(&o.defs, "D", "extra configuration `key=value` for both tools (repeatable)")
	fs.StringVar(&o.goArgs, "go-args", "", "extra `flags` for linkbench-go only, space-separated (e.g. -gomaxprocs 2)")
	if err := fs.Parse(args); err != nil {
		return nil, usageErr{err}
	}
	switch {
	case fs.NArg() > 0:
		return nil, usageErr{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	case o.dsn == "":
		return nil, usageErr{errors.New("-dsn is required")}
	case o.engine != "innodb" && o.engine != "rocksdb":
		return nil, usageErr{fmt.Errorf("-engine %q: want innodb or rocksdb", o.engine)}
	case o.maxid1 < 2 || o.loaders < 1 || o.requesters < 1 || o.pairs < 1:
		return nil, usageErr{errors.New("-maxid1 >= 2, -loaders, -requesters and -pairs >= 1")}
	case o.maxtime < time.Second || o.maxtime%time.Second != 0:
		return nil, usageErr{fmt.Errorf("-maxtime %v: want whole seconds >= 1s", o.maxtime)}
	}
	if o.java != "" && o.config == "" {
		o.config = filepath.Join(filepath.Dir(o.java), "config", "LinkConfigMysql.properties")
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
	cfg := linkbench.DefaultConfig()
	for _, d := range o.defs {
		k, v, ok := strings.Cut(d, "=")
		if !ok {
			return nil, usageErr{fmt.Errorf("-D %q: want key=value", d)}
		}
		if err := cfg.Set(strings.TrimSpace(k), strings.TrimSpace(v)); err != nil {
			return nil, usageErr{fmt.Errorf("-D %s: %w", d, err)}
		}
	}
	if err := checkIdent(o.db); err != nil {
		return nil, usageErr{fmt.Errorf("-db %q: %v", o.db, err)}
	}
	return o, nil
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

func openServer(ctx context.Context, dsn string) (*server, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, usageErr{fmt.Errorf("-dsn %s: %v", mysqlstore.RedactDSN(dsn), err)}
	}
	if cfg.Net != "tcp" {
		return nil, usageErr{fmt.Errorf("-dsn %s: want a tcp(host:port) address (the Java tool connects over TCP)", mysqlstore.RedactDSN(dsn))}
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, usageErr{fmt.Errorf("-dsn %s: %v", mysqlstore.RedactDSN(dsn), err)}
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

func (s *server) status(ctx context.Context) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(statusVars, "','")+"')")
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
		n, _ := strconv.ParseInt(v, 10, 64)
		m[k] = n
	}
	return m, rows.Err()
}

// measurement is one phase of one tool.
type measurement struct {
	wall       time.Duration
	user, sys  time.Duration
	maxRSS     int64 // KiB
	serverCPU  time.Duration
	hasServer  bool
	status     map[string]int64 // deltas
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
	st0, err := s.status(ctx)
	if err != nil {
		return nil, err
	}
	c0, hasServer := s.cpu()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	// Its own process group, stopped whole on cancellation (SIGINT or
	// SIGTERM to paired): a launcher script's java child goes too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var out strings.Builder
	cmd.Stdout = io.MultiWriter(&out, logw)
	cmd.Stderr = io.MultiWriter(&out, logw)
	t0 := time.Now()
	runErr := cmd.Run()
	wall := time.Since(t0)
	c1, _ := s.cpu()
	st1, err := s.status(ctx)
	if err != nil {
		return nil, err
	}
	if runErr != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: interrupted", name)
		}
		return nil, fmt.Errorf("%s: %w: %s (all its output is in the log)", name, runErr, lastLines(out.String(), 3))
	}
	m := &measurement{wall: wall, serverCPU: c1 - c0, hasServer: hasServer, status: map[string]int64{}}
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := openServer(ctx, o.dsn)
	if err != nil {
		return err
	}
	defer s.db.Close()

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
	logf, err := os.CreateTemp("", "paired-"+time.Now().Format("20060102-150405")+"-*.log")
	if err != nil {
		return err
	}
	defer logf.Close()
	logPath := logf.Name()
	fmt.Fprintf(stdout, "paired: tool output in %s\n", logPath)

	// The tables, once, for both tools.
	st, err := mysqlstore.Open(ctx, mysqlstore.Options{DSN: o.dsn, DBPrefix: o.db, Engine: engineOf(o.engine)})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.CreateSchema(ctx, "", mysqlstore.SchemaOptions{IfNotExists: true}); err != nil {
		return err
	}
	if o.engine == "rocksdb" {
		restore, old, err := readCommitted(ctx, s)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "paired: the server's global isolation is READ COMMITTED for the run (Java LinkBench has no session setting for it); %s is restored at the end, also on SIGINT or SIGTERM\n", old)
		defer restore()
	}

	common := []string{
		"maxid1=" + strconv.FormatInt(o.maxid1, 10),
		"loaders=" + strconv.Itoa(o.loaders),
		"requesters=" + strconv.Itoa(o.requesters),
		"maxtime=" + strconv.Itoa(int(o.maxtime/time.Second)),
		"requests=1000000000",
		"dbprefix=" + o.db,
		"dbcount=1",
	}
	common = append(common, o.defs...)
	withDefs := func(argv []string, extra ...string) []string {
		for _, d := range append(common, extra...) {
			argv = append(argv, "-D", d)
		}
		return argv
	}
	tools, err := pairTools(o, s, tmp, lb, withDefs)
	if err != nil {
		return err
	}

	results := make([]map[string][2]*measurement, 0, o.pairs) // per pair: tool -> load, request
	for p := range o.pairs {
		order := tools
		if p%2 == 1 && len(tools) == 2 {
			order = []tool{tools[1], tools[0]}
		}
		res := map[string][2]*measurement{}
		for _, t := range order {
			var load *measurement
			if !o.skipLoad {
				for _, tbl := range []string{"linktable", "counttable", "nodetable"} {
					if _, err := s.db.ExecContext(ctx, "TRUNCATE TABLE "+quoteIdent(o.db+"0")+"."+tbl); err != nil {
						return err
					}
				}
				fmt.Fprintf(stdout, "pair %d: %s load ...\n", p+1, t.name)
				fmt.Fprintf(logf, "\n=== pair %d %s load: %s\n", p+1, t.name, redactArgs(t.argv("load"), s.cfg.Passwd))
				if load, err = runPhase(ctx, s, t.name+" load", append(t.argv("load"), "-l"), t.env, logf); err != nil {
					return err
				}
			}
			fmt.Fprintf(stdout, "pair %d: %s request ...\n", p+1, t.name)
			fmt.Fprintf(logf, "\n=== pair %d %s request: %s\n", p+1, t.name, redactArgs(t.argv("request"), s.cfg.Passwd))
			req, err := runPhase(ctx, s, t.name+" request", append(t.argv("request"), "-r"), t.env, logf)
			if err != nil {
				return err
			}
			res[t.name] = [2]*measurement{load, req}
		}
		results = append(results, res)
		printPair(stdout, fmt.Sprintf("pair %d", p+1), o, s, res, len(tools) == 2)
	}
	if o.pairs > 1 && len(tools) == 2 {
		printMedians(stdout, results)
	}
	return nil
}

// pairTools returns the pair's tools: Java's (when -java is given) and
// linkbench-go's (the binary lb), their argument lists built by withDefs.
// Both connect with the same credentials, -dsn's: its user and address
// as arguments, its password never on a command line (ps shows those):
// when the configuration file is given and -dsn has a password, both
// tools read a private copy of the file with that password appended, so
// that it wins over a password the file already holds (today's copy, in
// tmp, readable by this user only); without a file linkbench-go takes it
// from MYSQL_PWD.
func pairTools(o *options, s *server, tmp, lb string, withDefs func(argv []string, extra ...string) []string) ([]tool, error) {
	config := o.config
	if s.cfg.Passwd != "" && o.config != "" {
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
	var goEnv []string
	if s.cfg.Passwd != "" {
		goEnv = append(goEnv, "MYSQL_PWD="+s.cfg.Passwd)
	}
	if o.config != "" && os.Getenv("LINKBENCH_HOME") == "" {
		// LinkBench resolves the config's relative paths (workload_file,
		// data_file) under its home: the directory holding config/.
		goEnv = append(goEnv, "LINKBENCH_HOME="+filepath.Dir(filepath.Dir(absPath(o.config))))
	}
	tools = append(tools, tool{name: "go", env: goEnv, argv: func(string) []string {
		return withDefs(append([]string(nil), goBase...), "engine="+o.engine)
	}})
	return tools, nil
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

// escapeProperty escapes a value for a Java .properties file.
func escapeProperty(v string) string {
	var b strings.Builder
	for i, c := range v {
		switch {
		case c == '\\' || c == '#' || c == '!' || c == '=' || c == ':':
			b.WriteByte('\\')
		case c == ' ' && i == 0:
			b.WriteByte('\\')
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

// row is one line of the side-by-side table.
type row struct {
	name string
	val  func(load, req *measurement) (float64, bool)
	prec int
}

func perReq(m *measurement, d time.Duration) (float64, bool) {
	if m == nil || m.requests == 0 {
		return 0, false
	}
	return float64(d) / 1e3 / float64(m.requests), true
}

func rows(statusNames []string) []row {
	r := []row{
		{"load rows/s", func(l, _ *measurement) (float64, bool) {
			if l == nil || l.wall == 0 {
				return 0, false
			}
			return float64(l.nodes+l.links+l.counts) / l.wall.Seconds(), true
		}, 0},
		{"load links", func(l, _ *measurement) (float64, bool) {
			if l == nil {
				return 0, false
			}
			return float64(l.links), true
		}, 0},
		{"load wall s", func(l, _ *measurement) (float64, bool) {
			if l == nil {
				return 0, false
			}
			return l.wall.Seconds(), true
		}, 1},
		{"load client us/link", func(l, _ *measurement) (float64, bool) {
			if l == nil || l.links == 0 {
				return 0, false
			}
			return float64(l.user+l.sys) / 1e3 / float64(l.links), true
		}, 2},
		{"load server us/row", func(l, _ *measurement) (float64, bool) {
			if l == nil || !l.hasServer || l.nodes+l.links+l.counts == 0 {
				return 0, false
			}
			return float64(l.serverCPU) / 1e3 / float64(l.nodes+l.links+l.counts), true
		}, 2},
		{"load client peak RSS MiB", func(l, _ *measurement) (float64, bool) {
			if l == nil {
				return 0, false
			}
			return float64(l.maxRSS) / 1024, true
		}, 0},
		{"request tps", func(_, q *measurement) (float64, bool) { return q.reportRate, q.requests > 0 }, 0},
		{"request client us/req", func(_, q *measurement) (float64, bool) { return perReq(q, q.user+q.sys) }, 1},
		{"  user", func(_, q *measurement) (float64, bool) { return perReq(q, q.user) }, 1},
		{"  system", func(_, q *measurement) (float64, bool) { return perReq(q, q.sys) }, 1},
		{"request server us/req", func(_, q *measurement) (float64, bool) {
			if !q.hasServer {
				return 0, false
			}
			return perReq(q, q.serverCPU)
		}, 1},
		{"request client peak RSS MiB", func(_, q *measurement) (float64, bool) { return float64(q.maxRSS) / 1024, true }, 0},
	}
	for _, n := range statusNames {
		r = append(r, row{"stmts/req " + n, func(_, q *measurement) (float64, bool) {
			if q.requests == 0 {
				return 0, false
			}
			return float64(q.status[n]) / float64(q.requests), true
		}, 3})
	}
	return r
}

func printPair(w io.Writer, title string, o *options, s *server, res map[string][2]*measurement, both bool) {
	where := "server CPU: not on this host"
	if s.pid != 0 {
		where = fmt.Sprintf("server pid %d", s.pid)
	}
	fmt.Fprintf(w, "\n%s: engine=%s maxid1=%d loaders=%d requesters=%d maxtime=%v (%s)\n",
		title, o.engine, o.maxid1, o.loaders, o.requesters, o.maxtime, where)
	if both {
		fmt.Fprintf(w, "%-30s %12s %12s %9s\n", "", "java", "go", "go/java")
	} else {
		fmt.Fprintf(w, "%-30s %12s\n", "", "go")
	}
	for _, r := range rows(statusVars) {
		g, gok := r.val(res["go"][0], res["go"][1])
		if !both {
			if gok {
				fmt.Fprintf(w, "%-30s %12s\n", r.name, strconv.FormatFloat(g, 'f', r.prec, 64))
			}
			continue
		}
		j, jok := r.val(res["java"][0], res["java"][1])
		if !gok && !jok {
			continue
		}
		cell := func(v float64, ok bool) string {
			if !ok {
				return "-"
			}
			return strconv.FormatFloat(v, 'f', r.prec, 64)
		}
		ratio := "-"
		if gok && jok && j != 0 {
			ratio = strconv.FormatFloat(g/j, 'f', 2, 64)
		}
		fmt.Fprintf(w, "%-30s %12s %12s %9s\n", r.name, cell(j, jok), cell(g, gok), ratio)
	}
}

func printMedians(w io.Writer, results []map[string][2]*measurement) {
	fmt.Fprintf(w, "\n%-30s %12s %12s %9s\n", fmt.Sprintf("median over %d pairs", len(results)), "java", "go", "go/java")
	for _, r := range rows(statusVars) {
		var js, gs, rs []float64
		for _, res := range results {
			j, jok := r.val(res["java"][0], res["java"][1])
			g, gok := r.val(res["go"][0], res["go"][1])
			if jok && gok {
				js, gs = append(js, j), append(gs, g)
				if j != 0 {
					rs = append(rs, g/j)
				}
			}
		}
		if len(js) == 0 {
			continue
		}
		ratio := "-"
		if len(rs) > 0 {
			ratio = strconv.FormatFloat(median(rs), 'f', 2, 64)
		}
		fmt.Fprintf(w, "%-30s %12s %12s %9s\n", r.name, strconv.FormatFloat(median(js), 'f', r.prec, 64),
			strconv.FormatFloat(median(gs), 'f', r.prec, 64), ratio)
	}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
