package distributions

import (
	"fmt"
	"strconv"
)

// ParamError reports a parameter outside its allowed range. Every
// constructor of this package returns it (as *ParamError, possibly wrapped)
// for bad input; match it with errors.As.
//
// Param names the parameter without LinkBench's key prefix, so the caller can
// map it to the configuration key it read (for example "shape" read from
// read_shape). The values used are:
//
//   - distribution parameters: "shape", "mean", "prob", "median", "sigma",
//     "config", "realdist", "points", "kind", "min", "max";
//   - out-degree modes: "nlinks_func", "nlinks_config", "nlinks_default";
//   - payload generators: "startbyte", "endbyte", "uniqueness";
//   - the shuffler: "seed", "groups", "n";
//   - the id2 chooser: "startid1", "maxid1", "link_type_count",
//     "randomid2max", "id2gen_config", "requesters", "requester_id";
//   - real data: "data_file" (a section the caller asked for is missing or
//     too large), "cursors" (Java-compatible REAL sampling with
//     RealCursors of other data), "data_vintage" (ParseVintage).
type ParamError struct {
	Param  string // parameter name, see above
	Value  string // the offending value as given
	Reason string // what is wrong, including the allowed range
}

// Error returns "bad <param> <value>: <reason>".
func (e *ParamError) Error() string {
	return "bad " + e.Param + " " + e.Value + ": " + e.Reason
}

func paramErr(param string, value any, format string, args ...any) *ParamError {
	var v string
	switch x := value.(type) {
	case float64:
		v = strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		v = strconv.Quote(x)
	default:
		v = fmt.Sprint(x)
	}
	return &ParamError{Param: param, Value: v, Reason: fmt.Sprintf(format, args...)}
}

// checkRange validates an id range [min, max): max must exceed min.
func checkRange(min, max int64) error {
	if max <= min || max-min <= 0 {
		return paramErr("max", max, "must be greater than min = %d, with max - min <= 2^63-1 (ids are drawn from [min, max))", min)
	}
	return nil
}
