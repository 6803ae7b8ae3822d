package targets

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

func TestStartCommand(t *testing.T) {
	const file = "/tmp/session-handoff-launch-1/handoff-X.md"
	msg := StartMessage(file)
	tests := []struct {
		target string
		extra  []string
		want   []string
	}{
		{"claude-code", nil, []string{"claude", msg}},
		{"claude", []string{"--model", "opus"}, []string{"claude", "--model", "opus", msg}},
		{"codex", nil, []string{"codex", msg}},
		{"codex-cli", []string{"-m", "o3"}, []string{"codex", "-m", "o3", msg}},
		{"gemini", nil, []string{"gemini", "--include-directories", "/tmp/session-handoff-launch-1", "-i", msg}},
		{"gemini", []string{"-y"}, []string{"gemini", "-y", "--include-directories", "/tmp/session-handoff-launch-1", "-i", msg}},
		{"copilot", nil, []string{"copilot", "--add-dir", "/tmp/session-handoff-launch-1", "-i", msg}},
		{"cline", nil, []string{"cline", "-i", msg}},
		{"pi", nil, []string{"pi", msg}},
		{"qwen", nil, []string{"qwen", "--include-directories", "/tmp/session-handoff-launch-1", "-i", msg}},
		{"opencode", nil, []string{"opencode", "--prompt", msg}},
		{"kilo", nil, []string{"kilo", "--prompt", msg}},
	}
	for _, tc := range tests {
		p, err := Lookup(tc.target)
		if err != nil {
			t.Fatal(err)
		}
		s, err := p.StartCommand(file, tc.extra)
		if err != nil {
			t.Fatalf("%s: %v", tc.target, err)
		}
		if got := s.Argv(); !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: argv %q, want %q", tc.target, tc.extra, got, tc.want)
		}
	}
	if !strings.Contains(msg, file) {
		t.Errorf("message %q does not name the file", msg)
	}
	if got := StartNames(); !slices.Equal(got, startable()) {
		t.Errorf("StartNames() = %q, want %q", got, startable())
	}
}

func TestStartCommandRefuses(t *testing.T) {
	for _, name := range []string{"generic", "cursor"} {
		p, _ := Lookup(name)
		if _, err := p.StartCommand("/tmp/h.md", nil); err == nil || !strings.Contains(err.Error(), "want one of "+strings.Join(startable(), ", ")) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	p, _ := Lookup("codex")
	if _, err := p.StartCommand("h.md", nil); err == nil || !strings.Contains(err.Error(), "not an absolute path") {
		t.Errorf("relative prompt file: err = %v", err)
	}
	long := strings.Repeat("x", MaxArgLen+1)
	_, err := p.StartCommand("/tmp/h.md", []string{"-m", long})
	if err == nil || !strings.Contains(err.Error(), "argument 2 is 32769 bytes, over the 32 KiB allowed") {
		t.Errorf("long extra argument: err = %v", err)
	}
	// A prompt file path long enough to push the message over the limit
	// is refused too: nothing reaches exec that exec would refuse.
	_, err = p.StartCommand("/"+strings.Repeat("d", MaxArgLen), nil)
	if err == nil || !strings.Contains(err.Error(), "argument 1 is") {
		t.Errorf("long message: err = %v", err)
	}
}

func TestCheckArgv(t *testing.T) {
	if err := CheckArgv([]string{"a", strings.Repeat("x", MaxArgLen)}); err != nil {
		t.Errorf("an argument of exactly MaxArgLen: %v", err)
	}
	if err := CheckArgv([]string{"a", strings.Repeat("x", MaxArgLen+1)}); err == nil {
		t.Error("an argument over MaxArgLen passed")
	}
	if err := CheckArgv([]string{"a", "b\x00c"}); err == nil || !strings.Contains(err.Error(), "NUL") {
		t.Errorf("NUL: err = %v", err)
	}
	// The limit is well under what Linux itself refuses (128 KiB).
	if MaxArgLen*4 > 128<<10 {
		t.Errorf("MaxArgLen %d leaves no room under the kernel's 128 KiB", MaxArgLen)
	}
}

func TestShellJoinRoundTrips(t *testing.T) {
	sh := testsys.LookPath(t, "sh")
	argv := []string{"claude", "plain", "", "two words", "it's", `$HOME`, "`id`", "a\nb", "~user", "--x=y", "100%", "é"}
	line := ShellJoin(argv)
	// The shell splits the line back into exactly the arguments we had.
	out, err := exec.Command(sh, "-c", "set -- "+line+`; for a in "$@"; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, argv) {
		t.Errorf("shell split %q into %q, want %q", line, got, argv)
	}
}

// startable names the agents of the table that launch starts: those with
// start arguments, in the table's order.
func startable() []string {
	var out []string
	for _, a := range agents.All() {
		if a.StartArgs != nil {
			out = append(out, a.Name)
		}
	}
	return out
}
