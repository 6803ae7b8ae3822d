package redact

import (
	"fmt"
	"strings"
)

// MaxPatternsFile bounds a file of user patterns.
const MaxPatternsFile = 64 << 10

// ParsePatterns reads user patterns, one per line: a kind, white space,
// and a regular expression (RE2 syntax) running to the end of the line.
// Blank lines and lines starting with # are skipped. name is used in
// errors ("name:3: …"). The patterns are checked by New.
func ParsePatterns(data []byte, name string) ([]Pattern, error) {
	if len(data) > MaxPatternsFile {
		return nil, fmt.Errorf("%s: over %d bytes", name, MaxPatternsFile)
	}
	var out []Pattern
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, re, ok := strings.Cut(line, " ")
		if !ok {
			kind, re, ok = strings.Cut(line, "\t")
		}
		re = strings.TrimSpace(re)
		if !ok || re == "" {
			return nil, fmt.Errorf("%s:%d: want 'KIND REGEXP'", name, i+1)
		}
		out = append(out, Pattern{Kind: kind, Regexp: re})
	}
	return out, nil
}
