// Package testmod builds programs in modules of their own that require this
// repository's module, as a user of the library does: a go.mod with a
// replace directive to the checkout, the checkout's go.sum (so that no
// checksum database is needed: every module the user's module can need is
// in it), then `go mod tidy` and `go build` as the README says.
//
// `go mod tidy` in a new module downloads modules that a plain
// `go test ./...` of this repository never needs (the test dependencies of
// the dependencies), so on a machine with a cold module cache these tests
// need the module proxy. When it cannot be reached the test is skipped
// with a one-line reason, except in CI ($LINKBENCH_CI=1), where it fails.
package testmod

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/internal/testdb"
)

// ModulePath is the path of this repository's module.
const ModulePath = "github.com/linkbench-go/linkbench"

// GoMod returns the go.mod of a module named path that requires this
// repository's module, replaced by the checkout at root.
func GoMod(path, root string) string {
	return fmt.Sprintf("module %s\n\ngo 1.26.0\n\nrequire %s v0.0.0\n\nreplace %s => %s\n", path, ModulePath, ModulePath, root)
}

// Root returns the repository's root directory: the nearest directory at
// or above the working directory that holds a go.mod of this module.
func Root(tb testing.TB) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatalf("testmod: %v", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.HasPrefix(string(b), "module "+ModulePath+"\n") {
			return d
		}
		if filepath.Dir(d) == d {
			tb.Fatalf("testmod: no go.mod of %s at or above %s", ModulePath, wd)
		}
	}
}

// New writes a module named path into a new temporary directory and
// returns the directory: its go.mod (GoMod), the checkout's go.sum, and
// files (name to content; names may contain slashes).
func New(tb testing.TB, path string, files map[string]string) string {
	tb.Helper()
	root := Root(tb)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		tb.Fatalf("testmod: %v", err)
	}
	dir := tb.TempDir()
	all := map[string]string{"go.mod": GoMod(path, root), "go.sum": string(sum)}
	for name, body := range files {
		all[name] = body
	}
	for name, body := range all {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatalf("testmod: %v", err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatalf("testmod: %v", err)
		}
	}
	return dir
}

// Go runs the go command with args in dir, in a user's environment
// (GOFLAGS and GOWORK cleared; the module proxy and cache as configured),
// and returns its combined output. When the command fails because the
// module proxy (or the checksum database) cannot be reached, the test is
// skipped with a one-line reason (failed in CI); any other failure fails
// the test with the output.
func Go(tb testing.TB, dir string, args ...string) []byte {
	tb.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return out
	}
	if host, ok := Unreachable(string(out)); ok {
		testdb.Unavailable(tb, fmt.Sprintf("go %s needs the module proxy on a cold module cache, and %s cannot be reached", strings.Join(args, " "), host))
	}
	tb.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	return nil
}

// Unreachable reports whether the go command's output out says that a
// network host could not be reached, and which host (the proxy, the
// checksum database).
func Unreachable(out string) (host string, ok bool) {
	for _, line := range strings.Split(out, "\n") {
		for _, sign := range []string{"no such host", "connection refused", "network is unreachable", "i/o timeout", "TLS handshake timeout", "module lookup disabled by GOPROXY=off"} {
			if !strings.Contains(line, sign) {
				continue
			}
			host = "the module proxy"
			if i := strings.Index(line, "://"); i >= 0 {
				h := line[i+len("://"):]
				if j := strings.IndexAny(h, "/\"' "); j >= 0 {
					h = h[:j]
				}
				host = h
			}
			return host, true
		}
	}
	return "", false
}
