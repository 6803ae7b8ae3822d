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

// entry is a line as the first pass reads it: enough to link the lines
// into threads, to gather what the session's metadata lines say, and to
// tell which lines have events and which only answer tool calls, without
// the text of tool results, tool inputs or todos. The second pass reads
// the thread's lines as line; discovery reads found.
type entry struct {
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
	Attachment *attachment `json:"attachment"`

	Message       *threadMessage `json:"message"`
	ToolUseResult *struct {
		NewTodos []struct{} `json:"newTodos"`
	} `json:"toolUseResult"`
}

// threadMessage is a message as the first pass reads it.
type threadMessage struct {
	Content []threadBlock   `json:"content"`
	Usage   json.RawMessage `json:"usage"`
}

// found is a line as discovery reads it: less than the first pass.
type found struct {
	Type             string         `json:"type"`
	SessionID        string         `json:"sessionId"`
	AgentID          string         `json:"agentId"`
	Timestamp        string         `json:"timestamp"`
	CWD              string         `json:"cwd"`
	Version          string         `json:"version"`
	IsSidechain      bool           `json:"isSidechain"`
	IsMeta           bool           `json:"isMeta"`
	IsCompactSummary bool           `json:"isCompactSummary"`
	Summary          string         `json:"summary"`
	CustomTitle      string         `json:"customTitle"`
	AITitle          string         `json:"aiTitle"`
	Message          *threadMessage `json:"message"`
}

// threadBlock is a block of a message's content as the first pass reads
// it.
type threadBlock struct {
	Type  string `json:"type"`
	Text  string `json:"text"`
	Name  string `json:"name"`
	Input *struct {
		Todos []struct{} `json:"todos"`
	} `json:"input"`
	plain
}

// line is a line of the main thread as the second pass reads it. A tool
// result's text is read only when wanted (resultText); what Claude Code
// copies beside it (the file before an edit, the patch, the whole output
// again) is never built, nor are the old and new strings of edits and
// the contents of writes.
type line struct {
	Type             string         `json:"type"`
	IsSidechain      bool           `json:"isSidechain"`
	IsMeta           bool           `json:"isMeta"`
	IsCompactSummary bool           `json:"isCompactSummary"`
	RequestID        string         `json:"requestId"`
	ToolDenialKind   string         `json:"toolDenialKind"`
	Attachment       *attachment    `json:"attachment"`
	Message          *message       `json:"message"`
	ToolUseResult    *toolUseResult `json:"toolUseResult"`
}

// message is a user or assistant line's message. Its content is a
// string or a list of blocks: decoded as blocks, a string reads as none
// (see content).
type message struct {
	ID      string                 `json:"id"`
	Content []block                `json:"content"`
	Usage   map[string]json.Number `json:"usage"`
}

// block is one block of a message's content: text, tool_use
// ({id, name, input}) or tool_result ({tool_use_id, is_error, content}).
type block struct {
	Type      string     `json:"type"`
	Text      string     `json:"text"`
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Input     *toolInput `json:"input"`
	ToolUseID string     `json:"tool_use_id"`
	IsError   bool       `json:"is_error"`
	// A tool_result's content, its text, is read only when it is wanted
	// (resultText).
	plain
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

// plain is a list element that is a string, not a block.
type plain struct {
	str   string
	isStr bool
}

func (p *plain) setStr(s string) { p.str, p.isStr = s, true }

func (b *threadBlock) kind() string { return b.Type }
func (b *block) kind() string       { return b.Type }

// blockPtr is a pointer to a kind of block.
type blockPtr[B any] interface {
	*B
	kind() string
	setStr(s string)
}

// rawMessage is a line's message as it is written, and rawContent its
// content.
type (
	rawMessage struct {
		Message json.RawMessage `json:"message"`
	}
	rawContent struct {
		Content json.RawMessage `json:"content"`
	}
)

// messageContent is the content of the message of the line raw as it is
// written; false when the message is no JSON object (a message of
// another type is none).
func messageContent(raw []byte) (json.RawMessage, bool) {
	var m rawMessage
	if transcript.Decode(raw, &m) != nil || len(m.Message) == 0 || m.Message[0] != '{' {
		return nil, false
	}
	var c rawContent
	if transcript.Decode(m.Message, &c) != nil {
		return nil, false
	}
	return c.Content, true
}

// textContent is a line's message content when it is a string.
type textContent struct {
	Message *struct {
		Content string `json:"content"`
	} `json:"message"`
}

// resultContents are the contents of the blocks of a line's message:
// the tool results' texts.
type resultContents struct {
	Message *struct {
		Content []struct {
			Content json.RawMessage `json:"content"`
		} `json:"content"`
	} `json:"message"`
}

// resultText is the text of the content of block i of the message of the
// line raw.
func resultText(raw []byte, i int) string {
	var rc resultContents
	if transcript.Decode(raw, &rc) != nil || rc.Message == nil || i >= len(rc.Message.Content) {
		return ""
	}
	return contentText(rc.Message.Content[i].Content)
}

// content is the content of the message of the line raw, decoded as
// blocks: its text when it is a string, else its blocks, with the
// elements of the list that are strings. Claude Code writes a list of
// typed blocks or a string; the line is read again for anything else.
// It is false when the message is no JSON object.
func content[B any, P blockPtr[B]](raw []byte, blocks []B) (text string, isText bool, out []B, ok bool) {
	typed := blocks != nil
	for i := range blocks {
		if P(&blocks[i]).kind() == "" {
			typed = false
			break
		}
	}
	if typed {
		return "", false, blocks, true
	}
	if blocks == nil {
		// Most often a string: read it as one; "" may be another value.
		var tc textContent
		if transcript.Decode(raw, &tc) == nil && tc.Message != nil && tc.Message.Content != "" {
			return tc.Message.Content, true, nil, true
		}
	}
	c, ok := messageContent(raw)
	if !ok || len(c) == 0 {
		return "", false, nil, ok
	}
	switch c[0] {
	case '"':
		var s string
		if transcript.DecodeValue(c, &s) == nil {
			return s, true, nil, true
		}
	case '[':
		var elems []json.RawMessage
		if transcript.DecodeValue(c, &elems) != nil {
			return "", false, nil, true
		}
		out = make([]B, len(elems))
		for i, e := range elems {
			switch {
			case len(e) == 0:
			case e[0] == '"':
				var s string
				if transcript.DecodeValue(e, &s) == nil {
					P(&out[i]).setStr(s)
				}
			case e[0] == '{':
				_ = transcript.Decode(e, &out[i])
			}
		}
		return "", false, out, true
	}
	return "", false, nil, true
}

// textPart is an element of a text content.
type textPart struct {
	Text string `json:"text"`
}

// contentText joins the text of a content: a string, or a list of
// strings and blocks with text, or one such block.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		_ = transcript.DecodeValue(raw, &s)
		return s
	case '{':
		var p textPart
		_ = transcript.Decode(raw, &p)
		return p.Text
	case '[':
		var parts []textPart
		if transcript.DecodeValue(raw, &parts) != nil {
			return ""
		}
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			if p.Text == "" {
				return listText(raw) // a string, or a block without text
			}
			texts = append(texts, p.Text)
		}
		return strings.Join(texts, "\n")
	}
	return ""
}

// listText joins the strings of a list and the text of its blocks.
func listText(raw json.RawMessage) string {
	var elems []json.RawMessage
	if transcript.DecodeValue(raw, &elems) != nil {
		return ""
	}
	var texts []string
	for _, e := range elems {
		switch {
		case len(e) == 0:
		case e[0] == '"':
			var s string
			if transcript.DecodeValue(e, &s) == nil {
				texts = append(texts, s)
			}
		case e[0] == '{':
			var p textPart
			if transcript.Decode(e, &p) == nil && p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
	}
	return strings.Join(texts, "\n")
}
