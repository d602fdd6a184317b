package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/linkbench-go/linkbench/stats"
)

// Column is a numeric column of a table.
type Column struct {
	Name     string // as printed: "ips", "r/i", "wMB/s", ...
	Decimals int    // digits printed after the point
	// SmallSig, when > 0, prints a value that is not 0 but rounds to 0
	// with Decimals decimals with this many significant digits instead
	// (a ratio of 0.004 is not 0.00).
	SmallSig int
	// Value returns the column's value in a result file (nil: missing).
	Value func(d Derived) *float64
}

// Row is one row of a table: its numeric values (nil: missing, NaN:
// missing too), then its tag and label.
type Row struct {
	Values []*float64
	Tag    string
	Label  string
	// Status is the phase's (stats.Completed for a complete one): a row
	// of an interrupted, failed or overrun phase prints it beside its
	// label.
	Status stats.Status
}

// Table is the load or the query table.
type Table struct {
	Name    string // "load" or "query"
	Columns []Column
	Rows    []Row
}

func col(name string, dec int, v func(d Derived) *float64) Column {
	return Column{Name: name, Decimals: dec, Value: v}
}

// LoadColumns are the load table's numeric columns, in the published
// order, with the server-only Mcpu/i (sMcpu/i) after Mcpu/i.
func LoadColumns() []Column {
	return []Column{
		col("ips", 0, func(d Derived) *float64 { return d.Rate }),
		col("r/i", 2, func(d Derived) *float64 { return d.ReadsPerOp }),
		col("rkb/i", 2, func(d Derived) *float64 { return d.ReadKBPerOp }),
		col("wkb/i", 2, func(d Derived) *float64 { return d.WriteKBPerOp }),
		col("Mcpu/i", 0, func(d Derived) *float64 { return d.McpuPerOp }),
		col("sMcpu/i", 0, func(d Derived) *float64 { return d.ServerMcpuPerOp }),
		col("size", 3, func(d Derived) *float64 { return d.SizeGB }),
		col("rss", 3, func(d Derived) *float64 { return d.RSSGB }),
		col("wMB/s", 1, func(d Derived) *float64 { return d.WriteMBPerSec }),
		col("cpu", 1, func(d Derived) *float64 { return d.CPU }),
	}
}

// QueryColumns are the query table's numeric columns, in the published
// order, with the server-only Mcpu/t (sMcpu/t) after Mcpu/t.
func QueryColumns() []Column {
	cols := []Column{
		col("tps", 0, func(d Derived) *float64 { return d.Rate }),
		col("r/t", 2, func(d Derived) *float64 { return d.ReadsPerOp }),
		col("rkb/t", 2, func(d Derived) *float64 { return d.ReadKBPerOp }),
		col("wkb/t", 2, func(d Derived) *float64 { return d.WriteKBPerOp }),
		col("Mcpu/t", 0, func(d Derived) *float64 { return d.McpuPerOp }),
		col("sMcpu/t", 0, func(d Derived) *float64 { return d.ServerMcpuPerOp }),
		col("size", 3, func(d Derived) *float64 { return d.SizeGB }),
		col("rss", 3, func(d Derived) *float64 { return d.RSSGB }),
	}
	for _, h := range stats.Headlines() {
		cols = append(cols, col(h.Short, 3, func(d Derived) *float64 { return d.Headline(h.Op) }))
	}
	return append(cols,
		col("r/s", 0, func(d Derived) *float64 { return d.ReadsPerSec }),
		col("rMB/s", 1, func(d Derived) *float64 { return d.ReadMBPerSec }),
		col("wMB/s", 1, func(d Derived) *float64 { return d.WriteMBPerSec }),
		col("cpu", 1, func(d Derived) *float64 { return d.CPU }),
	)
}

// EngineColumns are the columns of a storage engine's own figures
// (Derived.WriteAmp and the others), which Tables adds to a table when a
// file of it has them.
func EngineColumns() []Column {
	return []Column{
		col("wamp", 2, func(d Derived) *float64 { return d.WriteAmp }),
		col("ramp", 0, func(d Derived) *float64 { return d.ReadAmp }),
		col("hit", 3, func(d Derived) *float64 { return d.CacheHitRate }),
		col("stalls", 0, func(d Derived) *float64 { return d.WriteStalls }),
		col("stall_s", 1, func(d Derived) *float64 { return d.WriteStallSeconds }),
	}
}

// Tables returns the load table (one row per LOAD file) and the query
// table (one row per REQUEST file), rows in the files' order; a table
// with a file of an engine that measures itself (File.Engine) has the
// EngineColumns too.
func Tables(files []File) (load, query Table) {
	load = Table{Name: "load", Columns: LoadColumns()}
	query = Table{Name: "query", Columns: QueryColumns()}
	var engineLoad, engineQuery bool
	for i := range files {
		if files[i].Engine != nil {
			engineLoad = engineLoad || files[i].Phase != stats.PhaseRequest
			engineQuery = engineQuery || files[i].Phase == stats.PhaseRequest
		}
	}
	if engineLoad {
		load.Columns = append(load.Columns, EngineColumns()...)
	}
	if engineQuery {
		query.Columns = append(query.Columns, EngineColumns()...)
	}
	for i := range files {
		f := &files[i]
		t := &load
		if f.Phase == stats.PhaseRequest {
			t = &query
		}
		r := Row{Tag: f.Tag, Label: f.Label, Status: f.Status}
		for _, c := range t.Columns {
			r.Values = append(r.Values, c.Value(f.Derived))
		}
		t.Rows = append(t.Rows, r)
		// A merged file's hosts, each in a row of its own beside it.
		for _, p := range f.Parts {
			r := Row{Tag: f.Tag, Label: f.Label + " [shard " + p.Shard + "]", Status: p.Status}
			for _, c := range t.Columns {
				r.Values = append(r.Values, c.Value(p.Derived))
			}
			t.Rows = append(t.Rows, r)
		}
	}
	return load, query
}

// Header returns the column names: the numeric columns, "tag", "label".
func (t Table) Header() []string {
	h := make([]string, 0, len(t.Columns)+2)
	for _, c := range t.Columns {
		h = append(h, c.Name)
	}
	return append(h, "tag", "label")
}

// Cells returns row r as text: each value with its column's decimals,
// "-" for a missing one, then the tag and the label ("-" when empty),
// the label followed by " [STATUS]" for a phase that did not complete.
func (t Table) Cells(r Row) []string {
	out := make([]string, 0, len(t.Columns)+2)
	for i, c := range t.Columns {
		var v *float64
		if i < len(r.Values) {
			v = r.Values[i]
		}
		out = append(out, c.Format(v))
	}
	label := dash(r.Label)
	if r.Status != stats.Completed {
		label += " [" + string(r.Status) + "]" // not a complete phase: say so beside its figures
	}
	return append(out, dash(r.Tag), label)
}

// FormatValue prints v with dec decimals, "-" when it is nil, NaN or
// infinite.
func FormatValue(v *float64, dec int) string {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return "-"
	}
	return fmt.Sprintf("%.*f", dec, *v)
}

// Format prints v as the column does: with its decimals, or with SmallSig
// significant digits when it is not 0 but would print as 0.
func (c Column) Format(v *float64) string {
	s := FormatValue(v, c.Decimals)
	if c.SmallSig > 0 && v != nil && *v != 0 && s != "-" && strings.Trim(s, "-0.") == "" {
		return fmt.Sprintf("%.*g", c.SmallSig, *v)
	}
	return s
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteText writes the table with aligned columns, a "load:" or "query:"
// title line first.
func (t Table) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s:\n", t.Name)
	fmt.Fprintf(tw, "%s\t\n", strings.Join(t.Header(), "\t"))
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(t.Cells(r), "\t"))
	}
	return tw.Flush()
}

// WriteCSV writes the table as CSV: a header line, then one line per row.
func (t Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header()); err != nil {
		return err
	}
	for _, r := range t.Rows {
		if err := cw.Write(t.Cells(r)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown writes the table as a GitHub Markdown table, numeric
// columns right-aligned.
func (t Table) WriteMarkdown(w io.Writer) error {
	esc := func(cells []string) string {
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		return "| " + strings.Join(cells, " | ") + " |\n"
	}
	var b strings.Builder
	b.WriteString(esc(t.Header()))
	b.WriteString("|")
	for range t.Columns {
		b.WriteString("---:|")
	}
	b.WriteString("---|---|\n")
	for _, r := range t.Rows {
		b.WriteString(esc(t.Cells(r)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Format is a table format: "text", "csv" or "markdown".
type Format string

// The table formats.
const (
	FormatText     Format = "text"
	FormatCSV      Format = "csv"
	FormatMarkdown Format = "markdown"
)

// Write writes the table in format f.
func (t Table) Write(w io.Writer, f Format) error {
	switch f {
	case FormatText, "":
		return t.WriteText(w)
	case FormatCSV:
		return t.WriteCSV(w)
	case FormatMarkdown, "md":
		return t.WriteMarkdown(w)
	}
	return fmt.Errorf("results: table format %q: want text, csv or markdown", f)
}

// WriteTables writes the load table then the query table of files in
// format f, leaving out a table with no rows, a blank line between two
// (CSV: each table's header line tells them apart; Markdown: a "load:" or
// "query:" line before each).
func WriteTables(w io.Writer, files []File, f Format) error {
	load, query := Tables(files)
	n := 0
	for _, t := range []Table{load, query} {
		if len(t.Rows) == 0 {
			continue
		}
		if n > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if f == FormatMarkdown || f == "md" {
			if _, err := fmt.Fprintf(w, "%s:\n\n", t.Name); err != nil {
				return err
			}
		}
		if err := t.Write(w, f); err != nil {
			return err
		}
		n++
	}
	return nil
}
