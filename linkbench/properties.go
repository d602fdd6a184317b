package linkbench

import (
	"io"

	"github.com/linkbench-go/linkbench/internal/properties"
)

// Property is one key/value pair of a .properties file, with the line on
// which its logical line started (1-based; 0 for a pair that was not read
// from a file, as Config.Properties returns them). Its fields are Key,
// Value and Line.
type Property = properties.Property

// PropertySyntaxError reports malformed input in a .properties file (a
// malformed \u escape, or binary data): File (may be empty), Line
// (1-based) and Msg.
type PropertySyntaxError = properties.SyntaxError

// ReadProperties parses a Java .properties file (the format LinkBench's
// configuration uses, as java.util.Properties.load reads it) and returns its
// pairs in file order; a key that appears twice keeps its last value, as in
// Java, and appears once, at the position of its first occurrence. It knows
// nothing of LinkBench's keys: ParseProperties interprets them.
//
// The whole Java syntax is accepted: comment lines starting with '#' or '!';
// '=', ':' or white space between key and value; a line ending in an odd
// number of backslashes continues on the next line, whose leading white
// space is dropped; the escapes \t \n \r \f, \uXXXX and backslash followed
// by any other character standing for that character. White space
// surrounding a value is trimmed unless it is written as an escape (`\ `).
// Non-UTF-8 input is decoded as Latin-1; a UTF-8 byte order mark at the
// start is skipped.
//
// Errors: *PropertySyntaxError for a malformed \u escape or for binary
// input (naming the line and the byte, never echoing the data); read
// errors from r.
func ReadProperties(r io.Reader) ([]Property, error) { return properties.Read(r) }
