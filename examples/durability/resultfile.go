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
	cfg := map[string]string{}
	for _, p := range r.cfg.Properties() {
		cfg[p.Key] = p.Value
	}
	cfg["durability.engine"] = r.Cell.Engine
	cfg["durability.binlog"] = onOff(r.Cell.Binlog)
	cfg["durability.durability"] = r.Cell.Durability
	cfg["durability.replica"] = noneOne(r.Cell.Replica)
	cfg["durability.transactions"] = fmt.Sprint(o.transactions(r.Cell.Durability))
	cfg["durability.tmpfs"] = fmt.Sprint(o.tmpfs)
	// The library's result file of the report (counts, latencies, errors,
	// seeds, the store's counters), with the cell's own figures added.
	f := results.FromReport(r.report, results.Phase{Label: r.Cell.label(), Store: "mysql", Config: cfg})
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
	if f.Counters == nil {
		f.Counters = map[string]int64{}
	}
	maps.Copy(f.Counters, r.Delta)
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
