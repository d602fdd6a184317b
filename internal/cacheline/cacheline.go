// Package cacheline holds the padding that keeps what one worker writes on
// every request or value off the cache lines of another worker's state.
package cacheline

// Pad is 128 bytes that nothing reads or writes: two 64-byte lines, as
// x86's adjacent-line prefetcher moves lines in pairs. A struct written by
// one worker on its hot path starts and ends with a Pad, so that whatever
// the allocator places next to it (another worker's state) never shares a
// line with its written fields (false sharing: each write would invalidate
// the other core's copy of the line).
type Pad [128]byte

// Size is the size of a Pad in bytes.
const Size = len(Pad{})
