package mysqlstore

import (
	"fmt"
	"math"
	"strconv"
)

// Scan targets that convert the driver's values without reflection or
// allocation. They are used through pointer conversions of the caller's
// fields, e.g. (*scanI64)(&l.ID1).

type (
	scanI64  int64
	scanI32  int32
	scanI8   int8
	scanData []byte // appends into the existing capacity
)

// asInt64 converts a driver value of an integer column.
func asInt64(src any) (int64, error) {
	switch v := src.(type) {
	case int64:
		return v, nil
	case uint64:
		if v > math.MaxInt64 {
			return 0, fmt.Errorf("mysqlstore: value %d out of int64 range", v)
		}
		return int64(v), nil
	case []byte:
		return strconv.ParseInt(string(v), 10, 64)
	case string:
		return strconv.ParseInt(v, 10, 64)
	case nil:
		return 0, fmt.Errorf("mysqlstore: unexpected NULL")
	}
	return 0, fmt.Errorf("mysqlstore: cannot scan %T into an integer", src)
}

func (p *scanI64) Scan(src any) error {
	v, err := asInt64(src)
	*p = scanI64(v)
	return err
}

func (p *scanI32) Scan(src any) error {
	v, err := asInt64(src)
	if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		err = fmt.Errorf("mysqlstore: value %d out of int32 range", v)
	}
	*p = scanI32(v)
	return err
}

func (p *scanI8) Scan(src any) error {
	v, err := asInt64(src)
	if err == nil && (v < math.MinInt8 || v > math.MaxInt8) {
		err = fmt.Errorf("mysqlstore: value %d out of int8 range", v)
	}
	*p = scanI8(v)
	return err
}

func (p *scanData) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		*p = append((*p)[:0], v...)
	case string:
		*p = append((*p)[:0], v...)
	case nil:
		*p = (*p)[:0]
	default:
		return fmt.Errorf("mysqlstore: cannot scan %T into data", src)
	}
	return nil
}

// nonNil returns b, or an empty slice for nil: the driver sends a nil
// []byte as NULL, and the data columns are NOT NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
