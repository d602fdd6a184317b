package memstore_test

import (
	"context"
	"fmt"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// Links, counts and a hidden link in the reference store.
func Example() {
	ctx := context.Background()
	s := memstore.New()
	defer s.Close()
	lt := store.DefaultLinkType
	for id2, t := range []int64{100, 300, 200} {
		s.AddLink(ctx, store.Link{ID1: 7, LinkType: lt, ID2: int64(id2), Visibility: store.VisibilityDefault, Time: t}, true)
	}
	s.DeleteLink(ctx, 7, lt, 2, true, false) // hide id2 2
	links, _ := s.GetLinkList(ctx, store.FullRange(7, lt), nil)
	n, _ := s.CountLinks(ctx, 7, lt)
	hidden, found, _ := s.GetLink(ctx, 7, lt, 2)
	for _, l := range links {
		fmt.Print(l.ID2, "@", l.Time, " ")
	}
	fmt.Println("count", n, "hidden", found, hidden.Visibility)
	// Output: 1@300 0@100 count 2 hidden true HIDDEN
}
