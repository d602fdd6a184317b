package linkbench

import (
	"testing"
	"unsafe"

	"github.com/linkbench-go/linkbench/distributions"
	"pgregory.net/rand"
)

// blocks returns the 128-byte blocks [first, last] that n bytes at p
// occupy.
func blocks(p unsafe.Pointer, n uintptr) (first, last uintptr) {
	a := uintptr(p)
	return a / 128, (a + n - 1) / 128
}

// TestWorkersGeneratorsApart: no two requesters' random generators, and no
// two loaders' chunk generators, share a 128-byte block (false sharing: with
// rand.New's 48-byte generators made one after another, two requesters on
// two cores invalidated each other's line on every draw, and the draws took
// a quarter of the discard store's CPU instead of 6 %).
func TestWorkersGeneratorsApart(t *testing.T) {
	cfg := smallConfig(2001)
	cfg.Requesters = 16
	w, err := prepare(cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	size := unsafe.Sizeof(rand.Rand{})
	var ptrs []unsafe.Pointer
	for _, s := range w.mode.requesterSources(w, 1) {
		ptrs = append(ptrs, unsafe.Pointer(s.source().(*rand.Rand)))
	}
	p := w.mode.loadPlan(w, 1)
	for c := range int64(8) {
		ll := &linkLoader{gen: &distributions.UniformData{}}
		p.startChunk(ll, 0, c)
		ptrs = append(ptrs, unsafe.Pointer(ll.src.(*rand.Rand)))
	}
	for i := range ptrs {
		for j := range i {
			f1, l1 := blocks(ptrs[i], size)
			f2, l2 := blocks(ptrs[j], size)
			if f1 <= l2 && f2 <= l1 {
				t.Errorf("generators %d (%p) and %d (%p) share a 128-byte block", i, ptrs[i], j, ptrs[j])
			}
		}
	}
}

// TestWorkerStructsPadded: a requester's and a loader's state, written per
// request or link, starts and ends with 128 bytes that nothing writes, so
// that the struct allocated next to it (another worker's) never shares a
// line with what it writes.
func TestWorkerStructsPadded(t *testing.T) {
	var r requester
	if off := unsafe.Offsetof(r.w); off < 128 {
		t.Errorf("requester: first field at offset %d, want >= 128", off)
	}
	if tail := unsafe.Sizeof(r) - (unsafe.Offsetof(r.listQueries) + 8); tail < 128 {
		t.Errorf("requester: %d bytes after its last field, want >= 128", tail)
	}
	var ll linkLoader
	if off := unsafe.Offsetof(ll.w); off < 128 {
		t.Errorf("linkLoader: first field at offset %d, want >= 128", off)
	}
	if tail := unsafe.Sizeof(ll) - (unsafe.Offsetof(ll.repeats) + 8); tail < 128 {
		t.Errorf("linkLoader: %d bytes after its last field, want >= 128", tail)
	}
}
