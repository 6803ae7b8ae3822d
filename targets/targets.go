// Package targets holds one profile per AI coding agent: the instruction
// files it reads by itself, how to hand it a prompt without putting a long
// text on its command line, the limits it puts on what it reads, and the
// render style it gets. It also writes a rendered handoff into an
// instruction file as a marked, replaceable block.
package targets

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/agents"
)

// Profile describes one target: an agent's, from its folder in the agents
// table (internal/agents), or one of the targets here that session-handoff
// cannot read sessions of (generic, Cursor).
type Profile struct {
	agent.Profile
}

// Launch is one way to start the agent with a handoff.
type Launch = agent.Launch

// profiles are the targets: generic, then the agents of the agents table
// (internal/agents: each keeps its profile in its folder), then the
// targets whose sessions session-handoff cannot read. Built on first use:
// every process pays for package-level work (cmd/session-handoff's
// TestInitAllocatesLittle), and each agent of the table adds a profile.
var profiles = sync.OnceValue(func() []Profile { return slices.Concat([]Profile{generic}, agentProfiles(), others) })

// generic is the target of any agent that reads AGENTS.md.
var generic = Profile{agent.Profile{
	Name:              "generic",
	Agent:             "an AI coding agent",
	Reads:             []string{"AGENTS.md (the cross-agent convention read by Codex, Cursor, Copilot and others)"},
	InstructionFile:   "AGENTS.md",
	MaxFileSize:       32 << 10,
	InstructionBudget: 16 << 10,
	Launch: []Launch{
		{How: "any agent that reads a prompt on standard input", Command: "AGENT < FILE"},
		{How: "an agent with a chat window", Command: "paste FILE, or ask it to read FILE"},
	},
	Style: agent.Style{Guidance: []string{"Work through the next steps in order. " + agent.CheckGuidance}},
	Notes: []string{"AGENTS.md is capped at 32 KiB because Codex reads no more; the block is sized to fit."},
}}

// others are the targets session-handoff reads no sessions of.
var others = []Profile{
	{agent.Profile{
		Name:  "cursor",
		Agent: "Cursor",
		Reads: []string{".cursor/rules/*.mdc (frontmatter: description, globs, alwaysApply)",
			"AGENTS.md in the project"},
		InstructionFile: ".cursor/rules/handoff.mdc",
		Header: "---\ndescription: Handoff from the previous coding session, written by session-handoff\n" +
			"globs:\nalwaysApply: true\n---\n",
		InstructionBudget: 16 << 10,
		Launch: []Launch{
			{How: "write the rule, then start the agent with a short prompt", Command: `session-handoff render --as instructions --target cursor --write && cursor-agent "Continue the work described in .cursor/rules/handoff.mdc"`},
		},
		Style: agent.Style{Agent: "Cursor", Guidance: []string{"Work through the next steps in order. " + agent.CheckGuidance}},
		Notes: []string{"The rule is written with alwaysApply: true so every chat in the project sees it; remove it with --remove when the work is done."},
	}},
}

// agentProfiles are the profiles of the agents in the agents table, in
// its order, with the names, aliases and instruction file it gives them,
// so that every command accepts the same names.
func agentProfiles() []Profile {
	all := agents.All()
	out := make([]Profile, 0, len(all)) // made at init: no growth
	for _, a := range all {
		p := a.Profile
		p.Name, p.Agent, p.Aliases = a.Name, a.Display, slices.Clone(a.Aliases)
		p.InstructionFile = a.InstructionFile
		p.Capture, p.Checked = a.Transcripts != nil, a.Checked
		out = append(out, Profile{p})
	}
	return out
}

// All returns every profile, generic first.
func All() []Profile {
	out := make([]Profile, len(profiles()))
	copy(out, profiles())
	return out
}

// Names lists the targets' names.
func Names() []string {
	out := make([]string, len(profiles()))
	for i, p := range profiles() {
		out[i] = p.Name
	}
	return out
}

// Lookup finds a profile by name or alias; "" is generic.
func Lookup(name string) (Profile, error) {
	n := agents.Normal(name)
	if n == "" {
		n = "generic"
	}
	if a, ok := agents.Find(n); ok {
		n = a.Name
	}
	for _, p := range profiles() {
		if p.Name == n {
			return p, nil
		}
		for _, a := range p.Aliases {
			if a == n {
				return p, nil
			}
		}
	}
	return Profile{}, fmt.Errorf("unknown target %q: want one of %s", handoff.Shorten(handoff.CleanText(name), 32), strings.Join(Names(), ", "))
}
