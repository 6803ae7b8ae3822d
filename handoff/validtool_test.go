package handoff

import (
	"regexp"
	"strings"
	"testing"
)

// ValidTool is the schema's tool pattern written as a loop: both agree.
func FuzzValidToolIsThePattern(f *testing.F) {
	re := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	for _, s := range []string{"", "codex", "claude-code", "a", "-a", "a-", ".x", "x_y.z", "A", "é", "a b", strings.Repeat("a", 64), strings.Repeat("a", 65), "a\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidTool(s), re.MatchString(s); got != want {
			t.Fatalf("ValidTool(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}
