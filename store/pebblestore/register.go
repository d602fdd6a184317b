package pebblestore

import (
	"context"
	"fmt"

	"github.com/linkbench-go/linkbench/store"
)

// Name is the name the store registers under (store.Register).
const Name = "pebble"

func init() { store.Register(Name, open) }

// open opens a store for store.Open: the DSN is the directory, and the
// driver options, if any, an Options or *Options (whose Dir the DSN
// sets, or must agree with); the OpenOptions' Logger is the store's
// unless the Options have one.
func open(ctx context.Context, dsn string, oo store.OpenOptions) (store.Store, error) {
	var o Options
	switch v := oo.Driver.(type) {
	case nil:
	case Options:
		o = v
	case *Options:
		if v != nil {
			o = *v
		}
	default:
		return nil, fmt.Errorf("pebble store: driver options of type %T, want pebblestore.Options", oo.Driver)
	}
	switch {
	case dsn == "" && o.Dir == "":
		return nil, fmt.Errorf("pebble store: the DSN must be the database's directory")
	case dsn != "" && o.Dir != "" && dsn != o.Dir:
		return nil, fmt.Errorf("pebble store: the DSN %q and Options.Dir %q name different directories", dsn, o.Dir)
	case dsn != "":
		o.Dir = dsn
	}
	if o.Logger == nil {
		o.Logger = oo.Logger
	}
	return Open(ctx, o)
}
