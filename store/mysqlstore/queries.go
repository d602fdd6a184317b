package mysqlstore

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"sync/atomic"
)

// Statements of one database, after reference §3.3 (MD's statement
// catalogue, MySQL dialect), with the changes noted.
const (
	sInsLink    = iota // S-ins-link(1)
	sCntUpsert         // S-cnt-upsert: +base, creating the row
	sLock              // S-lock (DeleteLink)
	sLockRow           // S-lock reading the whole row (AddLink, UpdateLink)
	sUpdLink           // S-upd-link
	sCntDec            // S-cnt-inc with -1, as its own statement (count is unsigned)
	sHide              // S-hide
	sDelLink           // S-del
	sGetLink           // S-get
	sRange             // S-range
	sCount             // S-count
	sInsNode           // S-ins-node(1) (AUTO_INCREMENT id)
	sGetNode           // S-get-node
	sUpdNode           // S-upd-node
	sDelNode           // S-del-node
	sNodeExists        // UpdateNode's follow-up when no row changed
	sBulkLinks         // bulk link upsert of BulkInsertCount rows
	sBulkCounts        // bulk count upsert of BulkInsertCount rows
	sBulkNodes         // bulk node upsert (explicit ids) of BulkInsertCount rows
	numStmts
)

// linkCols is the column list of every link SELECT, in scan order.
const linkCols = "id1, id2, link_type, visibility, data, version, time"

// queries holds the SQL texts of one database and its lazily prepared
// statements. Statements are prepared on first use (so that a Store can be
// opened before its schema exists) and kept until Close; a failed
// preparation is not remembered.
type queries struct {
	db              string // back-quoted database name
	link, cnt, node string // qualified, back-quoted table names
	bulkN           int    // rows of the prepared bulk statements
	text            [numStmts]string
	mu              sync.Mutex
	st              [numStmts]atomic.Pointer[sql.Stmt]
	multi           [MultigetCacheSizes + 1]atomic.Pointer[sql.Stmt] // by number of id2s
}

func newQueries(o *Options, db string) *queries {
	q := &queries{db: quoteIdent(db), bulkN: o.BulkInsertCount}
	q.link = q.db + "." + quoteIdent(o.LinkTable)
	q.cnt = q.db + "." + quoteIdent(o.CountTable)
	q.node = q.db + "." + quoteIdent(o.NodeTable)
	L, C, N := q.link, q.cnt, q.node
	t := &q.text
	t[sInsLink] = "INSERT INTO " + L + " (id1, id2, link_type, visibility, data, version, time) VALUES (?, ?, ?, ?, ?, ?, ?)"
	t[sCntUpsert] = "INSERT INTO " + C + " (id, link_type, count, time, version) VALUES (?, ?, ?, ?, 0) " +
		"ON DUPLICATE KEY UPDATE count = count + ?, version = version + 1, time = ?"
	t[sLock] = "SELECT visibility FROM " + L + " WHERE id1 = ? AND id2 = ? AND link_type = ? FOR UPDATE"
	t[sLockRow] = "SELECT visibility, data, version, time FROM " + L + " WHERE id1 = ? AND id2 = ? AND link_type = ? FOR UPDATE"
	// The link writes force the primary key: MariaDB's ROCKSDB cost model
	// otherwise scans id1_type over the whole (id1, link_type) list and
	// locks every link of it. Single-table DELETE takes no index hint,
	// hence the multi-table form.
	t[sUpdLink] = "UPDATE " + L + " FORCE INDEX (PRIMARY) SET visibility = ?, data = ?, version = ?, time = ? WHERE id1 = ? AND id2 = ? AND link_type = ?"
	t[sCntDec] = "UPDATE " + C + " SET count = count - 1, version = version + 1, time = ? WHERE id = ? AND link_type = ?"
	t[sHide] = "UPDATE " + L + " FORCE INDEX (PRIMARY) SET visibility = 0 WHERE id1 = ? AND id2 = ? AND link_type = ?"
	t[sDelLink] = "DELETE " + L + " FROM " + L + " FORCE INDEX (PRIMARY) WHERE id1 = ? AND id2 = ? AND link_type = ?"
	t[sGetLink] = "SELECT " + linkCols + " FROM " + L + " WHERE id1 = ? AND link_type = ? AND id2 = ?"
	t[sRange] = "SELECT " + linkCols + " FROM " + L + " FORCE INDEX(id1_type) WHERE id1 = ? AND link_type = ? " +
		"AND time >= ? AND time <= ? AND visibility = 1 ORDER BY time DESC LIMIT ? OFFSET ?"
	t[sCount] = "SELECT count FROM " + C + " WHERE id = ? AND link_type = ?"
	t[sInsNode] = "INSERT INTO " + N + " (type, version, time, data) VALUES (?, ?, ?, ?)"
	t[sGetNode] = "SELECT id, type, version, time, data FROM " + N + " WHERE id = ?"
	t[sUpdNode] = "UPDATE " + N + " SET version = ?, time = ?, data = ? WHERE id = ? AND type = ?"
	t[sDelNode] = "DELETE FROM " + N + " WHERE id = ? AND type = ?"
	t[sNodeExists] = "SELECT 1 FROM " + N + " WHERE id = ? AND type = ?"
	t[sBulkLinks] = q.bulkLinksSQL(q.bulkN)
	t[sBulkCounts] = q.bulkCountsSQL(q.bulkN)
	t[sBulkNodes] = q.bulkNodesSQL(q.bulkN)
	return q
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

// multigetSQL is the link SELECT for n distinct id2s (S-multiget, with
// bound parameters instead of MD's literal values).
func (q *queries) multigetSQL(n int) string {
	var b strings.Builder
	b.Grow(96 + len(q.link) + 3*n)
	b.WriteString("SELECT " + linkCols + " FROM " + q.link + " WHERE id1 = ? AND link_type = ? AND id2 IN (")
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('?')
	}
	b.WriteByte(')')
	return b.String()
}

// prepared returns the statement stored in p, preparing text into it on
// first use.
func (q *queries) prepared(ctx context.Context, db *sql.DB, p *atomic.Pointer[sql.Stmt], text string) (*sql.Stmt, error) {
	if st := p.Load(); st != nil {
		return st, nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if st := p.Load(); st != nil {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	p.Store(st)
	return st, nil
}

// stmt returns statement id, prepared.
func (q *queries) stmt(ctx context.Context, db *sql.DB, id int) (*sql.Stmt, error) {
	return q.prepared(ctx, db, &q.st[id], q.text[id])
}

// closeAll closes and forgets every prepared statement (they are prepared
// again on next use).
func (q *queries) closeAll() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.st {
		if st := q.st[i].Swap(nil); st != nil {
			st.Close()
		}
	}
	for i := range q.multi {
		if st := q.multi[i].Swap(nil); st != nil {
			st.Close()
		}
	}
}
