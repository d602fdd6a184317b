package pgstore

import (
	"net/url"
	"strings"

	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// redactedPassword replaces passwords in DSNs, errors and log lines.
const redactedPassword = sqlstore.RedactedPassword

// RedactDSN returns dsn with its password replaced by "*****", for error
// messages and logs. Both of PostgreSQL's forms are handled: a URL
// ("postgres://user:pw@host/db" becomes "postgres://user:*****@host/db";
// a password=... query parameter is replaced too) and keyword/value pairs
// ("password=pw" or "password='p w'" becomes "password=*****"). A DSN
// without a password is returned unchanged.
func RedactDSN(dsn string) string {
	if isURL(dsn) {
		rest := dsn[strings.Index(dsn, "://")+3:]
		prefix := dsn[:len(dsn)-len(rest)]
		// The user information ends at the last '@' before the path.
		hostEnd := len(rest)
		if i := strings.IndexAny(rest, "/?"); i >= 0 {
			hostEnd = i
		}
		if at := strings.LastIndexByte(rest[:hostEnd], '@'); at >= 0 {
			if c := strings.IndexByte(rest[:at], ':'); c >= 0 {
				rest = rest[:c+1] + redactedPassword + rest[at:]
			}
		}
		if q := strings.IndexByte(rest, '?'); q >= 0 {
			rest = rest[:q+1] + redactQuery(rest[q+1:])
		}
		return prefix + rest
	}
	var b strings.Builder
	for i := 0; i < len(dsn); {
		j, key, valStart, valEnd := nextKV(dsn, i)
		if key == "password" {
			b.WriteString(dsn[i:valStart])
			b.WriteString(redactedPassword)
			b.WriteString(dsn[valEnd:j])
		} else {
			b.WriteString(dsn[i:j])
		}
		i = j
	}
	return b.String()
}

// isURL reports whether dsn is in URL form.
func isURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// redactQuery replaces the value of a password parameter of a URL query.
func redactQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		if k, _, ok := strings.Cut(p, "="); ok && k == "password" {
			parts[i] = "password=" + redactedPassword
		}
	}
	return strings.Join(parts, "&")
}

// nextKV scans the keyword/value pair of dsn starting at i (after
// spaces): it returns the end of the pair (including trailing spaces), the
// keyword, and the bounds of the value (quotes included).
func nextKV(dsn string, i int) (end int, key string, valStart, valEnd int) {
	j := i
	for j < len(dsn) && dsn[j] == ' ' {
		j++
	}
	k := j
	for j < len(dsn) && dsn[j] != '=' && dsn[j] != ' ' {
		j++
	}
	key = dsn[k:j]
	for j < len(dsn) && dsn[j] == ' ' {
		j++
	}
	if j < len(dsn) && dsn[j] == '=' {
		j++
	}
	for j < len(dsn) && dsn[j] == ' ' {
		j++
	}
	valStart = j
	if j < len(dsn) && dsn[j] == '\'' {
		j++
		for j < len(dsn) && dsn[j] != '\'' {
			if dsn[j] == '\\' && j+1 < len(dsn) {
				j++
			}
			j++
		}
		if j < len(dsn) {
			j++
		}
	} else {
		for j < len(dsn) && dsn[j] != ' ' {
			if dsn[j] == '\\' && j+1 < len(dsn) {
				j++
			}
			j++
		}
	}
	valEnd = j
	for j < len(dsn) && dsn[j] == ' ' {
		j++
	}
	if j == i { // no progress: consume one byte
		j++
	}
	return j, key, valStart, valEnd
}

// dsnPassword returns the password written in dsn ("" if none), as
// RedactDSN delimits it, decoded.
func dsnPassword(dsn string) string {
	if isURL(dsn) {
		if u, err := url.Parse(dsn); err == nil {
			if pw, ok := u.User.Password(); ok {
				return pw
			}
			return u.Query().Get("password")
		}
		// Unparsable: take the raw text between ':' and '@'.
		rest := dsn[strings.Index(dsn, "://")+3:]
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			if c := strings.IndexByte(rest[:at], ':'); c >= 0 {
				return rest[c+1 : at]
			}
		}
		return ""
	}
	for i := 0; i < len(dsn); {
		j, key, vs, ve := nextKV(dsn, i)
		if key == "password" {
			v := dsn[vs:ve]
			if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
				v = v[1 : len(v)-1]
			}
			return strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(v)
		}
		i = j
	}
	return ""
}
