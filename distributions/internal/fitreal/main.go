// Command fitreal derives the built-in models of package distributions from
// LinkBench's Distribution.dat files and writes them as Go source
// (builtin_real.go): for each of the two data vintages (the 2017 file and
// the 2011 one) and each of the five sections (nlinks, link_nreads,
// link_nwrites, node_nreads, node_nwrites), a compact table of knots.
//
// Usage (from the distributions directory; "go generate" runs it with the
// paths where internal/testref finds the reference data by default):
//
//	go run ./internal/fitreal -data2017 /path/Distribution.dat -data2011 /path/Distribution_2011.dat -o builtin_real.go
//
// A model is itself a discrete cumulative distribution with fewer points,
// the same kind of object as a section of the file (reference §7.6), so
// that it serves everywhere a parsed file does: as the REAL out-degree
// (step lookup of the inverse CDF) and as the REAL access distribution
// (layers of the ccdf). It is built by merging consecutive points of the
// file into groups; a group [a, b] becomes one knot (w, P_b): its total mass
// P_b - P_{a-1} is put at the single integer value w in [v_a, v_b], chosen
// as the group's mass-weighted mean value, rounded so that the running
// difference between the model's mean and the file's is carried into the
// next groups (error diffusion); a merge that would leave that difference
// above -mean times the file's mean is refused. The mean value per id
// (LinkBench's expected_val, the mean out-degree or access rate) is
// therefore kept within -mean (1e-4 relative by default, in practice a few
// 1e-8).
//
// Groups grow greedily from the smallest values while two bounds hold over
// the group's value range (both CDFs are step functions changing only at
// integers, so the bounds are checked at w-1 and w):
//
//   - absolute: |F_model(x) - F_file(x)| <= -eps for every x;
//   - relative, in the tail: |S_model(x) - S_file(x)| <= -rel * S_file(x)
//     with S = 1 - F, so the heavy tail keeps its shape (how many ids have
//     more than x links or accesses) on a logarithmic scale.
//
// The defaults (-eps 1e-4 -rel 0.1 -mean 1e-4) give 70 to 141 knots per
// section.
//
// The last point (the largest value, which LinkBench's REAL out-degree gives
// to rank 0) is always a knot of its own, with its exact value, and so is
// every point heavier than -eps (the dense head). The program prints, per
// model, the number of knots, the mean of the model against the file's and
// the largest CDF difference.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/format"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// sections in the order of package distributions' Section constants.
var sections = []string{"nlinks", "link_nreads", "link_nwrites", "node_nreads", "node_nwrites"}

var sectionConst = map[string]string{
	"nlinks":       "SectionNLinks",
	"link_nreads":  "SectionLinkNReads",
	"link_nwrites": "SectionLinkNWrites",
	"node_nreads":  "SectionNodeNReads",
	"node_nwrites": "SectionNodeNWrites",
}

type point struct {
	v   int64
	pct float64 // as in the file
	tok string  // the percent token as written
	p   float64 // pct/100
}

type knot struct {
	v    int64
	tok  string // percent token of the group's last point
	p    float64
	a, b int // the group of file points
}

func main() {
	d17 := flag.String("data2017", "", "path of LinkBench's 2017 Distribution.dat")
	d11 := flag.String("data2011", "", "path of LinkBench's Distribution_2011.dat")
	out := flag.String("o", "builtin_real.go", "output Go file")
	eps := flag.Float64("eps", 1e-4, "largest absolute CDF difference")
	rel := flag.Float64("rel", 0.1, "largest relative difference of the survival function 1 - CDF")
	meanTol := flag.Float64("mean", 1e-4, "largest relative difference of the means (model, file) while merging")
	flag.Parse()
	if *d17 == "" || *d11 == "" {
		fmt.Fprintln(os.Stderr, "fitreal: -data2017 and -data2011 are required")
		os.Exit(2)
	}
	models := map[string]map[string][]knot{}
	for _, vf := range []struct{ name, path string }{{"Vintage2017", *d17}, {"Vintage2011", *d11}} {
		secs, err := readFile(vf.path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fitreal:", err)
			os.Exit(1)
		}
		models[vf.name] = map[string][]knot{}
		for _, s := range sections {
			pts, ok := secs[s]
			if !ok {
				fmt.Fprintf(os.Stderr, "fitreal: %s has no %s section\n", vf.path, s)
				os.Exit(1)
			}
			k := fit(pts, *eps, *rel, *meanTol)
			models[vf.name][s] = k
			report(vf.name, s, pts, k)
		}
	}
	src, err := render(models, *eps, *rel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fitreal:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fitreal:", err)
		os.Exit(1)
	}
}

// readFile returns the points of every section of a Distribution.dat file
// (white-space separated tokens: a section name, then "<value> <percent>"
// pairs). It checks only what the fit relies on; package distributions'
// parser validates the file fully.
func readFile(path string) (map[string][]point, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Split(bufio.ScanWords)
	secs := map[string][]point{}
	cur := ""
	for sc.Scan() {
		t := sc.Text()
		v, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			cur = t
			if _, ok := sectionConst[t]; !ok {
				return nil, fmt.Errorf("%s: unknown section %q", path, t)
			}
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
		pts := secs[cur]
		if n := len(pts); n > 0 && (v <= pts[n-1].v || p < pts[n-1].pct) {
			return nil, fmt.Errorf("%s: section %s is not ascending at value %d", path, cur, v)
		}
		secs[cur] = append(pts, point{v: v, pct: p, tok: pt, p: p / 100})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for s, pts := range secs {
		if pts[len(pts)-1].pct != 100 {
			return nil, fmt.Errorf("%s: section %s does not end at 100 %%", path, s)
		}
	}
	return secs, nil
}

// fileCDF returns F(x), the file's cumulative probability at integer x.
func fileCDF(pts []point, x int64) float64 {
	i := sort.Search(len(pts), func(i int) bool { return pts[i].v > x })
	if i == 0 {
		return 0
	}
	return pts[i-1].p
}

// groupKnot returns the knot value of group [a, b] given the carried mean
// error (model minus file, in value*probability), and the new carry.
func groupKnot(pts []point, a, b int, carry float64) (int64, float64) {
	prev := 0.0
	if a > 0 {
		prev = pts[a-1].p
	}
	mass := pts[b].p - prev
	target := 0.0
	for i := a; i <= b; i++ {
		pp := 0.0
		if i > 0 {
			pp = pts[i-1].p
		}
		target += (pts[i].p - pp) * float64(pts[i].v)
	}
	if a == b || mass <= 0 {
		return pts[b].v, carry + (mass*float64(pts[b].v) - target)
	}
	w := int64(math.Round((target - carry) / mass))
	w = max(pts[a].v, min(pts[b].v, w))
	return w, carry + (mass*float64(w) - target)
}

// within reports whether group [a, b] with knot value w meets the bounds.
func within(pts []point, a, b int, w int64, eps, rel float64) bool {
	prev := 0.0
	if a > 0 {
		prev = pts[a-1].p
	}
	// Below w the model is still at prev; from w on it is at P_b.
	lo := fileCDF(pts, w-1) - prev // model below the file
	hi := pts[b].p - fileCDF(pts, w)
	if lo > eps || hi > eps {
		return false
	}
	if s := 1 - fileCDF(pts, w-1); s <= 0 || lo > rel*s {
		return false
	}
	if s := 1 - fileCDF(pts, w); hi > 0 && (s <= 0 || hi > rel*s) {
		return false
	}
	return true
}

// fit merges the points into knots (see the package documentation).
func fit(pts []point, eps, rel, meanTol float64) []knot {
	var ks []knot
	carry := 0.0
	last := len(pts) - 1
	var vs []int64
	var ps []float64
	for _, p := range pts {
		vs, ps = append(vs, p.v), append(ps, p.p)
	}
	maxCarry := meanTol * expected(vs, ps)
	for a := 0; a <= last; {
		b := a
		if a < last {
			// Extend while the next group [a, b+1] is acceptable; the last
			// point always stays alone.
			for b+1 < last {
				w, c := groupKnot(pts, a, b+1, carry)
				if !within(pts, a, b+1, w, eps, rel) || math.Abs(c) > maxCarry {
					break
				}
				b++
			}
		}
		w, c := groupKnot(pts, a, b, carry)
		carry = c
		ks = append(ks, knot{v: w, tok: pts[b].tok, p: pts[b].p, a: a, b: b})
		a = b + 1
	}
	return balance(pts, ks, carry, eps, rel)
}

// balance reduces the mean error left when the last groups could not absorb
// it (single points keep their values): it moves the value of a merged group
// by one, w ± 1 within the group's values and bounds, choosing each time the
// move that brings the error closest to 0, until no move improves it.
func balance(pts []point, ks []knot, carry, eps, rel float64) []knot {
	for iter := 0; iter < 10000; iter++ {
		best, bestJ, bestW := math.Abs(carry), -1, int64(0)
		for j, k := range ks {
			if k.a == k.b {
				continue
			}
			prev := 0.0
			if k.a > 0 {
				prev = pts[k.a-1].p
			}
			mass := k.p - prev
			for _, w := range []int64{k.v - 1, k.v + 1} {
				if w < pts[k.a].v || w > pts[k.b].v || !within(pts, k.a, k.b, w, eps, rel) {
					continue
				}
				if e := math.Abs(carry + mass*float64(w-k.v)); e < best {
					best, bestJ, bestW = e, j, w
				}
			}
		}
		if bestJ < 0 {
			break
		}
		k := &ks[bestJ]
		prev := 0.0
		if k.a > 0 {
			prev = pts[k.a-1].p
		}
		carry += (k.p - prev) * float64(bestW-k.v)
		k.v = bestW
	}
	return ks
}

func expected(vs []int64, ps []float64) float64 {
	e := ps[0] * float64(vs[0])
	for i := 1; i < len(vs); i++ {
		e += (ps[i] - ps[i-1]) * float64(vs[i])
	}
	return e
}

func report(vintage, sec string, pts []point, ks []knot) {
	var fv, kv []int64
	var fp, kp []float64
	for _, p := range pts {
		fv, fp = append(fv, p.v), append(fp, p.p)
	}
	for _, k := range ks {
		kv, kp = append(kv, k.v), append(kp, k.p)
	}
	ef, em := expected(fv, fp), expected(kv, kp)
	// Largest CDF difference, at every value of either table (both CDFs
	// are right-continuous steps at those values).
	worst, at := 0.0, int64(0)
	for _, x := range append(append([]int64{}, fv...), kv...) {
		i := sort.Search(len(kv), func(i int) bool { return kv[i] > x })
		mc := 0.0
		if i > 0 {
			mc = kp[i-1]
		}
		if d := math.Abs(mc - fileCDF(pts, x)); d > worst {
			worst, at = d, x
		}
	}
	fmt.Fprintf(os.Stderr, "%s %-12s points %5d knots %4d  mean model %.9g file %.9g (%+.2e %%)  max |CDF diff| %.3g at %d\n",
		vintage, sec, len(pts), len(ks), em, ef, 100*(em-ef)/ef, worst, at)
}

func render(models map[string]map[string][]knot, eps, rel float64) ([]byte, error) {
	var b strings.Builder
	b.WriteString("// Code generated by fitreal from LinkBench's Distribution.dat files; DO NOT EDIT.\n\n")
	b.WriteString("// The data files are looked up where internal/testref finds them by default\n")
	b.WriteString("// (../shared/reference beside the repository root).\n")
	b.WriteString("//go:generate go run ./internal/fitreal -data2017 ../../shared/reference/Distribution.dat -data2011 ../../shared/reference/Distribution_2011.dat -o builtin_real.go\n\n")
	b.WriteString("package distributions\n\n")
	fmt.Fprintf(&b, "// builtinCDFTolerance is the fit's bound on |model CDF - file CDF| (fitreal -eps).\n")
	fmt.Fprintf(&b, "const builtinCDFTolerance = %g\n\n", eps)
	fmt.Fprintf(&b, "// builtinSurvivalTolerance is the fit's bound on the relative difference of\n// the survival functions 1 - CDF (fitreal -rel).\n")
	fmt.Fprintf(&b, "const builtinSurvivalTolerance = %g\n\n", rel)
	b.WriteString("// builtinKnots returns the knots of the built-in model of section s of the\n")
	b.WriteString("// given vintage fitted by internal/fitreal: values and cumulative percents\n")
	b.WriteString("// (each the percent of the last file point of its group, as written in the\n")
	b.WriteString("// file). Unknown arguments give nil slices.\n")
	b.WriteString("func builtinKnots(v Vintage, s Section) (values []int64, percents []float64) {\n\tswitch v {\n")
	for _, vn := range []string{"Vintage2017", "Vintage2011"} {
		fmt.Fprintf(&b, "\tcase %s:\n\t\tswitch s {\n", vn)
		for _, s := range sections {
			ks := models[vn][s]
			fmt.Fprintf(&b, "\t\tcase %s: // %d knots\n\t\t\treturn []int64{", sectionConst[s], len(ks))
			for i, k := range ks {
				if i%10 == 0 {
					b.WriteString("\n\t\t\t\t")
				} else {
					b.WriteString(" ")
				}
				fmt.Fprintf(&b, "%d,", k.v)
			}
			b.WriteString("\n\t\t\t}, []float64{")
			for i, k := range ks {
				if i%6 == 0 {
					b.WriteString("\n\t\t\t\t")
				} else {
					b.WriteString(" ")
				}
				fmt.Fprintf(&b, "%s,", k.tok)
			}
			b.WriteString("\n\t\t\t}\n")
		}
		b.WriteString("\t\t}\n")
	}
	b.WriteString("\t}\n\treturn nil, nil\n}\n")
	return format.Source([]byte(b.String()))
}
