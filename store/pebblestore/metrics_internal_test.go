package pebblestore

import (
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// The stall counter counts stalls and their time, the one in progress
// included, and its snapshots never go backwards while stalls begin and
// end.
func TestStallCounter(t *testing.T) {
	s := newStallCounter()
	if c, tot, active := s.load(); c != 0 || tot != 0 || active {
		t.Fatalf("fresh: %d, %v, %v", c, tot, active)
	}
	s.begin(pebble.WriteStallBeginInfo{Reason: "test"})
	time.Sleep(2 * time.Millisecond)
	c, tot, active := s.load()
	if c != 1 || tot < 2*time.Millisecond || !active {
		t.Fatalf("during a stall: %d, %v, %v", c, tot, active)
	}
	s.end()
	s.end() // an unmatched end changes nothing
	c2, tot2, active := s.load()
	if c2 != 1 || tot2 < tot || active {
		t.Fatalf("after the stall: %d, %v, %v", c2, tot2, active)
	}
	time.Sleep(time.Millisecond)
	if _, tot3, _ := s.load(); tot3 != tot2 {
		t.Fatalf("stall time grew without a stall: %v then %v", tot2, tot3)
	}

	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			s.begin(pebble.WriteStallBeginInfo{})
			s.end()
		}
	})
	var last time.Duration
	var lastCount int64
	for range 500000 {
		c, tot, _ := s.load()
		if tot < last || c < lastCount {
			t.Fatalf("snapshot went backwards: %v after %v, %d after %d", tot, last, c, lastCount)
		}
		last, lastCount = tot, c
	}
	close(stop)
	wg.Wait()
}
