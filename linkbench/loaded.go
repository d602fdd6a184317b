package linkbench

import (
	"context"
	"errors"
	"fmt"

	"github.com/linkbench-go/linkbench/store"
)

// ErrEmptyStore is returned (wrapped) by Request and CheckLoaded when a
// database holds no node with an id in [startid1, maxid1): a request phase
// on a graph that was never loaded runs and reports misses (LinkBench's
// GET_NODE, for one, misses four times in ten) that measure nothing.
// Config.AllowEmptyStore (allow_empty_store = true) allows it deliberately.
var ErrEmptyStore = errors.New("the graph is not loaded")

// CheckLoaded returns nil when every one of cfg's dbcount databases in st
// holds at least one node with an id in [startid1, maxid1), when
// cfg.AllowEmptyStore is set, or when there is no request phase
// (requesters = 0); otherwise an error wrapping ErrEmptyStore
// that names the database, the range and allow_empty_store. Request runs
// the same check before it sends anything; a caller that writes output
// files can call CheckLoaded first.
//
// The check asks the store's store.NodeProber whether it holds a node in
// that range (store.AsNodeProber, so wrappers built on store.Forward keep
// it): on a SQL store, one primary-key lookup that reads at most one row.
// A store without it but with a store.Checker is asked for its node count
// and id range instead: on a SQL store a count of the node table, which
// takes seconds for tens of millions of nodes and reads the whole table
// (a caller that knows the graph is loaded can set allow_empty_store to
// skip it); so is one whose probe found nothing, to say what it holds. A
// store with neither capability is not checked: a probe with GetNode could not
// tell an empty store from one that stores nothing by design (store/discard)
// or one whose probed nodes were deleted by an earlier request phase, and
// its calls would show in a trace of the run.
//
// Errors: *ConfigError for a bad configuration, the error wrapping
// ErrEmptyStore, the store's errors (wrapped).
func CheckLoaded(ctx context.Context, cfg Config, st store.Store) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.AllowEmptyStore || cfg.Requesters == 0 {
		return nil
	}
	stores, names, err := dbStores(ctx, &cfg, st)
	if err != nil {
		return err
	}
	return checkLoaded(ctx, &cfg, stores, names)
}

// requestStores is dbStores for Request: the stores of the databases, once
// CheckLoaded's check has passed.
func requestStores(ctx context.Context, cfg *Config, st store.Store) ([]store.Store, []string, error) {
	stores, names, err := dbStores(ctx, cfg, st)
	if err != nil || cfg.AllowEmptyStore {
		return stores, names, err
	}
	if err := checkLoaded(ctx, cfg, stores, names); err != nil {
		return nil, nil, err
	}
	return stores, names, nil
}

func checkLoaded(ctx context.Context, cfg *Config, stores []store.Store, names []string) error {
	for i, s := range stores {
		p, probed := store.AsNodeProber(s)
		if probed {
			found, err := p.HasNodeIn(ctx, cfg.StartID1, cfg.MaxID1)
			if err != nil {
				return fmt.Errorf("nodes of database %s: %w", names[i], err)
			}
			if found {
				continue
			}
		}
		held := fmt.Sprintf("no node in [startid1, maxid1) = [%d, %d)", cfg.StartID1, cfg.MaxID1)
		if ch, ok := store.AsChecker(s); ok {
			// Without a NodeProber, or to say what the database holds when
			// the probe found nothing: NodeStats counts every node.
			ns, err := ch.NodeStats(ctx)
			if err != nil {
				return fmt.Errorf("nodes of database %s: %w", names[i], err)
			}
			if !probed && ns.Count > 0 && ns.MaxID >= cfg.StartID1 && ns.MinID < cfg.MaxID1 {
				continue
			}
			held = "no nodes"
			if ns.Count > 0 {
				held = fmt.Sprintf("%d nodes with ids %d..%d, none in [startid1, maxid1) = [%d, %d)",
					ns.Count, ns.MinID, ns.MaxID, cfg.StartID1, cfg.MaxID1)
			}
		} else if !probed {
			continue // neither capability: not checked
		}
		return fmt.Errorf("request phase: database %s holds %s: %w; set allow_empty_store = true to run requests on it anyway",
			names[i], held, ErrEmptyStore)
	}
	return nil
}
