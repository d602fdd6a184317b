package linkbench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/linkbench-go/linkbench/distributions"
	"github.com/linkbench-go/linkbench/internal/properties"
)

// maxEcho is the longest value an error message repeats as it is.
const maxEcho = 200

// printable reports whether s is safe to echo to a terminal: printable
// characters only, at most maxEcho bytes.
func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return len(s) <= maxEcho
}

// describe returns s quoted when it is printable, else a description of
// it that does not repeat it (its length, and why it is not shown).
func describe(s string) string {
	if printable(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return fmt.Sprintf("<%d bytes with non-printable characters>", len(s))
		}
	}
	return fmt.Sprintf("<%d bytes>", len(s))
}

// binaryCheckBytes is how much of a data file is checked for binary data
// before it is parsed.
const binaryCheckBytes = 64 << 10

// errDataFileBinary is a data file that starts with binary data.
type errDataFileBinary struct {
	line int
	b    byte
}

func (e *errDataFileBinary) Error() string {
	return properties.BinaryMsg(e.b, "LinkBench's Distribution.dat (a text file)")
}

// loadDataFile reads LinkBench's Distribution.dat at path, refusing a file
// whose first binaryCheckBytes hold binary data (so that no error repeats
// its bytes).
func loadDataFile(path string) (*distributions.RealData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("real distributions: %w", err)
	}
	head, err := io.ReadAll(io.LimitReader(f, binaryCheckBytes))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("real distributions %s: %w", path, err)
	}
	if line, b, bad := properties.FindBinary(head); bad {
		return nil, &errDataFileBinary{line: line, b: b}
	}
	return distributions.LoadRealData(path)
}

// tokenRE finds the token number in a parse error of package
// distributions ("token 12 (nlinks): ...").
var tokenRE = regexp.MustCompile(`\btoken (\d+)\b`)

// dataFileError is the *ConfigError for data_file (value as configured,
// found at path) that loadDataFile could not read: it names path:line
// when the error is at a token of the file.
func dataFileError(value, path string, err error) error {
	ce := &ConfigError{Key: "data_file", Value: value, Reason: err.Error()}
	var be *errDataFileBinary
	if errors.As(err, &be) {
		ce.Where = fmt.Sprintf("%s:%d", path, be.line)
		return ce
	}
	if m := tokenRE.FindStringSubmatch(err.Error()); m != nil {
		if tok, convErr := strconv.Atoi(m[1]); convErr == nil {
			if line := tokenLine(path, tok); line > 0 {
				ce.Where = fmt.Sprintf("%s:%d", path, line)
				ce.Reason = strings.TrimPrefix(ce.Reason, "real distributions "+path+": ")
			}
		}
	}
	return ce
}

// tokenLine returns the 1-based line of the tok-th white-space separated
// token (1-based) of the file at path, or 0 when it cannot tell.
func tokenLine(path string, tok int) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	r := bufio.NewReader(f)
	line, n, inTok := 1, 0, false
	for {
		c, _, err := r.ReadRune()
		if err != nil {
			if n == tok-1 && tok > 0 {
				return line // "got end of input": the last line
			}
			return 0
		}
		switch {
		case unicode.IsSpace(c):
			inTok = false
		case !inTok:
			inTok = true
			if n++; n == tok {
				return line
			}
		}
		if c == '\n' {
			line++
		}
	}
}
