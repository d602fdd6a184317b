package pgstore

// Statements of one schema: MD's LinkStorePgsql statement catalogue
// (reference §3.3 and §3.5), with the differences the package
// documentation lists. Each is prepared on every connection under the name
// "lb<index>".
const (
	sBegin     = iota // BEGIN
	sCommit           // COMMIT
	sRollback         // ROLLBACK
	sInsLink          // S-ins-link(1)
	sCntUpsert        // S-cnt-upsert (PostgreSQL form)
	sLock             // S-lock
	sUpdLink          // S-upd-link
	sCntInc           // S-cnt-inc (delta -1)
	sHide             // S-hide
	sDelLink          // S-del
	sGetLink          // S-get
	sMultiget         // S-multiget (id2 = ANY($3))
	sRange            // S-range
	sCount            // S-count
	sInsNode          // S-ins-node(1) RETURNING id
	sGetNode          // S-get-node
	sUpdNode          // S-upd-node
	sDelNode          // S-del-node
	sColsCount        // the count table's columns, for COPY (never executed)
	sColsNode         // the node table's columns with id, for COPY (never executed)
	numStmts
)

// stmtNames are the prepared statements' names.
var stmtNames = func() (n [numStmts]string) {
	for i := range n {
		n[i] = "lb" + string(rune('a'+i))
	}
	return n
}()

// linkCols is the column list of every link SELECT and of the link COPY,
// in scan order.
const linkCols = "id1, id2, link_type, visibility, data, version, time"

// countCols and nodeCols are the column lists of the count and node
// COPY.
const (
	countCols = "id, link_type, count, time, version"
	nodeCols  = "id, type, version, time, data"
)

// queries holds the SQL texts of one schema.
type queries struct {
	schema          string // quoted schema name
	name            string // schema name
	link, cnt, node string // qualified, quoted table names
	nodeTable       string // node table name (unquoted), for its sequence
	dialect         Dialect
	text            [numStmts]string
}

func newQueries(o *Options, schema string) *queries {
	q := &queries{schema: quoteIdent(schema), name: schema, nodeTable: o.NodeTable, dialect: o.Dialect}
	q.link = q.schema + "." + quoteIdent(o.LinkTable)
	q.cnt = q.schema + "." + quoteIdent(o.CountTable)
	q.node = q.schema + "." + quoteIdent(o.NodeTable)
	L, C, N := q.link, q.cnt, q.node
	t := &q.text
	t[sBegin] = "BEGIN"
	t[sCommit] = "COMMIT"
	t[sRollback] = "ROLLBACK"
	t[sInsLink] = "INSERT INTO " + L + " (id1, id2, link_type, visibility, data, version, time) VALUES ($1, $2, $3, $4, $5, $6, $7)"
	t[sCntUpsert] = "INSERT INTO " + C + " AS c (id, link_type, count, time, version) VALUES ($1, $2, $3, $4, 0) " +
		"ON CONFLICT (id, link_type) DO UPDATE SET count = c.count + $3, version = c.version + 1, time = $4"
	t[sLock] = "SELECT visibility FROM " + L + " WHERE id1 = $1 AND id2 = $2 AND link_type = $3 FOR UPDATE"
	t[sUpdLink] = "UPDATE " + L + " SET visibility = $1, data = $2, version = $3, time = $4 WHERE id1 = $5 AND id2 = $6 AND link_type = $7"
	t[sCntInc] = "UPDATE " + C + " SET count = count + $1, version = version + 1, time = $2 WHERE id = $3 AND link_type = $4"
	t[sHide] = "UPDATE " + L + " SET visibility = 0 WHERE id1 = $1 AND id2 = $2 AND link_type = $3"
	t[sDelLink] = "DELETE FROM " + L + " WHERE id1 = $1 AND id2 = $2 AND link_type = $3"
	t[sGetLink] = "SELECT " + linkCols + " FROM " + L + " WHERE id1 = $1 AND link_type = $2 AND id2 = $3"
	t[sMultiget] = "SELECT " + linkCols + " FROM " + L + " WHERE id1 = $1 AND link_type = $2 AND id2 = ANY($3)"
	t[sRange] = "SELECT " + linkCols + " FROM " + L + " WHERE id1 = $1 AND link_type = $2 " +
		"AND time >= $3 AND time <= $4 AND visibility = 1 ORDER BY time DESC LIMIT $5 OFFSET $6"
	t[sCount] = "SELECT count FROM " + C + " WHERE id = $1 AND link_type = $2"
	t[sInsNode] = "INSERT INTO " + N + " (type, version, time, data) VALUES ($1, $2, $3, $4) RETURNING id"
	t[sGetNode] = "SELECT id, type, version, time, data FROM " + N + " WHERE id = $1"
	t[sUpdNode] = "UPDATE " + N + " SET version = $1, time = $2, data = $3 WHERE id = $4 AND type = $5"
	t[sDelNode] = "DELETE FROM " + N + " WHERE id = $1 AND type = $2"
	t[sColsCount] = "INSERT INTO " + C + " (" + countCols + ") VALUES ($1, $2, $3, $4, $5)"
	t[sColsNode] = "INSERT INTO " + N + " (" + nodeCols + ") VALUES ($1, $2, $3, $4, $5)"
	return q
}

// copySQL returns the COPY statement loading cols into table.
func copySQL(table, cols string) string {
	return "COPY " + table + " (" + cols + ") FROM STDIN (FORMAT binary)"
}

// tempTable is the session's temporary table for upserting bulk rows of
// kind k (links, counts or nodes): created like the target table, emptied
// at commit.
func tempTable(k bulkTarget) string {
	return "pg_temp.lb_bulk_" + [...]string{"links", "counts", "nodes"}[k]
}

// bulkTarget is the table a bulk load writes.
type bulkTarget uint8

const (
	targetLinks bulkTarget = iota
	targetCounts
	targetNodes
)

// upsertSQL returns the statements of the upsert path of a bulk load of
// kind k: create the temporary table (once per connection), and move its
// rows into the target, overwriting rows with the same key.
func (q *queries) upsertSQL(k bulkTarget) (create, move string) {
	tmp := tempTable(k)
	switch k {
	case targetLinks:
		create = "CREATE TEMPORARY TABLE IF NOT EXISTS " + tmp + " (LIKE " + q.link + ") ON COMMIT DELETE ROWS"
		move = "INSERT INTO " + q.link + " (" + linkCols + ") SELECT " + linkCols + " FROM " + tmp +
			" ON CONFLICT (link_type, id1, id2) DO UPDATE SET visibility = EXCLUDED.visibility, data = EXCLUDED.data," +
			" version = EXCLUDED.version, time = EXCLUDED.time"
	case targetCounts:
		create = "CREATE TEMPORARY TABLE IF NOT EXISTS " + tmp + " (LIKE " + q.cnt + ") ON COMMIT DELETE ROWS"
		move = "INSERT INTO " + q.cnt + " (" + countCols + ") SELECT " + countCols + " FROM " + tmp +
			" ON CONFLICT (id, link_type) DO UPDATE SET count = EXCLUDED.count, time = EXCLUDED.time, version = EXCLUDED.version"
	default:
		create = "CREATE TEMPORARY TABLE IF NOT EXISTS " + tmp + " (LIKE " + q.node + ") ON COMMIT DELETE ROWS"
		move = "INSERT INTO " + q.node + " (" + nodeCols + ") SELECT " + nodeCols + " FROM " + tmp +
			" ON CONFLICT (id) DO UPDATE SET type = EXCLUDED.type, version = EXCLUDED.version," +
			" time = EXCLUDED.time, data = EXCLUDED.data"
	}
	return create, move
}
