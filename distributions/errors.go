package distributions

import (
	"fmt"
	"strconv"
)

// ParamError reports a parameter outside its allowed range. Every
// constructor of this package returns it (as *ParamError, possibly wrapped)
// for bad input; match it with errors.As.
//
// Param names the constructor's own parameter (or the field of its
// configuration struct), never a LinkBench configuration key: package
// linkbench maps it to the key it read. The values used are:
//
//   - distribution parameters: "shape", "mean", "prob", "median", "sigma",
//     "config", "realdist", "points", "kind", "min", "max";
//   - arithmetic out-degree models: "mode", "default", "config";
//   - payload generators: "startbyte", "endbyte", "uniqueness";
//   - the shuffler: "seed", "groups", "n";
//   - the id2 chooser: the ID2Config fields ("StartID1", "MaxID1",
//     "LinkTypeCount", "RandomID2Max", "ID2GenConfig", "Requesters",
//     "RequesterID") and "od" (no out-degree model);
//   - real data: "real" (the *RealData: a section the caller asked for is
//     missing or too large, or no data was given), "cursors"
//     (Java-compatible REAL sampling with RealCursors of other data),
//     "vintage" (ParseVintage).
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
