package stats

import (
	"math"
	"strconv"
	"strings"
)

// This file reproduces the few Java text conversions LinkBench's output uses,
// so that our lines and CSV rows are byte-identical to the Java benchmark's
// (reference §9.2, §9.3, §9.7, golden values in §10.2 "Output formats").

// decimalFormat formats f like java.text.DecimalFormat with the pattern "#."
// followed by maxFrac '#' ("#.##" for maxFrac 2, "#.###" for 3): at most
// maxFrac fraction digits, HALF_EVEN rounding of the exact binary value (the
// JDK 8+ behaviour), trailing fraction zeros and a bare point removed, no
// grouping, "0" for zero. A negative value that rounds to zero keeps its sign
// ("-0"), as DecimalFormat does. NaN is "NaN" and infinities "∞"/"-∞"
// (DecimalFormatSymbols' defaults).
//
// strconv's fixed-precision conversion rounds the exact binary value and
// breaks exact ties to even, which is DecimalFormat's HALF_EVEN.
func decimalFormat(f float64, maxFrac int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "∞"
	case math.IsInf(f, -1):
		return "-∞"
	}
	s := strconv.FormatFloat(f, 'f', maxFrac, 64)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// javaFixed formats f like Java's String.format("%.<prec>f", f): the decimal
// digits of Double.toString (the shortest representation that reads back as
// f) are rounded HALF_UP to prec fraction digits, then zero-padded. This
// differs from C/Go printf, which round the exact binary value: for example
// javaFixed(1.005, 2) is "1.01" (Go's %.2f gives "1.00") and javaFixed(0.15, 1)
// is "0.2". NaN is "NaN" and infinities "Infinity"/"-Infinity", as in Java.
// Source: java.util.Formatter documentation, conversion 'f'.
func javaFixed(f float64, prec int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	neg := math.Signbit(f)
	// Shortest digits in plain notation, e.g. "2166642.8" or "0.0005".
	s := strconv.FormatFloat(math.Abs(f), 'f', -1, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b []byte
	if len(frac) <= prec {
		b = append(b, intPart...)
		if prec > 0 {
			b = append(b, '.')
			b = append(b, frac...)
			for i := len(frac); i < prec; i++ {
				b = append(b, '0')
			}
		}
	} else {
		// digits = intPart + frac[:prec], rounded up when the next digit >= 5.
		digits := []byte(intPart + frac[:prec])
		if frac[prec] >= '5' {
			i := len(digits) - 1
			for ; i >= 0; i-- {
				if digits[i] == '9' {
					digits[i] = '0'
					continue
				}
				digits[i]++
				break
			}
			if i < 0 {
				digits = append([]byte{'1'}, digits...)
			}
		}
		n := len(digits) - prec
		b = append(b, digits[:n]...)
		if prec > 0 {
			b = append(b, '.')
			b = append(b, digits[n:]...)
		}
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

// javaDouble formats f like Java's Double.toString (JDK 19+, whose digits are
// the shortest that read back as f, as strconv's): plain notation with at
// least one fraction digit when 1e-3 <= |f| < 1e7 ("105.0", "0.001"),
// otherwise computerized scientific notation ("1.0E7", "1.2345E-4"); "0.0",
// "-0.0", "NaN", "Infinity", "-Infinity". Source: java.lang.Double.toString
// documentation.
func javaDouble(f float64) string {
	return string(appendJavaDouble(nil, f))
}

// appendJavaDouble appends javaDouble(f) to b.
func appendJavaDouble(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		start := len(b)
		b = strconv.AppendFloat(b, f, 'f', -1, 64)
		for _, c := range b[start:] {
			if c == '.' {
				return b
			}
		}
		return append(b, ".0"...)
	}
	// strconv gives e.g. "1.2345e-04" or "1e+07".
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(string(e), "e")
	b = append(b, mant...)
	if strings.IndexByte(mant, '.') < 0 {
		b = append(b, ".0"...)
	}
	b = append(b, 'E')
	if exp[0] == '-' {
		b = append(b, '-')
	}
	exp = strings.TrimLeft(exp[1:], "0")
	return append(b, exp...)
}

// javaRound is Java's Math.round(double) (JDK 7+): the closest long, ties
// rounded towards positive infinity; NaN gives 0 and values beyond the long
// range saturate.
func javaRound(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	fl := math.Floor(f)
	if f-fl >= 0.5 {
		fl++
	}
	return int64(fl)
}
