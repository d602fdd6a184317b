package pgstore

import (
	"context"
	"fmt"

	"github.com/linkbench-go/linkbench/store"
)

// Name is the name the store registers under (store.Register), with the
// alias LinkStorePgsql, LinkBench's class name of its PostgreSQL store (and postgresql, pg, pgsql).
const Name = "postgres"

func init() { store.Register(Name, open, "postgresql", "pg", "pgsql", "LinkStorePgsql") }

// open opens the store for store.Open: the driver options, an Options or
// *Options (nil: the defaults), with the DSN, when not empty, as their
// DSN and the logger, when set, as their Logger.
func open(ctx context.Context, dsn string, o store.OpenOptions) (store.Store, error) {
	var opts Options
	switch v := o.Driver.(type) {
	case nil:
	case Options:
		opts = v
	case *Options:
		opts = *v
	default:
		return nil, fmt.Errorf("postgres store: driver options of type %T, want pgstore.Options", o.Driver)
	}
	if dsn != "" {
		opts.DSN = dsn
	}
	if o.Logger != nil {
		opts.Logger = o.Logger
	}
	s, err := Open(ctx, opts)
	if err != nil {
		return nil, err // not a nil *Store in a non-nil interface
	}
	return s, nil
}
