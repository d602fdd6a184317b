package cli

import "fmt"

// Messages mask the password wherever it stands as a token of its own,
// and not inside a longer word.
func Example_maskToken() {
	fmt.Println(maskToken("access denied for linkbench:pw1 (pw1)", "pw1"))
	fmt.Println(maskToken("pw1x is not the password", "pw1"))
	// Output:
	// access denied for linkbench:***** (*****)
	// pw1x is not the password
}
