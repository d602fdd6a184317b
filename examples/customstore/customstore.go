// Package customstore is an example of a LinkBench store of your own: a
// complete store.Store on another backend, here sorted slices in the
// process (each adjacency list kept in the order the list query returns,
// newest first), that passes the conformance suite store/storetest and
// registers under the name "sorted" so that store.Open and a build of the
// command-line tool that imports this package can drive it.
//
// What a store must do is written in package store's documentation; the
// points that are easy to miss are marked "contract:" below. This one
// takes one lock for the whole store: simple, correct under concurrency,
// and slow with many workers. A store for a database server would instead
// hold a connection pool (and implement store.Sessions to give each worker
// its own connections).
package customstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/linkbench-go/linkbench/store"
)

// Name is the name Store registers under with store.Register.
const Name = "sorted"

func init() {
	store.Register(Name, func(_ context.Context, dsn string, _ store.OpenOptions) (store.Store, error) {
		if dsn != "" {
			return nil, fmt.Errorf("sorted store: takes no DSN")
		}
		return New(), nil
	})
}

// Store keeps links in sorted slices and nodes in a map. It implements
// store.Store and the optional capabilities store.BulkLinkLoader,
// store.BulkNodeLoader and store.Checker. It is safe for concurrent use.
type Store struct {
	mu     sync.RWMutex
	lists  map[listKey]*list
	nodes  map[int64]store.Node
	nextID int64
	closed bool
}

type listKey struct{ id1, linkType int64 }

// list is one adjacency list: every link (hidden ones included) by id2, and
// the visible ones sorted by time descending, then id2 ascending.
type list struct {
	byID2   map[int64]*store.Link
	visible []*store.Link
}

// New returns an empty store whose node ids start at 1.
func New() *Store {
	return &Store{lists: map[listKey]*list{}, nodes: map[int64]store.Node{}, nextID: 1}
}

// Close makes later calls fail with an error wrapping store.ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// check is the start of every call. Contract: a call honours its context's
// cancellation, and fails after Close.
func (s *Store) check(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sorted store: %s: %w", op, err)
	}
	if s.closed {
		return fmt.Errorf("sorted store: %s: %w", op, store.ErrClosed)
	}
	return nil
}

// order is the list query's order: time descending, then id2 ascending.
func order(a, b *store.Link) int {
	if c := cmp.Compare(b.Time, a.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.ID2, b.ID2)
}

func (l *list) hide(old *store.Link) {
	if i, ok := slices.BinarySearchFunc(l.visible, old, order); ok {
		l.visible = slices.Delete(l.visible, i, i+1)
	}
}

func (l *list) show(nl *store.Link) {
	i, _ := slices.BinarySearchFunc(l.visible, nl, order)
	l.visible = slices.Insert(l.visible, i, nl)
}

// put upserts a copy of lk (contract: keep no slice the caller passed) and
// reports whether the link existed and whether it changed.
func (s *Store) put(lk store.Link) (existed, changed bool) {
	k := listKey{lk.ID1, lk.LinkType}
	l := s.lists[k]
	if l == nil {
		l = &list{byID2: map[int64]*store.Link{}}
		s.lists[k] = l
	}
	nl := lk.Clone()
	old := l.byID2[lk.ID2]
	if old != nil {
		if old.Equal(nl) {
			return true, false
		}
		if old.Visibility == store.VisibilityDefault {
			l.hide(old)
		}
	}
	l.byID2[lk.ID2] = &nl
	if nl.Visibility == store.VisibilityDefault {
		l.show(&nl)
	}
	return old != nil, true
}

func (s *Store) write(ctx context.Context, op string, lk store.Link) (store.WriteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, op); err != nil {
		return 0, err
	}
	switch existed, changed := s.put(lk); {
	case !existed:
		return store.LinkInsert, nil
	case changed:
		return store.LinkUpdate, nil
	}
	return store.LinkNoChange, nil
}

// AddLink inserts the link or overwrites every field of the existing one.
func (s *Store) AddLink(ctx context.Context, lk store.Link, _ bool) (store.WriteResult, error) {
	return s.write(ctx, "AddLink", lk)
}

// UpdateLink is an upsert, as AddLink.
func (s *Store) UpdateLink(ctx context.Context, lk store.Link, _ bool) (store.WriteResult, error) {
	return s.write(ctx, "UpdateLink", lk)
}

// DeleteLink hides the link, or removes it when expunge is true.
func (s *Store) DeleteLink(ctx context.Context, id1, linkType, id2 int64, _, expunge bool) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "DeleteLink"); err != nil {
		return false, err
	}
	l := s.lists[listKey{id1, linkType}]
	if l == nil || l.byID2[id2] == nil {
		return false, nil // contract: a miss is found == false, not an error
	}
	old := l.byID2[id2]
	if old.Visibility == store.VisibilityDefault {
		l.hide(old)
	}
	if expunge {
		delete(l.byID2, id2)
	} else {
		hidden := *old
		hidden.Visibility = store.VisibilityHidden
		l.byID2[id2] = &hidden
	}
	return true, nil
}

// GetLink returns a copy of the link, hidden or visible.
func (s *Store) GetLink(ctx context.Context, id1, linkType, id2 int64) (store.Link, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(ctx, "GetLink"); err != nil {
		return store.Link{}, false, err
	}
	if l := s.lists[listKey{id1, linkType}]; l != nil && l.byID2[id2] != nil {
		return l.byID2[id2].Clone(), true, nil // contract: never alias stored data
	}
	return store.Link{}, false, nil
}

// MultigetLinks appends the existing links among id2s, each once.
func (s *Store) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(ctx, "MultigetLinks"); err != nil {
		return dst, err
	}
	l := s.lists[listKey{id1, linkType}]
	if l == nil {
		return dst, nil
	}
	for i, id2 := range id2s {
		if lk := l.byID2[id2]; lk != nil && !slices.Contains(id2s[:i], id2) { // contract: each link once
			dst = append(dst, lk.Clone())
		}
	}
	return dst, nil
}

// GetLinkList appends the visible links of r, newest first.
func (s *Store) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(ctx, "GetLinkList"); err != nil {
		return dst, err
	}
	if r.Offset < 0 || r.Limit < 0 {
		return dst, fmt.Errorf("sorted store: GetLinkList: negative offset %d or limit %d", r.Offset, r.Limit)
	}
	l := s.lists[listKey{r.ID1, r.LinkType}]
	if l == nil || r.Limit == 0 {
		return dst, nil // contract: limit 0 returns no links
	}
	// The first link with Time <= MaxTime: the visible slice is sorted by
	// time descending.
	i, _ := slices.BinarySearchFunc(l.visible, r.MaxTime, func(lk *store.Link, t int64) int { return cmp.Compare(t, lk.Time) })
	skip, n := r.Offset, 0
	for ; i < len(l.visible) && l.visible[i].Time >= r.MinTime && n < r.Limit; i++ {
		if skip > 0 {
			skip--
			continue
		}
		dst = append(dst, l.visible[i].Clone())
		n++
	}
	return dst, nil
}

// CountLinks returns the number of visible links of (id1, linkType).
func (s *Store) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(ctx, "CountLinks"); err != nil {
		return 0, err
	}
	if l := s.lists[listKey{id1, linkType}]; l != nil {
		return int64(len(l.visible)), nil
	}
	return 0, nil
}

// ResetNodeStore deletes every node; AddNode then starts at startID.
func (s *Store) ResetNodeStore(ctx context.Context, startID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "ResetNodeStore"); err != nil {
		return err
	}
	s.nodes, s.nextID = map[int64]store.Node{}, startID
	return nil
}

// AddNode stores a copy of n under the next id and returns the id.
func (s *Store) AddNode(ctx context.Context, n store.Node) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "AddNode"); err != nil {
		return 0, err
	}
	n = n.Clone()
	n.ID = s.nextID
	s.nextID++
	s.nodes[n.ID] = n
	return n.ID, nil
}

// GetNode returns the node, if it exists with that type.
func (s *Store) GetNode(ctx context.Context, nodeType int32, id int64) (store.Node, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(ctx, "GetNode"); err != nil {
		return store.Node{}, false, err
	}
	n, ok := s.nodes[id]
	if !ok || n.Type != nodeType {
		return store.Node{}, false, nil
	}
	return n.Clone(), true, nil
}

// UpdateNode overwrites the version, time and data of the node n.ID of
// type n.Type.
func (s *Store) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "UpdateNode"); err != nil {
		return false, err
	}
	old, ok := s.nodes[n.ID]
	if !ok || old.Type != n.Type {
		return false, nil
	}
	s.nodes[n.ID] = n.Clone()
	return true, nil
}

// DeleteNode deletes the node with that id and type.
func (s *Store) DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "DeleteNode"); err != nil {
		return false, err
	}
	if n, ok := s.nodes[id]; !ok || n.Type != nodeType {
		return false, nil
	}
	delete(s.nodes, id)
	return true, nil
}

// AddBulkLinks inserts a batch of links under one lock (the load phase's
// path: without it the loader falls back to one AddLink per link).
func (s *Store) AddBulkLinks(ctx context.Context, links []store.Link, _ bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "AddBulkLinks"); err != nil {
		return err
	}
	for _, lk := range links {
		s.put(lk)
	}
	return nil
}

// AddBulkCounts ignores the counts: this store derives them from the links.
func (s *Store) AddBulkCounts(ctx context.Context, _ []store.LinkCount) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.check(ctx, "AddBulkCounts")
}

// AddBulkNodes stores the nodes under their own ids and moves the id
// sequence past the largest.
func (s *Store) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "AddBulkNodes"); err != nil {
		return err
	}
	for _, n := range nodes {
		s.nodes[n.ID] = n.Clone()
		s.nextID = max(s.nextID, n.ID+1)
	}
	return nil
}

// NodeStats returns the number of nodes and their id range (the load's
// check of the node table uses it).
func (s *Store) NodeStats(ctx context.Context) (store.NodeStats, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(ctx, "NodeStats"); err != nil {
		return store.NodeStats{}, err
	}
	var st store.NodeStats
	for id := range s.nodes {
		if st.Count == 0 || id < st.MinID {
			st.MinID = id
		}
		st.MaxID = max(st.MaxID, id)
		st.Count++
	}
	return st, nil
}

// CheckCounts finds no mismatch: counts are the visible lists' lengths.
func (s *Store) CheckCounts(ctx context.Context, _ int) ([]store.CountMismatch, int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.check(ctx, "CheckCounts"); err != nil {
		return nil, 0, err
	}
	return nil, int64(len(s.lists)), nil
}
