package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run the tool in a child process (the test binary
// itself, with LINKBENCH_TEST_CHILD=1 and the tool's arguments after
// "--"), so that it can be sent signals.
func TestMain(m *testing.M) {
	if os.Getenv("LINKBENCH_TEST_CHILD") == "1" {
		args := os.Args[1:]
		for i, a := range args {
			if a == "--" {
				args = args[i+1:]
				break
			}
		}
		os.Exit(run(context.Background(), args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// child starts the tool in a child process.
func child(t *testing.T, stdout, stderr *bytes.Buffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), "LINKBENCH_TEST_CHILD=1")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// waitFor waits until the child's standard error contains s.
func waitFor(t *testing.T, buf *bytes.Buffer, s string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(buf.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in:\n%s", s, buf.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSignals: SIGINT and SIGTERM stop a phase promptly with its partial
// report marked INTERRUPTED in the text, the SUMMARY line and the CSV, and
// exit with 130 and 143; during a load the tool says how to check the
// graph.
func TestSignals(t *testing.T) {
	for _, c := range []struct {
		sig    syscall.Signal
		status int
		phase  string
	}{{syscall.SIGINT, 130, "request"}, {syscall.SIGTERM, 143, "load"}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			csv := filepath.Join(dir, "stats.csv")
			var stdout, stderr bytes.Buffer
			args := []string{"-store", "memory", "-D", "maxid1=20001", "-D", "maxtime=120", "-D", "nlinks_func=const",
				"-D", "nlinks_default=5", "-D", "nlinks_config=1", "-D", "progressfreq=1", "-csvstats", csv}
			wait := "request progress:"
			if c.phase == "load" {
				// A load slowed down to last: one link per id1, many id1s.
				args = []string{"-store", "memory", "-D", "maxid1=50000001", "-D", "nlinks_func=const", "-D", "nlinks_default=1",
					"-D", "nlinks_config=1", "-D", "progressfreq=1", "-D", "memory_limit_mb=1000000", "-l", "-csvstats", csv}
				wait = "load progress:"
			}
			cmd := child(t, &stdout, &stderr, args...)
			waitFor(t, &stderr, wait)
			start := time.Now()
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.status {
				t.Fatalf("exit %v, want status %d; stderr:\n%s", err, c.status, stderr.String())
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("%v to stop after the signal", d)
			}
			out := stdout.String()
			word := strings.ToUpper(c.phase) + " PHASE INTERRUPTED"
			if !strings.Contains(out, word) || !strings.Contains(out, "status=INTERRUPTED") {
				t.Errorf("report lacks %q or status=INTERRUPTED:\n%s", word, out)
			}
			b, err := os.ReadFile(csv)
			if err != nil || !strings.Contains(string(b), "# status = INTERRUPTED") {
				t.Errorf("-csvstats %q lacks the status (%v)", b, err)
			}
			if c.phase == "load" && !strings.Contains(stderr.String(), "-verify") {
				t.Errorf("an interrupted load does not say how to check the graph:\n%s", stderr.String())
			}
		})
	}
}
