package store_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/memstore"
	_ "github.com/linkbench-go/linkbench/store/mysqlstore"
	_ "github.com/linkbench-go/linkbench/store/pgstore"
)

// TestRegistryBuiltins: the four stores register from their packages'
// init under their names and LinkBench's class names.
func TestRegistryBuiltins(t *testing.T) {
	for _, want := range []string{"memory", "discard", "mysql", "postgres"} {
		if !slices.Contains(store.Drivers(), want) {
			t.Errorf("Drivers() = %v, lacks %s", store.Drivers(), want)
		}
	}
	for name, want := range map[string]string{
		"memory": "memory", "MEMORY": "memory", "MemoryLinkStore": "memory",
		"com.facebook.LinkBench.MemoryLinkStore": "memory",
		"discard":                                "discard", "DummyLinkStore": "discard", "com.facebook.LinkBench.DummyLinkStore": "discard",
		"mysql": "mysql", "mariadb": "mysql", "LinkStoreMysql": "mysql", "com.facebook.LinkBench.LinkStoreMysql": "mysql",
		"postgres": "postgres", "postgresql": "postgres", "pg": "postgres", "pgsql": "postgres",
		"com.facebook.LinkBench.LinkStorePgsql": "postgres",
	} {
		got, ok := store.Lookup(name)
		if !ok || got != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	for _, bad := range []string{"", "oracle", "com.facebook.LinkBench.", "memory "} {
		if got, ok := store.Lookup(bad); ok {
			t.Errorf("Lookup(%q) = %q, want no store", bad, got)
		}
	}
}

// TestOpenBuiltins opens the embedded stores by name and checks their
// types and that they refuse what they do not take.
func TestOpenBuiltins(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, "MemoryLinkStore", "", store.WithDriverOptions([]memstore.Option{memstore.WithShards(2)}))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*memstore.Store); !ok {
		t.Errorf("memory: got %T", s)
	}
	if err := store.Close(s); err != nil {
		t.Error(err)
	}
	s, err = store.Open(ctx, "discard", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*discard.Store); !ok {
		t.Errorf("discard: got %T", s)
	}
	if _, err := store.Open(ctx, "memory", "somewhere"); err == nil {
		t.Error("memory with a DSN: no error")
	}
	if _, err := store.Open(ctx, "discard", "", store.WithDriverOptions(42)); err == nil {
		t.Error("discard with driver options: no error")
	}
	if _, err := store.Open(ctx, "mysql", "", store.WithDriverOptions("x")); err == nil || !strings.Contains(err.Error(), "mysqlstore.Options") {
		t.Errorf("mysql with driver options of the wrong type: %v", err)
	}
	_, err = store.Open(ctx, "oracle", "")
	if err == nil || !strings.Contains(err.Error(), `"oracle"`) || !strings.Contains(err.Error(), "memory") {
		t.Errorf("unknown store: %v", err)
	}
}

type countingOpener struct {
	calls int
	dsn   string
	opts  store.OpenOptions
}

func (c *countingOpener) open(_ context.Context, dsn string, o store.OpenOptions) (store.Store, error) {
	c.calls++
	c.dsn, c.opts = dsn, o
	if dsn == "fail" {
		return nil, errors.New("test store: refused")
	}
	return memstore.New(), nil
}

// TestRegisterOpen registers a store and opens it by name and alias,
// passing the DSN and options through, and returning its error as is.
func TestRegisterOpen(t *testing.T) {
	var c countingOpener
	store.Register("registrytest-a", c.open, "RegistryTestAlias")
	if got := store.Drivers(); got[len(got)-1] != "registrytest-a" || slices.Contains(got, "RegistryTestAlias") {
		t.Errorf("Drivers() = %v", got)
	}
	log := slog.New(slog.DiscardHandler)
	if _, err := store.Open(context.Background(), "registrytestalias", "the-dsn", store.WithLogger(log), store.WithDriverOptions(7)); err != nil {
		t.Fatal(err)
	}
	if c.calls != 1 || c.dsn != "the-dsn" || c.opts.Logger != log || c.opts.Driver != 7 {
		t.Errorf("opener saw %d calls, dsn %q, options %+v", c.calls, c.dsn, c.opts)
	}
	_, err := store.Open(context.Background(), "REGISTRYTEST-A", "fail")
	if err == nil || err.Error() != "test store: refused" {
		t.Errorf("error = %v, want the opener's as is", err)
	}
}

// TestRegisterPanics: like database/sql.Register, a second registration of
// a name (or alias, in any case) panics, and so do a nil opener and an
// empty name; a refused registration leaves nothing behind.
func TestRegisterPanics(t *testing.T) {
	var c countingOpener
	store.Register("registrytest-b", c.open, "registrytest-b-alias")
	for _, tc := range []struct {
		name    string
		open    store.Opener
		aliases []string
	}{
		{"registrytest-b", c.open, nil},
		{"REGISTRYTEST-B", c.open, nil},
		{"registrytest-c", c.open, []string{"Registrytest-B-Alias"}},
		{"registrytest-d", c.open, []string{"memory"}},
		{"registrytest-e", c.open, []string{"registrytest-e"}},
		{"registrytest-f", nil, nil},
		{"", c.open, nil},
		{"registry test", c.open, nil},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q, %v): no panic", tc.name, tc.aliases)
				}
			}()
			store.Register(tc.name, tc.open, tc.aliases...)
		}()
		if tc.name != "registrytest-b" && tc.name != "REGISTRYTEST-B" && tc.name != "" {
			if _, ok := store.Lookup(tc.name); ok {
				t.Errorf("refused Register(%q) left the name registered", tc.name)
			}
		}
	}
}

// TestCloseWithoutCloser: Close of a store without a Close method does
// nothing.
func TestCloseWithoutCloser(t *testing.T) {
	if err := store.Close(store.Forward{Inner: memstore.New()}); err != nil {
		t.Error(err)
	}
}

// ExampleOpen opens a store by name, as the command-line tool's -store
// flag does: any store whose package is imported (a blank import is
// enough) is available.
func ExampleOpen() {
	ctx := context.Background()
	st, err := store.Open(ctx, "com.facebook.LinkBench.MemoryLinkStore", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close(st)
	id, _ := st.AddNode(ctx, store.Node{Type: store.DefaultNodeType, Data: []byte("hello")})
	n, found, _ := st.GetNode(ctx, store.DefaultNodeType, id)
	fmt.Printf("%T %d %v %s\n", st, id, found, n.Data)
	// Output: *memstore.Store 1 true hello
}
