package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// writeTable prints one row per cell (and workload), then the elapsed
// seconds side by side per engine, as the published table shows them.
func writeTable(w io.Writer, o *options, results []result) {
	if len(results) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "engine\tbinlog\tdurability\treplica\tworkload\ttx\telapsed_s\tcommits/s\tfsync/commit\tinnodb\trocksdb_wal\tbinlog_sync\tgroup_commit\tcatchup_s\t note")
	var failures []string
	for _, r := range results {
		c := r.Cell
		row := []string{c.Engine, onOff(c.Binlog), c.Durability, noneOne(c.Replica), r.Workload}
		note := ""
		if r.Err != nil {
			note = " FAILED (below)"
			failures = append(failures, fmt.Sprintf("%s %s: FAILED: %v", c, r.Workload, r.Err))
		}
		switch {
		case r.Skip != "":
			row = append(row, dashes(9)...)
			note = " " + r.Skip
		case r.Transactions == 0 || r.Elapsed == 0:
			row = append(row, dashes(9)...)
		default:
			sec := r.Elapsed.Seconds()
			in, rk, bl := r.fsyncs()
			per := func(n int64) string {
				if r.Commits == 0 {
					return "-"
				}
				return fmt.Sprintf("%.3f", float64(n)/float64(r.Commits))
			}
			gc := "-"
			if c.Binlog && r.Delta["binlog_group_commits"] > 0 {
				gc = fmt.Sprintf("%.2f", float64(r.Delta["binlog_commits"])/float64(r.Delta["binlog_group_commits"]))
			}
			cu := "-"
			if c.Replica && r.CaughtUp {
				cu = fmt.Sprintf("%.2f", r.CatchUp.Seconds())
			}
			row = append(row, fmt.Sprint(r.Transactions), fmt.Sprintf("%.2f", sec),
				fmt.Sprintf("%.0f", float64(r.Commits)/sec), per(in+rk+bl), per(in), per(rk), per(bl), gc, cu)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t"+note)
	}
	tw.Flush()
	fmt.Fprintln(w, "fsync/commit = innodb (Innodb_data_fsyncs: redo log and data files) + rocksdb_wal (Rocksdb_wal_synced) + binlog_sync")
	fmt.Fprintln(w, "  (Binlog_group_commits when sync_binlog=1: MariaDB counts no binlog fsyncs), per commit (Com_commit + autocommit node writes);")
	fmt.Fprintln(w, "  group_commit = Binlog_commits / Binlog_group_commits; catchup_s = replica at the master's GTID position, after the master's end.")
	if o.tmpfs {
		fmt.Fprintln(w, "NOTE:", tmpfsNote(o))
	}
	for _, f := range failures {
		fmt.Fprintln(w, f)
	}
	writeSideBySide(w, o, results)
}

func dashes(n int) []string {
	d := make([]string, n)
	for i := range d {
		d[i] = "-"
	}
	return d
}

// writeSideBySide prints, for each binlog x replica setting, the elapsed
// seconds of the worst and best cells with one column per engine, as the
// published table (worst case: 180.76 s, 90.17 s, 89.14 s ...).
func writeSideBySide(w io.Writer, o *options, results []result) {
	type key struct {
		binlog, replica bool
		workload        string
	}
	// A setting gets a table when at least one of its cells ran.
	var order []key
	seen := map[key]bool{}
	for _, r := range results {
		k := key{r.Cell.Binlog, r.Cell.Replica, r.Workload}
		if r.Skip == "" && !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	for _, k := range order {
		fmt.Fprintf(w, "\nelapsed seconds, %s, binlog=%s, replica=%s:\n", k.workload, onOff(k.binlog), noneOne(k.replica))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "\t"+strings.Join(o.engines, "\t")+"\t")
		for _, d := range o.durabilities {
			row := []string{fmt.Sprintf("%s (%d tx)", d, o.transactionsDone(d))}
			for _, e := range o.engines {
				v := "-"
				for _, r := range results {
					c := r.Cell
					if c.Engine == e && c.Binlog == k.binlog && c.Replica == k.replica && c.Durability == d && r.Workload == k.workload {
						switch {
						case r.Skip != "":
							v = "n/a"
						case r.Err == nil && r.Elapsed > 0:
							v = fmt.Sprintf("%.2f", r.Elapsed.Seconds())
						default:
							v = "failed"
						}
					}
				}
				row = append(row, v)
			}
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
		tw.Flush()
	}
}
