package sqlstore

import (
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"time"
)

// The defaults of the options every SQL store has (a dialect adds its
// port and its own options).
const (
	DefaultHost            = "127.0.0.1"
	DefaultDBPrefix        = "linkdb"
	DefaultLinkTable       = "linktable"
	DefaultCountTable      = "counttable"
	DefaultNodeTable       = "nodetable"
	DefaultMaxConns        = 64
	DefaultRetryAttempts   = 20
	DefaultRetryBackoff    = 10 * time.Millisecond
	DefaultRetryMaxBackoff = time.Second
	DefaultConnectTimeout  = 10 * time.Second
	DefaultWarmParallelism = 8
)

// Config is what the engine takes from a store's options.
type Config struct {
	MaxConns        int           // sessions of a view's pool: calls of the Store's own methods at once
	ConnectTimeout  time.Duration // of one connection
	WarmParallelism int           // connections Warm opens at once
	RetryAttempts   int           // attempts of one call, the first included
	RetryBackoff    time.Duration // wait before the first retry
	RetryMaxBackoff time.Duration // cap of the doubling waits
	Logger          *slog.Logger  // never nil
}

// common are the options, by field name, that every SQL store's Options
// struct has, with their defaults (the port is the dialect's).
var common = []struct {
	name string
	def  any
}{
	{"Host", DefaultHost}, {"Port", 0}, {"DBPrefix", DefaultDBPrefix},
	{"LinkTable", DefaultLinkTable}, {"CountTable", DefaultCountTable}, {"NodeTable", DefaultNodeTable},
	{"MaxConns", DefaultMaxConns}, {"ConnectTimeout", DefaultConnectTimeout}, {"WarmParallelism", DefaultWarmParallelism},
	{"RetryAttempts", DefaultRetryAttempts}, {"RetryBackoff", DefaultRetryBackoff},
	{"RetryMaxBackoff", DefaultRetryMaxBackoff}, {"Logger", slog.New(slog.DiscardHandler)},
}

// Defaults fills the zero fields among the common options of o (a pointer
// to a store's Options struct, which has every field of common) with their
// defaults, port being the dialect's default Port, and checks them: the
// names DBPrefix, LinkTable, CountTable and NodeTable with checkIdent, the
// port's range, and the numbers and durations (MaxConns, WarmParallelism,
// RetryAttempts >= 1, 0 <= RetryBackoff <= RetryMaxBackoff, ConnectTimeout
// >= 0). Errors name the field: "<pkg>: Options.Port 70000 out of range".
func Defaults(o any, pkg string, port int, checkIdent func(string) error) error {
	v := reflect.ValueOf(o).Elem()
	for _, c := range common {
		f := v.FieldByName(c.name)
		if !f.IsZero() {
			continue
		}
		def := c.def
		if c.name == "Port" {
			def = port
		}
		f.Set(reflect.ValueOf(def).Convert(f.Type()))
	}
	for _, name := range []string{"DBPrefix", "LinkTable", "CountTable", "NodeTable"} {
		if err := checkIdent(v.FieldByName(name).String()); err != nil {
			return fmt.Errorf("%s: Options.%s: %w", pkg, name, err)
		}
	}
	c := configOf(o)
	switch p := v.FieldByName("Port").Int(); {
	case p < 0 || p > 65535:
		return fmt.Errorf("%s: Options.Port %d out of range", pkg, p)
	case c.MaxConns < 1:
		return fmt.Errorf("%s: Options.MaxConns %d < 1", pkg, c.MaxConns)
	case c.WarmParallelism < 1:
		return fmt.Errorf("%s: Options.WarmParallelism %d < 1", pkg, c.WarmParallelism)
	case c.RetryAttempts < 1:
		return fmt.Errorf("%s: Options.RetryAttempts %d < 1", pkg, c.RetryAttempts)
	case c.RetryBackoff < 0 || c.RetryMaxBackoff < c.RetryBackoff:
		return fmt.Errorf("%s: Options.RetryBackoff %v / RetryMaxBackoff %v invalid", pkg, c.RetryBackoff, c.RetryMaxBackoff)
	case c.ConnectTimeout < 0:
		return fmt.Errorf("%s: Options.ConnectTimeout %v < 0", pkg, c.ConnectTimeout)
	}
	return nil
}

// configOf reads the engine's Config from the options struct o points to.
func configOf(o any) Config {
	v := reflect.ValueOf(o).Elem()
	num := func(name string) int64 { return v.FieldByName(name).Int() }
	log, _ := v.FieldByName("Logger").Interface().(*slog.Logger)
	return Config{
		MaxConns: int(num("MaxConns")), ConnectTimeout: time.Duration(num("ConnectTimeout")),
		WarmParallelism: int(num("WarmParallelism")), RetryAttempts: int(num("RetryAttempts")),
		RetryBackoff: time.Duration(num("RetryBackoff")), RetryMaxBackoff: time.Duration(num("RetryMaxBackoff")),
		Logger: log,
	}
}

// CheckName reports whether s can name a database or table on a server
// that takes names of 1..maxLen units (its unit: "bytes", "characters")
// without any byte of forbidden (described as what in the error).
func CheckName(s string, maxLen int, unit, forbidden, what string) error {
	if s == "" || len(s) > maxLen {
		return fmt.Errorf("name %q: want 1..%d %s", s, maxLen, unit)
	}
	if strings.ContainsAny(s, forbidden) {
		return fmt.Errorf("name %q: contains %s", s, what)
	}
	return nil
}
