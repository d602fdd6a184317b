// Package store defines LinkBench's data model (links, nodes, link counts)
// and the contract a database must implement to be driven by the benchmark.
//
// The semantics are those of LinkBench's in-memory reference store
// (MemoryLinkStore in the original Java benchmark) with the fixes the
// reference lists as "fix": expunging a hidden link keeps counts exact,
// a range query with limit 0 returns no links, and MultigetLinks returns
// each stored link at most once even when id2s repeats. Package memstore is
// the executable form of these semantics and storetest checks any store
// against them.
//
// Every method takes a context.Context and must honour its cancellation.
// A miss (an absent or deleted node or link) is reported as found == false,
// never as an error. Implementations must be safe for concurrent use by
// multiple goroutines: the benchmark shares one Store among all its loaders
// and requesters.
//
// # Optional capabilities
//
// Besides Store a store may implement optional interfaces, each with a
// Capability bit and an As... helper that finds it (a wrapper built on
// Forward keeps them all): bulk loads (BulkLinkLoader, BulkNodeLoader),
// several databases (Databases), consistency checks (Checker), per-worker
// sessions (Sessions), and those of a store on a database server: schema
// creation (SchemaCreator), whether a graph is there (Contents, with the
// error class ErrNoSchema), counters (CounterSource), what the server is
// (ServerDescriber), its connection limit (ConnectionLimiter) and idle
// connections (IdleCloser). Callers ask for capabilities, never for a
// concrete store: a store registered by another package (Register) that
// implements them is driven as the built-in ones are.
package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
)

// LinkBench's constants (reference §1.1).
const (
	// DefaultLinkType is the first link type the benchmark generates; link
	// types are DefaultLinkType + i for i in [0, link_type_count).
	DefaultLinkType int64 = 123456789
	// DefaultNodeType is the only node type the benchmark generates or queries.
	DefaultNodeType int32 = 2048
	// DefaultLimit is the maximum number of links a plain link-list query
	// (GET_LINKS_LIST) returns: LinkBench's rangeLimit.
	DefaultLimit = 10000
	// MaxLinkData is the exclusive upper bound of generated link payload
	// sizes, in bytes (the SQL column is VARCHAR(255)).
	MaxLinkData = 255
	// MaxNodeData is the exclusive upper bound of generated node payload
	// sizes, in bytes (1 MiB).
	MaxNodeData = 1 << 20
)

// Visibility of a link: LinkBench's visibility column.
type Visibility int8

const (
	// VisibilityHidden marks a link that is present but soft-deleted: it is
	// returned by GetLink and MultigetLinks but not by GetLinkList, and it is
	// not counted.
	VisibilityHidden Visibility = 0
	// VisibilityDefault marks a visible link.
	VisibilityDefault Visibility = 1
)

// String returns "VISIBLE", "HIDDEN" or the number.
func (v Visibility) String() string {
	switch v {
	case VisibilityHidden:
		return "HIDDEN"
	case VisibilityDefault:
		return "VISIBLE"
	}
	return fmt.Sprintf("Visibility(%d)", int8(v))
}

// Link is an edge of the graph (an "association"). Its primary key is
// (ID1, LinkType, ID2).
type Link struct {
	ID1        int64      // source node id; loaded links have ID1 in [startid1, maxid1)
	LinkType   int64      // DefaultLinkType + i in generated data; any value in tests
	ID2        int64      // destination id; need not name an existing node
	Visibility Visibility // VisibilityDefault or VisibilityHidden
	Data       []byte     // payload, 0..MaxLinkData-1 bytes in generated data
	Version    int32      // 0 in generated data
	Time       int64      // sort key of adjacency lists, ms since the Unix epoch
}

// Equal reports whether all seven fields are equal, Data compared byte-wise
// (a nil and an empty payload are equal).
func (l Link) Equal(o Link) bool {
	return l.ID1 == o.ID1 && l.LinkType == o.LinkType && l.ID2 == o.ID2 &&
		l.Visibility == o.Visibility && l.Version == o.Version && l.Time == o.Time &&
		bytes.Equal(l.Data, o.Data)
}

// Clone returns a copy of l whose Data does not alias l.Data.
func (l Link) Clone() Link {
	l.Data = bytes.Clone(l.Data)
	return l
}

// Node is a vertex of the graph (an "object").
type Node struct {
	ID      int64  // assigned by the store for AddNode; explicit in bulk loads
	Type    int32  // DefaultNodeType in generated data; reads, updates and deletes must match it
	Version int64  // 1 for loaded and added nodes, 2 after a request-phase update
	Time    int32  // Unix seconds
	Data    []byte // payload, 0..MaxNodeData-1 bytes in generated data
}

// Equal reports whether all five fields are equal, Data compared byte-wise.
func (n Node) Equal(o Node) bool {
	return n.ID == o.ID && n.Type == o.Type && n.Version == o.Version && n.Time == o.Time &&
		bytes.Equal(n.Data, o.Data)
}

// Clone returns a copy of n whose Data does not alias n.Data.
func (n Node) Clone() Node {
	n.Data = bytes.Clone(n.Data)
	return n
}

// LinkCount is a row of the count table: the number of visible links of
// type LinkType out of ID1, written by bulk loads (AddBulkCounts).
type LinkCount struct {
	ID1      int64
	LinkType int64
	Time     int64 // ms since the Unix epoch: the newest link's time at load
	Version  int64
	Count    int64 // number of visible links, >= 0
}

// WriteResult says what AddLink or UpdateLink did (LinkBench's
// LinkWriteResult).
type WriteResult uint8

const (
	// LinkInsert: the write created a new row.
	LinkInsert WriteResult = iota + 1
	// LinkUpdate: an existing row was changed.
	LinkUpdate
	// LinkNoChange: an existing row was found and already held the values.
	LinkNoChange
)

// String returns LinkBench's name of the result (LINK_INSERT, ...).
func (r WriteResult) String() string {
	switch r {
	case LinkInsert:
		return "LINK_INSERT"
	case LinkUpdate:
		return "LINK_UPDATE"
	case LinkNoChange:
		return "LINK_NO_CHANGE"
	}
	return fmt.Sprintf("WriteResult(%d)", uint8(r))
}

// LinkRange selects the visible links of (ID1, LinkType) with
// MinTime <= Time <= MaxTime, ordered by Time descending (ties by ID2
// ascending in the reference store; other stores may order ties
// differently), skipping the first Offset matches and returning at most
// Limit links.
type LinkRange struct {
	ID1      int64
	LinkType int64
	MinTime  int64 // inclusive, ms
	MaxTime  int64 // inclusive, ms
	Offset   int   // >= 0
	Limit    int   // >= 0; 0 returns no links
}

// FullRange is the plain link-list query of GET_LINKS_LIST: every visible
// link of (id1, linkType), newest first, at most DefaultLimit of them.
func FullRange(id1, linkType int64) LinkRange {
	return LinkRange{ID1: id1, LinkType: linkType, MinTime: 0, MaxTime: math.MaxInt64, Limit: DefaultLimit}
}

// LinkStore holds links and maintains, for every (id1, link_type), the
// number of visible links.
//
// Data slices passed in are only read during the call: stores must copy
// what they keep. Reads append into the caller's dst slice (which may be
// reused between calls, including the Data capacity of its elements) and
// return the result; they never return slices that alias stored data.
type LinkStore interface {
	// AddLink inserts l, or overwrites every field of the existing link
	// with the same (ID1, LinkType, ID2), visibility included. The count of
	// (ID1, LinkType) goes up by one when the row ends visible and was
	// absent or hidden, down by one when a visible row becomes hidden.
	// noInverse is always true from the benchmark and may be ignored.
	AddLink(ctx context.Context, l Link, noInverse bool) (WriteResult, error)
	// UpdateLink has the same end state as AddLink (an upsert). It returns
	// LinkUpdate or LinkNoChange when the link existed, LinkInsert when it
	// had to insert it.
	UpdateLink(ctx context.Context, l Link, noInverse bool) (WriteResult, error)
	// DeleteLink hides the link (expunge == false) or removes it (expunge
	// == true), decrementing the count if it was visible. found reports
	// whether the link existed (hidden ones included).
	DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (found bool, err error)
	// GetLink returns the link, hidden or visible.
	GetLink(ctx context.Context, id1, linkType, id2 int64) (l Link, found bool, err error)
	// MultigetLinks appends to dst the links (hidden included) among id2s
	// that exist, each at most once, in any order.
	MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []Link) ([]Link, error)
	// GetLinkList appends to dst the visible links selected by r (see
	// LinkRange). An empty result is a zero-length slice, not an error.
	GetLinkList(ctx context.Context, r LinkRange, dst []Link) ([]Link, error)
	// CountLinks returns the number of visible links of (id1, linkType),
	// 0 when there are none.
	CountLinks(ctx context.Context, id1, linkType int64) (int64, error)
}

// NodeStore holds nodes.
type NodeStore interface {
	// ResetNodeStore deletes every node and makes startID the next id that
	// AddNode allocates.
	ResetNodeStore(ctx context.Context, startID int64) error
	// AddNode stores a copy of n under the next id of the store's sequence
	// (n.ID is ignored and not modified) and returns that id. Ids grow by
	// one per call after ResetNodeStore(startID): startID, startID+1, ...;
	// after a bulk load they continue past the largest loaded id.
	AddNode(ctx context.Context, n Node) (id int64, err error)
	// GetNode returns the node with that id, found == false if it is
	// absent or its stored type differs from nodeType.
	GetNode(ctx context.Context, nodeType int32, id int64) (n Node, found bool, err error)
	// UpdateNode overwrites Version, Time and Data of the node with n.ID
	// and n.Type; found == false if it is absent or its type differs.
	UpdateNode(ctx context.Context, n Node) (found bool, err error)
	// DeleteNode deletes the node with that id and type; found == false if
	// it was absent or its type differs.
	DeleteNode(ctx context.Context, nodeType int32, id int64) (found bool, err error)
}

// Store is a database the benchmark can drive: links and nodes.
// Close belongs to the concrete store: the caller owns its lifetime.
type Store interface {
	LinkStore
	NodeStore
}

// BulkLinkLoader is an optional capability of a LinkStore: multi-row inserts
// for the load phase. The loader then sends batches of bulk_insert_count
// rows (never an empty batch) and writes count rows itself.
type BulkLinkLoader interface {
	// AddBulkLinks inserts links without touching the count table. The
	// links are new: loading over existing rows is an error or an upsert,
	// at the store's choice.
	AddBulkLinks(ctx context.Context, links []Link, noInverse bool) error
	// AddBulkCounts writes count rows as given (absolute values). A store
	// that derives counts from the links (memstore) may ignore them.
	AddBulkCounts(ctx context.Context, counts []LinkCount) error
}

// BulkNodeLoader is an optional capability of a NodeStore: multi-row node
// inserts with explicit ids for the load phase.
type BulkNodeLoader interface {
	// AddBulkNodes stores copies of nodes under their own ID (not the
	// store's sequence) and advances the sequence past the largest id, so
	// that a later AddNode returns a fresh id.
	AddBulkNodes(ctx context.Context, nodes []Node) error
}

// Databases is an optional capability of a store that holds several
// LinkBench databases (the dbprefix/dbcount/dbload keys): Database returns
// a Store that serves the database with that name (dbprefix + index, for
// example "linkdb0"). A store without it serves exactly one database.
type Databases interface {
	Database(ctx context.Context, name string) (Store, error)
}

// NodeStats summarises a node table for consistency checks.
type NodeStats struct {
	Count int64 // number of nodes
	MinID int64 // smallest id, 0 when Count == 0
	MaxID int64 // largest id, 0 when Count == 0
}

// CountMismatch is a (ID1, LinkType) whose count-table row disagrees with
// the number of visible links.
type CountMismatch struct {
	ID1      int64
	LinkType int64
	Count    int64 // the count the store reports (0 when there is no row)
	Visible  int64 // the number of visible links
}

// NodeProber is an optional capability of a store that can tell cheaply
// whether it holds a node in an id range: the request phase's check that
// the graph is loaded (linkbench.CheckLoaded) uses it rather than
// Checker.NodeStats, which counts every node (on a SQL store, a scan of
// the node table that LinkBench never issues, reading it through the
// cache before the measured phase).
type NodeProber interface {
	// HasNodeIn reports whether the store holds a node with an id in
	// [lo, hi) (false when lo >= hi), reading at most one node: on a SQL
	// store, one index lookup.
	HasNodeIn(ctx context.Context, lo, hi int64) (bool, error)
}

// Checker is an optional capability used by consistency checks after a run.
type Checker interface {
	// NodeStats returns the number of nodes and the smallest and largest id.
	NodeStats(ctx context.Context) (NodeStats, error)
	// CheckCounts compares, for every (id1, link_type) that has links or a
	// count row, the count with the number of visible links. It returns at
	// most limit mismatches (all of them when limit <= 0) and the number of
	// (id1, link_type) pairs checked.
	CheckCounts(ctx context.Context, limit int) (mismatches []CountMismatch, checked int64, err error)
}

// TransientError wraps a database fault that may pass if the operation is
// tried again later (a lost connection, a deadlock that outlived the
// store's own retries). The benchmark counts it as a failed request.
type TransientError struct {
	Op  string // the store method, e.g. "AddLink"
	Err error
}

// Error implements error.
func (e *TransientError) Error() string {
	return fmt.Sprintf("%s: transient: %v", e.Op, e.Err)
}

// Unwrap returns the underlying error.
func (e *TransientError) Unwrap() error { return e.Err }

// IsTransient reports whether err is, or wraps, a *TransientError.
func IsTransient(err error) bool {
	var t *TransientError
	return errors.As(err, &t)
}

// ErrClosed is returned by stores used after Close.
var ErrClosed = errors.New("store: closed")
