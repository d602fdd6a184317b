package main

import (
	"fmt"
	"maps"
	"strings"

	"github.com/linkbench-go/linkbench/stats/results"
)

// label names a cell in its result file: engine/binlog/durability/replica,
// e.g. "InnoDB/binlog=on/worst/replica=one".
func (c cell) label() string {
	return fmt.Sprintf("%s/binlog=%s/%s/replica=%s", c.Engine, onOff(c.Binlog), c.Durability, noneOne(c.Replica))
}

// fileName is the name of r's result file in the -results directory.
func (r *result) fileName() string {
	c := r.Cell
	return fmt.Sprintf("%s.binlog-%s.%s.replica-%s.json", strings.ToLower(c.Engine), onOff(c.Binlog), c.Durability, noneOne(c.Replica))
}

// resultFile returns the result file of a measured linkbench cell: the
// cell as its label, the LinkBench configuration, the master's version and
// checked variables as the server (the replica's prefixed "replica."), the
// request report's counts and latencies, and as counters the master's
// status counter deltas over the measured transactions, the commits, the
// fsyncs the table shows and the replica's catch-up.
func resultFile(o *options, r *result, version string) *results.File {
	rep := r.report
	f := &results.File{Label: r.Cell.label(), Phase: rep.Phase, Store: "mysql", Start: rep.Start,
		End: rep.Start.Add(rep.Elapsed), Seconds: rep.Elapsed.Seconds(), Threads: rep.Threads,
		Status: rep.Status, Detail: rep.Detail, HDRUnit: rep.Unit}
	f.Config = map[string]string{}
	for _, p := range r.cfg.Properties() {
		f.Config[p.Key] = p.Value
	}
	f.Config["durability.engine"] = r.Cell.Engine
	f.Config["durability.binlog"] = onOff(r.Cell.Binlog)
	f.Config["durability.durability"] = r.Cell.Durability
	f.Config["durability.replica"] = noneOne(r.Cell.Replica)
	f.Config["durability.transactions"] = fmt.Sprint(o.transactions(r.Cell.Durability))
	f.Config["durability.tmpfs"] = fmt.Sprint(o.tmpfs)
	f.Server = &results.Server{Version: r.MasterVars["version"], Settings: map[string]string{}}
	if f.Server.Version == "" {
		f.Server.Version = version
	}
	for k, v := range r.MasterVars {
		if k != "version" {
			f.Server.Settings[k] = v
		}
	}
	for k, v := range r.ReplicaVars {
		if k != "version" {
			f.Server.Settings["replica."+k] = v
		}
	}
	if rep.Request != nil {
		f.Requests, f.Errors, f.Threads = rep.Request.Requests, rep.Request.Errors, rep.Request.Requesters
	}
	for _, op := range rep.Ops {
		ro := results.Op{Op: op.Op, Count: op.Count(), Successes: op.Successes, Misses: op.Misses,
			Errors: op.Errors, Abandoned: op.Abandoned}
		if op.Op.IsSize() {
			s := op.Latency
			ro.Sizes = &s
		} else if op.Latency.Count > 0 {
			ro.Latency = results.PercentilesOf(op.Latency)
		}
		f.Ops = append(f.Ops, ro)
	}
	f.Counters = maps.Clone(r.Delta)
	in, rk, bl := r.fsyncs()
	f.Counters["commits"] = r.Commits
	f.Counters["fsyncs_innodb"], f.Counters["fsyncs_rocksdb_wal"], f.Counters["fsyncs_binlog"] = in, rk, bl
	if r.Cell.Replica && r.CaughtUp {
		f.Counters["replica_catchup_us"] = r.CatchUp.Microseconds()
	}
	f.Derive()
	return f
}

// writeResultFile writes r's result file to path.
func writeResultFile(path string, o *options, r *result, version string) error {
	if err := results.Write(path, resultFile(o, r, version)); err != nil {
		return fmt.Errorf("-results: %w", err)
	}
	return nil
}
