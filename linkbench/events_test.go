package linkbench

import (
	"slices"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
)

// counterList is a store.CounterSource with counters set by the test.
type counterList struct{ c []store.Counter }

func (l *counterList) Counters() []store.Counter { return slices.Clone(l.c) }

// TestProgressEvents: a request progress report shows the store's failure
// and failover counters that grew since the previous report (with their
// growth), and not the others (retries, add_to_upd) nor the unchanged.
func TestProgressEvents(t *testing.T) {
	src := &counterList{c: []store.Counter{{Name: "errors.1213", Value: 4}, {Name: "reconnects", Value: 1}, {Name: "retries.AddLink", Value: 7}}}
	ev := newEventCounters(src)
	if got := ev.grown(); got != nil {
		t.Fatalf("right after the start: %v, want none", got)
	}
	src.c = []store.Counter{{Name: "ambiguous", Value: 1}, {Name: "errors.1213", Value: 4}, {Name: "errors.cert_conflict", Value: 2},
		{Name: "reconnects", Value: 6}, {Name: "retries.AddLink", Value: 9}}
	got := ev.grown()
	want := []stats.Counter{{Name: "ambiguous", Value: 1}, {Name: "errors.cert_conflict", Value: 2}, {Name: "reconnects", Value: 5}}
	if !slices.Equal(got, want) {
		t.Fatalf("grown = %v, want %v", got, want)
	}
	if again := ev.grown(); again != nil {
		t.Errorf("nothing grew since: %v", again)
	}
	line := progressLine(Progress{Phase: stats.PhaseRequest, Events: got})
	if !strings.HasSuffix(line, "; store: ambiguous=1 errors.cert_conflict=2 reconnects=5") {
		t.Errorf("progress line %q does not end with the store's events", line)
	}
	if newEventCounters(nil).grown() != nil {
		t.Error("a store without counters has events")
	}
}
