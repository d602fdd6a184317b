//go:build !unix

package hostmetrics

import (
	"testing"
	"time"
)

// selfCPU is not available here (hostmetrics needs Linux anyway).
func selfCPU(*testing.T) time.Duration { return time.Hour }
