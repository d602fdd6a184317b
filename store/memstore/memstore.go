// Package memstore is LinkBench's reference store, in memory: the
// executable form of the semantics package store documents (LinkBench's
// MemoryLinkStore, reference §2.4, with the fixes of reference §11.2:
// expunging a hidden link keeps counts exact, a range query with Limit 0
// returns no links, MultigetLinks returns each link at most once).
//
// Counts are derived from the links (the number of visible links of an
// (id1, link_type)), so they are exact under any interleaving of writes.
// Data is split into lock stripes by a hash of (id1, link_type) for links
// and of the id for nodes. Each adjacency list is a small sorted slice
// while it holds at most 32 links and otherwise an order-statistic B+tree
// of its visible links plus an id2 index, so that a write or point read on
// a list of n links costs O(log n) and a range query O(log n + limit),
// whatever the Offset: LinkBench's hottest id1 holds millions of links.
package memstore

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/linkbench-go/linkbench/store"
)

// DefaultShards is the number of lock stripes of each database's link
// table and of its node table.
const DefaultShards = 256

// Option configures New.
type Option func(*config)

type config struct {
	shards int
}

// WithShards sets the number of lock stripes per table (default
// DefaultShards). n is rounded up to a power of two; n < 1 means 1, and
// n > 1<<16 means 1<<16.
func WithShards(n int) Option {
	return func(c *config) { c.shards = n }
}

// Store is an in-memory LinkBench store, safe for concurrent use. It
// implements store.Store, store.BulkLinkLoader, store.BulkNodeLoader,
// store.Databases and store.Checker. The zero value is not usable: call
// New.
//
// A Store serves one database: the one New returns serves the database
// named "" and Database returns Stores serving other names over the same
// underlying state; Close on any of them closes them all.
type Store struct {
	sh *shared
	db *db
}

// shared is the state common to every database of a store.
type shared struct {
	closed    atomic.Bool
	shardBits uint
	mu        sync.Mutex
	dbs       map[string]*db
}

// db is one named database: its link and node tables.
type db struct {
	links    []linkShard
	nodes    []nodeShard
	shift    uint // 64 - shardBits
	nextNode atomic.Int64
	nodeMu   sync.Mutex // serialises ResetNodeStore
}

// lkey identifies an adjacency list.
type lkey struct {
	id1, linkType int64
}

type linkShard struct {
	mu    sync.RWMutex
	lists map[lkey]list
	_     [64 - 32]byte // keep hot stripes on separate cache lines
}

// New returns an empty store. A database's node sequence starts at 1 until
// ResetNodeStore or AddBulkNodes moves it.
func New(opts ...Option) *Store {
	c := config{shards: DefaultShards}
	for _, o := range opts {
		o(&c)
	}
	n := min(max(c.shards, 1), 1<<16)
	b := uint(bits.Len(uint(n - 1)))
	sh := &shared{shardBits: b, dbs: make(map[string]*db)}
	d := sh.newDB()
	sh.dbs[""] = d
	return &Store{sh: sh, db: d}
}

func (sh *shared) newDB() *db {
	n := 1 << sh.shardBits
	d := &db{
		links: make([]linkShard, n),
		nodes: make([]nodeShard, n),
		shift: 64 - sh.shardBits,
	}
	for i := range d.links {
		d.links[i].lists = make(map[lkey]list)
		d.nodes[i].m = make(map[int64]nodeRec)
	}
	d.nextNode.Store(1)
	return d
}

// Database returns a Store serving the database with that name, created
// empty on first use; the name "" is the database of the Store New
// returned. The result shares this store's lifetime (Close closes both).
// Errors: ctx's error, or store.ErrClosed (wrapped) after Close.
func (s *Store) Database(ctx context.Context, name string) (store.Store, error) {
	if err := s.check(ctx, "Database"); err != nil {
		return nil, err
	}
	s.sh.mu.Lock()
	defer s.sh.mu.Unlock()
	d, ok := s.sh.dbs[name]
	if !ok {
		d = s.sh.newDB()
		s.sh.dbs[name] = d
	}
	return &Store{sh: s.sh, db: d}, nil
}

// Close marks the store, and every Store Database returned from it,
// closed: later calls return an error wrapping store.ErrClosed. It always
// returns nil and may be called more than once. Memory is released when
// the Stores become unreachable.
func (s *Store) Close() error {
	s.sh.closed.Store(true)
	return nil
}

// check returns the error a call named op must return before doing
// anything: ctx's error or store.ErrClosed, wrapped.
func (s *Store) check(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: %s: %w", op, err)
	}
	if s.sh.closed.Load() {
		return fmt.Errorf("memstore: %s: %w", op, store.ErrClosed)
	}
	return nil
}

// linkShard returns the stripe of (id1, linkType).
func (d *db) linkShard(id1, linkType int64) *linkShard {
	h := (uint64(id1) ^ bits.RotateLeft64(uint64(linkType), 29)) * 0x9e3779b97f4a7c15
	return &d.links[(h^h>>29)>>d.shift&uint64(len(d.links)-1)]
}
