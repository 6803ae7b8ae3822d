package integrate

import (
	"encoding/json"
	"testing"
)

// GitHub Copilot CLI's hook file: {"version": 1, "hooks": {EVENT:
// [{"type": "command", "bash", "timeoutSec"}]}}, each hook an entry of
// its own; a user's own entries stay, and removal restores the file.
func TestInsertCopilotHooks(t *testing.T) {
	a, err := LookupAgent("copilot")
	if err != nil {
		t.Fatal(err)
	}
	hooks := a.Hooks("/bin/session-handoff")
	for _, text := range []string{"", `{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "echo mine"}]}}` + "\n"} {
		out, snippets, err := Insert([]byte(text), hooks)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Version int `json:"version"`
			Hooks   map[string][]struct {
				Type    string `json:"type"`
				Bash    string `json:"bash"`
				Timeout int    `json:"timeoutSec"`
			} `json:"hooks"`
		}
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		start := v.Hooks["sessionStart"]
		if v.Version != 1 || len(start) == 0 || start[0].Type != "command" || start[0].Bash != "/bin/session-handoff hook copilot session-start" ||
			len(v.Hooks["sessionEnd"]) != 1 || v.Hooks["sessionEnd"][0].Timeout != 60 || len(v.Hooks["preCompact"]) != 1 {
			t.Errorf("hooks:\n%s", out)
		}
		if text != "" && (len(start) != 2 || start[1].Bash != "echo mine") {
			t.Errorf("the user's hook was lost:\n%s", out)
		}
		if !Installed(out, "copilot") {
			t.Errorf("not seen as installed:\n%s", out)
		}
		back, n, err := Remove(out, snippets)
		want := text
		if text == "" {
			want = "{\n  \"version\": 1\n}\n"
		}
		if err != nil || n != len(snippets) || string(back) != want {
			t.Errorf("remove: %d of %d, %v:\n%s", n, len(snippets), err, back)
		}
	}
}
