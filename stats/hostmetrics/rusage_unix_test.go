//go:build unix

package hostmetrics

import (
	"syscall"
	"testing"
	"time"
)

// selfCPU returns this process's user + system CPU time by getrusage.
func selfCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
