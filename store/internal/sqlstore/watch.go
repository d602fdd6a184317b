package sqlstore

import (
	"context"
	"sync"
)

// Watch is a session's watch of its calls' context: when the context is
// done, it interrupts the session's connections (the dialect sets a past
// deadline on them), which ends a statement waiting for the server, with
// no watcher goroutine per statement. A worker passes the same context to
// every call, so the watch is set up once per phase (Follow), not per
// call (Current).
//
// A session uses its Watch from its one goroutine; the interruption runs
// on the context's AfterFunc goroutine, under the watch's lock, which the
// session also takes (Locked) when it replaces a connection.
type Watch struct {
	ctx  context.Context
	stop func() bool

	mu    sync.Mutex // guards gen and fired against the AfterFunc
	gen   uint64
	fired bool
}

// Current reports whether the watch follows ctx already.
func (w *Watch) Current(ctx context.Context) bool { return ctx == w.ctx }

// Follow makes the watch follow ctx instead of the previous context: when
// the previous one had fired, rearm runs first (under the lock: make the
// idle connections usable again); when ctx is done, interrupt runs (under
// the lock), unless the watch has moved on by then.
func (w *Watch) Follow(ctx context.Context, rearm, interrupt func()) {
	if w.stop != nil {
		w.stop()
	}
	w.mu.Lock()
	w.gen++
	gen := w.gen
	if w.fired {
		rearm()
		w.fired = false
	}
	w.mu.Unlock()
	w.ctx, w.stop = ctx, nil
	if ctx.Done() == nil {
		return
	}
	w.stop = context.AfterFunc(ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if gen == w.gen {
			w.fired = true
			interrupt()
		}
	})
}

// Stop ends the watch (the session closes); f runs under the lock with
// whether the context had fired.
func (w *Watch) Stop(f func(fired bool)) {
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.Locked(func(fired bool) {
		w.gen++
		f(fired)
	})
}

// Locked runs f under the watch's lock with whether the context followed
// has fired: a connection that replaces another must then be interrupted
// at once.
func (w *Watch) Locked(f func(fired bool)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f(w.fired)
}
