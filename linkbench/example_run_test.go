package linkbench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// A run as the tool makes it: a load and two request steps, each with its
// result file (what linkbench compare and linkbench plot read) and the
// load and query tables of the published results.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "linkbench-run")
	defer os.RemoveAll(dir)
	cfg := linkbench.DefaultConfig()
	cfg.MaxID1 = 1001
	cfg.NLinksFunc, cfg.NLinksDefault = "const", 4
	cfg.Requesters, cfg.Requests = 2, 500
	st := memstore.New()
	defer st.Close()
	plan := linkbench.Plan{Load: true, Request: true, Steps: 2, Label: "mem", ResultsDir: dir, StoreName: "memory",
		Hooks: linkbench.Hooks{AfterPhase: func(_ context.Context, r linkbench.PhaseResult) error {
			f, err := results.Read(filepath.Join(dir, r.Base+".json"))
			if err != nil {
				return err
			}
			fmt.Println(r.Base, f.Phase, f.Tag, f.Rows+f.Requests)
			return nil
		}}}
	res, err := linkbench.Run(context.Background(), cfg, st, plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	var files []results.File
	for _, r := range res {
		files = append(files, *r.File) // results.WriteTables(os.Stdout, files, results.Text) prints the tables
	}
	fmt.Println(len(files), "result files")
	// Output:
	// mem.load LOAD  7000
	// mem.request.L1.P2 REQUEST L1.P2 1000
	// mem.request.L2.P2 REQUEST L2.P2 1000
	// 3 result files
}
