// Package audit checks that a store keeps what it acknowledged: a store
// wrapper logs every write the store acknowledged, and a verifier reads
// the log back against the store and counts, per operation, the writes
// whose values the store still shows (present), the writes a later write
// to the same key explains (superseded), and the others (lost).
//
// It works with any store.Store. The wrapper (Log.Wrap) is built on
// store.Forward: it keeps every optional capability of the store it wraps,
// and wraps the per-database views (Database) and the sessions (Session)
// it hands out, so that no call of the benchmark's loaders and requesters
// bypasses it. The command-line tool's -audit FILE uses it; see the
// README's "Auditing acknowledged writes".
//
// # What is logged
//
// One record per write call, written before the call returns to its
// caller, so before the worker's next operation:
//
//   - ADD_NODE: the id the store returned and the node written (type,
//     version, time, payload);
//   - UPDATE_NODE: when found == true: id, type, version, time, payload;
//   - DELETE_NODE: when found == true: id, type;
//   - ADD_LINK, UPDATE_LINK: id1, link_type, id2, visibility, version,
//     time, payload (an add over an existing row overwrites every field);
//   - DELETE_LINK: when found == true: id1, link_type, id2 and whether it
//     expunged the row (a hide keeps it, with visibility HIDDEN);
//   - RESET_NODES: ResetNodeStore's start id (every node of the database
//     is gone after it).
//
// A call that returned an error is logged too, as an unacknowledged
// attempt: its outcome is unknown (a commit may have taken effect before
// the connection broke), and a value in the store that came from it is
// explained by it, not counted as a loss. An unacknowledged ADD_NODE has
// no id, so it explains nothing. A call that returned found == false is
// not logged: it reports that it changed nothing. Payloads are logged as
// their length and a 64-bit hash (see Hash), not their bytes. The bulk
// loads (AddBulkLinks, AddBulkNodes, AddBulkCounts) are not logged: the
// loaded graph is the baseline the audit starts from (check a load with
// the tool's -verify); a load through AddLink and AddNode, by a store
// without bulk loads, is logged like any write.
//
// Each record holds the call's start (read before the call) and end (read
// after it returned), from the monotonic clock, the database name (for a
// view from Database: the tool's dbcount > 1), and the tag of the worker
// that made it (linkbench.WorkerFromContext: t<N> for requester N, l<N>
// for load worker N).
//
// # The log's cost and its writes
//
// The wrapper takes no lock shared between sessions: a record is formatted
// into a buffer of the caller (one per session, or from a sync.Pool for
// calls on the shared store) and written with one write(2) to the log
// file, opened with O_APPEND, so that records of concurrent workers never
// interleave (the kernel appends each write whole). Each session opens the
// file again, so that its writes go through a descriptor of its own; the
// calls on a store without sessions (which the benchmark's drivers call
// from every worker) share one descriptor, whose writes Go serialises.
// The record is in the kernel before the
// call returns: it survives the client being killed, not the machine
// losing power (the log is not synced). On Unix the write(2) is a raw
// system call, which does not wake the Go scheduler's monitor thread (that
// cost 15 % more client CPU per request); a write that blocks (a file
// system short of memory) holds its goroutine's P meanwhile. Measured on
// MariaDB (the README's "Auditing
// acknowledged writes"), the client's CPU per request was within the
// machine's noise of a run without the wrapper, and a CPU profile put 2.4
// % of it in the wrapper's own code.
//
// A record that cannot be written (a full disk) turns the call's result
// into an error wrapping ErrLog (the store acknowledged the write, the
// audit cannot vouch for it); Log.Err and Log.Close return the first such
// error.
//
// # The log format (version 1)
//
// Text, one record per line, fields separated by one space. A log is one
// or more segments (one per Create or Append), each starting with a header
// line
//
//	# linkbench-audit v1 start=2026-12-01T10:00:00.123456789Z pid=4242
//
// whose start is the wall clock when the segment was opened; every
// record's times are nanoseconds since that start, from the monotonic
// clock. Other lines starting with "#" are comments. A record is
//
//	KIND OP DB START END WORKER FIELDS...
//
// KIND is A (acknowledged) or U (unacknowledged attempt: the call returned
// an error); OP is ADD_NODE, UPDATE_NODE, DELETE_NODE, ADD_LINK,
// UPDATE_LINK, DELETE_LINK or RESET_NODES; DB is "-" for the wrapped store
// itself, else the database name (bytes <= ' ', '%' and >= 0x7f written
// %XX); START and END are nanoseconds since the segment's start; WORKER is
// t<N>, l<N> or "-". FIELDS, by OP:
//
//	ADD_NODE, UPDATE_NODE  id type version time len hash  (id "-" for an ADD_NODE attempt)
//	DELETE_NODE            id type
//	ADD_LINK, UPDATE_LINK  id1 link_type id2 visibility version time len hash
//	DELETE_LINK            id1 link_type id2 expunge      (expunge: 0 hide, 1 remove)
//	RESET_NODES            start_id
//
// len is the payload's length in bytes, hash the 16 hexadecimal digits of
// Hash(payload). For example:
//
//	A ADD_LINK - 1204711 1498210 t3 1842 123456789 77 1 0 1764583200123 18 3f1c9a02b77e0d41
//	U UPDATE_NODE linkdb1 2290113 2290999 t0 55 2048 2 1764583200 131 9d0f3e11a2c4b5e6
//
// # The verdicts
//
// Verify reads the log's keys from the store (GetNode, GetLink; several
// readers at once) and judges every acknowledged write W against the
// store's row S of its key (node: db, id; link: db, id1, link_type, id2):
//
//   - present: S shows what W wrote: ADD_NODE and UPDATE_NODE: the node
//     exists with W's version, time and payload; DELETE_NODE: it is absent;
//     ADD_LINK and UPDATE_LINK: the link exists with W's visibility,
//     version, time and payload; a hide: the link exists, hidden; an
//     expunge: it is absent.
//   - superseded: S does not show W, but every part of S that differs
//     from W (the row's existence; a node's or link's version, time and
//     payload together; a link's visibility) was written with S's value by
//     another write W' of the same key (acknowledged, or an unacknowledged
//     attempt) that may have taken effect after W, which is when W' had not
//     returned when W started (W'.end > W.start). So a write that returned
//     before another started took effect before it, and two writes that
//     overlapped in time may have taken effect in either order. A node that
//     is absent is also explained by a RESET_NODES of its database that may
//     follow W, and an absent row by any delete of it that may follow W; a
//     link that is present but should be absent by a later add. For example
//     an ADD_LINK whose row a later hide made HIDDEN, with W's version, time
//     and payload, is superseded.
//   - lost: neither.
//
// ADD_NODE ids come from the store's sequence, so a second acknowledged
// ADD_NODE of an id starts a new node under it: the writes made before it
// (from the earlier ADD_NODE on) are judged against an absent row (their
// node is gone) and cannot be superseded by the writes after it. Without a
// RESET_NODES of the database between the two, the sequence went back (a
// crash lost the first node with the sequence's advance): the id counts as
// reissued (Result.Reissued), and the first ADD_NODE is lost unless a
// delete of its node explains its absence.
//
// # What the audit proves, and what it cannot
//
// A lost write is a write the store acknowledged and does not show, with
// no later write to explain it: for a store that applies writes
// atomically and in an order consistent with real time, a real loss. A
// run with no loss shows that every acknowledged write was either still
// there or overwritten by a write that may have followed it. It cannot
// see:
//
//   - a write the store acknowledged without doing it, when the row
//     already held the same values (same version, time and payload hash);
//     nor payload differences the 64-bit hash does not tell apart;
//   - a loss masked by a later write to the same key (a lost ADD_LINK
//     whose row a later ADD_LINK overwrote is superseded, not lost);
//   - the effect of an unacknowledged attempt that lands after its error
//     returned (a statement the server still ran after the client gave
//     up): the verdict assumes that a call's effect happens before it
//     returns;
//   - a delete that reported found == false although it deleted (a store
//     that retries a delete whose first try took effect may report the
//     second try's miss): it is not logged, so an earlier write to that
//     row then counts as lost (the MySQL and PostgreSQL stores report such
//     a DELETE_NODE as found, and count it ambiguous);
//   - the count table (the number of visible links per id1 and
//     link_type): the tool's -verify checks it; and reads, which are not
//     logged.
package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/store"
)

// ErrLog is wrapped by the error of a store call whose record could not be
// written to the log (the call's own result is then dropped), and by
// Log.Err, Log.Close and the Session method after a failed write or open.
var ErrLog = errors.New("audit: log write failed")

// ErrClosed is wrapped by the error of a write call made through a
// wrapper of a closed Log.
var ErrClosed = errors.New("audit: log closed")

// Log is an open audit log: a file the stores returned by Wrap append
// their records to. It is safe for concurrent use. Close it after the
// last call of its stores.
type Log struct {
	path   string // absolute
	f      *os.File
	base   time.Time // the segment's start (monotonic reading included)
	closed atomic.Bool
	mu     sync.Mutex // guards err (set on the cold path only)
	err    error
	shared sync.Pool // *sessionWriter on f: the shared stores' calls
}

// Create opens a new log at path (truncating an existing file) and writes
// its header. Errors: the file's.
func Create(path string) (*Log, error) {
	return open(path, os.O_TRUNC)
}

// Append opens the log at path for appending (creating it if missing)
// and starts a new segment (a header line): the records of several runs
// against the same database can share one log. Errors: the file's.
func Append(path string) (*Log, error) {
	return open(path, 0)
}

func open(path string, flag int) (*Log, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_APPEND|flag, 0o644)
	if err != nil {
		return nil, err
	}
	l := &Log{path: abs, f: f, base: time.Now()}
	l.shared.New = func() any { return &sessionWriter{fw: newFileWriter(f), buf: make([]byte, 0, 256)} }
	if _, err := f.Write(appendHeader(nil, l.base, os.Getpid())); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrLog, abs, err)
	}
	return l, nil
}

// Path returns the log's absolute path.
func (l *Log) Path() string { return l.path }

// Err returns the first error of a record write (wrapping ErrLog), or nil.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (l *Log) fail(err error) error {
	err = fmt.Errorf("%w: %s: %w", ErrLog, l.path, err)
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
	return err
}

// Close closes the log file. Calls through its stores made after Close
// fail with ErrClosed (a write) or are not logged (a read). It returns
// the first record write error (see Err), else the file's Close error.
// A second Close returns nil.
func (l *Log) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	cerr := l.f.Close()
	if err := l.Err(); err != nil {
		return err
	}
	return cerr
}

// Wrap returns st with every acknowledged write (and every failed write
// attempt) logged to l. Its per-database views (Database) and sessions
// (Session) are wrapped too, and it has st's capabilities.
func (l *Log) Wrap(st store.Store) store.Store {
	return l.wrap(st, "", nil)
}

func (l *Log) wrap(st store.Store, db string, w *sessionWriter) *auditStore {
	s := &auditStore{log: l, db: db, w: w}
	s.Forward = store.Forward{Inner: st, Wrap: func(inner store.Store) store.Store { return l.wrap(inner, db, nil) }}
	return s
}

// sessionWriter is a session's own descriptor of the log and its buffer:
// used by one goroutine at a time.
type sessionWriter struct {
	fw  *fileWriter
	buf []byte
}

// auditStore logs the writes of Inner.
type auditStore struct {
	store.Forward
	log *Log
	db  string         // "" for the store given to Wrap
	w   *sessionWriter // nil: a store shared by goroutines
}

// now returns the nanoseconds since the log's segment start (monotonic).
func (s *auditStore) now() int64 { return int64(time.Since(s.log.base)) }

// begin returns the writer of a record, its buffer empty: the session's,
// or one from the pool for a shared store (given back by end).
func (s *auditStore) begin() *sessionWriter {
	w := s.w
	if w == nil {
		w = s.log.shared.Get().(*sessionWriter)
	}
	w.buf = w.buf[:0]
	return w
}

// end writes the record in w.buf with one write(2) and returns an error
// wrapping ErrLog (or ErrClosed) when it could not.
func (s *auditStore) end(w *sessionWriter) error {
	l := s.log
	var err error
	if l.closed.Load() {
		err = ErrClosed
	} else if werr := w.fw.write(w.buf); werr != nil {
		err = l.fail(werr)
	}
	if w != s.w && cap(w.buf) <= 64<<10 {
		l.shared.Put(w)
	}
	return err
}

// prefix appends the common fields of a record of ctx's call.
func (s *auditStore) prefix(b []byte, ctx context.Context, acked bool, op Op, t0, t1 int64) []byte {
	var tag [24]byte
	w := tag[:0]
	if wk, ok := linkbench.WorkerFromContext(ctx); ok {
		if wk.Phase == stats.PhaseLoad {
			w = append(w, 'l')
		} else {
			w = append(w, 't')
		}
		w = strconv.AppendInt(w, int64(wk.ID), 10)
	}
	return appendPrefix(b, acked, op, s.db, t0, t1, w)
}

// result merges a call's error with its record's.
func result(callErr, logErr error) error {
	if callErr != nil || logErr == nil {
		return callErr
	}
	return logErr
}

// AddLink calls Inner.AddLink and logs an ADD_LINK record.
func (s *auditStore) AddLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	t0 := s.now()
	r, err := s.Inner.AddLink(ctx, l, noInverse)
	t1 := s.now()
	b := s.begin()
	b.buf = appendLink(s.prefix(b.buf, ctx, err == nil, AddLink, t0, t1), &l)
	if err = result(err, s.end(b)); err != nil {
		return 0, err
	}
	return r, nil
}

// UpdateLink calls Inner.UpdateLink and logs an UPDATE_LINK record.
func (s *auditStore) UpdateLink(ctx context.Context, l store.Link, noInverse bool) (store.WriteResult, error) {
	t0 := s.now()
	r, err := s.Inner.UpdateLink(ctx, l, noInverse)
	t1 := s.now()
	b := s.begin()
	b.buf = appendLink(s.prefix(b.buf, ctx, err == nil, UpdateLink, t0, t1), &l)
	if err = result(err, s.end(b)); err != nil {
		return 0, err
	}
	return r, nil
}

// DeleteLink calls Inner.DeleteLink and logs a DELETE_LINK record unless
// the store found no link.
func (s *auditStore) DeleteLink(ctx context.Context, id1, linkType, id2 int64, noInverse, expunge bool) (bool, error) {
	t0 := s.now()
	found, err := s.Inner.DeleteLink(ctx, id1, linkType, id2, noInverse, expunge)
	if err == nil && !found {
		return false, nil
	}
	t1 := s.now()
	b := s.begin()
	x := int64(0)
	if expunge {
		x = 1
	}
	b.buf = append(appendInts(s.prefix(b.buf, ctx, err == nil, DeleteLink, t0, t1), id1, linkType, id2, x), '\n')
	if err = result(err, s.end(b)); err != nil {
		return false, err
	}
	return found, nil
}

// AddNode calls Inner.AddNode and logs an ADD_NODE record with the id
// returned.
func (s *auditStore) AddNode(ctx context.Context, n store.Node) (int64, error) {
	t0 := s.now()
	id, err := s.Inner.AddNode(ctx, n)
	t1 := s.now()
	b := s.begin()
	n.ID = id
	b.buf = appendNode(s.prefix(b.buf, ctx, err == nil, AddNode, t0, t1), err == nil, &n)
	if err = result(err, s.end(b)); err != nil {
		return 0, err
	}
	return id, nil
}

// UpdateNode calls Inner.UpdateNode and logs an UPDATE_NODE record unless
// the store found no node.
func (s *auditStore) UpdateNode(ctx context.Context, n store.Node) (bool, error) {
	t0 := s.now()
	found, err := s.Inner.UpdateNode(ctx, n)
	if err == nil && !found {
		return false, nil
	}
	t1 := s.now()
	b := s.begin()
	b.buf = appendNode(s.prefix(b.buf, ctx, err == nil, UpdateNode, t0, t1), true, &n)
	if err = result(err, s.end(b)); err != nil {
		return false, err
	}
	return found, nil
}

// DeleteNode calls Inner.DeleteNode and logs a DELETE_NODE record unless
// the store found no node.
func (s *auditStore) DeleteNode(ctx context.Context, nodeType int32, id int64) (bool, error) {
	t0 := s.now()
	found, err := s.Inner.DeleteNode(ctx, nodeType, id)
	if err == nil && !found {
		return false, nil
	}
	t1 := s.now()
	b := s.begin()
	b.buf = append(appendInts(s.prefix(b.buf, ctx, err == nil, DeleteNode, t0, t1), id, int64(nodeType)), '\n')
	if err = result(err, s.end(b)); err != nil {
		return false, err
	}
	return found, nil
}

// ResetNodeStore calls Inner.ResetNodeStore and logs a RESET_NODES record.
func (s *auditStore) ResetNodeStore(ctx context.Context, startID int64) error {
	t0 := s.now()
	err := s.Inner.ResetNodeStore(ctx, startID)
	t1 := s.now()
	b := s.begin()
	b.buf = append(appendInts(s.prefix(b.buf, ctx, err == nil, ResetNodes, t0, t1), startID), '\n')
	return result(err, s.end(b))
}

// Database returns Inner's view of the database name, wrapped: its records
// name the database.
func (s *auditStore) Database(ctx context.Context, name string) (store.Store, error) {
	d, ok := store.AsDatabases(s.Inner)
	if !ok {
		return nil, fmt.Errorf("audit: %T has no Database: %w", s.Inner, errors.ErrUnsupported)
	}
	v, err := d.Database(ctx, name)
	if err != nil {
		return nil, err
	}
	return s.log.wrap(v, name, nil), nil
}

// Session opens a session of Inner, wrapped, with a descriptor of the log
// of its own; closing it closes both. Errors: Inner's, or opening the log
// file again (wrapping ErrLog).
func (s *auditStore) Session(ctx context.Context) (store.Session, error) {
	ss, ok := store.AsSessions(s.Inner)
	if !ok {
		return nil, fmt.Errorf("audit: %T has no Session: %w", s.Inner, errors.ErrUnsupported)
	}
	if s.log.closed.Load() {
		return nil, ErrClosed
	}
	f, err := os.OpenFile(s.log.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: a session's descriptor: %w", ErrLog, err)
	}
	sess, err := ss.Session(ctx)
	if err != nil {
		f.Close()
		return nil, err
	}
	w := &sessionWriter{fw: newFileWriter(f), buf: make([]byte, 0, 256)}
	return &auditSession{auditStore: s.log.wrap(sess, s.db, w), sess: sess}, nil
}

// auditSession is a wrapped session: calls are logged through its own
// descriptor; Close closes it and the inner session.
type auditSession struct {
	*auditStore
	sess store.Session
}

// Close closes the session's log descriptor and the inner session.
func (s *auditSession) Close() error {
	ferr := s.w.fw.f.Close()
	return errors.Join(s.sess.Close(), ferr)
}

// Interface checks: the wrapper keeps every capability's methods.
var (
	_ store.Store          = (*auditStore)(nil)
	_ store.BulkLinkLoader = (*auditStore)(nil)
	_ store.BulkNodeLoader = (*auditStore)(nil)
	_ store.Databases      = (*auditStore)(nil)
	_ store.Checker        = (*auditStore)(nil)
	_ store.Sessions       = (*auditStore)(nil)
	_ store.Session        = (*auditSession)(nil)
)
