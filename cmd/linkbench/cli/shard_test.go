package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/linkbench-go/linkbench/stats/results"
)

// stepTraces splits a -trace file into its request phases' call lines
// (comments and batch headers left out), one slice per "# request" comment.
func stepTraces(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var steps [][]string
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "# request "):
			steps = append(steps, nil)
		case l == "" || strings.HasPrefix(l, "#") || len(steps) == 0:
		default:
			steps[len(steps)-1] = append(steps[len(steps)-1], l)
		}
	}
	return steps
}

// TestStepsDistinctStreams (issue 19, item 2): with a fixed
// request_random_seed, the three steps of -steps 3 draw different
// requests from their first call on, and the same command run twice
// makes the same calls.
func TestStepsDistinctStreams(t *testing.T) {
	dir := t.TempDir()
	var runs [][][]string
	for run := range 2 {
		trace := filepath.Join(dir, "run"+string(rune('a'+run))+".trace")
		res := filepath.Join(dir, "res"+string(rune('a'+run)))
		code, out, stderr := runCLI(t, "-store", "discard", "-r", "-steps", "3", "-trace", trace, "-results", res,
			"-D", "maxid1=1001", "-D", "requesters=1", "-D", "requests=200", "-D", "request_random_seed=42",
			"-D", "allow_empty_store=true", "-D", "progressfreq=0")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		if run == 0 && !strings.Contains(out, "request_stream_seed=") {
			t.Errorf("the report does not print the request streams:\n%s", out)
		}
		// The result files record each step's stream seed: three of them.
		seeds := map[int64]bool{}
		for step := 1; step <= 3; step++ {
			f, err := results.Read(filepath.Join(res, fmt.Sprintf("request.L%d.P1.json", step)))
			if err != nil {
				t.Fatal(err)
			}
			if f.Seeds["request_random_seed"] != 42 {
				t.Errorf("step %d: seeds %v, want request_random_seed 42", step, f.Seeds)
			}
			seeds[f.Seeds["request_stream_seed"]] = true
		}
		if len(seeds) != 3 {
			t.Errorf("the three steps recorded %d distinct request_stream_seed values, want 3", len(seeds))
		}
		steps := stepTraces(t, trace)
		if len(steps) != 3 {
			t.Fatalf("%d request phases in the trace, want 3", len(steps))
		}
		for i, s := range steps {
			if len(s) < 200 {
				t.Fatalf("step %d traced %d calls, want at least 200", i+1, len(s))
			}
			for j := range i {
				if s[0] == steps[j][0] {
					t.Errorf("steps %d and %d start with the same call %q", j+1, i+1, s[0])
				}
				if slices.Equal(s[:10], steps[j][:10]) {
					t.Errorf("steps %d and %d replay the same first ten calls", j+1, i+1)
				}
			}
		}
		runs = append(runs, steps)
	}
	for i := range runs[0] {
		if !slices.Equal(runs[0][i], runs[1][i]) {
			t.Errorf("step %d: two runs of the same command made different calls", i+1)
		}
	}
}

// TestShardBadInput: a bad -shard (the shard key) or -start-at is one
// line naming it and what is allowed, exit status 2, nothing written.
func TestShardBadInput(t *testing.T) {
	runBadInput(t, []badCase{
		{"shard out of range", []string{"-store", "memory", "-l", "-shard", "3/3"}, []string{"shard", "0 <= I < N <= 4096"}, nil},
		{"shard malformed", []string{"-store", "memory", "-l", "-D", "shard=two"}, []string{"shard", "I/N"}, nil},
		{"shard with rng java", []string{"-store", "memory", "-l", "-shard", "1/2", "-D", "rng=java"}, []string{"shard", "rng = fast"}, nil},
		{"sharded load without a seed", []string{"-store", "memory", "-l", "-shard", "1/2", "-results", "%D/res"}, []string{"load_random_seed", "shard 1/2"}, nil},
		// The value as typed, and the flag or key it came from (not a
		// rewritten 0/1 or 1/1, not "(-D)" for the flag).
		{"shard 0/0", []string{"-store", "memory", "-r", "-shard", "0/0"}, []string{"-shard", `"0/0"`}, nil},
		{"shard N 0", []string{"-store", "memory", "-r", "-shard", "1/0"}, []string{"-shard", `"1/0"`}, nil},
		{"shard key N negative", []string{"-store", "memory", "-r", "-D", "shard=0/-3"}, []string{"shard", `"0/-3"`, "(-D)"}, nil},
		{"shard key N 0", []string{"-store", "memory", "-r", "-D", "shard=1/0"}, []string{"shard", `"1/0"`, "(-D)"}, nil},
		{"shard with a space", []string{"-store", "memory", "-r", "-shard", " 1/4"}, []string{"-shard", `" 1/4"`, "decimal"}, nil},
		{"shard with leading zeros", []string{"-store", "memory", "-r", "-shard", "01/04"}, []string{"-shard", `"01/04"`}, nil},
		{"shard with a sign", []string{"-store", "memory", "-r", "-shard", "+1/4"}, []string{"-shard", `"+1/4"`}, nil},
		{"shard key with a sign", []string{"-store", "memory", "-r", "-D", "shard=+1/4"}, []string{"shard", `"+1/4"`, "(-D)"}, nil},
		{"start-at malformed", []string{"-store", "memory", "-l", "-start-at", "tomorrow"}, []string{"-start-at", "RFC 3339"}, nil},
	})
}

// TestShardWithoutChunks: a shard that gets no chunk of the graph (shard
// 2/3 of a graph of one chunk) warns that it loads nothing; shard 0/3,
// which loads the chunk, does not.
func TestShardWithoutChunks(t *testing.T) {
	for _, c := range []struct {
		shard string
		warn  bool
	}{{"2/3", true}, {"0/3", false}} {
		code, out, stderr := runCLI(t, "-store", "memory", "-l", "-shard", c.shard, "-D", "maxid1=1001", "-D", "nlinks_func=const", "-D", "nlinks_default=2",
			"-D", "load_random_seed=1", "-D", "progressfreq=0")
		if code != 0 {
			t.Fatalf("shard %s: exit %d\n%s\n%s", c.shard, code, out, stderr)
		}
		if got := strings.Contains(stderr, "shard "+c.shard+" gets no chunk of id1s (the graph has 1): it loads nothing"); got != c.warn {
			t.Errorf("shard %s: warning that it loads nothing: %v, want %v\n%s", c.shard, got, c.warn, stderr)
		}
	}
}
