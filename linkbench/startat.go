package linkbench

import (
	"context"
	"time"
)

// waitStart waits, once the phase is prepared, for Config.StartAt (when
// set), so that the processes of a sharded run start their phase at the
// same instant and their one-second intervals cover the same seconds of
// the wall clock. A preparation that overran StartAt is logged as a
// warning and the phase starts at once. It returns ctx's cause when ctx
// ends first.
func waitStart(ctx context.Context, cfg *Config, phase string) error {
	if cfg.StartAt.IsZero() {
		return nil
	}
	d := time.Until(cfg.StartAt)
	if d <= 0 {
		cfg.logger().Warn("the preparation overran -start-at: the phase starts now", "phase", phase,
			"start_at", cfg.StartAt.Format(time.RFC3339Nano), "late", (-d).Round(time.Millisecond).String())
		return nil
	}
	cfg.logger().Info("prepared: waiting for -start-at", "phase", phase,
		"start_at", cfg.StartAt.Format(time.RFC3339Nano), "wait", d.Round(time.Millisecond).String())
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// untilStart is how long from now until Config.StartAt (0 when unset or
// past): the request phase's hard time bound counts from there.
func untilStart(cfg *Config) time.Duration {
	if cfg.StartAt.IsZero() {
		return 0
	}
	return max(time.Until(cfg.StartAt), 0)
}
