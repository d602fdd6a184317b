//go:build unix

package promexport_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/promexport"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"
)

// cpuTime returns the process's user+system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRequest measures what the metrics cost the request phase: one
// requester doing b.N requests of the default workload at maxid1 =
// 1,000,001 against store/discard (the client's work alone, where a cost
// shows most), through linkbench.Run as the tool runs it (one-second
// intervals for the result files either way). "off": no exporter; "on":
// the exporter attached, served over HTTP as -metrics-addr serves it (with
// the process's and Go's collectors) and scraped every second in the
// protobuf format (the one Prometheus asks for with native histograms;
// the scraper reads the answer and drops it: Prometheus decodes it in a
// process of its own). cpu-ns/req is the process's CPU time per request
// (the serving of the scrapes included); ns/op the wall time per request. Run it long enough for
// many intervals, alternating the two:
//
//	go test -run '^$' -bench 'Request' -benchtime 10s -count 6 ./stats/promexport/
func BenchmarkRequest(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			cfg := linkbench.DefaultConfig()
			cfg.MaxID1 = 1_000_001
			cfg.DataFile = ""
			cfg.LoadRandomSeed, cfg.RequestRandomSeed = linkbench.FixedSeed(1), linkbench.FixedSeed(2)
			cfg.Requesters = 1
			cfg.Requests = int64(b.N)
			cfg.MaxTime = time.Hour
			cfg.ProgressFreq = 0
			st := discard.New()
			plan := linkbench.Plan{Request: true, GraphChecked: true, StoreName: "discard"}
			stop := func() {}
			if on {
				reg := prometheus.NewRegistry()
				exp, err := promexport.New(reg, promexport.Options{})
				if err != nil {
					b.Fatal(err)
				}
				reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
				srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
				exp.Attach(&cfg, &plan, st)
				done := make(chan struct{})
				scraped := make(chan int)
				go func() {
					n := 0
					tick := time.NewTicker(time.Second)
					defer tick.Stop()
					for {
						select {
						case <-done:
							scraped <- n
							return
						case <-tick.C:
						}
						req, _ := http.NewRequest("GET", srv.URL, nil)
						req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeProtoDelim)))
						resp, err := http.DefaultClient.Do(req)
						if err != nil {
							continue
						}
						_, _ = io.Copy(io.Discard, resp.Body) // Prometheus reads it in a process of its own
						resp.Body.Close()
						n++
					}
				}()
				stop = func() {
					close(done)
					b.ReportMetric(float64(<-scraped), "scrapes")
					srv.Close()
				}
			}
			b.ReportAllocs()
			c0 := cpuTime(b)
			b.ResetTimer()
			res, err := linkbench.Run(context.Background(), cfg, st, plan)
			b.StopTimer()
			c1 := cpuTime(b)
			stop()
			if err != nil {
				b.Fatal(err)
			}
			if got := res[0].Report.Request.Requests; got != int64(b.N) {
				b.Fatalf("%d requests done, want %d", got, b.N)
			}
			b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/req")
		})
	}
}

// benchInterval returns an interval of the ten request operations, each
// with n latencies log-uniform from 1 µs to 100 ms and a few errors: an
// interval of a request phase whose latencies span five decades.
func benchInterval(b *testing.B, n int) stats.Interval {
	col, err := stats.NewCollector(stats.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rec := col.NewRecorder()
	for op := range stats.Op(10) {
		for i := range n {
			d := time.Duration(1000 * math.Pow(1e5, float64(i)/float64(n)))
			if i%1000 == 999 {
				rec.RecordError(op, "timeout", d)
				continue
			}
			rec.Record(op, stats.Success, d)
		}
	}
	return col.FinalInterval()
}

// BenchmarkOnInterval measures what the exporter does once per interval
// (one second) on the phase's monitor goroutine: adding an interval of the
// ten request operations (benchInterval) to its series. cpu-ns/op is the
// process's CPU time per interval (the wall time suffers most from a
// machine shared with other work).
func BenchmarkOnInterval(b *testing.B) {
	iv := benchInterval(b, 100_000)
	exp, err := promexport.New(nil, promexport.Options{})
	if err != nil {
		b.Fatal(err)
	}
	p := linkbench.Progress{Phase: stats.PhaseRequest, Interval: iv, InFlight: 4}
	b.ReportAllocs()
	c0 := cpuTime(b)
	for b.Loop() {
		exp.OnInterval(p)
	}
	b.ReportMetric(float64(cpuTime(b)-c0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkScrape measures one scrape as -metrics-addr serves it (the
// exporter's metrics, Go's and the process's, encoded in the protobuf
// format): "ended" after a load and 24 request steps of the ten
// operations, all ended (their buckets converted for good); "running"
// during a request step, an interval added before each scrape (so that
// each scrape converts the step's histograms again; cpu-ns/op, the
// process's CPU per scrape, then includes the interval's).
func BenchmarkScrape(b *testing.B) {
	for _, running := range []bool{false, true} {
		name := "ended"
		if running {
			name = "running"
		}
		b.Run(name, func(b *testing.B) {
			reg := prometheus.NewRegistry()
			exp, err := promexport.New(reg, promexport.Options{})
			if err != nil {
				b.Fatal(err)
			}
			reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			iv := benchInterval(b, 10_000)
			steps := 24
			if running {
				steps = 1
			}
			ctx := context.Background()
			for step := range steps {
				_ = exp.BeforePhase(ctx, linkbench.PhaseSpec{Phase: stats.PhaseRequest, Step: step + 1, Requesters: 16, Tag: fmt.Sprintf("L%d.P16", step+1)})
				exp.OnInterval(linkbench.Progress{Phase: stats.PhaseRequest, Interval: iv})
				if !running {
					_ = exp.AfterPhase(ctx, linkbench.PhaseResult{})
				}
			}
			h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
			req := httptest.NewRequest("GET", "/metrics", nil)
			req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeProtoDelim)))
			p := linkbench.Progress{Phase: stats.PhaseRequest, Interval: iv}
			b.ReportAllocs()
			var size int
			c0 := cpuTime(b)
			for b.Loop() {
				if running {
					b.StopTimer()
					exp.OnInterval(p)
					b.StartTimer()
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				size = w.Body.Len()
			}
			b.ReportMetric(float64(size), "bytes/scrape")
			// The CPU of the intervals added while the timer stopped is
			// counted too: cpu-ns/op is a scrape's and an interval's.
			b.ReportMetric(float64(cpuTime(b)-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}
