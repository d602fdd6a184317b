// Package doccheck holds the checks that keep the repository's prose honest:
// every "§7.6"-style reference in the Go sources and the README names a
// section of docs/behaviour.md, and the README's library snippet compiles
// as a program of a module of its own (see the package's tests).
package doccheck

import (
	"fmt"
	"regexp"
	"strings"
)

// refRE matches a reference: "§7.6", "§ 11", "§11.2-17" (item 17 of §11.2).
var refRE = regexp.MustCompile(`§ ?(\d+(?:\.\d+)*)(-\d+)?`)

// Refs returns the section references in text, as written after the §
// ("7.6", "11.2-17"), in order of appearance.
func Refs(text string) []string {
	var out []string
	for _, m := range refRE.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1]+m[2])
	}
	return out
}

// headingRE matches a Markdown heading that opens with a section number:
// "## 11. Known bugs", "### 7.6 Empirical", "#### 11.2-17 Per-thread".
var headingRE = regexp.MustCompile(`(?m)^#{2,4} (\d+(?:\.\d+)*(?:-\d+)?)\.? `)

// Sections returns the numbers of the sections of a Markdown document
// ("11", "7.6", "11.2-17").
func Sections(md string) map[string]bool {
	s := map[string]bool{}
	for _, m := range headingRE.FindAllStringSubmatch(md, -1) {
		s[m[1]] = true
	}
	return s
}

// Snippet returns the body of the fenced code block between the lines
// "<!-- name:start -->" and "<!-- name:end -->" of a Markdown document.
func Snippet(md, name string) (string, error) {
	start, end := "<!-- "+name+":start -->", "<!-- "+name+":end -->"
	i := strings.Index(md, start)
	j := strings.Index(md, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("no %s ... %s block", start, end)
	}
	block := strings.TrimSpace(md[i+len(start) : j])
	first, rest, ok := strings.Cut(block, "\n")
	if !ok || !strings.HasPrefix(first, "```") || !strings.HasSuffix(rest, "```") {
		return "", fmt.Errorf("the %s block is not one fenced code block", name)
	}
	return strings.TrimSuffix(rest, "```"), nil
}
