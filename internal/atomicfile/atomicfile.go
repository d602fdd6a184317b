// Package atomicfile writes files that appear under their final name only
// when complete: the data goes to a temporary file in the same directory,
// which is synced to disk and then renamed over the final name (and the
// directory synced). A reader, a crash or a full disk never leaves a partial
// file under the final name; a process killed before Commit leaves at most
// a temporary file named ".<name>.<random>.tmp" beside it. A symbolic link
// is followed (its target is replaced, the link stays), and a device or a
// named pipe (/dev/null, /dev/stdout, a FIFO) is written in place, never
// replaced.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Perm is the permission a committed file gets (before the umask is
// applied to nothing: it is set with chmod), as os.Create's 0666 under the
// usual 022 umask.
const Perm fs.FileMode = 0o644

// File is a file being written under a temporary name; Commit gives it
// its final name. It is an io.Writer; it is not safe for concurrent use.
type File struct {
	f     *os.File
	final string
	err   error // the first write error
	done  bool
	// direct: name is not a regular file (a device such as /dev/null, a
	// named pipe): it is written in place, never replaced.
	direct bool
}

// Create starts a file that will be named name (its directory must exist)
// when committed. A symbolic link is followed: its target is the file
// written (the link stays). A name that exists and is not a regular file
// (a device such as /dev/null, a named pipe, a socket) is written in place
// and never replaced. Errors: those of creating a file in the directory
// (or of opening the special file).
func Create(name string) (*File, error) {
	target, err := resolve(name)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(target); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{f: f, final: name, direct: true}, nil
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &File{f: f, final: target}, nil
}

// resolve returns the file a name designates: the name itself, or the
// target of the symbolic links it is (relative targets resolved against
// the link's directory; a dangling link's target, to be created).
func resolve(name string) (string, error) {
	for range 40 {
		st, err := os.Lstat(name)
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			return name, nil
		}
		t, err := os.Readlink(name)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(name), t)
		}
		name = t
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", name)
}

// Name returns the final name.
func (f *File) Name() string { return f.final }

// Write writes p to the temporary file. After a failed write every later
// write fails with the same error, and so does Commit.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.done {
		return 0, fmt.Errorf("atomicfile: write to %s after Commit or Abort: %w", f.final, fs.ErrClosed)
	}
	n, err := f.f.Write(p)
	if err != nil {
		f.err = err
	}
	return n, err
}

// Commit syncs the data, closes the temporary file and renames it to the
// final name, replacing a file of that name, then syncs the directory.
// On error the temporary file is removed and nothing is left under the
// final name that was not there before. Commit after Commit or Abort
// returns an error wrapping fs.ErrClosed.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("atomicfile: %s: %w", f.final, fs.ErrClosed)
	}
	f.done = true
	if f.direct {
		err := f.err
		if cerr := f.f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.final, err)
		}
		return nil
	}
	tmp := f.f.Name()
	err := f.err
	if err == nil {
		err = f.f.Chmod(Perm)
	}
	if err == nil {
		err = f.f.Sync()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, f.final)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", f.final, err)
	}
	syncDir(filepath.Dir(f.final))
	return nil
}

// Abort closes and removes the temporary file; the final name is left as
// it was. Abort after Commit does nothing.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	if !f.direct {
		os.Remove(f.f.Name())
	}
}

// WriteFile writes data to name through a temporary file (Create,
// Write, Commit).
func WriteFile(name string, data []byte) error {
	f, err := Create(name)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return f.Commit()
}

// syncDir makes a rename in dir durable; where directories cannot be
// synced (some file systems, other OSes) it is a no-op.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// CheckWritable reports, without writing anything that stays, whether a
// file named name can be created or replaced: its directory exists and
// accepts new files (a probe file is created and removed), and name is
// not a directory. Errors name the path and the reason.
func CheckWritable(name string) error {
	target, err := resolve(name)
	if err != nil {
		return err
	}
	if st, err := os.Stat(target); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory", name)
	} else if err == nil && !st.Mode().IsRegular() {
		// A device or a pipe is written in place: it must accept writes.
		if st.Mode()&os.ModeNamedPipe != 0 {
			return nil // opening it for a probe would wait for a reader
		}
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", name, unwrapPath(err))
		}
		f.Close()
		return nil
	}
	dir := filepath.Dir(target)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s: directory %s: %w", name, dir, unwrapPath(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: %s is not a directory", name, dir)
	}
	return probe(dir, name)
}

// CheckDir reports, without leaving anything behind, whether dir is (or
// can be made, with os.MkdirAll) a directory that accepts new files: the
// nearest existing directory at or above it is probed with a file that is
// created and removed.
func CheckDir(dir string) error {
	d := filepath.Clean(dir)
	for {
		st, err := os.Stat(d)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s: %s is not a directory", dir, d)
			}
			return probe(d, dir)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", dir, unwrapPath(err))
		}
		parent := filepath.Dir(d)
		if parent == d {
			return fmt.Errorf("%s: %w", dir, unwrapPath(err))
		}
		d = parent
	}
}

// probe creates and removes a file in dir; what names the path asked
// about in the error.
func probe(dir, what string) error {
	f, err := os.CreateTemp(dir, ".linkbench-probe-*")
	if err != nil {
		return fmt.Errorf("%s: cannot create files in %s: %w", what, dir, unwrapPath(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// unwrapPath returns the reason of a *fs.PathError (its path is said by
// the caller), else err.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// IsTemp reports whether name (a base name) is a temporary file of this
// package.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp")
}
