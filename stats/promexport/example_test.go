package promexport_test

import (
	"context"
	"fmt"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/promexport"
	"github.com/linkbench-go/linkbench/store/memstore"
	"github.com/prometheus/client_golang/prometheus"
)

// A run's metrics in a registry of the caller's: serve it with
// promhttp.HandlerFor(reg, promhttp.HandlerOpts{}) on the caller's
// /metrics. Here the registry is read once the run ended: its GET_NODE
// calls are the report's.
func Example() {
	reg := prometheus.NewRegistry()
	exp, err := promexport.New(reg, promexport.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := linkbench.DefaultConfig()
	cfg.MaxID1 = 1001
	cfg.NLinksFunc, cfg.NLinksDefault = "const", 4
	cfg.Requesters, cfg.Requests = 2, 500
	st := memstore.New()
	defer st.Close()
	plan := linkbench.Plan{Load: true, Request: true, Label: "mem", StoreName: "memory"}
	exp.Attach(&cfg, &plan, st) // before the run: its intervals and phases feed exp
	res, err := linkbench.Run(context.Background(), cfg, st, plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	fams, err := reg.Gather()
	if err != nil {
		fmt.Println(err)
		return
	}
	var scraped float64
	for _, f := range fams {
		if f.GetName() != "linkbench_calls_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			if l["phase"] == "request" && l["op"] == "GET_NODE" {
				scraped += m.GetCounter().GetValue()
			}
		}
	}
	o, _ := res[1].Report.Op(stats.GetNode)
	fmt.Println("GET_NODE calls as the report counts them:", scraped == float64(o.Count()))
	// Output: GET_NODE calls as the report counts them: true
}
