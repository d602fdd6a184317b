package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOwnBuildWithOwnStore builds the tool as a user with a store of their
// own would, in a module of its own (a replace directive to this checkout):
// a main package importing cli and the store's package, nothing copied.
// The store (examples/customstore, registered as "sorted") then serves
// -store sorted.
func TestOwnBuildWithOwnStore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program: skipped with -short")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/mylinkbench\n\ngo 1.26.0\n\nrequire github.com/linkbench-go/linkbench v0.0.0\n\nreplace github.com/linkbench-go/linkbench => " + root + "\n",
		"main.go": `package main

import (
	"github.com/linkbench-go/linkbench/cli"
	_ "github.com/linkbench-go/linkbench/examples/customstore"
)

func main() { cli.Main() }
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "mylinkbench")
	env := append(os.Environ(), "GOFLAGS=", "GOPROXY=off", "GOWORK=off")
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "-o", bin, "."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err := exec.Command(bin, "-store", "sorted", "-D", "maxid1=1001", "-D", "nlinks_func=const",
		"-D", "nlinks_default=4", "-D", "nlinks_config=0", "-D", "maxtime=1", "-D", "requesters=2", "-l", "-r").CombinedOutput()
	if err != nil {
		t.Fatalf("-store sorted: %v\n%s", err, out)
	}
	for _, want := range []string{"REQUEST PHASE COMPLETED", "sorted"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
