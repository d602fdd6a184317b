package discard

import (
	"testing"
	"unsafe"
)

// TestFlagAndSequenceApart: the closed flag every call reads and the node
// sequence every AddNode writes are at least 128 bytes apart (two lines:
// x86 prefetches lines in pairs), and at least 128 bytes from the
// Store's ends, so that an AddNode never invalidates the line another
// worker reads closed from.
func TestFlagAndSequenceApart(t *testing.T) {
	var s Store
	closed, next := unsafe.Offsetof(s.closed), unsafe.Offsetof(s.next)
	if closed < 128 {
		t.Errorf("closed at offset %d, want >= 128", closed)
	}
	if d := next - (closed + unsafe.Sizeof(s.closed)); next < closed || d < 128 {
		t.Errorf("closed at %d, next at %d: want next at least 128 bytes after closed", closed, next)
	}
	if tail := unsafe.Sizeof(s) - (next + unsafe.Sizeof(s.next)); tail < 128 {
		t.Errorf("%d bytes after next, want >= 128", tail)
	}
}
