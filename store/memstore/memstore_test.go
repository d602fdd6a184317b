package memstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
	"github.com/linkbench-go/linkbench/store/storetest"
)

// Compile-time checks of the capabilities memstore promises.
var (
	_ store.Store          = (*memstore.Store)(nil)
	_ store.BulkLinkLoader = (*memstore.Store)(nil)
	_ store.BulkNodeLoader = (*memstore.Store)(nil)
	_ store.Databases      = (*memstore.Store)(nil)
	_ store.Checker        = (*memstore.Store)(nil)
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s := memstore.New()
		t.Cleanup(func() { _ = s.Close() })
		return s
	})
}

// One stripe: every list and node shares a lock and a map.
func TestConformanceOneShard(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return memstore.New(memstore.WithShards(1))
	})
}

// A Database view is itself a conforming store.
func TestConformanceDatabaseView(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		v, err := memstore.New().Database(t.Context(), "linkdb0")
		if err != nil {
			t.Fatal(err)
		}
		return v
	})
}

func TestClose(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	v, err := s.Database(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddLink(ctx, store.Link{ID1: 1, LinkType: 1, ID2: 1, Visibility: store.VisibilityDefault}, true); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	for _, st := range []*memstore.Store{s, v.(*memstore.Store)} {
		if _, err := st.CountLinks(ctx, 1, 1); !errors.Is(err, store.ErrClosed) {
			t.Errorf("CountLinks after Close: %v, want store.ErrClosed", err)
		}
		if _, err := st.AddLink(ctx, store.Link{ID1: 1, LinkType: 1, ID2: 2}, true); !errors.Is(err, store.ErrClosed) {
			t.Errorf("AddLink after Close: %v, want store.ErrClosed", err)
		}
		if _, _, err := st.GetNode(ctx, 1, 1); !errors.Is(err, store.ErrClosed) {
			t.Errorf("GetNode after Close: %v, want store.ErrClosed", err)
		}
		if _, err := st.Database(ctx, "x"); !errors.Is(err, store.ErrClosed) {
			t.Errorf("Database after Close: %v, want store.ErrClosed", err)
		}
		if _, _, err := st.CheckCounts(ctx, 0); !errors.Is(err, store.ErrClosed) {
			t.Errorf("CheckCounts after Close: %v, want store.ErrClosed", err)
		}
	}
}

// The Store New returns serves the database named "".
func TestDefaultDatabase(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	l := store.Link{ID1: 1, LinkType: 2, ID2: 3, Visibility: store.VisibilityDefault, Data: []byte("x"), Time: 4}
	if _, err := s.AddLink(ctx, l, true); err != nil {
		t.Fatal(err)
	}
	v, err := s.Database(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	got, found, err := v.GetLink(ctx, 1, 2, 3)
	if err != nil || !found || !got.Equal(l) {
		t.Fatalf(`Database("").GetLink = %+v, %v, %v; want %+v`, got, found, err, l)
	}
}

// A fresh database allocates node ids from 1.
func TestFreshNodeSequence(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	for want := int64(1); want <= 3; want++ {
		id, err := s.AddNode(ctx, store.Node{Type: 1})
		if err != nil || id != want {
			t.Fatalf("AddNode = %d, %v; want %d", id, err, want)
		}
	}
}

func TestNegativeRange(t *testing.T) {
	s := memstore.New()
	for _, r := range []store.LinkRange{{Offset: -1, Limit: 1}, {Limit: -1}} {
		if _, err := s.GetLinkList(context.Background(), r, nil); err == nil {
			t.Errorf("GetLinkList(%+v): no error", r)
		}
	}
}
