// Package units parses the integers of configuration values: plain
// decimal integers, and byte sizes with a binary suffix (KiB, MiB, GiB),
// as the linkbench key table and the Pebble store's options take them.
package units

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// ParseInt parses a decimal integer ("4", "-1"); with size, also one with
// a KiB, MiB or GiB suffix (1024, 1024² and 1024³ times the number:
// "64MiB" is 67108864). The result is within the int64 range. Errors:
// "not an integer" (including an unknown suffix or white space), "out of
// the int64 range".
func ParseInt(s string, size bool) (int64, error) {
	mult := int64(1)
	if size {
		for _, u := range []struct {
			suffix string
			mult   int64
		}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
			if t, ok := strings.CutSuffix(s, u.suffix); ok {
				s, mult = t, u.mult
				break
			}
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, errors.New("out of the int64 range")
		}
		return 0, errors.New("not an integer")
	}
	if n > math.MaxInt64/mult || n < -math.MaxInt64/mult {
		return 0, errors.New("out of the int64 range")
	}
	return n * mult, nil
}
