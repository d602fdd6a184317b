package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// findSysbench returns the path of sysbench, or an error saying how to
// install it.
func findSysbench() (string, error) {
	p, err := exec.LookPath("sysbench")
	if err != nil {
		return "", errors.New("-sysbench: sysbench not found (Debian: apt-get install sysbench)")
	}
	return p, nil
}

// execOutput runs a short command and returns its standard output.
func execOutput(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	return string(out), err
}

var (
	sbTransactions = regexp.MustCompile(`transactions:\s+(\d+)`)
	sbTotalTime    = regexp.MustCompile(`total time:\s+([0-9.]+)s`)
)

// sysbench runs the classic oltp_write_only on the cell's master: prepare
// (one table of -sysbench-table-size rows in the cell's engine; the
// replica applies it before the measurement), then the same number of
// transactions as LinkBench's with the same requesters as threads.
func (e *runEnv) sysbench(ctx context.Context, c cell, master, replica *server) result {
	res := result{Cell: c, Workload: "sysbench", MasterVars: master.vars, ReplicaVars: nil}
	if replica != nil {
		res.ReplicaVars = replica.vars
	}
	if _, err := master.db.ExecContext(ctx, "CREATE DATABASE sbtest"); err != nil {
		res.Err = err
		return res
	}
	engine := "innodb"
	if c.Engine == engineRocksDB {
		engine = "rocksdb"
	}
	common := []string{"oltp_write_only", "--db-driver=mysql", "--mysql-socket=" + master.socket(), "--mysql-user=root",
		"--mysql-db=sbtest", "--mysql-storage-engine=" + engine, "--tables=1",
		"--table-size=" + strconv.Itoa(e.o.sysbenchTableSize), "--threads=" + strconv.Itoa(e.o.requesters)}
	if out, err := e.runSysbench(ctx, append(common, "prepare")...); err != nil {
		res.Err = fmt.Errorf("sysbench prepare: %w\n%s", err, tail(out, 10))
		return res
	}
	if replica != nil {
		if _, err := waitCaughtUp(ctx, master, replica, e.o.catchUpTimeout); err != nil {
			res.Err = fmt.Errorf("after sysbench prepare: %w", err)
			return res
		}
	}
	before, err := master.status(ctx, statusCounters...)
	if err != nil {
		res.Err = err
		return res
	}
	n := e.o.transactions(c.Durability)
	out, err := e.runSysbench(ctx, append(common, "--time=0", "--events="+strconv.FormatInt(n, 10), "run")...)
	end := time.Now()
	if err != nil {
		res.Err = fmt.Errorf("sysbench run: %w\n%s", err, tail(out, 10))
		return res
	}
	if replica != nil {
		at, err := waitCaughtUp(ctx, master, replica, e.o.catchUpTimeout)
		if err != nil {
			res.Err = err
			return res
		}
		res.CatchUp, res.CaughtUp = at.Sub(end), true
	}
	after, err := master.status(ctx, statusCounters...)
	if err != nil {
		res.Err = err
		return res
	}
	res.Delta = deltas(before, after)
	res.Commits = res.Delta["com_commit"]
	res.SyncBinlog = master.vars["sync_binlog"] == "1"
	m1, m2 := sbTransactions.FindStringSubmatch(out), sbTotalTime.FindStringSubmatch(out)
	if m1 == nil || m2 == nil {
		res.Err = fmt.Errorf("sysbench run: no transactions or total time in its output:\n%s", tail(out, 20))
		return res
	}
	res.Transactions, _ = strconv.ParseInt(m1[1], 10, 64)
	secs, _ := strconv.ParseFloat(m2[1], 64)
	res.Elapsed = time.Duration(secs * float64(time.Second))
	if replica != nil {
		if res.MasterGTID, res.ReplicaGTID, err = gtidPositions(ctx, master, replica); err != nil {
			res.Err = err
		}
	}
	return res
}

// runSysbench runs sysbench with args and returns its output.
func (e *runEnv) runSysbench(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, e.o.sysbench, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var b strings.Builder
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.String(), err
}
