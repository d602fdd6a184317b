// Package pebblestore is LinkBench's data model on Pebble
// (github.com/cockroachdb/pebble/v2), CockroachDB's LSM key-value store,
// in one directory, laid out as MyRocks lays out LinkBench's tables on
// RocksDB: a store.Store that needs no server.
//
//	s, err := pebblestore.Open(ctx, pebblestore.Options{Dir: "/data/linkbench"})
//	...
//	defer s.Close()
//
// It registers as "pebble" (store.Open(ctx, "pebble", dir)), the DSN
// being the directory.
//
// # Key layout
//
// Every key starts with one byte naming its table or index, as MyRocks'
// 4-byte index id does; integers are 8 bytes big-endian with the sign bit
// flipped, so that keys sort as the numbers do (MyRocks' memcomparable
// format). The link table has its primary key and the id1_type secondary
// index, as in LinkBench's MyRocks schema; the index keeps time in
// descending order (MyRocks puts it in a reverse column family,
// "rev:cf_link_id1_type"), so that the newest links of a list come first
// in key order.
//
//	link row         key   'L' | id1 (8) | link_type (8) | id2 (8)                         25 bytes
//	(PRIMARY KEY)    value visibility (1) | version (4) | time (8) | data
//
//	id1_type entry   key   'I' | id1 (8) | link_type (8) | visibility (1) | ^time (8) | id2 (8)   34 bytes
//	(KEY id1_type)   value version (4) | data
//
//	count row        key   'C' | id1 (8) | link_type (8)                                   17 bytes
//	                 value count (8) | time (8) | version (8)
//
//	node row         key   'N' | id (8)                                                    9 bytes
//	                 value type (4) | version (8) | time (4) | data
//
//	metadata         'Mformat' = "linkbench-pebblestore-1"; 'Mnext_node_id' = next id (8), merged with max
//
// ^time is the complement of the encoded time: larger times sort first.
// The index covers GET_LINKS_LIST: GetLinkList opens one iterator bounded
// to the (id1, link_type, visible) keys with time in [MinTime, MaxTime],
// positioned at MaxTime; it skips Offset entries and reads Limit, newest
// first (ties by id2 ascending), never touching the link rows. Hidden
// links keep their index entry, under visibility 0, as in MyRocks. GetLink
// and MultigetLinks read link rows by primary key (a point Get, which the
// bloom filters serve), CountLinks the count row.
//
// # Atomicity and locking
//
// A link write (AddLink, UpdateLink, DeleteLink) reads the link row, then
// writes the link row, its index entry (deleting the old one when
// visibility or time change) and the count row in one Pebble batch: all
// or nothing, as in LinkBench's SQL transactions. Count rows change as in
// LinkBench's SQL stores: an inserted link adds 1 if visible (a hidden
// one still creates the row), a visibility change adds +1 or -1, an
// unchanged write (LinkNoChange) writes nothing. Writers of one id1 are
// serialised by one of 1024 striped mutexes (the id1's hash), which covers
// the read-modify-write of the link and count rows; writers of other id1s
// go on in parallel, and readers take no lock. With WAL sync on, the
// mutex is released once the batch is in the memtable, before the fsync
// (Pebble syncs the batches waiting together): a write that saw it is
// behind it in the WAL, so it never survives a crash without it. The call
// returns after the fsync.
//
// Node writes that read first (UpdateNode, DeleteNode) take the node id's
// stripe. AddNode takes none: ids come from an atomic counter, and each
// AddNode batch merges "next id = id + 1" into 'Mnext_node_id' with a max
// merge operator, so batches that commit out of order still leave the
// largest; Open restarts the sequence past both it and the largest node
// id. ResetNodeStore deletes the node rows with one range deletion and
// sets the sequence. Bulk loads (AddBulkLinks, AddBulkCounts,
// AddBulkNodes) write one batch per call, sorted by key, under the stripes
// of the id1s they touch. AddBulkLinks looks for stored links with one
// iterator over the batch's key range (one seek when the range is empty,
// as in a load), so that loading over an existing link leaves no stale
// index entry.
//
// Reads copy what they return out of Pebble's memory: a value Pebble
// returns lives only until its closer is closed. A call in flight holds
// Close off (per-call counters spread over 64 cache lines, no shared
// lock); calls after Close fail with store.ErrClosed, and a second Close
// returns the first one's result. Pebble's lock file refuses a second
// Open of the directory, from this process or another (ErrLocked).
//
// # Options
//
// Options has the knobs a LinkBench run varies, each with its unit and
// default (compression "snappy", 16 KiB blocks, a 256 MiB block cache of
// which Pebble reserves 128 MiB for the memtables, bloom filters of 10
// bits per key, 64 MiB memtables, L0 compaction at 4 sublevels and write
// stop at 12, up to 2 concurrent compactions, WAL sync on), and an
// OPTIONS file in Pebble's own format for the rest. Options.String and
// ParseOptions convert it to and from a one-line text form; Store.Options
// and Store.PebbleOptions return what is in effect (for a result file).
//
// # Metrics
//
// Store.Metrics returns a snapshot of Pebble's cumulative counters (bytes
// written to the WAL, by flushes and by compactions; block cache hits and
// misses; write stalls and their time, counted from Pebble's event
// listener) and its state (read amplification, live and total size on
// disk, compaction debt); Diff of two snapshots gives an interval's
// figures, with its write amplification and cache hit rate, which are
// missing (ok false) rather than 0 when the interval has nothing to
// divide by. With Options.Logger set, Pebble's events (flushes,
// compactions, stalls) are logged to it at slog.LevelDebug, its errors
// at slog.LevelError.
package pebblestore
