package pebblestore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/pebblestore"
)

// A directory open in this process cannot be opened again until Close.
func TestLockSameProcess(t *testing.T) {
	dir := t.TempDir()
	s, err := pebblestore.Open(t.Context(), pebblestore.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pebblestore.Open(t.Context(), pebblestore.Options{Dir: dir})
	if !errors.Is(err, pebblestore.ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	if !strings.Contains(err.Error(), dir) {
		t.Errorf("error does not name the directory: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := pebblestore.Open(t.Context(), pebblestore.Options{Dir: dir})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
}

// A directory another process has open is refused, and free again when
// that process has closed it.
func TestLockOtherProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := helper(t, "lock", "PEBBLESTORE_TEST_DIR="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if line := readLine(t, stdout); line != "open\n" {
		t.Fatalf("helper said %q", line)
	}
	_, err = pebblestore.Open(t.Context(), pebblestore.Options{Dir: dir})
	if !errors.Is(err, pebblestore.ErrLocked) {
		t.Fatalf("Open of a directory another process has open: %v, want ErrLocked", err)
	}
	t.Logf("refused: %v", err)
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	s, err := pebblestore.Open(t.Context(), pebblestore.Options{Dir: dir})
	if err != nil {
		t.Fatalf("Open after the other process closed: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// A directory that cannot hold the lock file is an error, not ErrLocked.
func TestOpenUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := pebblestore.Open(t.Context(), pebblestore.Options{Dir: filepath.Join(file, "db")})
	if err == nil || errors.Is(err, pebblestore.ErrLocked) {
		t.Fatalf("Open under a file: %v", err)
	}
}

// A Pebble database this package did not write is refused.
func TestOpenForeignDatabase(t *testing.T) {
	dir := t.TempDir()
	db, err := pebble.Open(dir, &pebble.Options{Logger: quietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set([]byte("k"), []byte("v"), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = pebblestore.Open(t.Context(), pebblestore.Options{Dir: dir})
	if !errors.Is(err, pebblestore.ErrNotStore) {
		t.Fatalf("Open of a foreign database: %v, want ErrNotStore", err)
	}
	// The refused directory is not left locked.
	db, err = pebble.Open(dir, &pebble.Options{Logger: quietLogger{}})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	_ = db.Close()
}

type quietLogger struct{}

func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Fatalf(f string, a ...any) {
	panic(f)
}

// Close is idempotent, waits for calls in flight, and later calls fail
// with store.ErrClosed.
func TestClose(t *testing.T) {
	ctx := context.Background()
	s, err := pebblestore.Open(ctx, pebblestore.Options{Dir: t.TempDir(), Sync: pebblestore.SyncOff})
	if err != nil {
		t.Fatal(err)
	}
	// Calls racing with Close either succeed or fail with ErrClosed:
	// none reaches the closed database (which would panic).
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := int64(0); ; i++ {
				_, err := s.AddLink(ctx, store.Link{ID1: int64(g), LinkType: 1, ID2: i, Visibility: store.VisibilityDefault}, true)
				if err == nil {
					_, err = s.GetLinkList(ctx, store.FullRange(int64(g), 1), nil)
				}
				if err != nil {
					if !errors.Is(err, store.ErrClosed) {
						t.Errorf("during Close: %v", err)
					}
					return
				}
			}
		})
	}
	for {
		if n, _ := s.CountLinks(ctx, 0, 1); n >= 100 {
			break
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	calls := map[string]func() error{
		"AddLink":       func() error { _, err := s.AddLink(ctx, store.Link{ID1: 1}, true); return err },
		"GetLink":       func() error { _, _, err := s.GetLink(ctx, 1, 1, 1); return err },
		"GetLinkList":   func() error { _, err := s.GetLinkList(ctx, store.FullRange(1, 1), nil); return err },
		"CountLinks":    func() error { _, err := s.CountLinks(ctx, 1, 1); return err },
		"AddNode":       func() error { _, err := s.AddNode(ctx, store.Node{}); return err },
		"GetNode":       func() error { _, _, err := s.GetNode(ctx, 1, 1); return err },
		"AddBulkLinks":  func() error { return s.AddBulkLinks(ctx, []store.Link{{ID1: 1}}, true) },
		"AddBulkNodes":  func() error { return s.AddBulkNodes(ctx, []store.Node{{ID: 1}}) },
		"AddBulkCounts": func() error { return s.AddBulkCounts(ctx, []store.LinkCount{{ID1: 1}}) },
		"CheckCounts":   func() error { _, _, err := s.CheckCounts(ctx, 0); return err },
		"NodeStats":     func() error { _, err := s.NodeStats(ctx); return err },
		"Metrics":       func() error { _, err := s.Metrics(); return err },
		"Flush":         func() error { return s.Flush(ctx) },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, store.ErrClosed) {
			t.Errorf("%s after Close: %v, want store.ErrClosed", name, err)
		}
	}
}

// Links, counts, nodes and the node id sequence survive Close and Open;
// AddNode continues past every id allocated before, even when the
// largest node was deleted.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := pebblestore.Open(ctx, pebblestore.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	l := store.Link{ID1: 7, LinkType: 2, ID2: 9, Visibility: store.VisibilityDefault, Data: []byte("kept"), Version: 3, Time: 99}
	if _, err := s.AddLink(ctx, l, true); err != nil {
		t.Fatal(err)
	}
	if err := s.ResetNodeStore(ctx, 50); err != nil {
		t.Fatal(err)
	}
	var last int64
	for range 3 {
		if last, err = s.AddNode(ctx, store.Node{Type: 5, Version: 1, Data: []byte("n")}); err != nil {
			t.Fatal(err)
		}
	}
	if last != 52 {
		t.Fatalf("third AddNode after ResetNodeStore(50) = %d", last)
	}
	if found, err := s.DeleteNode(ctx, 5, 52); !found || err != nil {
		t.Fatalf("DeleteNode = %v, %v", found, err)
	}
	if err := s.AddBulkNodes(ctx, []store.Node{{ID: 10, Type: 5}}); err != nil { // below the sequence
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openTest(t, pebblestore.Options{Dir: dir})
	got, found, err := s.GetLink(ctx, 7, 2, 9)
	if err != nil || !found || !got.Equal(l) {
		t.Fatalf("GetLink after reopen = %+v, %v, %v", got, found, err)
	}
	if n, err := s.CountLinks(ctx, 7, 2); n != 1 || err != nil {
		t.Fatalf("CountLinks after reopen = %d, %v", n, err)
	}
	if _, found, _ := s.GetNode(ctx, 5, 51); !found {
		t.Fatal("node 51 lost")
	}
	if id, err := s.AddNode(ctx, store.Node{Type: 5}); id != 53 || err != nil {
		t.Fatalf("AddNode after reopen = %d, %v; want 53", id, err)
	}
}

// Values read are copies: changing them, or reading again into the same
// buffers, does not change what is stored.
func TestReadsCopy(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, pebblestore.Options{Sync: pebblestore.SyncOff})
	l := store.Link{ID1: 1, LinkType: 1, ID2: 1, Visibility: store.VisibilityDefault, Data: []byte("payload"), Time: 1}
	if _, err := s.AddLink(ctx, l, true); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil { // read from an sstable block in the cache
		t.Fatal(err)
	}
	got, _, _ := s.GetLink(ctx, 1, 1, 1)
	list, _ := s.GetLinkList(ctx, store.FullRange(1, 1), nil)
	multi, _ := s.MultigetLinks(ctx, 1, 1, []int64{1}, nil)
	for _, d := range [][]byte{got.Data, list[0].Data, multi[0].Data} {
		copy(d, "XXXXXXX")
	}
	for range 3 { // other reads, which would reuse Pebble's buffers
		if _, _, err := s.GetLink(ctx, 1, 1, 2); err != nil {
			t.Fatal(err)
		}
	}
	again, _, _ := s.GetLink(ctx, 1, 1, 1)
	if string(again.Data) != "payload" {
		t.Fatalf("stored data changed to %q", again.Data)
	}
}

// Bulk loading over stored links, or a link twice in one batch, leaves
// one index entry per link: the list and CheckCounts see no stale entry.
func TestBulkOverExisting(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, pebblestore.Options{Sync: pebblestore.SyncOff})
	link := func(id2, time int64, vis store.Visibility) store.Link {
		return store.Link{ID1: 5, LinkType: 1, ID2: id2, Visibility: vis, Data: []byte{byte(time)}, Time: time}
	}
	first := []store.Link{link(1, 10, 1), link(2, 20, 1), link(3, 30, 1), link(9, 90, 1)}
	if err := s.AddBulkLinks(ctx, first, true); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil { // the stored links in an sstable
		t.Fatal(err)
	}
	// Out of order, over id2 1 and 3 (new times, one hidden), id2 4 twice.
	second := []store.Link{link(4, 40, 1), link(3, 35, 0), link(1, 15, 1), link(4, 45, 1)}
	if err := s.AddBulkLinks(ctx, second, true); err != nil {
		t.Fatal(err)
	}
	if err := s.AddBulkCounts(ctx, []store.LinkCount{{ID1: 5, LinkType: 1, Count: 4}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetLinkList(ctx, store.FullRange(5, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, l := range got {
		ids = append(ids, l.ID2)
	}
	if fmt.Sprint(ids) != "[9 4 2 1]" || got[1].Time != 45 || got[3].Time != 15 {
		t.Errorf("list after the second load: %+v", got)
	}
	if mm, _, err := s.CheckCounts(ctx, 0); err != nil || len(mm) != 0 {
		t.Errorf("CheckCounts = %v, %v", mm, err)
	}
}

// CheckCounts reports an index entry without its link row.
func TestCheckCountsIndexMismatch(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, pebblestore.Options{Sync: pebblestore.SyncOff})
	if _, err := s.AddLink(ctx, store.Link{ID1: 3, LinkType: 4, ID2: 5, Visibility: store.VisibilityDefault, Time: 6}, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CheckCounts(ctx, 0); err != nil {
		t.Fatal(err)
	}
	// A stray index entry of (3, 4): its key with another id2.
	var stray []byte
	it, err := s.DB().NewIter(&pebble.IterOptions{LowerBound: []byte("I"), UpperBound: []byte("J")})
	if err != nil {
		t.Fatal(err)
	}
	for it.First(); it.Valid(); it.Next() {
		stray = append([]byte(nil), it.Key()...)
	}
	_ = it.Close()
	stray[len(stray)-1]++
	if err := s.DB().Set(stray, []byte{0, 0, 0, 0}, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.CheckCounts(ctx, 0)
	if !errors.Is(err, pebblestore.ErrIndexMismatch) || !strings.Contains(err.Error(), "(3, 4) has 1 link rows (1 visible), 2 index entries (2 visible)") {
		t.Errorf("CheckCounts with a stray index entry: %v", err)
	}
}
