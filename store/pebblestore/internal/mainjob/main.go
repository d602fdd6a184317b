// Command mainjob measures the README's main job (LinkBench's shipped
// workload at maxid1 = 100001: 2 loaders, 4 requesters, 30 s of
// requests, then a verify) through the library (linkbench.Load,
// linkbench.Request, linkbench.Verify) on the Pebble store and on the
// memory store, each in a process of its own so that each has its own
// peak RSS, and prints them side by side:
//
//	go build -o /tmp/mainjob ./store/pebblestore/internal/mainjob
//	/usr/bin/time -v /tmp/mainjob
//
// -store pebble or -store memory runs one store in this process and
// prints its figures as one JSON line (what the parent reads).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
	"github.com/linkbench-go/linkbench/store/pebblestore"
)

// figures are one store's results.
type figures struct {
	Store          string  `json:"store"`
	LoadSeconds    float64 `json:"load_s"`
	Nodes          int64   `json:"nodes"`
	Links          int64   `json:"links"`
	Counts         int64   `json:"counts"`
	RequestSeconds float64 `json:"request_s"`
	Requests       int64   `json:"requests"`
	Errors         int64   `json:"errors"`
	VerifySeconds  float64 `json:"verify_s"`
	GetLinksP99us  float64 `json:"gl_p99_us"`
	UpdateLinkP99  float64 `json:"ul_p99_us"`
	GetNodeP99us   float64 `json:"gn_p99_us"`
	LiveMB         float64 `json:"live_mb,omitempty"`
	DiskMB         float64 `json:"disk_mb,omitempty"`
	LoadWriteAmp   float64 `json:"load_wa,omitempty"`
	ReqWriteAmp    float64 `json:"req_wa,omitempty"`
	ReqHitRate     float64 `json:"req_hit_rate,omitempty"`
	Stalls         int64   `json:"stalls"`
	StallSeconds   float64 `json:"stall_s"`
	Compactions    int64   `json:"compactions"`
	// Filled in by the parent from the child's rusage.
	WallSeconds float64 `json:"wall_s"`
	CPUSeconds  float64 `json:"cpu_s"`
	MaxRSSMB    float64 `json:"max_rss_mb"`
}

func main() {
	which := flag.String("store", "all", "pebble, pebble-nosync (WAL sync off), memory, or all three (each in a child process)")
	dir := flag.String("dir", "", "pebble: the database directory (default: a temporary one, removed)")
	maxtime := flag.Duration("maxtime", 30*time.Second, "the request phase's length")
	maxid1 := flag.Int64("maxid1", 100001, "maxid1")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run (one store)")
	nlinks := flag.Int("nlinks", 0, "links per id1 (nlinks_func=const) instead of the shipped out-degree, for quick runs")
	flag.Parse()
	if *which == "all" {
		var all []figures
		for _, s := range []string{"pebble", "pebble-nosync", "memory"} {
			all = append(all, child(s, os.Args[1:]))
		}
		printTable(all)
		return
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	f, err := run(*which, *dir, *maxid1, *nlinks, *maxtime)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(f); err != nil {
		log.Fatal(err)
	}
}

// child runs this program for one store and returns its figures with
// its wall time, CPU time and peak RSS.
func child(name string, args []string) figures {
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command(exe, append(args, "-store", name)...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	var f figures
	if err := json.Unmarshal(out, &f); err != nil {
		log.Fatalf("%s: %v: %q", name, err, out)
	}
	f.WallSeconds = time.Since(start).Seconds()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		f.CPUSeconds = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)).Seconds()
		f.MaxRSSMB = float64(ru.Maxrss) / 1024 // kB on Linux
	}
	return f
}

func run(name, dir string, maxid1 int64, nlinks int, maxtime time.Duration) (figures, error) {
	ctx := context.Background()
	cfg := linkbench.DefaultConfig() // the shipped workload, the built-in out-degree model
	cfg.MaxID1 = maxid1
	if nlinks > 0 {
		cfg.NLinksFunc, cfg.NLinksDefault = "const", int64(nlinks)
	}
	cfg.Loaders = 2
	cfg.Requesters = 4
	cfg.RunFor(maxtime)
	cfg.ProgressFreq = 0
	var st store.Store
	var ps *pebblestore.Store
	switch name {
	case "memory":
		st = memstore.New()
	case "pebble", "pebble-nosync":
		if dir == "" {
			d, err := os.MkdirTemp("", "mainjob-pebble")
			if err != nil {
				return figures{}, err
			}
			defer os.RemoveAll(d)
			dir = d
		}
		o := pebblestore.Options{Dir: dir}
		if name == "pebble-nosync" {
			o.Sync = pebblestore.SyncOff
		}
		var err error
		if ps, err = pebblestore.Open(ctx, o); err != nil {
			return figures{}, err
		}
		st = ps
	default:
		return figures{}, fmt.Errorf("unknown store %q", name)
	}
	defer store.Close(st)
	f := figures{Store: name}
	var m0, m1, m2 pebblestore.Metrics
	if ps != nil {
		m0, _ = ps.Metrics()
	}
	load, err := linkbench.Load(ctx, cfg, st)
	if err != nil {
		return f, err
	}
	f.LoadSeconds = load.Elapsed.Seconds()
	f.Nodes, f.Links, f.Counts = load.Load.Nodes, load.Load.Links, load.Load.Counts
	if ps != nil {
		m1, _ = ps.Metrics()
	}
	req, err := linkbench.Request(ctx, cfg, st)
	if err != nil {
		return f, err
	}
	f.RequestSeconds = req.Elapsed.Seconds()
	f.Requests, f.Errors = req.Request.Requests, req.Request.Errors
	us := func(op stats.Op) float64 {
		p99, _ := req.Quantile(op, 0.99) // 0 for an op that did not run
		return float64(p99.Microseconds())
	}
	f.GetLinksP99us, f.UpdateLinkP99, f.GetNodeP99us = us(stats.GetLinksList), us(stats.UpdateLink), us(stats.GetNode)
	if ps != nil {
		m2, _ = ps.Metrics()
		if iv := pebblestore.Diff(m0, m1); iv.HasWriteAmp {
			f.LoadWriteAmp = iv.WriteAmp
		}
		iv := pebblestore.Diff(m1, m2)
		if iv.HasWriteAmp {
			f.ReqWriteAmp = iv.WriteAmp
		}
		if iv.HasHitRate {
			f.ReqHitRate = iv.HitRate
		}
		f.Stalls, f.StallSeconds, f.Compactions = m2.WriteStalls, m2.WriteStallTime.Seconds(), m2.Compactions
		f.DiskMB = float64(m2.DiskSize) / 1e6
		if err := ps.Flush(ctx); err == nil {
			m3, _ := ps.Metrics()
			f.LiveMB = float64(m3.LiveSize) / 1e6
		}
	}
	start := time.Now()
	if _, err := linkbench.Verify(ctx, cfg, st); err != nil {
		return f, fmt.Errorf("verify: %w", err)
	}
	f.VerifySeconds = time.Since(start).Seconds()
	return f, nil
}

func printTable(all []figures) {
	row := func(name string, v func(f figures) string) {
		fmt.Printf("%-26s", name)
		for _, f := range all {
			fmt.Printf(" %14s", v(f))
		}
		fmt.Println()
	}
	row("store", func(f figures) string { return f.Store })
	row("nodes loaded", func(f figures) string { return fmt.Sprint(f.Nodes) })
	row("links loaded", func(f figures) string { return fmt.Sprint(f.Links) })
	row("load s", func(f figures) string { return fmt.Sprintf("%.1f", f.LoadSeconds) })
	row("load links/s", func(f figures) string { return fmt.Sprintf("%.0f", float64(f.Links)/f.LoadSeconds) })
	row("load rows/s (all tables)", func(f figures) string {
		return fmt.Sprintf("%.0f", float64(f.Links+f.Nodes+f.Counts)/f.LoadSeconds)
	})
	row("requests", func(f figures) string { return fmt.Sprint(f.Requests) })
	row("requests/s", func(f figures) string { return fmt.Sprintf("%.0f", float64(f.Requests)/f.RequestSeconds) })
	row("request errors", func(f figures) string { return fmt.Sprint(f.Errors) })
	row("GET_LINKS_LIST p99 us", func(f figures) string { return fmt.Sprint(f.GetLinksP99us) })
	row("UPDATE_LINK p99 us", func(f figures) string { return fmt.Sprint(f.UpdateLinkP99) })
	row("GET_NODE p99 us", func(f figures) string { return fmt.Sprint(f.GetNodeP99us) })
	row("verify s", func(f figures) string { return fmt.Sprintf("%.1f", f.VerifySeconds) })
	row("wall s (whole process)", func(f figures) string { return fmt.Sprintf("%.1f", f.WallSeconds) })
	row("CPU s (user+sys)", func(f figures) string { return fmt.Sprintf("%.1f", f.CPUSeconds) })
	row("peak RSS MB", func(f figures) string { return fmt.Sprintf("%.0f", f.MaxRSSMB) })
	row("live sstables MB", func(f figures) string { return fmt.Sprintf("%.1f", f.LiveMB) })
	row("disk MB (end of requests)", func(f figures) string { return fmt.Sprintf("%.1f", f.DiskMB) })
	row("load write-amp", func(f figures) string { return fmt.Sprintf("%.2f", f.LoadWriteAmp) })
	row("request write-amp", func(f figures) string { return fmt.Sprintf("%.2f", f.ReqWriteAmp) })
	row("request cache hit rate", func(f figures) string { return fmt.Sprintf("%.4f", f.ReqHitRate) })
	row("compactions", func(f figures) string { return fmt.Sprint(f.Compactions) })
	row("write stalls (s)", func(f figures) string { return fmt.Sprintf("%d (%.2f)", f.Stalls, f.StallSeconds) })
}
