// Package agents is the one table of the AI coding agents session-handoff
// knows by name: one line per agent, each the entry its folder
// (internal/agents/<name>) returns (internal/agent says what an entry
// holds: names and aliases, the program that starts it, where it keeps its
// own files and transcripts, the instruction file it reads, whether it
// runs session hooks, and its transcript reader). Every command-facing
// parser of an agent's name (capture --from, sessions, render/launch
// --target, integrate, hook, handover steps) goes through Lookup, so that
// an alias accepted by one is accepted by all; every list of agents in
// help, usage errors and schema enumerations derives from it.
//
// The public targets package (render profiles and start commands) imports
// it; it must not import internal/capture (worktree capture: git),
// which internal/archtest holds it to.
package agents

// What the repository says of each agent outside its folder comes from
// the table (README.md's row, the end-to-end pin, the render goldens):
//go:generate go run ./gen -root ../..
//go:generate go test ../../render -run ^TestGoldenPerTarget$ -update

import (
	"fmt"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/agents/claude"
	"github.com/session-handoff/session-handoff/internal/agents/cline"
	"github.com/session-handoff/session-handoff/internal/agents/codex"
	"github.com/session-handoff/session-handoff/internal/agents/copilot"
	"github.com/session-handoff/session-handoff/internal/agents/crush"
	"github.com/session-handoff/session-handoff/internal/agents/gemini"
	"github.com/session-handoff/session-handoff/internal/agents/kilo"
	"github.com/session-handoff/session-handoff/internal/agents/opencode"
	"github.com/session-handoff/session-handoff/internal/agents/pi"
	"github.com/session-handoff/session-handoff/internal/agents/qwen"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Agent describes one coding agent (internal/agent).
type Agent = agent.Agent

// The agents' names.
const (
	ClaudeCode = claude.Name
	Codex      = codex.Name
	Gemini     = gemini.Name
	Copilot    = copilot.Name
	Pi         = pi.Name
)

var table = []Agent{
	claude.Agent(),
	codex.Agent(),
	gemini.Agent(),
	copilot.Agent(),
	opencode.Agent(),
	cline.Agent(),
	pi.Agent(),
	qwen.Agent(),
	kilo.Agent(),
	crush.Agent(),
}

// All returns every agent, in a fixed order.
func All() []Agent {
	out := make([]Agent, len(table))
	copy(out, table)
	return out
}

// Names lists the agents' names.
func Names() []string {
	out := make([]string, len(table))
	for i, a := range table {
		out[i] = a.Name
	}
	return out
}

// HookNames lists the agents that run session hooks.
func HookNames() []string { return namesWhere(func(a Agent) bool { return a.Hooks }) }

// MCPNames lists the agents integrate --mcp registers the server with.
func MCPNames() []string { return namesWhere(func(a Agent) bool { return a.MCP }) }

func namesWhere(keep func(Agent) bool) []string {
	var out []string
	for _, a := range table {
		if keep(a) {
			out = append(out, a.Name)
		}
	}
	return out
}

// PinVar is the variable of internal/e2e/versions.env that pins the
// version of the agent named name that the end-to-end suite installs: the
// name in upper case, '-' written '_', then _VERSION (CODEX_VERSION). It
// is the agent's Checked (TestEndToEndPinsAreTheTables).
func PinVar(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + "_VERSION"
}

// Choices writes names and then extra as a usage line writes choices:
// "claude-code|codex|all".
func Choices(names []string, extra ...string) string {
	return strings.Join(append(append([]string(nil), names...), extra...), "|")
}

// OrList writes names as a sentence lists them: "a, b or c".
func OrList(names ...string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// IsSettingsFile says whether rel, a path relative to a project's root
// in git's form, is one of an agent's SettingsFiles: a change to it is
// the agent's or integrate's, not the user's work.
func IsSettingsFile(rel string) bool {
	rel = strings.TrimPrefix(rel, "./")
	for _, a := range table {
		for _, f := range a.SettingsFiles {
			if rel == f {
				return true
			}
		}
	}
	return false
}

// Reasoning is every agent's Reasoning in one: an attached transcript is
// copied without any of it, whichever agent wrote it, so that a file
// recognised as one agent's but holding another's lines (or a provider's
// raw messages) keeps no reasoning either. A name one agent uses for
// reasoning is used by no agent for anything its reader keeps
// (TestReaderReadsItsCopyWithoutReasoning).
func Reasoning() transcript.Reasoning {
	var r transcript.Reasoning
	for _, a := range table {
		r = r.Join(a.Reasoning)
	}
	return r
}

// Normal is the form names are compared in: trimmed, lower case, with '_'
// read as '-'.
func Normal(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
}

// Find returns the agent named name or one of its aliases.
func Find(name string) (Agent, bool) {
	n := Normal(name)
	for _, a := range table {
		if a.Name == n {
			return a, true
		}
		for _, al := range a.Aliases {
			if al == n {
				return a, true
			}
		}
	}
	return Agent{}, false
}

// Lookup is Find with an error that quotes name cleaned and shortened (it
// may be hostile) and lists the agents' names.
func Lookup(name string) (Agent, error) {
	if a, ok := Find(name); ok {
		return a, nil
	}
	return Agent{}, fmt.Errorf("unknown agent %q: want one of %s", handoff.Shorten(handoff.CleanText(name), 40), strings.Join(Names(), ", "))
}
