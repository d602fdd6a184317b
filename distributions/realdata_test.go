package distributions

import (
	"bytes"
	"errors"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/linkbench-go/linkbench/internal/testref"
)

// realFiles caches the parsed reference files for the tests of this package
// (test-only state).
var realFiles sync.Map

func loadRef(t testing.TB, name string) *RealData {
	t.Helper()
	path := testref.File(t, name)
	if d, ok := realFiles.Load(path); ok {
		return d.(*RealData)
	}
	d, err := LoadRealData(path)
	if err != nil {
		t.Fatal(err)
	}
	realFiles.Store(path, d)
	return d
}

func TestRealDataGolden(t *testing.T) {
	type want struct {
		expected [5]float64 // nlinks, link_nreads, link_nwrites, node_nreads, node_nwrites
		points   [5]int
		csLen    [4]int64 // link_nreads, link_nwrites, node_nreads, node_nwrites
		ec       []int64  // LINKS expectedCount over [1, 1e7+1) at ecIDs
	}
	ecIDs := []int64{1, 2, 3, 10, 100, 1000, 1e4, 1e5, 1e6, 2e6, 5e6, 1e7}
	files := map[string]want{
		"Distribution.dat": {
			expected: [5]float64{3.852637996596112, 0.03754333399562659, 0.015720609361419724, 0.04666096706305678, 0.007654664081361062},
			points:   [5]int{23616, 2824, 2108, 163, 654},
			csLen:    [4]int64{150783, 84507, 2196, 17235},
			ec:       []int64{4181357, 445901, 224947, 81209, 16133, 2942, 300, 22, 2, 2, 1, 1},
		},
		"Distribution_2011.dat": {
			expected: [5]float64{4.0972855115987805, 0.6476064206004146, 0.23067893120031602, 0.1492270178006866, 0.12636460170084196},
			points:   [5]int{19951, 3988, 3941, 1089, 1477},
			csLen:    [4]int64{95719, 75880, 23832, 25126},
			ec:       []int64{961963, 196788, 140837, 68076, 24161, 6056, 265, 15, 3, 2, 1, 0},
		},
	}
	for name, w := range files {
		d := loadRef(t, name)
		for i, s := range []Section{SectionNLinks, SectionLinkNReads, SectionLinkNWrites, SectionNodeNReads, SectionNodeNWrites} {
			if !d.Has(s) {
				t.Fatalf("%s: section %s missing", name, s)
			}
			if got := d.ExpectedValue(s); got != w.expected[i] {
				t.Errorf("%s: expected_val %s = %v, want %v", name, s, got, w.expected[i])
			}
			if got := d.Points(s); got != w.points[i] {
				t.Errorf("%s: %s has %d points, want %d", name, s, got, w.points[i])
			}
			if i > 0 {
				if got := d.MaxValue(s) + 1; got != w.csLen[i-1] {
					t.Errorf("%s: cs length of %s = %d, want %d", name, s, got, w.csLen[i-1])
				}
				// The layer runs hold the area cs[last] = expected_val. Both
				// sums cancel: expected_val adds differences of percents close
				// to 100 (each accurate to ~1e-16 absolute) times values up to
				// 1e5, so the two agree to ~1e-11 relative, not to the ulp.
				if a := d.sec[s].layerRuns()[len(d.sec[s].layerRuns())-1].cum; math.Abs(a-w.expected[i]) > 1e-9*w.expected[i] {
					t.Errorf("%s: layer area of %s = %v, want expected_val %v", name, s, a, w.expected[i])
				}
			}
		}
		rd, err := d.Distribution(SectionNLinks, 1, 10000001)
		if err != nil {
			t.Fatal(err)
		}
		od, err := d.OutDegree(1, 10000001)
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range ecIDs {
			if got := rd.ExpectedCount(id); got != float64(w.ec[i]) {
				t.Errorf("%s: LINKS expectedCount(%d) = %v, want %d", name, id, got, w.ec[i])
			}
			if got := od.NLinks(id); got != w.ec[i] {
				t.Errorf("%s: REAL NLinks(%d) = %d, want %d", name, id, got, w.ec[i])
			}
		}
	}
	// The two vintages: LF and CRLF line endings both parse (the 2011 file
	// in the reference directory has CRLF endings).
	raw, err := os.ReadFile(testref.File(t, "Distribution_2011.dat"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte("\r\n")) {
		t.Log("Distribution_2011.dat has no CRLF line endings; testing CRLF by conversion")
	}
	lf, err := ParseRealData(bytes.NewReader(bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))))
	if err != nil {
		t.Fatal(err)
	}
	crlf, err := ParseRealData(bytes.NewReader(bytes.ReplaceAll(bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))))
	if err != nil {
		t.Fatal(err)
	}
	if lf.ExpectedValue(SectionNLinks) != crlf.ExpectedValue(SectionNLinks) || lf.Points(SectionNodeNWrites) != crlf.Points(SectionNodeNWrites) {
		t.Error("LF and CRLF versions of the 2011 file parse differently")
	}
}

func TestParseRealDataErrors(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{"", "no sections"},
		{"1 50", "token 1: expected a section name"},
		{"nlinks", "section nlinks has no points"},
		{"nlinks 1 50 2", "token 5 (section nlinks, point 2): expected a percent after value 2, got end of input"},
		{"nlinks 1 abc", `token 3 (section nlinks, point 1): expected a percent (decimal number) after value 1, got "abc"`},
		{"nlinks 1 0x1p2", "expected a percent (decimal number)"},
		{"nlinks 1 NaN", "expected a percent (decimal number)"},
		{"nlinks 1 50 1 100", "token 4 (section nlinks, point 2): value 1 does not exceed the previous value 1"},
		{"nlinks 2 50 1 100", "value 1 does not exceed the previous value 2"},
		{"nlinks -1 100", "value -1 is negative"},
		{"nlinks 1 60 2 50 3 100", "percent 50 is below the previous percent 60"},
		{"nlinks 1 101", "percent 101 is outside [0, 100]"},
		{"nlinks 1 50 2 99", "the last percent is 99, expected 100"},
		{"nlinks 1 100 nlinks 1 100", "section nlinks appears twice"},
		{"nlinks 1 100 foo 1 100", `token 4 (section nlinks, point 2): expected an integer value or a section name`},
		{"nlinks 1.0 100", `expected an integer value or a section name (nlinks, link_nreads, link_nwrites, node_nreads or node_nwrites), got "1.0"`},
		{"nlinks 99999999999999999999 100", "value \"99999999999999999999\" is out of range"},
		{"nlinks 1 " + strings.Repeat("9", maxTokenBytes+10), "token longer than"},
	}
	for _, c := range cases {
		_, err := ParseRealData(strings.NewReader(c.in))
		if err == nil {
			t.Errorf("ParseRealData(%.40q) succeeded, want error containing %q", c.in, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseRealData(%.40q) = %q, want it to contain %q", c.in, err, c.want)
		}
	}
	// Accepted: last percent within 1e-9 of 100, sections in any order,
	// any white space.
	d, err := ParseRealData(strings.NewReader("node_nwrites\t0 99\r\n5 99.9999999999\nnlinks 1 100"))
	if err != nil {
		t.Fatal(err)
	}
	if !d.Has(SectionNodeNWrites) || !d.Has(SectionNLinks) || d.Has(SectionLinkNReads) {
		t.Error("sections not reported correctly")
	}
	if !math.IsNaN(d.ExpectedValue(SectionLinkNReads)) {
		t.Error("ExpectedValue of an absent section is not NaN")
	}
	// Missing sections are reported where they are needed.
	var pe *ParamError
	if _, err := d.Distribution(SectionLinkNReads, 0, 10); !errors.As(err, &pe) || pe.Param != "real" {
		t.Errorf("Distribution(link_nreads) on data without it: %v", err)
	}
	if _, err := d.Distribution(SectionNodeNWrites, 0, 10); !errors.As(err, &pe) || !strings.Contains(err.Error(), "link_nwrites") {
		t.Errorf("node_nwrites without link_nwrites: %v, want an error naming link_nwrites", err)
	}
	if _, err := LoadRealData("/nonexistent/Distribution.dat"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadRealData of a missing file: %v, want os.ErrNotExist", err)
	}
}

func TestParseSection(t *testing.T) {
	for in, want := range map[string]Section{
		"nlinks": SectionNLinks, "links": SectionNLinks, "LINK_READS": SectionLinkNReads, "link_nreads": SectionLinkNReads,
		"link_writes": SectionLinkNWrites, " node_reads ": SectionNodeNReads, "node_writes": SectionNodeNWrites, "node_nwrites": SectionNodeNWrites,
	} {
		if got, err := ParseSection(in); err != nil || got != want {
			t.Errorf("ParseSection(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseSection("nodes"); err == nil || !strings.Contains(err.Error(), "link_reads") {
		t.Errorf("ParseSection(nodes) = %v, want an error listing the names", err)
	}
	for s := SectionNLinks; s < numSections; s++ {
		if got, err := ParseSection(s.String()); err != nil || got != s {
			t.Errorf("ParseSection(%v.String()) = %v, %v", s, got, err)
		}
	}
}

// FuzzParseRealData checks that no input makes the parser (or the
// distributions built from what it accepts) panic.
func FuzzParseRealData(f *testing.F) {
	f.Add([]byte("nlinks 1 79.7 2 90 4181357 100\nlink_nreads 0 99.3 3 100"))
	f.Add([]byte("node_nwrites\r\n0 99\r\n5 100\r\nlink_nwrites 0 50 1 100"))
	f.Add([]byte("nlinks 1 50 2"))
	f.Add([]byte("link_nreads 0 100"))
	f.Add([]byte("nlinks 9223372036854775807 100"))
	f.Add([]byte("link_nreads 0 99 16777217 100"))
	f.Add([]byte("link_nwrites 0 99.5 1 99.9 300 100 node_nwrites 0 90 2 100"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseRealData(bytes.NewReader(data))
		if err != nil {
			return
		}
		for s := SectionNLinks; s < numSections; s++ {
			if !d.Has(s) {
				continue
			}
			_ = d.ExpectedValue(s)
			rd, err := d.Distribution(s, 1, 1001)
			if err != nil {
				continue
			}
			r := NewJavaRandom(1)
			for i := 0; i < 20; i++ {
				if v := rd.Choose(r); v < 1 || v >= 1001 {
					t.Fatalf("section %s: Choose = %d outside [1, 1001)", s, v)
				}
			}
			_ = rd.ExpectedCount(1)
			_ = rd.CDF(500)
			_ = rd.PDF(1)
		}
		if od, err := d.OutDegree(0, 100); err == nil {
			for s := int64(0); s < 100; s++ {
				if od.NLinks(s) < 0 {
					t.Fatalf("negative out-degree")
				}
			}
		}
		// The Java-compatible sampler: cursors (refused beyond 2^22 layers)
		// and draws in range for every REAL kind it can build.
		cur, err := NewRealCursors(d)
		if err != nil {
			return
		}
		for _, k := range []AccessKind{LinkReads, LinkWrites, NodeReads, NodeUpdates} {
			a, err := javaAccess(k, Spec{Kind: KindReal}, 1, 1001, d, cur)
			if err != nil {
				continue
			}
			r := NewJavaRandom(2)
			for i := 0; i < 20; i++ {
				if v := a.NextID(r, 0); v < 1 || v >= 1001 {
					t.Fatalf("%v: Java NextID = %d outside [1, 1001)", k, v)
				}
			}
		}
	})
}

// A section's layers, the form an access distribution samples, are built
// only for the sections sampled that way: LinkBench's nlinks section
// (23616 points) serves the out-degree, which reads its points only.
func TestRealDataLayersOnFirstUse(t *testing.T) {
	d, err := LoadRealData(testref.File(t, "Distribution.dat")) // not loadRef's: other tests build its layers
	if err != nil {
		t.Fatal(err)
	}
	nl := d.sec[SectionNLinks]
	if nl.layers != nil {
		t.Fatal("nlinks has layers after parsing")
	}
	od, err := d.OutDegree(1, 200_001)
	if err != nil {
		t.Fatal(err)
	}
	_ = od.NLinks(12345)
	if nl.layers != nil {
		t.Error("the nlinks out-degree built the nlinks layers")
	}
	if cap(nl.values) > len(nl.values)+len(nl.values)/16 {
		t.Errorf("nlinks values: capacity %d for %d points", cap(nl.values), len(nl.values))
	}
	if _, err := d.Distribution(SectionLinkNReads, 1, 200_001); err != nil {
		t.Fatal(err)
	}
	if d.sec[SectionLinkNReads].layers == nil {
		t.Error("link_nreads has no layers after its Distribution was made")
	}
}
