package doccheck_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/internal/doccheck"
	"github.com/linkbench-go/linkbench/internal/testmod"
)

// root is the repository's root directory.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatal(err)
	}
	return r
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReferencesResolve: every § reference of a Go file or the README
// names a numbered section (or item) of docs/behaviour.md.
func TestReferencesResolve(t *testing.T) {
	r := root(t)
	sections := doccheck.Sections(read(t, filepath.Join(r, "docs", "behaviour.md")))
	if len(sections) < 100 || !sections["11.2-17"] || !sections["7.6"] || !sections["11"] {
		t.Fatalf("docs/behaviour.md: %d sections found, the numbering is not read", len(sections))
	}
	files := []string{filepath.Join(r, "README.md")}
	err := filepath.WalkDir(r, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != r && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	refs := 0
	for _, f := range files {
		for _, ref := range doccheck.Refs(read(t, f)) {
			refs++
			if !sections[ref] {
				rel, _ := filepath.Rel(r, f)
				t.Errorf("%s: §%s is not a section of docs/behaviour.md", rel, ref)
			}
		}
	}
	if refs < 100 {
		t.Errorf("only %d references found: the scan is broken", refs)
	}
}

// TestREADMELibrarySnippet builds the README's library snippet as the
// main package of a new module that requires this one through a replace
// directive, as a user would, and vets it.
func TestREADMELibrarySnippet(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	r := root(t)
	src, err := doccheck.Snippet(read(t, filepath.Join(r, "README.md")), "library-example")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"package main", "github.com/linkbench-go/linkbench/linkbench"} {
		if !strings.Contains(src, want) {
			t.Errorf("the README snippet lacks %q", want)
		}
	}
	// The README's steps: go mod tidy, then a plain build (no -mod=mod).
	dir := testmod.New(t, "example.com/readme", map[string]string{"main.go": src})
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "-o", filepath.Join(dir, "readme"+exe()), "."}, {"vet", "."}} {
		testmod.Go(t, dir, args...)
	}
	// Every package the README's table names is a package of the module.
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = r
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	pkgs := strings.Fields(string(out))
	readme := read(t, filepath.Join(r, "README.md"))
	for _, line := range strings.Split(readme, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		name := strings.Trim(strings.SplitN(line, "`", 3)[1], "/")
		if strings.HasPrefix(name, "-") || strings.Contains(name, ".") {
			continue // the flag table, the capabilities' table (store.X)
		}
		if !slices.Contains(pkgs, "github.com/linkbench-go/linkbench/"+name) {
			t.Errorf("README names package %s, which is not in the module", name)
		}
	}
}

func exe() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}
