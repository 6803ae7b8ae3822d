package opencode

// LocalEntry is our MCP server's entry in OpenCode's "mcp" (opencode.json,
// and Kilo Code's kilo.json): {"type": "local", "command": [program,
// args…]} (https://opencode.ai/docs/mcp-servers/).
func LocalEntry(command string, args []string) any {
	return struct {
		Type    string   `json:"type"`
		Command []string `json:"command"`
	}{"local", append([]string{command}, args...)}
}
