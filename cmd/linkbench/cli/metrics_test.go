package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/stats/results"
)

// TestMetricsAddrRefused: an address -metrics-addr cannot listen on is
// one line naming the flag, exit status 2, before anything runs or is
// written.
func TestMetricsAddrRefused(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	short := []string{"-D", "maxid1=1001", "-D", "maxtime=1"}
	runBadInput(t, []badCase{
		{"no port", append([]string{"-metrics-addr", "localhost"}, short...), []string{"-metrics-addr", "missing port"}, nil},
		{"bad port", append([]string{"-metrics-addr", "127.0.0.1:99999"}, short...), []string{"-metrics-addr", "99999"}, nil},
		{"in use", append([]string{"-metrics-addr", busy.Addr().String()}, short...), []string{"-metrics-addr", busy.Addr().String(), "in use"}, nil},
		{"linger alone", append([]string{"-metrics-linger", "5s"}, short...), []string{"-metrics-linger", "-metrics-addr"}, nil},
		{"negative linger", append([]string{"-metrics-addr", "127.0.0.1:0", "-metrics-linger", "-1s"}, short...), []string{"-metrics-linger", "-1s"}, nil},
	})
}

// callsRE matches a request step's calls_total sample in the text format.
var callsRE = regexp.MustCompile(`(?m)^linkbench_calls_total\{([^}]*)\} (\S+)$`)

// requestCalls sums the request phase's calls_total of a text scrape.
func requestCalls(body string) float64 {
	var s float64
	for _, m := range callsRE.FindAllStringSubmatch(body, -1) {
		if strings.Contains(m[1], `phase="request"`) {
			v, _ := strconv.ParseFloat(m[2], 64)
			s += v
		}
	}
	return s
}

// TestMetricsServed: with -metrics-addr 127.0.0.1:0 the log names the
// URL, which serves the run's metrics while it runs (the request calls
// grow, never decrease) and the client's process metrics; with
// -metrics-linger it goes on after the phases, with their final figures
// (the request calls of the result file), then stops.
func TestMetricsServed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a few seconds: skipped with -short")
	}
	dir := t.TempDir()
	logFile := filepath.Join(dir, "run.log")
	args := []string{"-D", "maxid1=5001", "-D", "nlinks_func=const", "-D", "nlinks_default=5", "-D", "maxtime=3", "-D", "requesters=2",
		"-metrics-addr", "127.0.0.1:0", "-metrics-linger", "2s", "-L", logFile, "-results", dir}
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, &out, &errb)
		done <- result{code, out.String(), errb.String()}
	}()
	urlRE := regexp.MustCompile(`msg="serving Prometheus metrics" url=(\S+)`)
	var url string
	var scrapes []float64
	// Scrapes after the request phase ended (during -metrics-linger 2s,
	// one every 200 ms or so).
	const ended = `linkbench_phase_running{phase="request",step="1",tag=""} 0`
	afterEnd := 0
	var body string
	for finished := false; !finished; {
		select {
		case r := <-done:
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			finished = true
			continue
		case <-time.After(200 * time.Millisecond):
		}
		if url == "" {
			b, _ := os.ReadFile(logFile)
			if m := urlRE.FindSubmatch(b); m != nil {
				url = string(m[1])
			}
			continue
		}
		resp, err := http.Get(url)
		if err != nil {
			continue // the run may be ending
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %v %s", url, err, resp.Status)
		}
		body = string(b)
		scrapes = append(scrapes, requestCalls(body))
		if strings.Contains(body, ended) {
			afterEnd++
		}
	}
	if url == "" {
		t.Fatal("the log does not name the metrics' URL")
	}
	grew := 0
	for i := 1; i < len(scrapes); i++ {
		if scrapes[i] < scrapes[i-1] {
			t.Errorf("request calls went down: %v", scrapes)
		}
		if scrapes[i] > scrapes[i-1] {
			grew++
		}
	}
	if grew < 2 {
		t.Errorf("request calls grew %d times over %d scrapes, want >= 2: %v", grew, len(scrapes), scrapes)
	}
	for _, want := range []string{"linkbench_latency_seconds_bucket{", "linkbench_config_info{", "linkbench_phase_running{", "process_cpu_seconds_total", "go_goroutines"} {
		if !strings.Contains(body, want) {
			t.Errorf("the last scrape has no %s", want)
		}
	}
	if _, err := http.Get(url); err == nil {
		t.Errorf("%s still answers after the run", url)
	}
	f, err := results.Read(filepath.Join(dir, "request.json"))
	if err != nil {
		t.Fatal(err)
	}
	if last := scrapes[len(scrapes)-1]; last != float64(f.Requests) || afterEnd < 4 {
		t.Errorf("the last scrape: request calls %g, the result file's %d; %d scrapes after the phase ended, want >= 4 (-metrics-linger 2s)",
			last, f.Requests, afterEnd)
	}
}

// TestMetricsURL: the URL the log gives for -metrics-addr :0 is one a
// scraper can use (it was http://[::]:PORT/metrics, a listen address).
func TestMetricsURL(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"[::]:9464", "http://localhost:9464/metrics"},
		{"0.0.0.0:9464", "http://localhost:9464/metrics"},
		{"127.0.0.1:9464", "http://127.0.0.1:9464/metrics"},
		{"[::1]:9464", "http://[::1]:9464/metrics"},
	} {
		a, err := net.ResolveTCPAddr("tcp", c.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := metricsURL(a); got != c.want {
			t.Errorf("metricsURL(%s) = %s, want %s", c.addr, got, c.want)
		}
	}
}
