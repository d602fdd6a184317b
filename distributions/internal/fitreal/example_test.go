package main

import "fmt"

// The mean of a step CDF given by its values and cumulative probabilities.
func Example_expected() {
	fmt.Println(expected([]int64{1, 10, 100}, []float64{0.5, 0.75, 1}))
	// Output: 28
}
