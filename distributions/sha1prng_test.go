package distributions

import "testing"

// TestSHA1PRNGGolden checks the master RNG against reference §10.2 (values
// printed by LinkBench's Java driver): four nextLong() after seeding.
func TestSHA1PRNGGolden(t *testing.T) {
	for _, c := range []struct {
		seed int64
		want [4]int64
	}{
		{12345, [4]int64{1683928760597952207, -7018833430379821243, -3857986826158688662, -5604793396632552389}},
		{0, [4]int64{-566708549030968236, -3820033680486281472, 1785745678328316809, 2298936893445908225}},
	} {
		s := NewSHA1PRNG(c.seed)
		for i, w := range c.want {
			if got := s.NextLong(); got != w {
				t.Errorf("seed %d: nextLong #%d = %d, want %d", c.seed, i+1, got, w)
			}
		}
	}
}

// TestSHA1PRNGBlocks checks that bytes are handed out in order across block
// boundaries whatever the read sizes: 3 bytes then 30 equal one 33-byte read.
func TestSHA1PRNGBlocks(t *testing.T) {
	a, b := NewSHA1PRNG(7), NewSHA1PRNG(7)
	whole := make([]byte, 33)
	a.Read(whole)
	parts := make([]byte, 33)
	b.Read(parts[:3])
	b.Read(parts[3:])
	if string(whole) != string(parts) {
		t.Errorf("split reads differ:\n%x\n%x", whole, parts)
	}
	// NextLong is two 4-byte reads of the same stream.
	c, d := NewSHA1PRNG(7), NewSHA1PRNG(7)
	buf := make([]byte, 24)
	c.Read(buf)
	for i := 0; i < 3; i++ {
		want := int64(int32(uint32(buf[8*i])<<24|uint32(buf[8*i+1])<<16|uint32(buf[8*i+2])<<8|uint32(buf[8*i+3])))<<32 +
			int64(int32(uint32(buf[8*i+4])<<24|uint32(buf[8*i+5])<<16|uint32(buf[8*i+6])<<8|uint32(buf[8*i+7])))
		if got := d.NextLong(); got != want {
			t.Errorf("NextLong #%d = %d, want %d from the byte stream", i, got, want)
		}
	}
}
