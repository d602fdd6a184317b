package store

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
)

// Opener opens a store of one kind from a data source name, whose form
// the store defines ("" asks for its defaults), and the options given to
// Open. A store a program registers with Register is then available by
// name to Open, and to the command-line tool's -store flag.
type Opener func(ctx context.Context, dsn string, o OpenOptions) (Store, error)

// OpenOptions are what Open passes to an Opener besides the DSN.
type OpenOptions struct {
	// Logger receives the store's warnings; nil discards them.
	Logger *slog.Logger
	// Driver holds options of the store's own type (for example a
	// mysqlstore.Options), which the DSN completes; nil means the store's
	// defaults. An Opener refuses a value of a type it does not know.
	Driver any
	// Database, when not empty, names the database the returned Store
	// serves (linkbench.Config.DatabaseNames()[0]: dbprefix0, or dbid), for
	// a store that holds several; "" means the store's default. Stores
	// that serve one database ignore it.
	Database string
}

// OpenOption sets a field of OpenOptions.
type OpenOption func(*OpenOptions)

// WithLogger sets OpenOptions.Logger.
func WithLogger(l *slog.Logger) OpenOption { return func(o *OpenOptions) { o.Logger = l } }

// WithDriverOptions sets OpenOptions.Driver.
func WithDriverOptions(v any) OpenOption { return func(o *OpenOptions) { o.Driver = v } }

// WithDatabase sets OpenOptions.Database.
func WithDatabase(name string) OpenOption { return func(o *OpenOptions) { o.Database = name } }

// javaPrefix is the package of LinkBench's store classes, which the
// linkstore key names (com.facebook.LinkBench.LinkStoreMysql).
const javaPrefix = "com.facebook.linkbench."

// registry is the process's table of stores: the one piece of
// package-level state of the library, as database/sql's table of drivers
// is. Stores register from their package's init.
var registry struct {
	mu      sync.RWMutex
	openers map[string]Opener // by lower-case name
	names   map[string]string // lower-case name or alias -> registered name
	order   []string          // registered names, in registration order
}

// Register makes a store available by name (and by each alias) to Open.
// Names are matched without regard to case. It is meant to be called
// from the init function of the store's package, as database/sql's
// drivers register: a program then adds a store with a blank import.
// Register panics if open is nil, a name is empty or contains a space, or
// a name or alias is already taken.
func Register(name string, open Opener, aliases ...string) {
	if open == nil {
		panic("store: Register opener is nil")
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.openers == nil {
		registry.openers = make(map[string]Opener)
		registry.names = make(map[string]string)
	}
	all := append([]string{name}, aliases...)
	for i, n := range all {
		if n == "" || strings.ContainsAny(n, " \t\n") {
			panic(fmt.Sprintf("store: Register: bad name %q", n))
		}
		if _, dup := registry.names[strings.ToLower(n)]; dup || slices.Contains(all[:i], n) {
			panic("store: Register called twice for store " + n)
		}
	}
	for _, n := range all {
		registry.names[strings.ToLower(n)] = name
	}
	registry.openers[strings.ToLower(name)] = open
	registry.order = append(registry.order, name)
}

// Lookup returns the registered name of the store called name, which may
// be an alias, in any case, or a LinkBench class name
// (com.facebook.LinkBench.LinkStoreMysql, as the linkstore key takes
// them); ok is false if no store has that name.
func Lookup(name string) (registered string, ok bool) {
	key := strings.ToLower(name)
	key = strings.TrimPrefix(key, javaPrefix)
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	registered, ok = registry.names[key]
	return registered, ok
}

// Drivers returns the registered stores' names (not their aliases), in
// the order they registered.
func Drivers() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	return slices.Clone(registry.order)
}

// Open opens the store registered as name (see Lookup for the names it
// takes) with the DSN and options, and returns the Opener's error as is.
// The caller owns the store: close it with store.Close(s) (Store itself
// has no Close method; the concrete store's Close is called). An unknown
// name is an error that lists the stores registered.
func Open(ctx context.Context, name, dsn string, opts ...OpenOption) (Store, error) {
	reg, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("store: unknown store %q (registered: %s; forgotten import?)", name, strings.Join(Drivers(), ", "))
	}
	registry.mu.RLock()
	open := registry.openers[strings.ToLower(reg)]
	registry.mu.RUnlock()
	var o OpenOptions
	for _, opt := range opts {
		opt(&o)
	}
	// The opener's error is returned as is: it names the store (and
	// must not contain a password the DSN holds).
	return open(ctx, dsn, o)
}

// Close closes s if it has a Close method (an io.Closer); a store
// without one holds nothing to release.
func Close(s Store) error {
	if c, ok := s.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
