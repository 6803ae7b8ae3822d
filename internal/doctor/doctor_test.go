package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents/codex"
	"github.com/session-handoff/session-handoff/internal/buildinfo"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/integrate"
	"github.com/session-handoff/session-handoff/store"
)

// setup is a keyed, empty setup in a temporary directory with no agents.
func setup(t *testing.T) Setup {
	t.Helper()
	dir := t.TempDir()
	s := Setup{DataDir: filepath.Join(dir, "data"), ConfigDir: filepath.Join(dir, "config"), Project: filepath.Join(dir, "app")}
	home := filepath.Join(dir, "home")
	s.Env = func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	s.LookPath = func(string) (string, error) { return "", errors.New("not found") }
	if _, err := (exchange.Keyring{Dir: s.ConfigDir}).Generate("t@x", nil, false); err != nil {
		t.Fatal(err)
	}
	return s
}

func find(t *testing.T, checks []Check, name string) Check {
	t.Helper()
	for _, c := range checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, checks)
	return Check{}
}

func saveRecord(t *testing.T, dataDir, title string) *store.Store {
	t.Helper()
	st, err := store.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := handoff.New(time.Now(), "codex", title)
	if err != nil {
		t.Fatal(err)
	}
	r.Project = handoff.Project{Path: "/src/app", Name: "app"}
	if err := st.Save(r); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestCleanSetup(t *testing.T) {
	s := setup(t)
	checks := Run(context.Background(), s)
	for _, c := range checks {
		if c.Status != OK && c.Name != "git" {
			t.Errorf("%s: %s %q", c.Name, c.Status, c.Detail)
		}
		if strings.ContainsAny(c.Detail+c.Fix, "\n\r") {
			t.Errorf("%s: not one line: %q", c.Name, c.Detail)
		}
	}
	// git is missing (LookPath fails): a warning, not a failure.
	if c := find(t, checks, "git"); c.Status != Warn || c.Fix != "install git" {
		t.Errorf("git: %+v", c)
	}
	if Worst(checks) != Warn {
		t.Errorf("Worst = %s", Worst(checks))
	}
}

func TestFirstCheckNamesTheBuild(t *testing.T) {
	checks := Run(context.Background(), setup(t))
	want := Check{Name: "version", Status: OK, Detail: buildinfo.Get().String()}
	if len(checks) == 0 || checks[0] != want {
		t.Errorf("first check %+v, want %+v", checks[0], want)
	}
}

func TestStore(t *testing.T) {
	s := setup(t)
	saveRecord(t, s.DataDir, "one")
	if c := find(t, Run(context.Background(), s), "store"); c.Status != OK || !strings.HasSuffix(c.Detail, ": 1 handoff") {
		t.Errorf("store: %+v", c)
	}

	// A missing index is stale: a warning whose fix rebuilds it, and
	// doctor itself does not rebuild it.
	if err := os.Remove(filepath.Join(s.DataDir, "index")); err != nil {
		t.Fatal(err)
	}
	c := find(t, Run(context.Background(), s), "store")
	if c.Status != Warn || !strings.Contains(c.Detail, "index is stale") || !strings.HasPrefix(c.Fix, "session-handoff store check") {
		t.Errorf("stale index: %+v", c)
	}
	if _, err := os.Stat(filepath.Join(s.DataDir, "index")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("doctor rebuilt the index: %v", err)
	}

	// A damaged record fails, naming it.
	recs, _ := filepath.Glob(filepath.Join(s.DataDir, "records", "*"))
	if len(recs) != 1 {
		t.Fatalf("records: %q", recs)
	}
	if err := os.WriteFile(recs[0], []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	c = find(t, Run(context.Background(), s), "store")
	if c.Status != Fail || !strings.Contains(c.Detail, "1 damaged record, first "+recs[0]+": malformed JSON") {
		t.Errorf("damaged record: %+v", c)
	}

	// A file where the store should be fails.
	s.DataDir = recs[0]
	if c := find(t, Run(context.Background(), s), "store"); c.Status != Fail || !strings.Contains(c.Detail, "is not a directory") {
		t.Errorf("store is a file: %+v", c)
	}
}

func TestKeys(t *testing.T) {
	s := setup(t)
	kr := exchange.Keyring{Dir: s.ConfigDir}
	if err := os.Remove(kr.AgeIdentityPath()); err != nil {
		t.Fatal(err)
	}
	c := find(t, Run(context.Background(), s), "keys")
	if c.Status != Fail || c.Detail != kr.AgeIdentityPath()+" missing" || !strings.HasPrefix(c.Fix, "session-handoff keygen --force") {
		t.Errorf("missing age identity: %+v", c)
	}
	// A private key reached through a symbolic link is refused.
	s = setup(t)
	kr = exchange.Keyring{Dir: s.ConfigDir}
	moved := filepath.Join(t.TempDir(), "key")
	if err := os.Rename(kr.SigningKeyPath(), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, kr.SigningKeyPath()); err != nil {
		t.Fatal(err)
	}
	if c := find(t, Run(context.Background(), s), "keys"); c.Status != Fail || !strings.Contains(c.Detail, "not a regular file") {
		t.Errorf("symlinked key: %+v", c)
	}
}

func TestTrust(t *testing.T) {
	s := setup(t)
	path := exchange.Keyring{Dir: s.ConfigDir}.TrustPath()
	line := "bob@desk ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := find(t, Run(context.Background(), s), "trust"); c.Status != OK || !strings.HasSuffix(c.Detail, ": 1 principal, 1 key") {
		t.Errorf("trust: %+v", c)
	}
	// Writable by others: anyone could add a key.
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if c := find(t, Run(context.Background(), s), "trust"); c.Status != Fail || c.Fix != "chmod 644 "+path {
		t.Errorf("world-writable trust store: %+v", c)
	}
}

func TestHooksSettingsUnreadable(t *testing.T) {
	s := setup(t)
	// A directory where the settings file should be is said, not fatal.
	if err := os.MkdirAll(filepath.Join(s.Project, ".claude", "settings.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := find(t, Run(context.Background(), s), "hooks:claude-code")
	if c.Status != Warn || !strings.Contains(c.Detail, "settings.json is not a regular file") {
		t.Errorf("hooks: %+v", c)
	}
}

// An installed hook whose command does not resolve fails the check: the
// agent would fail it at every session start and end (issue 18).
func TestHooksCommandMustResolve(t *testing.T) {
	s := setup(t)
	a, _ := integrate.LookupAgent("claude-code")
	prog := filepath.Join(t.TempDir(), "session-handoff")
	text, _, err := integrate.Insert(nil, a.Hooks(prog))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.Project, ".claude", "settings.local.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	c := find(t, Run(context.Background(), s), "hooks:claude-code")
	if c.Status != Fail || !strings.Contains(c.Detail, prog) || !strings.Contains(c.Fix, "integrate claude-code") {
		t.Errorf("hooks with a missing program: %+v", c)
	}
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c = find(t, Run(context.Background(), s), "hooks:claude-code")
	if c.Status != OK || !strings.Contains(c.Detail, "settings.local.json") {
		t.Errorf("hooks with the program there: %+v", c)
	}
}

// TestCodexHooksMustBeTrusted: Codex runs a hook only once the user has
// trusted it (its hash under [hooks.state] in config.toml), and skips an
// untrusted one without a word; doctor says so, and what to do.
func TestCodexHooksMustBeTrusted(t *testing.T) {
	s := setup(t)
	hooksPath := filepath.Join(s.Env("HOME"), ".codex", "hooks.json")
	text := installHooks(t, "codex", hooksPath)
	c := find(t, Run(context.Background(), s), "hooks:codex")
	if c.Status != Warn || !strings.Contains(c.Detail, "not trusted") || !strings.Contains(c.Fix, "/hooks") {
		t.Fatalf("untrusted Codex hooks: %+v", c)
	}
	hooks, err := codex.Hooks(hooksPath, text)
	if err != nil {
		t.Fatal(err)
	}
	var cfg strings.Builder
	for _, h := range hooks {
		fmt.Fprintf(&cfg, "[hooks.state.%q]\ntrusted_hash = %q\n", h.Key, h.Hash)
	}
	if err := os.WriteFile(filepath.Join(s.Env("HOME"), ".codex", "config.toml"), []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := find(t, Run(context.Background(), s), "hooks:codex"); c.Status != OK {
		t.Fatalf("trusted Codex hooks: %+v", c)
	}
	// A changed hook needs trusting again.
	changed := strings.Replace(string(text), `"timeout":3`, `"timeout":2`, 1)
	if err := os.WriteFile(hooksPath, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := find(t, Run(context.Background(), s), "hooks:codex"); c.Status != Warn || !strings.Contains(c.Detail, "session-end") {
		t.Fatalf("a changed Codex hook: %+v", c)
	}
}

// TestMCPRegistrationMustResolve: an MCP registration runs its command
// without a shell, with the agent's PATH: a bare name works only where
// the agent has it on PATH (Gemini CLI 0.61 showed "Disconnected"), and a
// path that is gone never works.
func TestMCPRegistrationMustResolve(t *testing.T) {
	s := setup(t)
	path := filepath.Join(s.Project, ".mcp.json")
	if err := os.MkdirAll(s.Project, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(prog string) {
		t.Helper()
		reg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"session-handoff": integrate.NewMCPServer(prog, "claude-code")}})
		if err := os.WriteFile(path, reg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("session-handoff")
	if c := find(t, Run(context.Background(), s), "mcp:claude-code"); c.Status != Warn || !strings.Contains(c.Detail, "PATH") || !strings.Contains(c.Fix, "--mcp") {
		t.Errorf("a bare name: %+v", c)
	}
	prog := filepath.Join(t.TempDir(), "session-handoff")
	write(prog)
	if c := find(t, Run(context.Background(), s), "mcp:claude-code"); c.Status != Fail || !strings.Contains(c.Detail, prog) {
		t.Errorf("a missing program: %+v", c)
	}
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if c := find(t, Run(context.Background(), s), "mcp:claude-code"); c.Status != OK {
		t.Errorf("the program there: %+v", c)
	}
	// Codex: a table in config.toml.
	cfg := filepath.Join(s.Env("HOME"), ".codex", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[mcp_servers.session-handoff]\ncommand = \"/nowhere/session-handoff\"\nargs = [\"mcp\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := find(t, Run(context.Background(), s), "mcp:codex"); c.Status != Fail || !strings.Contains(c.Detail, "/nowhere/session-handoff") {
		t.Errorf("codex: %+v", c)
	}
	// Crush: an agent with MCP and no hooks is checked too.
	if err := os.WriteFile(filepath.Join(s.Project, "crush.json"), []byte(`{"mcp": {"session-handoff": {"type": "stdio", "command": "/nowhere/crush-mcp", "args": ["mcp"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := find(t, Run(context.Background(), s), "mcp:crush"); c.Status != Fail || !strings.Contains(c.Detail, "/nowhere/crush-mcp") {
		t.Errorf("crush: %+v", c)
	}
}

// TestGeminiProjectHooksNeedATrustedFolder: Gemini CLI ignores a
// project's .gemini/settings.json, hooks and all, in a folder it does not
// trust (folder trust is on by default).
func TestGeminiProjectHooksNeedATrustedFolder(t *testing.T) {
	s := setup(t)
	installHooks(t, "gemini", filepath.Join(s.Project, ".gemini", "settings.json"))
	c := find(t, Run(context.Background(), s), "hooks:gemini")
	if c.Status != Warn || !strings.Contains(c.Detail, "does not trust") || !strings.Contains(c.Fix, "trust") {
		t.Fatalf("project hooks in an untrusted folder: %+v", c)
	}
	rules := filepath.Join(s.Env("HOME"), ".gemini", "trustedFolders.json")
	if err := os.MkdirAll(filepath.Dir(rules), 0o755); err != nil {
		t.Fatal(err)
	}
	trust, _ := json.Marshal(map[string]string{filepath.Dir(s.Project): "TRUST_FOLDER"})
	if err := os.WriteFile(rules, trust, 0o600); err != nil {
		t.Fatal(err)
	}
	if c := find(t, Run(context.Background(), s), "hooks:gemini"); c.Status != OK {
		t.Fatalf("project hooks in a trusted folder: %+v", c)
	}
	trust, _ = json.Marshal(map[string]string{filepath.Dir(s.Project): "TRUST_FOLDER", s.Project: "DO_NOT_TRUST"})
	if err := os.WriteFile(rules, trust, 0o600); err != nil {
		t.Fatal(err)
	}
	if c := find(t, Run(context.Background(), s), "hooks:gemini"); c.Status != Warn {
		t.Fatalf("project hooks in a folder trusted by its parent's rule but distrusted by its own: %+v", c)
	}
}

// installHooks writes agent's hooks, running a program that exists, into
// the settings file at path, and returns the file's text.
func installHooks(t *testing.T, agent, path string) []byte {
	t.Helper()
	a, _ := integrate.LookupAgent(agent)
	prog := filepath.Join(t.TempDir(), "session-handoff")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	text, _, err := integrate.Insert(nil, a.Hooks(prog))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return text
}

// TestCopilotProjectHooksNeedATrustedFolder: GitHub Copilot CLI runs a
// repository's .github/hooks only in a folder its config.json trusts, as
// doctor warns for Gemini CLI and Codex.
func TestCopilotProjectHooksNeedATrustedFolder(t *testing.T) {
	s := setup(t)
	installHooks(t, "copilot", filepath.Join(s.Project, ".github", "hooks", "session-handoff.json"))
	c := find(t, Run(context.Background(), s), "hooks:copilot")
	if c.Status != Warn || !strings.Contains(c.Detail, "does not trust") || !strings.Contains(c.Fix, "trust the folder") {
		t.Fatalf("project hooks in an untrusted folder: %+v", c)
	}
	config := filepath.Join(s.Env("HOME"), ".copilot", "config.json")
	if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
		t.Fatal(err)
	}
	trust, _ := json.Marshal(map[string]any{"trusted_folders": []string{filepath.Dir(s.Project)}})
	if err := os.WriteFile(config, trust, 0o600); err != nil {
		t.Fatal(err)
	}
	if c := find(t, Run(context.Background(), s), "hooks:copilot"); c.Status != OK {
		t.Fatalf("project hooks in a trusted folder: %+v", c)
	}
	trust, _ = json.Marshal(map[string]any{"trustedFolders": []string{filepath.Join(s.Project, "sub")}})
	if err := os.WriteFile(config, trust, 0o600); err != nil {
		t.Fatal(err)
	}
	if c := find(t, Run(context.Background(), s), "hooks:copilot"); c.Status != Warn {
		t.Fatalf("project hooks where only a folder below is trusted: %+v", c)
	}
}
