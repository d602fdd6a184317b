package stats_test

import (
	"fmt"
	"os"
	"time"

	"github.com/linkbench-go/linkbench/stats"
)

// Two workers record GET_NODE and UPDATE_NODE calls into one collector;
// the driver makes the report once they stop, completes it and prints it.
func Example() {
	c, err := stats.NewCollector(stats.Options{}) // 1 ns .. 1 h, 3 digits
	if err != nil {
		fmt.Println(err)
		return
	}
	w0, w1 := c.NewRecorder(), c.NewRecorder() // one per worker
	// In each worker: time the store call, then record it.
	w0.Record(stats.GetNode, stats.Success, 250*time.Microsecond)
	w0.Record(stats.GetNode, stats.Miss, 180*time.Microsecond)
	w1.Record(stats.GetNode, stats.Success, 1200*time.Microsecond)
	w1.Record(stats.UpdateNode, stats.Success, 900*time.Microsecond)
	w1.RecordError(stats.UpdateNode, "timeout", 30*time.Millisecond)

	rep := c.Report(stats.PhaseRequest)
	rep.Header = []stats.KV{{Key: "seed", Value: "42"}}
	rep.Elapsed = 2 * time.Second
	rep.Request = &stats.RequestTotals{Requests: 5, Errors: 1, Requesters: 2}
	if err := rep.WriteText(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// seed: 42
	// UPDATE_NODE count = 1  p25 = 900us  p50 = 900us  p75 = 900us  p95 = 900us  p99 = 900us  max = 900us mean = 899.840us threads = 2
	// GET_NODE count = 3  p25 = 180us  p50 = 250us  p75 = 1200us  p95 = 1200us  p99 = 1200us  max = 1200us mean = 543.232us threads = 2
	// UPDATE_NODE found = 1 notfound = 0 errors = 1
	// GET_NODE found = 2 notfound = 1 errors = 0
	// UPDATE_NODE error_latency count = 1  p25 = 30015us  p50 = 30015us  p75 = 30015us  p95 = 30015us  p99 = 30015us  max = 30015us mean = 30007.296us threads = 2
	// errors.timeout = 1
	// REQUEST PHASE COMPLETED. 5 requests done in 2 seconds. Requests/second = 3
	// SUMMARY request tps=3 goodput=2 un=0.900 gn=1.200 ul=- gl=- requests=5 seconds=2.0
}
