package targets

import "github.com/session-handoff/session-handoff/internal/agents"

// MCPRegistration says where an agent registers MCP servers, and how
// 'session-handoff integrate AGENT --mcp' registers ours there (the
// server is 'session-handoff mcp --agent AGENT', over stdio).
type MCPRegistration struct {
	// ProjectFile is the file in the project, relative to its root.
	ProjectFile string `json:"project_file"`
	// UserFile is the user's own file, as people write its path.
	UserFile string `json:"user_file"`
	// Format is "json" (servers are members of the object Key at the top
	// of the file) or "toml" (each server is a table Key.NAME).
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
}

// mcpRegistrations are the agents with MCP support that integrate knows,
// checked against each agent's documentation (Docs) in November 2026.
var mcpRegistrations = map[string]*MCPRegistration{
	// Project scope is .mcp.json at the root, {"mcpServers": {NAME:
	// {"command", "args", "env"}}}; user scope lives in ~/.claude.json and
	// is written by 'claude mcp add --scope user NAME -- COMMAND ARGS'.
	agents.ClaudeCode: {ProjectFile: ".mcp.json", UserFile: "~/.claude.json", Format: "json", Key: "mcpServers",
		Register:     "session-handoff integrate claude-code --mcp",
		RegisterUser: "claude mcp add --scope user session-handoff -- session-handoff mcp --agent claude-code",
		Docs:         "https://code.claude.com/docs/en/mcp (installation scopes)"},
	// [mcp_servers.NAME] with command and args, in $CODEX_HOME/config.toml
	// or, for a project Codex trusts, .codex/config.toml (older Codex
	// versions read only the user's file).
	agents.Codex: {ProjectFile: ".codex/config.toml", UserFile: "~/.codex/config.toml", Format: "toml", Key: "mcp_servers",
		Register: "session-handoff integrate codex --mcp",
		Docs:     "https://developers.openai.com/codex/config-reference (mcp_servers), https://developers.openai.com/codex/mcp"},
	// "mcpServers": {NAME: {"command", "args"}} in settings.json, the
	// project's .gemini/settings.json or ~/.gemini/settings.json.
	agents.Gemini: {ProjectFile: ".gemini/settings.json", UserFile: "~/.gemini/settings.json", Format: "json", Key: "mcpServers",
		Register: "session-handoff integrate gemini --mcp",
		Docs:     "https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md"},
	// GitHub Copilot CLI 1.0.102 ('copilot mcp --help'): user servers in
	// ~/.copilot/mcp-config.json ($COPILOT_HOME), workspace servers in
	// .mcp.json or .github/mcp.json, {"mcpServers": {NAME: {"command",
	// "args"}}} (type local by default). .github/mcp.json, not .mcp.json,
	// which Claude Code's registration names itself in. A workspace's
	// servers load in a folder the user trusts; in prompt mode (-p) with
	// GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP=true too. Checked offline:
	// the tools reached the model as session-handoff-handoff_list….
	agents.Copilot: {ProjectFile: ".github/mcp.json", UserFile: "~/.copilot/mcp-config.json", Format: "json", Key: "mcpServers",
		Register: "session-handoff integrate copilot --mcp",
		Docs:     "copilot mcp --help (@github/copilot 1.0.102)"},
	// Qwen Code 0.24.4: "mcpServers": {NAME: {"command", "args"}} in
	// settings.json, the project's .qwen/settings.json or the user's
	// (~/.qwen, $QWEN_HOME). A project's server waits for the user's
	// 'qwen mcp approve NAME', bound to a hash of its configuration
	// (~/.qwen/mcpApprovals.json). Its tools are deferred: the model
	// finds them with tool_search, as mcp__session-handoff__TOOL.
	agents.QwenCode: {ProjectFile: ".qwen/settings.json", UserFile: "~/.qwen/settings.json", Format: "json", Key: "mcpServers",
		Register: "session-handoff integrate qwen-code --mcp && qwen mcp approve session-handoff",
		Docs:     "qwen mcp --help (@qwen-code/qwen-code 0.24.4)"},
}

func init() {
	for i := range profiles {
		profiles[i].MCP = mcpRegistrations[profiles[i].Name]
	}
}
