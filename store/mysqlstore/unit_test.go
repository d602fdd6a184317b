package mysqlstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
	"github.com/linkbench-go/linkbench/store/internal/sqlstoretest"
)

// Tests that need no server.

func TestRedactDSN(t *testing.T) {
	cases := []struct{ in, want string }{
		{"u:secret@tcp(127.0.0.1:3307)/", "u:*****@tcp(127.0.0.1:3307)/"},
		{"u:secret@tcp(h:1)/db?parseTime=true", "u:*****@tcp(h:1)/db?parseTime=true"},
		{"u:se:cr@et@unix(/run/m.sock)/db", "u:*****@unix(/run/m.sock)/db"},
		{"u:p/w@tcp(h)/", "u:*****@tcp(h)/"},
		{"u@tcp(h)/", "u@tcp(h)/"},
		{"/db", "/db"},
		{"", ""},
		{"u:secret@tcp(h)", "u:*****@tcp(h)"}, // malformed: still hidden
	}
	for _, c := range cases {
		if got := RedactDSN(c.in); got != c.want {
			t.Errorf("RedactDSN(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// The driver must parse the password RedactDSN hides.
	for _, dsn := range []string{"u:se:cr@et@unix(/run/m.sock)/db", "u:p/w@tcp(h)/"} {
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatalf("ParseDSN(%q): %v", dsn, err)
		}
		if got := dsnPassword(dsn); got != cfg.Passwd {
			t.Errorf("dsnPassword(%q) = %q, driver parses %q", dsn, got, cfg.Passwd)
		}
	}
}

func TestRedactorError(t *testing.T) {
	base := &mysql.MySQLError{Number: 1045, Message: "denied for pw hunter2!"}
	r := sqlstore.Redactor{PW: "hunter2"}
	err := r.Err(fmt.Errorf("wrap: %w", base))
	if strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("password in %q", err)
	}
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1045 {
		t.Fatalf("errors.As lost the MySQL error: %v", err)
	}
	plain := errors.New("no secret here")
	if r.Err(plain) != plain {
		t.Fatal("an error without the password was rewrapped")
	}
}

func TestOpenRefusesOptions(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		o    Options
		want string
	}{
		{Options{DSN: "u:pw1234@tcp(127.0.0.1:1)/?clientFoundRows=true"}, "clientFoundRows"},
		{Options{DSN: "u:pw1234@tcp(127.0.0.1:1)/?charset=utf8mb4"}, "charset"},
		{Options{DSN: "u:pw1234@tcp(127.0.0.1:1)/?collation=utf8mb4_bin"}, "collation"},
		{Options{DSN: "u:pw1234@tcp(127.0.0.1:1)/", LinkTable: "a`b"}, "LinkTable"},
		{Options{DSN: "u:pw1234@tcp(127.0.0.1:1)/", Database: "a.b"}, "Database"},
		{Options{DSN: "u:pw1234@tcp(127.0.0.1:1)/", BulkInsertCount: -1}, "BulkInsertCount"},
		{Options{DSN: "u:pw1234@tcp(127.0.0.1:1)/", Engine: "MyISAM"}, "Engine"},
		{Options{DSN: "u:pw1234@tcp(127.0.0.1:1)/", Isolation: "SNAPSHOT"}, "Isolation"},
		{Options{DSN: "u:pw1234@tcp(127.0.0.1:1)/?parseTime=maybe"}, "DSN"},
	}
	for _, c := range cases {
		s, err := Open(ctx, c.o)
		if err == nil {
			s.Close()
			t.Errorf("Open(%+v) succeeded, want an error about %s", c.o, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%+v) = %v, want an error about %s", c.o, err, c.want)
		}
		if strings.Contains(err.Error(), "pw1234") {
			t.Errorf("Open error leaks the password: %v", err)
		}
	}
}

func TestOpenRefusedConnectionRedacted(t *testing.T) {
	// Port 1 on the loopback refuses connections.
	for _, o := range []Options{
		{DSN: "lbuser:Sekr1t-Pass@tcp(127.0.0.1:1)/"},
		{Host: "127.0.0.1", Port: 1, User: "lbuser", Password: "Sekr1t-Pass"},
	} {
		sqlstoretest.RefusedRedacted(t, func(log *slog.Logger) error {
			o.Logger = log
			_, err := Open(context.Background(), o)
			if err != nil && !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("error does not wrap ECONNREFUSED: %v", err)
			}
			return err
		}, "Sekr1t-Pass", "lbuser:*****@tcp(127.0.0.1:1)")
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		err   error
		class errClass
		key   string
	}{
		{&mysql.MySQLError{Number: 1213}, classRetry, "1213"},
		{fmt.Errorf("x: %w", &mysql.MySQLError{Number: 1205}), classRetry, "1205"},
		{&mysql.MySQLError{Number: 1062}, classFatal, "1062"},
		{&mysql.MySQLError{Number: 1146}, classFatal, "1146"},
		{&mysql.MySQLError{Number: 1053}, classConn, "1053"},
		{mysql.ErrInvalidConn, classConn, "conn"},
		{io.EOF, classConn, "conn"},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), classConn, "conn"},
		{errors.New("count upsert affected 3 rows"), classFatal, ""},
		// Galera: a certification conflict at COMMIT has its own class; a
		// node not ready (1047) refused the statement.
		{fmt.Errorf("x: %w", &certConflictError{&mysql.MySQLError{Number: 1213}}), classRetry, "cert_conflict"},
		{&mysql.MySQLError{Number: 1047}, classConn, "1047"},
		{&ambiguousError{mysql.ErrInvalidConn}, classConn, "conn"},
	}
	for _, c := range cases {
		cl, key := classify(c.err)
		if cl != c.class || key != c.key {
			t.Errorf("classify(%v) = %d, %q; want %d, %q", c.err, cl, key, c.class, c.key)
		}
	}
	if !unsent(fmt.Errorf("x: %w", syscall.ECONNREFUSED)) || unsent(mysql.ErrInvalidConn) ||
		!unsent(&mysql.MySQLError{Number: 1047}) || unsent(&ambiguousError{mysql.ErrInvalidConn}) {
		t.Error("unsent misclassifies")
	}
}

func TestChunks(t *testing.T) {
	o := &Options{BulkInsertCount: 4, MaxStatementBytes: 1000}
	sizes := []int{10, 10, 10, 10, 10, 900, 10, 2000, 10}
	k := bulkKind{size: func(i int) int { return sizes[i] }}
	got := chunks(o, &k, len(sizes))
	// 4 rows; then 10 + 900 (+64 each) = 1038 > 1000 splits; 900+64 alone;
	// 10; 2000 alone (over the cap but never empty); 10.
	want := []chunk{{0, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 8}, {8, 9}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("chunks = %v, want %v", got, want)
	}
	k.size = func(int) int { return 0 }
	got = chunks(o, &k, 8)
	if fmt.Sprint(got) != fmt.Sprint([]chunk{{0, 4}, {4, 8}}) {
		t.Fatalf("exact multiple: chunks = %v", got)
	}
}

func TestCreateTablesDDL(t *testing.T) {
	o, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	q := newQueries(&o, "linkdb0")
	inno := strings.Join(createTables(q, InnoDB, 16, true, false), "\n")
	for _, want := range []string{
		"PRIMARY KEY (link_type, id1, id2),",
		"KEY id1_type (id1, link_type, visibility, time, id2, version, data)",
		"ENGINE=InnoDB DEFAULT CHARSET=latin1 PARTITION BY KEY(id1) PARTITIONS 16",
		"id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT",
	} {
		if !strings.Contains(inno, want) {
			t.Errorf("InnoDB DDL lacks %q:\n%s", want, inno)
		}
	}
	rocks := strings.Join(createTables(q, RocksDB, 0, true, false), "\n")
	for _, want := range []string{
		"PRIMARY KEY (link_type, id1, id2) COMMENT 'cf_link_pk'",
		"COMMENT 'rev:cf_link_id1_type'",
		"ENGINE=ROCKSDB DEFAULT CHARSET=latin1 COLLATE=latin1_bin",
	} {
		if !strings.Contains(rocks, want) {
			t.Errorf("ROCKSDB DDL lacks %q:\n%s", want, rocks)
		}
	}
	if strings.Contains(rocks, "PARTITION") {
		t.Errorf("ROCKSDB default DDL is partitioned:\n%s", rocks)
	}
	if got := cfComment(RocksDB, 2, "cf_x"); got != " COMMENT 'p0_cfname=cf_x;p1_cfname=cf_x'" {
		t.Errorf("partitioned comment %q", got)
	}
}

// TestLocalServer: a server reached through a unix socket or a loopback
// address runs on this host (its datadir and pid file are sampled).
func TestLocalServer(t *testing.T) {
	for _, c := range []struct {
		dsn  string
		want bool
	}{
		{"u:p@tcp(127.0.0.1:3306)/", true},
		{"u:p@tcp(localhost:3307)/", true},
		{"u:p@tcp([::1]:3306)/", true},
		{"u:p@unix(/run/mysqld/mysqld.sock)/", true},
		{"u:p@tcp(10.0.0.5:3306)/", false},
		{"u:p@tcp(db.example.com:3306)/", false},
	} {
		cfg, err := mysql.ParseDSN(c.dsn)
		if err != nil {
			t.Fatal(err)
		}
		if got := local(cfg.Net, cfg.Addr); got != c.want {
			t.Errorf("local(%s) = %v, want %v", c.dsn, got, c.want)
		}
	}
}

// TestSplitDSN: a comma-separated list of DSNs is split into its DSNs;
// a DSN whose parameter holds a comma, or a list with a part that is not
// a DSN with an address, stays one DSN; RedactDSN redacts each of a list.
func TestSplitDSN(t *testing.T) {
	list := "u:p1@tcp(127.0.0.1:4407)/, u:p1@tcp(127.0.0.1:4408)/db,u:p1@unix(/tmp/x.sock)/"
	got := SplitDSN(list)
	want := []string{"u:p1@tcp(127.0.0.1:4407)/", "u:p1@tcp(127.0.0.1:4408)/db", "u:p1@unix(/tmp/x.sock)/"}
	if !slices.Equal(got, want) {
		t.Errorf("SplitDSN(%q) = %q, want %q", list, got, want)
	}
	for _, one := range []string{"u:p@tcp(h:1)/", "u:p@tcp(h:1)/?x=a,b", "u:p@tcp(h:1)/,nonsense", ""} {
		if got := SplitDSN(one); len(got) != 1 || got[0] != one {
			t.Errorf("SplitDSN(%q) = %q, want it whole", one, got)
		}
	}
	red := RedactDSN(list)
	if strings.Contains(red, "p1") || strings.Count(red, redactedPassword) != 3 {
		t.Errorf("RedactDSN(list) = %q", red)
	}
}

// TestDSNListPasswords: the nodes of a list must share the password (the
// redactor hides one); a list with another password is refused at Open
// without connecting, and the message shows neither password.
func TestDSNListPasswords(t *testing.T) {
	_, err := Open(t.Context(), Options{DSN: "u:secret1@tcp(127.0.0.1:1)/,u:secret2@tcp(127.0.0.1:2)/"})
	if err == nil || !strings.Contains(err.Error(), "another password") || strings.Contains(err.Error(), "secret") {
		t.Errorf("Open = %v, want a refusal naming no password", err)
	}
}

// TestCheckDSNList: an empty element of a DSN list is refused with its
// position and without the password; a single DSN, a list without empty
// elements and a DSN whose parameter holds a comma pass.
func TestCheckDSNList(t *testing.T) {
	d := "u:pw1@tcp(127.0.0.1:4407)/"
	for _, ok := range []string{d, d + "," + d, "u:p@tcp(h:1)/?x=a,b", ""} {
		if err := CheckDSNList(ok); err != nil {
			t.Errorf("CheckDSNList(%q) = %v, want nil", ok, err)
		}
	}
	for dsn, pos := range map[string]string{d + ",," + d: "element 2 ", d + ",": "element 2 ", " ," + d: "element 1 "} {
		err := CheckDSNList(dsn)
		if err == nil || !strings.Contains(err.Error(), pos) || strings.Contains(err.Error(), "pw1") {
			t.Errorf("CheckDSNList(%q) = %v, want an error naming %q without the password", dsn, err, pos)
		}
		if _, err := Open(context.Background(), Options{DSN: dsn}); err == nil || !strings.Contains(err.Error(), pos) {
			t.Errorf("Open(%q) = %v, want the empty element refused", dsn, err)
		}
	}
}
