package linkbench

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/linkbench-go/linkbench/store"
)

// ErrVerify is returned (wrapped) by Verify when a database is
// inconsistent.
var ErrVerify = errors.New("verify: store is inconsistent")

// VerifyResult is what Verify found in one database.
type VerifyResult struct {
	Database     string
	Nodes        store.NodeStats
	PairsChecked int64                 // (id1, link_type) pairs compared
	Mismatches   []store.CountMismatch // at most maxMismatches of them
}

// maxMismatches bounds the mismatches Verify collects per database.
const maxMismatches = 20

// Verify is a consistency check usable after any run: for each of the
// dbcount databases it reads the node count and id range, and compares, for
// every (id1, link_type), the count with the number of visible links. The
// store (or each database of a store.Databases) must implement
// store.Checker.
//
// It fails (an error wrapping ErrVerify) when a count differs from the
// visible links, or when the node table is impossible: ids below
// startid1, or more nodes than ids in [min, max]. Node counts are not
// compared with maxid1 - startid1, because the request phase adds and
// deletes nodes. Other errors: *ConfigError for a bad configuration, the
// store's errors.
func Verify(ctx context.Context, cfg Config, st store.Store) ([]VerifyResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	stores, names, err := dbStores(ctx, &cfg, st)
	if err != nil {
		return nil, err
	}
	var out []VerifyResult
	var bad []string
	for i, s := range stores {
		ch, ok := store.AsChecker(s)
		if !ok {
			return out, fmt.Errorf("verify: the store of database %s cannot be checked (it does not implement store.Checker)", names[i])
		}
		r := VerifyResult{Database: names[i]}
		if r.Nodes, err = ch.NodeStats(ctx); err != nil {
			return out, fmt.Errorf("verify %s: nodes: %w", names[i], err)
		}
		if r.Mismatches, r.PairsChecked, err = ch.CheckCounts(ctx, maxMismatches); err != nil {
			return out, fmt.Errorf("verify %s: counts: %w", names[i], err)
		}
		out = append(out, r)
		if len(r.Mismatches) > 0 {
			m := r.Mismatches[0]
			bad = append(bad, fmt.Sprintf("%s: %d (id1, link_type) counts differ from the visible links (first: id1=%d link_type=%d count=%d visible=%d)",
				names[i], len(r.Mismatches), m.ID1, m.LinkType, m.Count, m.Visible))
		}
		if n := r.Nodes; n.Count > 0 && (n.MinID < cfg.StartID1 || n.Count > n.MaxID-n.MinID+1) {
			bad = append(bad, fmt.Sprintf("%s: %d nodes with ids %d..%d (startid1 %d)", names[i], n.Count, n.MinID, n.MaxID, cfg.StartID1))
		}
	}
	if len(bad) > 0 {
		return out, fmt.Errorf("%w: %v", ErrVerify, bad)
	}
	return out, nil
}

// WriteVerify prints Verify's results, one line per database.
func WriteVerify(w io.Writer, results []VerifyResult) error {
	for _, r := range results {
		status := "OK"
		if len(r.Mismatches) > 0 {
			status = fmt.Sprintf("FAILED (%d count mismatches)", len(r.Mismatches))
		}
		if _, err := fmt.Fprintf(w, "VERIFY %s: nodes=%d min_id=%d max_id=%d (id1,link_type) pairs=%d counts %s\n",
			r.Database, r.Nodes.Count, r.Nodes.MinID, r.Nodes.MaxID, r.PairsChecked, status); err != nil {
			return err
		}
	}
	return nil
}
