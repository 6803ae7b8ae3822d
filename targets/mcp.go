package targets

import (
	"github.com/session-handoff/session-handoff/internal/agent"
)

// MCPRegistration says where an agent registers MCP servers, and how
// 'session-handoff integrate AGENT --mcp' registers ours there.
type MCPRegistration = agent.MCPRegistration
