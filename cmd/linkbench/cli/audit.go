package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/linkbench-go/linkbench/store/audit"
)

// auditRun is -audit FILE: the log the phases write (nil when no phase
// runs) and its path.
type auditRun struct {
	path string
	log  *audit.Log
}

// auditHeader starts an audit log's first line.
const auditHeader = "# linkbench-audit v"

// checkAudit checks -audit before anything is opened: with -verify alone,
// FILE must be an existing audit log.
func (r *runner) checkAudit() error {
	o := r.o
	if o.audit == "" {
		return nil
	}
	if o.load || o.req {
		return nil
	}
	// No phase: -verify alone (parseArgs allows nothing else).
	f, err := os.Open(o.audit)
	if err != nil {
		return usageError{fmt.Errorf("-audit: %w", err)}
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if !strings.HasPrefix(line, auditHeader) {
		if err != nil && line == "" {
			return usageError{fmt.Errorf("-audit %s: empty or unreadable: not an audit log", o.audit)}
		}
		return usageError{fmt.Errorf("-audit %s:1: not an audit log (its first line does not start with %q)", o.audit, auditHeader)}
	}
	return nil
}

// openAudit opens -audit's log when a phase runs and wraps the run's
// store with it: created anew with -l (a load starts a new graph),
// appended to with -r alone (a new segment: the log of earlier runs on
// the same graph is kept). closers gets its Close.
func (r *runner) openAudit(closers *[]func()) error {
	o := r.o
	if o.audit == "" {
		return nil
	}
	r.audit = &auditRun{path: o.audit}
	if !o.load && !o.req {
		return nil
	}
	open := audit.Append
	if o.load {
		open = audit.Create
	}
	l, err := open(o.audit)
	if err != nil {
		return usageError{fmt.Errorf("-audit: %w", err)}
	}
	r.audit.log = l
	*closers = append(*closers, func() {
		if err := l.Close(); err != nil {
			fmt.Fprintln(r.stderr, "linkbench: -audit:", err)
		}
	})
	r.runStore = l.Wrap(r.runStore)
	return nil
}

// runVerifyAudit runs -verify (the counts) and, with -audit, the audit's
// verification: its table, and exit status 1 when an acknowledged write
// was lost.
func (r *runner) runVerifyAudit(ctx context.Context) int {
	code := r.runVerify(ctx)
	if r.audit == nil || code > 1 {
		return code
	}
	if l := r.audit.log; l != nil {
		if err := l.Err(); err != nil {
			// Some records are missing: a verification would judge
			// an incomplete log.
			fmt.Fprintln(r.stderr, "linkbench: -audit: the log is incomplete, not verified:", err)
			return 1
		}
	}
	fmt.Fprintf(r.stdout, "\naudit of acknowledged writes (%s):\n", r.audit.path)
	res, err := audit.VerifyFiles(ctx, r.st.Store, audit.Options{}, r.audit.path)
	if c, ok := r.interrupted("verify"); ok {
		return c
	}
	if err != nil {
		return r.fail(fmt.Errorf("-audit: %w", err))
	}
	if err := audit.WriteTable(r.stdout, res); err != nil {
		return r.fail(err)
	}
	if res.HasLost() {
		return 1
	}
	return code
}
