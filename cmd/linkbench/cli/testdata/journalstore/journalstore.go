// Package journalstore is a LinkBench store of another module, for the
// command-line tool's test of the store capabilities: it keeps each
// database in memory (package memstore) and appends every write to a
// journal file in a directory of its own under the DSN's directory, which
// the next process replays, so that a graph outlives a run as on a
// database server. It implements, with the public API only, every
// capability of a store on a database server: schema creation
// (store.SchemaCreator), contents (store.Contents, store.ErrNoSchema),
// counters (store.CounterSource), a server description
// (store.ServerDescriber), a connection limit (store.ConnectionLimiter)
// and idle connections (store.IdleCloser), besides store.Databases and
// store.Checker.
package journalstore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// Name is the name the store registers under.
const Name = "journal"

// MaxSessions is the store's connection limit (store.Connections.Limit).
const MaxSessions = 64

func init() {
	store.Register(Name, func(_ context.Context, dsn string, o store.OpenOptions) (store.Store, error) {
		if dsn == "" {
			return nil, errors.New("journal store: -dsn must name a directory")
		}
		dir, err := filepath.Abs(dsn)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		name := o.Database
		if name == "" {
			name = "linkdb0"
		}
		s := &shared{dir: dir, views: map[string]*Store{}}
		return s.view(name), nil
	})
}

// shared is what the views of one opened store share.
type shared struct {
	dir       string
	mu        sync.Mutex
	views     map[string]*Store
	writes    atomic.Int64
	replayed  atomic.Int64
	closeIdle atomic.Int64
	indexes   atomic.Int64
}

// Store serves one database: a directory of the DSN's directory holding
// the marker "tables" (created by EnsureSchema) and the journal.
type Store struct {
	c    *shared
	name string

	mu      sync.Mutex // serialises writes: the journal's order is the order they applied
	mem     *memstore.Store
	journal *os.File
	err     error // why the database cannot be used (store.ErrNoSchema)
}

// record is a line of the journal.
type record struct {
	Op     string            `json:"op"`
	Link   store.Link        `json:"link,omitempty"`
	Node   store.Node        `json:"node,omitempty"`
	Links  []store.Link      `json:"links,omitempty"`
	Counts []store.LinkCount `json:"counts,omitempty"`
	Nodes  []store.Node      `json:"nodes,omitempty"`
	ID     [3]int64          `json:"id,omitempty"` // id1, link_type, id2 (or node type, id)
	Flag   bool              `json:"flag,omitempty"`
}

func (c *shared) view(name string) *Store {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.views[name]; ok {
		return s
	}
	s := &Store{c: c, name: name}
	s.load()
	c.views[name] = s
	return s
}

func (s *Store) path(f string) string { return filepath.Join(s.c.dir, s.name, f) }

// load opens the database: replays its journal, or notes that its tables
// are missing.
func (s *Store) load() {
	s.mem, s.journal, s.err = memstore.New(), nil, nil
	if _, err := os.Stat(s.path("tables")); err != nil {
		s.err = fmt.Errorf("journal store: database %s has no tables: %w", s.name, store.ErrNoSchema)
		return
	}
	ctx := context.Background()
	if f, err := os.Open(s.path("journal")); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var r record
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				s.err = err
				break
			}
			if err := s.apply(ctx, &r); err != nil {
				s.err = err
				break
			}
			s.c.replayed.Add(1)
		}
		f.Close()
	}
	s.journal, _ = os.OpenFile(s.path("journal"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
}

func (s *Store) apply(ctx context.Context, r *record) (err error) {
	m := s.mem
	switch r.Op {
	case "AddLink":
		_, err = m.AddLink(ctx, r.Link, true)
	case "UpdateLink":
		_, err = m.UpdateLink(ctx, r.Link, true)
	case "DeleteLink":
		_, err = m.DeleteLink(ctx, r.ID[0], r.ID[1], r.ID[2], true, r.Flag)
	case "ResetNodeStore":
		err = m.ResetNodeStore(ctx, r.ID[0])
	case "AddNode":
		_, err = m.AddNode(ctx, r.Node)
	case "UpdateNode":
		_, err = m.UpdateNode(ctx, r.Node)
	case "DeleteNode":
		_, err = m.DeleteNode(ctx, int32(r.ID[0]), r.ID[1])
	case "AddBulkLinks":
		err = m.AddBulkLinks(ctx, r.Links, true)
	case "AddBulkCounts":
		err = m.AddBulkCounts(ctx, r.Counts)
	case "AddBulkNodes":
		err = m.AddBulkNodes(ctx, r.Nodes)
	}
	return err
}

// write applies a write and appends it to the journal.
func (s *Store) write(ctx context.Context, r record, do func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if err := do(); err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := s.journal.Write(append(b, '\n')); err != nil {
		return err
	}
	s.c.writes.Add(1)
	return nil
}

func (s *Store) read() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// AddLink implements store.LinkStore.
func (s *Store) AddLink(ctx context.Context, l store.Link, ni bool) (res store.WriteResult, err error) {
	err = s.write(ctx, record{Op: "AddLink", Link: l}, func() (err error) { res, err = s.mem.AddLink(ctx, l, ni); return err })
	return res, err
}

// UpdateLink implements store.LinkStore.
func (s *Store) UpdateLink(ctx context.Context, l store.Link, ni bool) (res store.WriteResult, err error) {
	err = s.write(ctx, record{Op: "UpdateLink", Link: l}, func() (err error) { res, err = s.mem.UpdateLink(ctx, l, ni); return err })
	return res, err
}

// DeleteLink implements store.LinkStore.
func (s *Store) DeleteLink(ctx context.Context, id1, lt, id2 int64, ni, expunge bool) (found bool, err error) {
	err = s.write(ctx, record{Op: "DeleteLink", ID: [3]int64{id1, lt, id2}, Flag: expunge}, func() (err error) {
		found, err = s.mem.DeleteLink(ctx, id1, lt, id2, ni, expunge)
		return err
	})
	return found, err
}

// GetLink implements store.LinkStore.
func (s *Store) GetLink(ctx context.Context, id1, lt, id2 int64) (store.Link, bool, error) {
	if err := s.read(); err != nil {
		return store.Link{}, false, err
	}
	return s.mem.GetLink(ctx, id1, lt, id2)
}

// MultigetLinks implements store.LinkStore.
func (s *Store) MultigetLinks(ctx context.Context, id1, lt int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	if err := s.read(); err != nil {
		return dst, err
	}
	return s.mem.MultigetLinks(ctx, id1, lt, id2s, dst)
}

// GetLinkList implements store.LinkStore.
func (s *Store) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	if err := s.read(); err != nil {
		return dst, err
	}
	return s.mem.GetLinkList(ctx, r, dst)
}

// CountLinks implements store.LinkStore.
func (s *Store) CountLinks(ctx context.Context, id1, lt int64) (int64, error) {
	if err := s.read(); err != nil {
		return 0, err
	}
	return s.mem.CountLinks(ctx, id1, lt)
}

// ResetNodeStore implements store.NodeStore.
func (s *Store) ResetNodeStore(ctx context.Context, start int64) error {
	return s.write(ctx, record{Op: "ResetNodeStore", ID: [3]int64{start}}, func() error { return s.mem.ResetNodeStore(ctx, start) })
}

// AddNode implements store.NodeStore.
func (s *Store) AddNode(ctx context.Context, n store.Node) (id int64, err error) {
	err = s.write(ctx, record{Op: "AddNode", Node: n}, func() (err error) { id, err = s.mem.AddNode(ctx, n); return err })
	return id, err
}

// GetNode implements store.NodeStore.
func (s *Store) GetNode(ctx context.Context, typ int32, id int64) (store.Node, bool, error) {
	if err := s.read(); err != nil {
		return store.Node{}, false, err
	}
	return s.mem.GetNode(ctx, typ, id)
}

// UpdateNode implements store.NodeStore.
func (s *Store) UpdateNode(ctx context.Context, n store.Node) (found bool, err error) {
	err = s.write(ctx, record{Op: "UpdateNode", Node: n}, func() (err error) { found, err = s.mem.UpdateNode(ctx, n); return err })
	return found, err
}

// DeleteNode implements store.NodeStore.
func (s *Store) DeleteNode(ctx context.Context, typ int32, id int64) (found bool, err error) {
	err = s.write(ctx, record{Op: "DeleteNode", ID: [3]int64{int64(typ), id}}, func() (err error) {
		found, err = s.mem.DeleteNode(ctx, typ, id)
		return err
	})
	return found, err
}

// AddBulkLinks implements store.BulkLinkLoader.
func (s *Store) AddBulkLinks(ctx context.Context, links []store.Link, ni bool) error {
	return s.write(ctx, record{Op: "AddBulkLinks", Links: links}, func() error { return s.mem.AddBulkLinks(ctx, links, ni) })
}

// AddBulkCounts implements store.BulkLinkLoader.
func (s *Store) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	return s.write(ctx, record{Op: "AddBulkCounts", Counts: counts}, func() error { return s.mem.AddBulkCounts(ctx, counts) })
}

// AddBulkNodes implements store.BulkNodeLoader.
func (s *Store) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	return s.write(ctx, record{Op: "AddBulkNodes", Nodes: nodes}, func() error { return s.mem.AddBulkNodes(ctx, nodes) })
}

// NodeStats implements store.Checker.
func (s *Store) NodeStats(ctx context.Context) (store.NodeStats, error) {
	if err := s.read(); err != nil {
		return store.NodeStats{}, err
	}
	return s.mem.NodeStats(ctx)
}

// CheckCounts implements store.Checker.
func (s *Store) CheckCounts(ctx context.Context, limit int) ([]store.CountMismatch, int64, error) {
	if err := s.read(); err != nil {
		return nil, 0, err
	}
	return s.mem.CheckCounts(ctx, limit)
}

// Database implements store.Databases.
func (s *Store) Database(_ context.Context, name string) (store.Store, error) {
	return s.c.view(name), nil
}

// EnsureSchema implements store.SchemaCreator: the database's directory
// and its marker "tables" ("deferred" while the index is deferred).
func (s *Store) EnsureSchema(_ context.Context, name string, o store.SchemaOptions) error {
	v := s.c.view(name)
	if err := os.MkdirAll(filepath.Join(s.c.dir, name), 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(v.path("tables")); err == nil {
		return nil
	}
	marker := "indexed\n"
	if o.DeferIndex {
		marker = "deferred\n"
	}
	if err := os.WriteFile(v.path("tables"), []byte(marker), 0o644); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.load()
	return v.err
}

// CreateDeferredIndex implements store.SchemaCreator.
func (s *Store) CreateDeferredIndex(_ context.Context, name string) error {
	s.c.indexes.Add(1)
	return os.WriteFile(s.c.view(name).path("tables"), []byte("indexed\n"), 0o644)
}

// HasData implements store.Contents.
func (s *Store) HasData(ctx context.Context) (bool, error) {
	st, err := s.NodeStats(ctx)
	if err != nil {
		return false, err
	}
	_, pairs, err := s.mem.CheckCounts(ctx, 1)
	return st.Count > 0 || pairs > 0, err
}

// Counters implements store.CounterSource.
func (s *Store) Counters() []store.Counter {
	var out []store.Counter
	for _, c := range []store.Counter{{Name: "journal.close_idle", Value: s.c.closeIdle.Load()},
		{Name: "journal.indexes", Value: s.c.indexes.Load()}, {Name: "journal.replayed", Value: s.c.replayed.Load()},
		{Name: "journal.writes", Value: s.c.writes.Load()}} {
		if c.Value != 0 {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DescribeServer implements store.ServerDescriber: the "server" is this
// process, its datadir the DSN's directory, the size that of the journals.
func (s *Store) DescribeServer(_ context.Context, databases []string) (*store.Server, error) {
	size := func(context.Context) (int64, error) {
		var n int64
		for _, db := range databases {
			if st, err := os.Stat(filepath.Join(s.c.dir, db, "journal")); err == nil {
				n += st.Size()
			}
		}
		return n, nil
	}
	return &store.Server{Kind: "Journal", Version: "journal 1", Datadir: s.c.dir, Local: true,
		Settings: map[string]string{"table_engine": "journal", "databases": fmt.Sprint(databases)},
		Size:     size, SizeSource: "the journals", Close: func() {}}, nil
}

// Connections implements store.ConnectionLimiter.
func (s *Store) Connections(context.Context) (store.Connections, error) {
	return store.Connections{Server: "Journal", Limit: MaxSessions, LimitName: "journal_max_sessions", PerSession: 1}, nil
}

// CloseIdle implements store.IdleCloser: there is nothing to close; each
// call is counted, and noted in the file close_idle of the DSN's
// directory, so that a test sees it was called.
func (s *Store) CloseIdle() {
	s.c.closeIdle.Add(1)
	if f, err := os.OpenFile(filepath.Join(s.c.dir, "close_idle"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
		f.WriteString("CloseIdle\n")
		f.Close()
	}
}

// Close closes the journals of every view.
func (s *Store) Close() error {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	for _, v := range s.c.views {
		if v.journal != nil {
			v.journal.Close()
		}
	}
	return nil
}
