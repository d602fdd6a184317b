package promexport_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// dashboardFile is the Grafana dashboard over the exporter's metrics.
var dashboardFile = filepath.Join("..", "..", "deploy", "grafana", "linkbench.json")

// dashboardQueries returns the PromQL expressions of the dashboard's
// panels and the metrics its variables' label_values queries read.
func dashboardQueries(t *testing.T) (exprs, varMetrics []string) {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID    string
		Panels []struct {
			ID      int
			Title   string
			Type    string
			GridPos struct{ X, Y, W, H int }
			Targets []struct{ Expr string }
		}
		Templating struct {
			List []struct {
				Type  string
				Query json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	// Grafana's layout: unique panel ids, panels within the 24 columns,
	// none over another.
	if d.UID == "" || len(d.Panels) == 0 {
		t.Errorf("%s: uid %q, %d panels", dashboardFile, d.UID, len(d.Panels))
	}
	ids := map[int]bool{}
	for i, p := range d.Panels {
		g := p.GridPos
		if ids[p.ID] || p.Type == "" || g.W < 1 || g.H < 1 || g.X < 0 || g.X+g.W > 24 {
			t.Errorf("panel %q: id %d (repeated: %v), type %q, gridPos %+v", p.Title, p.ID, ids[p.ID], p.Type, g)
		}
		ids[p.ID] = true
		for _, q := range d.Panels[:i] {
			h := q.GridPos
			if g.X < h.X+h.W && h.X < g.X+g.W && g.Y < h.Y+h.H && h.Y < g.Y+g.H {
				t.Errorf("panels %q and %q overlap", q.Title, p.Title)
			}
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	lv := regexp.MustCompile(`label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)`)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		for _, m := range lv.FindAllStringSubmatch(string(v.Query), -1) {
			varMetrics = append(varMetrics, m[1])
		}
	}
	return exprs, varMetrics
}

var (
	stringRE   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	matchersRE = regexp.MustCompile(`\{[^}]*\}`)
	rangeRE    = regexp.MustCompile(`\[[^\]]*\]`)
	groupingRE = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	identRE    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*\s*\(?`)
	keywords   = []string{"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left", "group_right", "inf", "nan"}
)

// metricNames returns the metric names a PromQL expression selects: its
// identifiers that are not functions, keywords, labels of matchers or
// groupings, or inside strings and ranges.
func metricNames(expr string) []string {
	s := stringRE.ReplaceAllString(expr, `""`)
	s = matchersRE.ReplaceAllString(s, " ")
	s = rangeRE.ReplaceAllString(s, " ")
	s = groupingRE.ReplaceAllString(s, " ")
	var out []string
	for _, m := range identRE.FindAllString(s, -1) {
		m = strings.TrimSpace(m)
		if strings.HasSuffix(m, "(") || slices.Contains(keywords, strings.ToLower(m)) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// missing returns the names that are not in the scrape: a histogram's
// family also answers for its _bucket, _sum and _count series.
func missing(fams map[string]*dto.MetricFamily, names []string) []string {
	var out []string
	for _, n := range names {
		if f, ok := fams[n]; ok && len(f.GetMetric()) > 0 {
			continue
		}
		found := false
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(n, suffix); ok {
				if f, ok := fams[base]; ok && f.GetType() == dto.MetricType_HISTOGRAM && len(f.GetMetric()) > 0 {
					found = true
				}
			}
		}
		if !found {
			out = append(out, n)
		}
	}
	return out
}

// checkDashboard fails the test for each metric the dashboard queries
// that the scrape fams does not have.
func checkDashboard(t *testing.T, fams map[string]*dto.MetricFamily) {
	t.Helper()
	exprs, vars := dashboardQueries(t)
	names := slices.Clone(vars)
	for _, e := range exprs {
		n := metricNames(e)
		if len(n) == 0 {
			t.Errorf("dashboard query %q selects no metric", e)
		}
		names = append(names, n...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, n := range missing(fams, names) {
		t.Errorf("the dashboard queries %s, which the scrape does not have", n)
	}
	t.Logf("the dashboard's %d queries read %s", len(exprs), strings.Join(names, " "))
}

// TestMetricNames: the dashboard's layout holds (dashboardQueries checks
// it), the queries' metric names are found, and a name the scrape lacks
// is reported (the dashboard check can fail).
func TestMetricNames(t *testing.T) {
	if exprs, vars := dashboardQueries(t); len(exprs) < 10 || len(vars) == 0 {
		t.Errorf("the dashboard has %d queries and %d variables reading a metric", len(exprs), len(vars))
	}
	for _, c := range []struct {
		expr string
		want []string
	}{
		{`histogram_quantile(0.99, sum by (op) (rate(linkbench_latency_seconds{job=~"$job", phase="request"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (op, le) (rate(linkbench_latency_seconds_bucket{op="x"}[5m])))`,
			[]string{"linkbench_latency_seconds", "linkbench_latency_seconds_bucket"}},
		{`max by (phase, step, tag) (linkbench_phase_running)`, []string{"linkbench_phase_running"}},
		{`sum without (instance) (rate(a_total[1m])) / on (job) group_left b`, []string{"a_total", "b"}},
	} {
		if got := metricNames(c.expr); !slices.Equal(got, c.want) {
			t.Errorf("metricNames(%q) = %v, want %v", c.expr, got, c.want)
		}
	}
	h := dto.MetricType_HISTOGRAM
	fams := map[string]*dto.MetricFamily{"linkbench_latency_seconds": {Type: &h, Metric: []*dto.Metric{{}}}}
	got := missing(fams, []string{"linkbench_latency_seconds_bucket", "linkbench_latency_seconds_count", "linkbench_nope_total", "linkbench_latency_seconds"})
	if fmt.Sprint(got) != "[linkbench_nope_total]" {
		t.Errorf("missing: %v, want [linkbench_nope_total]", got)
	}
}
