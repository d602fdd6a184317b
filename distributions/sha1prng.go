package distributions

import (
	"crypto/sha1"
	"encoding/binary"
)

// SHA1PRNG is the master random generator of LinkBench's driver: Java's
// SecureRandom.getInstance("SHA1PRNG") seeded with setSeed(seed) before any
// output (reference Appendix A.2). The driver draws one NextLong right after
// seeding and discards it, then one NextLong per consumer (the seed of each
// loader's or requester's java.util.Random, reference §5.1, §6.1, §10.2);
// that protocol is the caller's.
//
// The algorithm, as Appendix A.2 specifies it: the state is the SHA-1 digest
// of the seed's 8 big-endian bytes; each 20-byte output block is
// SHA-1(state), after which the state is replaced by state + block + 1 as
// byte-wise arithmetic from index 0 up with signed carries; bytes of a block
// not consumed by one call are handed out first by the next. It is not a cryptographic API here: it only
// reproduces LinkBench's seeds.
//
// A SHA1PRNG is not safe for concurrent use.
type SHA1PRNG struct {
	state  [sha1.Size]byte
	block  [sha1.Size]byte // the current output block
	remain int             // bytes of block not yet handed out (at its end)
}

// NewSHA1PRNG returns the generator seeded with the 8 big-endian bytes of
// seed, as LinkBench's master RNG for load_random_seed or
// request_random_seed. Every seed is valid.
func NewSHA1PRNG(seed int64) *SHA1PRNG {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(seed))
	return &SHA1PRNG{state: sha1.Sum(b[:])}
}

// nextBlock computes the next 20-byte output block SHA-1(state) and updates
// the state (reference Appendix A.2): for i = 0..19, with carry starting at
// 1, v = int8(state[i]) + int8(block[i]) + carry, state[i] = v & 0xFF,
// carry = v >> 8 (arithmetic shift); if no byte of the state changed,
// state[0] is incremented.
func (s *SHA1PRNG) nextBlock() {
	s.block = sha1.Sum(s.state[:])
	carry := 1
	changed := false
	for i := range s.state {
		v := int(int8(s.state[i])) + int(int8(s.block[i])) + carry
		t := byte(v)
		changed = changed || t != s.state[i]
		s.state[i] = t
		carry = v >> 8
	}
	if !changed {
		s.state[0]++
	}
	s.remain = sha1.Size
}

// Read fills p with the generator's next bytes (Java's nextBytes): first the
// unused bytes of the current block, then fresh blocks. It never fails; the
// error is always nil (the signature is io.Reader's).
func (s *SHA1PRNG) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if s.remain == 0 {
			s.nextBlock()
		}
		c := copy(p[n:], s.block[sha1.Size-s.remain:])
		s.remain -= c
		n += c
	}
	return n, nil
}

// nextInt32 reads 4 bytes as a big-endian signed 32-bit integer (Java's
// SecureRandom.next(32)).
func (s *SHA1PRNG) nextInt32() int32 {
	var b [4]byte
	s.Read(b[:])
	return int32(binary.BigEndian.Uint32(b[:]))
}

// NextLong returns Java's nextLong() on this generator: two 4-byte reads,
// each a big-endian signed 32-bit integer, combined as
// (hi << 32) + lo with lo sign-extended (reference Appendix A.1, A.2).
func (s *SHA1PRNG) NextLong() int64 {
	hi := int64(s.nextInt32())
	lo := int64(s.nextInt32())
	return hi<<32 + lo
}
