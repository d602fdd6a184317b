package pgstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
	"github.com/linkbench-go/linkbench/store/internal/sqlstoretest"
)

func TestRedactDSN(t *testing.T) {
	cases := []struct{ in, want, pw string }{
		{"postgres://u:secret@h:5432/db?sslmode=disable", "postgres://u:*****@h:5432/db?sslmode=disable", "secret"},
		{"postgresql://u:p%40ss@h/db", "postgresql://u:*****@h/db", "p@ss"},
		{"postgres://u@h/db", "postgres://u@h/db", ""},
		{"postgres://h/db?user=u&password=pw1&sslmode=disable", "postgres://h/db?user=u&password=*****&sslmode=disable", "pw1"},
		{"host=h port=5432 user=u password=secret dbname=db", "host=h port=5432 user=u password=***** dbname=db", "secret"},
		{"host=h password='a b\\' c' dbname=db", "host=h password=***** dbname=db", "a b' c"},
		{"host=h password = x dbname=db", "host=h password = ***** dbname=db", "x"},
		{"host=h dbname=db", "host=h dbname=db", ""},
	}
	for _, c := range cases {
		if got := RedactDSN(c.in); got != c.want {
			t.Errorf("RedactDSN(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := dsnPassword(c.in); got != c.pw {
			t.Errorf("dsnPassword(%q) = %q, want %q", c.in, got, c.pw)
		}
	}
}

func TestRedactorError(t *testing.T) {
	r := sqlstore.Redactor{PW: "p@ss word"}
	base := fmt.Errorf("dial postgres://u:%s@h and %s", url.QueryEscape("p@ss word"), "p@ss word")
	err := r.Err(base)
	if strings.Contains(err.Error(), "p@ss") || strings.Contains(err.Error(), "p%40ss") {
		t.Fatalf("password left in %q", err)
	}
	if !errors.Is(err, base) {
		t.Fatal("redacted error does not wrap the original")
	}
}

func TestOptionsRefused(t *testing.T) {
	for _, o := range []Options{
		{Port: 70000}, {LinkTable: `a"b`}, {Schema: strings.Repeat("x", 64)}, {Isolation: "snapshot"},
		{Dialect: "oracle"}, {RetryAttempts: -1}, {MaxConns: -1},
		{DSN: "postgres://u:secretpw@h:notaport/db"},
	} {
		_, err := Open(context.Background(), o)
		if err == nil {
			t.Errorf("Open(%+v) succeeded", o)
			continue
		}
		if strings.Contains(err.Error(), "secretpw") {
			t.Errorf("password in %q", err)
		}
	}
	for in, want := range map[string]string{"": ReadCommitted, "read-committed": ReadCommitted, "Repeatable_Read": RepeatableRead,
		"rr": RepeatableRead, "SERIALIZABLE": Serializable} {
		if got, err := ParseIsolation(in); err != nil || got != want {
			t.Errorf("ParseIsolation(%q) = %q, %v", in, got, err)
		}
	}
	for in, want := range map[string]Dialect{"": PostgreSQL, "PostgreSQL": PostgreSQL, "crdb": CockroachDB, "yugabyte": YugabyteDB} {
		if got, err := ParseDialect(in); err != nil || got != want {
			t.Errorf("ParseDialect(%q) = %q, %v", in, got, err)
		}
	}
}

// TestOpenRefusedConnectionRedacted: a connection refused (nothing listens
// on the port) is an error without the password, with the redacted DSN.
func TestOpenRefusedConnectionRedacted(t *testing.T) {
	pw := fmt.Sprintf("Wr0ng-%08x", rand.Uint32())
	for _, o := range []Options{
		{DSN: "postgres://lb:" + pw + "@127.0.0.1:1/linkbench?connect_timeout=2"},
		{Host: "127.0.0.1", Port: 1, User: "lb", Password: pw},
	} {
		o.RetryAttempts = 2
		o.ConnectTimeout = 2 * time.Second
		sqlstoretest.RefusedRedacted(t, func(log *slog.Logger) error {
			o.Logger = log
			_, err := Open(context.Background(), o)
			return err
		}, pw, ":*****@")
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		err   error
		class errClass
		key   string
	}{
		{&pgconn.PgError{Code: "40001"}, classRetry, "40001"},
		{&pgconn.PgError{Code: "40P01"}, classRetry, "40P01"},
		{&pgconn.PgError{Severity: "FATAL", Code: "57P01"}, classConn, "57P01"},
		{&pgconn.PgError{Code: "08006"}, classConn, "08006"},
		{&pgconn.PgError{Code: "23505"}, classFatal, "23505"},
		{fmt.Errorf("x: %w", errConnLost), classConn, "conn"},
		{errors.New("other"), classFatal, ""},
	}
	for _, c := range cases {
		if cl, k := classify(c.err); cl != c.class || k != c.key {
			t.Errorf("classify(%v) = %v, %q; want %v, %q", c.err, cl, k, c.class, c.key)
		}
	}
	if !unsent(&pgconn.PgError{Severity: "FATAL", Code: "57P01"}) || unsent(errConnLost) {
		t.Error("unsent")
	}
}

func TestCreateStatements(t *testing.T) {
	o, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	q := newQueries(&o, "linkdb0")
	all := strings.Join(createStatements(q, &o, SchemaOptions{}), "\n")
	for _, want := range []string{
		`CREATE SCHEMA IF NOT EXISTS "linkdb0"`,
		"data BYTEA NOT NULL", "PRIMARY KEY (link_type, id1, id2)", "PRIMARY KEY (id, link_type)", "id BIGSERIAL NOT NULL",
		`CREATE INDEX id1_type ON "linkdb0"."linktable" (id1, link_type, visibility, time, id2) INCLUDE (version, data)`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("DDL lacks %q:\n%s", want, all)
		}
	}
	full := strings.Join(createStatements(q, &o, SchemaOptions{FullKeyIndex: true, DeferSecondaryIndex: false}), "\n")
	if !strings.Contains(full, "(id1, link_type, visibility, time, id2, version, data)") {
		t.Error("FullKeyIndex")
	}
	if d := strings.Join(createStatements(q, &o, SchemaOptions{DeferSecondaryIndex: true}), "\n"); strings.Contains(d, "id1_type") {
		t.Error("DeferSecondaryIndex")
	}
	o.Dialect = CockroachDB
	crdb := strings.Join(createStatements(q, &o, SchemaOptions{}), "\n")
	for _, want := range []string{"INT8", "INT2", "CREATE SEQUENCE", "nextval(", "STORING (version, data)"} {
		if !strings.Contains(crdb, want) {
			t.Errorf("CockroachDB DDL lacks %q", want)
		}
	}
	o.Dialect = YugabyteDB
	if y := strings.Join(createStatements(q, &o, SchemaOptions{}), "\n"); !strings.Contains(y, "CACHE 1") {
		t.Error("YugabyteDB sequence cache")
	}
}

func TestEncoding(t *testing.T) {
	for _, c := range []struct {
		oid uint32
		v   int64
		ok  bool
	}{{oidInt8, -1 << 62, true}, {oidInt4, 1 << 31, false}, {oidInt4, -5, true}, {oidInt2, 40000, false}, {oidInt2, -3, true}, {25, 1, false}} {
		b, err := appendInt(nil, c.oid, c.v)
		if (err == nil) != c.ok {
			t.Errorf("appendInt(%d, %d): %v", c.oid, c.v, err)
			continue
		}
		if err == nil {
			if got, err := getInt(b); err != nil || got != c.v {
				t.Errorf("round trip of %d as %d = %d, %v", c.v, c.oid, got, err)
			}
		}
	}
}

// TestCockroachIsolation: the CockroachDB dialect sends no isolation level,
// so the store reports the cluster's default (SERIALIZABLE) and refuses
// another level instead of printing one that is not in effect.
func TestCockroachIsolation(t *testing.T) {
	for _, c := range []struct {
		iso  string
		want string // "" : refused
	}{{"", Serializable}, {"serializable", Serializable}, {"read committed", ""}, {"repeatable-read", ""}} {
		o, err := Options{Dialect: CockroachDB, Isolation: c.iso}.withDefaults()
		switch {
		case c.want == "" && err == nil:
			t.Errorf("Isolation %q accepted with the cockroachdb dialect", c.iso)
		case c.want != "" && (err != nil || o.Isolation != c.want):
			t.Errorf("Isolation %q: %q, %v; want %q", c.iso, o.Isolation, err, c.want)
		}
	}
	if o, err := (Options{Isolation: ""}).withDefaults(); err != nil || o.Isolation != ReadCommitted {
		t.Errorf("postgres default isolation: %q, %v", o.Isolation, err)
	}
}
