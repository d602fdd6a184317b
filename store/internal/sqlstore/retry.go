package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/linkbench-go/linkbench/store"
)

// Retry runs the attempts of call o on database db: f (given the number
// of attempts that failed before it) until it succeeds, or fails with an
// error the policy does not retry. idempotent says whether an attempt may
// be repeated after it possibly reached the server and committed (every
// write of the stores is, except AddNode, which would allocate a second
// id).
//
// The policy: a Retry error is retried; a Conn error is retried when
// idempotent or when the dialect says nothing was sent (Unsent), else it
// is returned as a *store.TransientError; after RetryAttempts attempts the
// last error is returned as a *store.TransientError; any other error is
// returned at once, wrapped with the report class of its server code. A
// done context or a closed store ends the retries. Every failed attempt is
// counted (errors.<code>), every retry and failure too.
func (e *Engine) Retry(ctx context.Context, o Op, db string, idempotent bool, f func(attempt int) error) error {
	attempt := 0
	for {
		err := f(attempt)
		if err == nil {
			e.done(o, attempt)
			return nil
		}
		attempt++
		if err = e.fail(ctx, o, db, attempt, err, idempotent); err != nil {
			return err
		}
	}
}

// fail handles the error of failed attempt number attempt (from 1). It
// returns nil after sleeping when the call should be tried again, else the
// error to return.
func (e *Engine) fail(ctx context.Context, o Op, db string, attempt int, err error, idempotent bool) error {
	pkg, c := e.d.Pkg, &e.ctr
	if e.closed.Load() {
		return fmt.Errorf("%s: %s: %w", pkg, o, store.ErrClosed)
	}
	if cerr := ctx.Err(); cerr != nil {
		if errors.Is(err, cerr) {
			return e.red.Err(fmt.Errorf("%s: %s: %w", pkg, o, err))
		}
		// A server's error (e.g. too many connections) keeps its class:
		// the call failed, it was not merely cut short.
		_, key := e.d.Classify(err)
		return e.classed(e.red.Err(fmt.Errorf("%s: %s: %w: %w", pkg, o, cerr, err)), key)
	}
	class, key := e.d.Classify(err)
	if key != "" {
		e.countErr(key)
	}
	switch {
	case class == Fatal:
		c.failures[o].Add(1)
		return e.noSchema(e.classed(e.red.Err(fmt.Errorf("%s: %s: %w", pkg, o, err)), key), err)
	case class == Conn && !idempotent && !e.d.Unsent(err):
		c.failures[o].Add(1)
		c.transient[o].Add(1)
		e.Logger.Warn(pkg+": connection lost during a write that cannot be repeated safely",
			"op", o.String(), e.d.DBKey, db, "err", e.red.Str(err.Error()))
		return &store.TransientError{Op: o.String(), Err: e.red.Err(
			fmt.Errorf("%s: connection lost while the statement may have run (not retried): %w", pkg, err))}
	case attempt >= e.RetryAttempts:
		c.failures[o].Add(1)
		c.transient[o].Add(1)
		e.Logger.Warn(pkg+": giving up", "op", o.String(), e.d.DBKey, db,
			"attempts", attempt, "err", e.red.Str(err.Error()))
		return &store.TransientError{Op: o.String(), Err: e.red.Err(
			fmt.Errorf("%s: gave up after %d attempts: %w", pkg, attempt, err))}
	}
	c.retries[o].Add(1)
	d := e.backoff(attempt)
	e.Logger.Debug(pkg+": retrying", "op", o.String(), e.d.DBKey, db, "attempt", attempt+1,
		"wait", d, "err", e.red.Str(err.Error()))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %s: %w: %w", pkg, o, ctx.Err(), e.red.Err(err))
	}
}

// backoff returns the wait after failed attempt number attempt:
// RetryBackoff doubled per failed attempt, capped at RetryMaxBackoff,
// drawn uniformly from [d/2, d] so that deadlocked writers do not meet
// again.
func (e *Engine) backoff(attempt int) time.Duration {
	d := e.RetryBackoff
	for i := 1; i < attempt && d < e.RetryMaxBackoff; i++ {
		d *= 2
	}
	d = min(d, e.RetryMaxBackoff)
	if d <= 1 {
		return d
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// done records a call that succeeded after attempts failed ones.
func (e *Engine) done(o Op, attempts int) {
	if attempts == 0 {
		return
	}
	m := &e.ctr.maxRetries[o]
	for {
		cur := m.Load()
		if int64(attempts) <= cur || m.CompareAndSwap(cur, int64(attempts)) {
			return
		}
	}
}
