package linkbench

import (
	"fmt"

	"pgregory.net/rand"

	"github.com/linkbench-go/linkbench/distributions"
)

// GraphEstimate is the expected size of the graph a load phase writes:
// what a store must hold after Load (the request phase then adds and
// deletes a little).
type GraphEstimate struct {
	Nodes int64 // nodes, all databases (0 without generate_nodes)
	Links int64 // links, all databases (with randomid2max > 0, before repeated id2s collapse)
	// Lists is the number of (id1, link_type) pairs with at least one link,
	// all databases: the adjacency lists (and count rows).
	Lists int64
	// NodeData and LinkData are the expected payload bytes of all nodes and
	// of all links (the mean of the payload size distributions, times
	// Nodes and Links).
	NodeData, LinkData int64
	// Sampled reports that Links and Lists were extrapolated from a sample
	// of the id1s (graphs above 2^20 id1s per database); exact otherwise.
	Sampled bool
}

// Estimation limits: graphs of up to estimateExact id1s are summed id1 by
// id1; larger ones sum the estimateHead id1s of the highest out-degree
// ranks exactly and estimateSamples jittered, stratified ranks of the rest.
const (
	estimateExact   = 1 << 20
	estimateHead    = 1 << 16
	estimateSamples = 1 << 18
)

// EstimateGraph returns the expected size of the graph Load writes for
// cfg, from the out-degree model and the payload size distributions,
// without generating it (a graph of 10^7 id1s per database takes about a
// tenth of a second). Errors: *ConfigError, as Check.
func EstimateGraph(cfg Config) (GraphEstimate, error) {
	w, err := prepare(cfg, false)
	if err != nil {
		return GraphEstimate{}, err
	}
	cfg = w.cfg
	// A chooser over out-degree ranks (the shuffler only permutes id1s):
	// LinkCounts(startid1 + r) is the split of rank r's out-degree.
	ch, err := distributions.NewID2Chooser(distributions.ID2Config{
		StartID1: cfg.StartID1, MaxID1: cfg.MaxID1, LinkTypeCount: cfg.LinkTypeCount,
		NeverChange: cfg.NeverChange, Requesters: 1, RequesterID: 1,
	}, unshuffled{w.outDegree})
	if err != nil {
		return GraphEstimate{}, keyError("", "", err)
	}
	var buf []int64
	rank := func(r int64) (links, lists int64) {
		buf = ch.LinkCounts(cfg.StartID1+r, buf[:0])
		for _, k := range buf {
			links += k
			if k > 0 {
				lists++
			}
		}
		return links, lists
	}
	var e GraphEstimate
	n := w.n
	if n <= estimateExact {
		for r := range n {
			l, c := rank(r)
			e.Links += l
			e.Lists += c
		}
	} else {
		// The out-degree falls with the rank: the head holds the giant
		// lists; a stratified sample with one random rank per stratum
		// gives the rest without bias, also for periodic arithmetic models.
		e.Sampled = true
		for r := range int64(estimateHead) {
			l, c := rank(r)
			e.Links += l
			e.Lists += c
		}
		rest := n - estimateHead
		src := rand.New(1)
		var sl, sc float64
		for i := range int64(estimateSamples) {
			lo := estimateHead + rest*i/estimateSamples
			hi := estimateHead + rest*(i+1)/estimateSamples
			width := hi - lo
			if width <= 0 {
				continue
			}
			l, c := rank(lo + int64(src.Uint64n(uint64(width))))
			sl += float64(l) * float64(width)
			sc += float64(c) * float64(width)
		}
		e.Links += int64(sl)
		e.Lists += int64(sc)
	}
	dbs := int64(cfg.DBCount)
	e.Links *= dbs
	e.Lists *= dbs
	if cfg.GenerateNodes {
		e.Nodes = n * dbs
	}
	e.LinkData = int64(meanSize(w.linkSize) * float64(e.Links))
	e.NodeData = int64(meanSize(w.nodeSize) * float64(e.Nodes))
	return e, nil
}

// String describes the estimate in one line.
func (e GraphEstimate) String() string {
	how := "exact count"
	if e.Sampled {
		how = "sampled"
	}
	return fmt.Sprintf("%d nodes (%d payload bytes), %d links (%d payload bytes) in %d lists (%s)",
		e.Nodes, e.NodeData, e.Links, e.LinkData, e.Lists, how)
}

// meanSize is the mean of a payload size distribution, from its quantiles.
func meanSize(d *distributions.LogNormal) float64 {
	const k = 1000
	s := 0.0
	for i := range k {
		s += float64(d.Quantile((float64(i) + 0.5) / k))
	}
	return s / k
}

// unshuffled presents an out-degree model without its shuffle, so that a
// chooser's LinkCounts(startid1 + r) is the split of rank r.
type unshuffled struct{ distributions.OutDegree }

func (unshuffled) Shuffled() bool { return false }
