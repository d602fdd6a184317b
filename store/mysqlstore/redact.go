package mysqlstore

import (
	"fmt"
	"log/slog"
	"strings"
)

// redactedPassword replaces passwords in DSNs, errors and log lines.
const redactedPassword = "*****"

// RedactDSN returns dsn with its password replaced by "*****", for error
// messages and logs: "user:pw@tcp(h:3306)/db" becomes
// "user:*****@tcp(h:3306)/db". A DSN without a password is returned
// unchanged. The password is taken to run from the first ':' to the last
// '@' before the database slash (the driver's own rule); when the DSN is
// malformed, everything from the first ':' to the last '@' is replaced,
// which may hide more than the password but never less.
func RedactDSN(dsn string) string {
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

// redactor removes one password from error messages and log lines.
type redactor struct {
	pw  string // the password ("" = nothing to hide)
	dsn string // the DSN (or address) with the password redacted
}

// str returns s with every occurrence of the password replaced.
func (r redactor) str(s string) string {
	if r.pw == "" || !strings.Contains(s, r.pw) {
		return s
	}
	return strings.ReplaceAll(s, r.pw, redactedPassword)
}

// err returns err, or a wrapper whose message hides the password when
// err's message contains it. errors.Is and errors.As see through the
// wrapper.
func (r redactor) err(err error) error {
	if err == nil || r.pw == "" {
		return err
	}
	msg := err.Error()
	if !strings.Contains(msg, r.pw) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(msg, r.pw, redactedPassword), err: err}
}

// redactedError is an error whose message had a password removed.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// driverLogger routes go-sql-driver's log lines to the store's logger,
// redacted, at level Warn.
type driverLogger struct {
	log *slog.Logger
	red redactor
}

// Print implements mysql.Logger.
func (l driverLogger) Print(v ...any) {
	l.log.Warn("mysqlstore: driver", "msg", l.red.str(strings.TrimSpace(fmt.Sprint(v...))))
}
