package storetest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/linkbench-go/linkbench/store"
)

// cmpListOrder orders links as the reference store lists them: Time
// descending, then ID2 ascending.
func cmpListOrder(a, b store.Link) int {
	switch {
	case a.Time > b.Time:
		return -1
	case a.Time < b.Time:
		return 1
	case a.ID2 < b.ID2:
		return -1
	case a.ID2 > b.ID2:
		return 1
	}
	return 0
}

// sameList returns "" when got is a valid answer for a list query whose
// reference answer is want: the same links (Link.Equal), Time
// non-increasing. Links with equal Time may come in any order (the order
// of ties is store-specific), so when want has distinct times the order
// must be exactly want's. Otherwise it describes the difference.
func sameList(got, want []store.Link) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d links, want %d", len(got), len(want))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Time > got[i-1].Time {
			return fmt.Sprintf("link %d has time %d after time %d: not newest first", i, got[i].Time, got[i-1].Time)
		}
	}
	g, w := slices.Clone(got), slices.Clone(want)
	slices.SortStableFunc(g, cmpListOrder)
	slices.SortStableFunc(w, cmpListOrder)
	for i := range g {
		if !g[i].Equal(w[i]) {
			return fmt.Sprintf("link %s (in time order) differs from %s", fmtLink(g[i]), fmtLink(w[i]))
		}
	}
	return ""
}

// sameSet returns "" when got holds exactly the links of want in any
// order (MultigetLinks), each once.
func sameSet(got, want []store.Link) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d links, want %d", len(got), len(want))
	}
	g, w := slices.Clone(got), slices.Clone(want)
	slices.SortStableFunc(g, cmpListOrder)
	slices.SortStableFunc(w, cmpListOrder)
	for i := range g {
		if !g[i].Equal(w[i]) {
			return fmt.Sprintf("link %s differs from %s", fmtLink(g[i]), fmtLink(w[i]))
		}
	}
	return ""
}

// fmtLink formats a link compactly, payload shortened to 24 bytes.
func fmtLink(l store.Link) string {
	d := l.Data
	suffix := ""
	if len(d) > 24 {
		d, suffix = d[:24], fmt.Sprintf("...(%d bytes)", len(l.Data))
	}
	return fmt.Sprintf("{id1=%d type=%d id2=%d %v data=%q%s v=%d t=%d}",
		l.ID1, l.LinkType, l.ID2, l.Visibility, d, suffix, l.Version, l.Time)
}

func fmtLinks(ls []store.Link) string {
	if len(ls) > 20 {
		return fmt.Sprintf("[%d links: %s ...]", len(ls), fmtLinks(ls[:20]))
	}
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmtLink(l)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// fmtNode formats a node compactly, payload shortened to 24 bytes.
func fmtNode(n store.Node) string {
	d := n.Data
	suffix := ""
	if len(d) > 24 {
		d, suffix = d[:24], fmt.Sprintf("...(%d bytes)", len(n.Data))
	}
	return fmt.Sprintf("{id=%d type=%d v=%d t=%d data=%q%s}", n.ID, n.Type, n.Version, n.Time, d, suffix)
}

// model is the reference semantics of one adjacency list, for checking
// larger scenarios: the stored links by ID2, hidden included.
type model map[int64]store.Link

func (m model) put(l store.Link) { m[l.ID2] = l.Clone() }

func (m model) remove(id2 int64, expunge bool) bool {
	l, ok := m[id2]
	if !ok {
		return false
	}
	if expunge {
		delete(m, id2)
	} else {
		l.Visibility = store.VisibilityHidden
		m[id2] = l
	}
	return true
}

// visible returns the visible links in list order.
func (m model) visible() []store.Link {
	var out []store.Link
	for _, l := range m {
		if l.Visibility == store.VisibilityDefault {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, cmpListOrder)
	return out
}

// query answers r over the model, in reference order.
func (m model) query(r store.LinkRange) []store.Link {
	var out []store.Link
	for _, l := range m.visible() {
		if l.Time >= r.MinTime && l.Time <= r.MaxTime {
			out = append(out, l)
		}
	}
	if r.Offset >= len(out) {
		return nil
	}
	out = out[r.Offset:]
	if len(out) > r.Limit {
		out = out[:r.Limit]
	}
	return out
}
