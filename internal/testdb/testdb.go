// Package testdb finds the MySQL/MariaDB and PostgreSQL servers of the
// database tests.
//
// The tests read a go-sql-driver DSN from $LINKBENCH_TEST_MYSQL_DSN (a user
// allowed to create databases; `eval "$(bash .ci/mariadb.sh start)"` starts
// a throwaway server and sets it). Tests that restart their server use
// another one, named by $LINKBENCH_TEST_MYSQL_RESTART_DSN and restarted by
// the shell command $LINKBENCH_TEST_MYSQL_RESTART_CMD (`eval "$(bash
// .ci/mariadb.sh start-restartable)"` sets both), so that no test running
// beside them sees the restart; they take that server one at a time (a
// file lock), since packages' tests run in parallel. The PostgreSQL tests
// read a URL from $LINKBENCH_TEST_PG_DSN (`eval "$(bash .ci/postgres.sh
// start)"` sets it). The Spider tests read the head's DSN and the data
// nodes from $LINKBENCH_TEST_SPIDER_DSN, $LINKBENCH_TEST_SPIDER_DATA_NODES and
// $LINKBENCH_TEST_SPIDER_DATA_DSNS (`eval "$(bash .ci/spider.sh start)"`
// sets them; see Spider).
//
// Without its variables a test is skipped, except in CI ($LINKBENCH_CI=1,
// which .ci/run exports), where it fails: CI starts its servers, and a test
// that skips there hides a broken set-up.
package testdb

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The environment variables.
const (
	EnvCI         = "LINKBENCH_CI"
	EnvDSN        = "LINKBENCH_TEST_MYSQL_DSN"
	EnvRestartDSN = "LINKBENCH_TEST_MYSQL_RESTART_DSN"
	EnvRestartCmd = "LINKBENCH_TEST_MYSQL_RESTART_CMD"
	EnvPGDSN      = "LINKBENCH_TEST_PG_DSN"
	// The Spider set-up of .ci/spider.sh: the head's DSN, the data nodes
	// as the spider_data_nodes key takes them (host:port,...), and the
	// data nodes' DSNs (comma-separated, same order).
	EnvSpiderDSN       = "LINKBENCH_TEST_SPIDER_DSN"
	EnvSpiderDataNodes = "LINKBENCH_TEST_SPIDER_DATA_NODES"
	EnvSpiderDataDSNs  = "LINKBENCH_TEST_SPIDER_DATA_DSNS"
	// EnvGaleraDSN lists the three nodes of a Galera cluster (DSNs,
	// comma-separated); EnvGaleraCmd is the shell command that takes
	// kill-node K, restart-node K (`eval "$(bash .ci/galera.sh start)"`
	// sets both).
	EnvGaleraDSN = "LINKBENCH_TEST_GALERA_DSN"
	EnvGaleraCmd = "LINKBENCH_GALERA_CMD"
)

// CI reports whether the tests run in CI ($LINKBENCH_CI=1).
func CI() bool { return os.Getenv(EnvCI) == "1" }

// Unavailable skips tb with msg, or fails it in CI.
func Unavailable(tb testing.TB, msg string) {
	tb.Helper()
	if CI() {
		tb.Fatal(msg + " (" + EnvCI + "=1: CI must run this test)")
	}
	tb.Skip(msg)
}

// MySQLDSN returns the DSN of the shared test server, or skips (fails in
// CI) the test when $LINKBENCH_TEST_MYSQL_DSN is not set.
func MySQLDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		Unavailable(tb, "MySQL database tests need a server: set "+EnvDSN+
			" to a go-sql-driver DSN of a MariaDB/MySQL user allowed to create databases, e.g. "+
			"`eval \"$(bash .ci/mariadb.sh start)\"` (a throwaway MariaDB with InnoDB and ROCKSDB), "+
			"or "+EnvDSN+"='root@unix(/run/mysqld/mysqld.sock)/'")
	}
	return dsn
}

// GaleraDSN returns the comma-separated DSNs of the Galera test cluster's
// nodes and the command that kills and restarts them (see EnvGaleraCmd),
// or skips (fails in CI) the test when $LINKBENCH_TEST_GALERA_DSN is not
// set. The command is "" when $LINKBENCH_GALERA_CMD is not set.
func GaleraDSN(tb testing.TB) (dsns, cmd string) {
	tb.Helper()
	dsns = os.Getenv(EnvGaleraDSN)
	if dsns == "" {
		Unavailable(tb, "Galera tests need a cluster: set "+EnvGaleraDSN+
			" to the comma-separated go-sql-driver DSNs of three Galera nodes, e.g. "+
			"`eval \"$(bash .ci/galera.sh start)\"` (a throwaway three-node cluster on loopback, which also sets "+EnvGaleraCmd+")")
	}
	return dsns, os.Getenv(EnvGaleraCmd)
}

// PostgresDSN returns the URL of the shared PostgreSQL test database, or
// skips (fails in CI) the test when $LINKBENCH_TEST_PG_DSN is not set.
func PostgresDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(EnvPGDSN)
	if dsn == "" {
		Unavailable(tb, "pgstore database tests are disabled: set "+EnvPGDSN+
			" to the URL of a PostgreSQL database whose user may create schemas, e.g. "+
			"`eval \"$(bash .ci/postgres.sh start)\"` (a throwaway PostgreSQL with pg_stat_statements), "+
			"or "+EnvPGDSN+"='postgres://postgres@127.0.0.1:5432/test?sslmode=disable'")
	}
	return dsn
}

// RestartableMySQL returns the DSN and the restart command of the server
// reserved for tests that restart it, held by tb alone until tb ends (an
// exclusive lock on a file named after the DSN in the temporary
// directory). It skips (fails in CI) the test when
// $LINKBENCH_TEST_MYSQL_RESTART_DSN or $LINKBENCH_TEST_MYSQL_RESTART_CMD is
// not set.
func RestartableMySQL(tb testing.TB) (dsn, restartCmd string) {
	tb.Helper()
	dsn, restartCmd = os.Getenv(EnvRestartDSN), os.Getenv(EnvRestartCmd)
	if dsn == "" || restartCmd == "" {
		Unavailable(tb, "restart tests need a server of their own: set "+EnvRestartDSN+" to its DSN and "+
			EnvRestartCmd+" to a command that restarts it (`eval \"$(bash .ci/mariadb.sh start-restartable)\"` sets both)")
	}
	sum := sha256.Sum256([]byte(dsn))
	lock := filepath.Join(os.TempDir(), "linkbench-restart-"+hex.EncodeToString(sum[:8])+".lock")
	unlock, err := lockFile(lock)
	if err != nil {
		tb.Fatalf("testdb: lock %s: %v", lock, err)
	}
	tb.Cleanup(unlock)
	return dsn, restartCmd
}

// Spider returns the Spider set-up of the Spider tests: the head's DSN,
// the data nodes' addresses (host:port, as the spider_data_nodes key takes
// them) and their DSNs, in the same order; or skips (fails in CI) the test
// when $LINKBENCH_TEST_SPIDER_DSN, $LINKBENCH_TEST_SPIDER_DATA_NODES or
// $LINKBENCH_TEST_SPIDER_DATA_DSNS is not set, or the two lists differ in
// length.
func Spider(tb testing.TB) (head string, nodes, dataDSNs []string) {
	tb.Helper()
	head = os.Getenv(EnvSpiderDSN)
	n, d := os.Getenv(EnvSpiderDataNodes), os.Getenv(EnvSpiderDataDSNs)
	if head == "" || n == "" || d == "" {
		Unavailable(tb, "Spider tests need a Spider head and its data nodes: set "+EnvSpiderDSN+", "+
			EnvSpiderDataNodes+" and "+EnvSpiderDataDSNs+", e.g. `eval \"$(bash .ci/spider.sh start)\"` "+
			"(a head with the Spider engine and two InnoDB data nodes on loopback; `bash .ci/spider.sh stop` ends them)")
	}
	nodes, dataDSNs = strings.Split(n, ","), strings.Split(d, ",")
	if len(nodes) != len(dataDSNs) {
		tb.Fatalf("%s has %d entries, %s %d: want one DSN per data node", EnvSpiderDataNodes, len(nodes), EnvSpiderDataDSNs, len(dataDSNs))
	}
	return head, nodes, dataDSNs
}
