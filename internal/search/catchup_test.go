package search

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/store"
)

// claudeLines is a Claude Code session id whose request is request, each
// line as Claude Code writes it (sidechain: a subagent's).
func claudeLines(id, request string, sidechain bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"user","isSidechain":%t,"agentId":"a1","message":{"role":"user","content":%q},"uuid":"u1","timestamp":"2026-11-27T11:55:35.475Z","cwd":"/w","sessionId":%q,"version":"2.1.0"}`+"\n", sidechain, request, id)
	fmt.Fprintf(&b, `{"type":"assistant","isSidechain":%t,"agentId":"a1","message":{"role":"assistant","content":[{"type":"text","text":"done with %s"}]},"uuid":"a1","parentUuid":"u1","timestamp":"2026-11-27T11:55:36.475Z","cwd":"/w","sessionId":%q}`+"\n", sidechain, request, id)
	return b.String()
}

// A full catch-up reads again every session whose files changed, however
// discovery learnt their sizes and times (from the walk that takes the
// snapshot): a transcript rewritten in place at the same size and time
// (within a tick of the file system's clock), a subagent's transcript
// that grew, a session added, one removed; and nothing when nothing
// changed.
func TestCatchUpSeesEveryChange(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	proj := filepath.Join(home, ".claude", "projects", "-w")
	a := filepath.Join(proj, "aaaaaaaa-0000-4000-8000-000000000001.jsonl")
	b := filepath.Join(proj, "bbbbbbbb-0000-4000-8000-000000000002.jsonl")
	sub := filepath.Join(proj, "bbbbbbbb-0000-4000-8000-000000000002", "subagents", "agent-a1.jsonl")
	if err := os.MkdirAll(filepath.Dir(sub), 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(a, claudeLines("aaaaaaaa-0000-4000-8000-000000000001", "polish the walrus", false))
	write(b, claudeLines("bbbbbbbb-0000-4000-8000-000000000002", "feed the narwhal", false))
	write(sub, claudeLines("bbbbbbbb-0000-4000-8000-000000000002", "count the krill", true))
	// Written an hour ago: within the window whose tails are hashed.
	hourAgo := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, p := range []string{a, b, sub} {
		if err := os.Chtimes(p, hourAgo, hourAgo); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(filepath.Join(home, "data"))
	if err != nil {
		t.Fatal(err)
	}
	ix := Open(filepath.Join(home, "data", DirName))
	catchUp := func(what string, added, removed int) {
		t.Helper()
		got, err := CatchUp(ix, st, env, func() (*redact.Redactor, error) { return redact.Default(), nil }, "box", Full, func(err error) { t.Error(err) }, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got.Added != added || got.Removed != removed || got.Failed != 0 {
			t.Fatalf("%s: %+v, want %d added and %d removed", what, got, added, removed)
		}
	}
	catchUp("the first catch-up", 2, 0)
	catchUp("nothing changed", 0, 0)

	// Rewritten in place: the same size, the same time.
	write(a, claudeLines("aaaaaaaa-0000-4000-8000-000000000001", "polish the walnut", false))
	if err := os.Chtimes(a, hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	catchUp("a rewritten in place", 1, 0)
	if got := ids(t, ix, "walnut", Filter{}); !slices.Equal(got, []string{"aaaaaaaa-0000-4000-8000-000000000001"}) {
		t.Errorf("walnut found in %v", got)
	}

	// The subagent's transcript grows, its session's does not.
	f, err := os.OpenFile(sub, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(claudeLines("bbbbbbbb-0000-4000-8000-000000000002", "count the plankton", true))
	f.Close()
	catchUp("b's subagent grew", 1, 0)

	c := filepath.Join(proj, "cccccccc-0000-4000-8000-000000000003.jsonl")
	write(c, claudeLines("cccccccc-0000-4000-8000-000000000003", "wash the otter", false))
	catchUp("c added", 1, 0)
	if got := ids(t, ix, "otter", Filter{}); len(got) != 1 {
		t.Errorf("otter found in %v", got)
	}

	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	catchUp("a removed", 0, 1)
	if got := ids(t, ix, "walnut", Filter{}); got != nil {
		t.Errorf("walnut still found in %v", got)
	}
	catchUp("nothing changed since", 0, 0)
}
