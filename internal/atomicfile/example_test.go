package atomicfile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/linkbench-go/linkbench/internal/atomicfile"
)

// A file is written under a temporary name and appears under its own only
// when complete.
func Example() {
	dir, _ := os.MkdirTemp("", "atomicfile")
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "run.request.json")
	f, _ := atomicfile.Create(name)
	fmt.Fprintln(f, `{"phase": "REQUEST"}`)
	_, err := os.Stat(name)
	fmt.Println("before Commit:", os.IsNotExist(err))
	fmt.Println(f.Commit())
	b, _ := os.ReadFile(name)
	fmt.Print(string(b))
	fmt.Println(atomicfile.CheckDir(filepath.Join(name, "sub")) != nil) // under a file
	// Output:
	// before Commit: true
	// <nil>
	// {"phase": "REQUEST"}
	// true
}
