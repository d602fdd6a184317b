package cli

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/linkbench-go/linkbench/hostmetrics"
	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/results"
	"github.com/linkbench-go/linkbench/store/pgstore"
)

// hostSource is what the run's host metrics sample: the options of the
// sampler, the server's description, and how to flush the server's
// memtables before the database size is read.
type hostSource struct {
	opts   hostmetrics.Options
	server *results.Server
	flush  func(ctx context.Context) error // nil: nothing to flush
	// finalSize, when not nil, is the database size at a phase's end,
	// after flush (ROCKSDB: information_schema counts flushed memtables
	// only, so its intervals have no size); nil: opts.Size.
	finalSize func(ctx context.Context) (int64, error)
	// sizeFixed: opts.Size was chosen by the store's setup (nil: not
	// measured per interval), not to be replaced by the datadir's size.
	sizeFixed bool
	sizeNote  string // where the size comes from, for the log
	close     func()
	notes     []string // why something is not sampled, for the log
}

// mysqlSettings are the server variables a result file keeps.
var mysqlSettings = []string{
	"version", "version_comment", "default_storage_engine", "datadir", "pid_file",
	"innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "innodb_doublewrite",
	"innodb_compression_algorithm", "innodb_page_size", "innodb_log_file_size",
	"rocksdb_block_cache_size", "rocksdb_flush_log_at_trx_commit", "rocksdb_default_cf_options",
	"log_bin", "sync_binlog", "binlog_format", "max_connections", "innodb_file_per_table",
}

// pgSettings are the PostgreSQL settings a result file keeps.
var pgSettings = []string{
	"server_version", "data_directory", "shared_buffers", "effective_cache_size", "synchronous_commit",
	"fsync", "full_page_writes", "wal_compression", "default_toast_compression", "max_wal_size", "checkpoint_timeout",
}

// newHostSource finds what to sample for the store: the -datadir and
// -device flags, else for a MySQL or PostgreSQL server whose data
// directory is on this host, its datadir, process and database size.
func newHostSource(ctx context.Context, o *options, cfg *linkbench.Config, st *openedStore) *hostSource {
	h := &hostSource{close: func() {}}
	h.opts.Devices = append(h.opts.Devices, o.devices...)
	h.opts.ServerPID = o.serverPID
	var datadir string
	switch {
	case st.mysql != nil:
		datadir = h.mysql(ctx, st.mysql.DB(), cfg, mysqlLocal(o, cfg))
	case st.pg != nil:
		datadir = h.postgres(ctx, o, cfg)
	}
	if o.datadir != "" {
		datadir = o.datadir
	}
	if datadir != "" {
		if _, err := os.Stat(datadir); err == nil {
			h.opts.Paths = append(h.opts.Paths, datadir)
			if h.opts.Size == nil && !h.sizeFixed {
				dir := datadir
				h.opts.Size = func(context.Context) (int64, error) { return dirSize(dir) }
			}
		} else {
			h.notes = append(h.notes, fmt.Sprintf("datadir %s is not on this host: no device or size sampled", datadir))
		}
	}
	if h.server != nil {
		h.server.PID = h.opts.ServerPID
	}
	return h
}

// mysql reads the server's settings, datadir and pid file, and sets the
// size function (information_schema, after a memtable flush for ROCKSDB).
// It returns the datadir if it is on this host.
func (h *hostSource) mysql(ctx context.Context, db *sql.DB, cfg *linkbench.Config, local bool) string {
	srv := &results.Server{Settings: map[string]string{}}
	h.server = srv
	q := "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('" + strings.Join(mysqlSettings, "','") + "')"
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		h.notes = append(h.notes, fmt.Sprintf("server settings: %v", err))
		return ""
	}
	for rows.Next() {
		var k, v string
		if rows.Scan(&k, &v) == nil {
			srv.Settings[k] = v
		}
	}
	rows.Close()
	srv.Version = srv.Settings["version"]
	dbs := databaseNames(cfg)
	var engine string
	if db.QueryRowContext(ctx, "SELECT engine FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
		dbs[0], cfg.Store.LinkTable).Scan(&engine) == nil && engine != "" {
		srv.Settings["table_engine"] = engine // the link table's, when it exists already
	}
	rocks := strings.EqualFold(cfg.Store.Engine, "rocksdb") || strings.EqualFold(cfg.Store.Engine, "myrocks") ||
		strings.EqualFold(srv.Settings["default_storage_engine"], "rocksdb")
	if rocks {
		h.flush = func(ctx context.Context) error {
			_, err := db.ExecContext(ctx, "SET GLOBAL rocksdb_force_flush_memtable_now = 1")
			return err
		}
	}
	isSize := func(ctx context.Context) (int64, error) {
		args := make([]any, len(dbs))
		for i, d := range dbs {
			args[i] = d
		}
		var n sql.NullInt64
		err := db.QueryRowContext(ctx, "SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema IN (?"+
			strings.Repeat(",?", len(dbs)-1)+")", args...).Scan(&n)
		if err != nil {
			return 0, err
		}
		if !n.Valid {
			return 0, errors.New("no tables in information_schema")
		}
		return n.Int64, nil
	}
	h.opts.Size, h.sizeNote = isSize, "information_schema.tables"
	if rocks {
		// Between flushes information_schema leaves out the memtables
		// (0 during a load): the intervals have no size, the phase's end
		// has it after a flush.
		h.opts.Size, h.finalSize, h.sizeFixed = nil, isSize, true
		h.sizeNote = "information_schema.tables after a memtable flush, at each phase's end"
	}
	dir := srv.Settings["datadir"]
	if dir == "" {
		return ""
	}
	if !local {
		h.notes = append(h.notes, "the MySQL server is not on this host (not a loopback address or a socket): give -datadir or -device, and -server-pid, to sample it")
		return ""
	}
	if _, err := os.Stat(dir); err != nil {
		return dir // newHostSource notes it is remote
	}
	srv.Datadir = dir
	if !rocks && !strings.EqualFold(srv.Settings["innodb_file_per_table"], "OFF") {
		// information_schema's sizes are statistics, refreshed now and
		// then (0.001 GB for 170 MB written): the databases' directories
		// on disk are what the server holds, when each table has its file.
		var dirs []string
		for _, d := range dbs {
			if st, err := os.Stat(filepath.Join(dir, d)); err == nil && st.IsDir() {
				dirs = append(dirs, filepath.Join(dir, d))
			}
		}
		if len(dirs) == len(dbs) {
			h.opts.Size = func(context.Context) (int64, error) {
				var n int64
				for _, d := range dirs {
					m, err := dirSize(d)
					if err != nil {
						return 0, err
					}
					n += m
				}
				return n, nil
			}
			h.sizeNote = "the databases' directories in the datadir"
		}
	}
	if h.opts.ServerPID == 0 {
		if pf := srv.Settings["pid_file"]; pf != "" {
			if !filepath.IsAbs(pf) {
				pf = filepath.Join(dir, pf)
			}
			h.opts.ServerPID = readPID(pf)
		}
	}
	return dir
}

// hostMetricsApp is the application_name of the connection that reads a
// PostgreSQL server's settings and size.
const hostMetricsApp = "linkbench-hostmetrics"

// postgres reads the server's settings over a connection of its own, its
// data directory and postmaster.pid, and sets the size function
// (pg_database_size). It returns the data directory.
func (h *hostSource) postgres(ctx context.Context, o *options, cfg *linkbench.Config) string {
	opts, err := pgOptions(o, cfg)
	if err != nil {
		return ""
	}
	pc, err := pgx.ParseConfig(opts.DSN)
	if err != nil {
		return ""
	}
	if opts.DSN == "" {
		pc.Host, pc.Port, pc.User, pc.Password, pc.Database = opts.Host, uint16(opts.Port), opts.User, opts.Password, opts.DBName
		if pc.Host == "" {
			pc.Host = pgstore.DefaultHost
		}
		if pc.Database == "" {
			pc.Database = pgstore.DefaultDBName
		}
	}
	local := strings.HasPrefix(pc.Host, "/") || isLoopback(pc.Host)
	// Named, so that it is told apart from the workers' backends.
	if pc.RuntimeParams == nil {
		pc.RuntimeParams = map[string]string{}
	}
	pc.RuntimeParams["application_name"] = hostMetricsApp
	conn, err := pgx.ConnectConfig(ctx, pc)
	if err != nil {
		h.notes = append(h.notes, "server settings: cannot connect")
		return ""
	}
	h.close = func() { conn.Close(context.Background()) }
	srv := &results.Server{Settings: map[string]string{}}
	h.server = srv
	for _, k := range pgSettings {
		var v string
		if conn.QueryRow(ctx, "SELECT current_setting($1, true)", k).Scan(&v) == nil && v != "" {
			srv.Settings[k] = v
		}
	}
	srv.Version = srv.Settings["server_version"]
	h.opts.Size = func(ctx context.Context) (int64, error) {
		var n int64
		err := conn.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&n)
		return n, err
	}
	dir := srv.Settings["data_directory"]
	if dir == "" {
		return ""
	}
	if !local {
		h.notes = append(h.notes, "the PostgreSQL server is not on this host (not a loopback address or a socket): give -datadir or -device, and -server-pid, to sample it")
		return ""
	}
	if _, err := os.Stat(dir); err != nil {
		return dir
	}
	srv.Datadir = dir
	if h.opts.ServerPID == 0 {
		h.opts.ServerPID = readPID(filepath.Join(dir, "postmaster.pid"))
	}
	h.flush = nil
	return dir
}

// readPID returns the process id in the first line of a pid file if that
// process runs on this host, else 0.
func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
		return 0
	}
	return pid
}

// dirSize returns the bytes of the regular files under dir.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return nil // files come and go while the server runs
			}
			return err
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n, err
}

// mysqlLocal reports whether the MySQL server is reached through a unix
// socket or a loopback address, i.e. runs on this host.
func mysqlLocal(o *options, cfg *linkbench.Config) bool {
	if o.dsn == "" {
		return isLoopback(cfg.Store.Host)
	}
	c, err := mysql.ParseDSN(o.dsn)
	if err != nil {
		return false
	}
	if c.Net == "unix" {
		return true
	}
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		host = c.Addr
	}
	return isLoopback(host)
}

// isLoopback reports whether host names this host: localhost or a
// loopback address.
func isLoopback(host string) bool {
	if host == "" || strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
