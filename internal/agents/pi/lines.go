package pi

// pi's session file, line by line: the types are those of pi 0.73.1
// (@mariozechner/pi-coding-agent, dist/core/session-manager.d.ts and
// dist/core/messages.d.ts; @mariozechner/pi-ai dist/types.d.ts; the format
// is described in the package's docs/session-format.md). Each field is
// declared once; what the digest does not use is not decoded.

import "encoding/json"

// line is one line of a session file: the header ("session") or an entry
// of the session's tree.
type line struct {
	Type string `json:"type"`
	// Version is the header's format version: 1 (a list, no ids), 2 (a
	// tree), 3 (the hookMessage role renamed custom). A header without
	// one is version 1.
	Version int `json:"version"`
	// ID is the header's session id (a UUID), or the entry's own (8 hex
	// digits); ParentID the entry's parent, null for the first.
	ID       string  `json:"id"`
	ParentID *string `json:"parentId"`
	// Timestamp is an ISO time.
	Timestamp string `json:"timestamp"`
	// CWD is the header's working directory.
	CWD string `json:"cwd"`
	// ParentSession is the header's session file this one was forked or
	// cloned from.
	ParentSession string `json:"parentSession"`
	// Message is a "message" entry's message.
	Message *message `json:"message"`
	// Summary is a "compaction" or "branch_summary" entry's text.
	Summary string `json:"summary"`
	// Name is a "session_info" entry's session name ("" clears it).
	Name string `json:"name"`
	// Provider and ModelID are a "model_change" entry's model.
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
}

// message is an AgentMessage: user, assistant, toolResult, bashExecution,
// custom (hookMessage before version 3), branchSummary,
// compactionSummary.
type message struct {
	Role string `json:"role"`
	// Content is a string (user, custom) or a list of blocks.
	Content json.RawMessage `json:"content"`
	// An assistant message's model, outcome and usage.
	Provider     string `json:"provider"`
	Model        string `json:"model"`
	StopReason   string `json:"stopReason"`
	ErrorMessage string `json:"errorMessage"`
	Usage        *usage `json:"usage"`
	// A toolResult's call and outcome.
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	IsError    bool   `json:"isError"`
	// A bashExecution's (the user's own `!command`) command and outcome;
	// ExitCode is undefined when it did not exit.
	Command   string `json:"command"`
	ExitCode  *int   `json:"exitCode"`
	Cancelled bool   `json:"cancelled"`
	Output    string `json:"output"`
}

// usage is an assistant message's token use.
type usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
}

// block is one content block: text, thinking, image or toolCall.
type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
	// A toolCall's id, tool and arguments.
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Arguments arguments `json:"arguments"`
}

// arguments are the arguments of pi's built-in tools that the digest
// reads: bash's command; read's, write's and edit's path; edit's
// replacements: edits, a list (or the list as a JSON string, which some
// models send and pi parses), and before 0.63.2 one oldText at the top
// level (CHANGELOG 0.63.2; dist/core/tools/edit.js of 0.73.1,
// prepareEditArguments).
type arguments struct {
	Command string          `json:"command"`
	Path    string          `json:"path"`
	Edits   json.RawMessage `json:"edits"`
	OldText *string         `json:"oldText"`
}
