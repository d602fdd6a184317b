package doccheck_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/cmd/linkbench/cli"
	"github.com/linkbench-go/linkbench/internal/doccheck"
	"github.com/linkbench-go/linkbench/internal/testmod"
	"github.com/linkbench-go/linkbench/stats/results"
)

// TestREADMERunSnippet: the README's whole-run program (linkbench.Run),
// built in a module of its own as a user builds it and run, writes result
// files that linkbench compare and linkbench plot read, with every column
// the tool's own files have for the same store (the tool's run is made
// here with the same configuration, on the memory store).
func TestREADMERunSnippet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program: skipped with -short")
	}
	r := root(t)
	src, err := doccheck.Snippet(read(t, filepath.Join(r, "README.md")), "library-run")
	if err != nil {
		t.Fatal(err)
	}
	dir := testmod.New(t, "example.com/harness", map[string]string{"main.go": src})
	bin := filepath.Join(dir, "harness"+exe())
	testmod.Go(t, dir, "mod", "tidy")
	testmod.Go(t, dir, "build", "-o", bin, ".")
	work := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's run program: %v\n%s", err, out)
	}
	for _, want := range []string{"LOAD PHASE COMPLETED", "REQUEST PHASE COMPLETED", "tps", "L2.P4"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("its output lacks %q:\n%s", want, out)
		}
	}
	harness := filepath.Join(work, "out")

	// The tool's own files for the same run.
	tool := t.TempDir()
	var so, se bytes.Buffer
	args := []string{"-D", "maxid1=20001", "-D", "nlinks_func=const", "-D", "nlinks_default=10", "-D", "requesters=4",
		"-D", "maxtime=5", "-steps", "2", "-label", "memory", "-results", tool, "-store", "memory"}
	if code := cli.Run(context.Background(), args, &so, &se); code != 0 {
		t.Fatalf("linkbench %s: exit %d\n%s", strings.Join(args, " "), code, se.String())
	}
	for _, name := range []string{"memory.load.json", "memory.request.L1.P4.json", "memory.request.L2.P4.json"} {
		h, err := results.Read(filepath.Join(harness, name))
		if err != nil {
			t.Fatal(err)
		}
		w, err := results.Read(filepath.Join(tool, name))
		if err != nil {
			t.Fatal(err)
		}
		hl, hq := results.Tables([]results.File{*h})
		wl, wq := results.Tables([]results.File{*w})
		for i, tab := range []results.Table{wl, wq} {
			mine := []results.Table{hl, hq}[i]
			if len(tab.Rows) != len(mine.Rows) {
				t.Fatalf("%s: %d %s rows, the tool's file %d", name, len(mine.Rows), tab.Name, len(tab.Rows))
			}
			for j, row := range tab.Rows {
				for k, c := range tab.Columns {
					if row.Values[k] != nil && mine.Rows[j].Values[k] == nil {
						t.Errorf("%s: the %s table's column %s is measured in the tool's file, missing in the harness's", name, tab.Name, c.Name)
					}
				}
			}
		}
		if h.Server == nil && w.Server != nil || (h.Host == nil) != (w.Host == nil) || len(h.Intervals) == 0 || len(h.Seeds) == 0 {
			t.Errorf("%s: server %v/%v host %v/%v intervals %d seeds %v", name, h.Server, w.Server, h.Host, w.Host, len(h.Intervals), h.Seeds)
		}
		for _, o := range w.Ops {
			if o.HDRLog == "" {
				continue
			}
			found := false
			for _, m := range h.Ops {
				if m.Op == o.Op && m.HDRLog != "" {
					found = true
					if _, err := os.Stat(filepath.Join(harness, m.HDRLog)); err != nil {
						t.Error(err)
					}
				}
			}
			if !found {
				t.Errorf("%s: the tool wrote an HDR log of %s, the harness none", name, o.Op)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(harness, "*.json"))
	so.Reset()
	se.Reset()
	if code := cli.Run(context.Background(), append([]string{"compare"}, files...), &so, &se); code != 0 || !strings.Contains(so.String(), "memory") {
		t.Errorf("linkbench compare of the harness's files: exit %d\n%s%s", code, so.String(), se.String())
	}
	png := filepath.Join(t.TempDir(), "run.png")
	if code := cli.Run(context.Background(), append([]string{"plot", "-o", png}, files...), &so, &se); code != 0 {
		t.Errorf("linkbench plot of the harness's files: exit %d\n%s", code, se.String())
	} else if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Errorf("no plot: %v", err)
	}
}
