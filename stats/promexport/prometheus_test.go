package promexport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/promexport"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// promResult is the answer of Prometheus's query API.
type promResult struct {
	Status string
	Error  string
	Data   struct {
		ResultType string
		Result     []struct {
			Metric map[string]string
			Value  [2]any
		}
	}
}

// query runs an instant PromQL query against the Prometheus at base.
func query(t *testing.T, base, q string) promResult {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r promResult
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("query %q: %v", q, err)
	}
	return r
}

// value returns the sample value of a result (NaN when it is not a
// number).
func value(v [2]any) float64 {
	s, _ := v[1].(string)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// freePort returns a port of 127.0.0.1 nothing listens on (now).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestRealPrometheus runs the Prometheus server named by
// $LINKBENCH_PROMETHEUS (Debian's package: /usr/bin/prometheus; promtool
// beside it) with native histograms enabled, on the shipped configuration
// and rules (deploy/prometheus, which promtool checks) pointed at a short
// run's metrics: what it stores at the end is the run's report (calls,
// errors, retries; the p99 computed by Prometheus from the native
// histograms within their buckets), the dashboard's variable finds the
// job, and every query of the Grafana dashboard evaluates, those of the
// throughput and the percentiles with data. A second server, without
// native histograms, scrapes the same run: the same holds with the
// classic buckets. Skipped without the variable (.ci/run sets it).
func TestRealPrometheus(t *testing.T) {
	bin := os.Getenv("LINKBENCH_PROMETHEUS")
	if bin == "" {
		t.Skip("LINKBENCH_PROMETHEUS is not set (the path of a Prometheus server binary; .ci/run sets it)")
	}
	promtool := filepath.Join(filepath.Dir(bin), "promtool")

	// The run's metrics, served as the tool serves them.
	reg := prometheus.NewRegistry()
	exp, err := promexport.New(reg, promexport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	defer srv.Close()

	// The shipped configuration, scraping that server every second.
	dir := t.TempDir()
	deploy := filepath.Join("..", "..", "deploy", "prometheus")
	conf, err := os.ReadFile(filepath.Join(deploy, "prometheus.yml"))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := os.ReadFile(filepath.Join(deploy, "linkbench.rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	c := strings.Replace(string(conf), `targets: ["127.0.0.1:9464"]`, `targets: ["`+strings.TrimPrefix(srv.URL, "http://")+`"]`, 1)
	c = strings.ReplaceAll(c, "_interval: 5s", "_interval: 1s")
	if c == string(conf) || !strings.Contains(c, "scrape_interval: 1s") {
		t.Fatal("deploy/prometheus/prometheus.yml: no target 127.0.0.1:9464 or scrape_interval: 5s to replace")
	}
	cfgFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgFile, []byte(c), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "linkbench.rules.yml"), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", "config", cfgFile}, {"check", "rules", filepath.Join(dir, "linkbench.rules.yml")}} {
		if out, err := exec.Command(promtool, args...).CombinedOutput(); err != nil {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}

	// Two servers scrape the run: one with native histograms, one
	// without (classic buckets only), as the dashboard expects either.
	native := startPrometheus(t, bin, cfgFile, filepath.Join(dir, "native"), true)
	classic := startPrometheus(t, bin, cfgFile, filepath.Join(dir, "classic"), false)

	cfg := runConfig(3 * time.Second)
	st := &flakyStore{Forward: store.Forward{Inner: memstore.New()}}
	plan := linkbench.Plan{Load: true, Request: true, Label: "real", StoreName: "memory"}
	exp.Attach(&cfg, &plan, st)
	res, err := linkbench.Run(context.Background(), cfg, st, plan)
	if err != nil {
		t.Fatal(err)
	}
	rep := res[len(res)-1].Report
	for _, srv := range []struct {
		base   string
		native bool
	}{{native, true}, {classic, false}} {
		name := "classic"
		if srv.native {
			name = "native"
		}
		t.Run(name, func(t *testing.T) { checkPrometheus(t, srv.base, srv.native, exp, rep, st) })
	}
}

// checkPrometheus checks what the Prometheus at base stored of the run
// whose last phase's report is rep (see TestRealPrometheus); native says
// whether it scraped native histograms.
func checkPrometheus(t *testing.T, base string, native bool, exp *promexport.Exporter, rep *stats.Report, st *flakyStore) {
	var calls, errs int64
	for _, o := range rep.Ops {
		if o.Op.IsRequest() {
			calls += o.Count()
			errs += o.Errors
		}
	}
	// Prometheus has the run's last figures once it scraped after its end.
	sel := `{job="linkbench", phase="request"}`
	deadline := time.Now().Add(15 * time.Second)
	for {
		r := query(t, base, "sum(linkbench_calls_total"+sel+")")
		if len(r.Data.Result) == 1 && value(r.Data.Result[0].Value) == float64(calls) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus's request calls: %+v, want %d", r.Data.Result, calls)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, c := range []struct {
		q    string
		want float64
	}{
		{"sum(linkbench_errors_total" + sel + ")", float64(errs)},
		{`sum(linkbench_store_retries_total{job="linkbench"})`, float64(st.retries.Load())},
		{`linkbench_config_info{key="maxid1"}`, 1},
	} {
		r := query(t, base, c.q)
		if r.Status != "success" || len(r.Data.Result) != 1 || value(r.Data.Result[0].Value) != c.want {
			t.Errorf("%s: %+v, want %g", c.q, r, c.want)
		}
	}

	// The p99 of the whole phase, by Prometheus from the native buckets
	// (within one of them of the report's), or from the classic ones (the
	// report's in the bucket Prometheus interpolated in).
	schema := float64(exp.Schema())
	width := math.Exp2(math.Exp2(-schema)) * 1.01 // a bucket, and HDR's 1 %
	checked := 0
	for _, o := range rep.Ops {
		if !o.Op.IsRequest() || o.Latency.Count < 1000 {
			continue
		}
		sel := fmt.Sprintf(`{job="linkbench", phase="request", op=%q}`, o.Op.String())
		q := "histogram_quantile(0.99, linkbench_latency_seconds" + sel + ")"
		if !native {
			q = "histogram_quantile(0.99, linkbench_latency_seconds_bucket" + sel + ")"
		}
		r := query(t, base, q)
		d, _ := o.Quantile(0.99)
		want := d.Seconds()
		if r.Status != "success" || len(r.Data.Result) != 1 {
			t.Errorf("%s: %+v", q, r)
			continue
		}
		got := value(r.Data.Result[0].Value)
		if native && (got/want > width || want/got > width) {
			t.Errorf("%s: Prometheus's p99 %g s, the report's %g s: more than a bucket (x%.3f) apart", o.Op, got, want, width)
		}
		if !native {
			i := sort.SearchFloat64s(promexport.DefaultBuckets, got)
			lo, hi := 0.0, math.Inf(1)
			if i > 0 {
				lo = promexport.DefaultBuckets[i-1]
			}
			if i < len(promexport.DefaultBuckets) {
				hi = promexport.DefaultBuckets[i]
			}
			if want < lo/1.01 || want > hi*1.01 {
				t.Errorf("%s: Prometheus's p99 %g s in the classic bucket %g..%g s, the report's %g s", o.Op, got, lo, hi, want)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Error("no op with 1000 latencies: no p99 compared")
	}

	// The dashboard: its variable finds the job, its queries evaluate.
	resp, err := http.Get(base + "/api/v1/label/job/values?match[]=linkbench_run_info")
	if err != nil {
		t.Fatal(err)
	}
	var lv struct{ Data []string }
	err = json.NewDecoder(resp.Body).Decode(&lv)
	resp.Body.Close()
	if err != nil || len(lv.Data) != 1 || lv.Data[0] != "linkbench" {
		t.Errorf("label_values(linkbench_run_info, job): %v %v", lv.Data, err)
	}
	exprs, _ := dashboardQueries(t)
	vars := strings.NewReplacer("$job", ".+", "$instance", ".+", "$__rate_interval", "15s")
	withData := 0
	for _, e := range exprs {
		r := query(t, base, vars.Replace(e))
		if r.Status != "success" {
			t.Errorf("dashboard query %s: %s", e, r.Error)
		}
		if len(r.Data.Result) > 0 {
			withData++
		}
		if (strings.Contains(e, "histogram_quantile") || strings.Contains(e, `linkbench_calls_total{job=~"$job", instance=~"$instance", phase="request"}`)) && len(r.Data.Result) == 0 {
			t.Errorf("dashboard query %s: no data", e)
		}
	}
	t.Logf("%d dashboard queries, %d with data; request calls %d, errors %d, retries %d", len(exprs), withData, calls, errs, st.retries.Load())
}

// startPrometheus starts the Prometheus server bin with the configuration
// file cfgFile and its data in dir (with native histograms when native),
// and returns its URL once it scraped its target; the test's cleanup
// stops it (and logs its output when the test failed).
func startPrometheus(t *testing.T, bin, cfgFile, dir string, native bool) string {
	t.Helper()
	addr := freePort(t)
	args := []string{"--config.file=" + cfgFile, "--storage.tsdb.path=" + filepath.Join(dir, "data"), "--web.listen-address=" + addr}
	if native {
		args = append(args, "--enable-feature=native-histograms")
	}
	var plog bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &plog, &plog
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("the log of prometheus %s:\n%s", strings.Join(args, " "), plog.String())
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	// Prometheus scrapes a new target a few seconds after it starts (its
	// scrape manager applies targets every 5 s): ready once it did.
	for {
		if resp, err := http.Get(base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				if r := query(t, base, `up{job="linkbench"} == 1`); len(r.Data.Result) == 1 {
					return base
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus %s did not scrape its target within 30 s", strings.Join(args, " "))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
