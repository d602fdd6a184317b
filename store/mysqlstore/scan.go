package mysqlstore

import (
	"database/sql/driver"
	"fmt"
	"math"
	"strconv"
)

// scanI64 is a database/sql scan target (for the checks run through DB)
// that converts the driver's integer values without reflection, used
// through a pointer conversion of the caller's field: (*scanI64)(&n).
type scanI64 int64

// asInt64 converts a driver value of an integer column: int64 or uint64
// (binary protocol), or decimal text (text protocol).
//
// What a read still allocates is the driver's: go-sql-driver/mysql
// (v1.10.1) hands every column over as a driver.Value, so each integer of
// 256 or more (ids, link types, times) and each byte column is boxed into
// an interface as the row is decoded: one small allocation per such value
// (BenchmarkGetLinkList: 134 allocations for a 64-row list; boxing was
// about 13 % of the client's CPU in a 16-requester profile). The driver offers no interface
// that decodes into the caller's variables; this store copies the values
// out and keeps nothing else per row.
func asInt64(src driver.Value) (int64, error) {
	switch v := src.(type) {
	case int64:
		return v, nil
	case uint64:
		if v > math.MaxInt64 {
			return 0, fmt.Errorf("mysqlstore: value %d out of int64 range", v)
		}
		return int64(v), nil
	case []byte:
		return parseInt(v)
	case string:
		return strconv.ParseInt(v, 10, 64)
	case nil:
		return 0, fmt.Errorf("mysqlstore: unexpected NULL")
	}
	return 0, fmt.Errorf("mysqlstore: cannot scan %T into an integer", src)
}

// parseInt parses a decimal integer (an optional '-' and 1..19 digits)
// without allocating.
func parseInt(b []byte) (int64, error) {
	neg := len(b) > 0 && b[0] == '-'
	d := b
	if neg {
		d = b[1:]
	}
	if len(d) == 0 || len(d) > 19 {
		return 0, fmt.Errorf("mysqlstore: invalid integer %q", b)
	}
	var u uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("mysqlstore: invalid integer %q", b)
		}
		u = u*10 + uint64(c-'0')
	}
	if u > math.MaxInt64+1 || (!neg && u > math.MaxInt64) {
		return 0, fmt.Errorf("mysqlstore: integer %q out of int64 range", b)
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
}

// appendData appends a driver value of a payload column to dst.
func appendData(dst []byte, src driver.Value) ([]byte, error) {
	switch v := src.(type) {
	case []byte:
		return append(dst, v...), nil
	case string:
		return append(dst, v...), nil
	case nil:
		return dst, nil
	}
	return dst, fmt.Errorf("mysqlstore: cannot scan %T into data", src)
}

func (p *scanI64) Scan(src any) error {
	v, err := asInt64(src)
	*p = scanI64(v)
	return err
}

// nonNil returns b, or an empty slice for nil: the driver sends a nil
// []byte as NULL, and the data columns are NOT NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
