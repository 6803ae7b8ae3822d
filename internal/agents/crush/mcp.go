package crush

// stdioEntry is our MCP server's entry in Crush's "mcp" (crush.json):
// {"type": "stdio", "command", "args"}; MCPConfig of
// internal/config/config.go in github.com/charmbracelet/crush v0.90.0,
// which starts no server whose type is missing.
func stdioEntry(command string, args []string) any {
	return struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}{"stdio", command, args}
}
