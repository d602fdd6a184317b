package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/linkbench-go/linkbench/internal/atomicfile"
	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/stats/results/plot"
)

// parseInterleaved parses args with fs, allowing flags after positional
// arguments (linkbench plot a.json b.json -o out.png), and returns the
// positional arguments in order.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse stopped at a positional argument.
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// readResults reads the result files at paths.
func readResults(paths []string) ([]results.File, error) {
	files := make([]results.File, 0, len(paths))
	for _, p := range paths {
		f, err := results.Read(p)
		if err != nil {
			return nil, err
		}
		files = append(files, *f)
	}
	return files, nil
}

// compareUsage is the compare subcommand's synopsis.
const compareUsage = "usage: linkbench compare [-format text|csv|markdown] [-baseline N|LABEL] FILE..."

// runCompare is "linkbench compare": the load and query tables of result
// files, one row per file in the order given, and with -baseline each
// table's rows divided by its baseline row.
func runCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("linkbench compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "text", "table format: text, csv or markdown")
	baseline := fs.String("baseline", "", "add ratio rows against a baseline row of each table: its number `N` (1 = the table's first row, in the order of the files) or its label")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, compareUsage)
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return err
		}
		return usageError{fmt.Errorf("compare: %w (%s)", err, compareUsage)}
	}
	f := results.Format(*format)
	switch f {
	case results.FormatText, results.FormatCSV, results.FormatMarkdown:
	default:
		return usageError{fmt.Errorf("compare: -format %q: want text, csv or markdown", *format)}
	}
	if len(paths) == 0 {
		return usageError{fmt.Errorf("compare: no result file given (%s)", compareUsage)}
	}
	files, err := readResults(paths)
	if err != nil {
		return usageError{fmt.Errorf("compare: %w", err)}
	}
	load, query := results.Tables(files)
	var tables []results.Table
	for _, t := range []results.Table{load, query} {
		if len(t.Rows) == 0 {
			continue
		}
		tables = append(tables, t)
		if *baseline == "" {
			continue
		}
		base, err := baselineRow(t, *baseline)
		if err != nil {
			return usageError{fmt.Errorf("compare: -baseline %s: %w", *baseline, err)}
		}
		if r := ratioTable(t, base); len(r.Rows) > 0 {
			tables = append(tables, r)
		}
	}
	for i, t := range tables {
		if i > 0 {
			if _, err := io.WriteString(stdout, "\n"); err != nil {
				return err
			}
		}
		if f == results.FormatMarkdown {
			if _, err := fmt.Fprintf(stdout, "%s:\n\n", t.Name); err != nil {
				return err
			}
		}
		if err := t.Write(stdout, f); err != nil {
			return err
		}
	}
	return nil
}

// baselineRow returns the index of t's baseline row: sel is a row number
// (1-based), a row's name as the ratio rows print it (label.tag, e.g.
// innodb.L2.P16), or a label that only one row has; label.tag also names,
// in a table whose row of that label has no tag (the load table), that
// row.
func baselineRow(t results.Table, sel string) (int, error) {
	if n, err := strconv.Atoi(sel); err == nil {
		if n < 1 || n > len(t.Rows) {
			return 0, fmt.Errorf("the %s table has rows 1..%d", t.Name, len(t.Rows))
		}
		return n - 1, nil
	}
	var names []string
	var byLabel []int
	for i, r := range t.Rows {
		if rowName(r) == sel {
			return i, nil
		}
		if r.Label == sel {
			byLabel = append(byLabel, i)
		}
		names = append(names, strconv.Quote(rowName(r)))
	}
	if len(byLabel) == 0 {
		// label.tag names a request step; the load table's row of that
		// label has no tag: it is that label's baseline there.
		for i, r := range t.Rows {
			if r.Tag == "" && r.Label != "" && strings.HasPrefix(sel, r.Label+".") {
				byLabel = append(byLabel, i)
			}
		}
	}
	switch len(byLabel) {
	case 1:
		return byLabel[0], nil
	case 0:
		return 0, fmt.Errorf("no row of the %s table has that label or name (rows: %s)", t.Name, strings.Join(names, ", "))
	}
	var cands []string
	for _, i := range byLabel {
		cands = append(cands, strconv.Quote(rowName(t.Rows[i])))
	}
	return 0, fmt.Errorf("%d rows of the %s table have that label: name one (%s) or give its number", len(byLabel), t.Name, strings.Join(cands, ", "))
}

// ratioDecimals is the precision of a ratio row.
const ratioDecimals = 2

// ratioTable returns the ratio rows of t against its row base: for every
// other row, each value divided by the baseline's (missing when either is
// missing or the baseline's is 0), tagged "ratio" and labelled
// "label/baseline label". The table is named "<name> ratio to <label>".
func ratioTable(t results.Table, base int) results.Table {
	b := t.Rows[base]
	out := results.Table{Name: fmt.Sprintf("%s ratio to %s", t.Name, rowName(b))}
	for _, c := range t.Columns {
		c.Decimals, c.SmallSig = ratioDecimals, 3
		out.Columns = append(out.Columns, c)
	}
	for i, r := range t.Rows {
		if i == base {
			continue
		}
		row := results.Row{Tag: "ratio", Label: rowName(r) + "/" + rowName(b)}
		for j := range t.Columns {
			var v *float64
			if j < len(r.Values) && j < len(b.Values) && r.Values[j] != nil && b.Values[j] != nil && *b.Values[j] != 0 {
				q := *r.Values[j] / *b.Values[j]
				v = &q
			}
			row.Values = append(row.Values, v)
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// rowName is a row's label, with its tag when it has one ("innodb.L2.P16").
func rowName(r results.Row) string {
	switch {
	case r.Label == "" && r.Tag == "":
		return "-"
	case r.Tag == "":
		return r.Label
	case r.Label == "":
		return r.Tag
	}
	return r.Label + "." + r.Tag
}

// plotUsage is the plot subcommand's synopsis.
const plotUsage = "usage: linkbench plot [-title text] [-ops OP,...] [-logy] FILE... -o out.png|out.svg"

// runPlot is "linkbench plot": throughput and per-op p99 over time, and
// per-op latency by percentile, of result files overlaid, as PNG or SVG.
func runPlot(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("linkbench plot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "write the figure to `file` (.png or .svg)")
	title := fs.String("title", "", "the figure's title")
	logY := fs.Bool("logy", false, "draw latencies on a logarithmic axis")
	ops := fs.String("ops", "", "the operations drawn, comma-separated (default: every latency operation recorded)")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, plotUsage)
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return err
		}
		return usageError{fmt.Errorf("plot: %w (%s)", err, plotUsage)}
	}
	if *out == "" {
		return usageError{fmt.Errorf("plot: -o: no output file given (%s)", plotUsage)}
	}
	if _, err := plot.Format(*out); err != nil {
		return usageError{fmt.Errorf("plot: -o %s: want a .png or .svg file name", *out)}
	}
	if len(paths) == 0 {
		return usageError{fmt.Errorf("plot: no result file given (%s)", plotUsage)}
	}
	if err := atomicfile.CheckWritable(*out); err != nil {
		return usageError{fmt.Errorf("plot: -o: %w", err)}
	}
	opts := plot.Options{Title: *title, LogY: *logY}
	if *ops != "" {
		for _, name := range strings.Split(*ops, ",") {
			op, err := stats.ParseOp(strings.TrimSpace(name))
			if err != nil || op.IsSize() {
				return usageError{fmt.Errorf("plot: -ops %q: %q is not a latency operation (for example GET_NODE, UPDATE_LINK, LOAD_LINKS_BULK)", *ops, name)}
			}
			opts.Ops = append(opts.Ops, op.String())
		}
	}
	var series []plot.Series
	phases := map[stats.Phase]bool{}
	for _, p := range paths {
		f, err := results.Read(p)
		if err != nil {
			return usageError{fmt.Errorf("plot: %w", err)}
		}
		s, err := seriesOf(f, p)
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		series = append(series, s)
		phases[f.Phase] = true
	}
	switch {
	case len(phases) == 2:
		opts.RateLabel = "rows/s (load), requests/s"
	case phases[stats.PhaseLoad]:
		opts.RateLabel = "rows/s"
	default:
		opts.RateLabel = "requests/s"
	}
	for _, name := range opts.Ops {
		found := false
		for _, se := range series {
			for _, o := range se.Ops {
				found = found || o.Op == name && (o.Hist != nil && o.Hist.TotalCount() > 0 || len(o.P99) > 0)
			}
		}
		if !found {
			fmt.Fprintf(stderr, "linkbench plot: warning: -ops %s: no result file has %s values\n", name, name)
		}
	}
	if err := plot.WriteFile(*out, series, opts); err != nil {
		if pe := (*os.PathError)(nil); errors.As(err, &pe) {
			return usageError{fmt.Errorf("plot: -o %s: %w", *out, pe.Err)}
		}
		return err
	}
	return nil
}

// seriesOf is the plot series of result file f, read from path: its
// progress intervals' rates and p99s, and its operations' HDR interval
// logs (beside the file).
func seriesOf(f *results.File, path string) (plot.Series, error) {
	s := plot.Series{Label: f.Label, Start: f.Start}
	if f.Tag != "" {
		s.Label = rowName(results.Row{Label: f.Label, Tag: f.Tag})
	}
	if s.Label == "" {
		s.Label = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	// A merged file and its shards' files share a label: tell them apart.
	if len(f.Parts) > 0 {
		s.Label += " [merged]"
	} else if sh := f.Config["shard"]; sh != "" && sh != "0/1" {
		s.Label += " [shard " + sh + "]"
	}
	p99 := map[stats.Op][]plot.Point{}
	for _, iv := range f.Intervals {
		if iv.Seconds > 0 {
			s.Rate = append(s.Rate, plot.Point{T: iv.T, V: iv.Rate})
		}
		for op, v := range iv.P99Ms {
			p99[op] = append(p99[op], plot.Point{T: iv.T, V: v})
		}
	}
	for _, o := range f.Ops {
		if o.Op.IsSize() || o.Latency == nil {
			continue
		}
		os := plot.OpSeries{Op: o.Op.String(), Unit: f.HDRUnit}
		if o.HDRLog != "" {
			var err error
			os, err = plot.ReadLogFile(filepath.Join(filepath.Dir(path), o.HDRLog), o.Op.String(), f.HDRUnit)
			if err != nil {
				return s, err
			}
		}
		// The p99 over time of the intervals, the HDR log's when the file
		// has none.
		os.P99 = p99[o.Op]
		s.Ops = append(s.Ops, os)
	}
	return s, nil
}
