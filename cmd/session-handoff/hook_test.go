package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookExitRule: wrong arguments are a usage error; anything that goes
// wrong after them is logged and the exit status is 0.
func TestHookExitRule(t *testing.T) {
	for _, tc := range []struct {
		name         string
		opts         hookOptions
		stdin        string
		code         int
		stderr       string
		wantLogEntry bool
	}{
		{"unknown agent", hookOptions{"vim", "session-end"}, "{}", 2, `hook: unknown agent "vim": want one of claude-code, codex, gemini`, false},
		{"codex garbage input", hookOptions{"codex", "session-end"}, "garbage", 0, "session-handoff: hook codex session-end: hook input:", true},
		{"unknown event", hookOptions{"claude-code", "boot"}, "{}", 2, `hook: event "boot"`, false},
		{"garbage input", hookOptions{"claude-code", "session-end"}, "garbage", 0, "session-handoff: hook claude-code session-end: hook input:", true},
		{"relative cwd", hookOptions{"gemini", "session-start"}, `{"cwd": "x"}`, 0, "is not an absolute path", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			var stdout, stderr bytes.Buffer
			a := newTestApp(context.Background(), strings.NewReader(tc.stdin), &stdout, &stderr,
				map[string]string{"SESSION_HANDOFF_HOME": home, "HOME": home})
			code := a.report("hook", runHook(a, tc.opts))
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), tc.code, tc.stderr)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
			_, err := os.Stat(filepath.Join(home, "data", "hooks.log"))
			if got := err == nil; got != tc.wantLogEntry {
				t.Errorf("hooks.log written: %v, want %v", got, tc.wantLogEntry)
			}
		})
	}
}
