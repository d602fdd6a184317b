// Package discard is a LinkBench store that stores nothing and answers at
// once: running the benchmark against it measures the load generator and
// request generator alone (their throughput ceiling and their own
// allocations).
//
// Every read misses (GetNode and GetLink report found == false, lists are
// empty, counts are 0), every AddLink and UpdateLink reports
// store.LinkInsert, DeleteLink, UpdateNode and DeleteNode report found ==
// false, and AddNode returns sequential ids so that the loader's
// expectations about node ids hold. No call allocates.
package discard

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/linkbench-go/linkbench/internal/cacheline"
	"github.com/linkbench-go/linkbench/store"
)

// Store discards everything. It implements store.Store,
// store.BulkLinkLoader, store.BulkNodeLoader and store.Databases (every
// database is the Store itself, sharing one node id sequence). It is safe
// for concurrent use; the zero value is not usable: call New.
type Store struct {
	// closed, read by every call, and next, written by every AddNode,
	// live on cache lines of their own (and apart from whatever the
	// allocator places beside the Store): together, each AddNode would
	// invalidate every other worker's copy of closed, and its next call
	// would wait for the line.
	_      cacheline.Pad
	closed atomic.Bool
	_      cacheline.Pad
	next   atomic.Int64
	_      cacheline.Pad
}

// New returns a Store whose node sequence starts at 1.
func New() *Store {
	s := &Store{}
	s.next.Store(1)
	return s
}

// Close makes later calls fail with an error wrapping store.ErrClosed. It
// always returns nil.
func (s *Store) Close() error {
	s.closed.Store(true)
	return nil
}

// check returns ctx's error or store.ErrClosed, wrapped, or nil. It
// allocates only when it returns an error.
func (s *Store) check(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("discard: %s: %w", op, err)
	}
	if s.closed.Load() {
		return fmt.Errorf("discard: %s: %w", op, store.ErrClosed)
	}
	return nil
}

// AddLink returns store.LinkInsert. Errors: ctx's error or store.ErrClosed,
// wrapped.
func (s *Store) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	if err := s.check(ctx, "AddLink"); err != nil {
		return 0, err
	}
	return store.LinkInsert, nil
}

// UpdateLink returns store.LinkInsert (the link was absent, as always).
// Errors: ctx's error or store.ErrClosed, wrapped.
func (s *Store) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	if err := s.check(ctx, "UpdateLink"); err != nil {
		return 0, err
	}
	return store.LinkInsert, nil
}

// DeleteLink reports found == false. Errors: ctx's error or
// store.ErrClosed, wrapped.
func (s *Store) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (bool, error) {
	return false, s.check(ctx, "DeleteLink")
}

// GetLink reports found == false. Errors: ctx's error or store.ErrClosed,
// wrapped.
func (s *Store) GetLink(ctx context.Context, id1, linkType, id2 int64) (store.Link, bool, error) {
	return store.Link{}, false, s.check(ctx, "GetLink")
}

// MultigetLinks returns dst unchanged. Errors: ctx's error or
// store.ErrClosed, wrapped.
func (s *Store) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	return dst, s.check(ctx, "MultigetLinks")
}

// GetLinkList returns dst unchanged. Errors: ctx's error or
// store.ErrClosed, wrapped.
func (s *Store) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	return dst, s.check(ctx, "GetLinkList")
}

// CountLinks returns 0. Errors: ctx's error or store.ErrClosed, wrapped.
func (s *Store) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	return 0, s.check(ctx, "CountLinks")
}

// AddBulkLinks does nothing. Errors: ctx's error or store.ErrClosed,
// wrapped.
func (s *Store) AddBulkLinks(ctx context.Context, links []store.Link, noInverse bool) error {
	return s.check(ctx, "AddBulkLinks")
}

// AddBulkCounts does nothing. Errors: ctx's error or store.ErrClosed,
// wrapped.
func (s *Store) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	return s.check(ctx, "AddBulkCounts")
}

// ResetNodeStore makes startID the next id AddNode returns. Errors: ctx's
// error or store.ErrClosed, wrapped.
func (s *Store) ResetNodeStore(ctx context.Context, startID int64) error {
	if err := s.check(ctx, "ResetNodeStore"); err != nil {
		return err
	}
	s.next.Store(startID)
	return nil
}

// AddNode returns the next id of the sequence (startID, startID+1, ...
// after ResetNodeStore(startID)). Errors: ctx's error or store.ErrClosed,
// wrapped.
func (s *Store) AddNode(ctx context.Context, n store.Node) (int64, error) {
	if err := s.check(ctx, "AddNode"); err != nil {
		return 0, err
	}
	return s.next.Add(1) - 1, nil
}

// AddBulkNodes advances the sequence past the largest id of nodes, as a
// storing store would. Errors: ctx's error or store.ErrClosed, wrapped.
func (s *Store) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	if err := s.check(ctx, "AddBulkNodes"); err != nil {
		return err
	}
	if len(nodes) == 0 {
		return nil
	}
	top := nodes[0].ID
	for i := range nodes {
		top = max(top, nodes[i].ID)
	}
	for {
		next := s.next.Load()
		if next > top || s.next.CompareAndSwap(next, top+1) {
			return nil
		}
	}
}

// GetNode reports found == false. Errors: ctx's error or store.ErrClosed,
// wrapped.
func (s *Store) GetNode(ctx context.Context, nodeType int32, id int64) (store.Node, bool, error) {
	return store.Node{}, false, s.check(ctx, "GetNode")
}

// UpdateNode reports found == false. Errors: ctx's error or
// store.ErrClosed, wrapped.
func (s *Store) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	return false, s.check(ctx, "UpdateNode")
}

// DeleteNode reports found == false. Errors: ctx's error or
// store.ErrClosed, wrapped.
func (s *Store) DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error) {
	return false, s.check(ctx, "DeleteNode")
}

// Database returns s itself, whatever the name. Errors: ctx's error or
// store.ErrClosed, wrapped.
func (s *Store) Database(ctx context.Context, name string) (store.Store, error) {
	if err := s.check(ctx, "Database"); err != nil {
		return nil, err
	}
	return s, nil
}
