package results_test

import (
	"fmt"
	"time"

	"github.com/linkbench-go/linkbench/stats/results"
)

// The derived columns of a published MyRocks query row (16 clients,
// maxid1 = 1B) from its raw columns: tps, the device's r/s, rMB/s and
// wMB/s (iostat) and the machine's CPU in percent (vmstat).
func ExampleDerive() {
	f := func(v float64) *float64 { return &v }
	m := results.Metrics{ReadsPerSec: f(30212), ReadMBPerSec: f(202.6), WriteMBPerSec: f(138.8), CPU: f(22.3)}
	d := results.Derive(f(23557), m, [4]*time.Duration{})
	fmt.Printf("r/t %.2f  rkb/t %.2f  wkb/t %.2f  Mcpu/t %.0f\n", *d.ReadsPerOp, *d.ReadKBPerOp, *d.WriteKBPerOp, *d.McpuPerOp)
	fmt.Println("server-only Mcpu/t measured:", d.ServerMcpuPerOp != nil)
	// Output:
	// r/t 1.28  rkb/t 8.60  wkb/t 5.89  Mcpu/t 947
	// server-only Mcpu/t measured: false
}
