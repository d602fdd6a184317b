package linkbench

import "testing"

// TestRequesterInflightGrain: a requester running requests one after
// another shows the monitor a start at most inflightGrain before its
// current request's, refreshed once per grain rather than per request (an
// atomic store per request costs a fast store's requests several percent
// of their time), and shows nothing once idle.
func TestRequesterInflightGrain(t *testing.T) {
	r := &requester{shown: -1}
	show := func(want int64) {
		t.Helper()
		if got := r.inflight.Load(); got != want {
			t.Fatalf("inflight = %d, want %d", got, want)
		}
	}
	show(0)
	r.busy(5)
	show(6) // the first request's start + 1
	r.busy(5 + inflightGrain/2)
	show(6) // within the grain: not refreshed
	r.busy(5 + inflightGrain - 1)
	show(6)
	r.busy(5 + inflightGrain)
	show(5 + inflightGrain + 1) // a grain later: refreshed
	r.idle()
	show(0)
	r.idle()
	show(0)
	r.busy(7 * inflightGrain)
	show(7*inflightGrain + 1) // after idle: shown at once
}
