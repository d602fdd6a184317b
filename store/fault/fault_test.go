package fault_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/fault"
	"github.com/linkbench-go/linkbench/store/memstore"
	"github.com/linkbench-go/linkbench/store/storetest"
)

// TestConformance: a wrapper that injects nothing is the store it wraps.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return fault.Wrap(memstore.New(), func(string) fault.Fault { return fault.Fault{} })
	})
}

func link(id2 int64) store.Link {
	return store.Link{ID1: 1, LinkType: store.DefaultLinkType, ID2: id2, Visibility: store.VisibilityDefault, Time: 1}
}

func TestFaults(t *testing.T) {
	ctx := context.Background()
	m := memstore.New()

	// Fail: the store is not called.
	f := fault.Wrap(m, fault.Only([]string{"AddLink"}, fault.First(1, fault.Fault{Fail: true})))
	if _, err := f.AddLink(ctx, link(1), true); !errors.Is(err, fault.ErrInjected) {
		t.Fatalf("failed AddLink: %v", err)
	}
	if n, _ := m.CountLinks(ctx, 1, store.DefaultLinkType); n != 0 {
		t.Fatalf("a failed call reached the store: count %d", n)
	}
	if _, err := f.AddLink(ctx, link(1), true); err != nil {
		t.Fatalf("second AddLink: %v", err)
	}
	if _, _, err := f.GetNode(ctx, store.DefaultNodeType, 1); err != nil {
		t.Fatalf("GetNode, not in Only's list: %v", err)
	}

	// Fail with the caller's error.
	boom := &store.TransientError{Op: "AddLink", Err: errors.New("boom")}
	f = fault.Wrap(m, fault.First(1, fault.Fault{Fail: true, Err: boom}))
	if _, err := f.AddLink(ctx, link(2), true); !store.IsTransient(err) {
		t.Fatalf("AddLink with a transient fault: %v", err)
	}

	// AckLost: applied, reported as failed.
	f = fault.Wrap(m, fault.First(1, fault.Fault{AckLost: true}))
	if _, err := f.AddLink(ctx, link(3), true); !errors.Is(err, fault.ErrAckLost) {
		t.Fatalf("AddLink with a lost acknowledgement: %v", err)
	}
	if _, found, _ := m.GetLink(ctx, 1, store.DefaultLinkType, 3); !found {
		t.Fatal("the call whose acknowledgement was lost was not applied")
	}

	// Hang: until the context is done.
	f = fault.Wrap(m, fault.First(1, fault.Fault{Hang: true}))
	hctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := f.CountLinks(hctx, 1, store.DefaultLinkType); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hung CountLinks: %v", err)
	}

	// Delay, cut short by the context.
	f = fault.Wrap(m, fault.First(2, fault.Fault{Delay: time.Hour}))
	dctx, cancel2 := context.WithCancel(ctx)
	cancel2()
	if _, err := f.CountLinks(dctx, 1, store.DefaultLinkType); !errors.Is(err, context.Canceled) {
		t.Fatalf("delayed CountLinks with a done context: %v", err)
	}
	if got := f.Counts(); got.Delayed != 1 || got.Hung != 0 {
		t.Fatalf("Counts = %+v", got)
	}
}

// TestPolicies: Every, Rate and First inject as many faults as they say.
func TestPolicies(t *testing.T) {
	count := func(p fault.Policy, n int) int {
		k := 0
		for range n {
			if p("GetNode").Fail {
				k++
			}
		}
		return k
	}
	fail := fault.Fault{Fail: true}
	if got := count(fault.Every(10, fail), 1000); got != 100 {
		t.Errorf("Every(10) over 1000 calls: %d", got)
	}
	if got := count(fault.First(7, fail), 1000); got != 7 {
		t.Errorf("First(7): %d", got)
	}
	// Rate(0.1) over 100000 calls: binomial, sd ~95; 5 sd.
	if got := count(fault.Rate(42, 0.1, fail), 100000); got < 10000-475 || got > 10000+475 {
		t.Errorf("Rate(0.1) over 100000 calls: %d", got)
	}
	if a, b := count(fault.Rate(7, 0.3, fail), 1000), count(fault.Rate(7, 0.3, fail), 1000); a != b {
		t.Errorf("Rate with one seed: %d then %d faults", a, b)
	}
	if got := count(fault.Rate(1, 1, fail), 100); got != 100 {
		t.Errorf("Rate(1): %d of 100", got)
	}
}

// TestWrapsDatabasesAndSessions: the databases and sessions of a wrapped
// store inject faults too, counted with the store's.
func TestWrapsDatabasesAndSessions(t *testing.T) {
	ctx := context.Background()
	f := fault.Wrap(memstore.New(), fault.Only([]string{"GetNode"}, fault.Every(1, fault.Fault{Fail: true})))
	dbs, ok := store.AsDatabases(f)
	if !ok {
		t.Fatal("the wrapper lost Databases")
	}
	db, err := dbs.Database(ctx, "linkdb1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.GetNode(ctx, store.DefaultNodeType, 1); !errors.Is(err, fault.ErrInjected) {
		t.Fatalf("GetNode on a database view: %v", err)
	}
	sess, err := store.OpenSession(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if _, _, err := sess.GetNode(ctx, store.DefaultNodeType, 1); !errors.Is(err, fault.ErrInjected) {
		t.Fatalf("GetNode on a session: %v", err)
	}
	if got := f.Counts().Failed; got != 2 {
		t.Errorf("Counts().Failed = %d, want 2", got)
	}
	if got, want := store.Capabilities(f), store.Capabilities(memstore.New()); got != want {
		t.Errorf("capabilities %v, want %v", got, want)
	}
}

// Example: every 100th GetNode fails; the rest reach the store.
func Example() {
	ctx := context.Background()
	st := fault.Wrap(memstore.New(), fault.Only([]string{"GetNode"}, fault.Every(100, fault.Fault{Fail: true})))
	failed := 0
	for id := range int64(1000) {
		if _, _, err := st.GetNode(ctx, store.DefaultNodeType, id); errors.Is(err, fault.ErrInjected) {
			failed++
		}
	}
	fmt.Println(failed, "of 1000 GetNode calls failed;", st.Counts().Failed, "faults injected")
	// Output: 10 of 1000 GetNode calls failed; 10 faults injected
}
