package sqlstore

import (
	"context"
	"fmt"
	"net"
	"reflect"
	"strings"

	"github.com/linkbench-go/linkbench/store"
)

// Register registers a SQL store with package store under name and its
// aliases (store.Register): the opener takes the driver options as an O
// or a *O (nil: the zero O, the store's defaults), sets their DSN field to
// the DSN and their Logger field to the logger when those are given, their
// Database or Schema field, when empty, to the database asked for
// (store.WithDatabase), and opens the store with open. O is a struct with
// a string field DSN, a *slog.Logger field Logger, and a string field
// Database or Schema.
func Register[O any, S store.Store](name string, open func(context.Context, O) (S, error), aliases ...string) {
	store.Register(name, func(ctx context.Context, dsn string, oo store.OpenOptions) (store.Store, error) {
		var o O
		switch v := oo.Driver.(type) {
		case nil:
		case O:
			o = v
		case *O:
			o = *v
		default:
			return nil, fmt.Errorf("%s store: driver options of type %T, want %T", name, oo.Driver, o)
		}
		f := reflect.ValueOf(&o).Elem()
		if dsn != "" {
			f.FieldByName("DSN").SetString(dsn)
		}
		if oo.Logger != nil {
			f.FieldByName("Logger").Set(reflect.ValueOf(oo.Logger))
		}
		for _, name := range []string{"Database", "Schema"} {
			if db := f.FieldByName(name); oo.Database != "" && db.IsValid() && db.String() == "" {
				db.SetString(oo.Database)
			}
		}
		s, err := open(ctx, o)
		if err != nil {
			return nil, err // not a nil store in a non-nil interface
		}
		return s, nil
	}, aliases...)
}

// IsLoopback reports whether host names this host: "" (the driver's
// default), localhost, a loopback address, or a unix socket's path.
func IsLoopback(host string) bool {
	if host == "" || strings.EqualFold(host, "localhost") || strings.HasPrefix(host, "/") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
