package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "r.json")
	if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("new, complete")); err != nil {
		t.Fatal(err)
	}
	// Until Commit the final name holds the old content.
	if b, _ := os.ReadFile(name); string(b) != "old" {
		t.Fatalf("before Commit: %q", b)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); string(b) != "new, complete" {
		t.Fatalf("after Commit: %q", b)
	}
	if st, _ := os.Stat(name); st.Mode().Perm() != Perm {
		t.Errorf("mode %v, want %v", st.Mode().Perm(), Perm)
	}
	if err := f.Commit(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("second Commit: %v", err)
	}
	g, _ := Create(name)
	g.Write([]byte("partial"))
	g.Abort()
	if b, _ := os.ReadFile(name); string(b) != "new, complete" {
		t.Fatalf("after Abort: %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("files left: %v", ents)
	}
}

// TestFullDisk: a write that fails (here /dev/full's ENOSPC stands for a
// full file system) fails Commit and leaves nothing under the final name.
func TestWriteErrorFailsCommit(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "r.csv")
	f, err := Create(name)
	if err != nil {
		t.Fatal(err)
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	tmp := f.f
	f.f = full // every write fails with ENOSPC
	if _, err := f.Write([]byte("x")); err == nil {
		t.Fatal("write to /dev/full succeeded")
	}
	f.f = tmp
	if err := f.Commit(); err == nil {
		t.Fatal("Commit after a failed write succeeded")
	}
	if _, err := os.Stat(name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("final name exists after a failed write: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left: %v", ents)
	}
	full.Close()
}

func TestChecks(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	if err := CheckWritable(filepath.Join(dir, "new.csv")); err != nil {
		t.Error(err)
	}
	if err := CheckWritable(dir); err == nil {
		t.Error("a directory passed CheckWritable")
	}
	if err := CheckWritable(filepath.Join(dir, "missing", "x.csv")); err == nil {
		t.Error("a file in a missing directory passed")
	}
	if err := CheckDir(filepath.Join(dir, "a", "b")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Error("CheckDir created a directory")
	}
	if err := CheckDir(filepath.Join(file, "sub")); err == nil {
		t.Error("a directory under a file passed CheckDir")
	}
	if os.Geteuid() != 0 { // root writes anywhere
		if err := CheckWritable(filepath.Join(ro, "x")); err == nil {
			t.Error("a read-only directory passed")
		}
		if err := CheckDir(filepath.Join(ro, "sub")); err == nil {
			t.Error("a directory under a read-only one passed")
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("probes left files: %v", ents)
	}
}

// TestSpecialFiles: a device (as /dev/null) and a named pipe are written
// in place, never replaced by a regular file (as root, -trace /dev/null
// would have replaced the system's /dev/null); a symbolic link keeps
// pointing at its target, which gets the new content.
func TestSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	// A device: /dev/null itself, through a link in dir (the test never
	// renames anything over /dev/null: the link's target is the device).
	null := filepath.Join(dir, "null")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(null); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(null, []byte("discarded")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a character device: %v %v", st.Mode(), err)
	}
	if fi, _ := os.Lstat(null); fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link to /dev/null was replaced")
	}
	// A named pipe: written in place, read by another goroutine.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := WriteFile(fifo, []byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("read %q from the pipe", s)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced by %v", st.Mode())
	}
	// A symbolic link to a regular file: the target gets the content.
	target := filepath.Join(dir, "sub", "real.csv")
	os.Mkdir(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(filepath.Join("sub", "real.csv"), link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a regular file")
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("the link's target holds %q", b)
	}
}
