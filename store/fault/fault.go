// Package fault wraps a store to inject faults into its calls: added
// latency, errors, calls that hang until their context is done, and writes
// that are applied but whose acknowledgement is lost. It is built on
// store.Forward, so the wrapped store keeps every optional capability of
// the store it wraps (bulk loads, databases, checks, sessions), and the
// databases and sessions it hands out are wrapped too.
//
// A Policy decides, per call, what happens; Every, Rate, Only and First
// build the usual ones. The faults act above the store: an injected error
// is what the benchmark sees, not something the store retries. To inject
// errors below a store's own retries (a deadlock the MySQL store retries,
// say), use the store's own seam (the SQL stores have one for their tests).
//
//	st := fault.Wrap(mem, fault.Only([]string{"GetNode"}, fault.Every(100, fault.Fault{Hang: true})))
package fault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/linkbench-go/linkbench/store"
)

// ErrInjected is the error of an injected failure (Fault.Fail), unless the
// fault names another.
var ErrInjected = errors.New("fault: injected failure")

// ErrAckLost is returned, wrapped, by a call whose Fault.AckLost applied
// the call to the store and then dropped its result, as a lost
// acknowledgement would.
var ErrAckLost = errors.New("fault: the call was applied but its acknowledgement was lost")

// Fault is what happens to one call. The zero value lets the call through.
type Fault struct {
	// Delay is waited before the call (cut short when the call's context
	// is done, which then fails the call with the context's error).
	Delay time.Duration
	// Hang blocks the call until its context is done and returns the
	// context's error, without calling the store: a stalled server.
	Hang bool
	// Fail fails the call without calling the store, with Err, or
	// ErrInjected when Err is nil.
	Fail bool
	// Err is the error of Fail; for a store-level error the benchmark
	// counts as transient, wrap it in a *store.TransientError.
	Err error
	// AckLost calls the store, then drops the result and returns an error
	// wrapping ErrAckLost: the call took effect, the caller does not know.
	AckLost bool
}

// Policy returns the fault for a call of the store method op (its name,
// e.g. "AddLink", "GetNode", "AddBulkLinks"). It must be safe for
// concurrent use.
type Policy func(op string) Fault

// Every returns a policy that gives every n-th call (counted over all
// calls the policy sees, from 1) fault f, and lets the others through.
// n < 1 counts as 1.
func Every(n int64, f Fault) Policy {
	n = max(n, 1)
	var calls atomic.Int64
	return func(string) Fault {
		if calls.Add(1)%n == 0 {
			return f
		}
		return Fault{}
	}
}

// Rate returns a policy that gives each call fault f with probability p
// (0..1), decided by a hash of seed and the call's sequence number: the
// same seed gives the same faults to the same sequence of calls.
func Rate(seed uint64, p float64, f Fault) Policy {
	var calls atomic.Uint64
	limit := uint64(p * (1 << 53))
	if p >= 1 {
		limit = 1 << 53
	}
	return func(string) Fault {
		if mix(seed+calls.Add(1))>>11 < limit {
			return f
		}
		return Fault{}
	}
}

// First returns a policy that gives the first n calls fault f.
func First(n int64, f Fault) Policy {
	var calls atomic.Int64
	return func(string) Fault {
		if calls.Add(1) <= n {
			return f
		}
		return Fault{}
	}
}

// Only returns a policy that applies p to calls of the methods ops and
// lets every other call through (p does not see them).
func Only(ops []string, p Policy) Policy {
	ops = slices.Clone(ops)
	return func(op string) Fault {
		if slices.Contains(ops, op) {
			return p(op)
		}
		return Fault{}
	}
}

// mix is SplitMix64's finaliser.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Counts are the faults a wrapped store injected, by kind.
type Counts struct {
	Delayed, Hung, Failed, AckLost int64
}

// Store is a store with injected faults: see Wrap.
type Store struct {
	store.Forward
	policy Policy
	c      *counters
}

type counters struct{ delayed, hung, failed, ackLost atomic.Int64 }

// Wrap returns inner with the faults of p injected into its calls, those
// of its databases and sessions included.
func Wrap(inner store.Store, p Policy) *Store {
	return wrap(inner, p, &counters{})
}

func wrap(inner store.Store, p Policy, c *counters) *Store {
	s := &Store{policy: p, c: c}
	s.Forward = store.Forward{Inner: inner, Wrap: func(st store.Store) store.Store { return wrap(st, p, c) }}
	return s
}

// Counts returns the faults injected so far (this store's and those of its
// databases and sessions).
func (s *Store) Counts() Counts {
	return Counts{Delayed: s.c.delayed.Load(), Hung: s.c.hung.Load(), Failed: s.c.failed.Load(), AckLost: s.c.ackLost.Load()}
}

// before applies the fault of a call of op: a non-nil error is the call's
// result; ackLost says to drop the store's result.
func (s *Store) before(ctx context.Context, op string) (ackLost bool, err error) {
	f := s.policy(op)
	if f.Delay > 0 {
		s.c.delayed.Add(1)
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false, fmt.Errorf("fault: %s delayed: %w", op, ctx.Err())
		}
	}
	switch {
	case f.Hang:
		s.c.hung.Add(1)
		<-ctx.Done()
		return false, fmt.Errorf("fault: %s hung: %w", op, ctx.Err())
	case f.Fail:
		s.c.failed.Add(1)
		if f.Err != nil {
			return false, fmt.Errorf("fault: %s: %w", op, f.Err)
		}
		return false, fmt.Errorf("%s: %w", op, ErrInjected)
	}
	if f.AckLost {
		s.c.ackLost.Add(1)
	}
	return f.AckLost, nil
}

// after turns a lost acknowledgement into the call's error.
func after(op string, ackLost bool, err error) error {
	if ackLost && err == nil {
		return fmt.Errorf("%s: %w", op, ErrAckLost)
	}
	return err
}

// AddLink injects the fault of "AddLink".
func (s *Store) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	lost, err := s.before(ctx, "AddLink")
	if err != nil {
		return 0, err
	}
	r, err := s.Forward.AddLink(ctx, l, noInverse)
	if err = after("AddLink", lost, err); err != nil {
		return 0, err
	}
	return r, nil
}

// UpdateLink injects the fault of "UpdateLink".
func (s *Store) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	lost, err := s.before(ctx, "UpdateLink")
	if err != nil {
		return 0, err
	}
	r, err := s.Forward.UpdateLink(ctx, l, noInverse)
	if err = after("UpdateLink", lost, err); err != nil {
		return 0, err
	}
	return r, nil
}

// DeleteLink injects the fault of "DeleteLink".
func (s *Store) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (bool, error) {
	lost, err := s.before(ctx, "DeleteLink")
	if err != nil {
		return false, err
	}
	found, err := s.Forward.DeleteLink(ctx, id1, linkType, id2, noInverse, expunge)
	if err = after("DeleteLink", lost, err); err != nil {
		return false, err
	}
	return found, nil
}

// GetLink injects the fault of "GetLink".
func (s *Store) GetLink(ctx context.Context, id1, linkType, id2 int64) (store.Link, bool, error) {
	lost, err := s.before(ctx, "GetLink")
	if err != nil {
		return store.Link{}, false, err
	}
	l, found, err := s.Forward.GetLink(ctx, id1, linkType, id2)
	if err = after("GetLink", lost, err); err != nil {
		return store.Link{}, false, err
	}
	return l, found, nil
}

// MultigetLinks injects the fault of "MultigetLinks".
func (s *Store) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	lost, err := s.before(ctx, "MultigetLinks")
	if err != nil {
		return dst, err
	}
	out, err := s.Forward.MultigetLinks(ctx, id1, linkType, id2s, dst)
	if err = after("MultigetLinks", lost, err); err != nil {
		return dst, err
	}
	return out, nil
}

// GetLinkList injects the fault of "GetLinkList".
func (s *Store) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	lost, err := s.before(ctx, "GetLinkList")
	if err != nil {
		return dst, err
	}
	out, err := s.Forward.GetLinkList(ctx, r, dst)
	if err = after("GetLinkList", lost, err); err != nil {
		return dst, err
	}
	return out, nil
}

// CountLinks injects the fault of "CountLinks".
func (s *Store) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	lost, err := s.before(ctx, "CountLinks")
	if err != nil {
		return 0, err
	}
	n, err := s.Forward.CountLinks(ctx, id1, linkType)
	if err = after("CountLinks", lost, err); err != nil {
		return 0, err
	}
	return n, nil
}

// ResetNodeStore injects the fault of "ResetNodeStore".
func (s *Store) ResetNodeStore(ctx context.Context, startID int64) error {
	lost, err := s.before(ctx, "ResetNodeStore")
	if err != nil {
		return err
	}
	return after("ResetNodeStore", lost, s.Forward.ResetNodeStore(ctx, startID))
}

// AddNode injects the fault of "AddNode".
func (s *Store) AddNode(ctx context.Context, n store.Node) (int64, error) {
	lost, err := s.before(ctx, "AddNode")
	if err != nil {
		return 0, err
	}
	id, err := s.Forward.AddNode(ctx, n)
	if err = after("AddNode", lost, err); err != nil {
		return 0, err
	}
	return id, nil
}

// GetNode injects the fault of "GetNode".
func (s *Store) GetNode(ctx context.Context, nodeType int32, id int64) (store.Node, bool, error) {
	lost, err := s.before(ctx, "GetNode")
	if err != nil {
		return store.Node{}, false, err
	}
	n, found, err := s.Forward.GetNode(ctx, nodeType, id)
	if err = after("GetNode", lost, err); err != nil {
		return store.Node{}, false, err
	}
	return n, found, nil
}

// UpdateNode injects the fault of "UpdateNode".
func (s *Store) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	lost, err := s.before(ctx, "UpdateNode")
	if err != nil {
		return false, err
	}
	found, err := s.Forward.UpdateNode(ctx, n)
	if err = after("UpdateNode", lost, err); err != nil {
		return false, err
	}
	return found, nil
}

// DeleteNode injects the fault of "DeleteNode".
func (s *Store) DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error) {
	lost, err := s.before(ctx, "DeleteNode")
	if err != nil {
		return false, err
	}
	found, err := s.Forward.DeleteNode(ctx, nodeType, id)
	if err = after("DeleteNode", lost, err); err != nil {
		return false, err
	}
	return found, nil
}

// AddBulkLinks injects the fault of "AddBulkLinks".
func (s *Store) AddBulkLinks(ctx context.Context, links []store.Link, noInverse bool) error {
	lost, err := s.before(ctx, "AddBulkLinks")
	if err != nil {
		return err
	}
	return after("AddBulkLinks", lost, s.Forward.AddBulkLinks(ctx, links, noInverse))
}

// AddBulkCounts injects the fault of "AddBulkCounts".
func (s *Store) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	lost, err := s.before(ctx, "AddBulkCounts")
	if err != nil {
		return err
	}
	return after("AddBulkCounts", lost, s.Forward.AddBulkCounts(ctx, counts))
}

// AddBulkNodes injects the fault of "AddBulkNodes".
func (s *Store) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	lost, err := s.before(ctx, "AddBulkNodes")
	if err != nil {
		return err
	}
	return after("AddBulkNodes", lost, s.Forward.AddBulkNodes(ctx, nodes))
}
