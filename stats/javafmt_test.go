package stats

import (
	"math"
	"testing"
)

// Golden values: reference §10.2 "Output formats" (from running the Java
// code), plus documented Java behaviour noted per case.
func TestDecimalFormat(t *testing.T) {
	cases := []struct {
		f    float64
		frac int
		want string
	}{
		// §10.2: "#.##"
		{0, 2, "0"}, {0.1, 2, "0.1"}, {0.125, 2, "0.12"}, {0.135, 2, "0.14"}, {0.145, 2, "0.14"},
		{1.005, 2, "1"}, {12345.678, 2, "12345.68"}, {0.0049, 2, "0"},
		// §10.2: "#.###"
		{0.0049, 3, "0.005"}, {12345.678, 3, "12345.678"},
		// Integers print without a point; exact ties go to even.
		{20004863, 2, "20004863"}, {2166642.8, 2, "2166642.8"}, {50.5, 2, "50.5"},
		{0.375, 2, "0.38"}, {2.5, 0, "2"}, {3.5, 0, "4"},
		// DecimalFormat keeps the sign of a negative value rounding to 0.
		{-0.001, 2, "-0"}, {-1.5, 2, "-1.5"},
		{math.NaN(), 2, "NaN"}, {math.Inf(1), 2, "∞"},
	}
	for _, c := range cases {
		if got := decimalFormat(c.f, c.frac); got != c.want {
			t.Errorf("decimalFormat(%v, %d) = %q, want %q", c.f, c.frac, got, c.want)
		}
	}
}

func TestJavaFixed(t *testing.T) {
	cases := []struct {
		f    float64
		prec int
		want string
	}{
		{2166642.8, 3, "2166642.800"}, // §10.2 HDR line mean
		{1.234, 3, "1.234"},
		{0, 3, "0.000"}, {0, 1, "0.0"},
		// HALF_UP on Double.toString's digits, unlike C/Go printf.
		{1.005, 2, "1.01"}, {0.15, 1, "0.2"}, {0.125, 2, "0.13"}, {2.5, 0, "3"},
		{9.995, 2, "10.00"}, {999.9999, 3, "1000.000"}, {3.852, 2, "3.85"}, {2.5, 1, "2.5"},
		{1e21, 1, "1000000000000000000000.0"}, {0.0005, 3, "0.001"}, {0.0004, 3, "0.000"},
		{-1.25, 1, "-1.3"},
		{math.NaN(), 2, "NaN"}, {math.Inf(1), 1, "Infinity"}, {math.Inf(-1), 1, "-Infinity"},
	}
	for _, c := range cases {
		if got := javaFixed(c.f, c.prec); got != c.want {
			t.Errorf("javaFixed(%v, %d) = %q, want %q", c.f, c.prec, got, c.want)
		}
	}
}

func TestJavaDouble(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		{105, "105.0"}, // §10.2 csvstream mean
		{0.001, "0.001"}, {0.1, "0.1"}, {2166642.8, "2166642.8"}, {9999999, "9999999.0"},
		{1e7, "1.0E7"}, {12345678.9, "1.23456789E7"}, {1.2345e-4, "1.2345E-4"}, {1e-3 * 0.5, "5.0E-4"},
		{1e100, "1.0E100"}, {-3.5, "-3.5"}, {0, "0.0"}, {math.Copysign(0, -1), "-0.0"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	}
	for _, c := range cases {
		if got := javaDouble(c.f); got != c.want {
			t.Errorf("javaDouble(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestJavaRound(t *testing.T) {
	cases := []struct {
		f    float64
		want int64
	}{
		{0.5, 1}, {1540.8, 1541}, {2.4999, 2}, {-0.5, 0}, {-2.5, -2}, {-2.6, -3},
		{0.49999999999999994, 0}, // Math.round since JDK 7
		{math.NaN(), 0}, {1e300, math.MaxInt64}, {-1e300, math.MinInt64},
	}
	for _, c := range cases {
		if got := javaRound(c.f); got != c.want {
			t.Errorf("javaRound(%v) = %d, want %d", c.f, got, c.want)
		}
	}
}
