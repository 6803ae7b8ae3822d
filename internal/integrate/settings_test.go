package integrate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/jsonc"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

var claudeHooks = func() []Hook { a, _ := LookupAgent("claude-code"); return a.Hooks("session-handoff") }()

// settingsCases are settings files as users have them.
var settingsCases = map[string]string{
	"empty":          "",
	"empty object":   "{}",
	"other keys":     "{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(go test:*)\"]}\n}\n",
	"user hook same": "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"echo mine\"}]}\n    ]\n  }\n}\n",
	"empty arrays":   "{\"hooks\": {\"SessionStart\": [], \"Stop\": [{\"hooks\": []}]}}",
	"empty hooks":    "{\"hooks\": {}, \"env\": {\"A\": \"1\"}}",
	"comments":       "// my settings\n{\n  /* the model */ \"model\": \"x\", // trailing\n  \"hooks\": { // mine\n  },\n}\n",
	"crlf":           "{\r\n  \"model\": \"x\"\r\n}\r\n",
	"no newline":     "{\"a\":1}",
}

func TestInsertKeepsEverythingAndRemoveRestoresExactly(t *testing.T) {
	for name, text := range settingsCases {
		t.Run(name, func(t *testing.T) {
			out, snippets, err := Insert([]byte(text), claudeHooks)
			if err != nil {
				t.Fatal(err)
			}
			if !Installed(out, "claude-code") {
				t.Fatalf("hooks not there:\n%s", out)
			}
			if strings.TrimSpace(text) != "" && !strings.Contains(text, "//") {
				var v map[string]any
				if err := json.Unmarshal(out, &v); err != nil {
					t.Fatalf("not valid JSON: %v\n%s", err, out)
				}
				hooks := v["hooks"].(map[string]any)
				for _, ev := range []string{"SessionStart", "PreCompact", "SessionEnd"} {
					if _, ok := hooks[ev].([]any); !ok {
						t.Fatalf("%s missing:\n%s", ev, out)
					}
				}
				if strings.Contains(text, "echo mine") && len(hooks["SessionStart"].([]any)) != 2 {
					t.Fatalf("the user's hook was lost:\n%s", out)
				}
			}
			for _, keep := range []string{"echo mine", "opus", "Bash(go test:*)", "// my settings", "/* the model */", "// trailing"} {
				if strings.Contains(text, keep) && !strings.Contains(string(out), keep) {
					t.Fatalf("%q was lost", keep)
				}
			}
			back, n, err := Remove(out, snippets)
			if err != nil || n != len(snippets) {
				t.Fatalf("remove: %d of %d, %v", n, len(snippets), err)
			}
			want := text
			if strings.TrimSpace(text) == "" {
				want = "{}\n"
			}
			if string(back) != want {
				t.Fatalf("remove did not restore the file:\n%q\nwant\n%q", back, want)
			}
		})
	}
}

func TestInsertRefusesWhatItCannotEdit(t *testing.T) {
	for name, text := range map[string]string{
		"array":            "[]",
		"hooks not object": `{"hooks": []}`,
		"event not array":  `{"hooks": {"SessionStart": {}}}`,
		"broken":           `{"a": `,
		"trailing data":    `{} {}`,
		"deep":             strings.Repeat("[", 100) + strings.Repeat("]", 100),
	} {
		if _, _, err := Insert([]byte(text), claudeHooks); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestInstallAndRemoveFiles(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	path := filepath.Join(dir, "proj", ".claude", "settings.json")
	// A file the install creates is removed again.
	c, err := PlanInstall(path, claudeHooks, "claude-code")
	if err != nil || c.Nothing {
		t.Fatal(c, err)
	}
	if err := ApplyInstall(c, state); err != nil {
		t.Fatal(err)
	}
	if again, _ := PlanInstall(path, claudeHooks, "claude-code"); !again.Nothing {
		t.Fatal("a second install would add the hooks twice")
	}
	r, err := PlanRemove(path, state)
	if err != nil || !r.Exact || r.After != nil {
		t.Fatal(r, err)
	}
	if err := ApplyRemove(r, state); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("the file the install created is still there")
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Fatal("the directory the install made, left empty, is still there")
	}
	// An existing file edited by the user after the install keeps the
	// user's edit; only our text goes.
	orig := settingsCases["user hook same"]
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	c, _ = PlanInstall(path, claudeHooks, "claude-code")
	if err := ApplyInstall(c, state); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Fatalf("mode changed to %v", info.Mode().Perm())
	}
	edited := strings.Replace(string(c.After), "\n}\n", ",\n  \"model\": \"sonnet\"\n}\n", 1)
	testsys.Check(t, os.WriteFile(path, []byte(edited), 0o640))
	r, err = PlanRemove(path, state)
	if err != nil || r.Exact {
		t.Fatal(r, err)
	}
	ApplyRemove(r, state)
	got, _ := os.ReadFile(path)
	want := strings.Replace(orig, "\n}\n", ",\n  \"model\": \"sonnet\"\n}\n", 1)
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// A symbolic link is not written through.
	link := filepath.Join(dir, "link.json")
	testsys.Check(t, os.Symlink(path, link))
	if _, err := PlanInstall(link, claudeHooks, "claude-code"); err == nil {
		t.Fatal("a symlinked settings file was accepted")
	}
}

func FuzzInsert(f *testing.F) {
	for _, s := range settingsCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		out, snippets, err := Insert(text, claudeHooks)
		if err != nil {
			return
		}
		if _, _, err := jsonc.TopObject(out); err != nil {
			t.Fatalf("the edited settings do not parse: %v", err)
		}
		if json.Valid(text) && !json.Valid(out) {
			t.Fatal("valid JSON became invalid")
		}
		back, _, err := Remove(out, snippets)
		if err != nil {
			return // our text already appeared in the input: refused, not guessed
		}
		want := text
		if len(strings.TrimSpace(string(text))) == 0 {
			want = []byte("{}\n")
		}
		if string(back) != string(want) {
			t.Fatalf("remove did not restore:\n%q\nwant\n%q", back, want)
		}
	})
}
