package main

import "fmt"

// A replica has caught up when, in every GTID domain of the master's
// @@gtid_binlog_pos, its @@gtid_slave_pos has reached the master's
// sequence number.
func Example_reached() {
	master, _ := parseGTIDs("0-1-3123")
	behind, _ := parseGTIDs("0-1-3000")
	caughtUp, _ := parseGTIDs("0-1-3123,1-2-7")
	fmt.Println(reached(behind, master), reached(caughtUp, master))
	// Output:
	// false true
}
