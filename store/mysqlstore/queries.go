package mysqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync/atomic"
)

// Statements of one database: MD's LinkStoreSql statement catalogue
// (reference §3.3, MySQL dialect), with the differences the package
// documentation lists.
const (
	sInsLink    = iota // S-ins-link(1)
	sCntUpsert         // S-cnt-upsert
	sLock              // S-lock
	sUpdLink           // S-upd-link
	sCntInc            // S-cnt-inc (delta +1 or -1)
	sHide              // S-hide
	sDelLink           // S-del
	sGetLink           // S-get
	sRange             // S-range
	sCount             // S-count
	sInsNode           // S-ins-node(1) (AUTO_INCREMENT id)
	sGetNode           // S-get-node
	sUpdNode           // S-upd-node
	sDelNode           // S-del-node
	sBulkLinks         // bulk link upsert of BulkInsertCount rows
	sBulkCounts        // bulk count upsert of BulkInsertCount rows
	sBulkNodes         // bulk node upsert (explicit ids) of BulkInsertCount rows
	numStmts
)

// stmtCols is the number of result columns of each SELECT statement.
var stmtCols = [numStmts]int{sLock: 1, sGetLink: 7, sRange: 7, sCount: 1, sGetNode: 5}

// linkCols is the column list of every link SELECT, in scan order.
const linkCols = "id1, id2, link_type, visibility, data, version, time"

// queries holds the SQL texts of one database. gen counts the DDL run
// through the Store on the database: connections re-prepare their
// statements when it moves.
type queries struct {
	db              string // back-quoted database name
	name            string // database name
	link, cnt, node string // qualified, back-quoted table names
	linkTable       string
	bulkN           int // rows of the prepared bulk statements
	text            [numStmts]string
	rocksText       [numStmts]string // the ROCKSDB variants ("" where the same)

	gen atomic.Uint64
	// engine caches the link table's engine for generation gen: 0 not
	// known, 1 neither ROCKSDB nor SPIDER, 2 ROCKSDB, 3 SPIDER (encoded
	// with the generation as gen<<2 | code).
	engine atomic.Uint64
}

func newQueries(o *Options, db string) *queries {
	q := &queries{db: quoteIdent(db), name: db, bulkN: o.BulkInsertCount, linkTable: o.LinkTable}
	qualified := func(table string) string { return q.db + "." + quoteIdent(table) }
	q.link, q.cnt, q.node = qualified(o.LinkTable), qualified(o.CountTable), qualified(o.NodeTable)
	L, C, N := q.link, q.cnt, q.node
	q.text = [numStmts]string{
		sInsLink: "INSERT INTO " + L + " (id1, id2, link_type, visibility, data, version, time) VALUES (?, ?, ?, ?, ?, ?, ?)",
		sCntUpsert: "INSERT INTO " + C + " (id, link_type, count, time, version) VALUES (?, ?, ?, ?, 0) " +
			"ON DUPLICATE KEY UPDATE count = count + ?, version = version + 1, time = ?",
		sLock:    "SELECT visibility FROM " + L + " WHERE id1 = ? AND id2 = ? AND link_type = ? FOR UPDATE",
		sUpdLink: "UPDATE " + L + " SET visibility = ?, data = ?, version = ?, time = ? WHERE id1 = ? AND id2 = ? AND link_type = ?",
		sCntInc:  "UPDATE " + C + " SET count = count + ?, version = version + 1, time = ? WHERE id = ? AND link_type = ?",
		sHide:    "UPDATE " + L + " SET visibility = 0 WHERE id1 = ? AND id2 = ? AND link_type = ?",
		sDelLink: "DELETE FROM " + L + " WHERE id1 = ? AND id2 = ? AND link_type = ?",
		sGetLink: "SELECT " + linkCols + " FROM " + L + " WHERE id1 = ? AND link_type = ? AND id2 = ?",
		sRange: "SELECT " + linkCols + " FROM " + L + " FORCE INDEX(id1_type) WHERE id1 = ? AND link_type = ? " +
			"AND time >= ? AND time <= ? AND visibility = 1 ORDER BY time DESC LIMIT ? OFFSET ?",
		sCount:      "SELECT count FROM " + C + " WHERE id = ? AND link_type = ?",
		sInsNode:    "INSERT INTO " + N + " (type, version, time, data) VALUES (?,?,?,?)",
		sGetNode:    "SELECT id, type, version, time, data FROM " + N + " WHERE id=?",
		sUpdNode:    "UPDATE " + N + " SET version=?, time=?, data=? WHERE id=? AND type=?",
		sDelNode:    "DELETE FROM " + N + " WHERE id=? and type =?",
		sBulkLinks:  q.bulkLinksSQL(q.bulkN),
		sBulkCounts: q.bulkCountsSQL(q.bulkN),
		sBulkNodes:  q.bulkNodesSQL(q.bulkN),
	}
	// On ROCKSDB the link UPDATE and DELETE force the primary key: without
	// statistics (a fresh or small table) MariaDB's ROCKSDB cost model
	// picks id1_type, which scans, and locks, the whole (id1, link_type)
	// list. Single-table DELETE takes no index hint, hence the multi-table
	// form (counted as Com_delete_multi).
	r := &q.rocksText
	r[sUpdLink] = "UPDATE " + L + " FORCE INDEX (PRIMARY) SET visibility = ?, data = ?, version = ?, time = ? WHERE id1 = ? AND id2 = ? AND link_type = ?"
	r[sHide] = "UPDATE " + L + " FORCE INDEX (PRIMARY) SET visibility = 0 WHERE id1 = ? AND id2 = ? AND link_type = ?"
	r[sDelLink] = "DELETE " + L + " FROM " + L + " FORCE INDEX (PRIMARY) WHERE id1 = ? AND id2 = ? AND link_type = ?"
	return q
}

// textOf returns the text of statement id for the link table's engine.
func (q *queries) textOf(ctx context.Context, db *sql.DB, id int) string {
	if q.rocksText[id] != "" && q.rocks(ctx, db) {
		return q.rocksText[id]
	}
	return q.text[id]
}

// rocks reports whether the link table is a ROCKSDB table (see
// engineCode).
func (q *queries) rocks(ctx context.Context, db *sql.DB) bool { return q.engineCode(ctx, db) == 2 }

// spider reports whether the link table is a SPIDER table (see
// engineCode): the head then reports 0 affected rows for every DELETE,
// whether it deleted a row or not (MariaDB 10.11's Spider), so deletes
// find their row by locking it first.
func (q *queries) spider(ctx context.Context, db *sql.DB) bool { return q.engineCode(ctx, db) == 3 }

// engineCode returns the engine code of the link table (the codes of
// queries.engine), asking the server once per DDL generation (a missing
// table, or an error, gives 0 and is asked again next time).
func (q *queries) engineCode(ctx context.Context, db *sql.DB) uint64 {
	g := q.gen.Load()
	if e := q.engine.Load(); e>>2 == g && e&3 != 0 {
		return e & 3
	}
	var eng string
	err := db.QueryRowContext(ctx, "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
		q.name, q.linkTable).Scan(&eng)
	if err != nil {
		return 0
	}
	code := uint64(1)
	switch {
	case strings.EqualFold(eng, string(RocksDB)):
		code = 2
	case strings.EqualFold(eng, string(Spider)):
		code = 3
	}
	q.engine.Store(g<<2 | code)
	return code
}

// values appends ", (?, ?, ...)" tuples: rows tuples of cols placeholders.
func values(b *strings.Builder, rows, cols int) {
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('?')
		}
		b.WriteByte(')')
	}
}

// bulkLinksSQL is the multi-row link upsert of n rows: LinkBench's bulk
// insert (S-ins-link(k)), made an upsert so that a re-load or a retried
// batch does not fail on duplicates (reference §11.2-27).
func (q *queries) bulkLinksSQL(n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + q.link + " (id1, id2, link_type, visibility, data, version, time) VALUES ")
	values(&b, n, 7)
	b.WriteString(" ON DUPLICATE KEY UPDATE visibility = VALUES(visibility), data = VALUES(data), " +
		"version = VALUES(version), time = VALUES(time)")
	return b.String()
}

// bulkCountsSQL is the multi-row count upsert of n rows (absolute values,
// as FB's REPLACE; reference §11.2-27).
func (q *queries) bulkCountsSQL(n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + q.cnt + " (id, link_type, count, time, version) VALUES ")
	values(&b, n, 5)
	b.WriteString(" ON DUPLICATE KEY UPDATE count = VALUES(count), time = VALUES(time), version = VALUES(version)")
	return b.String()
}

// bulkNodesSQL is the multi-row node upsert of n rows with explicit ids.
func (q *queries) bulkNodesSQL(n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + q.node + " (id, type, version, time, data) VALUES ")
	values(&b, n, 5)
	b.WriteString(" ON DUPLICATE KEY UPDATE type = VALUES(type), version = VALUES(version), " +
		"time = VALUES(time), data = VALUES(data)")
	return b.String()
}

// appendMultiget appends MD's literal multiget statement (S-multiget,
// which LinkBench sends as text, not prepared) for id1,
// linkType and id2s to b.
func (q *queries) appendMultiget(b []byte, id1, linkType int64, id2s []int64) []byte {
	b = append(b, "SELECT "+linkCols+" FROM "...)
	b = append(b, q.link...)
	b = append(b, " WHERE id1 = "...)
	b = strconv.AppendInt(b, id1, 10)
	b = append(b, " AND link_type = "...)
	b = strconv.AppendInt(b, linkType, 10)
	b = append(b, " and id2 IN ("...)
	for i, v := range id2s {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	return append(b, ')')
}
