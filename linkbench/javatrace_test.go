package linkbench

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/internal/testref"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/discard"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// Traces of the Java benchmark (testdata/javatrace, see its README): the
// Java-compatible mode must make the same store calls, stream by stream.
//
// A summary file (gzip) holds, for one configuration:
//
//	# comment lines (provenance)
//	@config key=value            settings applied to DefaultConfig (as -D)
//	@phases load | request | load+request
//	@group TAG KIND lines=N sha256=H head=K tail=M
//	K first lines, then M last lines of the group (canonical form)
//
// Request streams are kept whole (head = all lines); load groups, which run
// to millions of lines, keep their first 1000 and last 100 lines and the
// digest of all.
//
// A group is, for a load stream (tag l<N>), the lines of one kind (the
// call name: bulkLink, bulkCount, bulkAddNode, addLink, addNode) in call
// order, except bulkCount rows, sorted (LinkBench writes an id1's count
// rows in hash-map order, and count batches are flushed independently of
// link batches); for a request stream (t<N>), all its lines in call order,
// with the ids returned by addNode replaced by "?" when several requesters
// share the store (they then depend on thread timing). Comments and batch
// headers are dropped. H is the SHA-256 of the group's lines, each
// followed by "\n".

var javatraceImport = flag.String("javatrace.import", "",
	"directory with manifest.txt and raw Java traces: rewrite testdata/javatrace from them")

const (
	summaryHead = 1000
	summaryTail = 100
)

type traceGroup struct {
	tag, kind  string
	lines      int64
	sum        string // hex SHA-256
	head, tail []string
}

type traceSummary struct {
	comments []string
	config   [][2]string
	phases   string
	groups   []*traceGroup
}

// summarizer canonicalises a trace written to it and summarises its
// groups, without keeping the lines of ordered groups.
type summarizer struct {
	normAddNode bool
	partial     []byte
	groups      map[string]*groupAcc
	order       []string
}

type groupAcc struct {
	tag, kind string
	sorted    bool
	n         int64
	h         hash.Hash
	head      []string
	tail      []string // ring of the last summaryTail lines
	pos       int
	all       []string // sorted groups
}

func newSummarizer(normAddNode bool) *summarizer {
	return &summarizer{normAddNode: normAddNode, groups: map[string]*groupAcc{}}
}

func (s *summarizer) Write(p []byte) (int, error) {
	n := len(p)
	if len(s.partial) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.partial = append(s.partial, p...)
			return n, nil
		}
		s.partial = append(s.partial, p[:i]...)
		s.line(string(s.partial))
		s.partial = s.partial[:0]
		p = p[i+1:]
	}
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.partial = append(s.partial, p...)
			return n, nil
		}
		s.line(string(p[:i]))
		p = p[i+1:]
	}
}

func (s *summarizer) line(l string) {
	if l == "" || l[0] == '#' || isBatchHeader(l) {
		return
	}
	tag, rest, _ := strings.Cut(l, " ")
	kind, _, _ := strings.Cut(rest, " ")
	if tag != "" && tag[0] == 't' {
		kind = "*"
		if s.normAddNode && strings.HasPrefix(rest, "addNode -> ") {
			_, after, _ := strings.Cut(rest[len("addNode -> "):], " ")
			l = tag + " addNode -> ? " + after
		}
	}
	key := tag + " " + kind
	g := s.groups[key]
	if g == nil {
		g = &groupAcc{tag: tag, kind: kind, sorted: kind == "bulkCount", h: sha256.New()}
		s.groups[key] = g
		s.order = append(s.order, key)
	}
	if g.sorted {
		g.all = append(g.all, l)
		return
	}
	g.add(l)
}

func (g *groupAcc) add(l string) {
	g.n++
	g.h.Write([]byte(l))
	g.h.Write([]byte{'\n'})
	if len(g.head) < summaryHead || g.kind == "*" { // request streams: every line
		g.head = append(g.head, l)
		return
	}
	if len(g.tail) < summaryTail {
		g.tail = append(g.tail, l)
		return
	}
	g.tail[g.pos] = l
	g.pos = (g.pos + 1) % summaryTail
}

// summary finishes the groups, ordered by tag then kind.
func (s *summarizer) summary() []*traceGroup {
	if len(s.partial) > 0 {
		s.line(string(s.partial))
		s.partial = nil
	}
	keys := slices.Clone(s.order)
	slices.Sort(keys)
	var out []*traceGroup
	for _, k := range keys {
		g := s.groups[k]
		if g.sorted {
			slices.Sort(g.all)
			for _, l := range g.all {
				g.add(l)
			}
			g.all = nil
		}
		tail := append(slices.Clone(g.tail[g.pos:]), g.tail[:g.pos]...)
		out = append(out, &traceGroup{tag: g.tag, kind: g.kind, lines: g.n,
			sum: hex.EncodeToString(g.h.Sum(nil)), head: g.head, tail: tail})
	}
	return out
}

func readSummary(path string) (*traceSummary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	sum := &traceSummary{}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	var g *traceGroup
	var need, head int
	for sc.Scan() {
		l := sc.Text()
		switch {
		case need > 0:
			if len(g.head) < head {
				g.head = append(g.head, l)
			} else {
				g.tail = append(g.tail, l)
			}
			need--
		case strings.HasPrefix(l, "#"):
			sum.comments = append(sum.comments, l)
		case strings.HasPrefix(l, "@config "):
			k, v, _ := strings.Cut(strings.TrimPrefix(l, "@config "), "=")
			sum.config = append(sum.config, [2]string{k, v})
		case strings.HasPrefix(l, "@phases "):
			sum.phases = strings.TrimPrefix(l, "@phases ")
		case strings.HasPrefix(l, "@group "):
			f := strings.Fields(l)
			if len(f) != 7 {
				return nil, fmt.Errorf("%s: bad group line %q", path, l)
			}
			g = &traceGroup{tag: f[1], kind: f[2]}
			var tail int
			for _, kv := range f[3:] {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "lines":
					g.lines, err = strconv.ParseInt(v, 10, 64)
				case "sha256":
					g.sum = v
				case "head":
					head, err = strconv.Atoi(v)
				case "tail":
					tail, err = strconv.Atoi(v)
				}
				if err != nil {
					return nil, fmt.Errorf("%s: bad group line %q", path, l)
				}
			}
			need = head + tail
			sum.groups = append(sum.groups, g)
		default:
			return nil, fmt.Errorf("%s: unexpected line %q", path, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if need > 0 {
		return nil, fmt.Errorf("%s: truncated", path)
	}
	return sum, nil
}

func writeSummary(path string, s *traceSummary) error {
	var b bytes.Buffer
	for _, c := range s.comments {
		fmt.Fprintln(&b, c)
	}
	for _, kv := range s.config {
		fmt.Fprintf(&b, "@config %s=%s\n", kv[0], kv[1])
	}
	fmt.Fprintf(&b, "@phases %s\n", s.phases)
	for _, g := range s.groups {
		fmt.Fprintf(&b, "@group %s %s lines=%d sha256=%s head=%d tail=%d\n", g.tag, g.kind, g.lines, g.sum, len(g.head), len(g.tail))
		for _, l := range g.head {
			fmt.Fprintln(&b, l)
		}
		for _, l := range g.tail {
			fmt.Fprintln(&b, l)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zw.ModTime = testModTime
	if _, err := zw.Write(b.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// javaTraceConfig is the configuration of a summary: DefaultConfig (the
// shipped LinkConfigMysql.properties + FBWorkload.properties) with the real
// Distribution.dat, rng = java and the summary's settings.
func javaTraceConfig(t testing.TB, s *traceSummary) Config {
	t.Helper()
	cfg := DefaultConfig()
	cfg.RNG = RNGJava
	cfg.DataFile = testref.File(t, "Distribution.dat")
	cfg.Now = fixedClock
	for _, kv := range s.config {
		v := kv[1]
		if kv[0] == "data_file" { // LinkBench's config/NAME: the reference copy of NAME
			v = testref.File(t, strings.TrimPrefix(v, "config/"))
		}
		if err := cfg.Set(kv[0], v); err != nil {
			t.Fatal(err)
		}
	}
	// The Java runs with only -r started from an empty store.
	cfg.AllowEmptyStore = s.phases == "request"
	return cfg
}

// runJavaTrace runs the summary's phases in Java mode and summarises our
// trace. Load-only runs use store/discard (the trace does not depend on
// what the store holds); runs with requests use memstore.
func runJavaTrace(t testing.TB, s *traceSummary) []*traceGroup {
	t.Helper()
	cfg := javaTraceConfig(t, s)
	sm := newSummarizer(cfg.Requesters > 1)
	tr := NewTracer(sm)
	var inner store.Store = memstore.New()
	if s.phases == "load" {
		inner = discard.New()
	}
	st := tr.Wrap(inner)
	ctx := context.Background()
	if strings.Contains(s.phases, "load") {
		if _, err := Load(ctx, cfg, st); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(s.phases, "request") {
		if _, err := Request(ctx, cfg, st); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	return sm.summary()
}

// compareGroups fails at the first difference between our groups and the
// Java ones: a missing or extra group, a sampled line, the line count or
// the digest.
func compareGroups(t *testing.T, got, want []*traceGroup) {
	t.Helper()
	byKey := map[string]*traceGroup{}
	for _, g := range got {
		byKey[g.tag+" "+g.kind] = g
	}
	for _, w := range want {
		k := w.tag + " " + w.kind
		g := byKey[k]
		if g == nil {
			t.Errorf("group %s (%d lines in Java's trace) missing", k, w.lines)
			continue
		}
		delete(byKey, k)
		if d := firstDiff(g.head, w.head); d >= 0 {
			t.Errorf("group %s: line %d differs:\n got: %s\njava: %s", k, d+1, at(g.head, d), at(w.head, d))
			continue
		}
		if d := firstDiff(g.tail, w.tail); d >= 0 {
			t.Errorf("group %s: line %d from the end differs:\n got: %s\njava: %s", k, len(w.tail)-d, at(g.tail, d), at(w.tail, d))
			continue
		}
		if g.lines != w.lines || g.sum != w.sum {
			t.Errorf("group %s: %d lines sha256 %s; Java's trace: %d lines sha256 %s (the difference lies between the sampled lines)",
				k, g.lines, g.sum, w.lines, w.sum)
		}
	}
	for k, g := range byKey {
		t.Errorf("group %s (%d lines) is not in Java's trace", k, g.lines)
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func at(a []string, i int) string {
	if i < len(a) {
		return a[i]
	}
	return "(end of group)"
}

// TestJavaTraces runs every configuration of testdata/javatrace in Java
// mode through Load and Request and compares our store calls with the Java
// benchmark's, group by group (see the summary format above).
func TestJavaTraces(t *testing.T) {
	if *javatraceImport != "" {
		importJavaTraces(t, *javatraceImport)
	}
	files, err := filepath.Glob(filepath.Join("testdata", "javatrace", "*.txt.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Java traces in testdata/javatrace (%v)", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt.gz")
		t.Run(name, func(t *testing.T) {
			want, err := readSummary(f)
			if err != nil {
				t.Fatal(err)
			}
			if (testing.Short() || raceEnabled) && bigJavaLoad(want) {
				t.Skip("a load of millions of links; skipped with -short and -race (smaller loads cover the same code)")
			}
			if raceEnabled && strings.HasPrefix(name, "hist-") {
				t.Skip("lists of 10000 links, 18 s each under the race detector; one requester, the race-free run compares them")
			}
			compareGroups(t, runJavaTrace(t, want), want.groups)
		})
	}
}

// bigJavaLoad reports whether the summary's load writes millions of links.
func bigJavaLoad(s *traceSummary) bool {
	for _, g := range s.groups {
		if g.kind == "bulkLink" && g.lines > 1_000_000 {
			return true
		}
	}
	return false
}

var testModTime = fixedClock()

// importJavaTraces rewrites testdata/javatrace from raw Java traces:
// dir/manifest.txt has one line per configuration,
// "NAME PHASES key=value ...", the raw trace being dir/NAME.trace.
func importJavaTraces(t *testing.T, dir string) {
	m, err := os.ReadFile(filepath.Join(dir, "manifest.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(m), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		s := &traceSummary{phases: f[1], comments: []string{
			"# Store calls of the Java LinkBench benchmark (mdcallag/linkbench 9ef9cc8), see README.md.",
			"# Run: " + line,
		}}
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			s.config = append(s.config, [2]string{k, v})
		}
		cfg := javaTraceConfig(t, s)
		raw, err := os.Open(filepath.Join(dir, f[0]+".trace"))
		if err != nil {
			t.Fatal(err)
		}
		sm := newSummarizer(cfg.Requesters > 1)
		if _, err := io.Copy(sm, bufio.NewReaderSize(raw, 1<<20)); err != nil {
			t.Fatal(err)
		}
		raw.Close()
		s.groups = sm.summary()
		if err := writeSummary(filepath.Join("testdata", "javatrace", f[0]+".txt.gz"), s); err != nil {
			t.Fatal(err)
		}
		t.Logf("imported %s: %d groups", f[0], len(s.groups))
	}
}
