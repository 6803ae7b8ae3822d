package transcript

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func TestExitLineMatchesRegexp(t *testing.T) {
	codexRe := regexp.MustCompile(`(?m)^(?:Exit code:|Process exited with code) (-?\d{1,10})\s*$`)
	geminiRe := regexp.MustCompile(`(?m)^Exit Code: (-?\d{1,10})\s*$`)
	runningRe := regexp.MustCompile(`(?m)^Process running with session ID`)
	tokens := []string{"Exit code:", "Process exited with code", "Exit Code:", "Process running with session ID",
		" ", " ", "-", "1", "0", "42", "12345", "99999", "\n", "\n", "\r", "\t", "\f", "\v", "x", "é", "Exit code"}
	r := rand.New(rand.NewPCG(3, 4))
	check := func(s string) {
		t.Helper()
		want := codexRe.FindStringSubmatch(s)
		got, ok := exitLine(s, "Exit code:", "Process exited with code")
		if ok != (want != nil) || ok && got != want[1] {
			t.Fatalf("codex %q: got %q %v, want %q", s, got, ok, want)
		}
		want = geminiRe.FindStringSubmatch(s)
		got, ok = exitLine(s, "Exit Code:")
		if ok != (want != nil) || ok && got != want[1] {
			t.Fatalf("gemini %q: got %q %v, want %q", s, got, ok, want)
		}
		if lineWithPrefix(s, "Process running with session ID") != runningRe.MatchString(s) {
			t.Fatalf("running %q", s)
		}
	}
	for _, s := range []string{"", "Exit code: 1", "Exit code: 12345678901", "Exit code: 1234567890", "x\nExit code: -3 \r\nmore",
		"Exit code: 1x\nProcess exited with code 2", "Process exited with code 2\nExit code: 1", "Exit code:  1", "Exit code: -",
		"Process running with session ID 5", "a Process running with session ID"} {
		check(s)
	}
	for range 200000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(tokens[r.IntN(len(tokens))])
		}
		check(b.String())
	}
}
