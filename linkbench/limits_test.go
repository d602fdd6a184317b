package linkbench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store/discard"
)

// TestRunFor: with RunFor the time bounds the request phase, however many
// requests that is.
func TestRunFor(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.RunFor(300 * time.Millisecond)
	if cfg.Requests != Unlimited || cfg.MaxTime != 300*time.Millisecond {
		t.Fatalf("RunFor: requests %d, maxtime %v", cfg.Requests, cfg.MaxTime)
	}
	start := time.Now()
	rep, err := Request(context.Background(), cfg, discard.New())
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 300*time.Millisecond || took > 30*time.Second {
		t.Errorf("the phase took %v, want about 300ms", took)
	}
	if rep.Request.Requests <= 2*2000 {
		t.Errorf("%d requests in 300ms", rep.Request.Requests)
	}
	if !headerHas(rep, "requesters", "requests=unlimited") {
		t.Errorf("the report header does not say requests=unlimited: %v", rep.Header)
	}
}

// TestNoTimeLimitWithWarmup: NoTimeLimit after a warm-up is no limit (the
// end of the limit, warm-up + MaxTime, used to overflow and stop each
// requester after its first measured request).
func TestNoTimeLimitWithWarmup(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Requests = 1500
	cfg.MaxTime = NoTimeLimit
	cfg.WarmupTime = time.Millisecond
	rep, err := Request(context.Background(), cfg, discard.New())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Request.Requests != 2*1500 {
		t.Errorf("%d requests, want %d", rep.Request.Requests, 2*1500)
	}
	if !headerHas(rep, "requesters", "maxtime=none") {
		t.Errorf("the report header does not say maxtime=none: %v", rep.Header)
	}
}

// TestUnlimitedKeys: the requests and maxtime keys say Unlimited and
// NoTimeLimit with their largest values, with LinkBench's meaning, and
// print them back.
func TestUnlimitedKeys(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Set("requests", "9223372036854775807"); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Set("maxtime", "9223372036.854775807"); err != nil {
		t.Fatal(err)
	}
	if cfg.Requests != Unlimited || cfg.MaxTime != NoTimeLimit {
		t.Fatalf("requests %d, maxtime %d", cfg.Requests, cfg.MaxTime)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	back := DefaultConfig()
	for _, p := range cfg.Properties() {
		if err := back.Set(p.Key, p.Value); err != nil {
			t.Fatal(err)
		}
	}
	if back.Requests != Unlimited || back.MaxTime != NoTimeLimit {
		t.Errorf("read back: requests %d, maxtime %d", back.Requests, back.MaxTime)
	}
	// maxtime = 0 and requests = 0 keep LinkBench's meaning.
	for k, v := range map[string]string{"maxtime": "0", "requests": "0"} {
		if err := cfg.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if cfg.MaxTime != 0 || cfg.Requests != 0 {
		t.Errorf("maxtime = 0, requests = 0: %v, %d", cfg.MaxTime, cfg.Requests)
	}
}

func TestTotalRequestsAndTimeLimitSaturate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Requesters = 3
	if got := cfg.totalRequests(); got != 3*500000 {
		t.Errorf("totalRequests = %d", got)
	}
	cfg.Requests = Unlimited
	if got := cfg.totalRequests(); got != Unlimited {
		t.Errorf("totalRequests with Unlimited = %d", got)
	}
	cfg.MaxTime = NoTimeLimit
	if got := cfg.timeLimitEnd(int64(time.Second)); got != int64(NoTimeLimit) {
		t.Errorf("timeLimitEnd(1s) with NoTimeLimit = %d", got)
	}
	cfg.MaxTime = time.Minute
	if got := cfg.timeLimitEnd(int64(time.Second)); got != int64(61*time.Second) {
		t.Errorf("timeLimitEnd(1s) = %d", got)
	}
}

// headerHas reports whether the report header's key holds want.
func headerHas(rep *stats.Report, key, want string) bool {
	for _, kv := range rep.Header {
		if kv.Key == key && strings.Contains(kv.Value, want) {
			return true
		}
	}
	return false
}

// TestTotalRequestRate: total_requestrate is shared equally by the
// requesters when the run is prepared (the loop sees each one's share as
// its requestrate); it cannot be combined with requestrate.
func TestTotalRequestRate(t *testing.T) {
	cfg := smallConfig(10_001)
	cfg.Requesters = 4
	cfg.Requests = 100
	if err := cfg.Set("total_requestrate", "2000"); err != nil {
		t.Fatal(err)
	}
	w, err := prepare(cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	if w.cfg.RequestRate != 500 {
		t.Errorf("each requester's rate is %g, want 2000/4", w.cfg.RequestRate)
	}
	start := time.Now()
	rep, err := Request(context.Background(), cfg, discard.New())
	if err != nil {
		t.Fatal(err)
	}
	// 400 requests at 2000/s: about 0.2 s (Poisson arrivals).
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("400 requests at 2000/s in total took %v", took)
	}
	gn, _ := rep.Op(stats.GetNode)
	if gn.Service == nil {
		t.Error("no service-time series: the run was not open loop")
	}
	if !headerHas(rep, "requesters", "2000/s in total, 500/s per requester") {
		t.Errorf("the report header does not give the rates: %v", rep.Header)
	}

	cfg.RequestRate = 10
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "total_requestrate") ||
		!strings.Contains(err.Error(), "requestrate (10)") {
		t.Errorf("requestrate and total_requestrate: %v", err)
	}
}
