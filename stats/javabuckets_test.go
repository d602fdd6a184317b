package stats

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestJavaBuckets checks the bucket-range line against reference §10.2's
// LatencyStats golden line: the percentile buckets exactly; max and mean
// are the HDR histogram's (within its 3 significant digits of LinkBench's
// exact 20000ms and 2167.015ms).
func TestJavaBuckets(t *testing.T) {
	for _, unit := range []time.Duration{time.Microsecond, time.Nanosecond} {
		a := newRec(t, Options{HighestUs: 1e8, SigFigs: 3, Unit: unit})
		b := newRec(t, Options{HighestUs: 1e8, SigFigs: 3, Unit: unit})
		for i, v := range goldenGetNode {
			[]*Recorder{a, b}[i%2].Record(GetNode, Success, us(v))
		}
		a.Record(AddLink, Success, us(1234))
		rep := merge(t, PhaseRequest, a, b)
		var buf bytes.Buffer
		if err := rep.WriteJavaBuckets(&buf); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("unit %v: %d lines:\n%s", unit, len(lines), buf.String())
		}
		// GET_NODE (ordinal 3) comes before ADD_LINK (4).
		gn := regexp.MustCompile(`^(GET_NODE count = 10  p25 = \[0\.2,0\.3\]ms  p50 = \[2,3\]ms  p75 = \[12,13\]ms  p95 = \[1000,2000\]ms  p99 = \[1000,2000\]ms)  max = ([0-9.]+)ms  mean = ([0-9.]+)ms threads = 2$`)
		m := gn.FindStringSubmatch(lines[0])
		if m == nil {
			t.Fatalf("unit %v GET_NODE:\n got %q\nwant %v", unit, lines[0], gn)
		}
		within := func(name, s string, want float64) {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.Abs(v-want) > want*0.001 {
				t.Errorf("unit %v %s = %s, want %v within 0.1 %%", unit, name, s, want)
			}
		}
		within("GET_NODE max", m[2], 20000)
		within("GET_NODE mean", m[3], 2167.015)
		al := regexp.MustCompile(`^ADD_LINK count = 1  p25 = \[0,0\.1\]ms  p50 = \[0,0\.1\]ms  p75 = \[0,0\.1\]ms  p95 = \[0,0\.1\]ms  p99 = \[0,0\.1\]ms  max = ([0-9.]+)ms  mean = ([0-9.]+)ms threads = 2$`)
		if m := al.FindStringSubmatch(lines[1]); m == nil {
			t.Errorf("unit %v ADD_LINK:\n got %q\nwant %v", unit, lines[1], al)
		} else {
			within("ADD_LINK max", m[1], 1.234)
			within("ADD_LINK mean", m[2], 1.234)
		}
	}
}

func TestJavaBucketTable(t *testing.T) {
	for us := int64(0); us < 1e8; us += 100 {
		b := javaBucket(us)
		lo, hi := javaBucketBounds(b)
		if b < 0 || b >= javaBuckets || us < lo || us >= hi {
			t.Fatalf("%d us: bucket %d [%d,%d)", us, b, lo, hi)
		}
	}
}
