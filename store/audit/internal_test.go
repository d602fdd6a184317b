package audit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// TestLogWriteError: a record that cannot be written fails the call that
// the store acknowledged, and Err and Close report it.
func TestLogWriteError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	if _, err := Create("/dev/full"); !errors.Is(err, ErrLog) {
		t.Fatalf("Create(/dev/full): %v, want ErrLog", err)
	}
	l, err := Create(filepath.Join(t.TempDir(), "a.audit"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	l.f.Close()
	l.f = full // the disk is full from now on
	ctx := context.Background()
	m := memstore.New()
	_, err = l.Wrap(m).AddLink(ctx, store.Link{ID1: 1, LinkType: 2, ID2: 3, Visibility: 1}, true)
	if !errors.Is(err, ErrLog) {
		t.Fatalf("AddLink with a full log: %v, want ErrLog", err)
	}
	if _, found, _ := m.GetLink(ctx, 1, 2, 3); !found {
		t.Error("the store did not get the write")
	}
	if !errors.Is(l.Err(), ErrLog) {
		t.Errorf("Err: %v", l.Err())
	}
	if err := l.Close(); !errors.Is(err, ErrLog) {
		t.Errorf("Close: %v, want ErrLog", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
