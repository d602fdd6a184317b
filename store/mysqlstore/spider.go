package mysqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// checkDataNode checks a Spider data node address: host:port, port
// 1..65535, no quote in the host (it goes into CREATE SERVER's options).
func checkDataNode(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("data node %q: want host:port", a)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("data node %q: port must be 1..65535", a)
	}
	if host == "" || strings.ContainsAny(host, "'\"\\`") {
		return fmt.Errorf("data node %q: want a host name or address without quotes", a)
	}
	return nil
}

// ErrSpiderDataNodes is wrapped by the errors of CreateSchema with engine
// SPIDER that refuse the data nodes before anything is created: the head
// or one data node listed twice, or an existing schema of the database
// whose head servers or tables name other data nodes, or another order.
var ErrSpiderDataNodes = errors.New("spider_data_nodes do not fit")

// CheckDataNodes checks Options.SpiderDataNodes as Open does, without a
// connection: each a host:port (port 1..65535, no quote, not localhost),
// none listed twice. The error names the node.
func CheckDataNodes(nodes []string) error {
	for _, a := range nodes {
		if err := checkDataNode(a); err != nil {
			return err
		}
	}
	return checkDataNodeList(nodes)
}

// checkDataNodeList checks the data node list as a whole (each address
// already passed checkDataNode): no address twice, no "localhost" (Spider,
// like the MySQL client, connects to localhost through the Unix socket and
// ignores the port).
func checkDataNodeList(nodes []string) error {
	seen := map[string]int{}
	for i, a := range nodes {
		host, port, _ := net.SplitHostPort(a)
		if strings.EqualFold(host, "localhost") {
			return fmt.Errorf("data node %q: Spider connects to localhost through the Unix socket, not port %s: write 127.0.0.1:%s", a, port, port)
		}
		k := strings.ToLower(a)
		if j, ok := seen[k]; ok {
			return fmt.Errorf("data node %q is listed twice (elements %d and %d)", a, j+1, i+1)
		}
		seen[k] = i
	}
	return nil
}

// serverIdentity returns what tells two servers on one machine apart:
// @@hostname, @@port and @@datadir.
func serverIdentity(ctx context.Context, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (string, error) {
	var host, dir string
	var port int
	if err := db.QueryRowContext(ctx, "SELECT @@hostname, @@port, @@datadir").Scan(&host, &port, &dir); err != nil {
		return "", err
	}
	return host + ":" + strconv.Itoa(port) + ":" + dir, nil
}

// checkSpiderNodes refuses, before any DDL, data nodes that are the head
// itself or one server listed twice under two addresses, and an existing
// Spider schema of db (the head's servers lbspider<i>_<db>, its link
// table's partitions) that names other data nodes, another order or
// another number of them: the head's HASH partitioning is what finds the
// rows again, so rewriting it over loaded data nodes loses them.
func (s *Store) checkSpiderNodes(ctx context.Context, db string) error {
	nodes := s.c.opts.SpiderDataNodes
	head, err := serverIdentity(ctx, s.c.db)
	if err != nil {
		return fmt.Errorf("head: %w", err)
	}
	ids := map[string]int{}
	for i, addr := range nodes {
		d, err := s.dataNodeDB(addr)
		if err != nil {
			return fmt.Errorf("data node %d (%s): %w", i, addr, err)
		}
		id, err := serverIdentity(ctx, d)
		d.Close()
		if err != nil {
			return fmt.Errorf("data node %d (%s): %w", i, addr, err)
		}
		if id == head {
			return fmt.Errorf("%w: data node %s is the head itself: the data nodes must be other servers", ErrSpiderDataNodes, addr)
		}
		if j, ok := ids[id]; ok {
			return fmt.Errorf("%w: data nodes %s and %s are the same server", ErrSpiderDataNodes, nodes[j], addr)
		}
		ids[id] = i
	}
	rows, err := s.c.db.QueryContext(ctx, "SELECT Server_name, Host, Port FROM mysql.servers WHERE Server_name LIKE 'lbspider%'")
	if err != nil {
		return fmt.Errorf("head: reading mysql.servers: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, host string
		var port int
		if err := rows.Scan(&name, &host, &port); err != nil {
			return fmt.Errorf("head: reading mysql.servers: %w", err)
		}
		num, ok := strings.CutSuffix(strings.TrimPrefix(name, "lbspider"), "_"+db)
		i, err := strconv.Atoi(num)
		if !ok || err != nil || i < 0 || spiderServer(db, i) != name {
			continue // another database's server
		}
		have := net.JoinHostPort(host, strconv.Itoa(port))
		if i >= len(nodes) {
			return fmt.Errorf("%w: database %s already has a Spider schema on more data nodes (server %s is %s); spider_data_nodes lists %d: drop the schema first, or list the same nodes in the same order",
				ErrSpiderDataNodes, db, name, have, len(nodes))
		}
		if !strings.EqualFold(have, nodes[i]) {
			return fmt.Errorf("%w: database %s already has a Spider schema whose data node %d is %s, not %s: list the same data nodes in the same order, or drop the schema first",
				ErrSpiderDataNodes, db, i, have, nodes[i])
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("head: reading mysql.servers: %w", err)
	}
	var parts int
	err = s.c.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND PARTITION_NAME IS NOT NULL",
		db, s.c.opts.LinkTable).Scan(&parts)
	if err != nil {
		return fmt.Errorf("head: reading the partitions of %s: %w", s.c.opts.LinkTable, err)
	}
	if parts != 0 && parts != len(nodes) {
		return fmt.Errorf("%w: database %s already has a head table %s over %d data nodes; spider_data_nodes lists %d: drop the schema first, or list the same nodes in the same order",
			ErrSpiderDataNodes, db, s.c.opts.LinkTable, parts, len(nodes))
	}
	return nil
}

// spiderServer is the name of the head's CREATE SERVER entry for data node
// i of database db: lbspider<i>_<db>.
func spiderServer(db string, i int) string { return "lbspider" + strconv.Itoa(i) + "_" + db }

// spiderNames checks that db and the table names can be written into the
// Spider table and partition comments (no quotes) and that the server
// names fit the server's 64 characters.
func (s *Store) spiderNames(db string, n int) error {
	for _, name := range []string{db, s.c.opts.LinkTable, s.c.opts.CountTable, s.c.opts.NodeTable} {
		if strings.ContainsAny(name, "'\"") {
			return fmt.Errorf("name %q: Spider comments cannot hold a quote", name)
		}
	}
	if l := len(spiderServer(db, n-1)); l > 64 {
		return fmt.Errorf("database %q: the Spider server name %s is %d characters, over 64", db, spiderServer(db, n-1), l)
	}
	return nil
}

// sqlString quotes s as a MariaDB string literal.
func sqlString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`, "\x00", `\0`).Replace(s) + "'"
}

// dataNodeDB opens a connection pool to Spider data node addr with the
// head's user and password (no default database).
func (s *Store) dataNodeDB(addr string) (*sql.DB, error) {
	cfg := s.c.cfg.Clone()
	cfg.Net = "tcp"
	cfg.Addr = addr
	cfg.DBName = ""
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	return db, nil
}

// onDataNodes runs stmts, in order, on every data node.
func (s *Store) onDataNodes(ctx context.Context, stmts []string) error {
	for i, addr := range s.c.opts.SpiderDataNodes {
		db, err := s.dataNodeDB(addr)
		if err != nil {
			return fmt.Errorf("data node %d (%s): %w", i, addr, err)
		}
		for _, st := range stmts {
			if _, err := db.ExecContext(ctx, st); err != nil {
				db.Close()
				return fmt.Errorf("data node %d (%s): %s: %w", i, addr, firstLine(st), err)
			}
		}
		db.Close()
	}
	return nil
}

// createSpider is CreateSchema for Engine Spider: LinkBench's InnoDB
// tables (the README schema, link table in 16 KEY(id1) partitions) in
// database db of every data node, then on the head a CREATE OR REPLACE
// SERVER per data node and SPIDER tables with the same columns and keys,
// partitioned by HASH(id1) (links), HASH(id) (counts, nodes): partition pI
// on data node I holds the ids equal to I modulo the number of nodes, so
// the count row of (id1, link_type) lives on the node of id1's links, one
// link write touches one data node, and consecutive ids alternate between
// nodes (KEY partitioning put 29% of ids 1..2000 on one of two nodes, 71%
// on the other). Rows must only ever be written through the head: its
// partitioning is what finds them again.
func (s *Store) createSpider(ctx context.Context, q *queries, db string, opts SchemaOptions) error {
	nodes := s.c.opts.SpiderDataNodes
	if len(nodes) == 0 {
		return fmt.Errorf("engine SPIDER: no data nodes (Options.SpiderDataNodes, the spider_data_nodes key: host:port,host:port)")
	}
	if opts.DeferSecondaryIndex {
		return fmt.Errorf("engine SPIDER: the id1_type index cannot be deferred (ALTER TABLE on a SPIDER table copies the remote rows through the head)")
	}
	if err := s.spiderNames(db, len(nodes)); err != nil {
		return fmt.Errorf("engine SPIDER: %w", err)
	}
	if err := s.checkSpiderNodes(ctx, db); err != nil {
		return fmt.Errorf("engine SPIDER: %w", err)
	}
	// What exists before: on a failure, what this call created is
	// dropped again (databases and servers it made; tables it added to
	// a database that existed are left).
	had, err := s.spiderExisting(ctx, db)
	if err != nil {
		return err
	}
	data := []string{"CREATE DATABASE IF NOT EXISTS " + q.db}
	data = append(data, createTables(q, InnoDB, DefaultInnoDBPartitions, true, opts.IfNotExists)...)
	if err := s.onDataNodes(ctx, data); err != nil {
		return s.undoSpider(ctx, q, db, had, err)
	}
	head := []string{"CREATE DATABASE IF NOT EXISTS " + q.db}
	for i, addr := range nodes {
		host, port, _ := net.SplitHostPort(addr)
		// The options on a line of their own: error messages quote a
		// statement's first line, and the password is on the second.
		head = append(head, "CREATE OR REPLACE SERVER "+quoteIdent(spiderServer(db, i))+" FOREIGN DATA WRAPPER mysql\n"+
			"OPTIONS (HOST "+sqlString(host)+", PORT "+port+", USER "+sqlString(s.c.cfg.User)+
			", PASSWORD "+sqlString(s.c.cfg.Passwd)+", DATABASE "+sqlString(db)+")")
	}
	innoTail := ") ENGINE=" + string(InnoDB) + " DEFAULT CHARSET=latin1"
	tables := createTables(q, InnoDB, 0, true, opts.IfNotExists)
	for i, table := range []struct{ name, col, params string }{
		{s.c.opts.LinkTable, "id1", ""}, {s.c.opts.CountTable, "id", ""},
		// The node ids: Spider's default auto_increment_mode 0 takes
		// the next id from the data nodes, locking the largest id row of
		// every node (SELECT ... ORDER BY id DESC LIMIT 1 FOR UPDATE in a
		// transaction across them) for every AddNode, which serialises
		// them; mode 1 counts on the head (one head only).
		{s.c.opts.NodeTable, "id", `, auto_increment_mode "1"`},
	} {
		st, ok := strings.CutSuffix(tables[i], innoTail)
		if !ok {
			return s.undoSpider(ctx, q, db, had, fmt.Errorf("engine SPIDER: internal error: unexpected table definition %s", firstLine(tables[i])))
		}
		head = append(head, st+spiderTail(db, table.name, table.col, table.params, len(nodes)))
	}
	for _, st := range head {
		if _, err := s.c.db.ExecContext(ctx, st); err != nil {
			return s.undoSpider(ctx, q, db, had, fmt.Errorf("%s: %w", firstLine(st), err))
		}
	}
	return nil
}

// spiderBefore is what of a Spider schema existed before CreateSchema:
// database db on the head and on each data node, and the head's servers.
type spiderBefore struct {
	head    bool
	data    []bool
	servers map[string]bool
}

// spiderExisting records which of db's databases and servers exist.
func (s *Store) spiderExisting(ctx context.Context, db string) (spiderBefore, error) {
	const q = "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?"
	b := spiderBefore{servers: map[string]bool{}}
	var n int
	if err := s.c.db.QueryRowContext(ctx, q, db).Scan(&n); err != nil {
		return b, fmt.Errorf("head: %w", err)
	}
	b.head = n > 0
	for i, addr := range s.c.opts.SpiderDataNodes {
		d, err := s.dataNodeDB(addr)
		if err == nil {
			err = d.QueryRowContext(ctx, q, db).Scan(&n)
			d.Close()
		}
		if err != nil {
			return b, fmt.Errorf("data node %d (%s): %w", i, addr, err)
		}
		b.data = append(b.data, n > 0)
		if err := s.c.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM mysql.servers WHERE Server_name = ?", spiderServer(db, i)).Scan(&n); err != nil {
			return b, fmt.Errorf("head: reading mysql.servers: %w", err)
		}
		b.servers[spiderServer(db, i)] = n > 0
	}
	return b, nil
}

// undoSpider drops what a failed createSpider created (the databases and
// servers of db that did not exist before) and returns cause; what it
// could not drop is added to the message.
func (s *Store) undoSpider(ctx context.Context, q *queries, db string, had spiderBefore, cause error) error {
	var left []string
	for i, addr := range s.c.opts.SpiderDataNodes {
		if had.data[i] {
			continue
		}
		d, err := s.dataNodeDB(addr)
		if err == nil {
			_, err = d.ExecContext(ctx, "DROP DATABASE IF EXISTS "+q.db)
			d.Close()
		}
		if err != nil {
			left = append(left, "database "+db+" on data node "+addr)
		}
		if !had.servers[spiderServer(db, i)] {
			if _, err := s.c.db.ExecContext(ctx, "DROP SERVER IF EXISTS "+quoteIdent(spiderServer(db, i))); err != nil {
				left = append(left, "server "+spiderServer(db, i))
			}
		}
	}
	if !had.head {
		if _, err := s.c.db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+q.db); err != nil {
			left = append(left, "database "+db+" on the head")
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("%w (not cleaned up: %s)", cause, strings.Join(left, ", "))
	}
	return cause
}

// spiderTail ends a head table's CREATE TABLE: the SPIDER engine, the
// remote table's name and a HASH(col) partition per data node.
func spiderTail(db, table, col, params string, nodes int) string {
	var b strings.Builder
	b.WriteString(") ENGINE=" + string(Spider) + " DEFAULT CHARSET=latin1 COMMENT='wrapper \"mysql\", table \"" + table + "\"" + params + "'\n")
	b.WriteString("PARTITION BY HASH(" + col + ") (")
	for i := range nodes {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("PARTITION p" + strconv.Itoa(i) + " COMMENT='srv \"" + spiderServer(db, i) + "\"'")
	}
	b.WriteString(")")
	return b.String()
}

// dropSpider drops database db's tables on every data node (and the
// database when no other table is left in it) and the head's servers of
// db; DropSchema calls it after dropping the head's SPIDER tables, which
// leaves the remote tables.
func (s *Store) dropSpider(ctx context.Context, q *queries, db string) error {
	for i, addr := range s.c.opts.SpiderDataNodes {
		d, err := s.dataNodeDB(addr)
		if err != nil {
			return fmt.Errorf("data node %d (%s): %w", i, addr, err)
		}
		err = dropTables(ctx, d, q, db)
		d.Close()
		if err != nil {
			return fmt.Errorf("data node %d (%s): %w", i, addr, err)
		}
		if _, err := s.c.db.ExecContext(ctx, "DROP SERVER IF EXISTS "+quoteIdent(spiderServer(db, i))); err != nil {
			return err
		}
	}
	return nil
}

// dropTables drops the three tables of db, then db when no table is left.
func dropTables(ctx context.Context, d *sql.DB, q *queries, db string) error {
	var n int
	if err := d.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", db).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if _, err := d.ExecContext(ctx, "DROP TABLE IF EXISTS "+q.link+", "+q.cnt+", "+q.node); err != nil {
		return err
	}
	if err := d.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", db).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		if _, err := d.ExecContext(ctx, "DROP DATABASE IF EXISTS "+q.db); err != nil {
			return err
		}
	}
	return nil
}
