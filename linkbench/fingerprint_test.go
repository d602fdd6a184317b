package linkbench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// Pinned fingerprints of what the default (fast) random mode generates
// for fixed seeds: the SHA-256 of the store calls' trace lines (sorted, as
// the interleaving of workers is not deterministic; batch headers and
// comments left out). A change of what the default mode generates, by
// intent or by accident, changes them: update them only together with a
// note of what changed and why.
const (
	loadFingerprint    = "e82bcde3572181291f8d183ec426e1f54b3383dde06cfc02066cbb2625b8812b"
	requestFingerprint = "cee9c0e322c14ed9c2da0566ea997b9b83cab0371db93958f5928cdcec171766"
)

// fingerprint hashes a trace's call lines without their worker tag,
// sorted. The tag (which loader loaded a chunk) and the id an AddNode
// returned (the store hands out ids in the order the requesters' calls
// arrive) depend on timing and are left out.
func fingerprint(trace string) (string, int) {
	var lines []string
	for _, l := range strings.Split(trace, "\n") {
		if l == "" || strings.HasPrefix(l, "#") || isBatchHeader(l) {
			continue
		}
		_, l, _ = strings.Cut(l, " ")
		if i := strings.Index(l, "addNode -> "); i >= 0 {
			rest := l[i+len("addNode -> "):]
			if j := strings.IndexByte(rest, ' '); j >= 0 {
				l = l[:i] + "addNode" + rest[j:]
			}
		}
		lines = append(lines, l)
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)), len(lines)
}

func TestDefaultModeFingerprints(t *testing.T) {
	ctx := context.Background()
	cfg := smallConfig(2001)
	zipfOutDegree(&cfg)
	cfg.Loaders = 2
	cfg.Requesters = 2
	cfg.Requests = 3000

	var lt bytes.Buffer
	tr := NewTracer(&lt)
	m := memstore.New()
	if _, err := Load(ctx, cfg, tr.Wrap(m)); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	got, n := fingerprint(lt.String())
	if got != loadFingerprint {
		t.Errorf("load fingerprint (%d calls) = %s, want %s: the default mode's load changed", n, got, loadFingerprint)
	}

	// The requests go to the discard store: what a requester draws then
	// depends on nothing but the seeds (with a store, the history cache
	// follows the lists the store returns).
	var rt bytes.Buffer
	tr = NewTracer(&rt)
	cfg.AllowEmptyStore = true
	if _, err := Request(ctx, cfg, tr.Wrap(discard.New())); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	got, n = fingerprint(rt.String())
	if got != requestFingerprint {
		t.Errorf("request fingerprint (%d calls) = %s, want %s: the default mode's requests changed", n, got, requestFingerprint)
	}
}

// TestHeavyChunksFirst: with the real out-degree, the load starts with the
// chunk holding the largest adjacency list (rank 0, about 4.2 M links), so
// that it does not finish last (the fix of quirk §11.2-2), and the order
// visits every chunk once.
func TestHeavyChunksFirst(t *testing.T) {
	cfg := smallConfig(200_001)
	w, err := prepare(cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	if !w.outDegree.Shuffled() {
		t.Fatal("the real out-degree is not shuffled")
	}
	chunk := cfg.LoaderChunkSize
	numChunks := (w.n + chunk - 1) / chunk
	sh, err := distributions.NewInvertibleShuffler(distributions.ShuffleSeedLinks, distributions.ShuffleGroups, w.n)
	if err != nil {
		t.Fatal(err)
	}
	links := make([]int64, numChunks)
	for r := range w.n {
		links[sh.Permute(r)/chunk] += w.outDegree.NLinks(cfg.StartID1 + r)
	}
	heaviest := int64(0)
	for c := range links {
		if links[c] > links[heaviest] {
			heaviest = int64(c)
		}
	}
	o := newChunkOrder(w, numChunks)
	if got := o.at(0); got != heaviest {
		t.Errorf("first chunk %d (%d links), want the heaviest, %d (%d links)", got, links[got], heaviest, links[heaviest])
	}
	seen := make([]bool, numChunks)
	for k := range numChunks {
		c := o.at(k)
		if c < 0 || c >= numChunks || seen[c] {
			t.Fatalf("order position %d gives chunk %d twice or out of range", k, c)
		}
		seen[c] = true
	}
}

// TestRequestFingerprintDeterministic: two request phases with the same
// seeds make the same calls (what the pinned fingerprint relies on).
func TestRequestFingerprintDeterministic(t *testing.T) {
	cfg := smallConfig(2001)
	cfg.Requesters, cfg.Requests, cfg.AllowEmptyStore = 2, 2000, true
	var a, b bytes.Buffer
	for _, buf := range []*bytes.Buffer{&a, &b} {
		tr := NewTracer(buf)
		if _, err := Request(context.Background(), cfg, tr.Wrap(discard.New())); err != nil {
			t.Fatal(err)
		}
		if err := tr.Close(); err != nil {
			t.Fatal(err)
		}
	}
	fa, _ := fingerprint(a.String())
	fb, _ := fingerprint(b.String())
	if fa != fb {
		t.Error("two request phases with the same seeds made different calls")
	}
}
