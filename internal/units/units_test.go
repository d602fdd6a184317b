package units

import "testing"

func TestParseInt(t *testing.T) {
	for _, c := range []struct {
		in   string
		size bool
		want int64
		err  bool
	}{
		{"4", false, 4, false},
		{"-1", false, -1, false},
		{"64MiB", true, 64 << 20, false},
		{"1KiB", true, 1024, false},
		{"2GiB", true, 2 << 30, false},
		{"64MiB", false, 0, true}, // suffix only for sizes
		{"64MB", true, 0, true},
		{" 4", false, 0, true},
		{"", false, 0, true},
		{"9223372036854775807", false, 1<<63 - 1, false},
		{"9223372036854775808", false, 0, true},
		{"8589934592GiB", true, 0, true}, // 2^33 GiB = 2^63 bytes
		{"8589934591GiB", true, 8589934591 << 30, false},
		{"-8589934591GiB", true, -8589934591 << 30, false},
	} {
		got, err := ParseInt(c.in, c.size)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseInt(%q, %v) = %d, %v; want %d, error %v", c.in, c.size, got, err, c.want, c.err)
		}
	}
}
