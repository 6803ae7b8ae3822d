package pi

// Reading a pi session file into a digest. pi 0.73.1 writes a session as
// an append-only tree (dist/core/session-manager.js): the header, then
// entries each naming its parent. Going back in the tree (/tree, /fork's
// navigation) starts a new branch from an earlier entry, and the old
// branch stays in the file. When pi opens the file again the session is
// the path from the last entry to the root (SessionManager._buildIndex,
// buildSessionContext): that path is what is read here, so the work of
// an abandoned branch is not the session's.

import (
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// reader reads one file.
type reader struct {
	lim transcript.Limits
	// version is the header's format version (1 when it names none).
	version int
	// header is set once the header is read; notPi when the first line
	// was something else.
	header, notPi bool
	// entries are the tree's entries in file order, each with what it
	// adds to the digest; byID finds the latest entry with an id.
	entries []entry
	byID    map[string]int
	// name is the session's name: the latest session_info's, in the
	// whole file as pi takes it (SessionManager.getSessionName).
	name string
}

// entry is one entry of the tree and what it adds to the digest, kept
// bounded until the session's path is known.
type entry struct {
	id, parent string
	hasParent  bool
	add        func(*session)
}

// session is the state of the digest being built along the path.
type session struct {
	b *transcript.Builder
	// calls maps a tool call id to the key its outcome is filed under:
	// pi's ids restart in each process (call_0001_0 in a continued
	// session again), so the key is the assistant entry's id and the
	// call's.
	calls map[string]string
	// bash holds the keys of the calls of the bash tool, whose outcome is
	// read from the result's text.
	bash map[string]bool
}

// read reads r, a session file.
func read(r io.Reader, lim transcript.Limits) (*transcript.Digest, error) {
	rd := &reader{lim: lim, version: 1, byID: map[string]int{}}
	b := transcript.NewBuilder()
	b.Observe(lim.Observe)
	d := b.Digest()
	err := transcript.EachLine(r, lim, &d.Stats, func(raw []byte) error {
		var l line
		if err := decode(raw, &l); err != nil {
			return err
		}
		return rd.line(b, &l)
	})
	if err != nil {
		return nil, err
	}
	if !rd.header || rd.notPi {
		return nil, errNotPi
	}
	s := &session{b: b, calls: map[string]string{}, bash: map[string]bool{}}
	for _, i := range rd.path() {
		rd.entries[i].add(s)
	}
	d.Title = rd.name
	return b.Finish(transcript.Agent(Name))
}

// errNotPi says a file is no pi session: its first line is no header.
var errNotPi = errors.New("not a pi session file: its first line is no session header")

// decode decodes a line (transcript.Decode: a field of another type than
// pi writes loses that field, not the line).
func decode(raw []byte, l *line) error {
	if err := transcript.Decode(raw, l); err != nil {
		return err
	}
	if l.Type == "" {
		return errors.New("no type")
	}
	return nil
}

// isTypeError says err is only a value of another type than the field's:
// encoding/json has filled every other field.
func isTypeError(err error) bool {
	var typeErr *json.UnmarshalTypeError
	return errors.As(err, &typeErr)
}

// line takes one decoded line. The first must be the header: pi takes a
// file whose first entry is none for no session (loadEntriesFromFile).
func (rd *reader) line(b *transcript.Builder, l *line) error {
	if rd.notPi {
		return errNotPi
	}
	if !rd.header {
		if l.Type != "session" || l.ID == "" {
			rd.notPi = true
			return errNotPi
		}
		rd.header = true
		if l.Version > 0 {
			rd.version = l.Version
		}
		d := b.Digest()
		d.Session.ID = l.ID
		b.SetCWD(l.CWD)
		if t, ok := transcript.ParseTime(l.Timestamp); ok {
			b.Time(t)
		}
		return nil
	}
	e := entry{id: l.ID, hasParent: l.ParentID != nil}
	if l.ParentID != nil {
		e.parent = *l.ParentID
	}
	t, timed := transcript.ParseTime(l.Timestamp)
	note := func(s *session) {
		if timed {
			s.b.Time(t)
		}
	}
	e.add = note
	switch l.Type {
	case "message":
		if l.Message != nil {
			// An entry of format 1 has no id: its place is its key.
			key := cmp.Or(l.ID, "#"+strconv.Itoa(len(rd.entries)))
			if add := rd.message(key, l.Message); add != nil {
				e.add = func(s *session) { note(s); add(s) }
			}
		}
	case "compaction":
		summary := transcript.ShortenMiddle(l.Summary, transcript.MaxCompaction)
		e.add = func(s *session) { note(s); s.b.Compaction(summary) }
	case "session_info":
		rd.name = transcript.ShortenHead(strings.TrimSpace(l.Name), transcript.MaxTitle)
	case "session":
		// A second header: pi reads only the first (a file is one
		// session); this one is no entry of its tree.
		b.Digest().Stats.UnknownType("session (a second header)")
		return nil
	case "model_change", "thinking_level_change", "label", "custom", "custom_message", "branch_summary":
		// Settings, bookmarks, extensions' state and messages (our own
		// briefing is a custom_message), and the summary of a branch
		// left: none is the session's work or the user's request.
	default:
		b.Digest().Stats.UnknownType(l.Type)
	}
	if l.ID != "" {
		rd.byID[l.ID] = len(rd.entries)
	}
	rd.entries = append(rd.entries, e)
	return nil
}

// path lists the entries on the session's path, root first: from the last
// entry back through the parents. Format version 1 had no tree: every
// entry, in order (pi migrates such a file on opening it).
func (rd *reader) path() []int {
	n := len(rd.entries)
	if n == 0 {
		return nil
	}
	if rd.version < 2 {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	on := make([]bool, n)
	var out []int
	for i := n - 1; ; {
		if on[i] {
			break // a cycle
		}
		on[i] = true
		out = append(out, i)
		e := rd.entries[i]
		j, ok := rd.byID[e.parent]
		if !e.hasParent || !ok {
			break
		}
		i = j
	}
	// Root first; file order is the tree's order, as every entry is
	// appended after its parent.
	for a, z := 0, len(out)-1; a < z; a, z = a+1, z-1 {
		out[a], out[z] = out[z], out[a]
	}
	return out
}

// message is what a message entry adds; nil for none.
func (rd *reader) message(entryID string, m *message) func(*session) {
	switch m.Role {
	case "user":
		text := transcript.ShortenMiddle(contentText(m.Content), transcript.MaxLastRequest)
		if strings.TrimSpace(text) == "" {
			return nil
		}
		return func(s *session) { s.b.Request(text) }
	case "assistant":
		return assistant(entryID, m)
	case "toolResult":
		return toolResult(m)
	case "bashExecution":
		return userBash(entryID, m)
	case "custom", "hookMessage", "branchSummary", "compactionSummary":
		// An extension's message (hookMessage before format 3), and the
		// summaries pi puts into the model's context: not requests.
		return nil
	}
	return nil
}

// assistant is what an assistant message adds: its text, its tool calls,
// its tokens, and a turn the user stopped.
func assistant(entryID string, m *message) func(*session) {
	var blocks []block
	if err := transcript.Unmarshal(m.Content, &blocks); err != nil && !isTypeError(err) {
		blocks = nil
	}
	type call struct {
		id, name, key, command, path string
		edits                        int
	}
	var text []string
	var calls []call
	for _, bl := range blocks {
		switch bl.Type {
		case "text":
			if t := strings.TrimSpace(bl.Text); t != "" {
				text = append(text, t)
			}
		case "toolCall":
			a := bl.Arguments
			calls = append(calls, call{id: bl.ID, name: bl.Name, key: entryID + "/" + bl.ID,
				command: transcript.ShortenHead(a.Command, transcript.MaxCommandText),
				path:    transcript.ShortenHead(strings.TrimPrefix(a.Path, "@"), maxPath),
				edits:   a.edits()})
		}
	}
	msg := transcript.ShortenMiddle(strings.Join(text, "\n\n"), transcript.MaxAgentMessage)
	var tokens *handoff.Tokens
	if u := m.Usage; u != nil {
		tokens = &handoff.Tokens{Input: max(u.Input, 0), Output: max(u.Output, 0), CacheRead: max(u.CacheRead, 0), CacheWrite: max(u.CacheWrite, 0)}
	}
	aborted := m.StopReason == "aborted"
	return func(s *session) {
		if msg != "" {
			s.b.AgentMessage(entryID, msg)
		}
		for _, c := range calls {
			s.calls[c.id] = c.key
			switch c.name {
			case "bash":
				s.bash[c.key] = true
				s.b.Command(c.key, c.command)
			case "write":
				s.b.File(c.key, c.path, transcript.Write, 1)
			case "edit":
				s.b.File(c.key, c.path, transcript.Edit, c.edits)
			case "read":
				s.b.File(c.key, c.path, transcript.Read, 0)
			}
		}
		if tokens != nil {
			s.b.Tokens(entryID, *tokens)
		}
		if aborted {
			s.b.Cancel()
		}
	}
}

// maxPath bounds a path kept from a tool call.
const maxPath = 4 << 10

// edits counts an edit call's replacements: the edits list's length
// (also when sent as a JSON string), else one.
func (a arguments) edits() int {
	raw := a.Edits
	var s string
	if transcript.Unmarshal(raw, &s) == nil {
		raw = []byte(s)
	}
	var list []json.RawMessage
	if transcript.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return len(list)
	}
	return 1
}

// exitPrefix starts the line with which the bash tool ends the text of
// a command that exited otherwise than 0 (core/tools/bash.js of 0.73.1:
// "Command exited with code N"; "Command aborted" when stopped, "Command
// timed out after N seconds").
const exitPrefix = "Command exited with code "

// exitCode is the code in text's last line when it is the bash tool's
// exit line.
func exitCode(text string) (int, bool) {
	text = strings.TrimRight(text, " \t\r\n")
	i := strings.LastIndex(text, exitPrefix)
	if i < 0 || i > 0 && text[i-1] != '\n' {
		return 0, false
	}
	digits := text[i+len(exitPrefix):]
	if len(digits) > 10 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

// toolResult is what a tool's result adds: the outcome of its call.
func toolResult(m *message) func(*session) {
	text := contentText(m.Content)
	failed := m.IsError
	var exit *int
	if n, ok := exitCode(text); ok {
		exit = &n
	}
	tail := strings.TrimSpace(text)
	aborted := failed && strings.HasSuffix(tail, "Command aborted")
	out := transcript.ShortenMiddle(text, transcript.MaxFailureOutput)
	id := m.ToolCallID
	return func(s *session) {
		key, ok := s.calls[id]
		if !ok {
			key = id
		}
		switch {
		case s.bash[key] && aborted:
			s.b.Status(key, handoff.StatusInterrupted, out)
		case s.bash[key] && !failed && exit == nil:
			zero, kept := 0, "" // the output of a success is not kept
			if s.b.Observing() {
				kept = out
			}
			s.b.Outcome(key, &zero, false, kept)
		default:
			s.b.Outcome(key, exit, failed, out)
		}
	}
}

// userBash is what the user's own command (`!command` in pi's editor)
// adds: a command with its exit code.
func userBash(entryID string, m *message) func(*session) {
	cmd := transcript.ShortenHead(m.Command, transcript.MaxCommandText)
	if strings.TrimSpace(cmd) == "" {
		return nil
	}
	key := entryID + "/!"
	exit, cancelled := m.ExitCode, m.Cancelled
	out := transcript.ShortenMiddle(m.Output, transcript.MaxFailureOutput)
	return func(s *session) {
		s.b.Command(key, cmd)
		if cancelled {
			s.b.Status(key, handoff.StatusInterrupted, out)
			return
		}
		s.b.Outcome(key, exit, exit != nil && *exit != 0, out)
	}
}

// contentText is a message's text: the string, or its text blocks one
// after the other (images and thinking left out).
func contentText(raw json.RawMessage) string {
	var s string
	if transcript.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []block
	if err := transcript.Unmarshal(raw, &blocks); err != nil && !isTypeError(err) {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// readFile reads the session file at path within lim.
func readFile(path string, lim transcript.Limits) (*transcript.Digest, error) {
	return transcript.ReadOpen(path, lim, func(r *io.SectionReader) (*transcript.Digest, error) {
		return read(r, lim)
	})
}
