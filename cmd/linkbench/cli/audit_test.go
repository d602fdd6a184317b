package cli

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/audit"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// lossyStore acknowledges every 20th UpdateLink without doing it: a store
// that loses acknowledged writes.
type lossyStore struct {
	store.Forward
	calls *atomic.Int64
}

func (s lossyStore) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	if s.calls.Add(1)%20 == 0 {
		return store.LinkUpdate, nil
	}
	return s.Forward.UpdateLink(ctx, l, noInverse)
}

func init() {
	store.Register("clitestlossy", func(context.Context, string, store.OpenOptions) (store.Store, error) {
		var calls atomic.Int64
		var wrap func(store.Store) store.Store
		wrap = func(s store.Store) store.Store {
			return lossyStore{Forward: store.Forward{Inner: s, Wrap: wrap}, calls: &calls}
		}
		return wrap(memstore.New()), nil
	})
}

var auditSummary = regexp.MustCompile(`(?m)^audit: no acknowledged write lost \((\d+) acknowledged writes, (\d+) keys read in [0-9.]+ s\)$`)

// TestAudit: -audit with -verify on the memory store prints the table
// with no loss and exits 0; on a store that loses acknowledged writes it
// lists them and exits 1; the log is the phases' writes.
func TestAudit(t *testing.T) {
	t.Setenv("LINKBENCH_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	args := []string{"-D", "maxid1=2001", "-D", "maxtime=1", "-D", "requesters=2", "-D", "nlinks_func=const", "-D", "nlinks_default=2", "-l", "-r", "-verify"}
	code, out, stderr := runCLI(t, append([]string{"-store", "memory", "-audit", "run.audit"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	if !strings.Contains(out, "audit of acknowledged writes (run.audit):") || !regexp.MustCompile(`(?m)^ +UPDATE_LINK +\d+ +\d+ +\d+ +0 +0$`).MatchString(out) {
		t.Errorf("no audit table:\n%s", out)
	}
	m := auditSummary.FindStringSubmatch(out)
	if m == nil || m[1] == "0" {
		t.Fatalf("no summary line with acknowledged writes:\n%s", out)
	}
	recs, err := audit.ReadFile("run.audit")
	if err != nil {
		t.Fatal(err)
	}
	acked := 0
	for _, r := range recs {
		if r.Acked && r.Op != audit.ResetNodes {
			acked++
		}
	}
	if want := m[1]; want != strconv.Itoa(acked) {
		t.Errorf("the table counts %s acknowledged writes, the log holds %d", want, acked)
	}

	// A store that loses writes: listed, exit 1.
	code, out, stderr = runCLI(t, append([]string{"-store", "clitestlossy", "-audit", "lossy.audit"}, args...)...)
	if code != 1 {
		t.Fatalf("lossy store: exit %d, want 1: %s\n%s", code, stderr, out)
	}
	if !regexp.MustCompile(`(?m)^audit: [1-9]\d* of \d+ acknowledged writes LOST`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^LOST UPDATE_LINK id1=\d+ link_type=\d+ id2=\d+ visibility=1 `).MatchString(out) {
		t.Errorf("lossy store: no LOST lines:\n%s", out)
	}
	if !strings.Contains(out, "counts OK") {
		t.Errorf("lossy store: -verify's count check did not run or failed:\n%s", out)
	}
}

// TestAuditBadInput: -audit's bad inputs exit 2 with one line naming the
// flag, before anything is written.
func TestAuditBadInput(t *testing.T) {
	runBadInput(t, []badCase{
		{name: "audit and trace the same file", args: []string{"-audit", "%D/calls.trace"}, names: []string{"-trace and -audit name the same file"}},
		{name: "verify a missing log", args: []string{"-store", "mysql", "-dsn", "root@tcp(127.0.0.1:1)/", "-verify", "-audit", "%D/missing.audit"},
			names: []string{"-audit: open", "missing.audit"}},
	})
	dir := t.TempDir()
	notLog := filepath.Join(dir, "not.audit")
	if err := os.WriteFile(notLog, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "-store", "mysql", "-dsn", "root@tcp(127.0.0.1:1)/", "-verify", "-audit", notLog)
	if code != 2 || !strings.Contains(stderr, "-audit "+notLog+":1: not an audit log") {
		t.Errorf("a file that is not a log: exit %d, stderr %q", code, stderr)
	}
}

// TestMySQLAudit: -l -r -audit writes the log, -verify -audit alone checks
// an existing database against it (exit 0), and a row deleted behind the
// tool's back is a lost write (exit 1).
func TestMySQLAudit(t *testing.T) {
	dsn := testDSN(t)
	prefix := uniquePrefix("audit")
	dropAfter(t, dsn, prefix, 1)
	log := filepath.Join(t.TempDir(), "run.audit")
	common := []string{"-store", "mysql", "-dsn", dsn, "-D", "dbprefix=" + prefix, "-D", "maxid1=2001",
		"-D", "nlinks_func=const", "-D", "nlinks_default=5", "-audit", log}
	code, out, stderr := runCLI(t, append(common, "-create-schema", "-l", "-r", "-D", "requesters=4", "-D", "maxtime=3")...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, append(common, "-verify")...)
	if code != 0 || auditSummary.FindString(out) == "" {
		t.Fatalf("-verify -audit alone: exit %d\n%s\n%s", code, out, stderr)
	}
	noPassword(t, dsn, out+stderr)
	// Delete, behind the tool's back, the row of the last ADD_LINK that
	// the store still shows as written.
	recs, err := audit.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var victim *audit.Record
	for i := range recs {
		if r := &recs[i]; r.Acked && r.Op == audit.AddLink {
			victim = r
		}
	}
	if victim == nil {
		t.Fatal("no ADD_LINK in the log")
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec("DELETE FROM `"+prefix+"0`.linktable WHERE id1 = ? AND link_type = ? AND id2 = ?", victim.ID, victim.LinkType, victim.ID2)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("deleted %d rows", n)
	}
	code, out, _ = runCLI(t, append(common, "-verify")...)
	if code != 1 || !strings.Contains(out, "LOST ADD_LINK id1="+strconv.FormatInt(victim.ID, 10)) {
		t.Errorf("after deleting a written row: exit %d, want 1 and a LOST ADD_LINK line:\n%s", code, out)
	}
}
