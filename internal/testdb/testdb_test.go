package testdb

import (
	"runtime"
	"testing"
)

// fakeTB records how a test would end; Fatal and Skip end the goroutine,
// as testing's do.
type fakeTB struct {
	testing.TB
	failed, skipped bool
}

func (f *fakeTB) Helper()        {}
func (f *fakeTB) Fatal(...any)   { f.failed = true; runtime.Goexit() }
func (f *fakeTB) Skip(...any)    { f.skipped = true; runtime.Goexit() }
func (f *fakeTB) Cleanup(func()) {}

// call runs f(tb) in a goroutine of its own and waits for it to end.
func call(tb *fakeTB, f func(testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(tb)
	}()
	<-done
}

// TestUnavailable: a test without its server skips, except in CI, where it
// fails.
func TestUnavailable(t *testing.T) {
	t.Setenv(EnvDSN, "")
	t.Setenv(EnvRestartDSN, "")
	for _, ci := range []string{"", "1"} {
		t.Setenv(EnvCI, ci)
		for name, f := range map[string]func(testing.TB){
			"MySQLDSN":         func(tb testing.TB) { MySQLDSN(tb) },
			"RestartableMySQL": func(tb testing.TB) { RestartableMySQL(tb) },
		} {
			tb := &fakeTB{}
			call(tb, f)
			if tb.failed != (ci == "1") || tb.skipped == (ci == "1") {
				t.Errorf("%s with %s=%q: failed %v, skipped %v", name, EnvCI, ci, tb.failed, tb.skipped)
			}
		}
	}
}

// TestRestartableLock: the lock is released when the holder ends, so a
// second holder gets it.
func TestRestartableLock(t *testing.T) {
	t.Setenv(EnvRestartDSN, "u:p@tcp(127.0.0.1:1)/")
	t.Setenv(EnvRestartCmd, "true")
	for range 2 {
		t.Run("holder", func(t *testing.T) {
			dsn, cmd := RestartableMySQL(t)
			if dsn == "" || cmd != "true" {
				t.Errorf("RestartableMySQL = %q, %q", dsn, cmd)
			}
		})
	}
}
