package capture

import (
	"github.com/session-handoff/session-handoff/internal/agents/codex"
	"github.com/session-handoff/session-handoff/internal/agents/copilot"
	"github.com/session-handoff/session-handoff/internal/agents/gemini"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// The agents whose readers the tests of capture go through.
const (
	ClaudeCode = transcript.ClaudeCode
	Codex      = Agent(codex.Name)
	Gemini     = Agent(gemini.Name)
	Copilot    = Agent(copilot.Name)
)
