package capture

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents/kilo"
	"github.com/session-handoff/session-handoff/internal/agents/opencode"
	"github.com/session-handoff/session-handoff/internal/agents/qwen"
)

// SessionRoots names the directories FindSessions reads: a transcript
// put under each root is found.
func TestSessionRootsAreWhereFindSessionsLooks(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	files := map[Agent]string{
		ClaudeCode: filepath.Join("-src-app", "0b9e.jsonl"),
		Codex:      filepath.Join("2026", "01", "02", "rollout-2026-01-02T03-04-05-0b9e2a41-1c2d-4e5f-8a9b-0c1d2e3f4a5b.jsonl"),
		Gemini:     filepath.Join("app", "chats", "session-2026-01-02T03-04-0b9e.jsonl"),
		Copilot:    filepath.Join("0b9e2a41-1c2d-4e5f-8a9b-0c1d2e3f4a5b", "events.jsonl"),
		"cline":    filepath.Join("1795790092737_lizig", "1795790092737_lizig.messages.json"),
		"pi":       filepath.Join("--src-app--", "2026-01-02T03-04-05-000Z_0b9e.jsonl"),
		qwen.Name:  filepath.Join("-src-app", "chats", "0b9e.jsonl"),
		// OpenCode's sessions are rows of one SQLite database.
		opencode.Name: "opencode.db",
		// Kilo's are, in OpenCode's layout.
		kilo.Name: "kilo.db",
		// So are Crush's, one database per project; a root's own
		// crush.db is read as a data directory's.
		"crush": "crush.db",
	}
	// pi lists a file only when it starts with its header and holds an
	// entry.
	content := map[Agent]string{"pi": `{"type":"session","version":3,"id":"0b9e","cwd":"/src/app"}` + "\n" +
		`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}` + "\n"}
	seed, err := os.ReadFile("../agents/opencode/testdata/seed.db")
	if err != nil {
		t.Fatal(err)
	}
	content[opencode.Name] = string(seed)
	content[kilo.Name] = string(seed)
	seed, err = os.ReadFile("../agents/crush/testdata/seed.db")
	if err != nil {
		t.Fatal(err)
	}
	content["crush"] = string(seed)
	for _, agent := range Agents {
		roots, err := SessionRoots(agent, env)
		if err != nil {
			t.Fatal(err)
		}
		if len(roots) == 0 || !slices.ContainsFunc(roots, func(r string) bool { return filepath.IsAbs(r) }) {
			t.Fatalf("%s: roots %q", agent, roots)
		}
		p := filepath.Join(roots[0], files[agent])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		text := "{}\n"
		if c, ok := content[agent]; ok {
			text = c
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		found, err := FindSessions(agent, env)
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 || found[0].Path != p {
			t.Errorf("%s: FindSessions found %v, want %s", agent, found, p)
		}
	}
	if _, err := SessionRoots("vim", env); err == nil {
		t.Error("unknown agent: no error")
	}
}
