package pebblestore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/linkbench-go/linkbench/store"
)

// ErrLocked is wrapped by the error of Open when the directory is in use
// by another open Store, in this process or another (Pebble's lock file
// LOCK is held).
var ErrLocked = errors.New("directory in use")

// ErrNotStore is wrapped by the error of Open when the directory holds a
// Pebble database that this package did not write (or wrote in another
// layout).
var ErrNotStore = errors.New("not a pebblestore database")

// numStripes is the number of mutexes the writes to links (by id1) and
// to nodes (by id) are spread over: writers of one id1 are serialised,
// writers of different id1s almost never wait for each other.
const (
	stripeBits = 10
	numStripes = 1 << stripeBits
)

// numGates is the number of in-flight counters calls are spread over.
const numGates = 64

// stripe is a mutex on its own cache line.
type stripe struct {
	mu sync.Mutex
	_  [64 - 8]byte
}

// gate counts the calls in flight on one of numGates counters, on its own
// cache line, so that Close can wait for them without a lock shared by
// every call.
type gate struct {
	n atomic.Int64
	_ [64 - 8]byte
}

// Store is LinkBench's data model on a Pebble database: nodes, links, the
// id1_type index and link counts laid out as MyRocks lays out LinkBench's
// tables (see the package documentation). It is safe for concurrent use;
// Close it when done.
type Store struct {
	db    *pebble.DB
	lock  *pebble.Lock
	set   *settings
	sync  *pebble.WriteOptions
	stall *stallCounter

	// nextNode is the next id AddNode allocates.
	nextNode atomic.Int64

	links [numStripes]stripe // by id1
	nodes [numStripes]stripe // by node id
	gates [numGates]gate

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// Open opens (creating it if needed) the store in o.Dir with options o:
// defaults fill the zero fields, then every problem with the options is
// reported at once (*OptionError values, joined). The directory is locked
// until Close: a second Open of it, from this process or another, fails
// with an error wrapping ErrLocked. A directory holding another Pebble
// database is refused (ErrNotStore).
func Open(ctx context.Context, o Options) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pebblestore: Open: %w", err)
	}
	set, err := resolve(o)
	if err != nil {
		return nil, err
	}
	dir := o.Dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pebblestore: %w", err)
	}
	lock, err := pebble.LockDirectory(dir, vfs.Default)
	if err != nil {
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) { // the lock file cannot be created
			return nil, fmt.Errorf("pebblestore: %w", err)
		}
		return nil, fmt.Errorf("pebblestore: open %s: %w: another store has it open, in this process or another (%w)", dir, ErrLocked, err)
	}
	if err := checkForeign(dir); err != nil {
		_ = lock.Close()
		return nil, err
	}
	s := &Store{set: set, sync: set.sync, stall: newStallCounter(), lock: lock}
	p := set.pebble.Clone()
	p.Lock = lock
	if o.Logger != nil {
		p.Logger = slogLogger{o.Logger}
	} else {
		p.Logger = discardLogger{}
	}
	l := s.stall.listener(o.Logger)
	p.EventListener = &l
	db, err := pebble.Open(dir, p)
	if err != nil {
		_ = lock.Close()
		return nil, fmt.Errorf("pebblestore: open %s: %w", dir, err)
	}
	s.db = db
	if err := s.init(); err != nil {
		_ = db.Close()
		_ = lock.Close()
		return nil, err
	}
	return s, nil
}

// checkForeign refuses a directory whose Pebble OPTIONS file names
// another merger than the store's: a database another program wrote
// (which Pebble itself would refuse with a less telling error).
func checkForeign(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	if err != nil || len(files) == 0 {
		return nil // a new database, or Pebble will say what is wrong
	}
	latest, num := "", uint64(0)
	for _, f := range files {
		n, err := strconv.ParseUint(strings.TrimPrefix(filepath.Base(f), "OPTIONS-"), 10, 64)
		if err == nil && n >= num {
			latest, num = f, n
		}
	}
	if latest == "" {
		return nil
	}
	text, err := os.ReadFile(latest)
	if err != nil {
		return fmt.Errorf("pebblestore: %w", err)
	}
	for line := range strings.Lines(string(text)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "merger="); ok && v != mergerName {
			return fmt.Errorf("pebblestore: open %s: %w (its merger is %q, not %q)", dir, ErrNotStore, v, mergerName)
		}
	}
	return nil
}

// init checks the directory's format (writing it into a new database)
// and loads the node id sequence.
func (s *Store) init() error {
	v, closer, err := s.db.Get(metaFormat)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		it, err := s.db.NewIter(nil)
		if err != nil {
			return fmt.Errorf("pebblestore: %w", err)
		}
		empty := !it.First()
		if err := errors.Join(it.Error(), it.Close()); err != nil {
			return fmt.Errorf("pebblestore: %w", err)
		}
		if !empty {
			return fmt.Errorf("pebblestore: open %s: %w (it has no %q key)", s.set.opts.Dir, ErrNotStore, metaFormat)
		}
		if err := s.db.Set(metaFormat, []byte(formatVersion), pebble.Sync); err != nil {
			return fmt.Errorf("pebblestore: %w", err)
		}
	case err != nil:
		return fmt.Errorf("pebblestore: %w", err)
	default:
		got := string(v)
		_ = closer.Close()
		if got != formatVersion {
			return fmt.Errorf("pebblestore: open %s: %w (format %q, want %q)", s.set.opts.Dir, ErrNotStore, got, formatVersion)
		}
	}
	next, err := s.loadSequence()
	if err != nil {
		return err
	}
	s.nextNode.Store(next)
	return nil
}

// loadSequence returns the next node id: the stored sequence, and past
// the largest node id (a fresh database starts at 1, as AUTO_INCREMENT
// does).
func (s *Store) loadSequence() (int64, error) {
	next := int64(1)
	v, closer, err := s.db.Get(metaNextNodeID)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
	case err != nil:
		return 0, fmt.Errorf("pebblestore: %w", err)
	default:
		next, err = decodeSequence(v)
		_ = closer.Close()
		if err != nil {
			return 0, err
		}
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixNode}, UpperBound: prefixEnd(prefixNode)})
	if err != nil {
		return 0, fmt.Errorf("pebblestore: %w", err)
	}
	if it.Last() {
		next = max(next, getInt(it.Key()[1:])+1)
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return 0, fmt.Errorf("pebblestore: %w", err)
	}
	return next, nil
}

// Close waits for the calls in flight, closes the database and releases
// the directory. Later calls return errors wrapping store.ErrClosed; a
// second Close returns the first one's result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		for i := range s.gates {
			for wait := time.Microsecond; s.gates[i].n.Load() != 0; wait = min(2*wait, time.Millisecond) {
				time.Sleep(wait)
			}
		}
		s.closeErr = s.db.Close()
		if err := s.lock.Close(); err != nil && s.closeErr == nil {
			s.closeErr = err
		}
		if s.closeErr != nil {
			s.closeErr = fmt.Errorf("pebblestore: Close: %w", s.closeErr)
		}
	})
	return s.closeErr
}

// enter admits a call: it fails if ctx is done or the store closed, else
// counts the call in flight until leave.
func (s *Store) enter(ctx context.Context, op string) (*gate, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pebblestore: %s: %w", op, err)
	}
	g := &s.gates[rand.Uint32()%numGates]
	g.n.Add(1)
	if s.closed.Load() {
		g.n.Add(-1)
		return nil, fmt.Errorf("pebblestore: %s: %w", op, store.ErrClosed)
	}
	return g, nil
}

func leave(g *gate) { g.n.Add(-1) }

// Options returns the options in effect: the Options given to Open with
// the defaults filled in and the OPTIONS file's values of the fields it
// names. Compression, BlockSize and BloomBitsPerKey are zero when the
// levels do not all have the same (PebbleOptions has them per level).
func (s *Store) Options() Options { return s.set.opts }

// PebbleOptions returns the options in effect as Pebble's OPTIONS text
// (the format Pebble writes into the directory and Options.Parse reads),
// after the defaults and the OPTIONS file: the engine's settings for a
// result file.
func (s *Store) PebbleOptions() string { return s.set.text }

// Metrics returns a snapshot of the engine's counters; Diff of two
// snapshots gives an interval's figures. Errors: store.ErrClosed
// (wrapped) after Close.
func (s *Store) Metrics() (Metrics, error) {
	g, err := s.enter(context.Background(), "Metrics")
	if err != nil {
		return Metrics{}, err
	}
	defer leave(g)
	return snapshot(time.Now(), s.db.Metrics(), s.stall), nil
}

// Flush flushes the memtables to sstables, so that the size on disk
// (Metrics().LiveSize) covers every write. Errors: ctx's, Pebble's, or
// store.ErrClosed (wrapped).
func (s *Store) Flush(ctx context.Context) error {
	g, err := s.enter(ctx, "Flush")
	if err != nil {
		return err
	}
	defer leave(g)
	if err := s.db.Flush(); err != nil {
		return fmt.Errorf("pebblestore: Flush: %w", err)
	}
	return nil
}

// DB returns the underlying Pebble database, for tools and benchmarks
// that read it directly; writing to it breaks the store's invariants. It
// is closed by Close.
func (s *Store) DB() *pebble.DB { return s.db }

// get reads key into a copy appended to buf[:0]; found is false when the
// key is absent.
func (s *Store) get(key, buf []byte) (v []byte, found bool, err error) {
	val, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return buf[:0], false, nil
	}
	if err != nil {
		return buf[:0], false, err
	}
	v = append(buf[:0], val...)
	err = closer.Close()
	return v, true, err
}

// commit applies b, releasing held (the stripes the write holds; nil for
// none) as soon as the batch is applied: with WAL sync on, the wait for the fsync
// happens after, so that the writers of an id1 queue for the memtable
// write, not for the disk, and Pebble syncs their batches together. A
// later write that saw this one is behind it in the WAL, so it is never
// durable without it. b is closed.
func (s *Store) commit(b *pebble.Batch, held sync.Locker) error {
	var err error
	if s.sync.Sync {
		err = s.db.ApplyNoSyncWait(b, s.sync)
		if held != nil {
			held.Unlock()
		}
		if err == nil {
			err = b.SyncWait()
		}
	} else {
		err = s.db.Apply(b, s.sync)
		if held != nil {
			held.Unlock()
		}
	}
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	return err
}

// linkStripe returns the stripe of id1.
func (s *Store) linkStripe(id1 int64) *stripe { return &s.links[stripeOf(id1)] }

// nodeStripe returns the stripe of node id.
func (s *Store) nodeStripe(id int64) *stripe { return &s.nodes[stripeOf(id)] }

// stripeOf hashes an id to a stripe index (Fibonacci hashing: loaders
// work on consecutive id1s).
func stripeOf(id int64) int {
	return int((uint64(id) * 0x9E3779B97F4A7C15) >> (64 - stripeBits))
}

// Compile-time checks of the capabilities.
var (
	_ store.Store          = (*Store)(nil)
	_ store.BulkLinkLoader = (*Store)(nil)
	_ store.BulkNodeLoader = (*Store)(nil)
	_ store.Checker        = (*Store)(nil)
)
