package pebblestore_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/pebblestore"
)

// The crash test's workload: each writer goroutine owns id1s of its own
// (so that its log orders every write to its keys) and writes links and
// nodes whose values derive from (round, writer, seq).
const (
	crashWriters  = 4
	crashID1s     = 3 // per writer
	crashTypes    = 2
	crashID2s     = 5
	crashNodeType = 2048
	crashMinAcks  = 400 // acknowledged writes per round before the kill
	crashRounds   = 3
)

// TestCrash kills (SIGKILL) a process writing through the store from
// several goroutines with WAL sync on, reopens the directory, and checks
// that every write the process had acknowledged is there (or superseded
// by its writer's next write, which may have landed unacknowledged), and
// that CheckCounts finds counts and index exact. Three rounds on one
// directory.
//
// Each writer logs "B <seq> <op> ..." to its own file before an operation
// and "A <seq> [id]" once the store acknowledged it, each line one
// write(2) on an unbuffered file: the kernel keeps it whatever happens to
// the process.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a child process three times (a few seconds)")
	}
	dir := t.TempDir()
	m := newCrashModel()
	for round := range crashRounds {
		acks := filepath.Join(t.TempDir(), fmt.Sprintf("acks%d", round))
		if err := os.Mkdir(acks, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := helper(t, "crash", "PEBBLESTORE_TEST_DIR="+dir, "PEBBLESTORE_TEST_ACKS="+acks,
			"PEBBLESTORE_TEST_ROUND="+strconv.Itoa(round))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill once enough writes were acknowledged, at a random moment.
		deadline := time.Now().Add(2 * time.Minute)
		for countAcks(t, acks) < crashMinAcks {
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				t.Fatalf("round %d: fewer than %d writes acknowledged in 2 minutes", round, crashMinAcks)
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil {
			t.Fatalf("round %d: the helper exited normally", round)
		}
		acked, inflight := m.replay(t, acks, round)
		checkCrash(t, dir, m, round, acked, inflight)
	}
}

// countAcks counts the "A" lines of the writers' logs.
func countAcks(t *testing.T, dir string) int {
	n := 0
	files, _ := filepath.Glob(filepath.Join(dir, "w*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n += strings.Count(string(b), "\nA ")
		if strings.HasPrefix(string(b), "A ") {
			n++
		}
	}
	return n
}

// crashHelper runs the crash test's writers on the store in dir until it
// is killed, logging to acks/w<writer>.
func crashHelper(dir, acks string) int {
	round, _ := strconv.Atoi(os.Getenv("PEBBLESTORE_TEST_ROUND"))
	ctx := context.Background()
	s, err := pebblestore.Open(ctx, pebblestore.Options{Dir: dir, Sync: pebblestore.SyncOn, MemTableSize: 1 << 20})
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash helper:", err)
		return 1
	}
	var wg sync.WaitGroup
	for w := range crashWriters {
		f, err := os.Create(filepath.Join(acks, fmt.Sprintf("w%d", w)))
		if err != nil {
			fmt.Fprintln(os.Stderr, "crash helper:", err)
			return 1
		}
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
			var nodes []int64
			for seq := 0; ; seq++ {
				var line string
				var call func() (string, error)
				switch op := rng.IntN(10); {
				case op < 5: // AddLink, visible or hidden
					id1, lt, id2 := crashKey(w, rng)
					vis := store.VisibilityDefault
					if rng.IntN(4) == 0 {
						vis = store.VisibilityHidden
					}
					line = fmt.Sprintf("B %d add %d %d %d %d", seq, id1, lt, id2, vis)
					call = func() (string, error) {
						_, err := s.AddLink(ctx, crashLink(round, w, seq, id1, lt, id2, vis), true)
						return "", err
					}
				case op < 7: // DeleteLink, hide or expunge
					id1, lt, id2 := crashKey(w, rng)
					expunge := rng.IntN(2) == 0
					line = fmt.Sprintf("B %d del %d %d %d %v", seq, id1, lt, id2, expunge)
					call = func() (string, error) {
						_, err := s.DeleteLink(ctx, id1, lt, id2, true, expunge)
						return "", err
					}
				case op < 8 || len(nodes) == 0: // AddNode
					line = fmt.Sprintf("B %d addnode", seq)
					call = func() (string, error) {
						id, err := s.AddNode(ctx, crashNode(round, w, seq, -1))
						nodes = append(nodes, id)
						return " " + strconv.FormatInt(id, 10), err
					}
				default: // UpdateNode of one of this writer's nodes
					id := nodes[rng.IntN(len(nodes))]
					line = fmt.Sprintf("B %d updnode %d", seq, id)
					call = func() (string, error) {
						_, err := s.UpdateNode(ctx, crashNode(round, w, seq, id))
						return "", err
					}
				}
				if _, err := f.WriteString(line + "\n"); err != nil {
					panic(err)
				}
				extra, err := call()
				if err != nil {
					panic(err)
				}
				if _, err := fmt.Fprintf(f, "A %d%s\n", seq, extra); err != nil {
					panic(err)
				}
			}
		})
	}
	wg.Wait()
	return 0
}

// crashKey draws a link key among writer w's.
func crashKey(w int, rng *rand.Rand) (id1, lt, id2 int64) {
	return int64(1000*(w+1) + rng.IntN(crashID1s)), int64(1 + rng.IntN(crashTypes)), int64(1 + rng.IntN(crashID2s))
}

func crashLink(round, w, seq int, id1, lt, id2 int64, vis store.Visibility) store.Link {
	return store.Link{ID1: id1, LinkType: lt, ID2: id2, Visibility: vis,
		Data: fmt.Appendf(nil, "r%d w%d s%d", round, w, seq), Version: int32(seq), Time: int64(round)<<32 | int64(seq)}
}

func crashNode(round, w, seq int, id int64) store.Node {
	return store.Node{ID: id, Type: crashNodeType, Version: int64(seq), Time: int32(round),
		Data: fmt.Appendf(nil, "node r%d w%d s%d", round, w, seq)}
}

// crashModel is what the store must hold: the state after every
// acknowledged write, per link key and node.
type crashModel struct {
	links   map[[3]int64]store.Link // present links
	nodes   map[int64]store.Node
	maxNode int64 // largest node id acknowledged
}

func newCrashModel() *crashModel {
	return &crashModel{links: map[[3]int64]store.Link{}, nodes: map[int64]store.Node{}}
}

// pending is a writer's last operation, begun and not acknowledged: it
// may or may not have landed.
type pending struct {
	op    string
	apply func(m *crashModel)
}

// replay applies the acknowledged writes of a round's logs to m and
// returns their number and the writers' unacknowledged operations.
func (m *crashModel) replay(t *testing.T, dir string, round int) (int, []pending) {
	t.Helper()
	var inflight []pending
	acked := 0
	for w := range crashWriters {
		f, err := os.Open(filepath.Join(dir, fmt.Sprintf("w%d", w)))
		if err != nil {
			t.Fatal(err)
		}
		var cur *pending
		var curSeq int
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			num := func(i int) int64 {
				n, err := strconv.ParseInt(fs[i], 10, 64)
				if err != nil {
					t.Fatalf("w%d: line %q: %v", w, sc.Text(), err)
				}
				return n
			}
			switch fs[0] {
			case "B":
				if cur != nil {
					t.Fatalf("w%d: seq %d begun before seq %d was acknowledged", w, num(1), curSeq)
				}
				seq := int(num(1))
				curSeq = seq
				switch fs[2] {
				case "add":
					id1, lt, id2, vis := num(3), num(4), num(5), store.Visibility(num(6))
					cur = &pending{op: sc.Text(), apply: func(m *crashModel) {
						m.links[[3]int64{id1, lt, id2}] = crashLink(round, w, seq, id1, lt, id2, vis)
					}}
				case "del":
					id1, lt, id2, expunge := num(3), num(4), num(5), fs[6] == "true"
					cur = &pending{op: sc.Text(), apply: func(m *crashModel) {
						k := [3]int64{id1, lt, id2}
						if l, ok := m.links[k]; ok {
							if expunge {
								delete(m.links, k)
							} else {
								l.Visibility = store.VisibilityHidden
								m.links[k] = l
							}
						}
					}}
				case "addnode":
					cur = &pending{op: sc.Text()} // its id is known only when acknowledged
				case "updnode":
					id := num(3)
					cur = &pending{op: sc.Text(), apply: func(m *crashModel) {
						if _, ok := m.nodes[id]; ok {
							m.nodes[id] = crashNode(round, w, seq, id)
						}
					}}
				}
			case "A":
				if cur == nil || int(num(1)) != curSeq {
					t.Fatalf("w%d: acknowledgement %q of an operation not begun", w, sc.Text())
				}
				if strings.Contains(cur.op, " addnode") {
					id := num(2)
					m.nodes[id] = crashNode(round, w, curSeq, id)
					m.maxNode = max(m.maxNode, id)
				} else {
					cur.apply(m)
				}
				acked++
				cur = nil
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
		if cur != nil && cur.apply != nil {
			inflight = append(inflight, *cur)
		}
	}
	return acked, inflight
}

// checkCrash reopens the store and compares it with the model, letting
// each in-flight operation have landed or not; m becomes what the store
// holds.
func checkCrash(t *testing.T, dir string, m *crashModel, round, acked int, inflight []pending) {
	t.Helper()
	ctx := context.Background()
	s, err := pebblestore.Open(ctx, pebblestore.Options{Dir: dir})
	if err != nil {
		t.Fatalf("round %d: reopen: %v", round, err)
	}
	defer s.Close()
	// The model with each subset of in-flight operations applied: one
	// must match the store (in-flight writes of different writers touch
	// different keys, so each is decided on its own keys).
	landed := newCrashModel()
	for k, v := range m.links {
		landed.links[k] = v
	}
	for k, v := range m.nodes {
		landed.nodes[k] = v
	}
	for _, p := range inflight {
		p.apply(landed)
	}
	missing := 0
	keys := map[[3]int64]bool{}
	for k := range m.links {
		keys[k] = true
	}
	for k := range landed.links {
		keys[k] = true
	}
	for k := range keys {
		got, found, err := s.GetLink(ctx, k[0], k[1], k[2])
		if err != nil {
			t.Fatal(err)
		}
		want, inModel := m.links[k]
		alt, inLanded := landed.links[k]
		ok := func(l store.Link, in bool) bool { return found == in && (!in || got.Equal(l)) }
		switch {
		case ok(want, inModel):
		case ok(alt, inLanded):
			if inLanded {
				m.links[k] = alt
			} else {
				delete(m.links, k)
			}
		default:
			missing++
			t.Errorf("round %d: link %v = %+v (found %v), want %+v (present %v) or, with its writer's last write, %+v (present %v)",
				round, k, got, found, want, inModel, alt, inLanded)
		}
	}
	for id, want := range m.nodes {
		got, found, err := s.GetNode(ctx, crashNodeType, id)
		if err != nil {
			t.Fatal(err)
		}
		alt := landed.nodes[id]
		switch {
		case found && got.Equal(want):
		case found && got.Equal(alt):
			m.nodes[id] = alt
		default:
			missing++
			t.Errorf("round %d: node %d = %+v (found %v), want %+v", round, id, got, found, want)
		}
	}
	mm, checked, err := s.CheckCounts(ctx, 0)
	if err != nil || len(mm) != 0 {
		t.Errorf("round %d: CheckCounts = %+v, %d checked, %v", round, mm, checked, err)
	}
	// The sequence continues past every acknowledged id.
	id, err := s.AddNode(ctx, store.Node{Type: crashNodeType + 1})
	if err != nil || id <= m.maxNode {
		t.Errorf("round %d: AddNode after the crash = %d, %v; want > %d", round, id, err, m.maxNode)
	}
	t.Logf("round %d: %d acknowledged writes, %d in flight at the kill, %d missing; %d links, %d nodes, %d count pairs checked",
		round, acked, len(inflight), missing, len(m.links), len(m.nodes), checked)
}
