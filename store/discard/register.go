package discard

import (
	"context"
	"fmt"

	"github.com/linkbench-go/linkbench/store"
)

// Name is the name the store registers under (store.Register), with the
// alias DummyLinkStore, LinkBench's class name of its store that keeps
// nothing.
const Name = "discard"

func init() { store.Register(Name, open, "DummyLinkStore") }

// open opens a discard store for store.Open: it takes no DSN and no
// driver options.
func open(_ context.Context, dsn string, o store.OpenOptions) (store.Store, error) {
	if dsn != "" {
		return nil, fmt.Errorf("discard store: takes no DSN (got one)")
	}
	if o.Driver != nil {
		return nil, fmt.Errorf("discard store: takes no driver options (got a %T)", o.Driver)
	}
	return New(), nil
}
