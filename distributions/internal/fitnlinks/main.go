// Command fitnlinks derives the built-in out-degree model of package
// distributions from the nlinks section of LinkBench's Distribution.dat and
// writes it as Go source (builtin_nlinks.go).
//
// Usage (from the distributions directory; "go generate" runs it with the
// path where internal/testref finds the reference data by default):
//
//	go run ./internal/fitnlinks -data /path/to/Distribution.dat -o builtin_nlinks.go
//
// The model is a step inverse-CDF like LinkBench's REAL out-degree (reference
// §5.4, §7.6): for u in (P_{j-1}, P_j] the value is v_j. It keeps every point
// of the dense head exactly (all values up to -head, with their cumulative
// probabilities as written in the file), and the file's largest value as the
// value at u = 1 (rank 0). Between the head and the largest value it keeps a
// few tail knots chosen by the Douglas-Peucker algorithm on the curve
// (x, y) = (-ln(1-P), ln v): a file point becomes a knot while some point
// lies more than -tol away (in ln v) from the straight line between its
// neighbouring knots, or while two knots are more than -gap apart in P.
// Between tail knots the model interpolates ln v linearly in ln(1-P) and
// rounds up (the file's steps take the value of their upper end).
//
// The program prints the fit quality to stderr: mean of the model vs the
// file's expected value, and the largest difference between the model's CDF
// and the file's.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/format"
	"math"
	"os"
	"strconv"
	"strings"
)

type point struct {
	v   int64
	pct float64 // as in the file
	tok string  // the percent token as written
	// kpct is the percent the model uses for a knot at this point: pct,
	// except in the sparse tail (see adjust).
	kpct float64
	ktok string
}

func main() {
	data := flag.String("data", "", "path of LinkBench's Distribution.dat (2017 version)")
	out := flag.String("o", "builtin_nlinks.go", "output Go file")
	head := flag.Int64("head", 50, "keep every point with a value <= head exactly")
	tol := flag.Float64("tol", 0.01, "largest deviation of ln(value) from the interpolated tail")
	gap := flag.Float64("gap", 1, "largest gap in cumulative probability between tail knots")
	mid := flag.Bool("mid", true, "place sparse-tail knots at the middle of their step (see adjust)")
	flag.Parse()
	if *data == "" {
		fmt.Fprintln(os.Stderr, "fitnlinks: -data is required")
		os.Exit(2)
	}
	pts, err := readNLinks(*data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fitnlinks:", err)
		os.Exit(1)
	}
	if *mid {
		adjust(pts, *head)
	}
	knots, nhead := fit(pts, *head, *tol, *gap)
	report(pts, knots, nhead)
	src, err := render(pts, knots, nhead, *head, *tol, *gap)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fitnlinks:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fitnlinks:", err)
		os.Exit(1)
	}
}

// readNLinks returns the points of the nlinks section (white-space separated
// tokens: a section name, then "<value> <percent>" pairs).
func readNLinks(path string) ([]point, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Split(bufio.ScanWords)
	var pts []point
	in := false
	for sc.Scan() {
		t := sc.Text()
		v, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			if in {
				break
			}
			in = t == "nlinks"
			continue
		}
		if !in {
			continue
		}
		if !sc.Scan() {
			return nil, fmt.Errorf("%s: value %d without a percent", path, v)
		}
		pt := sc.Text()
		p, err := strconv.ParseFloat(pt, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: bad percent %q", path, pt)
		}
		pts = append(pts, point{v: v, pct: p, tok: pt, kpct: p, ktok: pt})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(pts) < 3 {
		return nil, fmt.Errorf("%s: no nlinks section with at least 3 points", path)
	}
	if pts[len(pts)-1].pct != 100 {
		return nil, fmt.Errorf("%s: nlinks does not end at 100 %%", path)
	}
	return pts, nil
}

// adjust moves the knot position of every tail point whose value exceeds
// the previous value by more than 1 (the sparse tail, where one step of the
// file spans many values) to the middle of its step: P' = (P_{i-1} + P_i)/2.
// The file gives all of (P_{i-1}, P_i] the value v_i, its upper end; a curve
// through the upper ends of such steps lies below the staircase and
// underestimates the mean, a curve through their middles does not. In the
// dense part (consecutive values) the curve through the upper ends, rounded
// up, reproduces the steps exactly, so those points keep P_i. The last point
// (the maximum, a step of its own) is not moved.
func adjust(pts []point, head int64) {
	for i := 1; i < len(pts)-1; i++ {
		if pts[i].v <= head || pts[i].v-pts[i-1].v <= 1 {
			continue
		}
		k := (pts[i-1].pct + pts[i].pct) / 2
		pts[i].kpct = k
		pts[i].ktok = strconv.FormatFloat(k, 'g', -1, 64)
	}
}

// fit returns the knots (indexes into pts) and the number of head knots.
func fit(pts []point, head int64, tol, gap float64) ([]int, int) {
	var knots []int
	for i, p := range pts {
		if p.v <= head {
			knots = append(knots, i)
		}
	}
	nhead := len(knots)
	if nhead == 0 {
		knots = append(knots, 0)
		nhead = 1
	}
	a := knots[len(knots)-1]
	b := len(pts) - 2 // the last interpolated knot; the final point is a step
	x := func(i int) float64 { return -math.Log((100 - pts[i].kpct) / 100) }
	y := func(i int) float64 { return math.Log(float64(pts[i].v)) }
	var tail []int
	var dp func(a, b int)
	dp = func(a, b int) {
		worst, wi := 0.0, -1
		for i := a + 1; i < b; i++ {
			t := (x(i) - x(a)) / (x(b) - x(a))
			d := math.Abs(y(i) - (y(a) + t*(y(b)-y(a))))
			if d > worst {
				worst, wi = d, i
			}
		}
		if wi < 0 {
			return
		}
		if worst <= tol && (pts[b].kpct-pts[a].kpct)/100 <= gap {
			return
		}
		if worst <= tol {
			wi = (a + b) / 2 // split on the probability gap alone
		}
		dp(a, wi)
		tail = append(tail, wi)
		dp(wi, b)
	}
	if b > a {
		dp(a, b)
		tail = append(tail, b)
	}
	knots = append(knots, tail...)
	knots = append(knots, len(pts)-1)
	return knots, nhead
}

// model evaluates the knot model as package distributions does.
type model struct {
	v     []int64
	p, lq []float64 // P and ln(1-P)
	ly    []float64 // ln v
	nhead int
}

func newModel(pts []point, knots []int, nhead int) *model {
	m := &model{nhead: nhead}
	for _, k := range knots {
		m.v = append(m.v, pts[k].v)
		m.p = append(m.p, pts[k].kpct/100)
		m.lq = append(m.lq, math.Log((100-pts[k].kpct)/100))
		m.ly = append(m.ly, math.Log(float64(pts[k].v)))
	}
	return m
}

// interpolated reports whether the interval ending at knot j interpolates.
func (m *model) interpolated(j int) bool { return j >= m.nhead && j < len(m.v)-1 }

// qAt returns 1-u where the interpolated curve of the interval ending at
// knot j reaches value x (ln x linear in ln(1-u)).
func (m *model) qAt(j int, x float64) float64 {
	t := (math.Log(x) - m.ly[j-1]) / (m.ly[j] - m.ly[j-1])
	return math.Exp(m.lq[j-1] + t*(m.lq[j]-m.lq[j-1]))
}

// mean is the exact integral of the model's step values over u in (0, 1].
func (m *model) mean() float64 {
	s := m.p[0] * float64(m.v[0])
	for j := 1; j < len(m.v); j++ {
		if !m.interpolated(j) {
			s += (m.p[j] - m.p[j-1]) * float64(m.v[j])
			continue
		}
		// Value L holds where the curve lies in (L-1, L].
		qPrev := 1 - m.p[j-1]
		for L := m.v[j-1] + 1; L <= m.v[j]; L++ {
			q := m.qAt(j, float64(L))
			if L == m.v[j] {
				q = 1 - m.p[j]
			}
			s += float64(L) * (qPrev - q)
			qPrev = q
		}
	}
	return s
}

func report(pts []point, knots []int, nhead int) {
	m := newModel(pts, knots, nhead)
	e := pts[0].pct / 100 * float64(pts[0].v)
	for i := 1; i < len(pts); i++ {
		e += (pts[i].pct - pts[i-1].pct) / 100 * float64(pts[i].v)
	}
	mm := m.mean()
	// Largest CDF difference, checked at every file value and every integer
	// of the interpolated range (both CDFs only change at integers).
	worst, at := 0.0, int64(0)
	fi := 0
	k := 0
	for x := pts[0].v; x <= pts[len(pts)-1].v; x++ {
		for fi+1 < len(pts) && pts[fi+1].v <= x {
			fi++
		}
		for k+1 < len(m.v) && m.v[k+1] <= x {
			k++
		}
		var mc float64
		if k+1 < len(m.v) && m.interpolated(k+1) {
			mc = 1 - m.qAt(k+1, float64(x))
		} else {
			mc = m.p[k]
		}
		if d := math.Abs(mc - pts[fi].pct/100); d > worst {
			worst, at = d, x
		}
	}
	maxGap := 0.0
	for j := nhead; j < len(m.p); j++ {
		maxGap = math.Max(maxGap, m.p[j]-m.p[j-1])
	}
	fmt.Fprintf(os.Stderr, "knots %d (head %d, tail %d); mean model %.6f file %.6f (%+.3f %%); max |CDF diff| %.3g at %d; max tail knot gap %.3g\n",
		len(knots), nhead, len(knots)-nhead, mm, e, 100*(mm-e)/e, worst, at, maxGap)
}

func render(pts []point, knots []int, nhead int, head int64, tol, gap float64) ([]byte, error) {
	var b strings.Builder
	b.WriteString("// Code generated by fitnlinks from the nlinks section of LinkBench's Distribution.dat; DO NOT EDIT.\n\n")
	b.WriteString("// The data file is looked up where internal/testref finds it by default\n")
	b.WriteString("// (../shared/reference beside the repository root).\n")
	b.WriteString("//go:generate go run ./internal/fitnlinks -data ../../shared/reference/Distribution.dat -o builtin_nlinks.go\n\n")
	b.WriteString("package distributions\n\n")
	fmt.Fprintf(&b, "// builtinNLinksKnots returns the knots of the built-in out-degree model\n")
	fmt.Fprintf(&b, "// fitted by internal/fitnlinks (-head %d -tol %g -gap %g) to the nlinks\n", head, tol, gap)
	b.WriteString("// section of LinkBench's 2017 Distribution.dat: the values, their cumulative\n")
	b.WriteString("// percents as written in the file, and the number of head knots (steps);\n")
	b.WriteString("// the knots after the head interpolate, except the last (a step).\n")
	b.WriteString("func builtinNLinksKnots() (values []int64, percents []float64, head int) {\n")
	b.WriteString("\tvalues = []int64{")
	for i, k := range knots {
		if i%10 == 0 {
			b.WriteString("\n\t\t")
		} else {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%d,", pts[k].v)
	}
	b.WriteString("\n\t}\n\tpercents = []float64{")
	for i, k := range knots {
		if i%6 == 0 {
			b.WriteString("\n\t\t")
		} else {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s,", pts[k].ktok)
	}
	fmt.Fprintf(&b, "\n\t}\n\treturn values, percents, %d\n}\n", nhead)
	return format.Source([]byte(b.String()))
}
