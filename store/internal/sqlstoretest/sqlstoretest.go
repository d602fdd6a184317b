// Package sqlstoretest holds the test helpers both SQL stores' tests use
// (mysqlstore, pgstore): logs, counters, count checks, a model-checked run
// of random operations under injected faults, the databases of the
// conformance suite, and the checks of an abandoned statement and of a
// refused connection. It imports package testing: only tests import it.
package sqlstoretest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/store"
)

// LT is the link type of the tests' links.
const LT = store.DefaultLinkType

// MkLink returns the link (id1, LT, id2) with the visibility, payload and
// time given.
func MkLink(id1, id2 int64, vis store.Visibility, data string, tm int64) store.Link {
	return store.Link{ID1: id1, LinkType: LT, ID2: id2, Visibility: vis, Data: []byte(data), Time: tm}
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers (a log sink).
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write implements io.Writer.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// DebugLogger returns a logger writing everything to buf.
func DebugLogger(buf *SyncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Counter returns the value of the named counter of s (0 when absent).
func Counter(s store.CounterSource, name string) int64 {
	for _, c := range s.Counters() {
		if c.Name == name {
			return c.Value
		}
	}
	return 0
}

// SumCounters adds the counters of s whose name starts with prefix.
func SumCounters(s store.CounterSource, prefix string) int64 {
	var n int64
	for _, c := range s.Counters() {
		if strings.HasPrefix(c.Name, prefix) {
			n += c.Value
		}
	}
	return n
}

// CheckCountsClean fails the test when CheckCounts finds a mismatch, and
// returns the number of pairs checked.
func CheckCountsClean(tb testing.TB, s store.Checker) int64 {
	tb.Helper()
	mm, checked, err := s.CheckCounts(context.Background(), 10)
	if err != nil {
		tb.Fatalf("CheckCounts: %v", err)
	}
	if len(mm) > 0 {
		tb.Fatalf("CheckCounts: %d pairs checked, mismatches (first 10): %+v", checked, mm)
	}
	return checked
}

// Schemas is a store whose databases a test creates and drops.
type Schemas interface {
	store.SchemaCreator
	DropSchema(ctx context.Context, name string) error
}

// Databases creates the databases names with admin (the conformance
// suite's Databases case opens them by name: the stores never create a
// database by themselves) and drops them when the test ends.
func Databases(t *testing.T, admin Schemas, names ...string) {
	t.Helper()
	ctx := context.Background()
	for _, n := range names {
		if err := admin.EnsureSchema(ctx, n, store.SchemaOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := admin.DropSchema(ctx, n); err != nil {
				t.Errorf("DropSchema(%s): %v", n, err)
			}
		})
	}
}

// NotApplied fails the test unless node 7 of s still holds version 1 and
// the payload "before": an UpdateNode abandoned while it waited for a row
// lock (its context ended) must not be applied once the lock goes. It
// waits half a second first: a statement still waiting would run then.
func NotApplied(t *testing.T, s store.Store) {
	t.Helper()
	time.Sleep(500 * time.Millisecond)
	got, found, err := s.GetNode(context.Background(), store.DefaultNodeType, 7)
	if err != nil || !found {
		t.Fatalf("GetNode: %v, found %v", err, found)
	}
	if string(got.Data) != "before" || got.Version != 1 {
		t.Fatalf("the abandoned UpdateNode was applied after its context ended: version %d data %q", got.Version, got.Data)
	}
}

// RefusedRedacted checks the error of an Open on a closed port (open,
// which gets the logger to use): an error that does not hold the password
// pw, in its message, its %+v form or the log, and names the redacted DSN
// (holds redactedDSN).
func RefusedRedacted(t *testing.T, open func(*slog.Logger) error, pw, redactedDSN string) {
	t.Helper()
	var logs SyncBuffer
	err := open(DebugLogger(&logs))
	if err == nil {
		t.Fatal("Open on a closed port succeeded")
	}
	if strings.Contains(err.Error(), pw) || strings.Contains(fmt.Sprintf("%+v", err), pw) || strings.Contains(logs.String(), pw) {
		t.Fatalf("password leaked: %v / %s", err, logs.String())
	}
	if !strings.Contains(err.Error(), redactedDSN) {
		t.Fatalf("error does not show the redacted DSN %s: %v", redactedDSN, err)
	}
}

// Model is how a model run (RunModel) draws and checks its operations.
type Model struct {
	// Ops is the number of operations.
	Ops int
	// Kinds is the number of kinds of operations drawn: 9 (links, counts,
	// lists, nodes), or 10 with bulk loads.
	Kinds int
	// NoChange: a write that leaves a link as it was returns
	// store.LinkNoChange (InnoDB's affected rows); else store.LinkUpdate.
	NoChange bool
}

// model is a minimal reference for sequential checks: links by key.
type model struct {
	links    map[[3]int64]store.Link
	noChange bool
}

func (m *model) write(l store.Link) store.WriteResult {
	k := [3]int64{l.ID1, l.LinkType, l.ID2}
	old, ok := m.links[k]
	m.links[k] = l.Clone()
	switch {
	case !ok:
		return store.LinkInsert
	case m.noChange && old.Equal(l):
		return store.LinkNoChange
	}
	return store.LinkUpdate
}

func (m *model) count(id1, typ int64) int64 {
	var n int64
	for k, l := range m.links {
		if k[0] == id1 && k[1] == typ && l.Visibility == store.VisibilityDefault {
			n++
		}
	}
	return n
}

// RunModel runs p.Ops random operations (seed 7) on s, each checked
// against a model of what they should return, then checks, through check
// (s itself, or the store s is a session of), every link, count and node
// the model holds, and the counts. Faults the store retries must change
// no result.
func RunModel(t *testing.T, p Model, s, check store.Store) {
	t.Helper()
	ctx := context.Background()
	m := model{links: map[[3]int64]store.Link{}, noChange: p.NoChange}
	r := rand.New(rand.NewPCG(7, 7))
	if err := s.ResetNodeStore(ctx, 1); err != nil {
		t.Fatal(err)
	}
	nextNode := int64(1)
	nodes := map[int64]store.Node{}
	for i := range p.Ops {
		id1, id2, typ := 1+r.Int64N(4), r.Int64N(8), LT+r.Int64N(2)
		l := store.Link{ID1: id1, LinkType: typ, ID2: id2, Visibility: store.Visibility(r.IntN(2)),
			Data: []byte(fmt.Sprint(r.IntN(3))), Time: r.Int64N(50)}
		switch op := r.IntN(p.Kinds); op {
		case 0, 1:
			want := m.write(l)
			if got, err := s.AddLink(ctx, l, true); err != nil || got != want {
				t.Fatalf("op %d AddLink = %v, %v; want %v", i, got, err, want)
			}
		case 2:
			want := m.write(l)
			if got, err := s.UpdateLink(ctx, l, true); err != nil || got != want {
				t.Fatalf("op %d UpdateLink = %v, %v; want %v", i, got, err, want)
			}
		case 3:
			k := [3]int64{id1, typ, id2}
			old, want := m.links[k]
			expunge := r.IntN(2) == 0
			if want {
				if expunge {
					delete(m.links, k)
				} else {
					old.Visibility = store.VisibilityHidden
					m.links[k] = old
				}
			}
			if got, err := s.DeleteLink(ctx, id1, typ, id2, true, expunge); err != nil || got != want {
				t.Fatalf("op %d DeleteLink = %v, %v; want %v", i, got, err, want)
			}
		case 4:
			want, wantFound := m.links[[3]int64{id1, typ, id2}]
			got, found, err := s.GetLink(ctx, id1, typ, id2)
			if err != nil || found != wantFound || (found && !got.Equal(want)) {
				t.Fatalf("op %d GetLink = %+v, %v, %v; want %+v, %v", i, got, found, err, want, wantFound)
			}
		case 5:
			if got, err := s.CountLinks(ctx, id1, typ); err != nil || got != m.count(id1, typ) {
				t.Fatalf("op %d CountLinks = %d, %v; want %d", i, got, err, m.count(id1, typ))
			}
		case 6:
			got, err := s.GetLinkList(ctx, store.FullRange(id1, typ), nil)
			if err != nil || int64(len(got)) != m.count(id1, typ) {
				t.Fatalf("op %d GetLinkList = %d links, %v; want %d", i, len(got), err, m.count(id1, typ))
			}
			got, err = s.MultigetLinks(ctx, id1, typ, []int64{0, 1, 2, 3, 4, 5, 6, 7}, got[:0])
			if err != nil {
				t.Fatalf("op %d MultigetLinks: %v", i, err)
			}
			for _, l := range got {
				if !l.Equal(m.links[[3]int64{l.ID1, l.LinkType, l.ID2}]) {
					t.Fatalf("op %d MultigetLinks returned %+v", i, l)
				}
			}
		case 7:
			n := store.Node{Type: store.DefaultNodeType, Version: 1, Time: int32(i), Data: []byte(fmt.Sprint(i))}
			id, err := s.AddNode(ctx, n)
			if err != nil || id != nextNode {
				t.Fatalf("op %d AddNode = %d, %v; want %d", i, id, err, nextNode)
			}
			n.ID = id
			nodes[id] = n
			nextNode++
		case 8:
			if nextNode == 1 {
				continue
			}
			id := 1 + r.Int64N(nextNode-1)
			n, want := nodes[id]
			if r.IntN(2) == 0 {
				n.ID, n.Version, n.Data = id, 2, []byte("u")
				if want {
					nodes[id] = n
				}
				if found, err := s.UpdateNode(ctx, n); err != nil || found != want {
					t.Fatalf("op %d UpdateNode = %v, %v; want %v", i, found, err, want)
				}
			} else {
				delete(nodes, id)
				if found, err := s.DeleteNode(ctx, store.DefaultNodeType, id); err != nil || found != want {
					t.Fatalf("op %d DeleteNode = %v, %v; want %v", i, found, err, want)
				}
			}
		case 9:
			bulk(t, s, &m, i, typ)
		}
	}
	for id1 := int64(1); id1 <= 4; id1++ {
		for typ := LT; typ < LT+2; typ++ {
			for id2 := range int64(8) {
				want, wantFound := m.links[[3]int64{id1, typ, id2}]
				got, found, err := check.GetLink(ctx, id1, typ, id2)
				if err != nil || found != wantFound || (found && !got.Equal(want)) {
					t.Fatalf("final GetLink(%d,%d,%d) = %+v, %v, %v; want %+v", id1, typ, id2, got, found, err, want)
				}
			}
			if n, err := check.CountLinks(ctx, id1, typ); err != nil || n != m.count(id1, typ) {
				t.Fatalf("final CountLinks(%d, %d) = %d, %v; want %d", id1, typ, n, err, m.count(id1, typ))
			}
		}
	}
	for id := int64(1); id < nextNode; id++ {
		want, wantFound := nodes[id]
		got, found, err := check.GetNode(ctx, store.DefaultNodeType, id)
		if err != nil || found != wantFound || (found && !got.Equal(want)) {
			t.Fatalf("final GetNode(%d) = %+v, %v, %v", id, got, found, err)
		}
	}
	if c, ok := store.AsChecker(check); ok {
		CheckCountsClean(t, c)
	}
}

// bulk loads a batch of fresh links on id1 100+i (op i of a model run),
// and their count.
func bulk(t *testing.T, s store.Store, m *model, i int, typ int64) {
	t.Helper()
	ctx := context.Background()
	batch := []store.Link{{ID1: 100 + int64(i), LinkType: typ, ID2: 1, Visibility: 1, Data: []byte("b")},
		{ID1: 100 + int64(i), LinkType: typ, ID2: 2, Visibility: 1, Data: []byte("b")}}
	bl, ok := store.AsBulkLinkLoader(s)
	if !ok {
		t.Fatalf("op %d: the store has no bulk loads", i)
	}
	if err := bl.AddBulkLinks(ctx, batch, true); err != nil {
		t.Fatalf("op %d AddBulkLinks: %v", i, err)
	}
	if err := bl.AddBulkCounts(ctx, []store.LinkCount{{ID1: 100 + int64(i), LinkType: typ, Count: 2}}); err != nil {
		t.Fatalf("op %d AddBulkCounts: %v", i, err)
	}
	for _, l := range batch {
		m.write(l)
	}
}

// CheckInjected checks the counters of s after a model run under faults
// injected inj times: at least 100 injected, every one counted as an
// error with one of the codes (the counters errors.<code>) and retried,
// no call failed, and the retries logged (logs holds logged).
func CheckInjected(t *testing.T, s store.CounterSource, inj int64, codes []string, logs, logged string) {
	t.Helper()
	if inj < 100 {
		t.Fatalf("only %d injected errors", inj)
	}
	var errs int64
	for _, c := range codes {
		errs += Counter(s, "errors."+c)
	}
	if errs != inj {
		t.Errorf("errors.%s = %d, injected %d", strings.Join(codes, " + errors."), errs, inj)
	}
	if got := SumCounters(s, "retries."); got != inj {
		t.Errorf("retries = %d, injected %d", got, inj)
	}
	if got := SumCounters(s, "failures."); got != 0 {
		t.Errorf("failures = %d", got)
	}
	if !strings.Contains(logs, logged) {
		t.Error("retries were not logged")
	}
}

// Fresh is a store a test opens on a database of its own.
type Fresh interface {
	Schemas
	Name() string // the database it serves
	Close() error
}

// Open opens a store with open, on a database of its own (the store's
// Name), creates LinkBench's tables in it, and drops the database and
// closes the store when the test ends.
func Open[S Fresh](tb testing.TB, open func(context.Context) (S, error)) S {
	tb.Helper()
	ctx := context.Background()
	s, err := open(ctx)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	if err := s.EnsureSchema(ctx, s.Name(), store.SchemaOptions{}); err != nil {
		s.Close()
		tb.Fatalf("CreateSchema: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.DropSchema(ctx, ""); err != nil {
			tb.Errorf("DropSchema: %v", err)
		}
		s.Close()
	})
	return s
}
