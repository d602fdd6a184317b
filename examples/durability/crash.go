package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store/audit"
	"github.com/linkbench-go/linkbench/store/mysqlstore"
)

// crashCell is one cell of the crash measurement (-crash): an engine and
// its log's flush at commit.
type crashCell struct {
	Engine string // InnoDB or ROCKSDB
	// Flush is innodb_flush_log_at_trx_commit (InnoDB) or
	// rocksdb_flush_log_at_trx_commit (ROCKSDB): 1 (write and sync the
	// log at each commit) or 0 (neither: once per second).
	Flush int
}

// String names the cell as the table does.
func (c crashCell) String() string {
	return fmt.Sprintf("crash %s %s=%d", c.Engine, c.flushVariable(), c.Flush)
}

// flushVariable is the server variable the cell sets.
func (c crashCell) flushVariable() string {
	if c.Engine == engineRocksDB {
		return "rocksdb_flush_log_at_trx_commit"
	}
	return "innodb_flush_log_at_trx_commit"
}

// crashCells returns the cells of -crash in table order: every engine
// with the first flush setting, then with the next.
func (o *options) crashCells() []crashCell {
	var out []crashCell
	for _, f := range o.crashFlush {
		for _, e := range o.engines {
			out = append(out, crashCell{Engine: e, Flush: f})
		}
	}
	return out
}

// crashServerOptions are the mariadbd options of a crash cell: no binary
// log, the published buffer pool and redo log sizes, READ-COMMITTED, and
// the cell's flush setting.
func crashServerOptions(c crashCell) []string {
	opts := append([]string{"--skip-log-bin", "--server-id=1"}, commonOptions...)
	return append(opts, "--"+strings.ReplaceAll(c.flushVariable(), "_", "-")+"="+strconv.Itoa(c.Flush))
}

// crashConfig is the LinkBench configuration of a crash cell's load and
// request phase: the small graph, the write mix, -requesters requesters
// that never give up (max_failed_requests -1: the outage fails requests),
// no request or time limit of their own (the tool ends the phase; a
// bound of crash-at + 5 min guards against a restart that hangs).
func (o *options) crashConfig() linkbench.Config {
	cfg := linkbench.DefaultConfig()
	cfg.MaxID1 = o.maxID1
	cfg.NLinksFunc = "const"
	cfg.NLinksDefault = o.linksPerNode
	cfg.Loaders = o.loaders
	cfg.Requesters = o.requesters
	cfg.RunFor(o.crashAt + 5*time.Minute)
	cfg.WarmupTime = 0
	cfg.MaxFailedRequests = -1
	cfg.Mix = o.mix
	cfg.LoadRandomSeed = linkbench.FixedSeed(1)
	cfg.RequestRandomSeed = linkbench.FixedSeed(2)
	cfg.DBPrefix = "linkdb"
	return cfg
}

// crashResult is what a crash cell measured.
type crashResult struct {
	Cell crashCell
	Err  error // the cell's failure; the other fields are then partial

	Vars        map[string]string // the flush variables, as the server showed them
	Requests    int64             // requests of the phase (the failed ones included)
	Failed      int64             // failed requests (mostly the outage's)
	KilledAfter time.Duration     // from the phase's start to the SIGKILL
	Downtime    time.Duration     // from the SIGKILL to the restarted server answering (with its engine)
	// RecoveryError, when not empty, is what the server logged when the
	// engine refused to recover at the first restart (ROCKSDB's WAL cut
	// by the kill); the cell was then restarted again with
	// --rocksdb-wal-recovery-mode=2.
	RecoveryError string
	AckBeforeKill int64 // acknowledged writes that returned before the SIGKILL
	AckAfter      int64 // acknowledged writes that started after the restart
	// LostWindow is the longest time between a lost write's
	// acknowledgement and the SIGKILL (0 without a loss).
	LostWindow time.Duration
	Audit      *audit.Result
	// CountMismatches is the number of (id1, link_type) whose count row
	// differs from the visible links after the restart (-1: not checked).
	CountMismatches int
}

// runCrashMatrix runs every crash cell, in order; the error is one that
// stopped the whole run (no MariaDB, no temporary directory). An
// interrupted run returns the cells that finished.
func runCrashMatrix(ctx context.Context, o *options, logf func(string, ...any)) ([]crashResult, error) {
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
	var out []crashResult
	for _, c := range o.crashCells() {
		if ctx.Err() != nil {
			break
		}
		if c.Engine == engineRocksDB && bin.rocksdb == "" {
			out = append(out, crashResult{Cell: c, Err: errors.New("ha_rocksdb.so not found: install mariadb-plugin-rocksdb"), CountMismatches: -1})
			continue
		}
		start := time.Now()
		r := env.runCrashCell(ctx, c)
		if ctx.Err() != nil {
			break // cut short by the signal: not a measurement
		}
		if r.Err != nil {
			logf("%s: FAILED: %v", c, r.Err)
		} else {
			logf("%s: done in %.1f s", c, time.Since(start).Seconds())
		}
		out = append(out, r)
	}
	return out, nil
}

// runCrashCell starts a server, loads the graph, runs the request phase
// through the audit wrapper, SIGKILLs mariadbd crash-at into it, restarts
// it on the same datadir (a ROCKSDB that refuses its WAL is restarted
// again with --rocksdb-wal-recovery-mode=2), lets the phase run
// crash-after more, ends it (its context cancelled: the calls in flight
// become unacknowledged attempts), then verifies the log against the
// restarted server and checks the counts. The server is stopped and its
// directory removed at the end.
func (e *runEnv) runCrashCell(ctx context.Context, c crashCell) (res crashResult) {
	res = crashResult{Cell: c, CountMismatches: -1}
	o, logf := e.o, e.logf
	e.seq++
	dir := filepath.Join(e.tmp, fmt.Sprintf("crash%02d", e.seq))
	defer os.RemoveAll(dir)
	logf("%s: starting the server", c)
	srv, err := startServer(ctx, e.bin, "server", filepath.Join(dir, "server"), e.template, crashServerOptions(c))
	if err != nil {
		res.Err = err
		return res
	}
	defer srv.stop()
	if res.Vars, err = srv.variables(ctx, "innodb_flush_log_at_trx_commit", "rocksdb_flush_log_at_trx_commit", "log_bin", "version"); err != nil {
		res.Err = err
		return res
	}
	if got := res.Vars[c.flushVariable()]; got != strconv.Itoa(c.Flush) {
		res.Err = fmt.Errorf("%s = %q, want %d: the option was not applied", c.flushVariable(), got, c.Flush)
		return res
	}
	eng := mysqlstore.InnoDB
	if c.Engine == engineRocksDB {
		eng = mysqlstore.RocksDB
	}
	cfg := o.crashConfig()
	st, err := mysqlstore.Open(ctx, mysqlstore.Options{
		DSN:      srv.dsn(),
		Database: cfg.DBPrefix + "0",
		Engine:   eng,
		MaxConns: cfg.Requesters + cfg.Loaders + 2,
	})
	if err != nil {
		res.Err = err
		return res
	}
	defer st.Close()
	if err := st.CreateSchema(ctx, cfg.DBPrefix+"0", mysqlstore.SchemaOptions{}); err != nil {
		res.Err = err
		return res
	}
	logf("%s: loading", c)
	if _, err := linkbench.Load(ctx, cfg, st); err != nil {
		res.Err = fmt.Errorf("load: %w", err)
		return res
	}
	logPath := filepath.Join(dir, "writes.audit")
	alog, err := audit.Create(logPath)
	if err != nil {
		res.Err = err
		return res
	}
	defer alog.Close()

	phaseCtx, endPhase := context.WithCancel(ctx)
	type outcome struct {
		rep *stats.Report
		err error
	}
	done := make(chan outcome, 1)
	started := time.Now()
	go func() {
		rep, err := linkbench.Request(phaseCtx, cfg, alog.Wrap(st))
		done <- outcome{rep, err}
	}()
	var phase outcome
	finished := false
	// end ends the phase (if it still runs) and waits for it: the store
	// and the server are not closed under its requesters.
	end := func() {
		endPhase()
		if !finished {
			phase, finished = <-done, true
		}
	}
	defer end()
	wait := func(d time.Duration) bool { // false: the phase ended or ctx is done
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case phase = <-done:
			finished = true
		case <-ctx.Done():
		}
		return false
	}
	if !wait(o.crashAt) {
		if finished {
			res.Err = fmt.Errorf("the request phase ended before the kill: %v", phase.err)
		} else {
			res.Err = ctx.Err()
		}
		return res
	}
	logf("%s: SIGKILL to mariadbd %.1f s into the request phase", c, time.Since(started).Seconds())
	killAt := time.Now()
	res.KilledAfter = killAt.Sub(started)
	srv.kill()
	if err := srv.restart(ctx); err != nil {
		res.Err = fmt.Errorf("restart after the kill: %w", err)
		return res
	}
	if c.Engine == engineRocksDB && !rocksdbLoaded(ctx, srv) {
		// RocksDB refused its WAL (MariaDB's default
		// rocksdb_wal_recovery_mode=1, absolute consistency, fails on a
		// record the kill cut short): the server is up without the
		// engine. Restart it as an operator would, with point-in-time
		// recovery (mode 2: replay the WAL up to the cut record).
		log, _ := os.ReadFile(filepath.Join(srv.dir, "error.log"))
		res.RecoveryError = restartErrors(string(log))
		logf("%s: ROCKSDB did not recover:\n%s\nrestarting with --rocksdb-wal-recovery-mode=2", c, res.RecoveryError)
		srv.stop()
		srv.args = append(srv.args, "--rocksdb-wal-recovery-mode=2")
		if err := srv.restart(ctx); err != nil {
			res.Err = fmt.Errorf("restart with --rocksdb-wal-recovery-mode=2: %w", err)
			return res
		}
		if !rocksdbLoaded(ctx, srv) {
			log, _ := os.ReadFile(filepath.Join(srv.dir, "error.log"))
			res.Err = fmt.Errorf("ROCKSDB did not recover with --rocksdb-wal-recovery-mode=2 either; the error log says:\n%s", restartErrors(string(log)))
			return res
		}
	}
	restartedAt := time.Now()
	res.Downtime = restartedAt.Sub(killAt)
	logf("%s: restarted after %.1f s; the phase goes on for %v", c, res.Downtime.Seconds(), o.crashAfter)
	if !wait(o.crashAfter) && !finished {
		res.Err = ctx.Err()
		return res
	}
	end()
	if phase.rep == nil {
		res.Err = fmt.Errorf("request: %w", phase.err)
		return res
	}
	res.Requests, res.Failed = phase.rep.Request.Requests, phase.rep.Request.Errors
	if err := alog.Close(); err != nil {
		res.Err = fmt.Errorf("audit log: %w", err)
		return res
	}
	logf("%s: verifying", c)
	recs, err := audit.ReadFile(logPath)
	if err != nil {
		res.Err = err
		return res
	}
	for _, r := range recs {
		switch {
		case !r.Acked:
		case r.End < killAt.UnixNano():
			res.AckBeforeKill++
		case r.Start > restartedAt.UnixNano():
			res.AckAfter++
		}
	}
	if res.Audit, err = audit.Verify(ctx, st, recs, audit.Options{MaxLost: len(recs)}); err != nil {
		res.Err = err
		return res
	}
	for _, l := range res.Audit.Lost {
		res.LostWindow = max(res.LostWindow, killAt.Sub(time.Unix(0, l.Record.End)))
	}
	vr, err := linkbench.Verify(ctx, cfg, st)
	res.CountMismatches = 0
	for _, v := range vr {
		res.CountMismatches += len(v.Mismatches)
	}
	if err != nil && res.CountMismatches == 0 {
		res.Err = fmt.Errorf("count check: %w", err)
	}
	return res
}

// writeCrashTable prints one row per crash cell, then each cell's audit
// table per operation.
func writeCrashTable(w io.Writer, o *options, rs []crashResult) {
	if len(rs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "engine\tflush\tacknowledged\tbefore_kill\tpresent\tsuperseded\tlost\tunacknowledged\tlost_window_ms\treissued\tkill_s\tdowntime_s\trecovery\trequests\tfailed\tcounts\t note")
	var failures []string
	for _, r := range rs {
		row := []string{r.Cell.Engine, strconv.Itoa(r.Cell.Flush)}
		note := ""
		if r.Err != nil || r.Audit == nil {
			row = append(row, dashes(14)...)
			note = " FAILED (below)"
			failures = append(failures, fmt.Sprintf("%s: FAILED: %v", r.Cell, r.Err))
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t"+note)
			continue
		}
		t := r.Audit.Total()
		win := "-"
		if t.Lost > 0 {
			win = strconv.FormatInt(r.LostWindow.Milliseconds(), 10)
		}
		counts := "OK"
		if r.CountMismatches > 0 {
			counts = fmt.Sprintf("%d differ", r.CountMismatches)
		}
		recovery := "ok"
		if r.RecoveryError != "" {
			recovery = "mode=2"
		}
		row = append(row, fmt.Sprint(t.Acknowledged), fmt.Sprint(r.AckBeforeKill), fmt.Sprint(t.Present), fmt.Sprint(t.Superseded),
			fmt.Sprint(t.Lost), fmt.Sprint(t.Unacknowledged), win, fmt.Sprint(r.Audit.Reissued),
			fmt.Sprintf("%.1f", r.KilledAfter.Seconds()), fmt.Sprintf("%.1f", r.Downtime.Seconds()), recovery,
			fmt.Sprint(r.Requests), fmt.Sprint(r.Failed), counts)
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t"+note)
	}
	tw.Flush()
	fmt.Fprintf(w, "flush = innodb_flush_log_at_trx_commit (InnoDB) or rocksdb_flush_log_at_trx_commit (ROCKSDB); no binary log; %d requesters, write mix.\n", o.requesters)
	fmt.Fprintln(w, "  acknowledged = present + superseded + lost (store/audit's verdicts after the restart); before_kill = acknowledged before the SIGKILL;")
	fmt.Fprintln(w, "  lost_window_ms = the oldest lost write's acknowledgement before the SIGKILL; reissued = node ids ADD_NODE returned twice;")
	fmt.Fprintln(w, "  kill_s = SIGKILL after the phase's start; downtime_s = SIGKILL to the restarted server answering; counts = -verify's count check;")
	fmt.Fprintln(w, "  recovery = ok, or mode=2: ROCKSDB refused its WAL at the restart (rocksdb_wal_recovery_mode=1) and was restarted with point-in-time recovery.")
	for _, r := range rs {
		if r.RecoveryError != "" {
			fmt.Fprintf(w, "%s: the first restart logged:\n%s\n", r.Cell, r.RecoveryError)
		}
	}
	if o.tmpfs {
		fmt.Fprintln(w, "NOTE:", tmpfsNote(o))
	}
	for _, f := range failures {
		fmt.Fprintln(w, f)
	}
	for _, r := range rs {
		if r.Audit == nil {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", r.Cell)
		a := *r.Audit
		if len(a.Lost) > 5 {
			a.Lost = a.Lost[:5]
		}
		_ = audit.WriteTable(w, &a)
	}
}

// crashExit is the exit status of a crash run: 1 when a cell failed or a
// cell with flush at commit 1 lost an acknowledged write (that setting
// promises none), else 0.
func crashExit(rs []crashResult) int {
	for _, r := range rs {
		if r.Err != nil || r.Audit == nil || r.Cell.Flush == 1 && r.Audit.HasLost() {
			return 1
		}
	}
	return 0
}

// rocksdbLoaded reports whether the server has the ROCKSDB engine.
func rocksdbLoaded(ctx context.Context, srv *server) bool {
	var support string
	err := srv.db.QueryRowContext(ctx, "SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE='ROCKSDB'").Scan(&support)
	return err == nil && (support == "YES" || support == "DEFAULT")
}

// restartErrors returns the lines of the last start in a server's error
// log that mention RocksDB or are errors (at most 20).
func restartErrors(log string) string {
	if i := strings.LastIndex(log, "Starting MariaDB"); i >= 0 {
		log = log[i:]
	}
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(strings.ToLower(l), "rocksdb") || strings.Contains(l, "[ERROR]") {
			out = append(out, l)
		}
	}
	if len(out) > 20 {
		out = out[len(out)-20:]
	}
	return strings.Join(out, "\n")
}
