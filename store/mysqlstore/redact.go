package mysqlstore

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// redactedPassword replaces passwords in DSNs, errors and log lines.
const redactedPassword = sqlstore.RedactedPassword

// RedactDSN returns dsn with its password replaced by "*****", for error
// messages and logs: "user:pw@tcp(h:3306)/db" becomes
// "user:*****@tcp(h:3306)/db". A DSN without a password is returned
// unchanged. The password is taken to run from the first ':' to the last
// '@' before the database slash (the driver's own rule); when the DSN is
// malformed, everything from the first ':' to the last '@' is replaced,
// which may hide more than the password but never less.
//
// A DSN list (SplitDSN) has each of its DSNs redacted.
func RedactDSN(dsn string) string {
	if list := SplitDSN(dsn); len(list) > 1 {
		for i, d := range list {
			list[i] = RedactDSN(d)
		}
		return strings.Join(list, ",")
	}
	at := passwordEnd(dsn)
	if at < 0 {
		return dsn
	}
	c := strings.IndexByte(dsn[:at], ':')
	if c < 0 {
		return dsn
	}
	return dsn[:c+1] + redactedPassword + dsn[at:]
}

// passwordEnd returns the index of the '@' that ends the user information
// of dsn, or -1.
func passwordEnd(dsn string) int {
	// The driver splits at the last '/', then at the last '@' before it.
	if sl := strings.LastIndexByte(dsn, '/'); sl >= 0 {
		if at := strings.LastIndexByte(dsn[:sl], '@'); at >= 0 {
			return at
		}
	}
	return strings.LastIndexByte(dsn, '@')
}

// dsnPassword returns the password part of dsn as RedactDSN delimits it
// ("" if none).
func dsnPassword(dsn string) string {
	at := passwordEnd(dsn)
	if at < 0 {
		return ""
	}
	c := strings.IndexByte(dsn[:at], ':')
	if c < 0 {
		return ""
	}
	return dsn[c+1 : at]
}

// driverLogger routes go-sql-driver's log lines to the store's logger,
// redacted, at level Warn.
type driverLogger struct {
	log *slog.Logger
	red sqlstore.Redactor
}

// Print implements mysql.Logger.
func (l driverLogger) Print(v ...any) {
	l.log.Warn("mysqlstore: driver", "msg", l.red.Str(strings.TrimSpace(fmt.Sprint(v...))))
}
