package codex

import "testing"

// The hashes are those @openai/codex@0.169.0's app-server reported
// (hooks/list, currentHash) for the hooks integrate installed.
func TestCodexHooksHashAsCodex(t *testing.T) {
	const path = "/tmp/cx/home/.codex/hooks.json"
	text := []byte(`{
  "hooks": {
    "SessionStart": [{"hooks":[{"type":"command","command":"/tmp/e2e29-sh hook codex session-start"}]}],
    "PreCompact": [{"hooks":[{"type":"command","command":"/tmp/e2e29-sh hook codex pre-compact","timeout":60}]}],
    "SessionEnd": [{"hooks":[{"type":"command","command":"/tmp/e2e29-sh hook codex session-end","timeout":3}]}]
  }
}`)
	want := map[string]string{
		path + ":session_start:0:0": "sha256:6657e7ee46271069a815b78141d4c269243cfb5154ef7e08a83ffb0310313714",
		path + ":pre_compact:0:0":   "sha256:30041271656115ddf862593a11e798ec34cc01151032fa22d72dcd18523b61a3",
		path + ":session_end:0:0":   "sha256:03aebbabfe81c3726ad935ac2c84b5a1758b05a6c0153ab6fb08f9031adabf53",
	}
	hooks, err := Hooks(path, text)
	if err != nil {
		t.Fatal(err)
	}
	if len(hooks) != len(want) {
		t.Fatalf("%d hooks, want %d: %+v", len(hooks), len(want), hooks)
	}
	for _, h := range hooks {
		if want[h.Key] != h.Hash {
			t.Errorf("%s: hash %s, want %s", h.Key, h.Hash, want[h.Key])
		}
	}
}

func TestCodexTrustedHashes(t *testing.T) {
	got, err := TrustedHashes([]byte(`model = "x"
[hooks.state."/h/hooks.json:session_start:0:0"]
trusted_hash = "sha256:ab"
[hooks.state."/h/hooks.json:pre_compact:0:0"]
enabled = false
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["/h/hooks.json:session_start:0:0"] != "sha256:ab" {
		t.Errorf("got %v", got)
	}
	if _, err := TrustedHashes([]byte("[hooks.state\n")); err == nil {
		t.Error("a broken config.toml gave no error")
	}
}
