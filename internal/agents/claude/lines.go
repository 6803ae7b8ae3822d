package claude

import (
	"encoding/json"
	"strings"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// A Claude Code transcript is one JSON object per line. Conversation lines
// (user, assistant, system…) carry uuid and parentUuid; a rewind starts a
// new branch from an earlier message, so the main thread is the chain of
// parents from the newest leaf. Lines with isSidechain belong to
// subagents and isMeta lines are injected context; neither is the user's.

// line is one line of a transcript, as far as it is read: every type's
// fields in one struct, each type filling its own. Tool results keep
// their text; what Claude Code copies beside them (the file before an
// edit, the patch, the whole output again) is never built, nor are the
// old and new strings of edits and the contents of writes.
type line struct {
	Type              string `json:"type"`
	UUID              string `json:"uuid"`
	ParentUUID        string `json:"parentUuid"`
	LogicalParentUUID string `json:"logicalParentUuid"`
	SessionID         string `json:"sessionId"`
	AgentID           string `json:"agentId"`
	Timestamp         string `json:"timestamp"`
	CWD               string `json:"cwd"`
	GitBranch         string `json:"gitBranch"`
	Version           string `json:"version"`
	IsSidechain       bool   `json:"isSidechain"`
	IsMeta            bool   `json:"isMeta"`
	IsCompactSummary  bool   `json:"isCompactSummary"`
	RequestID         string `json:"requestId"`
	ToolDenialKind    string `json:"toolDenialKind"`

	// queue-operation: {operation, content, reason}
	Operation string `json:"operation"`
	Content   string `json:"content"`
	Reason    string `json:"reason"`
	// summary: {summary, leafUuid}; custom-title: {customTitle} (older:
	// title); ai-title: {aiTitle} (older: title)
	Summary     string `json:"summary"`
	LeafUUID    string `json:"leafUuid"`
	CustomTitle string `json:"customTitle"`
	AITitle     string `json:"aiTitle"`
	Title       string `json:"title"`
	// pr-link, relocated, worktree-state
	PRURL           string      `json:"prUrl"`
	PRNumber        json.Number `json:"prNumber"`
	PRRepository    string      `json:"prRepository"`
	RelocatedCWD    string      `json:"relocatedCwd"`
	WorktreeSession *struct {
		WorktreePath string `json:"worktreePath"`
	} `json:"worktreeSession"`
	// system (compact_boundary): the preserved segment of a partial
	// compaction.
	CompactMetadata *struct {
		PreservedSegment *struct {
			HeadUUID   string `json:"headUuid"`
			AnchorUUID string `json:"anchorUuid"`
		} `json:"preservedSegment"`
	} `json:"compactMetadata"`

	Attachment    *attachment    `json:"attachment"`
	Message       *message       `json:"message"`
	ToolUseResult *toolUseResult `json:"toolUseResult"`
}

// message is a user or assistant line's message: its content is a string
// or a list of blocks (content).
type message struct {
	ID      string                 `json:"id"`
	Content json.RawMessage        `json:"content"`
	Usage   map[string]json.Number `json:"usage"`
}

// block is one block of a message's content: text, tool_use
// ({id, name, input}) or tool_result ({tool_use_id, is_error, content}).
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     *toolInput      `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`

	// str is a list element that is a string, not a block.
	str    string
	isStr  bool
	object bool // the element is a JSON object
}

// toolInput holds the arguments of the tools read.
type toolInput struct {
	Command      string     `json:"command"`       // Bash
	FilePath     string     `json:"file_path"`     // Edit, MultiEdit, Write, Read
	NotebookPath string     `json:"notebook_path"` // NotebookEdit, NotebookRead
	Edits        []struct{} `json:"edits"`         // MultiEdit: counted
	Todos        []item     `json:"todos"`         // TodoWrite
	TaskID       string     `json:"taskId"`        // TaskUpdate
	Subject      string     `json:"subject"`
	Status       string     `json:"status"`
	Plan         string     `json:"plan"` // ExitPlanMode
}

// item is an item of a todo list ({content, status}) or a task list
// ({id, subject, status}).
type item struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	Status  string `json:"status"`
	Content string `json:"content"`
}

// toolUseResult is what Claude Code keeps of a tool's result beside the
// text the model got.
type toolUseResult struct {
	ExitCode         json.Number       `json:"exitCode"`
	Stderr           string            `json:"stderr"`
	Interrupted      bool              `json:"interrupted"`
	BackgroundTaskID string            `json:"backgroundTaskId"`
	NewTodos         []item            `json:"newTodos"`
	Task             *item             `json:"task"`  // TaskCreate
	Tasks            []item            `json:"tasks"` // TaskList
	Answers          map[string]string `json:"answers"`
	Questions        []struct {
		Question string `json:"question"`
	} `json:"questions"` // AskUserQuestion
	Plan string `json:"plan"` // ExitPlanMode
}

// attachment is an attachment line's attachment, as far as it is read:
// a queued prompt, or a task or todo list reminder.
type attachment struct {
	Type        string          `json:"type"`
	Prompt      json.RawMessage `json:"prompt"`
	CommandMode string          `json:"commandMode"`
	IsMeta      bool            `json:"isMeta"`
	Origin      *struct {
		Kind string `json:"kind"`
	} `json:"origin"`
	Content []item `json:"content"`
}

// content reads a message's content: its text when it is a string, else
// its blocks.
func (m *message) content() (text string, isText bool, blocks []block) {
	return parseContent(m.Content)
}

func parseContent(raw json.RawMessage) (text string, isText bool, blocks []block) {
	if len(raw) == 0 {
		return "", false, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if transcript.DecodeValue(raw, &s) == nil {
			return s, true, nil
		}
	case '[':
		var elems []json.RawMessage
		if transcript.DecodeValue(raw, &elems) != nil {
			return "", false, nil
		}
		blocks = make([]block, 0, len(elems))
		for _, e := range elems {
			var b block
			switch {
			case len(e) == 0:
			case e[0] == '"':
				b.isStr = transcript.DecodeValue(e, &b.str) == nil
			case e[0] == '{':
				b.object = transcript.Decode(e, &b) == nil
			}
			blocks = append(blocks, b)
		}
		return "", false, blocks
	}
	return "", false, nil
}

// contentText joins the text of a message content: a string, or a list of
// blocks with text, or one such block.
func contentText(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '{' {
		var b block
		if transcript.Decode(raw, &b) == nil {
			return b.Text
		}
		return ""
	}
	text, isText, blocks := parseContent(raw)
	if isText {
		return text
	}
	var parts []string
	for _, b := range blocks {
		switch {
		case b.isStr:
			parts = append(parts, b.str)
		case b.object && b.Text != "":
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
