package store

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// ParseSince reads a Filter.Since given as text: a duration back from now
// (90m, 6h, 2d, 1w) or a date or time (2026-11-20, 2026-11-20T10:00:00Z,
// in local time unless it says otherwise). "" is no bound. The list
// command's --since and the MCP server's since argument both read it so.
func ParseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if n := len(s); n > 1 && (s[n-1] == 'd' || s[n-1] == 'w') {
		if v, err := strconv.Atoi(s[:n-1]); err == nil && v >= 0 && v < 100000 {
			days := v
			if s[n-1] == 'w' {
				days *= 7
			}
			return now.AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q: want a duration (90m, 6h, 2d, 1w) or a date (2026-11-20)", handoff.Shorten(s, 40))
}

// ProjectFilter makes a Filter.Project of a project given as text: a
// directory (anything with a path separator, "." or "..") becomes an
// absolute path, so that it matches that directory and everything under
// it; a bare project name is left alone.
func ProjectFilter(p string) string {
	if p == "" || (!strings.ContainsRune(p, filepath.Separator) && p != "." && p != "..") {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
