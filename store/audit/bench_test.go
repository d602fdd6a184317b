package audit_test

import (
	"context"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
)

// BenchmarkAddLink: the wrapper's cost per acknowledged write on a store
// that does nothing (discard): formatting, hashing, one write(2).
func BenchmarkAddLink(b *testing.B) {
	ctx := context.Background()
	for _, wrapped := range []bool{false, true} {
		name := "bare"
		if wrapped {
			name = "audited"
		}
		b.Run(name, func(b *testing.B) {
			var st store.Store = discard.New()
			if wrapped {
				st = newLog(b).Wrap(st)
			}
			l := store.Link{ID1: 1, LinkType: lt, ID2: 2, Visibility: 1, Data: make([]byte, 120), Time: 1764583200000}
			for b.Loop() {
				l.ID2++
				if _, err := st.AddLink(ctx, l, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
