package stats

import "fmt"

// Op is a LinkBench operation (LinkBenchOp). The values and their order are
// LinkBench's ordinals, which is also the order of every report.
type Op uint8

// LinkBench's operations (reference §9.1). The first ten are the request
// phase's operations; the load phase records LoadNodeBulk, LoadLink,
// LoadLinksBulk and LoadCountsBulk; RangeSize, LoadLinksBulkNLinks and
// LoadCountsBulkNLinks record sizes (rows) rather than latencies.
const (
	AddNode              Op = iota // ADD_NODE
	UpdateNode                     // UPDATE_NODE
	DeleteNode                     // DELETE_NODE
	GetNode                        // GET_NODE
	AddLink                        // ADD_LINK
	DeleteLink                     // DELETE_LINK
	UpdateLink                     // UPDATE_LINK
	CountLink                      // COUNT_LINK
	MultigetLink                   // MULTIGET_LINK
	GetLinksList                   // GET_LINKS_LIST
	LoadNodeBulk                   // LOAD_NODE_BULK
	LoadLink                       // LOAD_LINK
	LoadLinksBulk                  // LOAD_LINKS_BULK
	LoadCountsBulk                 // LOAD_COUNTS_BULK
	RangeSize                      // RANGE_SIZE
	LoadLinksBulkNLinks            // LOAD_LINKS_BULK_NLINKS
	LoadCountsBulkNLinks           // LOAD_COUNTS_BULK_NLINKS
	Unknown                        // UNKNOWN
	// NumOps is the number of operations (LinkBench's MAX_OPTYPES, 18).
	NumOps = int(Unknown) + 1
)

var opNames = [NumOps]string{
	"ADD_NODE", "UPDATE_NODE", "DELETE_NODE", "GET_NODE",
	"ADD_LINK", "DELETE_LINK", "UPDATE_LINK", "COUNT_LINK", "MULTIGET_LINK", "GET_LINKS_LIST",
	"LOAD_NODE_BULK", "LOAD_LINK", "LOAD_LINKS_BULK", "LOAD_COUNTS_BULK",
	"RANGE_SIZE", "LOAD_LINKS_BULK_NLINKS", "LOAD_COUNTS_BULK_NLINKS", "UNKNOWN",
}

// String returns LinkBench's name of the operation, e.g. "GET_LINKS_LIST".
func (o Op) String() string {
	if int(o) < NumOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// ParseOp returns the Op whose LinkBench name is s (e.g. "ADD_LINK").
func ParseOp(s string) (Op, error) {
	for i, n := range opNames {
		if n == s {
			return Op(i), nil
		}
	}
	return Unknown, fmt.Errorf("stats: unknown operation %q", s)
}

// IsRequest reports whether o is one of the ten request-phase operations.
func (o Op) IsRequest() bool { return o <= GetLinksList }

// IsSize reports whether o records sizes (rows) rather than latencies:
// RangeSize, LoadLinksBulkNLinks and LoadCountsBulkNLinks (reference §9.1).
func (o Op) IsSize() bool {
	return o == RangeSize || o == LoadLinksBulkNLinks || o == LoadCountsBulkNLinks
}

// MarshalText returns the operation's LinkBench name (as String); it fails
// for a value >= NumOps.
func (o Op) MarshalText() ([]byte, error) {
	if int(o) >= NumOps {
		return nil, fmt.Errorf("stats: undefined operation %d", uint8(o))
	}
	return []byte(opNames[o]), nil
}

// UnmarshalText parses a LinkBench operation name (as ParseOp).
func (o *Op) UnmarshalText(b []byte) error {
	op, err := ParseOp(string(b))
	if err != nil {
		return err
	}
	*o = op
	return nil
}
