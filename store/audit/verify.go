package audit

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/linkbench-go/linkbench/store"
)

// Counts are the verdicts on the writes of one operation.
type Counts struct {
	// Acknowledged is the number of acknowledged writes:
	// Present + Superseded + Lost.
	Acknowledged int64
	Present      int64 // the store shows what the write wrote
	Superseded   int64 // it does not, and a write that may follow explains it
	Lost         int64 // neither
	// Unacknowledged is the number of attempts that returned an error
	// (not judged: their outcome is unknown).
	Unacknowledged int64
}

func (c *Counts) add(o Counts) {
	c.Acknowledged += o.Acknowledged
	c.Present += o.Present
	c.Superseded += o.Superseded
	c.Lost += o.Lost
	c.Unacknowledged += o.Unacknowledged
}

// State is what the store showed for a key when it was read.
type State struct {
	Found      bool
	Visibility store.Visibility // links
	Version    int64
	Time       int64
	Len        int
	Hash       uint64
}

// String describes the state: "absent", or its values (a link's
// visibility first).
func (s State) String() string { return s.describe(false) }

func (s State) describe(node bool) string {
	if !s.Found {
		return "absent"
	}
	vis := ""
	if !node {
		vis = fmt.Sprintf("visibility=%d ", s.Visibility)
	}
	return fmt.Sprintf("%sversion=%d time=%d len=%d hash=%016x", vis, s.Version, s.Time, s.Len, s.Hash)
}

// Lost is a lost write and the row the store showed for its key.
type Lost struct {
	Record Record
	Store  State
}

// Result is what Verify found.
type Result struct {
	// Ops holds the counts of each operation, indexed by Op (AddNode ..
	// DeleteLink).
	Ops [NumOps]Counts
	// Records is the number of records read; Keys the number of nodes and
	// links read from the store (the keys with an acknowledged write).
	Records, Keys int64
	// Resets counts the RESET_NODES records (acknowledged or not).
	Resets int64
	// Reissued counts the node ids that two acknowledged ADD_NODEs
	// returned without a RESET_NODES between them: the store's id
	// sequence went back.
	Reissued int64
	// Lost lists lost writes for diagnosis: at most Options.MaxLost of
	// them (not necessarily the first ones), sorted by their start.
	Lost []Lost
	// Elapsed is the time the verification took.
	Elapsed time.Duration
}

// Total returns the counts of the six operations together.
func (r *Result) Total() Counts {
	var t Counts
	for _, c := range r.Ops {
		t.add(c)
	}
	return t
}

// Options tune Verify.
type Options struct {
	// Readers is the number of goroutines reading the store, each with
	// its own sessions (store.OpenSession); 0 means 8.
	Readers int
	// MaxLost is the number of lost writes Result.Lost lists; 0 means 20,
	// negative none.
	MaxLost int
}

// key identifies a row: a node (db, ID) or a link (db, ID, LinkType, ID2).
type key struct {
	db       string
	node     bool
	id       int64
	linkType int64
	id2      int64
}

// group is a key's records, in the order of their start.
type group struct {
	key
	recs []int32 // indices into the records
}

// VerifyFiles reads the logs at paths (ReadFile) and verifies them
// together against st (see Verify).
func VerifyFiles(ctx context.Context, st store.Store, opts Options, paths ...string) (*Result, error) {
	var recs []Record
	for _, p := range paths {
		r, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r...)
	}
	return Verify(ctx, st, recs, opts)
}

// Verify reads from st the row of every key that has an acknowledged
// write among recs (GetNode with the type of the key's last record,
// GetLink; records with a database name go to st's view of it, from
// store.Databases) and judges each acknowledged write present, superseded
// or lost (see the package documentation). st must not be written
// meanwhile. Errors: a store error (the first, ctx's included), a
// database the store does not serve.
func Verify(ctx context.Context, st store.Store, recs []Record, opts Options) (*Result, error) {
	start := time.Now()
	if opts.Readers <= 0 {
		opts.Readers = 8
	}
	switch {
	case opts.MaxLost == 0:
		opts.MaxLost = 20
	case opts.MaxLost < 0:
		opts.MaxLost = 0
	}
	res := &Result{Records: int64(len(recs))}
	// Group the records by key; resets by database.
	order := make([]int32, len(recs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(recs[a].Start, recs[b].Start) })
	index := map[key]int{}
	var groups []group
	resets := map[string][]int32{}
	dbs := map[string]bool{}
	for _, i := range order {
		r := &recs[i]
		if r.Op >= numOps {
			return nil, fmt.Errorf("audit: record %d: unknown operation %d", i, r.Op)
		}
		if r.Op == ResetNodes {
			res.Resets++
			resets[r.DB] = append(resets[r.DB], i)
			continue
		}
		if !r.Acked {
			res.Ops[r.Op].Unacknowledged++
			if r.Op == AddNode {
				continue // no id: it explains nothing
			}
		} else {
			res.Ops[r.Op].Acknowledged++
		}
		k := key{db: r.DB, node: r.Op.isNode(), id: r.ID}
		if !k.node {
			k.linkType, k.id2 = r.LinkType, r.ID2
		}
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, group{key: k})
		}
		groups[g].recs = append(groups[g].recs, i)
		dbs[r.DB] = true
	}
	// Only keys with an acknowledged write are read.
	groups = slices.DeleteFunc(groups, func(g group) bool {
		for _, i := range g.recs {
			if recs[i].Acked {
				return false
			}
		}
		return true
	})
	res.Keys = int64(len(groups))
	// The stores of the databases.
	views := map[string]store.Store{"": st}
	for db := range dbs {
		if db == "" {
			continue
		}
		d, ok := store.AsDatabases(st)
		if !ok {
			return nil, fmt.Errorf("audit: the log names database %q but the store serves a single database (it does not implement store.Databases)", db)
		}
		v, err := d.Database(ctx, db)
		if err != nil {
			return nil, fmt.Errorf("audit: database %q: %w", db, err)
		}
		views[db] = v
	}
	// Readers take groups in chunks.
	var next int64
	var mu sync.Mutex
	const chunk = 64
	g, gctx := errgroup.WithContext(ctx)
	for range min(opts.Readers, max(1, len(groups))) {
		g.Go(func() error {
			j := judge{recs: recs, resets: resets, maxLost: opts.MaxLost}
			sessions := map[string]store.Session{}
			defer func() {
				for _, s := range sessions {
					_ = s.Close()
				}
			}()
			for {
				mu.Lock()
				lo := next
				next += chunk
				mu.Unlock()
				if lo >= int64(len(groups)) {
					break
				}
				for gi := lo; gi < min(lo+chunk, int64(len(groups))); gi++ {
					grp := &groups[gi]
					s, ok := sessions[grp.db]
					if !ok {
						var err error
						if s, err = store.OpenSession(gctx, views[grp.db]); err != nil {
							return fmt.Errorf("audit: open a session of database %q: %w", grp.db, err)
						}
						sessions[grp.db] = s
					}
					state, err := readState(gctx, s, grp, recs)
					if err != nil {
						return err
					}
					j.group(grp, state)
				}
			}
			mu.Lock()
			for op := range res.Ops {
				res.Ops[op].Present += j.ops[op].Present
				res.Ops[op].Superseded += j.ops[op].Superseded
				res.Ops[op].Lost += j.ops[op].Lost
			}
			res.Reissued += j.reissued
			res.Lost = append(res.Lost, j.lost...)
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	slices.SortFunc(res.Lost, func(a, b Lost) int { return cmp.Compare(a.Record.Start, b.Record.Start) })
	if len(res.Lost) > opts.MaxLost {
		res.Lost = res.Lost[:opts.MaxLost]
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// readState reads the key's row from s.
func readState(ctx context.Context, s store.Store, g *group, recs []Record) (State, error) {
	if g.node {
		typ := recs[g.recs[len(g.recs)-1]].NodeType
		n, found, err := s.GetNode(ctx, typ, g.id)
		if err != nil {
			return State{}, fmt.Errorf("audit: GetNode(%d, %d) in database %q: %w", typ, g.id, g.db, err)
		}
		if !found {
			return State{}, nil
		}
		return State{Found: true, Version: n.Version, Time: int64(n.Time), Len: len(n.Data), Hash: Hash(n.Data)}, nil
	}
	l, found, err := s.GetLink(ctx, g.id, g.linkType, g.id2)
	if err != nil {
		return State{}, fmt.Errorf("audit: GetLink(%d, %d, %d) in database %q: %w", g.id, g.linkType, g.id2, g.db, err)
	}
	if !found {
		return State{}, nil
	}
	return State{Found: true, Visibility: l.Visibility, Version: int64(l.Version), Time: l.Time, Len: len(l.Data), Hash: Hash(l.Data)}, nil
}

// judge judges the writes of groups; one per reader.
type judge struct {
	recs     []Record
	resets   map[string][]int32
	maxLost  int
	ops      [NumOps]Counts
	reissued int64
	lost     []Lost
	gens     []int32 // scratch: the generation of each record of a group
}

// What a record asserts about its key's row.
const (
	assertExists   = 1 << iota // the row exists
	assertAbsent               // the row is absent
	assertContent              // version, time, len, hash
	assertVisFixed             // visibility == Record.Visibility (add, update)
	assertHidden               // visibility == HIDDEN (a hide)
)

func asserts(r *Record) int {
	switch r.Op {
	case AddNode, UpdateNode:
		return assertExists | assertContent
	case AddLink, UpdateLink:
		return assertExists | assertContent | assertVisFixed
	case DeleteLink:
		if r.Expunge {
			return assertAbsent
		}
		if !r.Acked {
			// A hide that failed may have found nothing: it only
			// explains a hidden row.
			return assertHidden
		}
		return assertExists | assertHidden
	case DeleteNode, ResetNodes:
		return assertAbsent
	}
	return 0
}

func contentEq(r *Record, s State) bool {
	return s.Version == r.Version && s.Time == r.Time && s.Len == r.Len && s.Hash == r.Hash
}

// setsVis reports whether r writes the visibility v.
func setsVis(r *Record, v store.Visibility) bool {
	a := asserts(r)
	return a&assertVisFixed != 0 && r.Visibility == v || a&assertHidden != 0 && v == store.VisibilityHidden
}

// present reports whether state s shows what r wrote.
func present(r *Record, s State) bool {
	a := asserts(r)
	if a&assertAbsent != 0 {
		return !s.Found
	}
	if !s.Found {
		return false
	}
	if a&assertContent != 0 && !contentEq(r, s) {
		return false
	}
	return !(a&assertVisFixed != 0 && s.Visibility != r.Visibility || a&assertHidden != 0 && s.Visibility != store.VisibilityHidden)
}

// group judges the acknowledged writes of g against s.
func (j *judge) group(g *group, s State) {
	recs := j.recs
	// Node generations: an acknowledged ADD_NODE of an id an earlier
	// ADD_NODE returned starts a new one; without a reset of the database
	// that may lie between the two, the id was reissued.
	j.gens = j.gens[:0]
	gen := int32(0)
	lastAdd := -1
	for _, i := range g.recs {
		r := &recs[i]
		if g.node && r.Op == AddNode && r.Acked {
			if lastAdd >= 0 {
				gen++
				if !j.resetBetween(g.db, &recs[lastAdd], r) {
					j.reissued++
				}
			}
			lastAdd = int(i)
		}
		j.gens = append(j.gens, gen)
	}
	// The store's row is the last generation's; the node of an earlier
	// generation is gone (its id names a newer node).
	for k := int32(0); k <= gen; k++ {
		sk := s
		if k < gen {
			sk = State{}
		}
		j.generation(g, k, sk)
	}
}

// generation judges the acknowledged writes of generation k of g (all of
// a link's writes are generation 0) against the row s.
func (j *judge) generation(g *group, k int32, s State) {
	recs := j.recs
	// The latest end of the writes that set each part of s to s's value:
	// the row's absence, its content, its visibility.
	absEnd, contEnd, visEnd := int64(-1<<63), int64(-1<<63), int64(-1<<63)
	for x, i := range g.recs {
		if j.gens[x] != k {
			continue
		}
		r := &recs[i]
		a := asserts(r)
		switch {
		case !s.Found && a&assertAbsent != 0:
			absEnd = max(absEnd, r.End)
		case s.Found && a&assertContent != 0 && contentEq(r, s):
			contEnd = max(contEnd, r.End)
		}
		if s.Found && setsVis(r, s.Visibility) {
			visEnd = max(visEnd, r.End)
		}
	}
	if g.node && !s.Found {
		// A reset of the database explains an absent node.
		for _, i := range j.resets[g.db] {
			absEnd = max(absEnd, recs[i].End)
		}
	}
	for x, i := range g.recs {
		r := &recs[i]
		if !r.Acked || j.gens[x] != k {
			continue
		}
		c := &j.ops[r.Op]
		if present(r, s) {
			c.Present++
			continue
		}
		a := asserts(r)
		ok := true
		switch {
		case !s.Found:
			// r wrote a row that is gone.
			ok = absEnd > r.Start
		case a&assertAbsent != 0:
			// r deleted a row that is there: it was written again after.
			ok = contEnd > r.Start && (g.node || visEnd > r.Start)
		default:
			if a&assertContent != 0 && !contentEq(r, s) {
				ok = contEnd > r.Start
			}
			if ok && !g.node && !(a&assertVisFixed != 0 && s.Visibility == r.Visibility ||
				a&assertHidden != 0 && s.Visibility == store.VisibilityHidden) {
				ok = visEnd > r.Start
			}
		}
		if ok {
			c.Superseded++
			continue
		}
		c.Lost++
		if len(j.lost) < j.maxLost {
			j.lost = append(j.lost, Lost{Record: *r, Store: s})
		}
	}
}

// resetBetween reports whether a reset of db may have taken effect
// between the writes a and b (a started first): it had not returned when a
// started and it started before b returned.
func (j *judge) resetBetween(db string, a, b *Record) bool {
	for _, i := range j.resets[db] {
		r := &j.recs[i]
		if r.End > a.Start && r.Start < b.End {
			return true
		}
	}
	return false
}

// HasLost reports whether the result counts a lost write.
func (r *Result) HasLost() bool { return r.Total().Lost > 0 }

// WriteTable writes the verdicts as a table, one row per operation and a
// total, then the lost writes listed in r.Lost and a last line saying
// whether anything was lost:
//
//	op            acknowledged  present  superseded  lost  unacknowledged
//	ADD_NODE               412      412           0     0               0
//	...
//	total                 9120     7311        1809     0              16
//	audit: no acknowledged write lost (9120 acknowledged writes, 5821 keys read in 0.4 s)
func WriteTable(w io.Writer, r *Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tacknowledged\tpresent\tsuperseded\tlost\tunacknowledged\t")
	row := func(name string, c Counts) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t\n", name, c.Acknowledged, c.Present, c.Superseded, c.Lost, c.Unacknowledged)
	}
	for op := range NumOps {
		row(Op(op).String(), r.Ops[op])
	}
	t := r.Total()
	row("total", t)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, l := range r.Lost {
		if _, err := fmt.Fprintf(w, "LOST %s; the store shows: %s\n", describe(&l.Record), l.Store.describe(l.Record.Op.isNode())); err != nil {
			return err
		}
	}
	if r.Reissued > 0 {
		fmt.Fprintf(w, "audit: %d node ids returned by two acknowledged ADD_NODEs (the store's id sequence went back)\n", r.Reissued)
	}
	var err error
	if t.Lost > 0 {
		_, err = fmt.Fprintf(w, "audit: %d of %d acknowledged writes LOST (%d keys read in %.1f s)\n", t.Lost, t.Acknowledged, r.Keys, r.Elapsed.Seconds())
	} else {
		_, err = fmt.Fprintf(w, "audit: no acknowledged write lost (%d acknowledged writes, %d keys read in %.1f s)\n", t.Acknowledged, r.Keys, r.Elapsed.Seconds())
	}
	return err
}

// describe formats a record for a LOST line.
func describe(r *Record) string {
	db := ""
	if r.DB != "" {
		db = " db=" + r.DB
	}
	at := time.Unix(0, r.End).UTC().Format("15:04:05.000000")
	w := r.Worker
	if w == "" {
		w = "-"
	}
	switch {
	case r.Op.isNode():
		s := fmt.Sprintf("%s%s id=%d type=%d", r.Op, db, r.ID, r.NodeType)
		if r.Op != DeleteNode {
			s += fmt.Sprintf(" version=%d time=%d len=%d hash=%016x", r.Version, r.Time, r.Len, r.Hash)
		}
		return s + fmt.Sprintf(" by %s, acknowledged at %s", w, at)
	case r.Op == DeleteLink:
		what := "hide"
		if r.Expunge {
			what = "expunge"
		}
		return fmt.Sprintf("%s%s id1=%d link_type=%d id2=%d (%s) by %s, acknowledged at %s", r.Op, db, r.ID, r.LinkType, r.ID2, what, w, at)
	}
	return fmt.Sprintf("%s%s id1=%d link_type=%d id2=%d visibility=%d version=%d time=%d len=%d hash=%016x by %s, acknowledged at %s",
		r.Op, db, r.ID, r.LinkType, r.ID2, r.Visibility, r.Version, r.Time, r.Len, r.Hash, w, at)
}
