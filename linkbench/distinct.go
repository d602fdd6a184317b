package linkbench

import (
	"cmp"
	"slices"
)

// drawnLink is the id2 and time of one generated link of a list, in the
// order the loader generated them.
type drawnLink struct {
	id2, time int64
}

// distinctLinks returns the number of distinct id2s among the links of one
// (id1, link_type) as generated (randomid2max > 0 draws id2s with
// replacement), and the newest time among the links that remain: stores
// upsert, so of links with the same id2 the last one generated is kept.
// It reorders d.
func distinctLinks(d []drawnLink) (count, newest int64) {
	// A stable sort keeps generation order among equal id2s: the last of
	// each run is the link that remains.
	slices.SortStableFunc(d, func(a, b drawnLink) int { return cmp.Compare(a.id2, b.id2) })
	for i := range d {
		if i+1 < len(d) && d[i+1].id2 == d[i].id2 {
			continue
		}
		if count == 0 || d[i].time > newest {
			newest = d[i].time
		}
		count++
	}
	return count, newest
}
