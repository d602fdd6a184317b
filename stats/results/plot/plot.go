// Package plot draws LinkBench results: throughput over time and per-op
// p99 over time from interval histograms, and HDR percentile-distribution
// curves per operation, several results overlaid with a legend. It writes
// PNG or SVG with gonum.org/v1/plot; it lives apart from the results
// package so that the core library does not depend on a plotting library.
//
// The input is one Series per result: per operation, what its HDR
// interval log (hdrhistogram-go's HistogramLogWriter format, read by
// ReadLog) holds: per interval the count and p99, and all values merged.
package plot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/linkbench-go/linkbench/internal/atomicfile"
)

// OpSeries is one operation of a result: its intervals in time order and
// its values over all of them.
type OpSeries struct {
	Op string // the operation's name, e.g. "GET_LINKS_LIST"
	// Unit is the duration of one histogram value; 0 means a nanosecond
	// (the unit linkbench records latencies in by default, and
	// HdrHistogram's log convention).
	Unit      time.Duration
	Intervals []IntervalStat
	// Hist holds every value of the operation (nil: none); its
	// percentile distribution is drawn.
	Hist *hdr.Histogram
	// P99, when not empty, is the p99 over time drawn (milliseconds);
	// otherwise it is Intervals' P99.
	P99 []Point
}

// IntervalStat is what one interval histogram of an operation holds.
type IntervalStat struct {
	StartMs, EndMs int64 // Unix milliseconds (or relative: only differences count)
	Count          int64 // values recorded
	P99            int64 // the value at the 99th percentile, in OpSeries.Unit
}

// AddInterval appends interval histogram h (StartTimeMs and EndTimeMs
// set) to o: its count and p99, and its values to o.Hist. h is not kept.
func (o *OpSeries) AddInterval(h *hdr.Histogram) {
	o.Intervals = append(o.Intervals, IntervalStat{StartMs: h.StartTimeMs(), EndMs: h.EndTimeMs(), Count: h.TotalCount(), P99: h.ValueAtQuantile(99)})
	if h.TotalCount() == 0 {
		return
	}
	if o.Hist == nil {
		o.Hist = hdr.New(max(1, h.LowestTrackableValue()), h.HighestTrackableValue(), int(h.SignificantFigures()))
	}
	o.Hist.Merge(h)
}

// Point is one value of a time series: T seconds after the start of the
// result, and the value V.
type Point struct{ T, V float64 }

// Series is one result to draw: one line of each panel.
type Series struct {
	Label string // the legend entry
	// Start is the time the series' T = 0 stands for; zero means the
	// earliest interval start of Ops.
	Start time.Time
	Ops   []OpSeries
	// Rate, when not empty, is the throughput drawn over time (for
	// example rows/s of a load); otherwise the throughput is computed from
	// Ops: every operation's values per interval, summed, divided by the
	// interval's length.
	Rate []Point
}

// Options are the figure's settings; the zero value is usable.
type Options struct {
	Title     string    // drawn above the figure when not empty
	RateLabel string    // the throughput axis label; default "operations/s"
	Ops       []string  // the operations drawn, in this order; default: every op with values, in first-seen order
	Width     vg.Length // default 10 inches
	RowHeight vg.Length // the height of each row of panels; default 2.6 inches
	// LogY draws latencies (p99 over time, latency by percentile) on a
	// logarithmic axis, for tails that are orders of magnitude above the
	// median; values <= 0 are then left out.
	LogY bool
}

// colors is a dark palette (plotutil's soft one is hard to read on white).
var colors = [...]color.RGBA{
	{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
	{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	{R: 0xbc, G: 0xbd, B: 0x22, A: 0xff},
	{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
}

// lineColor is the color of series i.
func lineColor(i int) color.RGBA { return colors[i%len(colors)] }

// lineStyle is the style of series i: a color, and a dash pattern once
// the colors repeat.
func lineStyle(i int) draw.LineStyle {
	s := draw.LineStyle{Color: lineColor(i), Width: vg.Points(1.2)}
	if k := i / len(colors); k > 0 {
		s.Dashes = []vg.Length{vg.Points(float64(2 + 2*k)), vg.Points(2)}
	}
	return s
}

// ReadLog reads the HDR interval log of operation op (hdrhistogram-go's
// HistogramLogWriter format, also Java HdrHistogram's), values in unit
// (0: nanoseconds), one interval at a time: the histograms are not kept.
func ReadLog(r io.Reader, op string, unit time.Duration) (OpSeries, error) {
	o := OpSeries{Op: op, Unit: unit}
	lr := hdr.NewHistogramLogReader(r)
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return o, fmt.Errorf("plot: reading the HDR interval log of %s: %w", op, err)
		}
		if h == nil {
			return o, nil
		}
		o.AddInterval(h)
	}
}

// ReadLogFile reads the HDR interval log at path (see ReadLog).
func ReadLogFile(path, op string, unit time.Duration) (OpSeries, error) {
	f, err := os.Open(path)
	if err != nil {
		return OpSeries{}, fmt.Errorf("plot: %w", err)
	}
	defer f.Close()
	o, err := ReadLog(f, op, unit)
	if err != nil {
		return o, fmt.Errorf("%s: %w", path, err)
	}
	return o, nil
}

// start returns Start, or the earliest interval start of s, in Unix
// milliseconds.
func (s Series) start() (int64, bool) {
	if !s.Start.IsZero() {
		return s.Start.UnixMilli(), true
	}
	var t int64
	found := false
	for _, o := range s.Ops {
		for _, iv := range o.Intervals {
			if !found || iv.StartMs < t {
				t, found = iv.StartMs, true
			}
		}
	}
	return t, found
}

// Throughput returns the series' throughput over time: Rate when it is
// set, otherwise per interval (intervals of the operations are matched by
// their start and end times) the values of every operation divided by the
// interval's length, at the interval's end, in seconds from the earliest
// interval's start.
func (s Series) Throughput() []Point {
	if len(s.Rate) > 0 {
		return s.Rate
	}
	t0, ok := s.start()
	if !ok {
		return nil
	}
	type span struct{ start, end int64 }
	counts := map[span]int64{}
	for _, o := range s.Ops {
		for _, iv := range o.Intervals {
			counts[span{iv.StartMs, iv.EndMs}] += iv.Count
		}
	}
	spans := make([]span, 0, len(counts))
	for sp := range counts {
		if sp.end > sp.start {
			spans = append(spans, sp)
		}
	}
	slices.SortFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return int(a.start - b.start)
		}
		return int(a.end - b.end)
	})
	pts := make([]Point, len(spans))
	for i, sp := range spans {
		pts[i] = Point{T: float64(sp.end-t0) / 1000, V: float64(counts[sp]) / (float64(sp.end-sp.start) / 1000)}
	}
	return pts
}

// toMs converts histogram values in unit u (0: nanoseconds) to milliseconds.
func toMs(v int64, u time.Duration) float64 {
	if u == 0 {
		u = time.Nanosecond
	}
	return float64(v) * float64(u) / float64(time.Millisecond)
}

// P99OverTime returns P99 when it is set, otherwise for each interval with
// values its p99 in milliseconds, at the interval's end in seconds from t0
// (Unix milliseconds).
func (o OpSeries) P99OverTime(t0 int64) []Point {
	if len(o.P99) > 0 {
		return o.P99
	}
	var pts []Point
	for _, iv := range o.Intervals {
		if iv.Count == 0 {
			continue
		}
		pts = append(pts, Point{T: float64(iv.EndMs-t0) / 1000, V: toMs(iv.P99, o.Unit)})
	}
	return pts
}

// pointsPerDecade is the resolution of a percentile-distribution curve.
const pointsPerDecade = 40

// Distribution returns op's percentile distribution over all its
// intervals as HdrHistogram's plotter draws it: x = 1/(1−q) (1 at the
// median's left end, 10 at the 90th percentile, 100 at the 99th, ...) up
// to the count of values, and the value at quantile q in milliseconds.
func (o OpSeries) Distribution() []Point {
	m := o.Hist
	if m == nil || m.TotalCount() == 0 {
		return nil
	}
	n := float64(m.TotalCount())
	xmax := max(n, 10)
	steps := int(math.Ceil(math.Log10(xmax) * pointsPerDecade))
	pts := make([]Point, 0, steps+1)
	for i := 0; i <= steps; i++ {
		x := math.Min(math.Pow(10, float64(i)/pointsPerDecade), xmax)
		q := 1 - 1/x
		pts = append(pts, Point{T: x, V: toMs(m.ValueAtQuantile(100*q), o.Unit)})
	}
	return pts
}

// positive returns the points of pts with V > 0.
func positive(pts []Point) []Point {
	out := make([]Point, 0, len(pts))
	for _, p := range pts {
		if p.V > 0 {
			out = append(out, p)
		}
	}
	return out
}

// percentileTicks labels a 1/(1−q) axis in percentiles: a major tick at
// each power of ten (0%, 90%, 99%, 99.9%, ...) and minor ticks between.
type percentileTicks struct{}

// Ticks implements gonum's plot.Ticker.
func (percentileTicks) Ticks(lo, hi float64) []gplot.Tick {
	var ts []gplot.Tick
	for k := 0; math.Pow(10, float64(k)) <= hi*1.0000001; k++ {
		p := math.Pow(10, float64(k))
		if p >= lo*0.9999999 {
			ts = append(ts, gplot.Tick{Value: p, Label: percentileLabel(k)})
		}
		for m := 2; m < 10; m++ {
			if v := float64(m) * p; v >= lo && v <= hi {
				ts = append(ts, gplot.Tick{Value: v})
			}
		}
	}
	return ts
}

// percentileLabel is the percentile at x = 10^k: 1 − 10^−k, in percent.
func percentileLabel(k int) string {
	switch k {
	case 0:
		return "0%"
	case 1:
		return "90%"
	case 2:
		return "99%"
	}
	return "99." + strings.Repeat("9", k-2) + "%"
}

func xys(pts []Point) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i] = plotter.XY{X: p.T, Y: p.V}
	}
	return out
}

// addLine draws pts as series i's line in p, with a legend entry when
// legend is set. A single point (or a segment of one) is drawn as a dot
// so it shows.
func addLine(p *gplot.Plot, pts []Point, i int, label string, legend bool) error {
	if len(pts) == 0 {
		return nil
	}
	l, err := plotter.NewLine(xys(pts))
	if err != nil {
		return fmt.Errorf("plot: %s: %w", label, err)
	}
	l.LineStyle = lineStyle(i)
	p.Add(l)
	if len(pts) == 1 {
		s, err := plotter.NewScatter(xys(pts))
		if err != nil {
			return fmt.Errorf("plot: %s: %w", label, err)
		}
		s.GlyphStyle.Color = lineColor(i)
		s.GlyphStyle.Radius = vg.Points(2)
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(s)
	}
	if legend {
		p.Legend.Add(label, l)
	}
	return nil
}

// addTimeLine draws a time series as addLine does, broken where
// intervals have no values: wherever consecutive points are more than
// twice the median distance apart (with at least three points).
func addTimeLine(p *gplot.Plot, pts []Point, i int, label string, legend bool) error {
	segs := splitGaps(pts)
	for k, seg := range segs {
		if err := addLine(p, seg, i, label, legend && k == 0); err != nil {
			return err
		}
	}
	return nil
}

// splitGaps splits pts (in time order) where consecutive points are more
// than twice the median distance apart.
func splitGaps(pts []Point) [][]Point {
	if len(pts) < 3 {
		return [][]Point{pts}
	}
	d := make([]float64, len(pts)-1)
	for k := range d {
		d[k] = pts[k+1].T - pts[k].T
	}
	sorted := slices.Clone(d)
	slices.Sort(sorted)
	limit := 2 * sorted[len(sorted)/2]
	var segs [][]Point
	start := 0
	for k, dk := range d {
		if dk > limit {
			segs = append(segs, pts[start:k+1])
			start = k + 1
		}
	}
	return append(segs, pts[start:])
}

// numberTicks are gonum's default ticks with plain labels: 5000000 and
// 250 rather than 5000000.00 and 250.00.
type numberTicks struct{}

// Ticks implements gonum's plot.Ticker.
func (numberTicks) Ticks(lo, hi float64) []gplot.Tick {
	ts := gplot.DefaultTicks{}.Ticks(lo, hi)
	for k := range ts {
		if ts[k].Label != "" {
			v, _ := strconv.ParseFloat(strconv.FormatFloat(ts[k].Value, 'g', 10, 64), 64)
			ts[k].Label = strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return ts
}

// logTicks label a logarithmic axis: at the powers of ten in range, or,
// when fewer than two of them are (values within one decade), at the 1-2-5
// steps, or at every 1..9 step, in range; an axis narrower than two such
// steps (3.1 to 3.4) gets numberTicks' linear ticks. Every step 1..9 of
// each decade has a tick, labelled or not. (gonum's LogTicks labels only
// powers of ten, so a panel within one decade had no label.)
type logTicks struct{}

// logMantissas are the labelled steps of a decade logTicks tries, in order.
var logMantissas = [...][]int{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}

// Ticks implements gonum's plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(lo > 0 && hi >= lo) || math.IsInf(hi, 1) {
		return numberTicks{}.Ticks(lo, hi)
	}
	const eps = 1e-9 // a tick at an end of the range, up to rounding
	in := func(v float64) bool { return v >= lo*(1-eps) && v <= hi*(1+eps) }
	kLo, kHi := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	for _, ms := range logMantissas {
		var ts []gplot.Tick
		labels := 0
		for k := kLo; k <= kHi; k++ {
			for m := 1; m <= 9; m++ {
				// m·10^k, from its decimal text: 3e-3 is 0.003 exactly as
				// printed, not 3·0.001.
				v, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(k), 64)
				if !in(v) {
					continue
				}
				t := gplot.Tick{Value: v}
				if slices.Contains(ms, m) {
					t.Label = strconv.FormatFloat(v, 'f', -1, 64)
					labels++
				}
				ts = append(ts, t)
			}
		}
		if labels >= 2 {
			return ts
		}
	}
	return numberTicks{}.Ticks(lo, hi)
}

func newPlot(title, x, y string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Label.TextStyle.Font.Size = vg.Points(9)
	p.Y.Label.TextStyle.Font.Size = vg.Points(9)
	p.X.Tick.Label.Font.Size = vg.Points(8)
	p.Y.Tick.Label.Font.Size = vg.Points(8)
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	p.X.Tick.Marker = numberTicks{}
	p.Y.Tick.Marker = numberTicks{}
	p.Y.Min = 0
	return p
}

// opNames returns the operations to draw: opts.Ops, or every operation of
// series with values, in first-seen order.
func opNames(series []Series, opts Options) []string {
	if len(opts.Ops) > 0 {
		return opts.Ops
	}
	var names []string
	for _, s := range series {
		for _, o := range s.Ops {
			if !slices.Contains(names, o.Op) && (o.Hist != nil || len(o.P99) > 0) {
				names = append(names, o.Op)
			}
		}
	}
	return names
}

func findOp(s Series, name string) (OpSeries, bool) {
	for _, o := range s.Ops {
		if o.Op == name {
			return o, true
		}
	}
	return OpSeries{}, false
}

// ErrNoData is returned (wrapped) when the series have nothing to draw.
var ErrNoData = errors.New("plot: no interval data to draw")

// Figure is a drawn figure: one panel of throughput over time on top, then
// for each operation a row with its p99 over time (left) and its
// percentile distribution (right).
type Figure struct {
	rate  *gplot.Plot
	rows  [][]*gplot.Plot
	title string
	w, h  vg.Length
	rowH  vg.Length
}

// New draws series (one line per series in every panel, in the order
// given) into a Figure. It returns ErrNoData, wrapped, when no series has
// an interval with values.
func New(series []Series, opts Options) (*Figure, error) {
	if opts.Width == 0 {
		opts.Width = 10 * vg.Inch
	}
	if opts.RowHeight == 0 {
		opts.RowHeight = 2.6 * vg.Inch
	}
	if opts.RateLabel == "" {
		opts.RateLabel = "operations/s"
	}
	f := &Figure{title: opts.Title, w: opts.Width, rowH: opts.RowHeight}
	f.rate = newPlot("throughput", "seconds", opts.RateLabel)
	f.rate.X.Min = 0
	f.rate.Legend.Left = true
	drawn := false
	for i, s := range series {
		pts := s.Throughput()
		drawn = drawn || len(pts) > 0
		if err := addTimeLine(f.rate, pts, i, s.Label, true); err != nil {
			return nil, err
		}
	}
	for _, name := range opNames(series, opts) {
		overTime := newPlot(name+" p99", "seconds", "ms")
		overTime.X.Min = 0
		dist := newPlot(name+" latency by percentile", "percentile", "ms")
		dist.X.Scale = gplot.LogScale{}
		dist.X.Tick.Marker = percentileTicks{}
		dist.Legend.Left = true
		if opts.LogY {
			for _, p := range []*gplot.Plot{overTime, dist} {
				p.Y.Scale = gplot.LogScale{}
				p.Y.Tick.Marker = logTicks{}
				p.Y.Min = math.Inf(1) // set from the data
			}
		}
		for i, s := range series {
			o, ok := findOp(s, name)
			if !ok {
				continue
			}
			t0, _ := s.start()
			q := o.P99OverTime(t0)
			d := o.Distribution()
			if opts.LogY {
				q, d = positive(q), positive(d)
			}
			drawn = drawn || len(q) > 0 || len(d) > 0
			if err := addTimeLine(overTime, q, i, s.Label, false); err != nil {
				return nil, err
			}
			if err := addLine(dist, d, i, s.Label, true); err != nil {
				return nil, err
			}
		}
		if !(dist.X.Min <= dist.X.Max) {
			dist.X.Min, dist.X.Max = 1, 10 // no data: a range the log axis can draw
		}
		dist.X.Min = max(dist.X.Min, 1)
		for _, p := range []*gplot.Plot{overTime, dist} {
			if opts.LogY && !(p.Y.Min > 0 && p.Y.Min <= p.Y.Max) {
				p.Y.Min, p.Y.Max = 0.001, 1 // no data: a range a log axis can draw
			}
		}
		f.rows = append(f.rows, []*gplot.Plot{overTime, dist})
	}
	if !drawn {
		return nil, ErrNoData
	}
	f.h = vg.Length(1+len(f.rows)) * f.rowH
	if f.title != "" {
		f.h += 0.4 * vg.Inch
	}
	return f, nil
}

// Size returns the figure's width and height.
func (f *Figure) Size() (w, h vg.Length) { return f.w, f.h }

// Draw draws the figure on c, whose size should be f.Size().
func (f *Figure) Draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	if f.title != "" {
		top := 0.4 * vg.Inch
		tc := draw.Crop(c, 0, 0, c.Max.Y-c.Min.Y-top, 0)
		sty := draw.TextStyle{
			Color:   color.Black,
			Font:    gplot.DefaultFont,
			XAlign:  draw.XCenter,
			YAlign:  draw.YCenter,
			Handler: gplot.DefaultTextHandler,
		}
		sty.Font.Size = vg.Points(14)
		tc.FillText(sty, tc.Center(), f.title)
		c = draw.Crop(c, 0, 0, 0, -top)
	}
	pad := vg.Points(6)
	rate := draw.Crop(c, pad, -pad, c.Max.Y-c.Min.Y-f.rowH+pad, -pad)
	f.rate.Draw(rate)
	if len(f.rows) == 0 {
		return
	}
	rest := draw.Crop(c, 0, 0, 0, -f.rowH)
	t := draw.Tiles{Rows: len(f.rows), Cols: 2, PadX: 3 * pad, PadY: 2 * pad, PadLeft: pad, PadRight: pad, PadBottom: pad, PadTop: pad}
	canvases := gplot.Align(f.rows, t, rest)
	for j, row := range f.rows {
		for i, p := range row {
			p.Draw(canvases[j][i])
		}
	}
}

// Format returns the image format for path's extension: "png" or "svg".
func Format(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		return "png", nil
	case ".svg":
		return "svg", nil
	default:
		return "", fmt.Errorf("plot: %s: want a .png or .svg file name", path)
	}
}

// WriteTo writes the figure to w as format "png" or "svg".
func (f *Figure) WriteTo(w io.Writer, format string) error {
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.New(f.w, f.h)}
	case "svg":
		c = vgsvg.New(f.w, f.h)
	default:
		return fmt.Errorf("plot: unsupported format %q (want png or svg)", format)
	}
	f.Draw(draw.New(c))
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("plot: writing %s: %w", format, err)
	}
	return nil
}

// WriteFile draws series and writes them to path, as PNG or SVG by its
// extension; path never holds a partial figure.
func WriteFile(path string, series []Series, opts Options) error {
	format, err := Format(path)
	if err != nil {
		return err
	}
	fig, err := New(series, opts)
	if err != nil {
		return err
	}
	// Under its name only when complete (a temporary file, synced and
	// renamed).
	out, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if err := fig.WriteTo(out, format); err != nil {
		out.Abort()
		return err
	}
	if err := out.Commit(); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}
