package discard_test

import (
	"context"
	"errors"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
)

var (
	_ store.Store          = (*discard.Store)(nil)
	_ store.BulkLinkLoader = (*discard.Store)(nil)
	_ store.BulkNodeLoader = (*discard.Store)(nil)
	_ store.Databases      = (*discard.Store)(nil)
)

func TestAnswers(t *testing.T) {
	ctx := context.Background()
	s := discard.New()
	l := store.Link{ID1: 1, LinkType: 2, ID2: 3, Visibility: store.VisibilityDefault, Data: []byte("x"), Time: 4}
	for range 2 {
		if r, err := s.AddLink(ctx, l, true); r != store.LinkInsert || err != nil {
			t.Fatalf("AddLink = %v, %v; want LINK_INSERT", r, err)
		}
		if r, err := s.UpdateLink(ctx, l, true); r != store.LinkInsert || err != nil {
			t.Fatalf("UpdateLink = %v, %v; want LINK_INSERT", r, err)
		}
	}
	if _, found, err := s.GetLink(ctx, 1, 2, 3); found || err != nil {
		t.Fatalf("GetLink = found %v, %v", found, err)
	}
	if found, err := s.DeleteLink(ctx, 1, 2, 3, true, false); found || err != nil {
		t.Fatalf("DeleteLink = %v, %v", found, err)
	}
	if n, err := s.CountLinks(ctx, 1, 2); n != 0 || err != nil {
		t.Fatalf("CountLinks = %d, %v", n, err)
	}
	dst := []store.Link{l}
	if got, err := s.GetLinkList(ctx, store.FullRange(1, 2), dst); len(got) != 1 || err != nil {
		t.Fatalf("GetLinkList appended %d links, %v; want dst unchanged", len(got)-1, err)
	}
	if got, err := s.MultigetLinks(ctx, 1, 2, []int64{3}, dst[:0]); len(got) != 0 || err != nil {
		t.Fatalf("MultigetLinks = %d links, %v", len(got), err)
	}
	if err := s.AddBulkLinks(ctx, []store.Link{l}, true); err != nil {
		t.Fatal(err)
	}
	if err := s.AddBulkCounts(ctx, []store.LinkCount{{ID1: 1, LinkType: 2, Count: 1}}); err != nil {
		t.Fatal(err)
	}
	n := store.Node{ID: 7, Type: store.DefaultNodeType, Version: 1}
	if _, found, err := s.GetNode(ctx, n.Type, 7); found || err != nil {
		t.Fatalf("GetNode = found %v, %v", found, err)
	}
	if found, err := s.UpdateNode(ctx, n); found || err != nil {
		t.Fatalf("UpdateNode = %v, %v", found, err)
	}
	if found, err := s.DeleteNode(ctx, n.Type, 7); found || err != nil {
		t.Fatalf("DeleteNode = %v, %v", found, err)
	}
	if d, err := s.Database(ctx, "linkdb1"); d != store.Store(s) || err != nil {
		t.Fatalf("Database = %v, %v; want the store itself", d, err)
	}
}

func TestNodeSequence(t *testing.T) {
	ctx := context.Background()
	s := discard.New()
	next := func(want int64) {
		t.Helper()
		if id, err := s.AddNode(ctx, store.Node{ID: -1}); id != want || err != nil {
			t.Fatalf("AddNode = %d, %v; want %d", id, err, want)
		}
	}
	next(1)
	next(2)
	if err := s.ResetNodeStore(ctx, 40); err != nil {
		t.Fatal(err)
	}
	next(40)
	next(41)
	if err := s.AddBulkNodes(ctx, []store.Node{{ID: 100}, {ID: 120}, {ID: 110}}); err != nil {
		t.Fatal(err)
	}
	next(121)
	if err := s.AddBulkNodes(ctx, []store.Node{{ID: 5}}); err != nil {
		t.Fatal(err)
	}
	next(122)
}

func TestErrors(t *testing.T) {
	s := discard.New()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.AddLink(ctx, store.Link{}, true); !errors.Is(err, context.Canceled) {
		t.Errorf("AddLink with a cancelled context: %v", err)
	}
	if _, err := s.AddNode(ctx, store.Node{}); !errors.Is(err, context.Canceled) {
		t.Errorf("AddNode with a cancelled context: %v", err)
	}
	if err := s.ResetNodeStore(ctx, 9); !errors.Is(err, context.Canceled) {
		t.Errorf("ResetNodeStore with a cancelled context: %v", err)
	}
	if id, _ := s.AddNode(context.Background(), store.Node{}); id != 1 {
		t.Errorf("AddNode after cancelled calls = %d, want 1 (nothing consumed or reset)", id)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetLinkList(context.Background(), store.LinkRange{}, nil); !errors.Is(err, store.ErrClosed) {
		t.Errorf("GetLinkList after Close: %v, want store.ErrClosed", err)
	}
}

// TestZeroAllocs checks that no call allocates.
func TestZeroAllocs(t *testing.T) {
	ctx := context.Background()
	s := discard.New()
	l := store.Link{ID1: 1, LinkType: 2, ID2: 3, Data: []byte("x")}
	ids := []int64{1, 2, 3}
	dst := make([]store.Link, 0, 4)
	links := []store.Link{l}
	counts := []store.LinkCount{{ID1: 1}}
	nodes := []store.Node{{ID: 5}}
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = s.AddLink(ctx, l, true)
		_, _ = s.UpdateLink(ctx, l, true)
		_, _ = s.DeleteLink(ctx, 1, 2, 3, true, false)
		_, _, _ = s.GetLink(ctx, 1, 2, 3)
		_, _ = s.MultigetLinks(ctx, 1, 2, ids, dst)
		_, _ = s.GetLinkList(ctx, store.FullRange(1, 2), dst)
		_, _ = s.CountLinks(ctx, 1, 2)
		_ = s.AddBulkLinks(ctx, links, true)
		_ = s.AddBulkCounts(ctx, counts)
		_, _ = s.AddNode(ctx, store.Node{})
		_ = s.AddBulkNodes(ctx, nodes)
		_, _, _ = s.GetNode(ctx, 1, 1)
		_, _ = s.UpdateNode(ctx, store.Node{})
		_, _ = s.DeleteNode(ctx, 1, 1)
		_, _ = s.Database(ctx, "x")
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per round of calls, want 0", allocs)
	}
}

func BenchmarkGetLinkList(b *testing.B) {
	ctx := context.Background()
	s := discard.New()
	dst := make([]store.Link, 0, 16)
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = s.GetLinkList(ctx, store.FullRange(1, 2), dst[:0])
	}
}

func BenchmarkAddNodeParallel(b *testing.B) {
	ctx := context.Background()
	s := discard.New()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _ = s.AddNode(ctx, store.Node{})
		}
	})
}
