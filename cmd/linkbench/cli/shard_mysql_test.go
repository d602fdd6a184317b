package cli

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// shardGraph is the small graph of the sharded-load tests: 3000 nodes in
// chunks of 100 ids, a Zipf out-degree (a few long lists), a fixed seed.
var shardGraph = []string{"-D", "maxid1=3001", "-D", "loader_chunk_size=100", "-D", "loaders=2",
	"-D", "nlinks_func=com.facebook.LinkBench.distributions.ZipfDistribution", "-D", "nlinks_shape=0.5", "-D", "nlinks_mean=4",
	"-D", "load_random_seed=7", "-D", "progressfreq=0"}

// tableSums returns each LinkBench table's row count and CHECKSUM TABLE of
// database db.
func tableSums(t *testing.T, dsn, db string) map[string][2]int64 {
	t.Helper()
	conn, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	out := map[string][2]int64{}
	for _, table := range []string{"linktable", "counttable", "nodetable"} {
		var n int64
		if err := conn.QueryRow("SELECT COUNT(*) FROM " + db + "." + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		var name string
		var sum sql.NullInt64
		if err := conn.QueryRow("CHECKSUM TABLE "+db+"."+table).Scan(&name, &sum); err != nil {
			t.Fatal(err)
		}
		out[table] = [2]int64{n, sum.Int64}
	}
	return out
}

// TestMySQLShardedLoad (issue 19, item 1): three shards, 0/3, 1/3 and 2/3,
// load one graph into one database at once (a common -start-at, which the
// rows' times come from); the tables equal a one-process load of the same
// seed and -start-at in another database, row counts and CHECKSUM TABLE;
// -verify passes on the sharded one.
func TestMySQLShardedLoad(t *testing.T) {
	dsn := testDSN(t)
	sharded, single := uniquePrefix("shard3"), uniquePrefix("shard1")
	dropAfter(t, dsn, sharded, 1)
	dropAfter(t, dsn, single, 1)
	shardedLoad(t, []string{"-store", "mysql", "-dsn", dsn}, sharded, single, func(prefix string) map[string][2]int64 {
		return tableSums(t, dsn, prefix+"0")
	})
}

// TestPostgresShardedLoad is TestMySQLShardedLoad on PostgreSQL: the
// tables' row counts and the md5 of their rows in order.
func TestPostgresShardedLoad(t *testing.T) {
	dsn := testPGDSN(t)
	sharded, single := uniquePrefix("shard3"), uniquePrefix("shard1")
	dropPGAfter(t, dsn, sharded, 1)
	dropPGAfter(t, dsn, single, 1)
	shardedLoad(t, []string{"-store", "postgres", "-dsn", dsn}, sharded, single, func(prefix string) map[string][2]int64 {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		out := map[string][2]int64{}
		for _, table := range []string{"linktable", "counttable", "nodetable"} {
			var n int64
			var sum string
			q := "SELECT count(*), coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') FROM " + prefix + "0." + table + " t"
			if err := conn.QueryRow(ctx, q).Scan(&n, &sum); err != nil {
				t.Fatal(err)
			}
			v, err := strconv.ParseUint(sum[:15], 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			out[table] = [2]int64{n, int64(v)}
		}
		return out
	})
}

// shardedLoad loads shardGraph as 3 shards at once into the database(s)
// of prefix sharded, and in one process into those of single, compares
// their tables' (rows, checksum) as sums gives them, and runs -verify on
// the sharded one.
func shardedLoad(t *testing.T, storeArgs []string, sharded, single string, sums func(prefix string) map[string][2]int64) {
	t.Helper()
	common := append(append(append([]string{}, storeArgs...), "-create-schema", "-l"), shardGraph...)
	// The shards prepare (schema, sessions), then start together.
	startAt := time.Now().Add(time.Second).UTC().Truncate(time.Second).Add(time.Second).Format(time.RFC3339)
	// The schema first: three processes creating it at once may collide.
	if code, out, stderr := runCLI(t, append(append([]string{}, storeArgs...), "-create-schema", "-verify", "-D", "dbprefix="+sharded)...); code != 0 {
		t.Fatalf("creating the schema: exit %d\n%s\n%s", code, out, stderr)
	}
	var wg sync.WaitGroup
	errs := make([]string, 3)
	for i := range 3 {
		wg.Go(func() {
			args := append(append([]string{}, common...), "-D", "dbprefix="+sharded, "-shard", fmt.Sprintf("%d/3", i), "-start-at", startAt)
			if code, out, stderr := runCLI(t, args...); code != 0 {
				errs[i] = fmt.Sprintf("shard %d/3: exit %d\n%s\n%s", i, code, out, stderr)
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	// The same -start-at, past by now: the rows' times are the shards'.
	code, out, stderr := runCLI(t, append(append([]string{}, common...), "-D", "dbprefix="+single, "-start-at", startAt)...)
	if code != 0 {
		t.Fatalf("one process: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "overran -start-at") {
		t.Errorf("a -start-at in the past gave no warning:\n%s", stderr)
	}
	a, b := sums(sharded), sums(single)
	for table, want := range b {
		if want[0] == 0 {
			t.Errorf("%s: the one-process load wrote no row", table)
		}
		if a[table] != want {
			t.Errorf("%s: 3 shards wrote %d rows (checksum %d), one process %d rows (checksum %d)",
				table, a[table][0], a[table][1], want[0], want[1])
		}
	}
	t.Logf("tables (rows, checksum): %v", b)
	code, out, stderr = runCLI(t, append(append([]string{}, storeArgs...), "-D", "dbprefix="+sharded, "-D", "maxid1=3001", "-verify")...)
	if code != 0 || !regexp.MustCompile(`(?m)^VERIFY `+sharded+`0: nodes=3000 .* counts OK$`).MatchString(out) {
		t.Errorf("-verify of the sharded load: exit %d\n%s\n%s", code, out, stderr)
	}
}
