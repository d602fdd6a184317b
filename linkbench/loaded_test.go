package linkbench

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// TestRequestRefusesEmptyStore: a request phase on a store without nodes
// in [startid1, maxid1) is refused before any store call, naming the
// database and allow_empty_store; allow_empty_store = true runs it.
func TestRequestRefusesEmptyStore(t *testing.T) {
	ctx := context.Background()
	cfg := smallConfig(1001)
	cfg.Requests = 100
	var buf bytes.Buffer
	tr := NewTracer(&buf)
	rep, err := Request(ctx, cfg, tr.Wrap(memstore.New()))
	if !errors.Is(err, ErrEmptyStore) || rep != nil {
		t.Fatalf("Request on an empty store: %v (report %v), want ErrEmptyStore", err, rep != nil)
	}
	for _, want := range []string{"database linkdb0", "allow_empty_store = true"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("the refused request phase called the store:\n%s", buf.String())
	}
	if err := CheckLoaded(ctx, cfg, memstore.New()); !errors.Is(err, ErrEmptyStore) {
		t.Errorf("CheckLoaded: %v, want ErrEmptyStore", err)
	}

	allow := cfg
	allow.AllowEmptyStore = true
	if _, err := Request(ctx, allow, memstore.New()); err != nil {
		t.Errorf("allow_empty_store = true: %v", err)
	}
	if err := allow.Set("allow_empty_store", "true"); err != nil || !allow.AllowEmptyStore {
		t.Errorf("the allow_empty_store key: %v", err)
	}
	none := cfg
	none.Requesters = 0
	if err := CheckLoaded(ctx, none, memstore.New()); err != nil {
		t.Errorf("requesters = 0 (no request phase): %v", err)
	}
	// A store that cannot report its nodes is not checked.
	if _, err := Request(ctx, cfg, discard.New()); err != nil {
		t.Errorf("discard store: %v", err)
	}
}

// TestRequestRefusesNodesOutsideRange: nodes that are all outside
// [startid1, maxid1), or a database of several that is empty, are refused.
func TestRequestRefusesNodesOutsideRange(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	cfg := smallConfig(101)
	cfg.NLinksFunc, cfg.NLinksDefault = "const", 2
	db0, err := st.Database(ctx, "linkdb0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, cfg, db0); err != nil {
		t.Fatal(err)
	}
	if err := CheckLoaded(ctx, cfg, db0); err != nil {
		t.Errorf("loaded store: %v", err)
	}
	far := cfg
	far.StartID1, far.MaxID1 = 1000, 2000
	err = CheckLoaded(ctx, far, db0)
	if !errors.Is(err, ErrEmptyStore) || !strings.Contains(err.Error(), "100 nodes with ids 1..100, none in [startid1, maxid1) = [1000, 2000)") {
		t.Errorf("nodes outside the range: %v", err)
	}
	two := cfg
	two.DBCount = 2
	err = CheckLoaded(ctx, two, st)
	if !errors.Is(err, ErrEmptyStore) || !strings.Contains(err.Error(), "database linkdb1 holds no nodes") {
		t.Errorf("dbcount = 2 with linkdb1 empty: %v", err)
	}
	if _, err := Request(ctx, two, st); !errors.Is(err, ErrEmptyStore) {
		t.Errorf("Request, dbcount = 2 with linkdb1 empty: %v", err)
	}
}
