package pebblestore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cockroachdb/pebble/v2"

	"github.com/linkbench-go/linkbench/store"
)

// ResetNodeStore deletes every node (one range deletion) and makes
// startID the next id AddNode allocates. Errors: ctx's, Pebble's, or
// store.ErrClosed, wrapped.
func (s *Store) ResetNodeStore(ctx context.Context, startID int64) error {
	g, err := s.enter(ctx, "ResetNodeStore")
	if err != nil {
		return err
	}
	defer leave(g)
	all := allStripes(s.nodes[:])
	all.Lock()
	if err := ctx.Err(); err != nil {
		all.Unlock()
		return fmt.Errorf("pebblestore: ResetNodeStore: %w", err)
	}
	b := s.db.NewBatch()
	_ = b.DeleteRange([]byte{prefixNode}, prefixEnd(prefixNode), nil)
	_ = b.Set(metaNextNodeID, sequenceValueOf(startID), nil)
	s.nextNode.Store(startID)
	if err := s.commit(b, all); err != nil {
		return fmt.Errorf("pebblestore: ResetNodeStore: %w", err)
	}
	return nil
}

// AddNode stores n under the next id of the sequence and returns it. The
// id is allocated in memory (an atomic counter) and the sequence is
// persisted in the node's batch with a max merge, so that concurrent
// AddNode calls take no lock and the sequence survives a restart. Errors
// as ResetNodeStore's; an id whose write failed is not reused.
func (s *Store) AddNode(ctx context.Context, n store.Node) (int64, error) {
	w := getScratch()
	defer putScratch(w)
	return s.addNode(ctx, w, &n)
}

// GetNode returns the node with that id, found == false if it is absent
// or its type differs from nodeType. Errors as ResetNodeStore's.
func (s *Store) GetNode(ctx context.Context, nodeType int32, id int64) (store.Node, bool, error) {
	w := getScratch()
	defer putScratch(w)
	return s.getNode(ctx, w, nodeType, id)
}

// UpdateNode overwrites Version, Time and Data of the node with n.ID and
// n.Type; found == false if it is absent or its type differs. Errors as
// ResetNodeStore's.
func (s *Store) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	w := getScratch()
	defer putScratch(w)
	return s.updateNode(ctx, w, &n, false)
}

// DeleteNode deletes the node with that id and type; found == false if it
// was absent or its type differs. Errors as ResetNodeStore's.
func (s *Store) DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error) {
	w := getScratch()
	defer putScratch(w)
	return s.updateNode(ctx, w, &store.Node{ID: id, Type: nodeType}, true)
}

func (s *Store) addNode(ctx context.Context, w *scratch, n *store.Node) (int64, error) {
	g, err := s.enter(ctx, "AddNode")
	if err != nil {
		return 0, err
	}
	defer leave(g)
	id := s.nextNode.Add(1) - 1
	b := s.db.NewBatch()
	w.val = appendNodeVal(w.val[:0], n)
	_ = b.Set(nodeKey(&w.nk, id), w.val, nil)
	_ = b.Merge(metaNextNodeID, sequenceValueOf(id+1), nil)
	if err := s.commit(b, nil); err != nil {
		return 0, fmt.Errorf("pebblestore: AddNode: %w", err)
	}
	return id, nil
}

func (s *Store) getNode(ctx context.Context, w *scratch, nodeType int32, id int64) (store.Node, bool, error) {
	g, err := s.enter(ctx, "GetNode")
	if err != nil {
		return store.Node{}, false, err
	}
	defer leave(g)
	v, closer, err := s.db.Get(nodeKey(&w.nk, id))
	if errors.Is(err, pebble.ErrNotFound) {
		return store.Node{}, false, nil
	}
	if err != nil {
		return store.Node{}, false, fmt.Errorf("pebblestore: GetNode: %w", err)
	}
	defer closer.Close()
	n := store.Node{ID: id}
	if err := decodeNode(v, &n); err != nil {
		return store.Node{}, false, fmt.Errorf("pebblestore: GetNode: %w", err)
	}
	if n.Type != nodeType {
		return store.Node{}, false, nil
	}
	n.Data = cloneData(n.Data)
	return n, true, nil
}

// updateNode overwrites (or, with del, deletes) the node n.ID if its type
// is n.Type, under the node's stripe.
func (s *Store) updateNode(ctx context.Context, w *scratch, n *store.Node, del bool) (bool, error) {
	op := "UpdateNode"
	if del {
		op = "DeleteNode"
	}
	g, err := s.enter(ctx, op)
	if err != nil {
		return false, err
	}
	defer leave(g)
	mu := &s.nodeStripe(n.ID).mu
	mu.Lock()
	found, err := s.updateNodeLocked(ctx, w, n, del, mu)
	if err != nil {
		return false, fmt.Errorf("pebblestore: %s: %w", op, err)
	}
	return found, nil
}

func (s *Store) updateNodeLocked(ctx context.Context, w *scratch, n *store.Node, del bool, mu *sync.Mutex) (bool, error) {
	if err := ctx.Err(); err != nil {
		mu.Unlock()
		return false, err
	}
	nk := nodeKey(&w.nk, n.ID)
	v, found, err := s.get(nk, w.old)
	w.old = v
	if err != nil || !found {
		mu.Unlock()
		return false, err
	}
	var old store.Node
	if err := decodeNode(v, &old); err != nil {
		mu.Unlock()
		return false, err
	}
	if old.Type != n.Type {
		mu.Unlock()
		return false, nil
	}
	b := s.db.NewBatch()
	if del {
		_ = b.Delete(nk, nil)
	} else {
		w.val = appendNodeVal(w.val[:0], n)
		_ = b.Set(nk, w.val, nil)
	}
	if err := s.commit(b, mu); err != nil {
		return false, err
	}
	return true, nil
}

// stripeSet is a set of stripes locked together, in index order (so that
// two callers locking overlapping sets cannot deadlock), and unlocked
// together: a sync.Locker for commit.
type stripeSet []*stripe

func allStripes(st []stripe) stripeSet {
	set := make(stripeSet, len(st))
	for i := range st {
		set[i] = &st[i]
	}
	return set
}

// Lock locks the stripes in order.
func (set stripeSet) Lock() {
	for _, st := range set {
		st.mu.Lock()
	}
}

// Unlock unlocks them.
func (set stripeSet) Unlock() {
	for _, st := range set {
		st.mu.Unlock()
	}
}
