package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/linkbench-go/linkbench/internal/testmod"
	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/store/mysqlstore"
)

// buildWithJournalStore builds the tool as a user would with a store of
// their own in another module (testdata/journalstore: a store that
// keeps its databases in journal files and implements, with the public
// API only, every capability of a store on a database server), and
// returns the binary.
func buildWithJournalStore(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a program: skipped with -short")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "journalstore", "journalstore.go"))
	if err != nil {
		t.Fatal(err)
	}
	dir := testmod.New(t, "example.com/mylinkbench", map[string]string{
		"main.go": `package main

import (
	"github.com/linkbench-go/linkbench/cmd/linkbench/cli"
	_ "example.com/mylinkbench/journalstore"
)

func main() { cli.Main() }
`,
		"journalstore/journalstore.go": string(src),
	})
	bin := filepath.Join(dir, "mylinkbench")
	testmod.Go(t, dir, "mod", "tidy")
	testmod.Go(t, dir, "build", "-o", bin, ".")
	return bin
}

// TestOwnStoreCapabilities: a store registered from another module that
// implements the store package's capabilities gets what the built-in SQL
// stores get, through them alone: -create-schema and -defer-index
// (SchemaCreator), the refusal to load without tables or over a graph and
// the loaded-graph check before a request phase (Contents,
// store.ErrNoSchema), its counters in the report (CounterSource), the
// idle-connection close before each phase (IdleCloser), the connection
// check (ConnectionLimiter), and the server and its size in the result
// files (ServerDescriber); -verify alone (with a config) checks it.
func TestOwnStoreCapabilities(t *testing.T) {
	bin := buildWithJournalStore(t)
	data, res := t.TempDir(), t.TempDir()
	graph := []string{"-D", "maxid1=1001", "-D", "nlinks_func=const", "-D", "nlinks_default=4", "-D", "nlinks_config=0"}
	run := func(args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, append(append([]string{"-store", "journal", "-dsn", data}, graph...), args...)...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	expect := func(what string, code int, out, stderr string, wantCode int, want ...string) {
		t.Helper()
		if code != wantCode {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", what, code, wantCode, out, stderr)
		}
		for _, w := range want {
			if !strings.Contains(out+stderr, w) {
				t.Errorf("%s: the output lacks %q\n%s\n%s", what, w, out, stderr)
			}
		}
	}

	code, out, stderr := run("-l")
	expect("load without tables", code, out, stderr, 2, "the database has no LinkBench tables; add -create-schema")
	code, out, stderr = run("-r", "-D", "requesters=1")
	expect("request without tables", code, out, stderr, 2, "the database has no LinkBench tables; create and load it first with -create-schema -l")

	code, out, stderr = run("-create-schema", "-defer-index", "-l", "-results", res)
	expect("-create-schema -defer-index -l", code, out, stderr, 0, "LOAD PHASE COMPLETED", "journal.writes = ")
	closeIdle := func(want int) {
		t.Helper()
		b, _ := os.ReadFile(filepath.Join(data, "close_idle"))
		if n := strings.Count(string(b), "CloseIdle\n"); n != want {
			t.Errorf("the store's idle connections were closed %d times, want %d (once before each phase)", n, want)
		}
	}
	closeIdle(1)
	marker, err := os.ReadFile(filepath.Join(data, "linkdb0", "tables"))
	if err != nil || string(marker) != "indexed\n" {
		t.Errorf("the deferred index was not created after the load: %q, %v", marker, err)
	}
	f, err := results.Read(filepath.Join(res, "load.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Server == nil || f.Server.Version != "journal 1" || f.Server.Settings["table_engine"] != "journal" || f.Server.Datadir != data {
		t.Errorf("the load's result file does not describe the store's server: %+v", f.Server)
	}
	if f.Host == nil || f.Host.Summary.SizeGB == nil || *f.Host.Summary.SizeGB <= 0 {
		t.Errorf("the load's host metrics have no database size: %+v", f.Host)
	}

	code, out, stderr = run("-l")
	expect("load over a graph", code, out, stderr, 2, "-l: database linkdb0 already holds a graph")
	code, out, stderr = run("-r", "-D", "requesters=100", "-D", "maxtime=1")
	expect("more sessions than the store accepts", code, out, stderr, 2, "requesters", "journal_max_sessions = 64")
	code, out, stderr = run("-r", "-D", "requesters=2", "-D", "maxtime=1")
	expect("request on the loaded graph", code, out, stderr, 0, "REQUEST PHASE COMPLETED", "journal.writes = ")
	closeIdle(2)
	code, out, stderr = run("-create-schema", "-r", "-D", "dbprefix=empty", "-D", "requesters=1")
	expect("request on new tables", code, out, stderr, 2, "-create-schema would create empty tables: add -l")

	conf := filepath.Join(t.TempDir(), "journal.properties")
	if err := os.WriteFile(conf, []byte("linkstore = journal\nmaxid1 = 1001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", conf, "-dsn", data, "-verify")
	b, err := cmd.CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^VERIFY linkdb0: nodes=\d+ .* counts OK$`).Match(b) {
		t.Errorf("-verify alone on the journal store: %v\n%s", err, b)
	}
}

// TestDBIDCreateSchema: with the dbid key naming the one database,
// -create-schema creates that database (not dbprefix0), the load goes
// there, and -verify alone checks it, on MariaDB and on PostgreSQL. (The
// MySQL schema loops used to ignore dbid: the load then failed with
// "Table '<dbid>.linktable' doesn't exist".)
func TestDBIDCreateSchema(t *testing.T) {
	graph := []string{"-D", "maxid1=1001", "-D", "nlinks_func=const", "-D", "nlinks_default=3", "-D", "nlinks_config=0"}
	t.Run("mysql", func(t *testing.T) {
		dsn := testDSN(t)
		prefix, dbid := uniquePrefix("dbidp"), uniquePrefix("dbid")+"x"
		dropAfter(t, dsn, prefix, 1)
		t.Cleanup(func() {
			s, err := mysqlstore.Open(context.Background(), mysqlstore.Options{DSN: dsn})
			if err == nil {
				_ = s.DropSchema(context.Background(), dbid)
				s.Close()
			}
		})
		base := append([]string{"-store", "mysql", "-dsn", dsn, "-D", "dbprefix=" + prefix, "-D", "dbid=" + dbid}, graph...)
		if code, out, stderr := runCLI(t, append(base, "-create-schema", "-l")...); code != 0 {
			t.Fatalf("-create-schema -D dbid=%s -l: exit %d\n%s\n%s", dbid, code, out, stderr)
		}
		code, out, stderr := runCLI(t, append(base, "-verify")...)
		if code != 0 || !regexp.MustCompile(`(?m)^VERIFY `+dbid+`: nodes=1000 .* counts OK$`).MatchString(out) {
			t.Fatalf("-verify: exit %d\n%s\n%s", code, out, stderr)
		}
		if !databaseExists(t, dsn, dbid) || databaseExists(t, dsn, prefix+"0") {
			t.Errorf("database %s exists: %v; %s0 (not asked for) exists: %v", dbid, databaseExists(t, dsn, dbid), prefix, databaseExists(t, dsn, prefix+"0"))
		}
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := testPGDSN(t)
		prefix, dbid := uniquePrefix("dbidp"), uniquePrefix("dbid")+"x"
		dropPGAfter(t, dsn, prefix, 1)
		t.Cleanup(func() {
			c, err := pgx.Connect(context.Background(), dsn)
			if err == nil {
				_, _ = c.Exec(context.Background(), fmt.Sprintf("DROP SCHEMA IF EXISTS %q CASCADE", dbid))
				c.Close(context.Background())
			}
		})
		base := append([]string{"-store", "postgres", "-dsn", dsn, "-D", "dbprefix=" + prefix, "-D", "dbid=" + dbid}, graph...)
		if code, out, stderr := runCLI(t, append(base, "-create-schema", "-l")...); code != 0 {
			t.Fatalf("-create-schema -D dbid=%s -l: exit %d\n%s\n%s", dbid, code, out, stderr)
		}
		code, out, stderr := runCLI(t, append(base, "-verify")...)
		if code != 0 || !regexp.MustCompile(`(?m)^VERIFY `+dbid+`: nodes=1000 .* counts OK$`).MatchString(out) {
			t.Fatalf("-verify: exit %d\n%s\n%s", code, out, stderr)
		}
		c, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		var n int
		if err := c.QueryRow(context.Background(), "SELECT count(*) FROM information_schema.schemata WHERE schema_name IN ($1, $2)",
			dbid, prefix+"0").Scan(&n); err != nil || n != 1 {
			t.Errorf("schemas %s and %s0: %d of them exist (%v), want %s alone", dbid, prefix, n, err, dbid)
		}
	})
}
