// Package targets holds one profile per AI coding agent: the instruction
// files it reads by itself, how to hand it a prompt without putting a long
// text on its command line, the limits it puts on what it reads, and the
// render style it gets. It also writes a rendered handoff into an
// instruction file as a marked, replaceable block.
package targets

import (
	"fmt"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/render"
)

// Profile describes one agent.
type Profile struct {
	// Name is the target's id on the command line.
	Name string `json:"name"`
	// Agent is the agent's name as people write it.
	Agent string `json:"agent"`
	// Aliases are other names accepted for the target; an agent's come
	// from the agents table (internal/agents), as its name does.
	Aliases []string `json:"aliases,omitempty"`
	// Reads lists what the agent reads by itself at start-up, most
	// specific first, in the agent's own words where it has them.
	Reads []string `json:"reads"`
	// InstructionFile is the instruction file the project shares with
	// its team, where render --as instructions --write --shared puts the
	// handoff block (and --write, when the agent has no PersonalFile),
	// relative to the project root.
	InstructionFile string `json:"instruction_file"`
	// Header starts the instruction file when we create it (Cursor's rule
	// frontmatter); empty for plain Markdown files.
	Header string `json:"header,omitempty"`
	// PersonalFile is a file in the project the agent reads at every
	// start that is the user's own, not shared with the team: where
	// render --write puts the handoff, which is personal state. Empty
	// when the agent has none (a user-wide file would brief every
	// project with this one's handoff).
	PersonalFile string `json:"personal_file,omitempty"`
	// PersonalHeader starts the PersonalFile when we create it.
	PersonalHeader string `json:"personal_header,omitempty"`
	// MaxFileSize is the most of the instruction file the agent reads, in
	// bytes; 0 when it states no limit.
	MaxFileSize int `json:"max_file_size,omitempty"`
	// InstructionBudget is the default size of the block in the
	// instruction file, in bytes; an instruction file is read at every
	// start, so it is kept short.
	InstructionBudget int `json:"instruction_budget"`
	// Launch lists ways to start the agent with a prompt file; FILE stands
	// for the rendered prompt. None passes the prompt as one argument,
	// which the kernel caps (128 KiB per argument on Linux).
	Launch []Launch `json:"launch"`
	// Style is how the handoff is written for this agent.
	Style render.Style `json:"-"`
	// Notes are facts a user should know, one sentence each.
	Notes []string `json:"notes,omitempty"`
	// MCP says where the agent registers MCP servers; nil for an agent
	// integrate does not register the server with.
	MCP *MCPRegistration `json:"mcp,omitempty"`
	// Capture and Checked come from the agents table: capture reads the
	// agent's transcripts; the agent's version last checked.
	Capture bool   `json:"capture"`
	Checked string `json:"version_checked,omitempty"`
}

// Launch is one way to start the agent with a handoff.
type Launch struct {
	// How says when to use it.
	How string `json:"how"`
	// Command is a shell command line, with FILE for the prompt file.
	Command string `json:"command"`
}

// checkGuidance points at no section by name: the checks section is left
// out when the handoff records none, or when a budget drops it.
const checkGuidance = "Before you call a step done, run the project's own build and tests and read what they print."

// profiles are the targets, generic first.
var profiles = []Profile{
	{
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
		Style: render.Style{Guidance: []string{"Work through the next steps in order. " + checkGuidance}},
		Notes: []string{"AGENTS.md is capped at 32 KiB because Codex reads no more; the block is sized to fit."},
	},
	{
		Name:  agents.ClaudeCode,
		Agent: "Claude Code",
		Reads: []string{"CLAUDE.md and .claude/CLAUDE.md in the project and its parent directories",
			"CLAUDE.local.md (personal, not committed)", "~/.claude/CLAUDE.md (every project)",
			"@path imports inside those files (up to five hops)"},
		InstructionFile: "CLAUDE.md",
		// CLAUDE.local.md: "personal project-specific preferences", read
		// beside CLAUDE.md and not committed
		// (https://code.claude.com/docs/en/memory).
		PersonalFile:      "CLAUDE.local.md",
		InstructionBudget: 24 << 10,
		Launch: []Launch{
			{How: "interactive, briefed: session-handoff writes the prompt to a private file and starts the agent on it", Command: "session-handoff launch --target claude-code"},
			{How: "one-shot (print mode), prompt on stdin", Command: `claude -p "Continue the work in the handoff on stdin." < FILE`},
			{How: "interactive: write the block into CLAUDE.local.md, then start", Command: "session-handoff render --as instructions --target claude-code --write && claude"},
		},
		// No tool named: Claude Code 2.1.328 offers no task-list tool in
		// print mode (-p), where the e2e suite runs it.
		Style: render.Style{Agent: "Claude Code", Guidance: []string{
			"If you keep a task list, put the next steps in it before you start, and mark each done as you finish it. " + checkGuidance}},
		Notes: []string{"Claude Code warns when CLAUDE.md grows large; the block is kept to about 6,000 tokens by default.",
			"render --write puts the handoff in CLAUDE.local.md, which is yours; --shared in CLAUDE.md, which the team shares."},
	},
	{
		Name:  agents.Codex,
		Agent: "Codex CLI",
		Reads: []string{"~/.codex/AGENTS.md (or AGENTS.override.md), whole",
			"AGENTS.md (or AGENTS.override.md) in each directory from the git root down to the working directory, joined",
			"at most project_doc_max_bytes of those project files together (32 KiB by default)"},
		InstructionFile:   "AGENTS.md",
		MaxFileSize:       32 << 10,
		InstructionBudget: 16 << 10,
		Launch: []Launch{
			{How: "interactive, briefed: session-handoff writes the prompt to a private file and starts the agent on it", Command: "session-handoff launch --target codex"},
			{How: "one-shot, prompt on stdin (the - argument)", Command: "codex exec - < FILE"},
			{How: "interactive: write the block into AGENTS.md, then start", Command: "session-handoff render --as instructions --target codex --write && codex"},
		},
		// No tool named: codex exec 0.169.0 offers no update_plan.
		Style: render.Style{Agent: "Codex CLI", Guidance: []string{
			"If you keep a plan, put the next steps in it before you start, and keep it current. " + checkGuidance}},
		Notes: []string{"Codex reads at most project_doc_max_bytes (32 KiB by default) of the AGENTS.md files from the git root down; the block is sized so that the root file stays under it, with the limit taken from .codex/config.toml or ~/.codex/config.toml when set.",
			"Where AGENTS.override.md exists at the root, Codex reads it instead of AGENTS.md, and the block goes there.",
			"Codex has no personal project file: AGENTS.override.md would hide AGENTS.md and ~/.codex/AGENTS.md briefs every project, so the block goes into AGENTS.md; keep it out of commits, or render a prompt instead."},
	},
	{
		Name:  agents.Gemini,
		Agent: "Gemini CLI",
		Reads: []string{"GEMINI.md in the project, its parent directories and the directories below (or the names set in context.fileName)",
			"~/.gemini/GEMINI.md (every project)", "@file.md imports inside those files"},
		InstructionFile:   "GEMINI.md",
		InstructionBudget: 24 << 10,
		Launch: []Launch{
			{How: "interactive, briefed: session-handoff writes the prompt to a private file and starts the agent on it", Command: "session-handoff launch --target gemini"},
			{How: "one-shot: -p is appended to what arrives on stdin", Command: `gemini -p "Continue the work in the handoff above." < FILE`},
			{How: "interactive: write the block into GEMINI.md, then start", Command: "session-handoff render --as instructions --target gemini --write && gemini"},
		},
		Style: render.Style{Agent: "Gemini CLI", Guidance: []string{
			"Put the next steps in your todo list (write_todos) before you start, and keep it current. " + checkGuidance}},
		Notes: []string{"Gemini CLI's only personal file, ~/.gemini/GEMINI.md, is read in every project, so the block goes into the project's GEMINI.md; keep it out of commits, or render a prompt instead."},
	},
	{
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
		Style: render.Style{Agent: "Cursor", Guidance: []string{"Work through the next steps in order. " + checkGuidance}},
		Notes: []string{"The rule is written with alwaysApply: true so every chat in the project sees it; remove it with --remove when the work is done."},
	},
	{
		Name:            agents.Copilot,
		Agent:           "GitHub Copilot CLI",
		Aliases:         []string{"github-copilot"},
		Reads:           []string{".github/copilot-instructions.md", ".github/instructions/**/*.instructions.md (frontmatter applyTo)", "AGENTS.md (also CLAUDE.md, GEMINI.md)"},
		InstructionFile: ".github/copilot-instructions.md",
		// A path-specific instructions file whose applyTo matches every
		// file applies to every request; it is a file of its own, so the
		// handoff stays out of the shared one
		// (https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-custom-instructions).
		PersonalFile:      ".github/instructions/handoff.instructions.md",
		PersonalHeader:    "---\napplyTo: \"**\"\n---\n",
		InstructionBudget: 16 << 10,
		Launch: []Launch{
			{How: "write the instructions, then start the agent with a short prompt", Command: `session-handoff render --as instructions --target copilot --write && copilot -p "Continue the work described in .github/instructions/handoff.instructions.md"`},
		},
		Style: render.Style{Agent: "GitHub Copilot", Guidance: []string{"Work through the next steps in order. " + checkGuidance}},
		Notes: []string{"GitHub asks for repository instructions of no more than about two pages; keep the budget small."},
	},
	{
		// Qwen Code 0.24.4 reads QWEN.md and AGENTS.md (context.fileName
		// changes the names) from the project and its parents, ~/.qwen,
		// <root>/.qwen/QWEN.local.md, and the rules in ~/.qwen/rules and
		// <root>/.qwen/rules (loadServerHierarchicalMemory, loadRules in
		// packages/core/src/utils/memoryDiscovery.ts and rules), the
		// project's only in a trusted folder.
		Name:  agents.QwenCode,
		Agent: "Qwen Code",
		Reads: []string{"QWEN.md and AGENTS.md in the project and its parent directories (or the names set in context.fileName)",
			".qwen/QWEN.local.md in the project (personal)", ".qwen/rules/*.md (frontmatter paths for conditional rules)",
			"~/.qwen/QWEN.md and ~/.qwen/rules (every project)", "@file.md imports inside those files"},
		InstructionFile:   "QWEN.md",
		PersonalFile:      ".qwen/QWEN.local.md",
		InstructionBudget: 24 << 10,
		Launch: []Launch{
			{How: "interactive, briefed: session-handoff writes the prompt to a private file and starts the agent on it", Command: "session-handoff launch --target qwen-code"},
			{How: "one-shot: the prompt is appended to what arrives on stdin", Command: `qwen "Continue the work in the handoff above." < FILE`},
			{How: "interactive: write the block into .qwen/QWEN.local.md, then start", Command: "session-handoff render --as instructions --target qwen-code --write && qwen"},
		},
		Style: render.Style{Agent: "Qwen Code", Guidance: []string{"Work through the next steps in order. " + checkGuidance}},
		Notes: []string{"Qwen Code reads a project's .qwen/QWEN.local.md and .qwen/rules only in a folder it trusts (when folder trust is on)."},
	},
}

// The profiles of the agents in the agents table take their aliases and
// instruction file from it, so that every command accepts the same names.
func init() {
	for i := range profiles {
		if a, ok := agents.Find(profiles[i].Name); ok && a.Name == profiles[i].Name {
			profiles[i].Aliases = append([]string(nil), a.Aliases...)
			profiles[i].InstructionFile = a.InstructionFile
			profiles[i].Agent = a.Display
			profiles[i].Capture, profiles[i].Checked = true, a.Checked
		}
	}
}

// All returns every profile, generic first.
func All() []Profile {
	out := make([]Profile, len(profiles))
	copy(out, profiles)
	return out
}

// Names lists the targets' names.
func Names() []string {
	out := make([]string, len(profiles))
	for i, p := range profiles {
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
	for _, p := range profiles {
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
