package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// binaries are the MariaDB programs the tool runs.
type binaries struct {
	mariadbd  string // the server
	installDB string // mariadb-install-db
	rocksdb   string // path of ha_rocksdb.so; "" when the plugin is not installed
	user      string // the OS user the servers run as (--user)
}

// findBinaries locates mariadbd and mariadb-install-db (PATH, then the
// Debian locations; mariadbd, if set, names the server) and the ROCKSDB
// plugin.
func findBinaries(mariadbd string) (binaries, error) {
	var b binaries
	look := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
		}
		return ""
	}
	if mariadbd != "" {
		b.mariadbd = look(mariadbd)
		if b.mariadbd == "" {
			return b, fmt.Errorf("-mariadbd %q: not found", mariadbd)
		}
	} else if b.mariadbd = look("mariadbd", "/usr/sbin/mariadbd", "/usr/local/sbin/mariadbd"); b.mariadbd == "" {
		return b, errors.New("mariadbd not found (install mariadb-server, or name it with -mariadbd)")
	}
	dir := filepath.Dir(b.mariadbd)
	b.installDB = look(filepath.Join(dir, "mariadb-install-db"), filepath.Join(filepath.Dir(dir), "bin", "mariadb-install-db"), "mariadb-install-db")
	if b.installDB == "" {
		return b, errors.New("mariadb-install-db not found (install mariadb-server)")
	}
	for _, d := range []string{"/usr/lib/mysql/plugin", "/usr/lib/mariadb/plugin", "/usr/lib64/mysql/plugin", "/usr/local/mysql/lib/plugin"} {
		if _, err := os.Stat(filepath.Join(d, "ha_rocksdb.so")); err == nil {
			b.rocksdb = filepath.Join(d, "ha_rocksdb.so")
			break
		}
	}
	u, err := user.Current()
	if err != nil {
		return b, fmt.Errorf("current user: %w", err)
	}
	b.user = u.Username
	return b, nil
}

// server is one running mariadbd of the tool: its own directory (datadir,
// socket, pid file, error log) under the run's temporary directory, a
// loopback port, and a connection pool over its socket as root.
type server struct {
	name string // "master" or "replica", for messages
	dir  string
	port int
	bin  string   // mariadbd
	args []string // its command line (a restart reuses it)
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	db   *sql.DB
	vars map[string]string // the checked variables, as the server showed them
}

// socket is the server's Unix socket.
func (s *server) socket() string { return filepath.Join(s.dir, "mysqld.sock") }

// dsn is a go-sql-driver DSN for root over the socket.
func (s *server) dsn() string { return "root@unix(" + s.socket() + ")/" }

// installTemplate runs mariadb-install-db once into dir: every server of the
// run starts from a copy of it (a copy takes milliseconds, an install
// seconds).
func installTemplate(ctx context.Context, b binaries, dir string) error {
	cmd := exec.CommandContext(ctx, b.installDB, "--no-defaults", "--user="+b.user, "--datadir="+dir,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// Cancelled, the script and the mariadbd --bootstrap it runs go
	// together: they are a process group of their own.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("mariadb-install-db: %w\n%s", err, tail(string(out), 20))
	}
	return nil
}

// copyDir copies the regular files and directories of src into dst.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o660)
	})
}

// freePort returns a TCP port on 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startServer copies the template into dir/data and starts mariadbd there
// with --no-defaults, the tool's own socket, pid file and error log, a free
// loopback port, the ROCKSDB plugin loaded at start (when installed; never
// INSTALL SONAME at run time, which crashes MariaDB 10.11.19) and the
// options opts. It waits until the server answers. On error nothing is left
// running.
func startServer(ctx context.Context, b binaries, name, dir, template string, opts []string) (*server, error) {
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o700); err != nil {
		return nil, err
	}
	if err := copyDir(template, filepath.Join(dir, "data")); err != nil {
		return nil, fmt.Errorf("%s: copy the datadir: %w", name, err)
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s := &server{name: name, dir: dir, port: port}
		args := []string{
			"--no-defaults",
			"--user=" + b.user,
			"--datadir=" + filepath.Join(dir, "data"),
			"--tmpdir=" + filepath.Join(dir, "tmp"),
			"--socket=" + s.socket(),
			"--pid-file=" + filepath.Join(dir, "mysqld.pid"),
			"--log-error=" + filepath.Join(dir, "error.log"),
			"--port=" + strconv.Itoa(port),
			"--bind-address=127.0.0.1",
			"--skip-name-resolve",
			"--max-connections=200",
		}
		if b.rocksdb != "" {
			args = append(args, "--plugin-load-add="+filepath.Base(b.rocksdb), "--plugin-dir="+filepath.Dir(b.rocksdb))
		}
		s.bin, s.args = b.mariadbd, append(args, opts...)
		if err := s.launch(); err != nil {
			return nil, fmt.Errorf("%s: start mariadbd: %w", name, err)
		}
		err = s.waitReady(ctx)
		if err == nil {
			return s, nil
		}
		s.stop()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		lastErr = err
		log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		if !strings.Contains(string(log), "Address already in use") {
			break
		}
		_ = os.Remove(filepath.Join(dir, "error.log"))
	}
	return nil, lastErr
}

// launch starts mariadbd with the server's command line, in a process
// group of its own (a Ctrl-C at the terminal reaches the tool, which stops
// the server itself) and with Pdeathsig (a killed tool takes its servers
// with it); done is closed when it exits.
func (s *server) launch() error {
	cmd, done := exec.Command(s.bin, s.args...), make(chan struct{})
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.done = cmd, done
	go func() { _ = cmd.Wait(); close(done) }()
	return nil
}

// kill crashes the server: SIGKILL to mariadbd (nothing flushed, no
// shutdown work), then waits for it to exit.
func (s *server) kill() {
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
	_ = s.cmd.Process.Kill()
	<-s.done
}

// restart starts mariadbd again on the same datadir, port and options
// (after kill: crash recovery) and waits until it answers. On error
// nothing is left running.
func (s *server) restart(ctx context.Context) error {
	if err := s.launch(); err != nil {
		return fmt.Errorf("%s: restart mariadbd: %w", s.name, err)
	}
	if err := s.waitReady(ctx); err != nil {
		s.stop()
		return err
	}
	return nil
}

// waitReady waits until the server accepts a connection on its socket, for
// at most two minutes.
func (s *server) waitReady(ctx context.Context) error {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", s.socket()
	cfg.Timeout = 2 * time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if err := db.PingContext(ctx); err == nil {
			s.db = db
			return nil
		}
		select {
		case <-s.done:
			db.Close()
			log, _ := os.ReadFile(filepath.Join(s.dir, "error.log"))
			return fmt.Errorf("%s: mariadbd exited during start-up; its error log ends:\n%s", s.name, tail(string(log), 20))
		case <-ctx.Done():
			db.Close()
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			db.Close()
			return fmt.Errorf("%s: mariadbd did not answer within 2 minutes", s.name)
		}
	}
}

// stopAll stops the servers side by side (nil ones skipped).
func stopAll(servers ...*server) {
	var wg sync.WaitGroup
	for _, s := range servers {
		if s != nil {
			wg.Go(s.stop)
		}
	}
	wg.Wait()
}

// stop shuts the server down and waits for it to exit, killing it after
// 60 s. The datadir is thrown away, so InnoDB is told to skip its shutdown
// work (innodb_fast_shutdown=3) before the SIGTERM. It is safe to call more
// than once.
func (s *server) stop() {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return
	}
	if s.db != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, _ = s.db.ExecContext(ctx, "SET GLOBAL innodb_fast_shutdown=3")
		cancel()
		s.db.Close()
		s.db = nil
	}
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// variables returns the SHOW GLOBAL VARIABLES values of names.
func (s *server) variables(ctx context.Context, names ...string) (map[string]string, error) {
	return showMap(ctx, s.db, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('"+strings.Join(names, "','")+"')")
}

// status returns the SHOW GLOBAL STATUS counters of names (missing ones
// absent from the map).
func (s *server) status(ctx context.Context, names ...string) (map[string]int64, error) {
	m, err := showMap(ctx, s.db, "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(names, "','")+"')")
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			out[k] = n
		}
	}
	return out, nil
}

func showMap(ctx context.Context, db *sql.DB, q string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		m[strings.ToLower(k)] = v
	}
	return m, rows.Err()
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
