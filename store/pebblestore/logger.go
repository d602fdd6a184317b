package pebblestore

import (
	"context"
	"fmt"
	"log/slog"
)

// slogLogger is a pebble.Logger writing to a *slog.Logger: Infof at
// LevelDebug (Pebble reports every flush, compaction and file at that
// level: a benchmark's log at LevelInfo would drown in them), Errorf at
// LevelError. Fatalf, which Pebble calls on an
// invariant it cannot recover from, logs at LevelError and panics (Pebble's
// default logger exits the process; a library does not).
type slogLogger struct{ l *slog.Logger }

// Infof implements pebble.Logger.
func (s slogLogger) Infof(format string, args ...any) {
	s.l.Log(context.Background(), slog.LevelDebug, fmt.Sprintf(format, args...), "component", "pebble")
}

// Errorf implements pebble.Logger.
func (s slogLogger) Errorf(format string, args ...any) {
	s.l.Log(context.Background(), slog.LevelError, fmt.Sprintf(format, args...), "component", "pebble")
}

// Fatalf implements pebble.Logger.
func (s slogLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.l.Log(context.Background(), slog.LevelError, msg, "component", "pebble", "fatal", true)
	panic("pebble: " + msg)
}

// discardLogger is the pebble.Logger of a store without a Logger: Pebble
// would otherwise print to the standard log.
type discardLogger struct{}

// Infof implements pebble.Logger.
func (discardLogger) Infof(string, ...any) {}

// Errorf implements pebble.Logger.
func (discardLogger) Errorf(string, ...any) {}

// Fatalf implements pebble.Logger: it panics (see slogLogger.Fatalf).
func (discardLogger) Fatalf(format string, args ...any) {
	panic("pebble: " + fmt.Sprintf(format, args...))
}
