package linkbench

import (
	"context"

	"github.com/linkbench-go/linkbench/stats"
)

// Worker identifies the goroutine of a phase that made a store call: the
// request phase's requester ID, its number in the run (0..requesters-1;
// of a sharded run's shard I, I*requesters..I*requesters+requesters-1, as
// its random stream), or in the load phase
// link loader ID (0..loaders-1) and the node loader (ID == loaders), the
// numbering of LinkBench's trace tags (t<N>, l<N>).
type Worker struct {
	Phase stats.Phase
	ID    int
}

type workerKey struct{}

// WorkerFromContext returns the Worker that made a store call, from the
// ctx the drivers pass to every store method; ok is false for a ctx that
// did not come from Load or Request. Stores may use it to label traces or
// per-worker resources.
func WorkerFromContext(ctx context.Context) (w Worker, ok bool) {
	w, ok = ctx.Value(workerKey{}).(Worker)
	return w, ok
}

func withWorker(ctx context.Context, phase stats.Phase, id int) context.Context {
	return context.WithValue(ctx, workerKey{}, Worker{Phase: phase, ID: id})
}
