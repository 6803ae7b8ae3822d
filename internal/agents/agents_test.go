package agents_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/integrate"
	"github.com/session-handoff/session-handoff/targets"
)

// spellings are the ways people write each agent; every command-facing
// parser must read each to the same agent (they drifted: claudecode
// worked for capture --from only, claude-cli nowhere).
var spellings = map[string][]string{
	agents.ClaudeCode: {"claude-code", "claude", "claudecode", "claude_code", " Claude-Code ", "CLAUDE"},
	agents.Codex:      {"codex", "codex-cli", "codex_cli", "Codex"},
	agents.Gemini:     {"gemini", "gemini-cli", "gemini_cli", "GEMINI-CLI"},
	agents.Copilot:    {"copilot", "github-copilot", "copilot-cli", "GitHub_Copilot"},
}

func TestEveryParserAgrees(t *testing.T) {
	for want, names := range spellings {
		for _, n := range names {
			a, err := agents.Lookup(n)
			if err != nil || a.Name != want {
				t.Errorf("agents.Lookup(%q) = %q, %v; want %s", n, a.Name, err, want)
			}
			c, err := capture.ParseAgent(n)
			if err != nil || string(c) != want {
				t.Errorf("capture.ParseAgent(%q) = %q, %v; want %s", n, c, err, want)
			}
			p, err := targets.Lookup(n)
			if err != nil || p.Name != want {
				t.Errorf("targets.Lookup(%q) = %q, %v; want %s", n, p.Name, err, want)
			}
			i, err := integrate.LookupAgent(n)
			if info, _ := agents.Find(want); !info.Hooks && !info.MCP {
				if err == nil || !strings.Contains(err.Error(), "no integration") {
					t.Errorf("integrate.LookupAgent(%q) = %q, %v; want no integration", n, i.Name, err)
				}
				continue
			}
			if err != nil || i.Name != want {
				t.Errorf("integrate.LookupAgent(%q) = %q, %v; want %s", n, i.Name, err, want)
			}
		}
	}
	for _, bad := range []string{"", "vim", "claude code", "claude-cli-x", "generic"} {
		if _, err := capture.ParseAgent(bad); err == nil {
			t.Errorf("capture.ParseAgent(%q) accepted", bad)
		}
		if _, err := integrate.LookupAgent(bad); err == nil {
			t.Errorf("integrate.LookupAgent(%q) accepted", bad)
		}
	}
}

// Every agent in the table is known to capture, has a target profile that
// takes its aliases and instruction file from the table and can start it,
// and integrate offers hooks exactly for the agents that run them.
func TestTableIsTheOneSource(t *testing.T) {
	if len(capture.Agents) != len(agents.All()) {
		t.Fatalf("capture knows %d agents, the table %d", len(capture.Agents), len(agents.All()))
	}
	starts := strings.Join(targets.StartNames(), ",")
	for i, a := range agents.All() {
		if string(capture.Agents[i]) != a.Name {
			t.Errorf("capture.Agents[%d] = %s, want %s", i, capture.Agents[i], a.Name)
		}
		p, err := targets.Lookup(a.Name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(p.Aliases, ",") != strings.Join(a.Aliases, ",") || p.InstructionFile != a.InstructionFile || p.Agent != a.Display {
			t.Errorf("target %s: aliases %v, file %s, agent %s; table %v, %s, %s", a.Name, p.Aliases, p.InstructionFile, p.Agent, a.Aliases, a.InstructionFile, a.Display)
		}
		if !p.Capture || p.Checked != a.Checked || a.Checked == "" {
			t.Errorf("target %s: capture %v, checked %q; table %q", a.Name, p.Capture, p.Checked, a.Checked)
		}
		st, err := p.StartCommand("/tmp/prompt.md", nil)
		switch {
		case a.StartArgs == nil:
			// An agent whose interactive mode takes no first message
			// (Crush) is not started: launch says so.
			if strings.Contains(","+starts+",", ","+a.Name+",") || err == nil {
				t.Errorf("%s takes no first message, yet starts %q, %v", a.Name, st.Program, err)
			}
		case !strings.Contains(starts, a.Name):
			t.Errorf("%s has no start command", a.Name)
		case err != nil || st.Program != a.Program:
			t.Errorf("%s starts %q, %v; want %s", a.Name, st.Program, err, a.Program)
		}
		ia, err := integrate.LookupAgent(a.Name)
		if !a.Hooks {
			// integrate installs no hooks for it (Crush's MCP
			// registration goes through agents.Lookup).
			if err == nil {
				t.Errorf("%s: integrate knows its hooks, but the table says it has none", a.Name)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if (len(ia.Events) > 0) != a.Hooks {
			t.Errorf("%s: integrate hooks %v, table %v", a.Name, ia.Events, a.Hooks)
		}
	}
}

// The agents' directories move with their environment variables and are
// found under home otherwise; capture's session roots are the table's.
func TestDirs(t *testing.T) {
	home := "/h"
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{agents.ClaudeCode, nil, []string{"/h/.claude/projects", "/h/.config/claude/projects"}},
		{agents.ClaudeCode, map[string]string{"CLAUDE_CONFIG_DIR": "/c"}, []string{"/c/projects"}},
		{agents.Codex, nil, []string{"/h/.codex/sessions"}},
		{agents.Codex, map[string]string{"CODEX_HOME": "/x"}, []string{"/x/sessions"}},
		{agents.Gemini, map[string]string{"GEMINI_CLI_HOME": "/g"}, []string{"/g/.gemini/tmp"}},
		{agents.Copilot, nil, []string{"/h/.copilot/session-state"}},
		{agents.Copilot, map[string]string{"XDG_STATE_HOME": "/s"}, []string{"/h/.copilot/session-state", "/s/.copilot/session-state"}},
		{agents.Copilot, map[string]string{"COPILOT_HOME": "/c", "XDG_STATE_HOME": "/s"}, []string{"/c/session-state"}},
	}
	for _, tc := range cases {
		a, _ := agents.Find(tc.name)
		got := a.SessionRoots(home, env(tc.env))
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s %v: roots %v, want %v", tc.name, tc.env, got, tc.want)
		}
		m := map[string]string{"HOME": home}
		for k, v := range tc.env {
			m[k] = v
		}
		c, err := capture.SessionRoots(capture.Agent(tc.name), env(m))
		if err != nil || strings.Join(c, ",") != strings.Join(tc.want, ",") {
			t.Errorf("capture.SessionRoots(%s) = %v, %v", tc.name, c, err)
		}
	}
	ia, _ := integrate.LookupAgent("gemini")
	if got := ia.SettingsPath("", home, true, env(map[string]string{"GEMINI_CLI_HOME": "/g"})); got != filepath.Join("/g", ".gemini", "settings.json") {
		t.Errorf("gemini user settings %s", got)
	}
}
