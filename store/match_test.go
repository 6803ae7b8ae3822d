package store

import "testing"

func TestEntryMatches(t *testing.T) {
	e := Entry{ID: "01JDZ3K4XQ2ABCDEFGHJKMNPQR", Title: "Refactor Auth middleware", ProjectName: "webapp", Tool: "codex", Tags: []string{"security", "q4"}}
	for q, want := range map[string]bool{
		"":          true,
		"auth":      true, // title, ignoring case
		"MIDDLE":    true,
		"webapp":    true, // project name
		"codex":     true, // tool
		"q4":        true, // a tag
		"01jdz3":    true, // id, ignoring case
		"gemini":    false,
		"auth web":  false, // the title's end and the project's start are not one phrase
		"refactors": false,
	} {
		if got := e.Matches(q); got != want {
			t.Errorf("Matches(%q) = %v, want %v", q, got, want)
		}
	}
}
