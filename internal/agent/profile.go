package agent

// Profile is a render target: the files an agent reads by itself, how to
// hand it a prompt, the limits it puts on what it reads, and the render
// style it gets (the public targets package shows it as targets.Profile).
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
	Style Style `json:"-"`
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

// MCPRegistration says where an agent registers MCP servers, and how
// 'session-handoff integrate AGENT --mcp' registers ours there (the
// server is 'session-handoff mcp --agent AGENT', over stdio).
type MCPRegistration struct {
	// ProjectFile is the file in the project, relative to its root.
	ProjectFile string `json:"project_file"`
	// UserFile is the user's own file, as people write its path.
	UserFile string `json:"user_file"`
	// Format is "json" (servers are members of the object Key at the top
	// of the file, each as Entry makes it) or "toml" (each server is a
	// table Key.NAME, {command, args}).
	Format string `json:"format"`
	Key    string `json:"key"`
	// Register is the command that registers the server in the project.
	Register string `json:"register"`
	// RegisterUser registers it for every project, when that is not an
	// edit we make ourselves (Claude Code keeps user servers in
	// ~/.claude.json, a file it rewrites).
	RegisterUser string `json:"register_user,omitempty"`
	// Docs is where the agent documents this, as checked.
	Docs string `json:"docs"`
	// Entry is the JSON value of our server's entry, given its program
	// and arguments; nil for {"command", "args"}.
	Entry func(command string, args []string) any `json:"-"`
	// ProjectNote is what integrate says after it registers the server
	// in the project's file; "" when nothing needs saying.
	ProjectNote string `json:"-"`
}

// CheckGuidance points at no section by name: the checks section is left
// out when the handoff records none, or when a budget drops it.
const CheckGuidance = "Before you call a step done, run the project's own build and tests and read what they print."

// Style is how one agent likes its handoff written. Package targets keeps
// one per agent.
type Style struct {
	// Agent is the agent's name as people write it ("Claude Code").
	Agent string
	// Guidance is our own advice for this agent, one sentence each: which
	// of its tools keeps a task list, how it should check its work.
	Guidance []string
}
