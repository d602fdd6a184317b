package mysqlstore

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"path/filepath"
	"strings"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// serverSettings are the server variables DescribeServer reports (those a
// result file keeps).
var serverSettings = []string{
	"version", "version_comment", "default_storage_engine", "datadir", "pid_file",
	"innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "innodb_doublewrite",
	"innodb_compression_algorithm", "innodb_page_size", "innodb_log_file_size",
	"rocksdb_block_cache_size", "rocksdb_flush_log_at_trx_commit", "rocksdb_default_cf_options",
	"log_bin", "sync_binlog", "binlog_format", "max_connections", "innodb_file_per_table",
	"wsrep_on", "wsrep_sst_method", "wsrep_slave_threads",
}

// DescribeServer describes the server for result files and host metrics
// (store.ServerDescriber): its version and the global variables of
// serverSettings, the engine of the link table of databases[0] (this
// Store's database when databases is empty) as "table_engine" when the
// table exists, its datadir and pid file, whether it runs on this host (a
// unix socket or a loopback address), and how to measure the databases'
// size: information_schema.tables' data and index lengths, read at a
// phase's end after a memtable flush on ROCKSDB (SET GLOBAL
// rocksdb_force_flush_memtable_now = 1: between flushes the figures leave
// the memtables out); with InnoDB tables of a file each, the databases'
// directories in the datadir (DataDirs), whose sizes are exact where
// information_schema's are statistics refreshed now and then. Size and
// Flush use the Store's pool (DB). Errors: the server's (wrapped),
// ctx's, store.ErrClosed.
func (s *Store) DescribeServer(ctx context.Context, databases []string) (*store.Server, error) {
	if err := s.check(ctx, "DescribeServer"); err != nil {
		return nil, err
	}
	db := s.c.db
	srv := &store.Server{Kind: "MySQL", Settings: map[string]string{}, Local: local(s.c.net, s.c.addr)}
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('"+strings.Join(serverSettings, "','")+"')")
	if err != nil {
		return nil, s.c.eng.Wrap("DescribeServer", err)
	}
	for rows.Next() {
		var k, v string
		if rows.Scan(&k, &v) == nil {
			srv.Settings[k] = v
		}
	}
	rows.Close()
	srv.Version = srv.Settings["version"]
	if len(databases) == 0 {
		databases = []string{s.name}
	}
	if e, err := s.TableEngine(ctx, databases[0]); err == nil && e != "" {
		srv.Settings["table_engine"] = string(e)
	}
	rocks := s.c.opts.Engine == RocksDB || strings.EqualFold(srv.Settings["default_storage_engine"], string(RocksDB))
	args := make([]any, len(databases))
	for i, d := range databases {
		args[i] = d
	}
	q := "SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema IN (?" +
		strings.Repeat(",?", len(databases)-1) + ")"
	srv.Size = func(ctx context.Context) (int64, error) {
		var n sql.NullInt64
		if err := db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			return 0, err
		}
		if !n.Valid {
			return 0, errors.New("no tables in information_schema")
		}
		return n.Int64, nil
	}
	srv.SizeSource = "information_schema.tables"
	if rocks {
		srv.SizeAtEnd = true
		srv.SizeSource = "information_schema.tables after a memtable flush, at each phase's end"
		srv.Flush = func(ctx context.Context) error {
			_, err := db.ExecContext(ctx, "SET GLOBAL rocksdb_force_flush_memtable_now = 1")
			return err
		}
	}
	srv.Datadir = srv.Settings["datadir"]
	if srv.Datadir == "" {
		return srv, nil
	}
	if pf := srv.Settings["pid_file"]; pf != "" {
		if !filepath.IsAbs(pf) {
			pf = filepath.Join(srv.Datadir, pf)
		}
		srv.PIDFile = pf
	}
	srv.MorePIDFiles = s.c.morePIDFiles(ctx)
	if !rocks && !strings.EqualFold(srv.Settings["innodb_file_per_table"], "OFF") {
		for _, d := range databases {
			srv.DataDirs = append(srv.DataDirs, filepath.Join(srv.Datadir, d))
		}
	}
	return srv, nil
}

// local reports whether the server at the driver's network and address
// runs on this host: a unix socket, or a loopback address.
func local(network, addr string) bool {
	if network == "unix" {
		return true
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return sqlstore.IsLoopback(host)
}

// morePIDFiles returns the pid files (absolute paths) of the Store's other
// endpoints (the nodes of a cluster) that run on this host; a node that
// does not answer is left out.
func (c *shared) morePIDFiles(ctx context.Context) []string {
	var out []string
	for i := 1; i < len(c.eps); i++ {
		if !local(c.net, c.eps[i].addr) {
			continue
		}
		cn, err := c.connect(ctx, connRead, i)
		if err != nil {
			continue
		}
		rows, err := cn.queryText(ctx, "SELECT @@pid_file, @@datadir")
		if err == nil {
			if done, err := cn.next(rows, 2); err == nil && !done {
				pf, dir := asString(cn.dest[0]), asString(cn.dest[1])
				if pf != "" && !filepath.IsAbs(pf) {
					pf = filepath.Join(dir, pf)
				}
				if pf != "" {
					out = append(out, pf)
				}
			}
			rows.Close()
		}
		cn.close()
	}
	return out
}

// asString returns a text column's value.
func asString(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case string:
		return x
	}
	return ""
}
