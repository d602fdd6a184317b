package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs the tool itself when the test binary is started as a
// child (LOADTOOL_TEST_CHILD=1), with signals wired as main wires them, so
// that a test can interrupt it.
func TestMain(m *testing.M) {
	if os.Getenv("LOADTOOL_TEST_CHILD") == "1" {
		args := os.Args[1:]
		for i, a := range args {
			if a == "--" {
				args = args[i+1:]
				break
			}
		}
		os.Args = append([]string{"loadtool"}, args...)
		main()
	}
	os.Exit(m.Run())
}

// reportCount returns the "OP found = ..." figures of the text report.
func reportCount(t *testing.T, out, op string) (found, notfound, errs int64) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + op + ` found = (\d+) notfound = (\d+) errors = (\d+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %s line in:\n%s", op, out)
	}
	a, _ := strconv.ParseInt(m[1], 10, 64)
	b, _ := strconv.ParseInt(m[2], 10, 64)
	c, _ := strconv.ParseInt(m[3], 10, 64)
	return a, b, c
}

// TestRun runs the tool: the custom mix is what the report shows, the
// middleware sees every GetLinkList, GetNode and AddLink of the request
// phase (bulk load kept: no AddLink during the load), its injected
// faults are the report's ADD_LINK errors, and progress is printed.
func TestRun(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"-maxid1", "5001", "-duration", "1500ms", "-progress", "300ms",
		"-fail-every", "20", "-slow", "1h"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	m := regexp.MustCompile(`middleware: GetLinkList (\d+) \((\d+) rows, 0 slow\), GetNode (\d+), AddLink (\d+) \((\d+) faults injected\)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no middleware line in:\n%s", text)
	}
	n := make([]int64, len(m))
	for i := 1; i < len(m); i++ {
		n[i], _ = strconv.ParseInt(m[i], 10, 64)
	}
	gl, glMiss, glErr := reportCount(t, text, "GET_LINKS_LIST")
	gn, gnMiss, _ := reportCount(t, text, "GET_NODE")
	al, _, alErr := reportCount(t, text, "ADD_LINK")
	// Every call the middleware saw is one of the report's: found,
	// notfound (a list that came back empty) or failed.
	if n[1] != gl+glMiss+glErr || n[3] != gn+gnMiss || n[4] != al+alErr {
		// The whole output, to tell a lost record from a call made
		// outside the measured phase (seen once, 30 GetLinkLists, in a CI
		// run with four test packages at a time on two cores).
		t.Errorf("middleware saw GetLinkList %d, GetNode %d, AddLink %d; report: %d, %d, %d\n%s\n%s", n[1], n[3], n[4], gl+glMiss+glErr, gn+gnMiss, al+alErr, text, errb.String())
	}
	if n[5] == 0 || n[5] != alErr || n[4]/20 != n[5] {
		t.Errorf("%d faults injected of %d AddLinks; report's ADD_LINK errors %d", n[5], n[4], alErr)
	}
	// The mix: GET_LINKS_LIST is 55 % of the requests, DELETE_NODE absent.
	total := regexp.MustCompile(`(\d+) requests done`).FindStringSubmatch(text)
	if total == nil {
		t.Fatalf("no completion line:\n%s", text)
	}
	all, _ := strconv.ParseInt(total[1], 10, 64)
	if share := float64(gl+glMiss+glErr) / float64(all); share < 0.53 || share > 0.57 {
		t.Errorf("GET_LINKS_LIST share %.3f, want 0.55", share)
	}
	if strings.Contains(text, "DELETE_NODE") {
		t.Error("DELETE_NODE in the report of a mix without it")
	}
	// At least one progress line of the request phase (every 300 ms of a
	// 1.5 s phase: about five, but a loaded machine may start the phase
	// late; "at least 3" failed so at load average 15).
	if got := strings.Count(errb.String(), "loadtool: progress "); got < 1 {
		t.Errorf("no progress line of the request phase:\n%s", errb.String())
	}
}

// TestInterrupt sends SIGINT during the request phase: the tool prints
// the partial report, marked INTERRUPTED, and the middleware's counts,
// and exits with 130.
func TestInterrupt(t *testing.T) {
	var out, errb bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "-maxid1", "5001", "-duration", "2m", "-progress", "200ms", "-slow", "1h")
	cmd.Env = append(os.Environ(), "LOADTOOL_TEST_CHILD=1")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(errb.String(), "loadtool: progress") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no progress line:\n%s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if took := time.Since(sent); took > 15*time.Second {
		t.Errorf("exited %v after SIGINT", took)
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d (%v), want 130; stderr:\n%s", code, err, errb.String())
	}
	text := out.String()
	for _, want := range []string{"INTERRUPTED", "GET_LINKS_LIST count = ", "middleware: GetLinkList "} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the output:\n%s", want, text)
		}
	}
}

// The tool's operation mix: percentages that sum to 100.
func Example_mix() {
	fmt.Printf("%.1f %% of requests, %.0f %% link lists, node ops: %v\n", feedMix.Sum(), feedMix.GetLinkList, feedMix.HasNodeOps())
	// Output: 100.0 % of requests, 55 % link lists, node ops: true
}
