package results

import (
	"bytes"
	"encoding/csv"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/stats"
	"github.com/linkbench-go/linkbench/stats/hostmetrics"
)

// TestPublishedRows reproduces the derived columns of the four published
// rows of issue 9 from their raw columns.
func TestPublishedRows(t *testing.T) {
	type row struct {
		phase                 stats.Phase
		rate, rs, rmb, wmb, c float64
		want                  map[string]string // column → printed value
		mcpu                  float64           // published Mcpu
	}
	rows := []row{
		{stats.PhaseLoad, 55646, 0, 0, 69.5, 5.1, map[string]string{"wkb/i": "1.25"}, 91},
		{stats.PhaseLoad, 61323, 0, 0, 96.5, 5.1, map[string]string{"wkb/i": "1.57"}, 83},
		{stats.PhaseRequest, 23557, 30212, 202.6, 138.8, 22.3, map[string]string{"r/t": "1.28", "rkb/t": "8.60", "wkb/t": "5.89"}, 947},
		{stats.PhaseRequest, 22930, 28291, 339.0, 109.7, 21.2, map[string]string{"r/t": "1.23", "rkb/t": "14.78", "wkb/t": "4.78"}, 923},
	}
	var files []File
	for _, r := range rows {
		m := Metrics{Seconds: 3600, WriteMBPerSec: ptr(r.wmb), CPU: ptr(r.c)}
		if r.phase == stats.PhaseRequest {
			m.ReadsPerSec, m.ReadMBPerSec = ptr(r.rs), ptr(r.rmb)
		}
		files = append(files, File{Phase: r.phase, Derived: Derive(ptr(r.rate), m, [4]*time.Duration{})})
	}
	load, query := Tables(files)
	if len(load.Rows) != 2 || len(query.Rows) != 2 {
		t.Fatalf("rows: load %d, query %d; want 2 and 2", len(load.Rows), len(query.Rows))
	}
	for i, r := range rows {
		tab, tr := load, load.Rows[i%2]
		mcpuCol := "Mcpu/i"
		if r.phase == stats.PhaseRequest {
			tab, tr = query, query.Rows[i%2]
			mcpuCol = "Mcpu/t"
		}
		cells := tab.Cells(tr)
		get := func(name string) string {
			for j, h := range tab.Header() {
				if h == name {
					return cells[j]
				}
			}
			t.Fatalf("no column %s", name)
			return ""
		}
		for c, want := range r.want {
			if got := get(c); got != want {
				t.Errorf("row %d %s = %s, want %s", i, c, got, want)
			}
		}
		// cpu is published with one decimal: Mcpu may differ by up to
		// 0.05/cpu of its value (0.25 % at cpu 21.2 and 22.3, 1 % at 5.1).
		got := *tr.Values[4]
		tol := r.mcpu*0.05/r.c + 0.5
		if math.Abs(got-r.mcpu) > tol {
			t.Errorf("row %d %s = %.1f, want %v ± %.2f", i, mcpuCol, got, r.mcpu, tol)
		}
		if r.phase == stats.PhaseRequest && math.Abs(got-r.mcpu)/r.mcpu > 0.0025 {
			t.Errorf("row %d %s = %.1f, more than 0.25 %% from %v", i, mcpuCol, got, r.mcpu)
		}
		// Columns with no input are missing, not 0.
		if s := get("size"); s != "-" {
			t.Errorf("row %d size = %q, want -", i, s)
		}
		if r.phase == stats.PhaseLoad {
			if s := get("r/i"); s != "-" {
				t.Errorf("row %d r/i = %q, want -", i, s)
			}
		}
	}
}

// snapshots are two recorded samples 10 s apart: 4 cores, 40 % busy,
// 5000 reads and 2000 writes, 40 MB read, 120 MB written, the server used
// 8 s of CPU (20 % of the machine), the client 2 s (5 %).
func snapshots() (a, b hostmetrics.Snapshot) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := time.Second
	a = hostmetrics.Snapshot{
		Time:   t0,
		CPU:    hostmetrics.CPU{OK: true, User: 100 * s, System: 50 * s, Idle: 1000 * s, Cores: 4},
		Disk:   hostmetrics.Disk{OK: true, ReadIOs: 1000, WriteIOs: 3000, ReadBytes: 10e6, WriteBytes: 50e6, Devices: []string{"sda"}},
		Server: hostmetrics.Proc{OK: true, User: 10 * s, System: 5 * s, RSS: 2e9},
		Client: hostmetrics.Proc{OK: true, User: 1 * s, System: 1 * s, RSS: 1e8},
		Size:   5e9,
	}
	b = hostmetrics.Snapshot{
		Time:   t0.Add(10 * s),
		CPU:    hostmetrics.CPU{OK: true, User: 110 * s, System: 56 * s, Idle: 1024 * s, Cores: 4},
		Disk:   hostmetrics.Disk{OK: true, ReadIOs: 6000, WriteIOs: 5000, ReadBytes: 50e6, WriteBytes: 170e6, Devices: []string{"sda"}},
		Server: hostmetrics.Proc{OK: true, User: 16 * s, System: 7 * s, RSS: 2.5e9},
		Client: hostmetrics.Proc{OK: true, User: 2 * s, System: 2 * s, RSS: 1.2e8},
		Size:   6e9,
	}
	return a, b
}

func near(t *testing.T, name string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s missing, want %v", name, want)
		return
	}
	if math.Abs(*got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", name, *got, want)
	}
}

// TestDeriveFromSnapshots feeds recorded snapshots through Diff, MetricsOf
// and File.Derive and checks every derived column against figures
// computed by hand.
func TestDeriveFromSnapshots(t *testing.T) {
	a, b := snapshots()
	m := MetricsOf(hostmetrics.Diff(a, b))
	near(t, "r/s", m.ReadsPerSec, 500)
	near(t, "w/s", m.WritesPerSec, 200)
	near(t, "rMB/s", m.ReadMBPerSec, 4)
	near(t, "wMB/s", m.WriteMBPerSec, 12)
	near(t, "cpu", m.CPU, 40) // busy 16 s of 40 s
	near(t, "server cpu", m.ServerCPU, 20)
	near(t, "client cpu", m.ClientCPU, 5)
	near(t, "server rss", m.ServerRSSGB, 2.5)
	near(t, "client rss", m.ClientRSSGB, 0.12)
	near(t, "size", m.SizeGB, 6)

	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	f := File{Phase: stats.PhaseRequest, Seconds: 10, Requests: 2000, Host: &Host{Summary: m},
		Ops: []Op{
			{Op: stats.UpdateNode, Count: 10, Latency: &Percentiles{P99: ms(1.5)}},
			{Op: stats.GetNode, Count: 10, Latency: &Percentiles{P99: ms(0.25)}},
			{Op: stats.UpdateLink, Count: 10, Latency: &Percentiles{P99: ms(3)}},
			{Op: stats.GetLinksList, Count: 10, Latency: &Percentiles{P99: ms(0.75)}},
		}}
	f.Derive()
	d := f.Derived
	near(t, "tps", d.Rate, 200)
	near(t, "r/t", d.ReadsPerOp, 2.5)             // 500 / 200
	near(t, "rkb/t", d.ReadKBPerOp, 20)           // 4 × 1000 / 200
	near(t, "wkb/t", d.WriteKBPerOp, 60)          // 12 × 1000 / 200
	near(t, "Mcpu/t", d.McpuPerOp, 200000)        // 40 / 200 × 10^6
	near(t, "sMcpu/t", d.ServerMcpuPerOp, 175000) // (40 − 5) / 200 × 10^6
	near(t, "size", d.SizeGB, 6)
	near(t, "rss", d.RSSGB, 2.5)
	near(t, "un", d.UN, 1.5)
	near(t, "gn", d.GN, 0.25)
	near(t, "ul", d.UL, 3)
	near(t, "gl", d.GL, 0.75)
	near(t, "r/s", d.ReadsPerSec, 500)
	near(t, "rMB/s", d.ReadMBPerSec, 4)
	near(t, "wMB/s", d.WriteMBPerSec, 12)
	near(t, "cpu", d.CPU, 40)

	_, q := Tables([]File{f})
	var buf bytes.Buffer
	if err := q.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"tps", "r/t", "rkb/t", "wkb/t", "Mcpu/t", "sMcpu/t", "size", "rss", "un", "gn", "ul", "gl", "r/s", "rMB/s", "wMB/s", "cpu", "tag", "label"},
		{"200", "2.50", "20.00", "60.00", "200000", "175000", "6.000", "2.500", "1.500", "0.250", "3.000", "0.750", "500", "4.0", "12.0", "40.0", "-", "-"},
	}
	if strings.Join(recs[0], ",") != strings.Join(want[0], ",") || strings.Join(recs[1], ",") != strings.Join(want[1], ",") {
		t.Errorf("query CSV:\n%v\nwant\n%v", recs, want)
	}

	// A load over the same window: ips from rows ÷ seconds.
	l := File{Phase: stats.PhaseLoad, Seconds: 10, Rows: 50000, Host: &Host{Summary: m}}
	l.Derive()
	near(t, "ips", l.Derived.Rate, 5000)
	near(t, "wkb/i", l.Derived.WriteKBPerOp, 2.4) // 12 × 1000 / 5000
	near(t, "Mcpu/i", l.Derived.McpuPerOp, 8000)  // 40 / 5000 × 10^6
	if l.Derived.UN != nil {
		t.Errorf("load un = %v, want missing", *l.Derived.UN)
	}
}

// TestMissing checks that what was not measured is missing, not 0: a
// server on another host (no server process: no server-only sMcpu), no
// block device.
func TestMissing(t *testing.T) {
	a, b := snapshots()
	a.Disk, b.Disk = hostmetrics.Disk{}, hostmetrics.Disk{}
	a.Server, b.Server = hostmetrics.Proc{}, hostmetrics.Proc{}
	b.Size = -1
	f := File{Phase: stats.PhaseRequest, Seconds: 10, Requests: 2000, Host: &Host{Summary: MetricsOf(hostmetrics.Diff(a, b))}}
	f.Derive()
	_, q := Tables([]File{f})
	cells := q.Cells(q.Rows[0])
	for i, h := range q.Header() {
		want := "-"
		switch h {
		case "tps", "Mcpu/t", "cpu":
			want = ""
		}
		if want == "-" && cells[i] != "-" {
			t.Errorf("%s = %q, want -", h, cells[i])
		}
		if want == "" && cells[i] == "-" {
			t.Errorf("%s missing", h)
		}
	}
}

func TestReadWrite(t *testing.T) {
	a, b := snapshots()
	m := MetricsOf(hostmetrics.Diff(a, b))
	f := &File{Label: "rocksdb", Tag: "L1.P16", Phase: stats.PhaseRequest, Store: "mysql",
		Config: map[string]string{"maxid1": "2001", "password": "<redacted>"},
		Seeds:  map[string]int64{"seed": 42},
		Server: &Server{Version: "11.4.2-MariaDB", Settings: map[string]string{"default_storage_engine": "ROCKSDB"}},
		Start:  a.Time, End: b.Time, Seconds: 10, Threads: 16, Requests: 2000,
		Ops:       []Op{{Op: stats.GetNode, Count: 10, Successes: 9, Misses: 1, Latency: &Percentiles{P99: time.Millisecond}, HDRLog: "x.GET_NODE.hlog"}},
		Host:      &Host{Devices: []string{"sda"}, Summary: m},
		Intervals: []Interval{{T: 10, Seconds: 10, Ops: 2000, Rate: 200, Host: &m}},
	}
	f.Derive()
	p := filepath.Join(t.TempDir(), "r.json")
	if err := Write(p, f); err != nil {
		t.Fatal(err)
	}
	g, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if g.Label != "rocksdb" || g.Tag != "L1.P16" || g.Phase != stats.PhaseRequest || g.Server.Version != f.Server.Version ||
		g.Ops[0].Latency.P99 != time.Millisecond || g.Ops[0].HDRLog != "x.GET_NODE.hlog" || !g.Start.Equal(f.Start) {
		t.Errorf("read back %+v", g)
	}
	near(t, "Mcpu/t read back", g.Derived.McpuPerOp, 200000)
	if g.Derived.UN != nil {
		t.Errorf("un read back as %v, want missing", *g.Derived.UN)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("Read of a missing file: no error")
	}
}

func TestRender(t *testing.T) {
	files := []File{
		{Phase: stats.PhaseLoad, Label: "innodb", Derived: Derived{Rate: ptr(55646), CPU: ptr(5.1)}},
		{Phase: stats.PhaseRequest, Label: "rocksdb", Tag: "L1.P16", Derived: Derived{Rate: ptr(23557), CPU: ptr(math.NaN())}},
	}
	for _, f := range []Format{FormatText, FormatCSV, FormatMarkdown} {
		var b bytes.Buffer
		if err := WriteTables(&b, files, f); err != nil {
			t.Fatal(err)
		}
		s := b.String()
		for _, want := range []string{"ips", "Mcpu/i", "tps", "gl", "55646", "23557", "innodb", "rocksdb", "L1.P16"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: no %q in\n%s", f, want, s)
			}
		}
		if strings.Contains(s, "NaN") {
			t.Errorf("%s: NaN printed:\n%s", f, s)
		}
		lines := strings.Split(strings.TrimSpace(s), "\n")
		last := lines[len(lines)-1]
		if !strings.HasSuffix(strings.TrimRight(last, " |"), "rocksdb") {
			t.Errorf("%s: label not last: %q", f, last)
		}
	}
	var b bytes.Buffer
	if err := (Table{}).Write(&b, "xml"); err == nil {
		t.Error("format xml: no error")
	}
}

// TestTableMarksIncompletePhases: a row of an interrupted phase says so
// beside its label (compare printed it as if it were complete; found by
// the newcomer review).
func TestTableMarksIncompletePhases(t *testing.T) {
	files := []File{{Phase: stats.PhaseRequest, Label: "x", Tag: "L1.P4"},
		{Phase: stats.PhaseRequest, Label: "x", Tag: "L2.P4", Status: stats.Interrupted}}
	_, q := Tables(files)
	var b strings.Builder
	if err := q.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || strings.Contains(lines[2], "[") || !strings.HasSuffix(lines[3], "x [INTERRUPTED]") {
		t.Errorf("query table:\n%s", b.String())
	}
}
