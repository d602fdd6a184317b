package cli

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/internal/testdb"
	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/mysqlstore"
)

// openDataNode opens a data node of the Spider set-up directly.
func openDataNode(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db
}

// queryInt runs a query returning one integer.
func queryInt(t *testing.T, db *sql.DB, q string) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n.Int64
}

// TestSpiderEndToEnd runs the tool through a Spider head (.ci/spider.sh):
// -create-schema -D engine=spider with the two data nodes, a load of
// maxid1 = 2001, a short request phase of 4 requesters and -verify, all
// through the head; then, on each data node directly: every table has
// rows on both nodes and they add up to what the head shows, every count
// row sits on the node of its links and matches them there (so a link
// write touched one node), and node ids are unique over the nodes; an
// AddNode through the head returns the next id; DropSchema removes the
// tables from the data nodes too.
func TestSpiderEndToEnd(t *testing.T) {
	head, nodes, dataDSNs := testdb.Spider(t)
	ctx := context.Background()
	db := fmt.Sprintf("lbspider_%s", strings.TrimSuffix(uniquePrefix("e2e"), "_"))
	s, err := mysqlstore.Open(ctx, mysqlstore.Options{DSN: head, Database: db, Engine: mysqlstore.Spider, SpiderDataNodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dropped := false
	t.Cleanup(func() {
		if !dropped {
			if err := s.DropSchema(ctx, db); err != nil {
				t.Logf("cleanup: %v", err)
			}
		}
	})

	code, out, stderr := runCLI(t, "-store", "mysql", "-dsn", head, "-create-schema",
		"-D", "engine=spider", "-D", "spider_data_nodes="+strings.Join(nodes, ","), "-D", "dbid="+db,
		"-D", "maxid1=2001", "-D", "nlinks_func=const", "-D", "nlinks_default=3", "-D", "nlinks_config=0",
		"-D", "loaders=2", "-l", "-r", "-D", "requesters=4", "-D", "maxtime=2", "-D", "progressfreq=0", "-verify")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !regexp.MustCompile(`(?m)^VERIFY ` + db + `: nodes=\d+ min_id=1 .* counts OK$`).MatchString(out) {
		t.Errorf("no VERIFY OK line starting at node id 1:\n%s", out)
	}
	if !strings.Contains(out, "engine=SPIDER") {
		t.Errorf("report does not name the engine SPIDER")
	}
	noPassword(t, head, out+stderr)

	// The head's tables are SPIDER tables.
	if e, err := s.TableEngine(ctx, db); err != nil || e != mysqlstore.Spider {
		t.Fatalf("TableEngine = %q, %v; want SPIDER", e, err)
	}
	headDB := openDataNode(t, head)
	// Node ids are counted on the head: Spider's default auto_increment_mode
	// 0 locks the largest id row of every data node for each AddNode
	// (ADD_NODE stalled for seconds under 4 requesters).
	var comment string
	if err := headDB.QueryRow("SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'nodetable'", db).Scan(&comment); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(comment, `auto_increment_mode "1"`) {
		t.Errorf("the head's node table comment %q does not set auto_increment_mode \"1\"", comment)
	}
	data := make([]*sql.DB, len(dataDSNs))
	for i, d := range dataDSNs {
		data[i] = openDataNode(t, d)
	}
	for _, table := range []string{"linktable", "counttable", "nodetable"} {
		total := queryInt(t, headDB, "SELECT COUNT(*) FROM `"+db+"`.`"+table+"`")
		var sum int64
		ns := make([]int64, len(data))
		for i, d := range data {
			ns[i] = queryInt(t, d, "SELECT COUNT(*) FROM `"+db+"`.`"+table+"`")
			if ns[i] == 0 {
				t.Errorf("%s: no rows on data node %d (%s)", table, i, nodes[i])
			}
			sum += ns[i]
			t.Logf("%s: %d rows on data node %d", table, ns[i], i)
		}
		if sum != total || total == 0 {
			t.Errorf("%s: %d rows through the head, %d on the data nodes", table, total, sum)
		}
		// HASH placement alternates consecutive ids between the nodes:
		// counts (2 per id1) and nodes split within a few percent of
		// even (KEY partitioning put 29 % of the nodes on one of two).
		if table != "linktable" {
			for i, n := range ns {
				if share := float64(n) / float64(max(sum, 1)); share < 0.8/float64(len(ns)) {
					t.Errorf("%s: data node %d holds %.0f%% of the rows, want about %.0f%%", table, i, 100*share, 100/float64(len(ns)))
				}
			}
		}
	}
	for i, d := range data {
		// Every (id1, link_type) with links on this node has its count row
		// here, and every count row matches the visible links on this node.
		missing := queryInt(t, d, "SELECT COUNT(*) FROM (SELECT DISTINCT id1, link_type FROM `"+db+"`.linktable) l "+
			"LEFT JOIN `"+db+"`.counttable c ON c.id = l.id1 AND c.link_type = l.link_type WHERE c.id IS NULL")
		wrong := queryInt(t, d, "SELECT COUNT(*) FROM `"+db+"`.counttable c LEFT JOIN "+
			"(SELECT id1, link_type, SUM(visibility = 1) AS n FROM `"+db+"`.linktable GROUP BY id1, link_type) l "+
			"ON l.id1 = c.id AND l.link_type = c.link_type WHERE c.count <> COALESCE(l.n, 0)")
		if missing != 0 || wrong != 0 {
			t.Errorf("data node %d: %d (id1, link_type) without their count row there, %d count rows that do not match the links there", i, missing, wrong)
		}
	}
	// Node ids are unique over the data nodes; AddNode through the head
	// returns the next one, stored on exactly one node.
	var maxID, distinct int64
	for _, d := range data {
		maxID = max(maxID, queryInt(t, d, "SELECT MAX(id) FROM `"+db+"`.nodetable"))
	}
	ids := map[int64]int{}
	for i, d := range data {
		rows, err := d.Query("SELECT id FROM `" + db + "`.nodetable")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			if j, dup := ids[id]; dup {
				t.Errorf("node id %d on data nodes %d and %d", id, j, i)
			}
			ids[id] = i
			distinct++
		}
		rows.Close()
	}
	if distinct < 2000 {
		t.Errorf("%d node ids on the data nodes, want at least the 2000 loaded", distinct)
	}
	sess, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id, err := sess.AddNode(ctx, store.Node{Type: 2048, Version: 1, Time: 1, Data: []byte("spider")})
	sess.Close()
	if err != nil {
		t.Fatal(err)
	}
	if id != maxID+1 {
		t.Errorf("AddNode through the head returned id %d, want %d (the largest id on the data nodes + 1)", id, maxID+1)
	}
	var on int64
	for _, d := range data {
		on += queryInt(t, d, fmt.Sprintf("SELECT COUNT(*) FROM `%s`.nodetable WHERE id = %d AND type = 2048", db, id))
	}
	if on != 1 {
		t.Errorf("node %d is on %d data nodes, want 1", id, on)
	}

	// DropSchema drops the remote tables too (dropping the head's leaves them).
	if err := s.DropSchema(ctx, db); err != nil {
		t.Fatal(err)
	}
	dropped = true
	for i, d := range data {
		if n := queryInt(t, d, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '"+db+"'"); n != 0 {
			t.Errorf("data node %d still has database %s after DropSchema", i, db)
		}
	}
	if n := queryInt(t, headDB, "SELECT COUNT(*) FROM mysql.servers WHERE Server_name LIKE 'lbspider%\\_"+db+"'"); n != 0 {
		t.Errorf("the head still has %d servers of %s after DropSchema", n, db)
	}
}

// TestSpiderBadInput: a malformed spider_data_nodes, and engine=spider
// with -create-schema but no data nodes, are refused with one line naming
// the key, exit status 2, before any connection (no server needed).
func TestSpiderBadInput(t *testing.T) {
	dsn := "lbtest:pw@tcp(127.0.0.1:1)/"
	for _, c := range []struct{ name, nodes, want string }{
		{"no port", "127.0.0.1", `spider_data_nodes`},
		{"port out of range", "127.0.0.1:4508,127.0.0.1:70000", `port must be 1..65535`},
		{"none with -create-schema", "", `spider_data_nodes`},
		{"listed twice", "127.0.0.1:4508,127.0.0.1:4508", `listed twice`},
		{"empty element", "127.0.0.1:4508,,127.0.0.1:4509", `element 2 is empty`},
		{"trailing comma", "127.0.0.1:4508,", `element 2 is empty`},
		{"localhost", "localhost:4508", `write 127.0.0.1:4508`},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"-store", "mysql", "-dsn", dsn, "-create-schema", "-l", "-D", "engine=spider"}
			if c.nodes != "" {
				args = append(args, "-D", "spider_data_nodes="+c.nodes)
			}
			code, out, stderr := runCLI(t, args...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != 2 || out != "" || len(lines) != 1 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q: want exit 2, one line naming %q", code, out, stderr, c.want)
			}
		})
	}
}

// TestSpiderRefusesOtherDataNodes: -create-schema over an existing Spider
// schema with its data nodes in another order, or with the head listed as
// a data node, is refused with one line (exit 2) before any DDL: the
// head's servers still name the first order and the rows stay readable.
func TestSpiderRefusesOtherDataNodes(t *testing.T) {
	head, nodes, _ := testdb.Spider(t)
	if len(nodes) < 2 {
		t.Skip("needs two data nodes")
	}
	ctx := context.Background()
	db := fmt.Sprintf("lbspider_%s", strings.TrimSuffix(uniquePrefix("order"), "_"))
	s, err := mysqlstore.Open(ctx, mysqlstore.Options{DSN: head, Database: db, Engine: mysqlstore.Spider, SpiderDataNodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.DropSchema(ctx, db); err != nil {
			t.Logf("cleanup: %v", err)
		}
		s.Close()
	})
	if err := s.CreateSchema(ctx, db, mysqlstore.SchemaOptions{}); err != nil {
		t.Fatal(err)
	}
	ss, err := s.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	ids := make([]int64, 4)
	for i := range ids {
		if ids[i], err = ss.AddNode(ctx, store.Node{Type: 1, Data: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	hcfg, err := mysql.ParseDSN(head)
	if err != nil {
		t.Fatal(err)
	}
	reversed := []string{nodes[1], nodes[0]}
	for _, c := range []struct{ name, nodes, want string }{
		{"other order", strings.Join(reversed, ","), "same order"},
		{"head as data node", nodes[0] + "," + hcfg.Addr, "is the head itself"},
	} {
		code, out, stderr := runCLI(t, "-store", "mysql", "-dsn", head, "-create-schema", "-D", "engine=spider",
			"-D", "spider_data_nodes="+c.nodes, "-D", "dbid="+db, "-verify")
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q, stdout %q: want exit 2, one line with %q", c.name, code, stderr, out, c.want)
		}
	}
	for _, id := range ids {
		if _, found, err := ss.GetNode(ctx, 1, id); err != nil || !found {
			t.Errorf("GetNode(%d) after the refused -create-schema: found %v, %v", id, found, err)
		}
	}
}
