package main

import "fmt"

// The tables are computed in 256-bit floats: ln and exp agree with float64
// where float64 is exact.
func Example_ln() {
	one, _ := ln(newF(1)).Float64()
	e, _ := exp(newF(1)).Float64()
	back, _ := ln(exp(newF(2))).Float64()
	fmt.Println(one, e, back)
	// Output: 0 2.718281828459045 2
}
