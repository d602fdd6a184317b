// Package harness shows LinkBench in a Go test harness: a test that fails
// when a store's p99 latency or its error count crosses a threshold (gate
// a storage change on it in CI), and a testing.B benchmark that reports
// LinkBench's figures with b.ReportMetric, so that benchstat compares two
// builds:
//
//	go test ./examples/harness
//	go test -run '^$' -bench . -count 10 ./examples/harness > new.txt
//	benchstat old.txt new.txt
//
// The store under test is the in-memory reference store; replace New in
// harness_test.go with your store's constructor. Check and Limits are the
// reusable part.
package harness

import (
	"errors"
	"fmt"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
)

// Limits are the thresholds a request phase must stay within.
type Limits struct {
	// P99 is the highest p99 latency allowed, per operation; operations
	// not listed are not gated.
	P99 map[stats.Op]time.Duration
	// MaxErrors is the most failed requests allowed (0: none).
	MaxErrors int64
	// MinRequests is the fewest requests the phase must have done: a gate
	// on a run that did nothing passes nothing.
	MinRequests int64
}

// Check returns nil when the request report r is within l, else an error
// naming every limit crossed, with the measured figure.
func Check(r *stats.Report, l Limits) error {
	var errs []error
	var requests, failed int64
	if r.Request != nil {
		requests, failed = r.Request.Requests, r.Request.Errors
	}
	if requests < l.MinRequests {
		errs = append(errs, fmt.Errorf("%d requests, want at least %d", requests, l.MinRequests))
	}
	if failed > l.MaxErrors {
		errs = append(errs, fmt.Errorf("%d failed requests, limit %d (by class: %v)", failed, l.MaxErrors, r.ErrorClasses))
	}
	for _, op := range []stats.Op{stats.AddNode, stats.UpdateNode, stats.DeleteNode, stats.GetNode, stats.AddLink,
		stats.DeleteLink, stats.UpdateLink, stats.CountLink, stats.MultigetLink, stats.GetLinksList} {
		limit, gated := l.P99[op]
		if !gated {
			continue
		}
		// An operation that did not run, or whose every call failed, has
		// no p99: the gate fails rather than pass on nothing.
		p99, ok := r.Quantile(op, 0.99)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%v: not measured (the operation did not run, or every call failed), limit p99 %v", op, limit))
		case p99 > limit:
			errs = append(errs, fmt.Errorf("%v: p99 %v, limit %v", op, p99, limit))
		}
	}
	return errors.Join(errs...)
}

// SmallConfig is the shipped LinkBench workload on a graph small enough for
// a unit test (maxid1 = 10001, a constant out-degree of 10 links), with
// fixed seeds, running requesters for d (linkbench.Config.RunFor).
func SmallConfig(requesters int, d time.Duration) linkbench.Config {
	cfg := linkbench.DefaultConfig()
	cfg.MaxID1 = 10001
	cfg.NLinksFunc = "const" // LinkBench's real out-degree gives id1 0 4.2 million links
	cfg.NLinksDefault = 10
	cfg.Requesters = requesters
	cfg.RunFor(d)
	cfg.LoadRandomSeed = linkbench.FixedSeed(1)
	cfg.RequestRandomSeed = linkbench.FixedSeed(2)
	return cfg
}
