package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyAloneOnMemoryStore: -verify without -l or -r on a store that
// starts empty is refused (one line naming -verify, exit 2, nothing run
// or written), with or without -c; it used to run the main job first when
// no -c was given. (The -D keys keep the main job short, should it run.)
func TestVerifyAloneOnMemoryStore(t *testing.T) {
	short := []string{"-D", "maxid1=1001", "-D", "maxtime=1", "-D", "requesters=1"}
	runBadInput(t, []badCase{
		{"-verify", append([]string{"-verify"}, short...), []string{"-verify", "pebble store without -dsn starts empty", "-dsn DIR"}, nil},
		{"-verify -store memory", append([]string{"-verify", "-store", "memory"}, short...), []string{"-verify", "memory store starts empty"}, nil},
		{"-verify with linkstore", append([]string{"-verify", "-D", "linkstore=memory"}, short...), []string{"-verify", "memory store starts empty"}, nil},
	})
}

// TestHelp: -h lists the subcommands with their synopses; linkbench help
// prints the same usage on standard output, help compare, help plot and
// help merge theirs, all with exit status 0; help of anything else is a usage error.
func TestHelp(t *testing.T) {
	code, out, stderr := runCLI(t, "-h")
	if code != 0 || out != "" {
		t.Errorf("-h: exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"usage: linkbench [-c file]", "linkbench compare [-format", "linkbench plot [-title", "linkbench merge [-overwrite]", "linkbench help [compare|plot|merge]", "-verify", "-shard I/N", "-start-at"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("-h does not say %q:\n%s", want, stderr)
		}
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"help"}, []string{"usage: linkbench [-c file]", "linkbench compare [-format", "linkbench plot [-title", "-verify"}},
		{[]string{"help", "compare"}, []string{"usage: linkbench compare", "-baseline", "-format"}},
		{[]string{"help", "plot"}, []string{"usage: linkbench plot", "-logy", "-ops", "-o file"}},
		{[]string{"help", "merge"}, []string{"usage: linkbench merge", "-o file", "-overwrite"}},
	} {
		code, out, stderr := runCLI(t, c.args...)
		if code != 0 || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
		for _, want := range c.want {
			if !strings.Contains(out, want) {
				t.Errorf("%v: stdout does not say %q:\n%s", c.args, want, out)
			}
		}
	}
	code, out, stderr = runCLI(t, "help", "nope")
	if code != 2 || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "help nope") || !strings.Contains(stderr, "help compare") {
		t.Errorf("help nope: exit %d, stdout %q, stderr %q; want 2 and one line naming it and the commands", code, out, stderr)
	}
}

// TestREADMEFlagTable: every flag -h lists has a row in the README's flag
// table, and the README names every subcommand's help (help merge too).
func TestREADMEFlagTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "| `-") {
			rows = append(rows, strings.SplitN(l, " | ", 2)[0])
		}
	}
	code, _, stderr := runCLI(t, "-h")
	if code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	flags := 0
	for _, l := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(l, "  -") {
			continue
		}
		name := strings.Fields(l)[0]
		flags++
		found := false
		for _, r := range rows {
			if strings.Contains(r, "`"+name+" ") || strings.Contains(r, "`"+name+"`") {
				found = true
			}
		}
		if !found {
			t.Errorf("README's flag table has no row for %s", name)
		}
	}
	if flags < 30 {
		t.Errorf("-h lists %d flags, want the tool's (at least 30)", flags)
	}
	for _, want := range []string{"`linkbench help compare`", "`linkbench help plot`", "`linkbench help merge`", "[-shard I/N] [-start-at time]"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("README does not say %s", want)
		}
	}
}
