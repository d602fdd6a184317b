package plot_test

import (
	"fmt"
	"os"
	"path/filepath"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/linkbench-go/linkbench/stats/results/plot"
)

// Draw one operation's p99 over time and its latency by percentile from
// two one-second interval histograms, as a PNG (the file's extension
// chooses PNG or SVG).
func Example() {
	var op plot.OpSeries
	op.Op = "GET_NODE"
	for i, base := range []int64{200_000, 400_000} { // nanoseconds
		h := hdr.New(1, 3_600_000_000_000, 3)
		for v := int64(0); v < 1000; v++ {
			_ = h.RecordValue(base + v*1000)
		}
		h.SetStartTimeMs(int64(i) * 1000)
		h.SetEndTimeMs(int64(i+1) * 1000)
		op.AddInterval(h)
	}
	dir, err := os.MkdirTemp("", "plot-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "getnode.png")
	err = plot.WriteFile(out, []plot.Series{{Label: "memory", Ops: []plot.OpSeries{op}}}, plot.Options{Title: "example"})
	fi, serr := os.Stat(out)
	fmt.Println(err, serr == nil && fi.Size() > 0)
	// Output:
	// <nil> true
}
