package capture

import (
	"github.com/session-handoff/session-handoff/internal/agents/claude"
	"github.com/session-handoff/session-handoff/internal/agents/codex"
	"github.com/session-handoff/session-handoff/internal/agents/copilot"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// The agents whose readers the tests of capture go through.
const (
	ClaudeCode = Agent(claude.Name)
	Codex      = Agent(codex.Name)
	Gemini     = transcript.Gemini
	Copilot    = Agent(copilot.Name)
)
