package redact

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/safefile"
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

// LoadUserPatterns builds the redactor with the built-in rules and the
// user's own patterns from the patterns file in configDir
// (paths.ConfigDir.RedactPatterns), if it exists. A
// patterns file that cannot be read or parsed is an error naming it:
// nothing is redacted with fewer rules than the user asked for.
func LoadUserPatterns(configDir string) (*Redactor, error) {
	path := paths.ConfigDir(configDir).RedactPatterns()
	var extra []Pattern
	data, err := safefile.ReadRegular(path, MaxPatternsFile)
	switch {
	case err == nil:
		if extra, err = ParsePatterns(data, path); err != nil {
			return nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, safefile.Wrap("read", path, err)
	}
	r, err := New(extra)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
