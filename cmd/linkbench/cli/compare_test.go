package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/stats/results/plot"
)

func fp(v float64) *float64 { return &v }

// raw is one configuration's measured figures: a load and a request phase.
type raw struct {
	label                    string
	ips, lwmb, lcpu          float64 // load
	tps, rs, rmb, wmb, cpu   float64 // request
	un, gn, ul, gl           time.Duration
	sizeGB, rssGB, clientCPU float64
}

// configs are three configurations; the first two are issue 9's published
// rows, the third half as fast as the first with twice its reads.
var configs = []raw{
	{"rocksdb.a", 55646, 69.5, 5.1, 23557, 30212, 202.6, 138.8, 22.3, 2 * time.Millisecond, 500 * time.Microsecond, 3 * time.Millisecond, 1500 * time.Microsecond, 12.5, 8.25, 2.3},
	{"rocksdb.b", 61323, 96.5, 5.1, 22930, 28291, 339.0, 109.7, 21.2, 2500 * time.Microsecond, 400 * time.Microsecond, 3300 * time.Microsecond, 1200 * time.Microsecond, 11.0, 9.5, 2.0},
	{"innodb", 27823, 139.0, 10.2, 11778.5, 60424, 405.2, 277.6, 44.6, 4 * time.Millisecond, time.Millisecond, 6 * time.Millisecond, 3 * time.Millisecond, 25.0, 16.5, 4.6},
}

// writeResultFiles writes a load and a request result file per config in
// dir and returns their paths: loads first, then requests.
func writeResultFiles(t *testing.T, dir string) []string {
	t.Helper()
	var loads, reqs []string
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range configs {
		lm := results.Metrics{Seconds: 600, WriteMBPerSec: fp(c.lwmb), CPU: fp(c.lcpu), SizeGB: fp(c.sizeGB), ServerRSSGB: fp(c.rssGB), ServerCPU: fp(c.lcpu - c.clientCPU/4), ClientCPU: fp(c.clientCPU / 4)}
		lf := &results.File{Label: c.label, Phase: stats.PhaseLoad, Store: "mysql", Start: start, End: start.Add(600 * time.Second), Seconds: 600,
			Rows: int64(c.ips * 600), Host: &results.Host{Summary: lm}}
		lf.Derive()
		qm := results.Metrics{Seconds: 1800, ReadsPerSec: fp(c.rs), ReadMBPerSec: fp(c.rmb), WriteMBPerSec: fp(c.wmb), CPU: fp(c.cpu), SizeGB: fp(c.sizeGB + 1), ServerRSSGB: fp(c.rssGB), ServerCPU: fp(c.cpu - c.clientCPU), ClientCPU: fp(c.clientCPU)}
		qf := &results.File{Label: c.label, Tag: "L1.P16", Phase: stats.PhaseRequest, Store: "mysql", Start: start, End: start.Add(1800 * time.Second), Seconds: 1800,
			Requests: int64(c.tps * 1800), Host: &results.Host{Summary: qm}}
		for op, p99 := range map[stats.Op]time.Duration{stats.UpdateNode: c.un, stats.GetNode: c.gn, stats.UpdateLink: c.ul, stats.GetLinksList: c.gl} {
			qf.Ops = append(qf.Ops, results.Op{Op: op, Count: 1000, Successes: 1000, Latency: &results.Percentiles{P99: p99}})
		}
		qf.Derive()
		lp, qp := filepath.Join(dir, c.label+".load.json"), filepath.Join(dir, c.label+".L1.json")
		if err := results.Write(lp, lf); err != nil {
			t.Fatal(err)
		}
		if err := results.Write(qp, qf); err != nil {
			t.Fatal(err)
		}
		loads, reqs = append(loads, lp), append(reqs, qp)
	}
	return append(loads, reqs...)
}

// csvBlocks parses compare's CSV output: tables separated by blank lines.
func csvBlocks(t *testing.T, out string) [][][]string {
	t.Helper()
	var blocks [][][]string
	for _, b := range strings.Split(strings.TrimSpace(out), "\n\n") {
		recs, err := csv.NewReader(strings.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("CSV block %q: %v", b, err)
		}
		blocks = append(blocks, recs)
	}
	return blocks
}

func cell(t *testing.T, block [][]string, row int, col string) string {
	t.Helper()
	for j, h := range block[0] {
		if h == col {
			return block[row][j]
		}
	}
	t.Fatalf("no column %q in %q", col, block[0])
	return ""
}

func TestCompareBaseline(t *testing.T) {
	paths := writeResultFiles(t, t.TempDir())
	for _, sel := range []string{"rocksdb.a", "1"} {
		t.Run("baseline="+sel, func(t *testing.T) {
			code, out, errs := runCLI(t, append([]string{"compare", "-format", "csv", "-baseline", sel}, paths...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			blocks := csvBlocks(t, out)
			if len(blocks) != 4 {
				t.Fatalf("%d CSV tables, want 4 (load, load ratios, query, query ratios):\n%s", len(blocks), out)
			}
			load, loadRatio, query, queryRatio := blocks[0], blocks[1], blocks[2], blocks[3]
			wantLoad := []string{"ips", "r/i", "rkb/i", "wkb/i", "Mcpu/i", "sMcpu/i", "size", "rss", "wMB/s", "cpu", "tag", "label"}
			wantQuery := []string{"tps", "r/t", "rkb/t", "wkb/t", "Mcpu/t", "sMcpu/t", "size", "rss", "un", "gn", "ul", "gl", "r/s", "rMB/s", "wMB/s", "cpu", "tag", "label"}
			if got := strings.Join(load[0], ","); got != strings.Join(wantLoad, ",") || strings.Join(loadRatio[0], ",") != got {
				t.Errorf("load headers %q and %q, want %q", load[0], loadRatio[0], wantLoad)
			}
			if got := strings.Join(query[0], ","); got != strings.Join(wantQuery, ",") || strings.Join(queryRatio[0], ",") != got {
				t.Errorf("query headers %q and %q, want %q", query[0], queryRatio[0], wantQuery)
			}
			if len(load) != 4 || len(query) != 4 || len(loadRatio) != 3 || len(queryRatio) != 3 {
				t.Fatalf("rows: load %d, query %d, ratios %d and %d; want 3, 3, 2, 2 (plus headers)", len(load)-1, len(query)-1, len(loadRatio)-1, len(queryRatio)-1)
			}
			// One row per file, in the order given, the label last.
			for i, c := range configs {
				if l := load[i+1][len(load[i+1])-1]; l != c.label {
					t.Errorf("load row %d label %q, want %q", i+1, l, c.label)
				}
				if l := query[i+1][len(query[i+1])-1]; l != c.label {
					t.Errorf("query row %d label %q, want %q", i+1, l, c.label)
				}
			}
			f2 := func(v float64) string { return fmt.Sprintf("%.2f", v) }
			a := configs[0]
			for i, c := range configs[1:] {
				r := i + 1
				if got, want := cell(t, loadRatio, r, "label"), c.label+"/rocksdb.a"; got != want {
					t.Errorf("load ratio row %d label %q, want %q", r, got, want)
				}
				if got := cell(t, loadRatio, r, "tag"); got != "ratio" {
					t.Errorf("load ratio row %d tag %q, want ratio", r, got)
				}
				checks := map[string]string{
					"ips":    f2(c.ips / a.ips),
					"wkb/i":  f2((c.lwmb / c.ips) / (a.lwmb / a.ips)),
					"Mcpu/i": f2((c.lcpu / c.ips) / (a.lcpu / a.ips)),
					// server-only: host cpu minus the client's own
					"sMcpu/i": f2(((c.lcpu - c.clientCPU/4) / c.ips) / ((a.lcpu - a.clientCPU/4) / a.ips)),
					"size":    f2(c.sizeGB / a.sizeGB),
					"rss":     f2(c.rssGB / a.rssGB),
					"wMB/s":   f2(c.lwmb / a.lwmb),
					"cpu":     f2(c.lcpu / a.lcpu),
					"r/i":     "-", // not measured in the load: missing, never 0
				}
				for col, want := range checks {
					if got := cell(t, loadRatio, r, col); got != want {
						t.Errorf("load ratio %s %s = %s, want %s", c.label, col, got, want)
					}
				}
				checks = map[string]string{
					"tps":     f2(c.tps / a.tps),
					"r/t":     f2((c.rs / c.tps) / (a.rs / a.tps)),
					"rkb/t":   f2((c.rmb / c.tps) / (a.rmb / a.tps)),
					"wkb/t":   f2((c.wmb / c.tps) / (a.wmb / a.tps)),
					"Mcpu/t":  f2((c.cpu / c.tps) / (a.cpu / a.tps)),
					"sMcpu/t": f2(((c.cpu - c.clientCPU) / c.tps) / ((a.cpu - a.clientCPU) / a.tps)),
					"size":    f2((c.sizeGB + 1) / (a.sizeGB + 1)),
					"un":      f2(float64(c.un) / float64(a.un)),
					"gn":      f2(float64(c.gn) / float64(a.gn)),
					"ul":      f2(float64(c.ul) / float64(a.ul)),
					"gl":      f2(float64(c.gl) / float64(a.gl)),
					"r/s":     f2(c.rs / a.rs),
					"rMB/s":   f2(c.rmb / a.rmb),
					"wMB/s":   f2(c.wmb / a.wmb),
					"cpu":     f2(c.cpu / a.cpu),
					"label":   c.label + ".L1.P16/rocksdb.a.L1.P16",
				}
				for col, want := range checks {
					if got := cell(t, queryRatio, r, col); got != want {
						t.Errorf("query ratio %s %s = %s, want %s", c.label, col, got, want)
					}
				}
			}
			// Spot values of the data rows: the published derived columns.
			for col, want := range map[string]string{"r/t": "1.28", "rkb/t": "8.60", "wkb/t": "5.89", "tps": "23557", "un": "2.000", "gl": "1.500"} {
				if got := cell(t, query, 1, col); got != want {
					t.Errorf("query row 1 %s = %s, want %s", col, got, want)
				}
			}
			if got := cell(t, query, 2, "r/t"); got != "1.23" {
				t.Errorf("query row 2 r/t = %s, want 1.23", got)
			}
			// The innodb ratio row, by hand: half the tps, twice the reads
			// per second, so four times the reads per request.
			if got := cell(t, queryRatio, 2, "tps"); got != "0.50" {
				t.Errorf("innodb/rocksdb.a tps = %s, want 0.50", got)
			}
			if got := cell(t, queryRatio, 2, "r/t"); got != "4.00" {
				t.Errorf("innodb/rocksdb.a r/t = %s, want 4.00", got)
			}
		})
	}
}

func TestCompareText(t *testing.T) {
	paths := writeResultFiles(t, t.TempDir())
	code, out, errs := runCLI(t, append([]string{"compare", "-baseline", "2"}, paths...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"load:\n", "load ratio to rocksdb.b:\n", "query:\n", "query ratio to rocksdb.b.L1.P16:\n",
		"rocksdb.a/rocksdb.b\n", "innodb.L1.P16/rocksdb.b.L1.P16\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("compare -baseline 2:\n%s", out)
	lines := strings.Split(out, "\n")
	if f := strings.Fields(lines[1]); len(f) < 2 || f[len(f)-2] != "tag" || f[len(f)-1] != "label" {
		t.Errorf("load header %q does not end with tag, label", lines[1])
	}
	code, out, errs = runCLI(t, append([]string{"compare", "-format", "markdown"}, paths...)...)
	if code != 0 {
		t.Fatalf("markdown: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "load:\n\n| ips | r/i |") || !strings.Contains(out, "query:\n\n| tps |") || strings.Contains(out, "ratio") {
		t.Errorf("markdown output:\n%s", out)
	}
}

func TestCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	paths := writeResultFiles(t, dir)
	notResult := filepath.Join(dir, "x.json")
	if err := os.WriteFile(notResult, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare"}, "no result file"},
		{[]string{"compare", "-format", "xml", paths[0]}, "-format"},
		{append([]string{"compare", "-baseline", "4"}, paths...), "-baseline 4"},
		{append([]string{"compare", "-baseline", "mongo"}, paths...), "-baseline mongo"},
		{[]string{"compare", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"compare", notResult}, "x.json"},
		{[]string{"plot", paths[3]}, "-o"},
		{[]string{"plot", paths[3], "-o", filepath.Join(dir, "out.jpg")}, "-o"},
		{[]string{"plot", "-o", filepath.Join(dir, "out.png")}, "no result file"},
		{[]string{"plot", paths[3], "-ops", "RANGE_SIZE", "-o", filepath.Join(dir, "out.png")}, "-ops"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "linkbench: ") || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing, one line naming %q", c.args, code, out, errs, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.png")); err == nil {
		t.Error("a bad plot command wrote out.png")
	}
}

// writePlotResult writes a request result file with progress intervals and
// HDR interval logs for GET_NODE and UPDATE_LINK, latencies scaled by k.
func writePlotResult(t *testing.T, dir, label string, k int) string {
	t.Helper()
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	f := &results.File{Label: label, Phase: stats.PhaseRequest, Store: "memory", Start: start, End: start.Add(10 * time.Second), Seconds: 10, Requests: 20000, HDRUnit: time.Microsecond}
	for o, name := range []string{"GET_NODE", "UPDATE_LINK"} {
		var buf bytes.Buffer
		w := hdr.NewHistogramLogWriter(&buf)
		if err := w.OutputStartTime(start.UnixMilli()); err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			h := hdr.New(1, 3_600_000_000, 3)
			for j := range 1000 {
				if err := h.RecordValue(int64((j + 1) * (o + 1) * k)); err != nil {
					t.Fatal(err)
				}
			}
			h.SetStartTimeMs(start.UnixMilli() + int64(i)*1000)
			h.SetEndTimeMs(start.UnixMilli() + int64(i+1)*1000)
			if err := w.OutputIntervalHistogram(h); err != nil {
				t.Fatal(err)
			}
		}
		logName := label + "." + name + ".hlog"
		if err := os.WriteFile(filepath.Join(dir, logName), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		f.Ops = append(f.Ops, results.Op{Op: mustOp(t, name), Count: 10000, Successes: 10000, Latency: &results.Percentiles{P99: time.Duration(990*(o+1)*k) * time.Microsecond}, HDRLog: logName})
	}
	f.Ops = append(f.Ops, results.Op{Op: stats.RangeSize, Count: 10, Sizes: &stats.Summary{}})
	for i := range 10 {
		f.Intervals = append(f.Intervals, results.Interval{T: float64(i + 1), Seconds: 1, Ops: 2000, Rate: float64(2000 / k)})
	}
	f.Derive()
	p := filepath.Join(dir, label+".json")
	if err := results.Write(p, f); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPlotCommand(t *testing.T) {
	dir := t.TempDir()
	a, b := writePlotResult(t, dir, "fast", 1), writePlotResult(t, dir, "slow", 3)
	// The series read from a result file: its intervals' rates, and its
	// HDR logs in the file's unit (microseconds here).
	rf, err := results.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	s, err := seriesOf(rf, b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Label != "slow" || len(s.Rate) != 10 || s.Rate[9] != (plot.Point{T: 10, V: 666}) {
		t.Errorf("series %q, rate %v; want slow, 10 points ending at {10 666}", s.Label, s.Rate)
	}
	if len(s.Ops) != 2 || s.Ops[1].Op != "UPDATE_LINK" {
		t.Fatalf("series ops %+v, want GET_NODE and UPDATE_LINK (no RANGE_SIZE)", s.Ops)
	}
	// UPDATE_LINK of "slow": 6..6000 us evenly: p99 5.94 ms.
	for _, p := range s.Ops[1].Distribution() {
		if math.Abs(p.T-100) < 1e-9 && math.Abs(p.V-5.94) > 0.01 {
			t.Errorf("UPDATE_LINK p99 from the HDR log = %g ms, want 5.94", p.V)
		}
	}
	if p := s.Ops[1].P99OverTime(rf.Start.UnixMilli()); len(p) != 10 || math.Abs(p[0].T-1) > 1e-9 || math.Abs(p[0].V-5.94) > 0.01 {
		t.Errorf("UPDATE_LINK p99 over time %v, want 10 points from {1 5.94}", p)
	}
	pngPath, svgPath := filepath.Join(dir, "out.png"), filepath.Join(dir, "out.svg")
	if code, out, errs := runCLI(t, "plot", a, b, "-o", pngPath, "-title", "fast vs slow"); code != 0 || out != "" {
		t.Fatalf("plot png: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	checkPNG(t, pngPath)
	img, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(img)
	img.Close()
	// 10 in at 96 dpi; the throughput row and one row per op (2) of 2.6 in, and the title.
	if err != nil || cfg.Width != 960 || cfg.Height != 787 {
		t.Errorf("PNG is %dx%d (%v), want 960x787", cfg.Width, cfg.Height, err)
	}
	if code, _, errs := runCLI(t, "plot", "-ops", "UPDATE_LINK", a, b, "-o", svgPath); code != 0 {
		t.Fatalf("plot svg: exit %d, stderr %q", code, errs)
	}
	data, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse as XML: %v", err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
	for _, want := range []string{"fast", "slow", "UPDATE_LINK p99", "UPDATE_LINK latency by percentile", "requests/s", "99.9%"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("SVG text lacks %q", want)
		}
	}
	if strings.Contains(text.String(), "GET_NODE") || strings.Contains(text.String(), "RANGE_SIZE") {
		t.Error("SVG drew an operation -ops left out")
	}
}

// checkCompareAndPlot runs compare and plot on the result files at paths
// (a load, then request steps, of one label), as the acceptance run
// against a real server does: every numeric column of both tables is
// printed with a value, the query table gets a ratio row per step after
// the first, and plot writes a PNG that decodes.
func checkCompareAndPlot(t *testing.T, paths []string) {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"compare", "-format", "csv", "-baseline", "1"}, paths...)...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errs)
	}
	t.Logf("linkbench compare -format csv -baseline 1:\n%s", out)
	blocks := csvBlocks(t, out)
	if len(blocks) != 3 {
		t.Fatalf("compare printed %d tables, want load, query, query ratios:\n%s", len(blocks), out)
	}
	for bi, b := range blocks {
		if len(b) < 2 {
			t.Errorf("table %d has no row", bi)
			continue
		}
		for _, row := range b[1:] {
			for j, h := range b[0] {
				if bi == 2 && len(blocks[1]) > 1 && j < len(blocks[1][1]) {
					// A ratio to a measured 0 (no disk reads in a short
					// step, say) is undefined and shown as missing.
					if v, err := strconv.ParseFloat(blocks[1][1][j], 64); err == nil && v == 0 {
						continue
					}
				}
				if h != "tag" && h != "label" && (row[j] == "-" || row[j] == "") {
					t.Errorf("table %d (%s), row %q: column %s has no value", bi, b[0][0], row[len(row)-1], h)
				}
			}
		}
	}
	if got := len(blocks[2]) - 1; got != len(paths)-2 {
		t.Errorf("%d ratio rows, want %d", got, len(paths)-2)
	}
	png := filepath.Join(t.TempDir(), "run.png")
	if code, _, errs := runCLI(t, append([]string{"plot", "-o", png}, paths...)...); code != 0 {
		t.Fatalf("plot: exit %d: %s", code, errs)
	}
	checkPNG(t, png)
}

// checkPNG decodes the PNG at path and fails if it is nearly blank.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	b := img.Bounds()
	nonWhite := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r != 0xffff || g != 0xffff || bl != 0xffff {
				nonWhite++
			}
		}
	}
	if b.Dx() < 500 || b.Dy() < 500 {
		t.Errorf("%s is %dx%d, want at least 500x500", path, b.Dx(), b.Dy())
	}
	if frac := float64(nonWhite) / float64(b.Dx()*b.Dy()); frac < 0.01 {
		t.Errorf("%s is nearly blank: %.4f of pixels not white", path, frac)
	}
}

// TestCompareBaselineSteps: with steps, -baseline takes a row's name as
// the ratio rows print it (label.tag) and refuses a label that several
// rows have, listing them; a ratio that rounds to 0.00 prints with three
// significant digits.
func TestCompareBaselineSteps(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var paths []string
	for _, x := range []struct {
		label, tag string
		tps        float64
	}{{"x", "L1.P4", 1000}, {"x", "L2.P4", 2000}, {"y", "L1.P4", 3}} {
		f := &results.File{Label: x.label, Tag: x.tag, Phase: stats.PhaseRequest, Store: "memory", Start: start,
			End: start.Add(100 * time.Second), Seconds: 100, Requests: int64(x.tps * 100)}
		f.Derive()
		p := filepath.Join(dir, x.label+"."+x.tag+".json")
		if err := results.Write(p, f); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	code, _, errs := runCLI(t, append([]string{"compare", "-baseline", "x"}, paths...)...)
	if code != 2 || !strings.Contains(errs, `"x.L1.P4", "x.L2.P4"`) {
		t.Errorf("-baseline x: exit %d, %q; want 2 naming x.L1.P4 and x.L2.P4", code, errs)
	}
	code, out, errs := runCLI(t, append([]string{"compare", "-format", "csv", "-baseline", "x.L2.P4"}, paths...)...)
	if code != 0 {
		t.Fatalf("-baseline x.L2.P4: exit %d: %s", code, errs)
	}
	blocks := csvBlocks(t, out)
	ratio := blocks[len(blocks)-1]
	if got := cell(t, ratio, 1, "label"); got != "x.L1.P4/x.L2.P4" {
		t.Errorf("ratio row 1 label %q", got)
	}
	if got := cell(t, ratio, 2, "tps"); got != "0.0015" {
		t.Errorf("y/x.L2.P4 tps ratio %q, want 0.0015 (3/2000)", got)
	}
	if got := cell(t, ratio, 1, "tps"); got != "0.50" {
		t.Errorf("x.L1.P4/x.L2.P4 tps ratio %q, want 0.50", got)
	}
	// With the loads' files too: label.tag names the load table's row of
	// that label (it has no tag), so both tables get ratio rows (it
	// exited 2: no row of the load table had that label or name).
	for _, l := range []struct {
		label string
		ips   float64
	}{{"x", 100}, {"y", 50}} {
		f := &results.File{Label: l.label, Phase: stats.PhaseLoad, Store: "memory", Start: start,
			End: start.Add(10 * time.Second), Seconds: 10, Rows: int64(l.ips * 10)}
		f.Derive()
		p := filepath.Join(dir, l.label+".load.json")
		if err := results.Write(p, f); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	code, out, errs = runCLI(t, append([]string{"compare", "-format", "csv", "-baseline", "x.L2.P4"}, paths...)...)
	if code != 0 {
		t.Fatalf("-baseline x.L2.P4 with the loads: exit %d: %s", code, errs)
	}
	found := false
	for _, b := range csvBlocks(t, out) {
		for i := range b {
			if i > 0 && slices.Contains(b[i], "y/x") && slices.Contains(b[0], "ips") {
				found = cell(t, b, i, "ips") == "0.50" // 50/100
			}
		}
	}
	if !found {
		t.Errorf("no load ratio row y/x with ips 0.50:\n%s", out)
	}
}

// TestPlotAndDeviceInput: plot warns about -ops without values and exits
// 2 on an output it cannot create; -device names an existing device.
func TestPlotAndDeviceInput(t *testing.T) {
	dir := t.TempDir()
	a := writePlotResult(t, dir, "fast", 1)
	code, _, errs := runCLI(t, "plot", a, "-ops", "GET_NODE,ADD_NODE", "-o", filepath.Join(dir, "x.png"))
	if code != 0 || !strings.Contains(errs, "no result file has ADD_NODE values") || strings.Contains(errs, "has GET_NODE") {
		t.Errorf("plot -ops GET_NODE,ADD_NODE: exit %d, stderr %q; want 0 and a warning about ADD_NODE", code, errs)
	}
	if code, _, errs := runCLI(t, "plot", a, "-o", filepath.Join(dir, "no", "such", "x.png")); code != 2 {
		t.Errorf("plot -o into a missing directory: exit %d (%q), want 2", code, errs)
	}
	if _, err := os.Stat("/sys/class/block"); err != nil {
		t.Skip("no /sys/class/block")
	}
	if code, _, errs := runCLI(t, "-l", "-device", "nosuchdev"); code != 2 || !strings.Contains(errs, "nosuchdev") {
		t.Errorf("-device nosuchdev: exit %d, stderr %q; want 2 naming it", code, errs)
	}
}

// mustOp returns the op named name.
func mustOp(t *testing.T, name string) stats.Op {
	t.Helper()
	op, err := stats.ParseOp(name)
	if err != nil {
		t.Fatal(err)
	}
	return op
}
