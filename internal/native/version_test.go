package native

import "testing"

func TestVersionIn(t *testing.T) {
	for out, want := range map[string]string{
		"codex-cli 0.171.0\n":             "0.171.0",
		"2.1.332 (Claude Code)\n":         "2.1.332",
		"0.61.0":                          "0.61.0",
		"GitHub Copilot CLI v1.0.102.\n":  "1.0.102",
		"qwen 0.24.4-nightly.1":           "0.24.4-nightly.1",
		"no version here, 3 of them, 2.x": "",
		"":                                "",
	} {
		if got := versionIn(out); got != want {
			t.Errorf("%q: %q, want %q", out, got, want)
		}
	}
}

func TestNewerThan(t *testing.T) {
	for _, tc := range []struct {
		v       string
		checked []string
		want    bool
	}{
		{"0.172.0", []string{"0.171.0"}, true},
		{"0.171.0", []string{"0.171.0"}, false},
		{"0.171.1-alpha.2", []string{"0.171.0"}, true},
		{"0.99.0", []string{"0.171.0"}, false},
		{"1.0", []string{"0.171.0", "1.0.0"}, false},
		{"10.0.0", []string{"9.9.9"}, true},
		{"", []string{"1.0.0"}, false},
	} {
		if got := NewerThan(tc.v, tc.checked); got != tc.want {
			t.Errorf("%s over %v: %v", tc.v, tc.checked, got)
		}
	}
}
