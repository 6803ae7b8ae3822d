package codex

import "testing"

func TestIsTaggedBlock(t *testing.T) {
	for text, want := range map[string]bool{
		"<recommended_plugins>[redacted]</recommended_plugins>":           true,
		"<context_window_reminder>\n80% used\n</context_window_reminder>": true,
		"<b>bold</b> is what I want":                                      false,
		"<recommended_plugins>x</recommended_plugins> and fix the bug":    false,
		"<Foo>x</Foo>": false,
		"fix <x>":      false,
		"<>x</>":       false,
	} {
		if got := isTaggedBlock(text); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}
