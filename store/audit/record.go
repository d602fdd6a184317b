package audit

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/linkbench-go/linkbench/store"
)

// Version is the version of the log format this package writes and reads,
// the number in each segment's header line.
const Version = 1

// headerPrefix starts every segment's header line.
const headerPrefix = "# linkbench-audit v"

// Op is a logged write: one of LinkBench's six write operations, or a
// ResetNodeStore.
type Op uint8

// The logged operations, named as LinkBench names them.
const (
	AddNode    Op = iota // ADD_NODE: AddNode
	UpdateNode           // UPDATE_NODE: UpdateNode
	DeleteNode           // DELETE_NODE: DeleteNode
	AddLink              // ADD_LINK: AddLink
	UpdateLink           // UPDATE_LINK: UpdateLink
	DeleteLink           // DELETE_LINK: DeleteLink (hide or expunge)
	ResetNodes           // RESET_NODES: ResetNodeStore (not one of the six; not counted in Result.Ops)
	numOps
)

// NumOps is the number of the six write operations (AddNode..DeleteLink),
// the length of Result.Ops.
const NumOps = int(ResetNodes)

var opNames = [...]string{"ADD_NODE", "UPDATE_NODE", "DELETE_NODE", "ADD_LINK", "UPDATE_LINK", "DELETE_LINK", "RESET_NODES"}

// String returns LinkBench's name of the operation (ADD_LINK, ...).
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

func parseOp(s string) (Op, bool) {
	for i, n := range opNames {
		if n == s {
			return Op(i), true
		}
	}
	return 0, false
}

// isNode reports whether o writes the node table.
func (o Op) isNode() bool {
	return o == AddNode || o == UpdateNode || o == DeleteNode || o == ResetNodes
}

// Record is one line of the log: a write call and what the store answered.
type Record struct {
	// Acked is true for a write the store acknowledged (the call returned
	// no error and, for UPDATE_NODE, DELETE_NODE and DELETE_LINK, found
	// the row), false for an unacknowledged attempt (the call returned an
	// error: it may or may not have taken effect).
	Acked bool
	Op    Op
	// DB is the database: "" for the store given to Log.Wrap, else the
	// name given to its Database method.
	DB string
	// Start and End are the call's start and the time it returned
	// (acknowledgement or error), in nanoseconds since the Unix epoch: the
	// segment's wall-clock start plus monotonic offsets, so that records
	// of one segment order exactly.
	Start, End int64
	// Worker is the tag of the worker that made the call: t<N> for
	// requester N, l<N> for load worker N, "" when unknown.
	Worker string

	// ID is the node id (ADD_NODE: the id returned, -1 for an attempt,
	// which returned none; RESET_NODES: the start id) or the link's id1.
	ID       int64
	NodeType int32 // nodes: the node type
	LinkType int64 // links: link_type
	ID2      int64 // links: id2

	// The written values (ADD_*, UPDATE_*): the link's visibility, the
	// version and time, the payload's length and hash (see Hash).
	Visibility store.Visibility
	Version    int64
	Time       int64
	Len        int
	Hash       uint64
	// Expunge: a DELETE_LINK that removes the row instead of hiding it.
	Expunge bool
}

// castagnoli is the CRC-32C table (hardware-accelerated where available).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Hash returns the hash the log records for a payload: its CRC-32C
// (Castagnoli) in the high 32 bits and its CRC-32 (IEEE) in the low 32,
// two hardware-accelerated checksums with different polynomials (about 50
// ns for LinkBench's median payloads). It detects a changed payload, not a
// forged one.
func Hash(data []byte) uint64 {
	return uint64(crc32.Checksum(data, castagnoli))<<32 | uint64(crc32.ChecksumIEEE(data))
}

// appendDB appends the database field: "-" for "", else name with the
// bytes <= ' ', '%' and >= 0x7f percent-encoded.
func appendDB(b []byte, name string) []byte {
	if name == "" {
		return append(b, '-')
	}
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c == '%' || c >= 0x7f {
			b = append(b, '%', hexDigits[c>>4], hexDigits[c&15])
			continue
		}
		b = append(b, c)
	}
	return b
}

func parseDB(s string) (string, error) {
	if s == "-" {
		return "", nil
	}
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("database %q: bad %%-escape", s)
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("database %q: bad %%-escape", s)
		}
		b = append(b, byte(v))
		i += 2
	}
	return string(b), nil
}

// appendHeader appends a segment's header line.
func appendHeader(b []byte, start time.Time, pid int) []byte {
	b = append(b, headerPrefix...)
	b = strconv.AppendInt(b, Version, 10)
	b = append(b, " start="...)
	b = start.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, " pid="...)
	b = strconv.AppendInt(b, int64(pid), 10)
	return append(b, '\n')
}

// appendPrefix appends a record's common fields: kind, op, db, start and
// end (offsets in ns) and worker, each followed by a space.
func appendPrefix(b []byte, acked bool, op Op, db string, start, end int64, worker []byte) []byte {
	if acked {
		b = append(b, 'A', ' ')
	} else {
		b = append(b, 'U', ' ')
	}
	b = append(b, opNames[op]...)
	b = append(b, ' ')
	b = appendDB(b, db)
	b = append(b, ' ')
	b = strconv.AppendInt(b, start, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, end, 10)
	b = append(b, ' ')
	if len(worker) == 0 {
		b = append(b, '-')
	} else {
		b = append(b, worker...)
	}
	return append(b, ' ')
}

func appendInts(b []byte, vs ...int64) []byte {
	for i, v := range vs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	return b
}

func appendHash(b []byte, h uint64) []byte {
	const hexDigits = "0123456789abcdef"
	for s := 60; s >= 0; s -= 4 {
		b = append(b, hexDigits[(h>>s)&15])
	}
	return b
}

// appendNode appends the fields of ADD_NODE and UPDATE_NODE: id (or "-"
// when idKnown is false) type version time len hash, and the line's end.
func appendNode(b []byte, idKnown bool, n *store.Node) []byte {
	if idKnown {
		b = strconv.AppendInt(b, n.ID, 10)
	} else {
		b = append(b, '-')
	}
	b = append(b, ' ')
	b = appendInts(b, int64(n.Type), n.Version, int64(n.Time), int64(len(n.Data)))
	b = append(b, ' ')
	b = appendHash(b, Hash(n.Data))
	return append(b, '\n')
}

// appendLink appends the fields of ADD_LINK and UPDATE_LINK: id1 link_type
// id2 visibility version time len hash, and the line's end.
func appendLink(b []byte, l *store.Link) []byte {
	b = appendInts(b, l.ID1, l.LinkType, l.ID2, int64(l.Visibility), int64(l.Version), l.Time, int64(len(l.Data)))
	b = append(b, ' ')
	b = appendHash(b, Hash(l.Data))
	return append(b, '\n')
}

// segment is the state of the reader within a segment.
type segment struct {
	base int64 // wall-clock start, ns since the epoch
	seen bool
}

// ReadFile reads the records of the log at path (every segment). Errors
// name the file and line: a missing or malformed header, an unknown
// version, a malformed record.
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads the records of a log from r; name is used in errors
// (name:line: ...). A log is one or more segments, each a header line
// ("# linkbench-audit v1 start=<RFC 3339> pid=<n>") and its records; other
// lines starting with "#" are comments.
func Read(r io.Reader, name string) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var out []Record
	var seg segment
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" {
			continue
		}
		if strings.HasPrefix(text, "#") {
			if !strings.HasPrefix(text, headerPrefix) {
				continue
			}
			s, err := parseHeader(text)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			seg = s
			continue
		}
		if !seg.seen {
			return nil, fmt.Errorf("%s:%d: a record before the first header line (want %q...): not an audit log", name, line, headerPrefix)
		}
		rec, err := parseRecord(text, seg.base)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if !seg.seen {
		return nil, fmt.Errorf("%s: no header line (%q...): not an audit log", name, headerPrefix)
	}
	return out, nil
}

func parseHeader(text string) (segment, error) {
	f := strings.Fields(strings.TrimPrefix(text, headerPrefix))
	if len(f) == 0 {
		return segment{}, errors.New("header without a version")
	}
	if v, err := strconv.Atoi(f[0]); err != nil || v != Version {
		return segment{}, fmt.Errorf("log format version %q: this reader knows version %d", f[0], Version)
	}
	s := segment{seen: true}
	found := false
	for _, kv := range f[1:] {
		if v, ok := strings.CutPrefix(kv, "start="); ok {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return segment{}, fmt.Errorf("header start=%q: %w", v, err)
			}
			s.base, found = t.UnixNano(), true
		}
	}
	if !found {
		return segment{}, errors.New("header without start=")
	}
	return s, nil
}

// fieldsWant is the number of fields of each op's record.
var fieldsWant = [numOps]int{
	AddNode: 6 + 6, UpdateNode: 6 + 6, DeleteNode: 6 + 2,
	AddLink: 6 + 8, UpdateLink: 6 + 8, DeleteLink: 6 + 4, ResetNodes: 6 + 1,
}

func parseRecord(text string, base int64) (Record, error) {
	f := strings.Split(text, " ")
	var r Record
	if len(f) < 6 {
		return r, fmt.Errorf("record %q: too few fields", text)
	}
	switch f[0] {
	case "A":
		r.Acked = true
	case "U":
	default:
		return r, fmt.Errorf("record %q: kind %q, want A or U", text, f[0])
	}
	op, ok := parseOp(f[1])
	if !ok {
		return r, fmt.Errorf("record %q: unknown operation %q", text, f[1])
	}
	r.Op = op
	if len(f) != fieldsWant[op] {
		return r, fmt.Errorf("record %q: %d fields, want %d for %s", text, len(f), fieldsWant[op], op)
	}
	var err error
	if r.DB, err = parseDB(f[2]); err != nil {
		return r, err
	}
	// ints parses the fields from f[i] on; "-" is -1 where dashOK.
	var perr error
	num := func(s string, dashOK bool) int64 {
		if dashOK && s == "-" {
			return -1
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil && perr == nil {
			perr = fmt.Errorf("record %q: field %q: want an integer", text, s)
		}
		return v
	}
	r.Start, r.End = base+num(f[3], false), base+num(f[4], false)
	if f[5] != "-" {
		r.Worker = f[5]
	}
	v := f[6:]
	switch op {
	case AddNode, UpdateNode:
		r.ID = num(v[0], op == AddNode && !r.Acked)
		r.NodeType, r.Version, r.Time, r.Len = int32(num(v[1], false)), num(v[2], false), num(v[3], false), int(num(v[4], false))
		r.Hash, err = strconv.ParseUint(v[5], 16, 64)
	case DeleteNode:
		r.ID, r.NodeType = num(v[0], false), int32(num(v[1], false))
	case AddLink, UpdateLink:
		r.ID, r.LinkType, r.ID2 = num(v[0], false), num(v[1], false), num(v[2], false)
		r.Visibility, r.Version, r.Time, r.Len = store.Visibility(num(v[3], false)), num(v[4], false), num(v[5], false), int(num(v[6], false))
		r.Hash, err = strconv.ParseUint(v[7], 16, 64)
	case DeleteLink:
		r.ID, r.LinkType, r.ID2 = num(v[0], false), num(v[1], false), num(v[2], false)
		switch v[3] {
		case "0":
		case "1":
			r.Expunge = true
		default:
			return r, fmt.Errorf("record %q: expunge %q, want 0 or 1", text, v[3])
		}
	case ResetNodes:
		r.ID = num(v[0], false)
	}
	if perr != nil {
		return r, perr
	}
	if err != nil {
		return r, fmt.Errorf("record %q: hash: want 16 hex digits", text)
	}
	if r.End < r.Start {
		return r, fmt.Errorf("record %q: ends before it starts", text)
	}
	return r, nil
}
