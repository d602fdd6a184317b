package plot

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	gplot "gonum.org/v1/plot"
)

// writeLog writes an HDR interval log of n one-second intervals from
// start (Unix ms), interval i holding count(i) values drawn by value(i, j).
func writeLog(t *testing.T, start int64, n int, count func(i int) int, value func(i, j int) int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := hdr.NewHistogramLogWriter(&buf)
	if err := w.OutputLogFormatVersion(); err != nil {
		t.Fatal(err)
	}
	if err := w.OutputStartTime(start); err != nil {
		t.Fatal(err)
	}
	w.SetBaseTime(start)
	if err := w.OutputBaseTime(start); err != nil {
		t.Fatal(err)
	}
	if err := w.OutputLegend(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		h := hdr.New(1, 3_600_000_000, 2)
		for j := range count(i) {
			if err := h.RecordValue(value(i, j)); err != nil {
				t.Fatal(err)
			}
		}
		h.SetStartTimeMs(start + int64(i)*1000)
		h.SetEndTimeMs(start + int64(i+1)*1000)
		if err := w.OutputIntervalHistogram(h); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// testSeries returns two results with two operations each: the second
// result is twice as slow and half as fast.
func testSeries(t *testing.T) []Series {
	t.Helper()
	var out []Series
	for k, label := range []string{"innodb", "rocksdb"} {
		start := int64(1_700_000_000_000 + k*3_600_000)
		var s Series
		s.Label = label
		for o, op := range []string{"GET_NODE", "UPDATE_LINK"} {
			// interval i: (1000 + 100 i) / (k+1) values spread evenly over
			// 1..1000 us, times (o+1)(k+1)
			count := func(i int) int { return (1000 + 100*i) / (k + 1) }
			log := writeLog(t, start, 10, count,
				func(i, j int) int64 { return int64((j*1000/count(i) + 1) * (o + 1) * (k + 1)) })
			os, err := ReadLog(bytes.NewReader(log), op, time.Microsecond)
			if err != nil {
				t.Fatal(err)
			}
			if len(os.Intervals) != 10 {
				t.Fatalf("ReadLog: %d intervals, want 10", len(os.Intervals))
			}
			s.Ops = append(s.Ops, os)
		}
		out = append(out, s)
	}
	return out
}

func TestSeriesFigures(t *testing.T) {
	series := testSeries(t)
	tp := series[1].Throughput()
	if len(tp) != 10 {
		t.Fatalf("throughput: %d points, want 10", len(tp))
	}
	for i, p := range tp {
		// two ops, each (1000+100i)/2 values in 1 s
		want := float64(2 * ((1000 + 100*i) / 2))
		if math.Abs(p.T-float64(i+1)) > 1e-9 || math.Abs(p.V-want) > 1e-9 {
			t.Errorf("throughput[%d] = %+v, want {T:%d V:%g}", i, p, i+1, want)
		}
	}
	// UPDATE_LINK of rocksdb: values 4..4000 us, uniform: p99 about 3.96 ms.
	t0, _ := series[1].start()
	q := series[1].Ops[1].P99OverTime(t0)
	if len(q) != 10 {
		t.Fatalf("p99 over time: %d points, want 10", len(q))
	}
	for _, p := range q {
		if math.Abs(p.V-3.96) > 0.04 {
			t.Errorf("p99 at %gs = %g ms, want 3.96 ± 0.04", p.T, p.V)
		}
	}
	d := series[1].Ops[1].Distribution()
	if d[0].T != 1 || math.Abs(d[0].V-0.004) > 0.0001 {
		t.Errorf("distribution starts at %+v, want x=1 (0%%), 0.004 ms", d[0])
	}
	var at100 float64
	for _, p := range d {
		if math.Abs(p.T-100) < 1e-9 {
			at100 = p.V
		}
	}
	if math.Abs(at100-3.96) > 0.04 {
		t.Errorf("distribution at x=100 (p99) = %g ms, want 3.96 ± 0.04", at100)
	}
	m := series[1].Ops[1].Hist
	if last := d[len(d)-1]; last.T != float64(m.TotalCount()) {
		t.Errorf("distribution ends at x=%g, want the count %d", last.T, m.TotalCount())
	}
	for k, want := range []string{"0%", "90%", "99%", "99.9%", "99.99%"} {
		if got := percentileLabel(k); got != want {
			t.Errorf("percentileLabel(%d) = %q, want %q", k, got, want)
		}
	}
}

func TestWritePNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.png")
	if d := os.Getenv("PLOT_KEEP_DIR"); d != "" {
		path = filepath.Join(d, "out.png")
	}
	if err := WriteFile(path, testSeries(t), Options{Title: "test"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding the PNG: %v", err)
	}
	b := img.Bounds()
	// 10 in wide at 96 dpi; 3 rows of 2.6 in plus the title's 0.4 in.
	if b.Dx() != 960 || b.Dy() != int(math.Round((3*2.6+0.4)*96)) {
		t.Errorf("PNG is %dx%d, want 960x%d", b.Dx(), b.Dy(), int(math.Round((3*2.6+0.4)*96)))
	}
	colors := map[[3]uint32]int{}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bb, _ := img.At(x, y).RGBA()
			colors[[3]uint32{r >> 8, g >> 8, bb >> 8}]++
		}
	}
	white := colors[[3]uint32{255, 255, 255}]
	total := (b.Dx() / 2) * (b.Dy() / 2)
	if white == total || len(colors) < 10 {
		t.Fatalf("PNG looks blank: %d of %d sampled pixels white, %d colors", white, total, len(colors))
	}
	// Both series' line colors appear.
	for i := range 2 {
		c := colors[[3]uint32{uint32(lineColor(i).R), uint32(lineColor(i).G), uint32(lineColor(i).B)}]
		if c == 0 {
			t.Errorf("series %d's color %v is not in the image", i, lineColor(i))
		}
	}
}

func TestWriteSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.svg")
	if err := WriteFile(path, testSeries(t), Options{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	var root string
	elements, texts := 0, 0
	var chars strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse as XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = e.Name.Local
			}
			elements++
			if e.Name.Local == "text" {
				texts++
			}
		case xml.CharData:
			chars.Write(e)
		}
	}
	if root != "svg" || elements < 50 {
		t.Fatalf("SVG root %q with %d elements, want svg with many", root, elements)
	}
	for _, want := range []string{"innodb", "rocksdb", "GET_NODE p99", "UPDATE_LINK latency by percentile", "99.9%", "throughput"} {
		if !strings.Contains(chars.String(), want) {
			t.Errorf("SVG text lacks %q", want)
		}
	}
}

func TestErrors(t *testing.T) {
	if _, err := Format("out.jpg"); err == nil {
		t.Error("Format(out.jpg): no error")
	}
	if _, err := New([]Series{{Label: "empty"}}, Options{}); err == nil {
		t.Error("New with no data: no error")
	}
}

// TestLogY draws latencies on log axes, including a panel of an operation
// no series has (a log axis needs a positive range even then).
func TestLogY(t *testing.T) {
	var buf bytes.Buffer
	fig, err := New(testSeries(t), Options{LogY: true, Ops: []string{"GET_NODE", "ADD_NODE"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := fig.WriteTo(&buf, "svg"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">0.1<", ">1<", "ADD_NODE p99"} {
		if !bytes.Contains(buf.Bytes(), []byte(want)) {
			t.Errorf("log-axis SVG lacks %q", want)
		}
	}
	if err := fig.WriteTo(io.Discard, "gif"); err == nil {
		t.Error("WriteTo gif: no error")
	}
	// The same empty panel on linear latency axes.
	fig, err = New(testSeries(t), Options{Ops: []string{"ADD_NODE", "GET_NODE"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := fig.WriteTo(io.Discard, "png"); err != nil {
		t.Fatal(err)
	}
}

func TestSplitGaps(t *testing.T) {
	pts := []Point{{1, 1}, {2, 1}, {3, 1}, {9, 1}, {10, 1}, {11, 1}, {30, 1}}
	segs := splitGaps(pts)
	var lens []int
	for _, s := range segs {
		lens = append(lens, len(s))
	}
	if fmt.Sprint(lens) != "[3 3 1]" {
		t.Errorf("splitGaps: segment lengths %v, want [3 3 1]", lens)
	}
	if got := splitGaps(pts[:2]); len(got) != 1 {
		t.Errorf("splitGaps of 2 points: %d segments, want 1", len(got))
	}
	for _, tk := range (numberTicks{}).Ticks(0, 5e6) {
		if strings.Contains(tk.Label, ".") || strings.Contains(tk.Label, "e") {
			t.Errorf("tick label %q, want a plain integer", tk.Label)
		}
	}
}

// labelledIn returns the labels of ts' labelled ticks within [lo, hi],
// failing the test on a label that does not print its tick's value.
func labelledIn(t *testing.T, ts []gplot.Tick, lo, hi float64) []string {
	t.Helper()
	var labels []string
	for _, tk := range ts {
		if tk.Label == "" || tk.Value < lo*(1-1e-9) || tk.Value > hi*(1+1e-9) {
			continue
		}
		if v, err := strconv.ParseFloat(tk.Label, 64); err != nil || math.Abs(v-tk.Value) > 1e-9*math.Abs(tk.Value) {
			t.Errorf("tick %g labelled %q", tk.Value, tk.Label)
		}
		labels = append(labels, tk.Label)
	}
	return labels
}

// TestLogYTicksWithinOneDecade: with -logy, a panel whose values stay
// within one decade (2 to 8 ms, 2.1 to 7.9 us) has labelled y ticks (at
// 1-2-5 steps there): gonum's LogTicks labels only powers of ten, and
// such a panel had none. The figure is rendered and each panel's y
// ticker is called on the panel's range, as gonum's axis calls it; the
// ticker alone is checked on ranges of every width, fixed seed.
func TestLogYTicksWithinOneDecade(t *testing.T) {
	op := func(name string, unit time.Duration, lo, hi int64) OpSeries {
		h := hdr.New(1, 3_600_000_000, 3)
		for v := lo; v <= hi; v += max(1, (hi-lo)/500) {
			if err := h.RecordValue(v); err != nil {
				t.Fatal(err)
			}
		}
		o := OpSeries{Op: name, Unit: unit, Hist: h}
		for i := range 10 {
			o.P99 = append(o.P99, Point{T: float64(i + 1), V: toMs(lo+(hi-lo)*int64(i)/10, unit)})
		}
		return o
	}
	series := []Series{{Label: "one decade", Rate: []Point{{1, 100}, {2, 120}, {3, 110}},
		Ops: []OpSeries{op("GET_NODE", time.Microsecond, 2000, 8000), op("ADD_NODE", time.Nanosecond, 2100, 7900)}}}
	fig, err := New(series, Options{LogY: true})
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := fig.WriteTo(&svg, "svg"); err != nil {
		t.Fatal(err)
	}
	if len(fig.rows) != 2 {
		t.Fatalf("%d rows, want 2", len(fig.rows))
	}
	for _, row := range fig.rows {
		for _, p := range row {
			labels := labelledIn(t, p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max), p.Y.Min, p.Y.Max)
			if len(labels) < 2 {
				t.Errorf("panel %q (y %g to %g ms): labelled y ticks %v, want at least 2", p.Title.Text, p.Y.Min, p.Y.Max, labels)
			}
			for _, l := range labels {
				if !bytes.Contains(svg.Bytes(), []byte(">"+l+"<")) {
					t.Errorf("panel %q: the SVG does not draw the tick label %q", p.Title.Text, l)
				}
			}
		}
	}

	rng := rand.New(rand.NewPCG(1, 2))
	ranges := [][2]float64{{2, 8}, {3.1, 3.4}, {0.0021, 0.0079}, {11, 19}, {150, 700}, {1, 1000}, {0.9, 1.1}, {999, 1001}}
	for range 2000 {
		lo := math.Pow(10, -4+10*rng.Float64())
		ranges = append(ranges, [2]float64{lo, lo * math.Pow(10, 3*rng.Float64()*rng.Float64())})
	}
	for _, r := range ranges {
		if n := len(labelledIn(t, logTicks{}.Ticks(r[0], r[1]), r[0], r[1])); n < 2 {
			t.Errorf("logTicks on %g to %g: %d labelled ticks, want at least 2", r[0], r[1], n)
		}
	}
}
