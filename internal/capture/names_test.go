package capture

import (
	"github.com/session-handoff/session-handoff/internal/agents/claude"
	"github.com/session-handoff/session-handoff/internal/agents/codex"
	"github.com/session-handoff/session-handoff/internal/agents/copilot"
	"github.com/session-handoff/session-handoff/internal/agents/gemini"
)

// The agents whose readers the tests of capture go through.
const (
	ClaudeCode = Agent(claude.Name)
	Codex      = Agent(codex.Name)
	Gemini     = Agent(gemini.Name)
	Copilot    = Agent(copilot.Name)
)
