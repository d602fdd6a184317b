// Command loadtool is an example of a load tool of your own built on the
// linkbench library rather than on the linkbench command: it loads a graph
// and drives it with
//
//   - a custom operation mix (a read-mostly feed: link lists, node reads,
//     few writes) instead of LinkBench's shipped one;
//   - a middleware store built on store.Forward that overrides three
//     methods: it counts the calls and rows it sees, logs calls slower
//     than -slow, and with -fail-every N fails every Nth AddLink with a
//     transient error (fault injection); everything else, the bulk loads,
//     per-database views and sessions of the wrapped store included, goes
//     through unchanged;
//   - live progress: Config.OnProgress prints each interval's requests/s,
//     errors and GET_LINKS_LIST p99;
//   - SIGINT (or SIGTERM): the phase stops and its partial report is
//     printed, marked INTERRUPTED; the exit status is then 130.
//
// Usage:
//
//	go run ./examples/loadtool [-store memory] [-dsn DSN] [-maxid1 20001] [-requesters 4]
//	                           [-duration 10s] [-progress 1s] [-slow 10ms] [-fail-every 0]
//
// -store takes any store registered with store.Register (memory, discard,
// mysql, postgres, or yours, imported for its init).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
	_ "github.com/linkbench-go/linkbench/store/discard" // the stores -store can name
	_ "github.com/linkbench-go/linkbench/store/memstore"
	_ "github.com/linkbench-go/linkbench/store/mysqlstore"
	_ "github.com/linkbench-go/linkbench/store/pgstore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// feedMix is the custom operation mix: percentages summing to 100.
var feedMix = linkbench.Mix{
	GetLinkList: 55, GetLink: 10, CountLink: 10, GetNode: 18,
	AddLink: 4, UpdateLink: 1, DeleteLink: 0.5, UpdateNode: 1, AddNode: 0.5,
}

// Counts are what the middleware saw, over all its copies (the views and
// sessions it wraps share them).
type Counts struct {
	GetLinkList, Rows, GetNode, AddLink, Slow, Injected atomic.Int64
}

// traced is the middleware: store.Forward does the forwarding and keeps
// the inner store's capabilities; traced overrides three methods.
type traced struct {
	store.Forward
	c         *Counts
	slow      time.Duration
	failEvery int64
	log       func(format string, args ...any)
}

// wrapper returns the function that wraps a store, and the stores that
// store hands out (Forward.Wrap), in the middleware.
func wrapper(c *Counts, slow time.Duration, failEvery int64, log func(string, ...any)) func(store.Store) store.Store {
	var wrap func(store.Store) store.Store
	wrap = func(s store.Store) store.Store {
		return traced{Forward: store.Forward{Inner: s, Wrap: wrap}, c: c, slow: slow, failEvery: failEvery, log: log}
	}
	return wrap
}

// GetLinkList counts the call and the rows returned, and logs slow calls.
func (t traced) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	start := time.Now()
	n := len(dst)
	out, err := t.Forward.GetLinkList(ctx, r, dst)
	t.c.GetLinkList.Add(1)
	t.c.Rows.Add(int64(len(out) - n))
	if d := time.Since(start); d > t.slow {
		t.c.Slow.Add(1)
		t.log("slow GetLinkList id1=%d type=%d: %v, %d rows", r.ID1, r.LinkType, d, len(out)-n)
	}
	return out, err
}

// GetNode counts the call.
func (t traced) GetNode(ctx context.Context, nodeType int32, id int64) (store.Node, bool, error) {
	t.c.GetNode.Add(1)
	return t.Forward.GetNode(ctx, nodeType, id)
}

// AddLink fails every failEvery-th call with a transient error (without
// calling the store), and counts the calls.
func (t traced) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	n := t.c.AddLink.Add(1)
	if t.failEvery > 0 && n%t.failEvery == 0 {
		t.c.Injected.Add(1)
		return 0, &store.TransientError{Op: "AddLink", Err: errors.New("loadtool: injected fault")}
	}
	return t.Forward.AddLink(ctx, l, noInverse)
}

// run is the tool: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtool", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("store", "memory", "a store registered with store.Register")
	dsn := fs.String("dsn", "", "the store's data source name")
	maxid1 := fs.Int64("maxid1", 20001, "one past the last node id")
	requesters := fs.Int("requesters", 4, "request goroutines")
	duration := fs.Duration("duration", 10*time.Second, "length of the request phase")
	progress := fs.Duration("progress", time.Second, "progress interval")
	slow := fs.Duration("slow", 10*time.Millisecond, "log GetLinkList calls slower than this")
	failEvery := fs.Int64("fail-every", 0, "fail every Nth AddLink (0: never)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var logMu sync.Mutex
	logf := func(format string, a ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(stderr, "loadtool: "+format+"\n", a...)
	}

	cfg := linkbench.DefaultConfig()
	cfg.MaxID1 = *maxid1
	cfg.NLinksFunc = "const" // small graphs: LinkBench's real out-degree gives id1 0 4.2 million links
	cfg.NLinksDefault = 8
	cfg.Requesters = *requesters
	cfg.RunFor(*duration)
	cfg.Mix = feedMix
	cfg.MaxFailedRequests = -1 // injected faults never stop a requester
	cfg.ProgressFreq = *progress
	cfg.OnProgress = func(p linkbench.Progress) {
		if p.Phase == stats.PhaseLoad {
			logf("load: %d of %d id1s, %d rows", p.Done, p.Total, p.Rows)
			return
		}
		calls, errs := p.Interval.Requests()
		gl := "-"
		if op, ok := p.Interval.Op(stats.GetLinksList); ok {
			if p99, ok := op.Quantile(0.99); ok {
				gl = p99.String()
			}
		}
		logf("progress %v: %d requests, %.0f/s, %d errors, GET_LINKS_LIST p99 %s", p.Elapsed.Round(time.Millisecond), calls, p.Rate(), errs, gl)
	}
	if err := cfg.Validate(); err != nil {
		logf("%v", err)
		return 2
	}

	inner, err := store.Open(ctx, *name, *dsn)
	if err != nil {
		logf("%v", err)
		return 2
	}
	defer store.Close(inner)
	var c Counts
	st := wrapper(&c, *slow, *failEvery, logf)(inner)

	load, err := linkbench.Load(ctx, cfg, st)
	if err != nil {
		if load != nil {
			load.WriteText(stdout)
		}
		logf("load: %v", err)
		return status(ctx, 1)
	}
	fmt.Fprintf(stdout, "loaded %d nodes and %d links in %v\n", load.Load.Nodes, load.Load.Links, load.Elapsed.Round(time.Millisecond))

	req, err := linkbench.Request(ctx, cfg, st)
	if req != nil {
		req.WriteText(stdout) // the partial report, marked INTERRUPTED, after SIGINT
		fmt.Fprintf(stdout, "middleware: GetLinkList %d (%d rows, %d slow), GetNode %d, AddLink %d (%d faults injected)\n",
			c.GetLinkList.Load(), c.Rows.Load(), c.Slow.Load(), c.GetNode.Load(), c.AddLink.Load(), c.Injected.Load())
	}
	if err != nil {
		logf("request: %v", err)
		return status(ctx, 1)
	}
	return 0
}

// status is 130 when the run was interrupted (ctx cancelled by a signal),
// else code.
func status(ctx context.Context, code int) int {
	if ctx.Err() != nil {
		return 130
	}
	return code
}
