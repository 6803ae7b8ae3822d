package claude

import (
	"github.com/session-handoff/session-handoff/internal/agent"
)

// plugin is the Claude Code plugin integrate --plugin writes: our hooks
// and MCP server.
var plugin = &agent.Package{
	Flag: "plugin", Kind: "plugin",
	Dir:   func(dir, _ string) string { return dir },
	Files: pluginFiles,
	Next: func(dir string) string {
		return "load it with 'claude --plugin-dir " + dir + "', or add it to a plugin marketplace"
	},
}

// pluginFiles are the plugin's files, by path in its directory. The layout
// is the one https://code.claude.com/docs/en/plugins-reference documents:
// the manifest .claude-plugin/plugin.json (only "name" is required;
// kebab-case), hooks in hooks/hooks.json ({"hooks": {EVENT: [...]}}, the
// settings files' format), MCP servers in .mcp.json at the plugin's root
// ({"mcpServers": {...}}).
func pluginFiles(in agent.PackageInput) (map[string][]byte, error) {
	manifest, err := agent.IndentJSON(map[string]any{"name": in.Name, "version": in.Version, "description": in.Description,
		"homepage": "https://github.com/session-handoff/session-handoff", "license": "Apache-2.0"})
	if err != nil {
		return nil, err
	}
	servers, err := agent.IndentJSON(map[string]any{"mcpServers": map[string]any{in.Name: in.Server}})
	if err != nil {
		return nil, err
	}
	return map[string][]byte{".claude-plugin/plugin.json": manifest, "hooks/hooks.json": in.Hooks, ".mcp.json": servers}, nil
}
