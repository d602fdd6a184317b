package main

import "fmt"

// The launcher's arguments are printed with every password masked.
func Example_redactArgs() {
	fmt.Println(redactArgs([]string{"-c", "conf.properties", "password=s3cret", "user:s3cret@tcp(h:3306)/"}, "s3cret"))
	fmt.Println(median([]float64{3, 1, 2, 10}))
	// Output:
	// -c conf.properties password=***** user:*****@tcp(h:3306)/
	// 2.5
}
