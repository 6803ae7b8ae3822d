// Package fences reads a rendering the way a Markdown reader does, for
// tests: Outside is the text outside its fenced blocks, which is
// session-handoff's own words. Only tests import it.
package fences

import "strings"

// Outside returns the lines of text that are not inside a fenced block
// (one opened by a line of three or more backticks, and closed by a line
// of exactly that many), joined by newlines. An unclosed fence runs to
// the end, as in Markdown.
func Outside(text string) string {
	var b strings.Builder
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence == "" && strings.HasPrefix(trimmed, "```"):
			fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
		case fence != "" && strings.TrimRight(trimmed, " ") == fence:
			fence = ""
		case fence == "":
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}
