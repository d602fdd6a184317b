package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/mysqlstore"
)

// storeNames lists the stores registered with the store package: the
// built-in ones first.
func storeNames() string {
	var names []string
	for _, b := range builtins {
		names = append(names, b.name)
	}
	for _, n := range store.Drivers() {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// storeName returns the store selected by -store or, without it, by the
// linkstore key: a name or alias registered with the store package
// (LinkBench class names accepted); pebble (the first built-in store) by
// default.
func storeName(o *options, cfg *linkbench.Config) (string, error) {
	name := o.store
	key := "-store"
	if name == "" && cfg.Store.LinkStore != "" {
		name, key = cfg.Store.LinkStore, "linkstore"
	}
	if name == "" {
		return builtins[0].name, nil
	}
	if reg, ok := store.Lookup(name); ok {
		return reg, nil
	}
	return "", usageError{fmt.Errorf("%s %q: unknown store (available: %s)", key, name, storeNames())}
}

// openedStore is a store with what the tool needs around it.
type openedStore struct {
	store.Store
	name  string // the registered name: memory, discard, mysql, postgres or another
	desc  string // for the report: never contains a password
	close func() error
}

// redact removes the password and the DSN from a message: the DSN is
// replaced by its redacted form, and the password wherever it stands as a
// token of its own (not inside a longer word, so that a short password does
// not mangle every message that happens to contain its letters).
func redact(msg, dsn, password string) string {
	if dsn != "" {
		redacted, passwords := redactDSN(dsn)
		msg = strings.ReplaceAll(msg, dsn, redacted)
		// Whichever store the DSN is for, every password it may hold is
		// masked.
		for _, pw := range passwords {
			msg = maskToken(msg, pw)
		}
	}
	if password != "" {
		msg = maskToken(msg, password)
	}
	return msg
}

// maskToken replaces each occurrence of tok in s that is not part of a
// longer run of letters and digits by "*****".
func maskToken(s, tok string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, tok)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(tok)
		inWord := (i > 0 && isWordByte(s[i-1]) && isWordByte(tok[0])) ||
			(end < len(s) && isWordByte(s[end]) && isWordByte(tok[len(tok)-1]))
		b.WriteString(s[:i])
		if inWord {
			b.WriteString(tok)
		} else {
			b.WriteString("*****")
		}
		s = s[end:]
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// openStore opens the store registered as name through the store
// registry (store.Open): a built-in one with the options the keys and
// flags give, any other with -dsn.
func openStore(ctx context.Context, name string, o *options, cfg *linkbench.Config) (*openedStore, error) {
	if b, ok := builtinStore(name); ok {
		if b.open != nil {
			s, desc, after, err := b.open(ctx, o, cfg)
			if err != nil {
				return nil, err
			}
			closeStore := func() error { return store.Close(s) }
			if after != nil {
				closeStore = func() error { return errors.Join(store.Close(s), after()) }
			}
			return &openedStore{Store: s, name: name, desc: desc, close: closeStore}, nil
		}
		s, err := store.Open(ctx, name, "")
		if err != nil {
			return nil, err
		}
		return &openedStore{Store: s, name: name, desc: b.desc, close: func() error { return store.Close(s) }}, nil
	}
	// A store of another package registered by name: it gets -dsn, the
	// log and the name of the run's first database. The DSN is never
	// printed (it may hold a password).
	s, err := store.Open(ctx, name, o.dsn, store.WithLogger(cfg.Logger), store.WithDatabase(cfg.DatabaseNames()[0]))
	if err != nil {
		// Its DSN's form is the store's own: the message never repeats it.
		msg := err.Error()
		if o.dsn != "" {
			msg = strings.ReplaceAll(msg, o.dsn, "<the -dsn>")
		}
		return nil, fmt.Errorf("%s store: %s", name, redact(msg, o.dsn, o.conn.Password))
	}
	desc := name
	if o.dsn != "" {
		desc += " (with -dsn)"
	}
	return &openedStore{Store: s, name: name, desc: desc, close: func() error { return store.Close(s) }}, nil
}

// checkCapabilities refuses, once the store is open, the flags its
// capabilities do not serve (the built-in stores are checked before it is
// opened): -create-schema and -defer-index need store.SchemaCreator,
// -verify alone needs a store whose data outlives a run (store.Contents).
func (s *openedStore) checkCapabilities(o *options) error {
	if _, ok := store.AsSchemaCreator(s.Store); !ok && (o.createSchema || o.deferIndex) {
		return usageError{fmt.Errorf("-create-schema and -defer-index need a store that creates its tables (store.SchemaCreator): the %s store does not", s.name)}
	}
	if _, ok := store.AsContents(s.Store); !ok && o.verify && !o.load && !o.req {
		return usageError{fmt.Errorf("-verify alone: the %s store starts empty; add -l (and -r), or use -store %s", s.name, serverStores())}
	}
	return nil
}

// createSchema creates the databases and tables (if missing) of every
// database of the run (Config.DatabaseNames), when the store creates its
// schema (store.SchemaCreator).
func (s *openedStore) createSchema(ctx context.Context, cfg *linkbench.Config, deferIndex bool) error {
	sc, ok := store.AsSchemaCreator(s.Store)
	if !ok {
		return nil // the embedded stores need no schema
	}
	for _, db := range cfg.DatabaseNames() {
		if err := sc.EnsureSchema(ctx, db, store.SchemaOptions{DeferIndex: deferIndex}); err != nil {
			if errors.Is(err, mysqlstore.ErrSpiderDataNodes) {
				return usageError{fmt.Errorf("-create-schema %s: %w", db, err)}
			}
			return fmt.Errorf("create schema %s: %w", db, err)
		}
	}
	return nil
}

// createSecondaryIndex adds id1_type after a load made with -defer-index.
func (s *openedStore) createSecondaryIndex(ctx context.Context, cfg *linkbench.Config) error {
	sc, ok := store.AsSchemaCreator(s.Store)
	if !ok {
		return nil
	}
	for _, db := range cfg.DatabaseNames() {
		if err := sc.CreateDeferredIndex(ctx, db); err != nil {
			return fmt.Errorf("create index id1_type in %s: %w", db, err)
		}
	}
	return nil
}

// isServerStore reports whether name (or an alias of it) is a built-in
// store on a database server (see builtin.server).
func isServerStore(name string) bool {
	if reg, ok := store.Lookup(name); ok {
		name = reg
	}
	b, ok := builtinStore(name)
	return ok && b.server
}
