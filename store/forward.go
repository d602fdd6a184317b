package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Capability is a set of the optional capabilities a store may have
// besides Store: bulk loads, several databases, consistency checks,
// per-worker sessions, and those of a store on a database server (schema
// creation, contents, counters, server description, connection limit,
// idle connections).
type Capability uint32

const (
	// CapBulkLinks: the store implements BulkLinkLoader.
	CapBulkLinks Capability = 1 << iota
	// CapBulkNodes: the store implements BulkNodeLoader.
	CapBulkNodes
	// CapDatabases: the store implements Databases.
	CapDatabases
	// CapChecker: the store implements Checker.
	CapChecker
	// CapSessions: the store implements Sessions.
	CapSessions
	// CapSchema: the store implements SchemaCreator.
	CapSchema
	// CapContents: the store implements Contents.
	CapContents
	// CapCounters: the store implements CounterSource.
	CapCounters
	// CapServer: the store implements ServerDescriber.
	CapServer
	// CapConnections: the store implements ConnectionLimiter.
	CapConnections
	// CapIdleCloser: the store implements IdleCloser.
	CapIdleCloser
	// CapEngineMetrics: the store implements EngineMetrics.
	CapEngineMetrics
	// CapNodeProbe: the store implements NodeProber.
	CapNodeProbe
)

// capNames are the capabilities' names, in bit order.
var capNames = [...]string{"BulkLinks", "BulkNodes", "Databases", "Checker", "Sessions",
	"Schema", "Contents", "Counters", "Server", "Connections", "IdleCloser", "EngineMetrics", "NodeProbe"}

// Has reports whether c includes every capability of x.
func (c Capability) Has(x Capability) bool { return c&x == x }

// String returns the capabilities' names joined by "|", or "none".
func (c Capability) String() string {
	var parts []string
	for i, n := range capNames {
		if c&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := c &^ (1<<len(capNames) - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint32(rest)))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "|")
}

// Capabler is implemented by stores that declare their capabilities
// instead of having them found by type assertion: wrappers (Forward
// reports those of the store it wraps), and stores whose methods exist
// but may be unusable.
type Capabler interface {
	Capabilities() Capability
}

// Capabilities returns the optional capabilities of s: what s declares
// if it implements Capabler (so that a wrapper built on Forward reports the
// capabilities of the store it wraps), else those whose interface s
// implements.
func Capabilities(s Store) Capability {
	if c, ok := s.(Capabler); ok {
		return c.Capabilities()
	}
	var c Capability
	if _, ok := s.(BulkLinkLoader); ok {
		c |= CapBulkLinks
	}
	if _, ok := s.(BulkNodeLoader); ok {
		c |= CapBulkNodes
	}
	if _, ok := s.(Databases); ok {
		c |= CapDatabases
	}
	if _, ok := s.(Checker); ok {
		c |= CapChecker
	}
	if _, ok := s.(Sessions); ok {
		c |= CapSessions
	}
	if _, ok := s.(SchemaCreator); ok {
		c |= CapSchema
	}
	if _, ok := s.(Contents); ok {
		c |= CapContents
	}
	if _, ok := s.(CounterSource); ok {
		c |= CapCounters
	}
	if _, ok := s.(ServerDescriber); ok {
		c |= CapServer
	}
	if _, ok := s.(ConnectionLimiter); ok {
		c |= CapConnections
	}
	if _, ok := s.(IdleCloser); ok {
		c |= CapIdleCloser
	}
	if _, ok := s.(EngineMetrics); ok {
		c |= CapEngineMetrics
	}
	if _, ok := s.(NodeProber); ok {
		c |= CapNodeProbe
	}
	return c
}

// AsBulkLinkLoader returns s as a BulkLinkLoader when s has CapBulkLinks.
func AsBulkLinkLoader(s Store) (BulkLinkLoader, bool) { return as[BulkLinkLoader](s, CapBulkLinks) }

// AsBulkNodeLoader returns s as a BulkNodeLoader when s has CapBulkNodes.
func AsBulkNodeLoader(s Store) (BulkNodeLoader, bool) { return as[BulkNodeLoader](s, CapBulkNodes) }

// AsDatabases returns s as Databases when s has CapDatabases.
func AsDatabases(s Store) (Databases, bool) { return as[Databases](s, CapDatabases) }

// AsChecker returns s as a Checker when s has CapChecker.
func AsChecker(s Store) (Checker, bool) { return as[Checker](s, CapChecker) }

// AsNodeProber returns s as a NodeProber when s has CapNodeProbe.
func AsNodeProber(s Store) (NodeProber, bool) { return as[NodeProber](s, CapNodeProbe) }

// AsSessions returns s as Sessions when s has CapSessions.
func AsSessions(s Store) (Sessions, bool) { return as[Sessions](s, CapSessions) }

// AsSchemaCreator returns s as a SchemaCreator when s has CapSchema.
func AsSchemaCreator(s Store) (SchemaCreator, bool) { return as[SchemaCreator](s, CapSchema) }

// AsContents returns s as Contents when s has CapContents.
func AsContents(s Store) (Contents, bool) { return as[Contents](s, CapContents) }

// AsCounterSource returns s as a CounterSource when s has CapCounters.
func AsCounterSource(s Store) (CounterSource, bool) { return as[CounterSource](s, CapCounters) }

// AsServerDescriber returns s as a ServerDescriber when s has CapServer.
func AsServerDescriber(s Store) (ServerDescriber, bool) { return as[ServerDescriber](s, CapServer) }

// AsConnectionLimiter returns s as a ConnectionLimiter when s has
// CapConnections.
func AsConnectionLimiter(s Store) (ConnectionLimiter, bool) {
	return as[ConnectionLimiter](s, CapConnections)
}

// AsEngineMetrics returns s as EngineMetrics when s has
// CapEngineMetrics.
func AsEngineMetrics(s Store) (EngineMetrics, bool) { return as[EngineMetrics](s, CapEngineMetrics) }

// AsIdleCloser returns s as an IdleCloser when s has CapIdleCloser.
func AsIdleCloser(s Store) (IdleCloser, bool) { return as[IdleCloser](s, CapIdleCloser) }

func as[T any](s Store, c Capability) (T, bool) {
	var zero T
	if s == nil || !Capabilities(s).Has(c) {
		return zero, false
	}
	t, ok := s.(T)
	return t, ok
}

// Sessions is an optional capability of a store whose calls can run on
// resources owned by one worker (database connections, prepared
// statements, buffers) for a whole phase, without the lookups and locks a
// store shared by all goroutines needs per call. The benchmark's loaders
// and requesters each open one session per database and close it at the
// end of the phase.
type Sessions interface {
	// Session opens a session: a Store with this store's semantics and
	// database whose calls run on the session's own resources. It may
	// connect before returning, so that the first measured call does not
	// pay for it.
	Session(ctx context.Context) (Session, error)
}

// Session is a Store used by one goroutine at a time (calls must not
// overlap) until Close. It has the capabilities of the store it came from
// (bulk loads, checks), except Sessions and Databases, unless its Capabilities
// say otherwise. Close releases its resources; a call after Close returns
// an error wrapping ErrClosed.
type Session interface {
	Store
	Close() error
}

// OpenSession returns a session of s: s.Session(ctx) when s has
// CapSessions, else s itself behind a Close that does nothing (s must then
// be safe for concurrent use, as every Store is). Errors: those of
// s.Session.
func OpenSession(ctx context.Context, s Store) (Session, error) {
	if ss, ok := AsSessions(s); ok {
		return ss.Session(ctx)
	}
	// The session is the store itself: its views need no wrapping.
	return sharedSession{Forward{Inner: s, Wrap: Identity}}, nil
}

// sharedSession is the session of a store without Sessions: the store
// itself, with a Close that leaves it open.
type sharedSession struct{ Forward }

// Close does nothing: the store belongs to its opener.
func (sharedSession) Close() error { return nil }

// Forward is a Store that forwards every call to Inner, the calls of the
// optional capabilities included, and reports Inner's capabilities
// (Capabilities). Embed it in a wrapper (tracing, counting, fault
// injection) and override only the methods the wrapper changes: the
// wrapper keeps bulk loads, per-database views, checks, sessions and the
// server capabilities (schema creation, contents, counters, server
// description, connection limit, idle connections, engine metrics) of the
// store it wraps.
//
// A capability Inner lacks is not reported, and its methods return an
// error wrapping errors.ErrUnsupported.
type Forward struct {
	// Inner is the wrapped store.
	Inner Store
	// Wrap wraps the stores that Inner hands out: the per-database views
	// of Database and the sessions of Session, so that a wrapper sees
	// their calls too. It is typically the function that built the
	// wrapper. When it is nil the Forward does not offer those two
	// capabilities (a view or session of Inner would bypass the wrapper):
	// the drivers then call the wrapper itself from every worker, and a
	// run with dbcount > 1 is refused.
	Wrap func(Store) Store
}

// Identity returns s: the Wrap of a Forward whose per-database views and
// sessions need no wrapper of their own (a test double, or a store that
// is its own session).
func Identity(s Store) Store { return s }

// Capabilities returns the capabilities of Inner, without CapDatabases
// and CapSessions when Wrap is nil.
func (f Forward) Capabilities() Capability {
	c := Capabilities(f.Inner)
	if f.Wrap == nil {
		c &^= CapDatabases | CapSessions
	}
	return c
}

func (f Forward) wrap(s Store) Store {
	if f.Wrap == nil {
		return s
	}
	return f.Wrap(s)
}

func unsupported(inner Store, method string) error {
	return fmt.Errorf("store: %T has no %s: %w", inner, method, errors.ErrUnsupported)
}

// AddLink forwards to Inner.
func (f Forward) AddLink(ctx context.Context, l Link, noInverse bool) (WriteResult, error) {
	return f.Inner.AddLink(ctx, l, noInverse)
}

// UpdateLink forwards to Inner.
func (f Forward) UpdateLink(ctx context.Context, l Link, noInverse bool) (WriteResult, error) {
	return f.Inner.UpdateLink(ctx, l, noInverse)
}

// DeleteLink forwards to Inner.
func (f Forward) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (bool, error) {
	return f.Inner.DeleteLink(ctx, id1, linkType, id2, noInverse, expunge)
}

// GetLink forwards to Inner.
func (f Forward) GetLink(ctx context.Context, id1, linkType, id2 int64) (Link, bool, error) {
	return f.Inner.GetLink(ctx, id1, linkType, id2)
}

// MultigetLinks forwards to Inner.
func (f Forward) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []Link) ([]Link, error) {
	return f.Inner.MultigetLinks(ctx, id1, linkType, id2s, dst)
}

// GetLinkList forwards to Inner.
func (f Forward) GetLinkList(ctx context.Context, r LinkRange, dst []Link) ([]Link, error) {
	return f.Inner.GetLinkList(ctx, r, dst)
}

// CountLinks forwards to Inner.
func (f Forward) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	return f.Inner.CountLinks(ctx, id1, linkType)
}

// ResetNodeStore forwards to Inner.
func (f Forward) ResetNodeStore(ctx context.Context, startID int64) error {
	return f.Inner.ResetNodeStore(ctx, startID)
}

// AddNode forwards to Inner.
func (f Forward) AddNode(ctx context.Context, n Node) (int64, error) { return f.Inner.AddNode(ctx, n) }

// GetNode forwards to Inner.
func (f Forward) GetNode(ctx context.Context, nodeType int32, id int64) (Node, bool, error) {
	return f.Inner.GetNode(ctx, nodeType, id)
}

// UpdateNode forwards to Inner.
func (f Forward) UpdateNode(ctx context.Context, n Node) (bool, error) {
	return f.Inner.UpdateNode(ctx, n)
}

// DeleteNode forwards to Inner.
func (f Forward) DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error) {
	return f.Inner.DeleteNode(ctx, nodeType, id)
}

// AddBulkLinks forwards to Inner's BulkLinkLoader.
func (f Forward) AddBulkLinks(ctx context.Context, links []Link, noInverse bool) error {
	b, ok := AsBulkLinkLoader(f.Inner)
	if !ok {
		return unsupported(f.Inner, "AddBulkLinks")
	}
	return b.AddBulkLinks(ctx, links, noInverse)
}

// AddBulkCounts forwards to Inner's BulkLinkLoader.
func (f Forward) AddBulkCounts(ctx context.Context, counts []LinkCount) error {
	b, ok := AsBulkLinkLoader(f.Inner)
	if !ok {
		return unsupported(f.Inner, "AddBulkCounts")
	}
	return b.AddBulkCounts(ctx, counts)
}

// AddBulkNodes forwards to Inner's BulkNodeLoader.
func (f Forward) AddBulkNodes(ctx context.Context, nodes []Node) error {
	b, ok := AsBulkNodeLoader(f.Inner)
	if !ok {
		return unsupported(f.Inner, "AddBulkNodes")
	}
	return b.AddBulkNodes(ctx, nodes)
}

// Database returns Inner's view of the database name, passed through Wrap.
func (f Forward) Database(ctx context.Context, name string) (Store, error) {
	d, ok := AsDatabases(f.Inner)
	if ok && f.Wrap == nil {
		return nil, fmt.Errorf("store: Forward around %T has no Wrap, so a view of database %q would bypass the wrapper: set Forward.Wrap: %w", f.Inner, name, errors.ErrUnsupported)
	}
	if !ok {
		return nil, unsupported(f.Inner, "Database")
	}
	s, err := d.Database(ctx, name)
	if err != nil {
		return nil, err
	}
	return f.wrap(s), nil
}

// NodeStats forwards to Inner's Checker.
func (f Forward) NodeStats(ctx context.Context) (NodeStats, error) {
	c, ok := AsChecker(f.Inner)
	if !ok {
		return NodeStats{}, unsupported(f.Inner, "NodeStats")
	}
	return c.NodeStats(ctx)
}

// HasNodeIn forwards to Inner's NodeProber.
func (f Forward) HasNodeIn(ctx context.Context, lo, hi int64) (bool, error) {
	p, ok := AsNodeProber(f.Inner)
	if !ok {
		return false, unsupported(f.Inner, "HasNodeIn")
	}
	return p.HasNodeIn(ctx, lo, hi)
}

// CheckCounts forwards to Inner's Checker.
func (f Forward) CheckCounts(ctx context.Context, limit int) ([]CountMismatch, int64, error) {
	c, ok := AsChecker(f.Inner)
	if !ok {
		return nil, 0, unsupported(f.Inner, "CheckCounts")
	}
	return c.CheckCounts(ctx, limit)
}

// Session opens a session of Inner and passes it through Wrap; closing
// the result closes Inner's session.
func (f Forward) Session(ctx context.Context) (Session, error) {
	ss, ok := AsSessions(f.Inner)
	if !ok {
		return nil, unsupported(f.Inner, "Session")
	}
	if f.Wrap == nil {
		return nil, fmt.Errorf("store: Forward around %T has no Wrap, so its sessions would bypass the wrapper: set Forward.Wrap: %w", f.Inner, errors.ErrUnsupported)
	}
	sess, err := ss.Session(ctx)
	if err != nil {
		return nil, err
	}
	return &wrappedSession{Forward: Forward{Inner: f.Wrap(sess)}, close: sess.Close}, nil
}

// EnsureSchema forwards to Inner's SchemaCreator.
func (f Forward) EnsureSchema(ctx context.Context, name string, o SchemaOptions) error {
	sc, ok := AsSchemaCreator(f.Inner)
	if !ok {
		return unsupported(f.Inner, "EnsureSchema")
	}
	return sc.EnsureSchema(ctx, name, o)
}

// CreateDeferredIndex forwards to Inner's SchemaCreator.
func (f Forward) CreateDeferredIndex(ctx context.Context, name string) error {
	sc, ok := AsSchemaCreator(f.Inner)
	if !ok {
		return unsupported(f.Inner, "CreateDeferredIndex")
	}
	return sc.CreateDeferredIndex(ctx, name)
}

// HasData forwards to Inner's Contents.
func (f Forward) HasData(ctx context.Context) (bool, error) {
	c, ok := AsContents(f.Inner)
	if !ok {
		return false, unsupported(f.Inner, "HasData")
	}
	return c.HasData(ctx)
}

// Counters forwards to Inner's CounterSource; nil without one.
func (f Forward) Counters() []Counter {
	if c, ok := AsCounterSource(f.Inner); ok {
		return c.Counters()
	}
	return nil
}

// DescribeServer forwards to Inner's ServerDescriber.
func (f Forward) DescribeServer(ctx context.Context, databases []string) (*Server, error) {
	d, ok := AsServerDescriber(f.Inner)
	if !ok {
		return nil, unsupported(f.Inner, "DescribeServer")
	}
	return d.DescribeServer(ctx, databases)
}

// Connections forwards to Inner's ConnectionLimiter.
func (f Forward) Connections(ctx context.Context) (Connections, error) {
	l, ok := AsConnectionLimiter(f.Inner)
	if !ok {
		return Connections{}, unsupported(f.Inner, "Connections")
	}
	return l.Connections(ctx)
}

// CloseIdle forwards to Inner's IdleCloser; without one it does nothing.
func (f Forward) CloseIdle() {
	if c, ok := AsIdleCloser(f.Inner); ok {
		c.CloseIdle()
	}
}

// wrappedSession is a session passed through a wrapper: calls go to the
// wrapper, Close to the session it wraps.
type wrappedSession struct {
	Forward
	close func() error
}

// Close closes the wrapped session.
func (s *wrappedSession) Close() error { return s.close() }

// Interface checks: Forward has every capability's methods.
var (
	_ Store             = Forward{}
	_ BulkLinkLoader    = Forward{}
	_ BulkNodeLoader    = Forward{}
	_ Databases         = Forward{}
	_ Checker           = Forward{}
	_ NodeProber        = Forward{}
	_ Sessions          = Forward{}
	_ SchemaCreator     = Forward{}
	_ Contents          = Forward{}
	_ CounterSource     = Forward{}
	_ ServerDescriber   = Forward{}
	_ ConnectionLimiter = Forward{}
	_ IdleCloser        = Forward{}
	_ Capabler          = Forward{}
)

// EngineMetrics forwards to Inner's EngineMetrics.
func (f Forward) EngineMetrics(ctx context.Context) (EngineSnapshot, error) {
	e, ok := AsEngineMetrics(f.Inner)
	if !ok {
		return EngineSnapshot{}, unsupported(f.Inner, "EngineMetrics")
	}
	return e.EngineMetrics(ctx)
}
