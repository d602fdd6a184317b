package cli

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/store/pebblestore"
)

// pebbleGraph is a small graph with a constant out-degree (the built-in
// model gives a few id1s millions of links on small graphs).
var pebbleGraph = []string{"-D", "maxid1=5001", "-D", "nlinks_func=const", "-D", "nlinks_default=4", "-D", "nlinks_config=0",
	"-D", "requesters=2", "-D", "maxtime=1"}

// TestPebbleDefault: without -store the run is on Pebble in a temporary
// directory, which the report names and which is gone at the end; the
// engine's own metrics are in the report, the result files and the
// tables.
func TestPebbleDefault(t *testing.T) {
	res := t.TempDir()
	code, out, stderr := runCLI(t, append(pebbleGraph, "-results", res, "-label", "pebble")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := regexp.MustCompile(`(?m)^store: pebble (\S+) \(a temporary directory, removed at the end`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the report does not name the temporary directory:\n%s", out)
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("the temporary directory %s is still there (%v)", m[1], err)
	}
	for _, want := range []string{"engine.wal_bytes = ", "engine.write_amp = ", "engine.live_bytes = ", "engine.block_cache_hit_rate = ", "wamp", "stall_s"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	for _, name := range []string{"pebble.load.json", "pebble.request.json"} {
		f, err := results.Read(filepath.Join(res, name))
		if err != nil {
			t.Fatal(err)
		}
		if f.Store != "pebble" || f.Engine == nil || f.Engine.Name != "pebble" {
			t.Fatalf("%s: store %q engine %+v", name, f.Store, f.Engine)
		}
		if f.Derived.WriteAmp == nil || *f.Derived.WriteAmp < 1 || f.Derived.SizeGB == nil || f.Derived.ReadAmp == nil {
			t.Errorf("%s: derived %+v", name, f.Derived)
		}
		if f.Server == nil || f.Server.Settings["compression"] != "snappy" || f.Server.Settings["wal_sync"] != "on" {
			t.Errorf("%s: server %+v, want the effective options", name, f.Server)
		}
		n := 0
		for _, iv := range f.Intervals {
			if _, ok := iv.Engine["wal_bytes"]; ok {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no interval has engine metrics", name)
		}
	}
}

// TestPebbleDirectory: -store pebble -dsn DIR keeps the database: a load
// once, then a request phase and -verify alone on it; a second load is
// refused, and so is a directory another store has open (exit 2, one
// line).
func TestPebbleDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	base := append([]string{"-store", "pebble", "-dsn", dir, "-D", "pebble_wal_sync=off"}, pebbleGraph...)
	if code, _, stderr := runCLI(t, append(base, "-l")...); code != 0 {
		t.Fatalf("-l: exit %d: %s", code, stderr)
	}
	code, out, stderr := runCLI(t, append(base, "-r")...)
	if code != 0 || !strings.Contains(out, "REQUEST PHASE COMPLETED") || !strings.Contains(out, "store: pebble "+dir+" ") {
		t.Fatalf("-r: exit %d: %s\n%s", code, stderr, out)
	}
	code, out, stderr = runCLI(t, append(base, "-verify")...)
	if code != 0 || !strings.Contains(out, "counts OK") {
		t.Fatalf("-verify: exit %d: %s\n%s", code, stderr, out)
	}
	oneLine := func(what string, code int, out, stderr, want string) {
		t.Helper()
		if code != 2 || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 and one line naming %q", what, code, out, stderr, want)
		}
	}
	code, out, stderr = runCLI(t, append(base, "-l")...)
	oneLine("a second load", code, out, stderr, "already holds a graph")

	s, err := pebblestore.Open(t.Context(), pebblestore.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, append(base, "-r")...)
	oneLine("a directory in use", code, out, stderr, "in use")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	code, out, stderr = runCLI(t, "-store", "pebble", "-dsn", filepath.Join(t.TempDir(), "none"), "-r")
	oneLine("-r on a missing directory", code, out, stderr, "no such directory")
	code, out, stderr = runCLI(t, "-verify")
	oneLine("-verify alone on a temporary directory", code, out, stderr, "-dsn")
	code, out, stderr = runCLI(t, append(base, "-D", "pebble_compression=lz9", "-r")...)
	oneLine("a bad pebble_compression", code, out, stderr, "pebble_compression")
	code, out, stderr = runCLI(t, append(base, "-D", "pebble_cache_size=2MiB", "-r")...)
	oneLine("a cache below the memtables' reservation", code, out, stderr, "pebble_cache_size")
}

// TestPebbleCompression: two loads of one graph with compression none
// and zstd give different sizes and write amplifications, as the engine
// measures them, and each result file records the compression applied.
func TestPebbleCompression(t *testing.T) {
	res := t.TempDir()
	files := map[string]*results.File{}
	for _, c := range []string{"none", "zstd"} {
		args := []string{"-l", "-D", "maxid1=10001", "-D", "nlinks_func=const", "-D", "nlinks_default=10", "-D", "nlinks_config=0",
			"-D", "pebble_wal_sync=off", "-D", "pebble_compression=" + c, "-results", res, "-label", c}
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c, code, stderr)
		}
		f, err := results.Read(filepath.Join(res, c+".load.json"))
		if err != nil {
			t.Fatal(err)
		}
		if f.Engine == nil || f.Derived.WriteAmp == nil || f.Derived.SizeGB == nil {
			t.Fatalf("%s: engine %+v, derived %+v", c, f.Engine, f.Derived)
		}
		if f.Server == nil || f.Server.Settings["compression"] != c {
			t.Errorf("%s: server %+v", c, f.Server)
		}
		files[c] = f
	}
	none, zstd := files["none"], files["zstd"]
	if !(zstd.Engine.Summary["live_bytes"] < none.Engine.Summary["live_bytes"]) || !(*zstd.Derived.SizeGB < *none.Derived.SizeGB) {
		t.Errorf("live bytes none %v zstd %v, size none %v zstd %v: want zstd smaller",
			none.Engine.Summary["live_bytes"], zstd.Engine.Summary["live_bytes"], *none.Derived.SizeGB, *zstd.Derived.SizeGB)
	}
	if *zstd.Derived.WriteAmp == *none.Derived.WriteAmp {
		t.Errorf("write amplification %v with both compressions", *zstd.Derived.WriteAmp)
	}
	t.Logf("none: size %.4f GB write_amp %.3f; zstd: size %.4f GB write_amp %.3f",
		*none.Derived.SizeGB, *none.Derived.WriteAmp, *zstd.Derived.SizeGB, *zstd.Derived.WriteAmp)
}

// TestPebbleCrashAudit: with WAL sync on (the default), a benchmark
// process killed (SIGKILL) in the middle of its request phase loses no
// acknowledged write: on the reopened directory, -verify finds every
// count exact and the audit of -audit's log no write lost.
func TestPebbleCrashAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a child process: skipped with -short")
	}
	work := t.TempDir()
	dir, log := filepath.Join(work, "db"), filepath.Join(work, "run.audit")
	base := []string{"-store", "pebble", "-dsn", dir, "-D", "maxid1=5001", "-D", "nlinks_func=const",
		"-D", "nlinks_default=4", "-D", "nlinks_config=0"}
	if code, _, stderr := runCLI(t, append(base, "-l", "-audit", log)...); code != 0 {
		t.Fatalf("-l: exit %d: %s", code, stderr)
	}
	var stdout, stderr bytes.Buffer
	cmd := child(t, &stdout, &stderr, append(base, "-r", "-audit", log, "-D", "requesters=4", "-D", "maxtime=60",
		"-D", "progressfreq=1")...)
	waitFor(t, &stderr, "request progress:")
	time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the killed run exited normally")
	}
	if strings.Contains(stdout.String(), "REQUEST PHASE COMPLETED") {
		t.Fatal("the request phase ended before the kill")
	}
	code, out, errs := runCLI(t, append(base, "-verify", "-audit", log)...)
	if code == 1 && strings.Contains(out, "counts OK") && inFlightOnly(t, out) {
		return
	}
	if code != 0 || !strings.Contains(out, "counts OK") {
		t.Fatalf("-verify -audit after the kill: exit %d: %s\n%s", code, errs, out)
	}
	m := auditSummary.FindStringSubmatch(out)
	if m == nil || m[1] == "0" {
		t.Fatalf("no summary line with acknowledged writes:\n%s", out)
	}
	t.Logf("%s", m[0])
}

// inFlightOnly reports whether every LOST write of the audit's output is
// explained by a write in flight when the client was killed: the store
// shows the same row with a time no older than the acknowledged write's
// (the write of a call that had no record yet; the audit cannot see it,
// see the README), never an older value. Equal times count: a node's time
// is in seconds and a link's in milliseconds, so a write in flight can
// carry the acknowledged one's time (an UPDATE_NODE did so once in a
// full run). A DELETE_LINK whose link is visible again, written no
// earlier than the delete was acknowledged, was superseded the same way
// (by an ADD_LINK in flight). It logs them.
func inFlightOnly(t *testing.T, out string) bool {
	t.Helper()
	lost := regexp.MustCompile(`(?m)^LOST (?:UPDATE_LINK|ADD_LINK|UPDATE_NODE|ADD_NODE) .* time=(\d+) .*the store shows: .* time=(\d+) `).FindAllStringSubmatch(out, -1)
	// An UPDATE_NODE acknowledged on a present node, and the node now
	// absent: only a DELETE_NODE after it does that (a lost update shows
	// the older version), one in flight at the kill when the log has no
	// record of it.
	deleted := regexp.MustCompile(`(?m)^LOST UPDATE_NODE .*the store shows: absent$`).FindAllString(out, -1)
	// A DELETE_LINK acknowledged, and the link now visible with a time no
	// older than the delete's acknowledgement: only an ADD_LINK sent after
	// it does that (a lost delete shows the link as it was before it,
	// written by a request that started before the delete was
	// acknowledged); link times are wall-clock milliseconds, and LOST
	// lines give the acknowledgement's time of day (UTC) to the
	// microsecond.
	relinked := regexp.MustCompile(`(?m)^LOST DELETE_LINK .* by \S+, acknowledged at (\d\d):(\d\d):(\d\d)\.(\d{6}); the store shows: visibility=1 version=\d+ time=(\d+) `).FindAllStringSubmatch(out, -1)
	n := strings.Count(out, "\nLOST ")
	if n == 0 || len(lost)+len(deleted)+len(relinked) != n {
		return false
	}
	for _, m := range lost {
		acked, _ := strconv.ParseInt(m[1], 10, 64)
		shown, _ := strconv.ParseInt(m[2], 10, 64)
		if shown < acked {
			return false
		}
	}
	const dayMs = 24 * 60 * 60 * 1000
	for _, m := range relinked {
		var f [5]int64
		for i := range f {
			f[i], _ = strconv.ParseInt(m[i+1], 10, 64)
		}
		ackedMs := ((f[0]*60+f[1])*60+f[2])*1000 + f[3]/1000 // the time of day, ms
		shownMs := f[4] % dayMs
		// No older: shown - acked in [0, 1 h) modulo a day (a run across
		// midnight UTC).
		if (shownMs-ackedMs+dayMs)%dayMs >= 60*60*1000 {
			return false
		}
	}
	t.Logf("%d write(s) superseded by a write in flight at the kill (the store shows a time no older; the audit has no record of it):\n%s", n, out)
	return true
}

// TestInFlightOnly: the crash test's excuse covers a store that shows a
// time no older than the lost write's (node times are seconds: equal
// counts), an updated node deleted since, or a deleted link visible again
// with a time no older than the delete's acknowledgement (also across
// midnight UTC), and never an older value, a missing row, an added node
// missing or a deleted link still there as it was before.
func TestInFlightOnly(t *testing.T) {
	const head = "VERIFY linkdb0: nodes=10 counts OK\n"
	newer := "LOST UPDATE_LINK id1=3 link_type=1 id2=3 visibility=1 version=0 time=1000 len=26 hash=aa by t0, acknowledged at 03:04:56.293439; the store shows: visibility=1 version=0 time=1001 len=17 hash=bb\n"
	sameSecond := "LOST UPDATE_NODE id=3084 type=2048 version=2 time=1796180633 len=282 hash=e4 by t0, acknowledged at 03:03:53.163110; the store shows: version=2 time=1796180633 len=468 hash=56\n"
	older := "LOST UPDATE_LINK id1=3 link_type=1 id2=3 visibility=1 version=0 time=1000 len=26 hash=aa by t0, acknowledged at 03:04:56.293439; the store shows: visibility=1 version=0 time=999 len=17 hash=bb\n"
	deletedAfter := "LOST UPDATE_NODE id=2624 type=2048 version=2 time=1796199262 len=227 hash=66 by t0, acknowledged at 08:14:22.919507; the store shows: absent\n"
	relinked := "LOST DELETE_LINK id1=3 link_type=123456789 id2=7 (hide) by t2, acknowledged at 03:04:56.293439; the store shows: visibility=1 version=1 time=1796180696293 len=17 hash=bb\n"
	relinkedMidnight := "LOST DELETE_LINK id1=3 link_type=123456789 id2=7 (hide) by t2, acknowledged at 23:59:59.999900; the store shows: visibility=1 version=1 time=1796256000000 len=17 hash=bb\n"
	hiddenBefore := "LOST DELETE_LINK id1=3 link_type=123456789 id2=7 (hide) by t2, acknowledged at 03:04:56.293439; the store shows: visibility=1 version=0 time=1796180696292 len=17 hash=bb\n"
	stillThere := "LOST DELETE_LINK id1=3 link_type=123456789 id2=7 (expunge) by t2, acknowledged at 03:04:56.293439; the store shows: visibility=0 version=1 time=1796180696295 len=17 hash=bb\n"
	addAbsent := "LOST ADD_NODE id=2624 type=2048 version=0 time=1796199262 len=227 hash=66 by t0, acknowledged at 08:14:22.919507; the store shows: absent\n"
	missing := "LOST ADD_LINK id1=3 link_type=1 id2=3 visibility=1 version=0 time=1000 len=26 hash=aa by t0, acknowledged at 03:04:56.293439; the store shows: nothing\n"
	for _, c := range []struct {
		out  string
		want bool
	}{
		{head + newer, true},
		{head + sameSecond, true},
		{head + newer + sameSecond, true},
		{head + older, false},
		{head + newer + older, false},
		{head + missing, false},
		{head + deletedAfter, true},
		{head + newer + deletedAfter, true},
		{head + addAbsent, false},
		{head + deletedAfter + older, false},
		{head + relinked, true},
		{head + relinkedMidnight, true},
		{head + newer + relinked, true},
		{head + hiddenBefore, false},
		{head + relinked + hiddenBefore, false},
		{head + stillThere, false},
		{head, false},
	} {
		if got := inFlightOnly(t, c.out); got != c.want {
			t.Errorf("inFlightOnly(%q) = %v, want %v", c.out, got, c.want)
		}
	}
}
