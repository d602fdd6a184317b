package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store/mysqlstore"
)

// Engine names of the matrix.
const (
	engineInnoDB  = "InnoDB"
	engineRocksDB = "ROCKSDB"
	engineTokuDB  = "TokuDB"
)

// cell is one point of the matrix.
type cell struct {
	Engine     string // InnoDB, ROCKSDB or TokuDB
	Binlog     bool
	Durability string // worst or best
	Replica    bool
}

// String names the cell as the table does.
func (c cell) String() string {
	return fmt.Sprintf("%s binlog=%s %s replica=%s", c.Engine, onOff(c.Binlog), c.Durability, noneOne(c.Replica))
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func noneOne(b bool) string {
	if b {
		return "one"
	}
	return "none"
}

// commonOptions are the published experiment's options of every server
// (the binary log aside: see serverOptions).
var commonOptions = []string{
	"--binlog-format=row",
	"--transaction-isolation=READ-COMMITTED",
	"--innodb-buffer-pool-size=500M",
	"--innodb-log-file-size=1000M",
}

// serverOptions returns the mariadbd options of a cell's master (replica
// false) or replica (true): the published option sets. The binary log is
// --log-bin on both servers of a cell with binlog on, --skip-log-bin on
// the master of a cell with binlog off (which has no replica).
//
//   - worst: master and replica --sync-binlog=1
//     --innodb-flush-log-at-trx-commit=1 (and MyRocks' default flush,
//     rocksdb_flush_log_at_trx_commit=1: sync on commit);
//   - best: master --sync-binlog=0 --innodb-flush-log-at-trx-commit=0
//     --rocksdb-flush-log-at-trx-commit=0, replica --sync-binlog=0
//     --innodb-flush-log-at-trx-commit=2 --rocksdb-flush-log-at-trx-commit=2.
//
// The replica adds --log-slave-updates --skip-slave-start; server ids are
// 1 and 2.
func serverOptions(c cell, replica bool, rocksdb bool) []string {
	opts := []string{"--skip-log-bin"}
	if c.Binlog {
		opts = []string{"--log-bin=mariadb-bin"}
	}
	opts = append(opts, commonOptions...)
	if replica {
		opts = append(opts, "--server-id=2", "--log-slave-updates", "--skip-slave-start")
	} else {
		opts = append(opts, "--server-id=1")
	}
	switch {
	case c.Durability == "worst":
		opts = append(opts, "--sync-binlog=1", "--innodb-flush-log-at-trx-commit=1")
	case !replica:
		opts = append(opts, "--sync-binlog=0", "--innodb-flush-log-at-trx-commit=0")
		if rocksdb {
			opts = append(opts, "--rocksdb-flush-log-at-trx-commit=0")
		}
	default:
		opts = append(opts, "--sync-binlog=0", "--innodb-flush-log-at-trx-commit=2")
		if rocksdb {
			opts = append(opts, "--rocksdb-flush-log-at-trx-commit=2")
		}
	}
	return opts
}

// checkedVariables are the server variables a cell records (and checks
// against its options) on each of its servers.
var checkedVariables = []string{"log_bin", "binlog_format", "tx_isolation", "innodb_buffer_pool_size",
	"innodb_log_file_size", "server_id", "log_slave_updates", "sync_binlog", "innodb_flush_log_at_trx_commit",
	"rocksdb_flush_log_at_trx_commit", "version"}

// wantVariables returns the SHOW VARIABLES values a server of cell c must
// show (replica: the replica's).
func wantVariables(c cell, replica bool) map[string]string {
	w := map[string]string{
		"log_bin":                 "OFF",
		"binlog_format":           "ROW",
		"tx_isolation":            "READ-COMMITTED",
		"innodb_buffer_pool_size": strconv.Itoa(500 << 20),
		"innodb_log_file_size":    strconv.Itoa(1000 << 20),
		"server_id":               "1",
		"log_slave_updates":       "OFF",
	}
	if c.Binlog {
		w["log_bin"] = "ON"
	}
	if replica {
		w["server_id"], w["log_slave_updates"] = "2", "ON"
	}
	switch {
	case c.Durability == "worst":
		w["sync_binlog"], w["innodb_flush_log_at_trx_commit"] = "1", "1"
		if c.Engine == engineRocksDB {
			w["rocksdb_flush_log_at_trx_commit"] = "1"
		}
	case !replica:
		w["sync_binlog"], w["innodb_flush_log_at_trx_commit"] = "0", "0"
		if c.Engine == engineRocksDB {
			w["rocksdb_flush_log_at_trx_commit"] = "0"
		}
	default:
		w["sync_binlog"], w["innodb_flush_log_at_trx_commit"] = "0", "2"
		if c.Engine == engineRocksDB {
			w["rocksdb_flush_log_at_trx_commit"] = "2"
		}
	}
	return w
}

// checkVariables compares got with want; the error names every difference.
func checkVariables(who string, got, want map[string]string) error {
	var diffs []string
	for k, v := range want {
		if got[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s=%q (want %q)", k, got[k], v))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s: options not applied: %s", who, strings.Join(diffs, ", "))
	}
	return nil
}

// statusCounters are the SHOW GLOBAL STATUS counters a cell reads before
// and after its measured transactions.
var statusCounters = []string{"Com_commit", "Com_rollback", "Binlog_commits", "Binlog_group_commits",
	"Innodb_data_fsyncs", "Innodb_log_writes", "Rocksdb_wal_synced", "Rocksdb_wal_group_syncs"}

// result is what a cell measured (or why it measured nothing).
type result struct {
	Cell     cell
	Workload string // "linkbench" or "sysbench"
	// Skip, when not empty, says why the cell was not run (TokuDB, a
	// replica without a binary log); nothing else is set.
	Skip string
	// Err is the cell's failure; the measured fields are then partial.
	Err error

	Transactions int64         // requests (linkbench) or transactions (sysbench) done
	Elapsed      time.Duration // of the measured transactions
	Commits      int64         // Com_commit delta, plus linkbench's autocommit node writes
	Delta        map[string]int64
	SyncBinlog   bool          // sync_binlog=1: each binlog group commit is one fsync
	CatchUp      time.Duration // replica: from the master's end to the replica's same GTID position
	CaughtUp     bool

	// Vars are the checked variables of the master and, with a replica,
	// of the replica, as the servers showed them.
	MasterVars, ReplicaVars map[string]string
	// MasterGTID (@@gtid_binlog_pos) and ReplicaGTID (@@gtid_slave_pos)
	// when the replica had caught up; MasterRows and ReplicaRows the row
	// counts of the three tables (link, count, node) on each.
	MasterGTID, ReplicaGTID string
	MasterRows, ReplicaRows [3]int64

	// report and cfg are linkbench's request report and configuration
	// (nil and zero for sysbench), for the cell's result file.
	report *stats.Report
	cfg    linkbench.Config
}

// fsyncs returns the fsyncs the cell counted: InnoDB's (Innodb_data_fsyncs:
// MariaDB 10.11 has no Innodb_os_log_fsyncs any more and counts the redo
// log's fsyncs there, with the data files'), RocksDB's WAL syncs, and the
// binary log's (one per group commit when sync_binlog=1, none otherwise:
// MariaDB has no counter of binary log fsyncs).
func (r *result) fsyncs() (innodb, rocks, binlog int64) {
	innodb, rocks = r.Delta["innodb_data_fsyncs"], r.Delta["rocksdb_wal_synced"]
	if r.Cell.Binlog && r.SyncBinlog {
		binlog = r.Delta["binlog_group_commits"]
	}
	return
}

// runEnv is what every cell of a run shares.
type runEnv struct {
	o        *options
	bin      binaries
	tmp      string // the run's temporary directory
	template string // the installed datadir every server copies
	seq      int    // servers started, for directory names
	logf     func(string, ...any)
}

// runCell starts the cell's servers, loads the graph, runs the
// transactions and measures, then stops the servers and removes their
// directories, whatever happened.
func (e *runEnv) runCell(ctx context.Context, c cell, logf func(string, ...any)) []result {
	res := result{Cell: c, Workload: "linkbench"}
	e.seq++
	dir := filepath.Join(e.tmp, fmt.Sprintf("cell%02d", e.seq))
	defer os.RemoveAll(dir)
	rocks := c.Engine == engineRocksDB
	// The master and the replica start side by side.
	var master, replica *server
	var merr, rerr error
	var wg sync.WaitGroup
	if c.Replica {
		wg.Go(func() {
			replica, rerr = startServer(ctx, e.bin, "replica", filepath.Join(dir, "replica"), e.template, serverOptions(c, true, rocks))
		})
	}
	master, merr = startServer(ctx, e.bin, "master", filepath.Join(dir, "master"), e.template, serverOptions(c, false, rocks))
	wg.Wait()
	defer stopAll(master, replica)
	if err := errors.Join(merr, rerr); err != nil {
		res.Err = err
		return []result{res}
	}
	logf("%s: servers up", c)
	if err := e.prepare(ctx, c, &res, master, replica); err != nil {
		res.Err = err
		return []result{res}
	}
	logf("%s: loading", c)
	defer logf("%s: stopping the servers", c)
	res.Err = e.linkbench(ctx, c, &res, master, replica)
	out := []result{res}
	if e.o.sysbench != "" && res.Err == nil && ctx.Err() == nil {
		logf("%s: sysbench oltp_write_only", c)
		out = append(out, e.sysbench(ctx, c, master, replica))
	}
	return out
}

// prepare checks the servers' variables, sets up replication (a user on
// the master, CHANGE MASTER TO ... master_use_gtid=slave_pos, START SLAVE
// on the replica).
func (e *runEnv) prepare(ctx context.Context, c cell, res *result, master, replica *server) error {
	var err error
	if res.MasterVars, err = master.variables(ctx, checkedVariables...); err != nil {
		return fmt.Errorf("master: %w", err)
	}
	master.vars = res.MasterVars
	if err := checkVariables("master", res.MasterVars, wantVariables(c, false)); err != nil {
		return err
	}
	if c.Engine == engineRocksDB {
		var support string
		err := master.db.QueryRowContext(ctx, "SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE='ROCKSDB'").Scan(&support)
		if err != nil || (support != "YES" && support != "DEFAULT") {
			return errors.New("the ROCKSDB engine did not load (is mariadb-plugin-rocksdb installed?)")
		}
	}
	if replica == nil {
		return nil
	}
	if res.ReplicaVars, err = replica.variables(ctx, checkedVariables...); err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	replica.vars = res.ReplicaVars
	if err := checkVariables("replica", res.ReplicaVars, wantVariables(c, true)); err != nil {
		return err
	}
	pw := randomPassword()
	for _, q := range []string{
		"CREATE USER 'repl'@'127.0.0.1' IDENTIFIED BY '" + pw + "'",
		"GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1'",
	} {
		if _, err := master.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("master: create the replication user: %w", err)
		}
	}
	for _, q := range []string{
		fmt.Sprintf("CHANGE MASTER TO master_host='127.0.0.1', master_port=%d, master_user='repl', master_password='%s', master_use_gtid=slave_pos", master.port, pw),
		"START SLAVE",
	} {
		if _, err := replica.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("replica: %s: %w", strings.SplitN(q, " ", 3)[0]+" "+strings.SplitN(q, " ", 3)[1], err)
		}
	}
	return nil
}

// linkbench loads the graph into the master (the replica applies it) and
// runs the measured write transactions with the library.
func (e *runEnv) linkbench(ctx context.Context, c cell, res *result, master, replica *server) error {
	o := e.o
	eng := mysqlstore.InnoDB
	if c.Engine == engineRocksDB {
		eng = mysqlstore.RocksDB
	}
	cfg := o.config(c.Durability)
	st, err := mysqlstore.Open(ctx, mysqlstore.Options{
		DSN:      master.dsn(),
		Database: cfg.DBPrefix + "0",
		Engine:   eng,
		MaxConns: cfg.Requesters + cfg.Loaders + 2,
	})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.CreateSchema(ctx, cfg.DBPrefix+"0", mysqlstore.SchemaOptions{}); err != nil {
		return err
	}
	t0 := time.Now()
	if _, err := linkbench.Load(ctx, cfg, st); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	e.logf("%s: loaded in %.1f s", c, time.Since(t0).Seconds())
	if replica != nil {
		// The replica applies the load before the measurement starts.
		if _, err := waitCaughtUp(ctx, master, replica, o.catchUpTimeout); err != nil {
			return fmt.Errorf("after the load: %w", err)
		}
		e.logf("%s: replica applied the load after %.1f s", c, time.Since(t0).Seconds())
	}
	if err := st.Warm(ctx, cfg.Requesters); err != nil {
		return err
	}
	before, err := master.status(ctx, statusCounters...)
	if err != nil {
		return err
	}
	rep, err := linkbench.Request(ctx, cfg, st)
	end := time.Now()
	if err != nil {
		return fmt.Errorf("request: %w", err)
	}
	if replica != nil {
		// First the replica's catch-up, timed from the master's end; the
		// master's counters do not move meanwhile.
		at, err := waitCaughtUp(ctx, master, replica, o.catchUpTimeout)
		if err != nil {
			return err
		}
		res.CatchUp, res.CaughtUp = at.Sub(end), true
	}
	after, err := master.status(ctx, statusCounters...)
	if err != nil {
		return err
	}
	res.Delta = deltas(before, after)
	res.report, res.cfg = rep, cfg
	res.Elapsed = rep.Elapsed
	res.Transactions = rep.Request.Requests
	res.Commits = res.Delta["com_commit"]
	for _, op := range []stats.Op{stats.AddNode, stats.UpdateNode, stats.DeleteNode} {
		if r, ok := rep.Op(op); ok {
			res.Commits += r.Successes + r.Misses
		}
	}
	res.SyncBinlog = res.MasterVars["sync_binlog"] == "1"
	if rep.Status != "" {
		return fmt.Errorf("request phase %s: %s", rep.Status, rep.Detail)
	}
	if rep.Request.Errors > 0 {
		return fmt.Errorf("request phase: %d failed requests", rep.Request.Errors)
	}
	if replica != nil {
		if res.MasterGTID, res.ReplicaGTID, err = gtidPositions(ctx, master, replica); err != nil {
			return err
		}
		db := cfg.DBPrefix + "0"
		if res.MasterRows, err = rowCounts(ctx, master, db); err != nil {
			return fmt.Errorf("master: %w", err)
		}
		if res.ReplicaRows, err = rowCounts(ctx, replica, db); err != nil {
			return fmt.Errorf("replica: %w", err)
		}
		if res.MasterRows != res.ReplicaRows {
			return fmt.Errorf("replica caught up but holds other row counts: master %v, replica %v", res.MasterRows, res.ReplicaRows)
		}
	}
	return nil
}

// deltas returns after - before per counter.
func deltas(before, after map[string]int64) map[string]int64 {
	d := make(map[string]int64, len(after))
	for k, v := range after {
		d[k] = v - before[k]
	}
	return d
}

// rowCounts counts the rows of the link, count and node tables of db.
func rowCounts(ctx context.Context, s *server, db string) ([3]int64, error) {
	var n [3]int64
	for i, t := range []string{"linktable", "counttable", "nodetable"} {
		if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM `"+db+"`.`"+t+"`").Scan(&n[i]); err != nil {
			return n, err
		}
	}
	return n, nil
}

// gtidPositions returns the master's @@gtid_binlog_pos and the replica's
// @@gtid_slave_pos.
func gtidPositions(ctx context.Context, master, replica *server) (string, string, error) {
	var m, r string
	if err := master.db.QueryRowContext(ctx, "SELECT @@gtid_binlog_pos").Scan(&m); err != nil {
		return "", "", fmt.Errorf("master: %w", err)
	}
	if err := replica.db.QueryRowContext(ctx, "SELECT @@gtid_slave_pos").Scan(&r); err != nil {
		return "", "", fmt.Errorf("replica: %w", err)
	}
	return m, r, nil
}

// waitCaughtUp waits until the replica's @@gtid_slave_pos has reached the
// master's @@gtid_binlog_pos (read once, at the call) in every replication
// domain, and returns when it saw that. The replica's SQL or I/O thread
// stopping with an error ends the wait with that error.
func waitCaughtUp(ctx context.Context, master, replica *server, timeout time.Duration) (time.Time, error) {
	start := time.Now()
	var target string
	if err := master.db.QueryRowContext(ctx, "SELECT @@gtid_binlog_pos").Scan(&target); err != nil {
		return time.Time{}, fmt.Errorf("master: %w", err)
	}
	want, err := parseGTIDs(target)
	if err != nil {
		return time.Time{}, err
	}
	for {
		var pos string
		if err := replica.db.QueryRowContext(ctx, "SELECT @@gtid_slave_pos").Scan(&pos); err != nil {
			return time.Time{}, fmt.Errorf("replica: %w", err)
		}
		got, err := parseGTIDs(pos)
		if err != nil {
			return time.Time{}, err
		}
		if reached(got, want) {
			return time.Now(), nil
		}
		if time.Since(start) > timeout {
			return time.Time{}, fmt.Errorf("the replica did not catch up within %v: at %q, master at %q%s", timeout, pos, target, replicaError(ctx, replica))
		}
		if msg := replicaError(ctx, replica); msg != "" {
			return time.Time{}, fmt.Errorf("replication stopped: %s", strings.TrimPrefix(msg, "; "))
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// replicaError returns "; " and the replica's last I/O or SQL error, or ""
// when its threads run without one.
func replicaError(ctx context.Context, replica *server) string {
	rows, err := replica.db.QueryContext(ctx, "SHOW SLAVE STATUS")
	if err != nil {
		return ""
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if !rows.Next() {
		return ""
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if rows.Scan(ptrs...) != nil {
		return ""
	}
	m := map[string]string{}
	for i, c := range cols {
		if b, ok := vals[i].([]byte); ok {
			m[c] = string(b)
		}
	}
	for _, k := range []string{"Last_SQL_Error", "Last_IO_Error"} {
		if m[k] != "" {
			return "; " + k + ": " + m[k]
		}
	}
	return ""
}

// parseGTIDs parses a MariaDB GTID position ("0-1-42,1-2-7") into the
// highest sequence number per domain.
func parseGTIDs(s string) (map[uint32]uint64, error) {
	m := map[uint32]uint64{}
	for _, g := range strings.Split(s, ",") {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		f := strings.Split(g, "-")
		if len(f) != 3 {
			return nil, fmt.Errorf("GTID %q: want domain-server-sequence", g)
		}
		d, err1 := strconv.ParseUint(f[0], 10, 32)
		n, err2 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("GTID %q: want domain-server-sequence", g)
		}
		m[uint32(d)] = max(m[uint32(d)], n)
	}
	return m, nil
}

// reached reports whether got has every domain of want at or past want's
// sequence number.
func reached(got, want map[uint32]uint64) bool {
	for d, n := range want {
		if got[d] < n {
			return false
		}
	}
	return true
}
