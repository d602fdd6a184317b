package cli

import (
	"testing"
)

// TestVerifyAloneOnMemoryStore: -verify without -l or -r on a store that
// starts empty is refused (one line naming -verify, exit 2, nothing run
// or written), with or without -c; it used to run the main job first when
// no -c was given. (The -D keys keep the main job short, should it run.)
func TestVerifyAloneOnMemoryStore(t *testing.T) {
	short := []string{"-D", "maxid1=1001", "-D", "maxtime=1", "-D", "requesters=1"}
	runBadInput(t, []badCase{
		{"-verify", append([]string{"-verify"}, short...), []string{"-verify", "memory store starts empty"}, nil},
		{"-verify -store memory", append([]string{"-verify", "-store", "memory"}, short...), []string{"-verify", "memory store starts empty"}, nil},
		{"-verify with linkstore", append([]string{"-verify", "-D", "linkstore=memory"}, short...), []string{"-verify", "memory store starts empty"}, nil},
	})
}
