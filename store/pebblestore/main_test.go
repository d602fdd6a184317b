package pebblestore_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/linkbench-go/linkbench/store/pebblestore"
)

// helperEnv names the helper a re-executed test binary runs instead of
// the tests: the child processes of the lock and crash tests.
const helperEnv = "PEBBLESTORE_TEST_HELPER"

func TestMain(m *testing.M) {
	switch h := os.Getenv(helperEnv); h {
	case "":
		code := m.Run()
		closeBenchGraph()
		os.Exit(code)
	case "lock":
		os.Exit(lockHelper(os.Getenv("PEBBLESTORE_TEST_DIR")))
	case "crash":
		os.Exit(crashHelper(os.Getenv("PEBBLESTORE_TEST_DIR"), os.Getenv("PEBBLESTORE_TEST_ACKS")))
	default:
		fmt.Fprintf(os.Stderr, "unknown helper %q\n", h)
		os.Exit(2)
	}
}

// helper returns the command that re-executes the test binary as helper
// h with the environment env.
func helper(t *testing.T, h string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + h}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

// lockHelper opens the store in dir, says "open" on standard output, and
// closes it when standard input ends.
func lockHelper(dir string) int {
	s, err := pebblestore.Open(context.Background(), pebblestore.Options{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, "lock helper:", err)
		return 1
	}
	fmt.Println("open")
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "lock helper:", err)
		return 1
	}
	return 0
}

// readLine reads one line of r.
func readLine(t *testing.T, r io.Reader) string {
	t.Helper()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the helper's output: %v", err)
	}
	return line
}
