package cli

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/internal/testdb"
	"github.com/linkbench-go/linkbench/store/mysqlstore"
)

// Tests on a three-node Galera cluster ($LINKBENCH_TEST_GALERA_DSN and
// $LINKBENCH_GALERA_CMD, see .ci/galera.sh).

// galeraGraph is the small graph of the Galera tests: 2000 nodes, 4 links
// each.
var galeraGraph = []string{"-D", "maxid1=2001", "-D", "nlinks_func=const", "-D", "nlinks_default=4", "-D", "nlinks_config=0"}

// galeraNodes returns the cluster's DSN list, its nodes' DSNs and the
// command that kills and restarts nodes.
func galeraNodes(t *testing.T) (string, []string, string) {
	t.Helper()
	dsns, cmd := testdb.GaleraDSN(t)
	list := mysqlstore.SplitDSN(dsns)
	if len(list) != 3 {
		t.Fatalf("%s lists %d DSNs, want 3", testdb.EnvGaleraDSN, len(list))
	}
	return dsns, list, cmd
}

// nodeState is what a node holds of a database: row counts and sums that
// differ when a write is missing or applied twice.
type nodeState struct {
	Links, Visible, VersionSum, Counts, CountSum, Nodes, NodeVersionSum int64
}

// readNodeState reads db's state on the node of dsn, after the node
// applied what the cluster committed (wsrep_sync_wait=1).
func readNodeState(t *testing.T, dsn, db string) nodeState {
	t.Helper()
	h, err := sql.Open("mysql", dsn+"?wsrep_sync_wait=1")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var s nodeState
	q := fmt.Sprintf("SELECT (SELECT COUNT(*) FROM `%[1]s`.linktable), (SELECT COALESCE(SUM(visibility),0) FROM `%[1]s`.linktable), "+
		"(SELECT COALESCE(SUM(version),0) FROM `%[1]s`.linktable), (SELECT COUNT(*) FROM `%[1]s`.counttable), "+
		"(SELECT COALESCE(SUM(count),0) FROM `%[1]s`.counttable), (SELECT COUNT(*) FROM `%[1]s`.nodetable), "+
		"(SELECT COALESCE(SUM(version),0) FROM `%[1]s`.nodetable)", db)
	if err := h.QueryRow(q).Scan(&s.Links, &s.Visible, &s.VersionSum, &s.Counts, &s.CountSum, &s.Nodes, &s.NodeVersionSum); err != nil {
		t.Fatalf("%s: %v", mysqlstore.RedactDSN(dsn), err)
	}
	return s
}

// verifyLine is -verify's line for a database.
var verifyLine = regexp.MustCompile(`(?m)^VERIFY \S+: .*counts OK$`)

// verifyEveryNode runs -verify (with -audit log when log is not "") on
// each node alone and checks that it passes with the same figures, and
// that every node holds the same rows.
func verifyEveryNode(t *testing.T, list []string, prefix, log string) {
	t.Helper()
	var first string
	var firstState nodeState
	for i, dsn := range list {
		args := append([]string{"-store", "mysql", "-dsn", dsn + "?wsrep_sync_wait=1", "-D", "dbprefix=" + prefix, "-verify"}, galeraGraph...)
		if log != "" {
			args = append(args, "-audit", log)
		}
		code, out, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("node %d: -verify: exit %d\n%s\n%s", i+1, code, out, stderr)
		}
		line := verifyLine.FindString(out)
		if line == "" {
			t.Fatalf("node %d: no VERIFY line:\n%s", i+1, out)
		}
		if log != "" && auditSummary.FindString(out) == "" {
			t.Fatalf("node %d: no audit summary with 0 lost:\n%s", i+1, out)
		}
		st := readNodeState(t, dsn, prefix+"0")
		if i == 0 {
			first, firstState = line, st
			t.Logf("node 1: %s; %+v", line, st)
			continue
		}
		if line != first || st != firstState {
			t.Errorf("node %d differs from node 1:\n  %s %+v\n  %s %+v", i+1, line, st, first, firstState)
		}
	}
}

// TestGaleraLoadRequestVerify: a load by three loaders and a short request
// phase over the three nodes; -verify passes on every node, with the same
// counts and rows on each.
func TestGaleraLoadRequestVerify(t *testing.T) {
	dsns, list, _ := galeraNodes(t)
	prefix := uniquePrefix("galera")
	dropAfter(t, list[0], prefix, 1)
	args := append([]string{"-store", "mysql", "-dsn", dsns, "-D", "dbprefix=" + prefix, "-create-schema", "-l", "-r",
		"-D", "loaders=3", "-D", "requesters=6", "-D", "maxtime=3", "-verify"}, galeraGraph...)
	code, out, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, dsn := range list {
		noPassword(t, dsn, out+stderr)
	}
	if !strings.Contains(out, "store: mysql "+mysqlstore.RedactDSN(dsns)) {
		t.Errorf("the store line does not name the three nodes:\n%s", out)
	}
	if !strings.Contains(out, "Loaded 2000 nodes") {
		t.Errorf("no load summary of 2000 nodes:\n%s", out)
	}
	verifyEveryNode(t, list, prefix, "")
}

// reportCounter returns the value of a store counter line "name = N" of a
// report (0 when absent).
func reportCounter(out, name string) int64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` = (\d+)$`).FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// TestGaleraNodeKill: 16 requesters over the three nodes with -audit;
// node 2 is killed (SIGKILL) 3 s into the 10 s phase and restarted 3 s
// later. The run goes on and ends within maxtime + grace_time, its
// requesters on node 2 move to the others (reconnects, in the report and
// in the progress line of the interval), node 2 rejoins (Synced), and
// -verify on every node passes with the same rows everywhere and no
// acknowledged write lost.
func TestGaleraNodeKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a cluster node (about 30 s)")
	}
	dsns, list, cmd := galeraNodes(t)
	if cmd == "" {
		testdb.Unavailable(t, "the node-kill test needs "+testdb.EnvGaleraCmd+" (set by .ci/galera.sh start)")
	}
	prefix := uniquePrefix("galkill")
	dropAfter(t, list[0], prefix, 1)
	log := filepath.Join(t.TempDir(), "run.audit")
	common := append([]string{"-store", "mysql", "-dsn", dsns, "-D", "dbprefix=" + prefix, "-audit", log}, galeraGraph...)
	if code, out, stderr := runCLI(t, append(common, "-create-schema", "-l", "-D", "loaders=3")...); code != 0 {
		t.Fatalf("load: exit %d\n%s\n%s", code, out, stderr)
	}

	const maxTime, grace = 10 * time.Second, 5 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	node := func(op string) (string, error) {
		out, err := exec.CommandContext(ctx, "sh", "-c", cmd+" "+op+" 2").CombinedOutput()
		return string(out), err
	}
	type result struct {
		killed, restarted time.Duration
		out               string
		err               error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		var r result
		defer func() { done <- r }()
		time.Sleep(3 * time.Second)
		if r.out, r.err = node("kill-node"); r.err != nil {
			return
		}
		r.killed = time.Since(start)
		time.Sleep(3 * time.Second)
		var out string
		out, r.err = node("restart-node")
		r.out += out
		r.restarted = time.Since(start)
	}()
	code, out, stderr := runCLI(t, append(common, "-r", "-D", "requesters=16", "-D", "progressfreq=1",
		"-D", fmt.Sprintf("maxtime=%d", int(maxTime.Seconds())), "-D", fmt.Sprintf("grace_time=%d", int(grace.Seconds())))...)
	wall := time.Since(start)
	r := <-done
	if r.err != nil {
		t.Fatalf("kill/restart of node 2: %v\n%s", r.err, r.out)
	}
	if code != 0 {
		t.Fatalf("request phase: exit %d\n%s\n%s", code, out, stderr)
	}
	if wall > maxTime+grace+5*time.Second { // + the phase's preparation and reports
		t.Errorf("the run took %v, want at most maxtime %v + grace %v (+5 s)", wall, maxTime, grace)
	}
	reconnects := reportCounter(out, "reconnects")
	if reconnects < 1 {
		t.Errorf("no reconnects in the report:\n%s", out)
	}
	if !regexp.MustCompile(`request progress: .*; store:.* reconnects=\d+`).MatchString(stderr) {
		t.Errorf("no progress line shows the reconnects:\n%s", stderr)
	}
	if !regexp.MustCompile(`(?m)^SUMMARY request tps=`).MatchString(out) {
		t.Errorf("no request summary:\n%s", out)
	}
	t.Logf("run %.1f s (maxtime %v): node 2 killed at %.1f s, rejoined (Synced) at %.1f s; reconnects=%d, errors: cert_conflict=%d conn=%d, ambiguous=%d (applied %d)",
		wall.Seconds(), maxTime, r.killed.Seconds(), r.restarted.Seconds(), reconnects, reportCounter(out, "errors.cert_conflict"),
		reportCounter(out, "errors.conn"), reportCounter(out, "ambiguous"), reportCounter(out, "ambiguous_applied"))
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "; store:") {
			t.Logf("%s", l)
		}
	}
	// Node 2 is back in a cluster of three.
	h, err := sql.Open("mysql", list[1])
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var name, state string
	if err := h.QueryRow("SHOW STATUS LIKE 'wsrep_local_state_comment'").Scan(&name, &state); err != nil || state != "Synced" {
		t.Errorf("node 2 after its restart: %q, %v; want Synced", state, err)
	}
	var size int
	if err := h.QueryRow("SHOW STATUS LIKE 'wsrep_cluster_size'").Scan(&name, &size); err != nil || size != 3 {
		t.Errorf("node 2 after its restart: cluster size %d, %v; want 3", size, err)
	}
	verifyEveryNode(t, list, prefix, log)
}

// TestDSNListEmptyElement: a DSN list with an empty element (",," or a
// trailing comma) is a one-line usage error (exit 2) naming the element,
// before any connection, and without the password; the driver is never
// handed a DSN whose password holds the rest of the list.
func TestDSNListEmptyElement(t *testing.T) {
	d1, d3 := "lbtest:sEcr3tpw@tcp(127.0.0.1:1)/", "lbtest:sEcr3tpw@tcp(127.0.0.1:3)/"
	for _, c := range []struct{ dsn, want string }{
		{d1 + ",," + d3, "element 2 of the DSN list"},
		{d1 + "," + d3 + ",", "element 3 of the DSN list"},
		{"," + d1, "element 1 of the DSN list"},
	} {
		code, out, stderr := runCLI(t, "-store", "mysql", "-dsn", c.dsn, "-l", "-D", "maxid1=11")
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 ||
			strings.Contains(stderr+out, "sEcr3tpw") {
			t.Errorf("-dsn with an empty element: exit %d, want 2 and one line with %q and no password:\n%s%s", code, c.want, out, stderr)
		}
	}
}
