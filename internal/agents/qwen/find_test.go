package qwen

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestFind lists every projects/*/chats/*.jsonl under the roots, newest
// first, with what its head and tail say (a title given the session at its
// end); not a subagent's transcript, an empty file or a runtime sidecar.
func TestFind(t *testing.T) {
	root := filepath.Join(t.TempDir(), "projects")
	write := func(rel, text string, age time.Duration) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	write("-w/chats/old.jsonl", userRec("u1", "", "old work"), 2*time.Hour)
	write("-w/chats/new.jsonl", rec("x", "", "system", `,"subtype":"session_source","systemPayload":{}`)+userRec("u1", "x", "new work")+
		rec("t", "u1", "system", `,"subtype":"custom_title","systemPayload":{"customTitle":"Named by the user"}`), time.Hour)
	write("-w/chats/empty.jsonl", "", 0)
	write("-w/chats/new.runtime.json", "{}", 0)
	write("-w/subagents/new/agent-a1.jsonl", userRec("u1", "", "sub"), 0)
	got, err := Transcripts{}.Find([]string{root, filepath.Join(t.TempDir(), "missing")})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range got {
		titles = append(titles, s.Title)
		if s.Agent != agentName || s.ID != "s" || s.CWD != "/w" || s.AgentVersion != "0.24.4" || s.Started.IsZero() ||
			!s.LastActivity.Equal(s.Started) { // the records' time, not the file's

			t.Errorf("%+v", s)
		}
	}
	if want := []string{"Named by the user", "old work"}; !reflect.DeepEqual(titles, want) {
		t.Errorf("found %q, want %q", titles, want)
	}
}

// TestDirs: the settings' directory first ($QWEN_HOME, else ~/.qwen),
// then $QWEN_RUNTIME_DIR, which holds the sessions; a relative path is
// not taken.
func TestDirs(t *testing.T) {
	env := map[string]string{"QWEN_RUNTIME_DIR": "/run/q", "QWEN_HOME": "/q"}
	if got, want := Dirs("/h", func(k string) string { return env[k] }), []string{"/q", "/run/q"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Dirs = %q, want %q", got, want)
	}
	env = map[string]string{"QWEN_HOME": "rel"}
	if got, want := Dirs("/h", func(k string) string { return env[k] }), []string{"/h/.qwen"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Dirs = %q, want %q", got, want)
	}
}
