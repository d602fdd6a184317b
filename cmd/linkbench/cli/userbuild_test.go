package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/internal/testmod"
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
	dir := testmod.New(t, "example.com/mylinkbench", map[string]string{"main.go": `package main

import (
	"github.com/linkbench-go/linkbench/cmd/linkbench/cli"
	_ "github.com/linkbench-go/linkbench/examples/customstore"
)

func main() { cli.Main() }
`})
	bin := filepath.Join(dir, "mylinkbench")
	testmod.Go(t, dir, "mod", "tidy")
	testmod.Go(t, dir, "build", "-o", bin, ".")
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
