package memstore

import (
	"context"
	"fmt"

	"github.com/linkbench-go/linkbench/store"
)

// Name is the name the store registers under (store.Register), with the
// alias MemoryLinkStore, LinkBench's class name.
const Name = "memory"

func init() { store.Register(Name, open, "MemoryLinkStore") }

// open opens a memory store for store.Open: it takes no DSN, and as
// driver options a []Option.
func open(_ context.Context, dsn string, o store.OpenOptions) (store.Store, error) {
	if dsn != "" {
		return nil, fmt.Errorf("memory store: takes no DSN (got one)")
	}
	switch v := o.Driver.(type) {
	case nil:
		return New(), nil
	case []Option:
		return New(v...), nil
	default:
		return nil, fmt.Errorf("memory store: driver options of type %T, want []memstore.Option", o.Driver)
	}
}
