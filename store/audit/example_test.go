package audit_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/audit"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// Log a store's writes, make the store forget one, and verify: the write
// a later one overwrote is superseded, the forgotten one is lost.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "audit-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "writes.audit")

	m := memstore.New()
	log, err := audit.Create(path)
	if err != nil {
		panic(err)
	}
	st := log.Wrap(m) // give st, not m, to linkbench.Load and linkbench.Request
	link := func(id2 int64, data string) store.Link {
		return store.Link{ID1: 1, LinkType: store.DefaultLinkType, ID2: id2,
			Visibility: store.VisibilityDefault, Data: []byte(data), Time: 1764583200000}
	}
	_, _ = st.AddLink(ctx, link(2, "first"), true)
	_, _ = st.UpdateLink(ctx, link(2, "second"), true) // overwrites the first
	_, _ = st.AddLink(ctx, link(3, "kept?"), true)
	// A store that forgets an acknowledged write (what a crash with an
	// unsynced log does):
	_, _ = m.DeleteLink(ctx, 1, store.DefaultLinkType, 3, true, true)
	if err := log.Close(); err != nil {
		panic(err)
	}

	res, err := audit.VerifyFiles(ctx, m, audit.Options{}, path)
	if err != nil {
		panic(err)
	}
	for _, op := range []audit.Op{audit.AddLink, audit.UpdateLink} {
		c := res.Ops[op]
		fmt.Printf("%s: acknowledged %d, present %d, superseded %d, lost %d\n", op, c.Acknowledged, c.Present, c.Superseded, c.Lost)
	}
	for _, l := range res.Lost {
		fmt.Printf("lost: %s id2=%d; the store shows: %s\n", l.Record.Op, l.Record.ID2, l.Store)
	}
	// Output:
	// ADD_LINK: acknowledged 2, present 0, superseded 1, lost 1
	// UPDATE_LINK: acknowledged 1, present 1, superseded 0, lost 0
	// lost: ADD_LINK id2=3; the store shows: absent
}
