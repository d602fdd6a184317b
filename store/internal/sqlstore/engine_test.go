package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/store"
)

// testOptions has the fields of a store's options the engine reads.
type testOptions struct {
	DSN, Host                       string
	Port                            int
	DBPrefix, LinkTable, CountTable string
	NodeTable                       string
	MaxConns, WarmParallelism       int
	ConnectTimeout                  time.Duration
	RetryAttempts                   int
	RetryBackoff, RetryMaxBackoff   time.Duration
	Logger                          *slog.Logger
	Database                        string
	Extra                           int
}

// testCode is a driver error with a code, as the dialects' are.
type testCode struct{ code string }

func (e *testCode) Error() string { return "server error " + e.code }

var testDialect = Dialect{Pkg: "teststore", DBKey: "db", ClassPrefix: "test",
	Classify: func(err error) (Class, string) {
		var c *testCode
		switch {
		case errors.As(err, &c) && c.code == "retry":
			return Retry, "retry"
		case errors.As(err, &c) && c.code == "conn":
			return Conn, "conn"
		case errors.As(err, &c):
			return Fatal, c.code
		}
		return Fatal, ""
	},
	Unsent:     func(error) bool { return false },
	NoSchema:   func(err error) bool { var c *testCode; return errors.As(err, &c) && c.code == "notable" },
	CheckIdent: func(s string) error { return CheckName(s, 12, "bytes", "`", "a back-quote") },
}

func newTestEngine(t *testing.T, attempts int) *Engine {
	t.Helper()
	o := testOptions{RetryAttempts: attempts, RetryBackoff: time.Microsecond, RetryMaxBackoff: time.Microsecond}
	if err := Defaults(&o, "teststore", 1234, testDialect.CheckIdent); err != nil {
		t.Fatal(err)
	}
	return NewEngine(&o, &testDialect, Redactor{PW: "hunter2", DSN: "u:*****@h"}, nil, nil)
}

// TestDefaults: zero fields take the defaults (the port the dialect's),
// set ones are kept, and a bad value is refused naming its field.
func TestDefaults(t *testing.T) {
	o := testOptions{MaxConns: 5, Extra: 7}
	if err := Defaults(&o, "teststore", 1234, testDialect.CheckIdent); err != nil {
		t.Fatal(err)
	}
	if o.Host != DefaultHost || o.Port != 1234 || o.DBPrefix != DefaultDBPrefix || o.LinkTable != DefaultLinkTable ||
		o.MaxConns != 5 || o.RetryAttempts != DefaultRetryAttempts || o.ConnectTimeout != DefaultConnectTimeout ||
		o.Logger == nil || o.Extra != 7 {
		t.Errorf("defaulted options %+v", o)
	}
	for _, c := range []struct {
		o    testOptions
		want string
	}{
		{testOptions{Port: 70000}, "teststore: Options.Port 70000 out of range"},
		{testOptions{MaxConns: -1}, "Options.MaxConns"},
		{testOptions{RetryAttempts: -2}, "Options.RetryAttempts"},
		{testOptions{RetryBackoff: 2 * time.Second}, "Options.RetryBackoff"},
		{testOptions{LinkTable: "a`b"}, "Options.LinkTable: name \"a`b\": contains a back-quote"},
		{testOptions{DBPrefix: "muchtoolongname"}, "Options.DBPrefix: name \"muchtoolongname\": want 1..12 bytes"},
	} {
		if err := Defaults(&c.o, "teststore", 1234, testDialect.CheckIdent); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Defaults(%+v) = %v, want an error with %q", c.o, err, c.want)
		}
	}
}

// TestRetry: the retry policy over the dialect's classes, and what it
// counts.
func TestRetry(t *testing.T) {
	ctx := context.Background()
	e := newTestEngine(t, 3)
	// Retry errors are retried, and the call succeeds.
	n := 0
	if err := e.Retry(ctx, OpAddLink, "db0", true, func(attempt int) error {
		if attempt != n {
			t.Errorf("attempt %d, want %d", attempt, n)
		}
		n++
		if n < 3 {
			return &testCode{"retry"}
		}
		return nil
	}); err != nil || n != 3 {
		t.Fatalf("retried call: %v after %d attempts", err, n)
	}
	// Exhausted: a *store.TransientError wrapping the last error.
	err := e.Retry(ctx, OpUpdateLink, "db0", true, func(int) error { return &testCode{"retry"} })
	var tc *testCode
	if !store.IsTransient(err) || !errors.As(err, &tc) {
		t.Fatalf("exhausted retries: %v", err)
	}
	// A lost connection of a write that is not idempotent is not retried.
	n = 0
	err = e.Retry(ctx, OpAddNode, "db0", false, func(int) error { n++; return &testCode{"conn"} })
	if !store.IsTransient(err) || n != 1 {
		t.Fatalf("lost connection of AddNode: %v after %d attempts", err, n)
	}
	// A fatal error at once, with its report class; a missing table also
	// matches store.ErrNoSchema, with its message unchanged; the password
	// is redacted.
	err = e.Retry(ctx, OpGetLink, "db0", true, func(int) error { return fmt.Errorf("hunter2: %w", &testCode{"notable"}) })
	var ec interface{ ErrorClass() string }
	if !errors.As(err, &ec) || ec.ErrorClass() != "test notable" || !errors.Is(err, store.ErrNoSchema) ||
		err.Error() != "teststore: GetLink: *****: server error notable" {
		t.Fatalf("fatal error: %v", err)
	}
	got := map[string]int64{}
	for _, c := range e.Counters() {
		got[c.Name] = c.Value
	}
	want := map[string]int64{"retries.AddLink": 2, "max_retries.AddLink": 2, "retries.UpdateLink": 2,
		"failures.UpdateLink": 1, "transient.UpdateLink": 1, "failures.AddNode": 1, "transient.AddNode": 1,
		"failures.GetLink": 1, "errors.retry": 5, "errors.conn": 1, "errors.notable": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counters %v, want %v", got, want)
	}
	// A closed engine ends the retries with store.ErrClosed.
	e.Close()
	if err := e.Retry(ctx, OpGetNode, "db0", true, func(int) error { return &testCode{"retry"} }); !errors.Is(err, store.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// TestOpString: every op has a name of its own.
func TestOpString(t *testing.T) {
	seen := map[string]bool{}
	for o := range NumOps {
		s := o.String()
		if strings.HasPrefix(s, "op(") || seen[s] {
			t.Errorf("op %d has name %q", o, s)
		}
		seen[s] = true
	}
}

// TestRedactor: the password and its URL-escaped forms leave messages;
// errors.Is sees through the redaction.
func TestRedactor(t *testing.T) {
	r := Redactor{PW: "p@ss word"}
	base := errors.New("dial u:p%40ss+word@h and p@ss word")
	err := r.Err(base)
	if strings.Contains(err.Error(), "p@ss") || strings.Contains(err.Error(), "p%40ss") || !errors.Is(err, base) {
		t.Fatalf("redacted %q", err)
	}
	if plain := errors.New("nothing"); r.Err(plain) != plain {
		t.Error("an error without the password was rewrapped")
	}
}

// TestIsLoopback: the names of this host.
func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{"": true, "localhost": true, "127.0.0.1": true, "::1": true,
		"/run/postgresql": true, "10.0.0.5": false, "db.example.com": false} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestWriteNodeDeleteAfterLostConnection: a DeleteNode whose first
// attempt lost its connection after sending its statement, and whose
// retry finds no node, reports the delete as done (the first attempt may
// have done it) and counts it ambiguous; with a statement that was never
// sent, or an UpdateNode, a retry that finds nothing is a miss.
func TestWriteNodeDeleteAfterLostConnection(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name      string
		o         Op
		unsent    bool
		wantFound bool
	}{
		{"delete, statement sent", OpDeleteNode, false, true},
		{"delete, statement never sent", OpDeleteNode, true, false},
		{"update, statement sent", OpUpdateNode, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEngine(t, 3)
			d := *e.d
			d.Unsent = func(error) bool { return c.unsent }
			e.d = &d
			var calls Calls
			calls.Init(e, "db0", func() {}, func() {})
			n := 0
			found, err := calls.WriteNode(ctx, c.o, 7, func() (int64, error) {
				n++
				if n == 1 {
					return 0, &testCode{"conn"}
				}
				return 0, nil // the node is gone
			})
			if err != nil || n != 2 {
				t.Fatalf("WriteNode: %v after %d attempts", err, n)
			}
			if found != c.wantFound {
				t.Errorf("found = %v, want %v", found, c.wantFound)
			}
			if got, want := e.Events.Ambiguous.Load(), map[bool]int64{true: 1, false: 0}[c.wantFound]; got != want {
				t.Errorf("ambiguous = %d, want %d", got, want)
			}
		})
	}
}
