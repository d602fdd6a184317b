package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/store/pgstore"
)

// isPostgresDSN reports whether a -dsn is a PostgreSQL connection string:
// a postgres:// URL or keyword/value pairs.
func isPostgresDSN(dsn string) bool {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return true
	}
	// Keyword/value pairs: every field is key=value, and there is none of
	// the '@' every MySQL DSN with a user has. (A quoted value may hold
	// spaces: only the first field has to be checked strictly.)
	f := strings.Fields(dsn)
	return len(f) > 0 && !strings.Contains(dsn, "@") && strings.Contains(f[0], "=") &&
		!strings.HasPrefix(f[0], "=") && !strings.ContainsAny(f[0][:strings.IndexByte(f[0], '=')], "/:(")
}

// pgDSNPassword returns the password a PostgreSQL DSN holds ("" if none).
func pgDSNPassword(dsn string) string {
	if cfg, err := pgx.ParseConfig(dsn); err == nil {
		return cfg.Password
	}
	return ""
}

// pgOptions builds the PostgreSQL store's options from -dsn or LinkBench's
// host, port, user, password keys, and the table and prefix keys. The
// port key's default is MySQL's 3306: unless the port was written out,
// PostgreSQL's 5432 is used. Errors are usage errors (exit status 2).
func pgOptions(o *options, cfg *linkbench.Config) (pgstore.Options, error) {
	port := cfg.Store.Port
	if port == 3306 && !portGiven(o) {
		port = pgstore.DefaultPort
	}
	opts := pgstore.Options{
		DSN:        o.dsn,
		Host:       cfg.Store.Host,
		Port:       port,
		User:       cfg.Store.User,
		Password:   cfg.Store.Password,
		DBPrefix:   cfg.DBPrefix,
		Schema:     databaseNames(cfg)[0],
		LinkTable:  cfg.Store.LinkTable,
		CountTable: cfg.Store.CountTable,
		NodeTable:  cfg.Store.NodeTable,
		Isolation:  o.isolation,
		// The Store's own calls: Verify, Warm; workers open sessions.
		MaxConns: max(cfg.Loaders+1, cfg.Requesters, 1) + 2,
		Logger:   cfg.Logger,
	}
	d, err := pgstore.ParseDialect(o.dialect)
	if err != nil {
		return opts, usageError{fmt.Errorf("-dialect %q: want postgres, cockroachdb or yugabytedb", o.dialect)}
	}
	opts.Dialect = d
	if o.dsn != "" {
		if !isPostgresDSN(o.dsn) {
			return opts, usageError{fmt.Errorf("-dsn %q: want a postgres:// URL or host=... keyword/value pairs", pgstore.RedactDSN(o.dsn))}
		}
		if _, err := pgx.ParseConfig(o.dsn); err != nil {
			return opts, usageError{fmt.Errorf("-dsn %q: %v", pgstore.RedactDSN(o.dsn), redact(err.Error(), o.dsn, cfg.Store.Password))}
		}
	}
	iso, err := pgstore.ParseIsolation(o.isolation)
	if err != nil {
		return opts, usageError{fmt.Errorf("-isolation %q: want read-committed, repeatable-read or serializable", o.isolation)}
	}
	if d == pgstore.CockroachDB && o.isolation != "" && iso != pgstore.Serializable {
		return opts, usageError{fmt.Errorf("-isolation %q: the cockroachdb dialect runs at the cluster's default, serializable", o.isolation)}
	}
	return opts, nil
}

// portGiven reports whether the port key was written out (in -D or the -c
// file), rather than left at its default.
func portGiven(o *options) bool {
	if v, ok := o.defs["port"]; ok && strings.TrimSpace(v) != "" {
		return true
	}
	if o.config == "" {
		return false
	}
	f, err := os.Open(o.config)
	if err != nil {
		return false
	}
	defer f.Close()
	props, err := linkbench.ReadProperties(f)
	if err != nil {
		return false
	}
	for _, p := range props {
		if p.Key == "port" && strings.TrimSpace(p.Value) != "" {
			return true
		}
	}
	return false
}
