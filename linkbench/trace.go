package linkbench

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
)

// Tracer writes a store-call trace: every call that a store returned by
// Wrap receives, one line per call (one per row for bulk inserts), in the
// format LinkBench's calls were logged in (described below), so that a run
// can be diffed against the Java benchmark's (reference §10.3) or against
// another run.
//
// Each line starts with the tag of the worker that made the call, taken
// from the call's context (WorkerFromContext): l<N> for load-phase worker
// N (the link loaders 0..loaders-1, the node loader = loaders), t<N> for
// requester N, and "-" for calls made outside Load and Request. Then:
//
//	bulkLink id1=A type=T id2=B len=L data0=D   one row of AddBulkLinks
//	bulkCount id1=A type=T count=C              one row of AddBulkCounts
//	bulkAddNode id=I len=L data0=D              one node of AddBulkNodes (I = its id)
//	addLink id1=A type=T id2=B len=L            AddLink
//	updateLink id1=A type=T id2=B len=L         UpdateLink
//	deleteLink id1=A type=T id2=B [expunge=true] DeleteLink
//	getLink id1=A type=T id2=B                  GetLink (the drivers never call it)
//	countLinks id1=A type=T                     CountLinks
//	multigetLinks id1=A type=T id2s=[B1, B2]    MultigetLinks, id2s in call order
//	getLinkList id1=A type=T                    GetLinkList of store.FullRange(A, T)
//	getLinkList(range) id1=A type=T off=O lim=M any other GetLinkList (history queries)
//	addNode -> I len=L                          AddNode (I = the id returned; 0 on error)
//	getNode id=I / updateNode id=I len=L / deleteNode id=I
//
// D is the payload's first byte as a signed byte (-128..127), or "-" for
// an empty payload. Batch headers (addBulkLinks n=K, addBulkCounts n=K,
// bulkAddNodes n=K, resetNodeStore start=S) precede the rows of a batch;
// comparisons ignore them. Comment lines start with "#": WriteConfig writes
// the configuration as "# config key=value" lines, and Load and Request,
// given a traced store, write "# load ..." and "# request ..." lines with
// the seed and random mode they use. Timestamps, versions and visibility
// are not written.
//
// A Tracer is safe for concurrent use: lines are written whole, in the
// order the calls returned (within one worker, call order). Output is
// buffered; a call formats its line into a buffer the Tracer reuses, so
// tracing allocates nothing per call. A write error does not fail the
// store call: it is kept and returned by Flush and Close, and later lines
// are dropped.
//
// Typical use (the command-line tool's -trace FILE):
//
//	f, err := os.Create(path)
//	...
//	tr := linkbench.NewTracer(f)
//	tr.WriteConfig(&cfg)
//	traced := tr.Wrap(st) // pass traced, not st, to Load and Request
//	rep, err := linkbench.Load(ctx, cfg, traced)
//	...
//	err = tr.Close() // flushes; then close f
type Tracer struct {
	mu     sync.Mutex
	w      *bufio.Writer
	buf    []byte
	err    error
	closed bool
}

// ErrTracerClosed is returned by Flush and WriteConfig after Close.
var ErrTracerClosed = errors.New("linkbench: tracer closed")

// NewTracer returns a Tracer writing to w through a 256 KiB buffer. The
// caller owns w (Close does not close it).
func NewTracer(w io.Writer) *Tracer {
	return &Tracer{w: bufio.NewWriterSize(w, 256<<10), buf: make([]byte, 0, 256)}
}

// Flush writes buffered lines to the underlying writer. It returns the
// first write error met so far, or ErrTracerClosed after Close.
func (t *Tracer) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrTracerClosed
	}
	return t.flushLocked()
}

func (t *Tracer) flushLocked() error {
	if t.err == nil {
		t.err = t.w.Flush()
	}
	return t.err
}

// Close flushes the trace and stops it: lines of later calls are dropped.
// It returns the first write error, if any; a second Close returns nil.
// It does not close the writer given to NewTracer.
func (t *Tracer) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	return t.flushLocked()
}

// WriteConfig writes the effective configuration (Config.Properties: every
// key, the password never) as "# config key=value" comment lines. Errors:
// ErrTracerClosed, or a write error.
func (t *Tracer) WriteConfig(cfg *Config) error {
	props := cfg.Properties()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrTracerClosed
	}
	for _, p := range props {
		t.buf = append(t.buf[:0], "# config "...)
		t.buf = append(t.buf, p.Key...)
		t.buf = append(t.buf, '=')
		t.buf = appendOneLine(t.buf, p.Value)
		t.writeLocked()
	}
	return t.err
}

// Comment writes text as a comment line ("# " + text; line breaks in text
// become spaces).
func (t *Tracer) Comment(text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf[:0], "# "...)
	t.buf = appendOneLine(t.buf, text)
	t.writeLocked()
}

func appendOneLine(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' || c == '\r' {
			c = ' '
		}
		b = append(b, c)
	}
	return b
}

// begin locks the tracer and starts a line with the worker tag of ctx and
// the call's name.
func (t *Tracer) begin(ctx context.Context, name string) {
	t.mu.Lock()
	t.buf = t.buf[:0]
	t.appendTag(ctx)
	t.buf = append(t.buf, name...)
}

// end writes the line begun by begin and unlocks.
func (t *Tracer) end() {
	t.writeLocked()
	t.mu.Unlock()
}

func (t *Tracer) writeLocked() {
	if t.closed || t.err != nil {
		return
	}
	t.buf = append(t.buf, '\n')
	if _, err := t.w.Write(t.buf); err != nil {
		t.err = err
	}
}

func (t *Tracer) int(key string, v int64) {
	t.buf = append(t.buf, ' ')
	t.buf = append(t.buf, key...)
	t.buf = append(t.buf, '=')
	t.buf = strconv.AppendInt(t.buf, v, 10)
}

func (t *Tracer) data0(d []byte) {
	t.buf = append(t.buf, " data0="...)
	if len(d) == 0 {
		t.buf = append(t.buf, '-')
		return
	}
	t.buf = strconv.AppendInt(t.buf, int64(int8(d[0])), 10)
}

func (t *Tracer) link(ctx context.Context, name string, l *store.Link) {
	t.begin(ctx, name)
	t.int("id1", l.ID1)
	t.int("type", l.LinkType)
	t.int("id2", l.ID2)
	t.int("len", int64(len(l.Data)))
}

// Wrap returns a store that forwards every call to inner and traces it.
// It is built on store.Forward: it has exactly the optional capabilities
// inner has (bulk loads, databases and sessions, which are traced too,
// and checks, which are not), so that Load and Request take the same
// paths as with inner. Several stores may be wrapped by one Tracer.
func (t *Tracer) Wrap(inner store.Store) store.Store {
	return &tracedStore{Forward: store.Forward{Inner: inner, Wrap: t.Wrap}, t: t}
}

// traceOf returns the Tracer of a store returned by Tracer.Wrap.
func traceOf(st store.Store) *Tracer {
	if ts, ok := st.(interface{ tracer() *Tracer }); ok {
		return ts.tracer()
	}
	return nil
}

// tracedStore traces the calls of store.Store and of the bulk loads; the
// other capabilities are forwarded by store.Forward.
type tracedStore struct {
	store.Forward
	t *Tracer
}

func (s *tracedStore) tracer() *Tracer { return s.t }

func (s *tracedStore) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	r, err := s.Inner.AddLink(ctx, l, noInverse)
	s.t.link(ctx, "addLink", &l)
	s.t.end()
	return r, err
}

func (s *tracedStore) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	r, err := s.Inner.UpdateLink(ctx, l, noInverse)
	s.t.link(ctx, "updateLink", &l)
	s.t.end()
	return r, err
}

func (s *tracedStore) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (bool, error) {
	found, err := s.Inner.DeleteLink(ctx, id1, linkType, id2, noInverse, expunge)
	s.t.begin(ctx, "deleteLink")
	s.t.int("id1", id1)
	s.t.int("type", linkType)
	s.t.int("id2", id2)
	if expunge {
		s.t.buf = append(s.t.buf, " expunge=true"...)
	}
	s.t.end()
	return found, err
}

func (s *tracedStore) GetLink(ctx context.Context, id1, linkType, id2 int64) (store.Link, bool, error) {
	l, found, err := s.Inner.GetLink(ctx, id1, linkType, id2)
	s.t.begin(ctx, "getLink")
	s.t.int("id1", id1)
	s.t.int("type", linkType)
	s.t.int("id2", id2)
	s.t.end()
	return l, found, err
}

func (s *tracedStore) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64, dst []store.Link) ([]store.Link, error) {
	res, err := s.Inner.MultigetLinks(ctx, id1, linkType, id2s, dst)
	s.t.begin(ctx, "multigetLinks")
	s.t.int("id1", id1)
	s.t.int("type", linkType)
	b := append(s.t.buf, " id2s=["...)
	for i, id2 := range id2s {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, id2, 10)
	}
	s.t.buf = append(b, ']')
	s.t.end()
	return res, err
}

func (s *tracedStore) GetLinkList(ctx context.Context, r store.LinkRange, dst []store.Link) ([]store.Link, error) {
	res, err := s.Inner.GetLinkList(ctx, r, dst)
	if r == store.FullRange(r.ID1, r.LinkType) {
		s.t.begin(ctx, "getLinkList")
		s.t.int("id1", r.ID1)
		s.t.int("type", r.LinkType)
	} else {
		s.t.begin(ctx, "getLinkList(range)")
		s.t.int("id1", r.ID1)
		s.t.int("type", r.LinkType)
		s.t.int("off", int64(r.Offset))
		s.t.int("lim", int64(r.Limit))
	}
	s.t.end()
	return res, err
}

func (s *tracedStore) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	n, err := s.Inner.CountLinks(ctx, id1, linkType)
	s.t.begin(ctx, "countLinks")
	s.t.int("id1", id1)
	s.t.int("type", linkType)
	s.t.end()
	return n, err
}

func (s *tracedStore) ResetNodeStore(ctx context.Context, startID int64) error {
	err := s.Inner.ResetNodeStore(ctx, startID)
	s.t.begin(ctx, "resetNodeStore")
	s.t.int("start", startID)
	s.t.end()
	return err
}

func (s *tracedStore) AddNode(ctx context.Context, n store.Node) (int64, error) {
	id, err := s.Inner.AddNode(ctx, n)
	if err != nil {
		id = 0
	}
	s.t.begin(ctx, "addNode -> ")
	s.t.buf = strconv.AppendInt(s.t.buf, id, 10)
	s.t.int("len", int64(len(n.Data)))
	s.t.end()
	return id, err
}

func (s *tracedStore) GetNode(ctx context.Context, nodeType int32, id int64) (store.Node, bool, error) {
	n, found, err := s.Inner.GetNode(ctx, nodeType, id)
	s.t.begin(ctx, "getNode")
	s.t.int("id", id)
	s.t.end()
	return n, found, err
}

func (s *tracedStore) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	found, err := s.Inner.UpdateNode(ctx, n)
	s.t.begin(ctx, "updateNode")
	s.t.int("id", n.ID)
	s.t.int("len", int64(len(n.Data)))
	s.t.end()
	return found, err
}

func (s *tracedStore) DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error) {
	found, err := s.Inner.DeleteNode(ctx, nodeType, id)
	s.t.begin(ctx, "deleteNode")
	s.t.int("id", id)
	s.t.end()
	return found, err
}

func (s *tracedStore) AddBulkLinks(ctx context.Context, links []store.Link, noInverse bool) error {
	err := s.Forward.AddBulkLinks(ctx, links, noInverse)
	t := s.t
	t.begin(ctx, "addBulkLinks")
	t.int("n", int64(len(links)))
	t.writeLocked()
	for i := range links {
		t.buf = t.buf[:0]
		t.appendTag(ctx)
		t.buf = append(t.buf, "bulkLink"...)
		l := &links[i]
		t.int("id1", l.ID1)
		t.int("type", l.LinkType)
		t.int("id2", l.ID2)
		t.int("len", int64(len(l.Data)))
		t.data0(l.Data)
		t.writeLocked()
	}
	t.mu.Unlock()
	return err
}

func (s *tracedStore) AddBulkCounts(ctx context.Context, counts []store.LinkCount) error {
	err := s.Forward.AddBulkCounts(ctx, counts)
	t := s.t
	t.begin(ctx, "addBulkCounts")
	t.int("n", int64(len(counts)))
	t.writeLocked()
	for i := range counts {
		t.buf = t.buf[:0]
		t.appendTag(ctx)
		t.buf = append(t.buf, "bulkCount"...)
		c := &counts[i]
		t.int("id1", c.ID1)
		t.int("type", c.LinkType)
		t.int("count", c.Count)
		t.writeLocked()
	}
	t.mu.Unlock()
	return err
}

func (s *tracedStore) AddBulkNodes(ctx context.Context, nodes []store.Node) error {
	err := s.Forward.AddBulkNodes(ctx, nodes)
	t := s.t
	t.begin(ctx, "bulkAddNodes")
	t.int("n", int64(len(nodes)))
	t.writeLocked()
	for i := range nodes {
		t.buf = t.buf[:0]
		t.appendTag(ctx)
		t.buf = append(t.buf, "bulkAddNode"...)
		n := &nodes[i]
		t.int("id", n.ID)
		t.int("len", int64(len(n.Data)))
		t.data0(n.Data)
		t.writeLocked()
	}
	t.mu.Unlock()
	return err
}

// appendTag appends the worker tag of ctx and a space (with t.mu held).
func (t *Tracer) appendTag(ctx context.Context) {
	if w, ok := WorkerFromContext(ctx); ok {
		if w.Phase == stats.PhaseLoad {
			t.buf = append(t.buf, 'l')
		} else {
			t.buf = append(t.buf, 't')
		}
		t.buf = strconv.AppendInt(t.buf, int64(w.ID), 10)
	} else {
		t.buf = append(t.buf, '-')
	}
	t.buf = append(t.buf, ' ')
}
