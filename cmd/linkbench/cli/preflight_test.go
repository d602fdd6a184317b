package cli

import (
	"testing"
)

// TestMemoryRefusalNamesLargestFactor: a load refused for the memory
// store's estimate names the key that makes the graph large, found from
// the estimate (the key whose default shrinks it the most), not maxid1
// whatever the cause: nlinks_default for 2000 nodes of 10^9 links each
// (it named maxid1), the payload sizes, dbcount, a class-based out-degree;
// maxid1 when it is the key, or when no key is above its default enough
// to account for a quarter of the estimate (a small memory_limit_mb).
func TestMemoryRefusalNamesLargestFactor(t *testing.T) {
	refused := func(key, value string) []string {
		return []string{"config: " + key + " = \"" + value + "\" (-D): the memory store needs about", "memory_limit_mb"}
	}
	// The refusal is the memory store's: each case names it.
	cases := []badCase{
		{"nlinks_default", []string{"-D", "maxid1=2001", "-D", "nlinks_func=const", "-D", "nlinks_default=1000000000"},
			append(refused("nlinks_default", "1000000000"), "nlinks_default makes it large"), nil},
		{"class-based out-degree", []string{"-D", "maxid1=1001", "-D", "nlinks_func=zipf", "-D", "nlinks_shape=0.5",
			"-D", "nlinks_mean=100000000"}, refused("nlinks_func", "zipf"), nil},
		{"link_datasize", []string{"-D", "maxid1=100001", "-D", "link_datasize=200", "-D", "memory_limit_mb=40"},
			append(refused("link_datasize", "200"), "with link_datasize at its default, 23, the estimate is"), nil},
		{"node_datasize", []string{"-D", "maxid1=1001", "-D", "node_datasize=1000000", "-D", "memory_limit_mb=100"},
			refused("node_datasize", "1000000"), nil},
		{"dbcount", []string{"-D", "maxid1=100001", "-D", "dbcount=100", "-D", "memory_limit_mb=1000"},
			refused("dbcount", "100"), nil},
		{"maxid1 above its default", []string{"-D", "maxid1=10000000001"},
			append(refused("maxid1", "10000000001"), "maxid1 makes it large"), nil},
		{"nothing above its default", []string{"-D", "maxid1=3000001", "-D", "nlinks_func=const", "-D", "nlinks_default=6",
			"-D", "memory_limit_mb=100"}, append(refused("maxid1", "3000001"), "lower maxid1"), nil},
	}
	for i := range cases {
		cases[i].args = append([]string{"-store", "memory"}, cases[i].args...)
	}
	runBadInput(t, cases)
}
