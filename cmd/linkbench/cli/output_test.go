package cli

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/stats/results"
)

// smallRun is a load and request phase of a few seconds on the memory
// store.
var smallRun = []string{"-store", "memory", "-D", "maxid1=2001", "-D", "nlinks_func=const", "-D", "nlinks_default=4",
	"-D", "nlinks_config=0", "-D", "requesters=2", "-D", "maxtime=2", "-D", "progressfreq=1"}

// checkComplete checks that dir holds label's load and request result
// files, valid and naming HDR logs that exist, that the -csvstats file
// csv holds both phases' blocks, and that no temporary file is left.
func checkComplete(t *testing.T, dir, label, csv string) {
	t.Helper()
	for _, phase := range []string{"load", "request"} {
		f, err := results.Read(filepath.Join(dir, label+"."+phase+".json"))
		if err != nil {
			t.Errorf("%s result file: %v", phase, err)
			continue
		}
		logs := 0
		for _, o := range f.Ops {
			if o.HDRLog == "" {
				continue
			}
			logs++
			if _, err := os.Stat(filepath.Join(dir, o.HDRLog)); err != nil {
				t.Errorf("%s: %v", o.Op, err)
			}
		}
		if logs == 0 {
			t.Errorf("%s result file names no HDR log", phase)
		}
	}
	b, err := os.ReadFile(csv)
	if err != nil || strings.Count(string(b), "# phase = ") != 2 && strings.Count(string(b), "op,count") < 2 {
		t.Errorf("-csvstats lacks a phase's block (%v):\n%s", err, b)
	}
	for _, d := range []string{dir, filepath.Dir(csv)} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".tmp") {
				t.Errorf("temporary file left: %s", e.Name())
			}
		}
	}
}

// TestClosedStdout: `linkbench ... | head -1` used to die of SIGPIPE at
// the first report printed after the reader exited, losing the result
// files and the CSV. The run now goes on (its phases are written to
// files), every file is complete, standard error says why the reports
// stopped, and the exit status is 141.
func TestClosedStdout(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "s.csv")
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"},
		append(smallRun, "-results", dir, "-label", "x", "-csvstats", csv)...)...)
	cmd.Env = append(os.Environ(), "LINKBENCH_TEST_CHILD=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	// head -1: read one line, then exit.
	if _, err := bufio.NewReader(pr).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 141 {
		t.Fatalf("exit %v, want status 141; stderr:\n%s", err, stderr.String())
	}
	if n := strings.Count(stderr.String(), "standard output:"); n != 1 || !strings.Contains(stderr.String(), "result files are still written") {
		t.Errorf("stderr says %d times why the reports stopped, want once:\n%s", n, stderr.String())
	}
	checkComplete(t, dir, "x", csv)
}

// TestFullStdout: >/dev/full lost the request result file; the run now
// ends with every file complete and exit status 1.
func TestFullStdout(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	dir := t.TempDir()
	csv := filepath.Join(dir, "s.csv")
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"},
		append(smallRun, "-results", dir, "-label", "y", "-csvstats", csv)...)...)
	cmd.Env = append(os.Environ(), "LINKBENCH_TEST_CHILD=1")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = full, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want status 1; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "no space left on device") {
		t.Errorf("stderr does not say why the reports stopped:\n%s", stderr.String())
	}
	checkComplete(t, dir, "y", csv)
}

// TestClosedStdoutWithoutFiles: with nothing written to files, a closed
// standard output stops the run after the phase whose report could not
// be printed (nothing of the next phases would be kept).
func TestClosedStdoutWithoutFiles(t *testing.T) {
	var stdout, stderr bytes.Buffer
	_ = stdout
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, append(smallRun, "-D", "maxtime=600")...)...)
	cmd.Env = append(os.Environ(), "LINKBENCH_TEST_CHILD=1")
	cmd.Stderr = &stderr
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	pr.Close() // the reader is gone before anything is printed
	start := time.Now()
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 141 {
		t.Fatalf("exit %v, want status 141; stderr:\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "request progress") || time.Since(start) > 300*time.Second {
		t.Errorf("the request phase ran after the load's report could not be printed:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "the run stops") {
		t.Errorf("stderr does not say the run stops:\n%s", stderr.String())
	}
}

// TestUnwritableOutputs: an output path that cannot be written is refused
// before anything runs (it used to be noticed after the load), in one
// line naming the flag, with exit status 2 and nothing written.
func TestUnwritableOutputs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	under := filepath.Join(file, "x") // a path under a regular file: not writable, even by root
	for _, c := range []struct{ flag, path string }{
		{"-results", under}, {"-results", file}, {"-csvstats", under}, {"-csvstream", under},
		{"-trace", under}, {"-L", under}, {"-cpuprofile", under}, {"-csvstats", dir},
	} {
		start := time.Now()
		code, out, stderr := runCLI(t, append(smallRun, "-D", "maxid1=200001", c.flag, c.path)...)
		if code != 2 || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.flag+":") {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want 2, nothing, one line naming %s", c.flag, c.path, code, out, stderr, c.flag)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s %s: refused after %v (a phase ran?)", c.flag, c.path, d)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left in %s: %v", dir, ents)
	}
	// An existing -results directory that refuses new files was noticed
	// only when the first result file was written, after the load.
	if ro, ok := readOnlyDir(t); ok {
		start := time.Now()
		code, out, stderr := runCLI(t, append(smallRun, "-D", "maxid1=200001", "-results", ro)...)
		if code != 2 || out != "" || !strings.Contains(stderr, "-results:") || time.Since(start) > 5*time.Second {
			t.Errorf("-results %s (read-only): exit %d after %v, stdout %q, stderr %q; want 2 at once naming -results", ro, code, time.Since(start), out, stderr)
		}
	}
	code, _, stderr := runCLI(t, "plot", "-o", filepath.Join(under, "p.png"), filepath.Join(dir, "missing.json"))
	if code != 2 || !strings.Contains(stderr, "-o") {
		t.Errorf("plot -o under a file: exit %d, stderr %q; want 2 naming -o", code, stderr)
	}
}

// TestSIGHUP: a closed terminal (SIGHUP) used to kill the run at once,
// with no partial report and no result file. It now stops the phase as
// SIGINT does: partial report, result file marked INTERRUPTED, exit 129.
func TestSIGHUP(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd := child(t, &stdout, &stderr, append(smallRun, "-D", "maxtime=120", "-results", dir, "-label", "hup")...)
	waitFor(t, &stderr, "request progress:")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 129 {
		t.Fatalf("exit %v, want status 129; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "REQUEST PHASE INTERRUPTED") {
		t.Errorf("no partial report:\n%s", stdout.String())
	}
	f, err := results.Read(filepath.Join(dir, "hup.request.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != "INTERRUPTED" {
		t.Errorf("result file status %q, want INTERRUPTED", f.Status)
	}
}

// TestPerSecondIntervals: result files keep one interval per second
// whatever progressfreq is (a 4-second phase with progressfreq = 10 had a
// single interval: a plot drew each series as one dot), and the
// intervals' requests add up to the phase's.
func TestPerSecondIntervals(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-store", "memory", "-D", "maxid1=2001", "-D", "nlinks_func=const", "-D", "nlinks_default=4", "-D", "nlinks_config=0",
		"-D", "requesters=2", "-D", "maxtime=4", "-D", "progressfreq=10", "-results", dir, "-label", "ps"}
	if code, out, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	f, err := results.Read(filepath.Join(dir, "ps.request.json"))
	if err != nil {
		t.Fatal(err)
	}
	if v := f.Config["allow_empty_store"]; v == "true" {
		t.Errorf("the result file records allow_empty_store = %s, which the user never set", v)
	}
	if n := len(f.Intervals); n < 3 || n > 5 {
		t.Fatalf("%d intervals in a 4-second phase, want one per second", n)
	}
	var sum int64
	for i, iv := range f.Intervals {
		sum += iv.Ops
		if i < len(f.Intervals)-1 && (iv.Seconds < 0.8 || iv.Seconds > 1.5) {
			t.Errorf("interval %d lasts %.2f s, want about 1 s", i, iv.Seconds)
		}
	}
	if sum != f.Requests {
		t.Errorf("the intervals hold %d requests, the phase %d", sum, f.Requests)
	}
}

// readOnlyDir returns a directory in which no file can be created, even by
// root (chattr +i; chmod 0555 for another user), or false when this
// machine cannot make one.
func readOnlyDir(t *testing.T) (string, bool) {
	t.Helper()
	d := t.TempDir()
	if os.Geteuid() != 0 {
		if err := os.Chmod(d, 0o555); err != nil {
			t.Logf("no read-only directory: %v", err)
			return "", false
		}
		t.Cleanup(func() { os.Chmod(d, 0o755) })
		return d, true
	}
	if out, err := exec.Command("chattr", "+i", d).CombinedOutput(); err != nil {
		t.Logf("no read-only directory (chattr +i: %v %s)", err, out)
		return "", false
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", d).Run() })
	return d, true
}

// TestOutputToDevice: output paths that are devices (mknod of /dev/null's
// numbers here) or links are written through, never replaced by regular
// files: -csvstats /dev/null as root used to replace the system's
// /dev/null.
func TestOutputToDevice(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "mynull")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		t.Skip("cannot make a device node here (not root?):", err)
	}
	args := append(smallRun, "-D", "maxtime=1", "-csvstats", null, "-csvstream", null+"2", "-trace", filepath.Join(dir, "link.trace"))
	if err := syscall.Mknod(null+"2", syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(null, filepath.Join(dir, "link.trace")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, p := range []string{null, null + "2"} {
		if st, err := os.Stat(p); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("%s is no longer a device: %v", p, err)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link.trace")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the -trace link was replaced: %v", err)
	}
}

// TestSignalDuringMetricsLinger: -metrics-linger waits after the tables
// and -verify are printed, and a signal then only ends the wait: exit 0,
// the VERIFY line printed (the wait came before -verify, and the signal
// cancelled it: exit 130 and no verification).
func TestSignalDuringMetricsLinger(t *testing.T) {
	var stdout, stderr bytes.Buffer
	cmd := child(t, &stdout, &stderr, "-store", "memory", "-D", "maxid1=2001", "-D", "nlinks_func=const", "-D", "nlinks_default=4",
		"-D", "maxtime=1", "-l", "-r", "-verify", "-metrics-addr", "127.0.0.1:0", "-metrics-linger", "120s")
	waitFor(t, &stderr, "final metrics")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit %v, want 0; stderr:\n%s", err, stderr.String())
	}
	if !regexp.MustCompile(`(?m)^VERIFY .* counts OK$`).MatchString(stdout.String()) {
		t.Errorf("no VERIFY line before the linger:\n%s", stdout.String())
	}
	if strings.Contains(stderr.String(), "partial report") {
		t.Errorf("the signal during the linger was taken for an interrupted phase:\n%s", stderr.String())
	}
}
