// Package style is the restrained colour of terminal output: bold for
// headings, green, yellow and red for a verdict, dim for what matters
// least. It decides once whether a stream gets colour (Choose) and then
// paints text, or leaves it as it is when colour is off.
//
// Every painted span adds the same number of bytes (a five-byte start and
// a four-byte reset), so cells painted alike in one column stay aligned.
package style

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Mode is the --color flag's value.
type Mode string

// The --color values.
const (
	Auto   Mode = "auto"
	Always Mode = "always"
	Never  Mode = "never"
)

// ParseMode reads a --color value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Auto, Always, Never:
		return m, nil
	}
	return "", fmt.Errorf("--color %q: want auto, always or never", s)
}

// Choose decides whether output gets colour: always and never are obeyed;
// auto colours a terminal unless NO_COLOR is set (to anything but "", as
// no-color.org asks) or TERM is "dumb".
func Choose(m Mode, noColor, term string, tty bool) bool {
	switch m {
	case Always:
		return true
	case Never:
		return false
	}
	return tty && noColor == "" && term != "dumb"
}

// Style paints text when On; the zero Style paints nothing.
type Style struct{ On bool }

// The codes: each start is five bytes, the reset four.
const (
	bold   = "\x1b[01m"
	dim    = "\x1b[02m"
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	reset  = "\x1b[0m"
)

func (s Style) paint(code, t string) string {
	if !s.On || t == "" {
		return t
	}
	return code + t + reset
}

// Bold is for a heading or a title.
func (s Style) Bold(t string) string { return s.paint(bold, t) }

// Dim is for what matters least.
func (s Style) Dim(t string) string { return s.paint(dim, t) }

// Good is for a verdict that is fine (ok, verified, mine).
func (s Style) Good(t string) string { return s.paint(green, t) }

// Warn is for a verdict to look at (warn, untrusted, unsigned).
func (s Style) Warn(t string) string { return s.paint(yellow, t) }

// Bad is for a failure.
func (s Style) Bad(t string) string { return s.paint(red, t) }

// Span paints the runes [from, to) of line with paint, keeping the
// trailing spaces of the span (a column's padding) outside it; a span
// past the line's end is cut to it. Columns are counted in runes, as
// text/tabwriter counts them.
func Span(line string, from, to int, paint func(string) string) string {
	n := utf8.RuneCountInString(line)
	if from >= n || from < 0 || to <= from {
		return line
	}
	to = min(to, n)
	r := []rune(line)
	mid := string(r[from:to])
	text := strings.TrimRight(mid, " ")
	if text == "" {
		return line
	}
	return string(r[:from]) + paint(text) + mid[len(text):] + string(r[to:])
}

// Column is the rune offset of the column headed name in a table's header
// line, and of the next column (the line's length for the last); ok is
// false when the header has no such column.
func Column(header, name string) (from, to int, ok bool) {
	i := strings.Index(header, name)
	if i < 0 {
		return 0, 0, false
	}
	from = utf8.RuneCountInString(header[:i])
	rest := header[i+len(name):]
	j := len(rest) - len(strings.TrimLeft(rest, " "))
	if j == len(rest) {
		return from, utf8.RuneCountInString(header) + 1<<20, true
	}
	return from, from + utf8.RuneCountInString(name) + j, true
}

// Wrap breaks one line of text into lines of at most width runes, at
// spaces where it can and inside a word longer than width where it must.
func Wrap(s string, width int) []string {
	if width < 1 {
		return []string{s}
	}
	var out []string
	var line []rune
	for _, w := range strings.Fields(s) {
		word := []rune(w)
		if len(line) > 0 && len(line)+1+len(word) > width {
			out, line = append(out, string(line)), nil
		}
		if len(line) > 0 {
			line = append(line, ' ')
		}
		line = append(line, word...)
		for len(line) > width {
			out, line = append(out, string(line[:width])), line[width:]
		}
	}
	if len(line) > 0 || len(out) == 0 {
		out = append(out, string(line))
	}
	return out
}
