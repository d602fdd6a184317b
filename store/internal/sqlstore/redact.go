package sqlstore

import (
	"net/url"
	"strings"
)

// RedactedPassword replaces passwords in DSNs, errors and log lines.
const RedactedPassword = "*****"

// Redactor removes one password from error messages and log lines.
type Redactor struct {
	PW  string // the password ("" = nothing to hide)
	DSN string // the DSN (or address) with the password redacted, for messages
}

// Str returns s with every occurrence of the password replaced, and of
// its URL-escaped forms.
func (r Redactor) Str(s string) string {
	if r.PW == "" {
		return s
	}
	s = strings.ReplaceAll(s, r.PW, RedactedPassword)
	if esc := url.QueryEscape(r.PW); esc != r.PW {
		s = strings.ReplaceAll(s, esc, RedactedPassword)
	}
	if esc := url.PathEscape(r.PW); esc != r.PW {
		s = strings.ReplaceAll(s, esc, RedactedPassword)
	}
	return s
}

// Err returns err, or a wrapper whose message hides the password when
// err's message contains it. errors.Is and errors.As see through the
// wrapper.
func (r Redactor) Err(err error) error {
	if err == nil || r.PW == "" {
		return err
	}
	msg := err.Error()
	if red := r.Str(msg); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

// redactedError is an error whose message had a password removed.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
