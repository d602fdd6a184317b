package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/linkbench-go/linkbench/stats/promexport"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsServer is -metrics-addr: the run's metrics (promexport) and the
// client process's (Go runtime, CPU, memory), served over HTTP at
// /metrics.
type metricsServer struct {
	exp *promexport.Exporter
	srv *http.Server
	url string
}

// metricsURL is the URL of the metrics served at addr, one a scraper on
// this host can use: an unspecified address (":0", "0.0.0.0:9464", "[::]:9464")
// is named localhost.
func metricsURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + "/metrics"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/metrics"
}

// listenMetrics listens on -metrics-addr and serves its metrics until the
// function it returns is called; without the flag it does nothing. An
// address that cannot be listened on is a usage error.
func (r *runner) listenMetrics() (func(), error) {
	addr := r.o.metricsAddr
	if addr == "" {
		return func() {}, nil
	}
	reg := prometheus.NewRegistry()
	exp, err := promexport.New(reg, promexport.Options{})
	if err != nil {
		return nil, err
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, usageError{fmt.Errorf("-metrics-addr %q: %w", addr, err)}
	}
	mux := http.NewServeMux()
	// A few scrapes at once at most: a scrape holds the exporter's lock
	// while it converts the histograms, which the per-second interval waits for.
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true, MaxRequestsInFlight: 4}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	r.metrics = &metricsServer{exp: exp, srv: srv, url: metricsURL(ln.Addr())}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(r.stderr, "linkbench: -metrics-addr:", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx) // a scrape under way gets a second to finish
	}, nil
}

// lingerMetrics keeps serving the metrics for -metrics-linger once the
// run printed its reports, tables and -verify, so that Prometheus scrapes
// their final figures. SIGINT, SIGTERM or SIGHUP ends the wait (called
// after the run's own signal handling stopped: the exit status stands).
func (r *runner) lingerMetrics() {
	if r.metrics == nil || r.o.metricsLinger <= 0 || (!r.o.load && !r.o.req) {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(ch)
	r.cfg.Logger.Info("run ended: serving its final metrics (a signal stops)", "url", r.metrics.url, "for", r.o.metricsLinger)
	t := time.NewTimer(r.o.metricsLinger)
	defer t.Stop()
	select {
	case <-t.C:
	case s := <-ch:
		r.cfg.Logger.Info("stopped serving the final metrics", "signal", s.String())
	}
}
