// Package properties reads Java .properties text (the format of
// LinkBench's configuration files, as java.util.Properties.load reads it)
// into key/value pairs with their line numbers, and recognises binary data
// in text input without repeating it. It knows nothing of LinkBench's keys:
// package linkbench interprets the pairs.
package properties

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// utf8BOM is the UTF-8 encoding of U+FEFF, the byte order mark some
// editors write at the start of a text file.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// FindBinary returns the 1-based line of the first byte of data that no
// text file holds (a C0 control character other than tab, line feed, form
// feed and carriage return, or DEL), and that byte; found is false when
// data is text.
func FindBinary(data []byte) (line int, b byte, found bool) {
	line = 1
	for _, c := range data {
		switch {
		case c == '\n':
			line++
		case c == '\t' || c == '\f' || c == '\r':
		case c < 0x20 || c == 0x7f:
			return line, c, true
		}
	}
	return 0, 0, false
}

// BinaryMsg describes binary input (its first offending byte b) without
// echoing it: "binary data (byte 0x00), not " + want.
func BinaryMsg(b byte, want string) string {
	return fmt.Sprintf("binary data (byte 0x%02x), not %s", b, want)
}

// Property is one key/value pair of a .properties file, with the line on
// which its logical line started (1-based).
type Property struct {
	Key, Value string // unescaped; the value's surrounding white space trimmed
	Line       int    // 1-based; 0 for a pair not read from a file
}

// SyntaxError reports malformed input in a .properties file: a malformed
// \u escape, or binary data.
type SyntaxError struct {
	File string // may be empty
	Line int    // 1-based
	Msg  string // what is wrong, never repeating binary data
}

// Error implements error.
func (e *SyntaxError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Read parses a Java .properties file (the format LinkBench's
// configuration uses, as java.util.Properties.load reads it) and returns its
// pairs in file order; a key that appears twice keeps its last value, as in
// Java, and appears once, at the position of its first occurrence.
//
// The whole Java syntax is accepted: comment lines starting with '#' or '!';
// '=', ':' or white space between key and value; a line ending in an odd
// number of backslashes continues on the next line, whose leading white
// space is dropped; the escapes \t \n \r \f, \uXXXX and backslash followed
// by any other character (\=, \:, \ , \#, \! ...) standing for that
// character. One deliberate difference from Java: white space surrounding a
// value is trimmed (Java keeps trailing blanks, and LinkBench then fails on
// a number such as "10 "), except white space written as an escape (`\ `),
// which stays. The input must be UTF-8 (ISO-8859-1 bytes that are not valid
// UTF-8 are decoded as Latin-1, as Java would read them); a UTF-8 byte order
// mark at the start is skipped (editors on Windows write one; Java would
// make it part of the first key).
//
// Errors: *SyntaxError for a malformed \u escape or for binary
// input (a NUL byte or another control character than tab, line feed,
// carriage return and form feed: the error names the line and the byte,
// never echoes the data); read errors from r.
func Read(r io.Reader) ([]Property, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if line, b, bad := FindBinary(data); bad {
		return nil, &SyntaxError{Line: line, Msg: BinaryMsg(b, "a .properties text file")}
	}
	if !utf8.Valid(data) {
		data = latin1ToUTF8(data)
	}
	var out []Property
	index := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	sc.Split(scanPropertyLines)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		start := lineNo
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// Join continuation lines.
		for endsInOddBackslashes(line) {
			line = line[:len(line)-1]
			if !sc.Scan() {
				break
			}
			lineNo++
			line += strings.TrimLeft(sc.Text(), " \t\f")
		}
		key, value, err := splitProperty(line)
		if err != nil {
			return nil, &SyntaxError{Line: start, Msg: err.Error()}
		}
		if i, ok := index[key]; ok {
			out[i].Value = value
			continue
		}
		index[key] = len(out)
		out = append(out, Property{Key: key, Value: value, Line: start})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// scanPropertyLines splits on \n, \r\n or a lone \r, as Java's LineReader.
func scanPropertyLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	for i, c := range data {
		switch c {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil // need more data to know whether \n follows
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

func endsInOddBackslashes(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProperty splits a logical line (leading white space removed) into
// its unescaped key and value.
func splitProperty(line string) (key, value string, err error) {
	// The key ends at the first unescaped '=', ':' or white space.
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i > len(line) {
		i = len(line)
	}
	rawKey := line[:i]
	rest := line[i:]
	// Skip white space, then at most one '=' or ':', then white space.
	rest = strings.TrimLeft(rest, " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	if key, err = unescapeProperty(rawKey, false); err != nil {
		return "", "", err
	}
	if value, err = unescapeProperty(rest, true); err != nil {
		return "", "", err
	}
	return key, value, nil
}

// unescapeProperty resolves Java's escapes. With trimTrailing, unescaped
// trailing white space is dropped (escaped white space is kept).
func unescapeProperty(s string, trimTrailing bool) (string, error) {
	if trimTrailing {
		// Drop trailing blanks that are not themselves escaped: a blank is
		// escaped when preceded by an odd number of backslashes.
		end := len(s)
		for end > 0 && (s[end-1] == ' ' || s[end-1] == '\t' || s[end-1] == '\f') {
			n := 0
			for j := end - 2; j >= 0 && s[j] == '\\'; j-- {
				n++
			}
			if n%2 == 1 {
				break
			}
			end--
		}
		s = s[:end]
	}
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			break // a lone trailing backslash (continuation at EOF) stands for nothing
		}
		switch c = s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\uXXXX escape in %q", s)
			}
			r, ok := hex4(s[i+1 : i+5])
			if !ok {
				return "", fmt.Errorf("malformed \\uXXXX escape in %q", s)
			}
			i += 4
			// A UTF-16 surrogate pair written as two escapes is one
			// character, as in Java's strings.
			if utf16.IsSurrogate(r) && r < 0xdc00 && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if lo, ok := hex4(s[i+3 : i+7]); ok && lo >= 0xdc00 && lo <= 0xdfff {
					r = utf16.DecodeRune(r, lo)
					i += 6
				}
			}
			if utf8.ValidRune(r) {
				b.WriteRune(r)
			} else {
				b.WriteRune(utf8.RuneError)
			}
		default:
			// A multi-byte UTF-8 character after a backslash stands for itself.
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// hex4 returns the value of four hexadecimal digits.
func hex4(h string) (rune, bool) {
	var r rune
	for _, c := range []byte(h) {
		d, ok := hexDigit(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func latin1ToUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)*2)
	for _, c := range b {
		out = utf8.AppendRune(out, rune(c))
	}
	return out
}
