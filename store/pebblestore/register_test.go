package pebblestore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/pebblestore"
)

// The store is registered as "pebble", its DSN the directory, with its
// capabilities seen through the registry.
func TestRegistry(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, "pebble", dir, store.WithDriverOptions(pebblestore.Options{Sync: pebblestore.SyncOff}))
	if err != nil {
		t.Fatal(err)
	}
	ps, ok := st.(*pebblestore.Store)
	if !ok {
		t.Fatalf("store.Open returned a %T", st)
	}
	if o := ps.Options(); o.Dir != dir || o.Sync != pebblestore.SyncOff {
		t.Errorf("Options() = %+v", o)
	}
	want := store.CapBulkLinks | store.CapBulkNodes | store.CapChecker | store.CapContents | store.CapServer | store.CapEngineMetrics | store.CapNodeProbe
	if got := store.Capabilities(st); got != want {
		t.Errorf("capabilities %v, want %v", got, want)
	}
	if err := store.Close(st); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dsn    string
		driver any
		want   string
	}{
		{"", nil, "the DSN must be the database's directory"},
		{dir, pebblestore.Options{Dir: dir + "x"}, "name different directories"},
		{dir, 42, "driver options of type int"},
		{dir, &pebblestore.Options{BlockSize: 1}, "BlockSize (block_size) = 1"},
	} {
		_, err := store.Open(ctx, "pebble", c.dsn, store.WithDriverOptions(c.driver))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("store.Open(%q, %v): %v, want %q", c.dsn, c.driver, err, c.want)
		}
	}
	// Options.Dir alone is enough.
	st, err = store.Open(ctx, "pebble", "", store.WithDriverOptions(&pebblestore.Options{Dir: dir}))
	if err != nil {
		t.Fatal(err)
	}
	_ = store.Close(st)
}
