package linkbench

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/store"
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

// statsCounter is a store that counts its NodeStats and HasNodeIn calls;
// without probe it hides the NodeProber capability (a Checker alone).
type statsCounter struct {
	store.Forward
	probe         bool
	stats, probes int
}

func (s *statsCounter) Capabilities() store.Capability {
	c := s.Forward.Capabilities()
	if !s.probe {
		c &^= store.CapNodeProbe
	}
	return c
}

func (s *statsCounter) NodeStats(ctx context.Context) (store.NodeStats, error) {
	s.stats++
	return s.Forward.NodeStats(ctx)
}

func (s *statsCounter) HasNodeIn(ctx context.Context, lo, hi int64) (bool, error) {
	s.probes++
	return s.Forward.HasNodeIn(ctx, lo, hi)
}

// TestCheckLoadedProbes: on a store.NodeProber the loaded-graph check is
// one HasNodeIn(startid1, maxid1) and no NodeStats (which counts every
// node: on a SQL store, a scan of the node table LinkBench never makes);
// NodeStats only names what an empty range's database holds. A Checker
// without the probe is still checked with NodeStats. The probe is exact
// where NodeStats' id range is not: nodes on both sides of the range and
// none inside are refused.
func TestCheckLoadedProbes(t *testing.T) {
	ctx := context.Background()
	m := memstore.New()
	cfg := smallConfig(101)
	cfg.NLinksFunc, cfg.NLinksDefault = "const", 2
	if _, err := Load(ctx, cfg, m); err != nil {
		t.Fatal(err)
	}
	s := &statsCounter{Forward: store.Forward{Inner: m}, probe: true}
	if err := CheckLoaded(ctx, cfg, s); err != nil {
		t.Fatalf("loaded store: %v", err)
	}
	if s.probes != 1 || s.stats != 0 {
		t.Errorf("loaded store: %d HasNodeIn, %d NodeStats calls; want 1 and 0", s.probes, s.stats)
	}
	far := cfg
	far.StartID1, far.MaxID1 = 1000, 2000
	err := CheckLoaded(ctx, far, s)
	if !errors.Is(err, ErrEmptyStore) || !strings.Contains(err.Error(), "100 nodes with ids 1..100, none in [startid1, maxid1) = [1000, 2000)") {
		t.Errorf("nodes outside the range: %v", err)
	}
	if s.probes != 2 || s.stats != 1 {
		t.Errorf("after the refused range: %d HasNodeIn, %d NodeStats calls; want 2 and 1", s.probes, s.stats)
	}

	old := &statsCounter{Forward: store.Forward{Inner: m}}
	if err := CheckLoaded(ctx, cfg, old); err != nil || old.probes != 0 || old.stats != 1 {
		t.Errorf("a Checker without the probe: %v, %d HasNodeIn, %d NodeStats calls; want nil, 0, 1", err, old.probes, old.stats)
	}

	// Nodes 1..100, none in [40, 60): NodeStats' range (1..100) overlaps it.
	for id := int64(40); id < 60; id++ {
		if _, err := m.DeleteNode(ctx, 2048, id); err != nil {
			t.Fatal(err)
		}
	}
	gap := cfg
	gap.StartID1, gap.MaxID1 = 40, 60
	if err := CheckLoaded(ctx, gap, s); !errors.Is(err, ErrEmptyStore) {
		t.Errorf("no node in [40, 60), nodes on both sides: %v, want ErrEmptyStore", err)
	}
}
