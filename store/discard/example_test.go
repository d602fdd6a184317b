package discard_test

import (
	"context"
	"fmt"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
)

// The discard store keeps nothing: writes succeed, reads miss, node ids
// still grow so that a load's checks hold.
func Example() {
	ctx := context.Background()
	s := discard.New()
	defer s.Close()
	r, _ := s.AddLink(ctx, store.Link{ID1: 1, LinkType: store.DefaultLinkType, ID2: 2, Visibility: store.VisibilityDefault}, true)
	_, found, _ := s.GetLink(ctx, 1, store.DefaultLinkType, 2)
	a, _ := s.AddNode(ctx, store.Node{Type: store.DefaultNodeType})
	b, _ := s.AddNode(ctx, store.Node{Type: store.DefaultNodeType})
	fmt.Println(r, found, a, b)
	// Output: LINK_INSERT false 1 2
}
