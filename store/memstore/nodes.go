package memstore

import (
	"context"
	"sync"

	"github.com/linkbench-go/linkbench/store"
)

type nodeShard struct {
	mu sync.RWMutex
	m  map[int64]nodeRec
	_  [64 - 32]byte
}

// nodeRec is a stored node; Data is an immutable copy.
type nodeRec struct {
	typ     int32
	time    int32
	version int64
	data    string
}

func (d *db) nodeShard(id int64) *nodeShard {
	h := uint64(id) * 0x9e3779b97f4a7c15
	return &d.nodes[(h^h>>29)>>d.shift&uint64(len(d.nodes)-1)]
}

// ResetNodeStore deletes every node of the database and makes startID the
// next id AddNode returns. AddNode calls running concurrently with it may
// allocate from either sequence. Errors: ctx's error or store.ErrClosed,
// wrapped.
func (s *Store) ResetNodeStore(ctx context.Context, startID int64) error {
	if err := s.check(ctx, "ResetNodeStore"); err != nil {
		return err
	}
	d := s.db
	d.nodeMu.Lock()
	defer d.nodeMu.Unlock()
	for i := range d.nodes {
		d.nodes[i].mu.Lock()
	}
	for i := range d.nodes {
		d.nodes[i].m = make(map[int64]nodeRec)
	}
	d.nextNode.Store(startID)
	for i := range d.nodes {
		d.nodes[i].mu.Unlock()
	}
	return nil
}

// AddNode stores a copy of n under the next id of the sequence and returns
// that id; n.ID is ignored (n is a copy: the caller's node is never
// modified). Errors: ctx's error or store.ErrClosed, wrapped.
func (s *Store) AddNode(ctx context.Context, n store.Node) (int64, error) {
	if err := s.check(ctx, "AddNode"); err != nil {
		return 0, err
	}
	id := s.db.nextNode.Add(1) - 1
	sh := s.db.nodeShard(id)
	rec := nodeRec{typ: n.Type, time: n.Time, version: n.Version, data: string(n.Data)}
	sh.mu.Lock()
	sh.m[id] = rec
	sh.mu.Unlock()
	return id, nil
}

// AddBulkNodes stores copies of nodes under their own IDs (replacing any
// node with the same id) and advances the sequence past the largest id.
// Errors: ctx's error or store.ErrClosed, wrapped.
func (s *Store) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	if err := s.check(ctx, "AddBulkNodes"); err != nil {
		return err
	}
	if len(nodes) == 0 {
		return nil
	}
	top := nodes[0].ID
	for i := range nodes {
		n := &nodes[i]
		top = max(top, n.ID)
		sh := s.db.nodeShard(n.ID)
		rec := nodeRec{typ: n.Type, time: n.Time, version: n.Version, data: string(n.Data)}
		sh.mu.Lock()
		sh.m[n.ID] = rec
		sh.mu.Unlock()
	}
	for {
		next := s.db.nextNode.Load()
		if next > top || s.db.nextNode.CompareAndSwap(next, top+1) {
			return nil
		}
	}
}

// GetNode returns a copy of the node with that id; found is false when it
// is absent or its type is not nodeType. A non-empty Data is freshly
// allocated. Errors: ctx's error or store.ErrClosed, wrapped.
func (s *Store) GetNode(ctx context.Context, nodeType int32, id int64) (store.Node, bool, error) {
	if err := s.check(ctx, "GetNode"); err != nil {
		return store.Node{}, false, err
	}
	sh := s.db.nodeShard(id)
	sh.mu.RLock()
	rec, ok := sh.m[id]
	sh.mu.RUnlock()
	if !ok || rec.typ != nodeType {
		return store.Node{}, false, nil
	}
	n := store.Node{ID: id, Type: rec.typ, Version: rec.version, Time: rec.time}
	if len(rec.data) > 0 {
		n.Data = []byte(rec.data)
	}
	return n, true, nil
}

// UpdateNode overwrites Version, Time and Data of the node n.ID if its
// type is n.Type, and reports whether it did. Errors: ctx's error or
// store.ErrClosed, wrapped.
func (s *Store) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	if err := s.check(ctx, "UpdateNode"); err != nil {
		return false, err
	}
	sh := s.db.nodeShard(n.ID)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	rec, ok := sh.m[n.ID]
	if !ok || rec.typ != n.Type {
		return false, nil
	}
	rec.version, rec.time = n.Version, n.Time
	if rec.data != string(n.Data) {
		rec.data = string(n.Data)
	}
	sh.m[n.ID] = rec
	return true, nil
}

// DeleteNode deletes the node with that id if its type is nodeType and
// reports whether it did. Errors: ctx's error or store.ErrClosed, wrapped.
func (s *Store) DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error) {
	if err := s.check(ctx, "DeleteNode"); err != nil {
		return false, err
	}
	sh := s.db.nodeShard(id)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	rec, ok := sh.m[id]
	if !ok || rec.typ != nodeType {
		return false, nil
	}
	delete(sh.m, id)
	return true, nil
}
