package linkbench

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// setOrigin records that key was set at where ("file:line" or "-D").
func (c *Config) setOrigin(key, where string) {
	if c.origins == nil {
		c.origins = map[string]string{}
	}
	c.origins[key] = where
	if canon := canonicalKey(key); canon != key {
		c.origins[canon] = where
	}
}

// locate fills in the Where of a *ConfigError (err itself or one it wraps)
// that lacks it, from the origins ParseProperties recorded, and returns
// err. A group key such as the operation mix ("addlink+deletelink+...")
// names the lines of its members that were set: "file:first-last" per
// file, and -D.
func (c *Config) locate(err error) error {
	var ce *ConfigError
	if err == nil || len(c.origins) == 0 || !errors.As(err, &ce) || ce.Where != "" {
		return err
	}
	if w, ok := c.origins[ce.Key]; ok {
		ce.Where = w
		return err
	}
	if !strings.Contains(ce.Key, "+") {
		return err
	}
	type span struct{ lo, hi int }
	files := map[string]*span{}
	var order []string
	dashD := false
	for _, k := range strings.Split(ce.Key, "+") {
		w, ok := c.origins[k]
		if !ok {
			continue
		}
		if w == "-D" {
			dashD = true
			continue
		}
		i := strings.LastIndexByte(w, ':')
		line, convErr := strconv.Atoi(w[i+1:])
		if i < 0 || convErr != nil {
			continue
		}
		f := w[:i]
		if sp, ok := files[f]; ok {
			sp.lo, sp.hi = min(sp.lo, line), max(sp.hi, line)
			continue
		}
		files[f] = &span{line, line}
		order = append(order, f)
	}
	sort.Strings(order)
	var parts []string
	for _, f := range order {
		sp := files[f]
		if sp.lo == sp.hi {
			parts = append(parts, fmt.Sprintf("%s:%d", f, sp.lo))
		} else {
			parts = append(parts, fmt.Sprintf("%s:%d-%d", f, sp.lo, sp.hi))
		}
	}
	if dashD {
		parts = append(parts, "-D")
	}
	ce.Where = strings.Join(parts, ", ")
	return err
}

// KeyOrigin returns where ParseProperties read key: "file:line", "-D", or
// "" when the key was not read from a file or override (a default, or a
// value set in Go). Tools that check a value against something outside the
// configuration (a server's limits) use it to name the line to change.
func (c *Config) KeyOrigin(key string) string {
	if canon := canonicalKey(key); canon != key {
		if w, ok := c.origins[canon]; ok {
			return w
		}
	}
	return c.origins[key]
}
