package cline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// A session of Cline CLI 3.0.65 is a folder, <sessions>/<id>/, holding
// (@cline/core 0.0.86, session/services/persistence-service.ts and
// session/models/session-manifest.ts):
//
//   - <id>.messages.json: ONE JSON object (not JSON Lines): version,
//     updated_at, agent, sessionId, origin {source, mode, sessionId,
//     version: the CLI's version}, messages (the conversation as
//     Anthropic-style content blocks), system_prompt;
//   - <id>.json: the manifest: session_id, status (running, completed,
//     cancelled, failed…), cwd, workspace_root, started_at, ended_at,
//     prompt, metadata {title, sessionHistoryOrigin {version}, usage};
//   - <id>.compaction.json, once it compacted: the messages that replace
//     the first source_message_count, the first of them the summary
//     (metadata.kind "compaction_summary", metadata.summary).
//
// A message is {id, role, content, ts (ms since the epoch), metadata,
// modelInfo, metrics {inputTokens, outputTokens, cacheReadTokens,
// cacheWriteTokens}}; content is a string or blocks: text, thinking,
// redacted_thinking, image, file, media, tool_use {id, name, input} and
// tool_result {tool_use_id, name, content, is_error}.

// Suffixes of the files in a session folder.
const (
	messagesSuffix   = ".messages.json"
	compactionSuffix = ".compaction.json"
)

// maxSide bounds the manifest and the compaction file read beside a
// session's messages: both are small (a few kilobytes).
const maxSide = 4 << 20

// message is one message of the conversation.
type message struct {
	ID       string          `json:"id"`
	Role     string          `json:"role"`
	Content  json.RawMessage `json:"content"`
	TS       int64           `json:"ts"`
	Metadata struct {
		DisplayRole string `json:"displayRole"`
		Kind        string `json:"kind"`
		Summary     string `json:"summary"`
		// UserRunSpan marks the messages Cline adds to a run itself
		// (the "[SYSTEM] This run is not complete…" reminder).
		UserRunSpan *int `json:"userRunSpan"`
	} `json:"metadata"`
	Metrics *struct {
		InputTokens      int64 `json:"inputTokens"`
		OutputTokens     int64 `json:"outputTokens"`
		CacheReadTokens  int64 `json:"cacheReadTokens"`
		CacheWriteTokens int64 `json:"cacheWriteTokens"`
	} `json:"metrics"`
}

// block is one content block.
type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
	// tool_use
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	// tool_result
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// toolOutput is one entry of a built-in tool's result: run_commands and
// read_files give one per command or file, editor one, as a JSON string.
type toolOutput struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Query   string          `json:"query"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Success *bool           `json:"success"`
}

// manifest is <id>.json.
type manifest struct {
	SessionID string `json:"session_id"`
	Status    string `json:"status"`
	CWD       string `json:"cwd"`
	Started   string `json:"started_at"`
	Ended     string `json:"ended_at"`
	Prompt    string `json:"prompt"`
	Metadata  struct {
		Title  string `json:"title"`
		Origin struct {
			Version string `json:"version"`
		} `json:"sessionHistoryOrigin"`
	} `json:"metadata"`
}

// compactionFile is <id>.compaction.json.
type compactionFile struct {
	SourceMessageCount int       `json:"source_message_count"`
	Messages           []message `json:"messages"`
}

// reader is Cline's agent.Transcripts.
type reader struct{}

// Read reads the session whose messages file is path (or whose manifest
// is: its messages file is beside it) with its manifest and compaction.
func (reader) Read(path, _ string, lim transcript.Limits) (*transcript.Digest, error) {
	path = messagesPath(path)
	lim = lim.WithDefaults()
	dir, id := filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), messagesSuffix)
	var m manifest
	haveManifest := readSide(filepath.Join(dir, id+".json"), &m) == nil
	var c compactionFile
	haveCompaction := readSide(filepath.Join(dir, id+compactionSuffix), &c) == nil
	d, err := transcript.ReadOpen(path, lim, func(r *io.SectionReader) (*transcript.Digest, error) {
		s := newSession()
		s.b.Observe(lim.Observe) // the session's own turns: its subagents' files are read apart
		if haveManifest {
			s.manifest(m)
		}
		if haveCompaction {
			s.compaction = &c
		}
		// ReadOpen names the file.
		if err := s.read(r, lim); err != nil {
			return nil, err
		}
		return s.finish()
	})
	if err == nil && !d.Subagent {
		foldSubagents(d, dir, lim)
	}
	return d, err
}

// Subagents (spawn_agent, in the terminal UI) keep their conversation
// beside their parent's: agent_<id>.messages.json in the session's
// folder, whose origin says mode "subagent" and parentThreadId.
const (
	subagentPrefix = "agent_"
	maxSubagents   = 1000
)

// foldSubagents reads the subagents' messages in dir and adds their
// commands and file edits to d, each marked "subagent <id>"; together
// they are read up to lim.MaxFile bytes, and one that cannot be read is
// left out.
func foldSubagents(d *transcript.Digest, dir string, lim transcript.Limits) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	budget, n := lim.MaxFile, 0
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, subagentPrefix) || !strings.HasSuffix(name, messagesSuffix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || fi.Size() > budget || n >= maxSubagents {
			continue
		}
		budget -= fi.Size()
		n++
		p := filepath.Join(dir, name)
		sub, err := transcript.ReadOpen(p, lim, func(r *io.SectionReader) (*transcript.Digest, error) {
			s := newSession()
			s.b.SetCWD(d.CWD)
			if err := s.read(r, lim); err != nil {
				return nil, err
			}
			return s.finish()
		})
		if err == nil {
			transcript.MergeSubagent(d, sub, "subagent "+transcript.ShortenHead(strings.TrimSuffix(name, messagesSuffix), 64))
		}
	}
}

// messagesPath is the messages file of the session whose messages file or
// manifest is path.
func messagesPath(path string) string {
	base := filepath.Base(path)
	if strings.HasSuffix(base, messagesSuffix) || strings.HasSuffix(base, compactionSuffix) || !strings.HasSuffix(base, ".json") {
		return path
	}
	return strings.TrimSuffix(path, ".json") + messagesSuffix
}

// readSide decodes a small JSON file beside the messages, within maxSide;
// a missing, irregular, oversized or invalid one is an error and left out.
func readSide(path string, v any) error {
	f, _, err := safefile.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSide {
		return errors.New("not a small regular file")
	}
	return json.NewDecoder(io.LimitReader(f, maxSide)).Decode(v)
}

// session folds one session's messages into a digest.
type session struct {
	b          *transcript.Builder
	st         *transcript.Stats
	version    string
	title      string
	cancelled  bool
	compaction *compactionFile
	// calls are the tool calls seen, by id, until their results.
	calls map[string]call
}

// call is a tool call waiting for its result.
type call struct {
	name     string
	commands []string
}

func newSession() *session {
	b := transcript.NewBuilder()
	return &session{b: b, st: &b.Digest().Stats, calls: map[string]call{}}
}

// manifest takes what the manifest says of the session.
func (s *session) manifest(m manifest) {
	d := s.b.Digest()
	d.Session.ID = m.SessionID
	s.b.SetCWD(m.CWD)
	s.title = m.Metadata.Title
	s.version = m.Metadata.Origin.Version
	s.cancelled = m.Status == "cancelled" || m.Status == "aborted"
	for _, t := range []string{m.Started, m.Ended} {
		if tm, ok := transcript.ParseTime(t); ok {
			s.b.Time(tm)
		}
	}
}

// read reads the messages file: its top-level keys, and its messages one
// at a time, each at most lim.MaxLine bytes as written. A file of at most
// maxWhole bytes that is one JSON object is read whole and walked
// (readWhole); any other is read as a stream (readStream), which says
// what is wrong with it: both read a valid file the same way.
func (s *session) read(r *io.SectionReader, lim transcript.Limits) error {
	if r.Size() <= maxWhole {
		b := make([]byte, r.Size())
		if n, err := r.ReadAt(b, 0); n == len(b) && (err == nil || err == io.EOF) {
			if valid, err := s.readWhole(b, lim); valid {
				return err
			}
		}
	}
	return s.readStream(r, lim)
}

// maxWhole bounds a messages file read whole: the search index reads a
// session on each CPU at once, within its memory bound (issue 46: 300
// MiB), so a larger file streams, a message at a time, as any did before.
const maxWhole = 16 << 20

// readWhole is readStream on b, the whole file, when it is one JSON
// object (valid); it calls nothing on s otherwise.
func (s *session) readWhole(b []byte, lim transcript.Limits) (valid bool, err error) {
	sawMessages := false
	valid, err = transcript.Members(b, func(key string, v []byte) error {
		switch key {
		case "messages":
			sawMessages = true
			return s.wholeMessages(v, lim)
		case "sessionId":
			var id string
			if err := transcript.Unmarshal(v, &id); err == nil && s.b.Digest().Session.ID == "" {
				s.b.Digest().Session.ID = id
			}
		case "origin":
			var o origin
			if err := transcript.Unmarshal(v, &o); err == nil {
				s.origin(o)
			}
		}
		return nil
	})
	if valid && err == nil && !sawMessages {
		err = errNoMessages
	}
	return valid, err
}

// wholeMessages is messages on v, the messages array's bytes. A
// message's size is counted as readStream counts it: from the comma
// before it (encoding/json's Decoder.InputOffset at the message).
func (s *session) wholeMessages(v []byte, lim transcript.Limits) error {
	switch v[0] {
	case 'n':
		return nil // "messages": null
	case '[':
	default:
		return errNotArray
	}
	n, end := 0, -1
	_, err := transcript.Elements(v, func(raw []byte, at int) error {
		if s.compaction != nil && n == s.compaction.SourceMessageCount {
			s.compacted()
		}
		from := at
		if end >= 0 {
			from = end + len(v[end:]) - len(bytes.TrimLeft(v[end:], " \t\r\n"))
		}
		end = at + len(raw)
		n++
		s.message1(raw, end-from, lim)
		return nil
	})
	return err
}

// readStream reads the messages file as a stream of JSON tokens.
func (s *session) readStream(r io.Reader, lim transcript.Limits) error {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("not a Cline messages file (no JSON object)")
	}
	sawMessages := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		switch key {
		case "messages":
			sawMessages = true
			if err := s.messages(dec, lim); err != nil {
				return err
			}
		case "sessionId":
			var id string
			if err := dec.Decode(&id); err == nil && s.b.Digest().Session.ID == "" {
				s.b.Digest().Session.ID = id
			}
		case "origin":
			var o origin
			if err := dec.Decode(&o); err == nil {
				s.origin(o)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
		}
	}
	if !sawMessages {
		return errNoMessages
	}
	return nil
}

// The errors of a messages file that is JSON but not Cline's.
var (
	errNoMessages = errors.New("not a Cline messages file (no messages)")
	errNotArray   = errors.New("messages is not an array")
)

// origin is the messages file's origin.
type origin struct {
	Version string `json:"version"`
	Mode    string `json:"mode"`
	Parent  string `json:"parentThreadId"`
}

// origin takes what the origin says of the session.
func (s *session) origin(o origin) {
	s.version = cmp.Or(o.Version, s.version)
	if o.Mode == "subagent" {
		// a subagent's own conversation: its work is its parent's
		// (foldSubagents)
		s.b.Digest().Subagent, s.b.Digest().Parent = true, o.Parent
	}
}

// messages reads the messages array.
func (s *session) messages(dec *json.Decoder, lim transcript.Limits) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		if err == nil && t == nil {
			return nil // "messages": null
		}
		return errNotArray
	}
	n := 0
	for dec.More() {
		if s.compaction != nil && n == s.compaction.SourceMessageCount {
			s.compacted()
		}
		start := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		n++
		s.message1(raw, int(dec.InputOffset()-start), lim)
	}
	_, err := dec.Token() // ]
	return err
}

// message1 counts and folds in one message, raw, size bytes as written.
func (s *session) message1(raw []byte, size int, lim transcript.Limits) {
	s.st.Lines++
	if size > lim.MaxLine {
		s.st.TooLong++
		return
	}
	var m message
	if err := transcript.Decode(raw, &m); err != nil || m.Role == "" {
		s.st.Malformed++
		return
	}
	s.st.Records++
	s.message(m)
}

// compacted adds the compaction summary, once.
func (s *session) compacted() {
	c := s.compaction
	s.compaction = nil
	for _, m := range c.Messages {
		if m.Metadata.Kind == "compaction_summary" && strings.TrimSpace(m.Metadata.Summary) != "" {
			s.b.Compaction(m.Metadata.Summary)
			return
		}
	}
}

// message folds one message in.
func (s *session) message(m message) {
	if m.TS > 0 {
		s.b.Time(time.UnixMilli(m.TS).UTC())
	}
	blocks := contentBlocks(m.Content)
	switch m.Role {
	case "user":
		s.user(m, blocks)
	case "assistant":
		s.assistant(m, blocks)
		if t := m.Metrics; t != nil {
			s.b.Tokens(m.ID, handoff.Tokens{Input: t.InputTokens, Output: t.OutputTokens, CacheRead: t.CacheReadTokens, CacheWrite: t.CacheWriteTokens})
		}
	default:
		s.st.UnknownType("role " + m.Role)
	}
}

// contentBlocks reads a message's content: a string is one text block.
func contentBlocks(raw json.RawMessage) []block {
	var text string
	if transcript.Unmarshal(raw, &text) == nil {
		return []block{{Type: "text", Text: text}}
	}
	var blocks []block
	_ = transcript.Unmarshal(raw, &blocks)
	return blocks
}

// userInput is the wrapper Cline puts around what the user typed
// ("<user_input mode=\"act\">…</user_input>"); modeNotice marks a switch
// between plan and act inside it. They are compiled when first used, not
// at every start (TestInitAllocatesLittle).
var (
	userInput = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)^\s*<user_input(?:\s[^>]*)?>(.*)</user_input>\s*$`)
	})
	modeNotice = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<mode_notice>.*?</mode_notice>`) })
)

// user folds a user message in: what the user asked, the compaction
// summary, and the tool results. Text Cline or a hook added (a
// displayRole of "system", the run's "[SYSTEM]" reminders, hook
// context) is no request.
func (s *session) user(m message, blocks []block) {
	if m.Metadata.Kind == "compaction_summary" {
		s.b.Compaction(m.Metadata.Summary)
		return
	}
	injected := m.Metadata.DisplayRole == "system" || m.Metadata.Kind != ""
	for _, bl := range blocks {
		switch bl.Type {
		case "text":
			text := strings.TrimSpace(bl.Text)
			if injected || text == "" || strings.HasPrefix(text, "<hook_context") ||
				m.Metadata.UserRunSpan != nil && strings.HasPrefix(text, "[SYSTEM]") {
				continue
			}
			if sub := userInput().FindStringSubmatch(text); sub != nil {
				text = strings.TrimSpace(modeNotice().ReplaceAllString(sub[1], ""))
			}
			if text != "" {
				s.b.Request(text)
			}
		case "tool_result":
			s.result(bl)
		case "image", "file", "media":
		default:
			s.st.UnknownType("user " + bl.Type)
		}
	}
}

// assistant folds an assistant message in: its text and tool calls.
func (s *session) assistant(m message, blocks []block) {
	for i, bl := range blocks {
		switch bl.Type {
		case "text":
			if strings.TrimSpace(bl.Text) != "" {
				s.b.AgentMessage(m.ID+"#"+strconv.Itoa(i), bl.Text)
			}
		case "tool_use":
			s.toolUse(bl)
		case "thinking", "redacted_thinking", "image", "file", "media":
		default:
			s.st.UnknownType("assistant " + bl.Type)
		}
	}
}

// toolUse folds a tool call in (the tools of @cline/core 0.0.86,
// extensions/tools/definitions.ts and schemas.ts).
func (s *session) toolUse(bl block) {
	id := bl.ID
	c := call{name: bl.Name}
	if bl.Name != "run_commands" { // each of its commands is a call of its own
		s.b.Tool(id, bl.Name, string(bl.Input))
	}
	switch bl.Name {
	case "run_commands":
		c.commands = commandsOf(bl.Input)
		for i, cmd := range c.commands {
			s.b.Command(subID(id, i), cmd)
		}
	case "editor":
		var in struct {
			Path       string  `json:"path"`
			OldText    *string `json:"old_text"`
			InsertLine *int    `json:"insert_line"`
		}
		if transcript.Unmarshal(bl.Input, &in) == nil && in.Path != "" {
			// Without old_text or insert_line it creates a missing file
			// and refuses an existing one (executors/editor.ts).
			op := transcript.Create
			if in.OldText != nil || in.InsertLine != nil {
				op = transcript.Edit
			}
			s.b.File(id, in.Path, op, 1)
		}
	case "apply_patch":
		var in struct {
			Input string `json:"input"`
		}
		if transcript.Unmarshal(bl.Input, &in) == nil {
			for _, f := range patchFiles(in.Input) {
				s.b.File(id, f.path, f.op, 1)
			}
		}
	case "read_files":
		for _, p := range readPaths(bl.Input) {
			s.b.File(id, p, transcript.Read, 1)
		}
	case "submit_and_exit":
		// The run's last word: its summary of what was done.
		var in struct {
			Summary string `json:"summary"`
		}
		if transcript.Unmarshal(bl.Input, &in) == nil && strings.TrimSpace(in.Summary) != "" {
			s.b.AgentMessage(id, in.Summary)
		}
	}
	if id != "" {
		s.calls[id] = c
	}
}

// subID is the id of the i-th command of a run_commands call.
func subID(id string, i int) string {
	if i == 0 {
		return id
	}
	return id + "#" + strconv.Itoa(i)
}

// commandsOf reads run_commands' input: {commands: [string or {command,
// args}]} and the looser forms Cline accepts (a string, {command},
// {cmd}, a list).
func commandsOf(raw json.RawMessage) []string {
	var in struct {
		Commands json.RawMessage `json:"commands"`
		Command  json.RawMessage `json:"command"`
		Cmd      string          `json:"cmd"`
	}
	if transcript.Unmarshal(raw, &in) != nil {
		return commandList(raw)
	}
	switch {
	case len(in.Commands) > 0:
		return commandList(in.Commands)
	case len(in.Command) > 0:
		return commandList(raw)
	case in.Cmd != "":
		return []string{in.Cmd}
	}
	return nil
}

// commandList reads one command or a list of them: strings, or
// {command, args}.
func commandList(raw json.RawMessage) []string {
	return entries(raw, func(e json.RawMessage) string {
		var c struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		}
		if transcript.Unmarshal(e, &c) != nil || strings.TrimSpace(c.Command) == "" {
			return ""
		}
		return strings.Join(append([]string{c.Command}, c.Args...), " ")
	})
}

// entries reads a value that is one entry or a list of them, each a
// string or an object that obj reads; blank ones are dropped.
func entries(raw json.RawMessage, obj func(e json.RawMessage) string) []string {
	var list []json.RawMessage
	if transcript.Unmarshal(raw, &list) != nil {
		list = []json.RawMessage{raw}
	}
	var out []string
	for _, e := range list {
		var str string
		if transcript.Unmarshal(e, &str) != nil {
			str = obj(e)
		}
		if str = strings.TrimSpace(str); str != "" {
			out = append(out, str)
		}
	}
	return out
}

// readPaths reads read_files' input: {files: [{path} or string]}, and
// the looser forms (a path, a list, file_paths, paths).
func readPaths(raw json.RawMessage) []string {
	var in struct {
		Files     json.RawMessage `json:"files"`
		FilePaths json.RawMessage `json:"file_paths"`
		Paths     json.RawMessage `json:"paths"`
		Path      string          `json:"path"`
	}
	if transcript.Unmarshal(raw, &in) != nil {
		return pathList(raw)
	}
	var out []string
	for _, l := range []json.RawMessage{in.Files, in.FilePaths, in.Paths} {
		if len(l) > 0 {
			out = append(out, pathList(l)...)
		}
	}
	if in.Path != "" {
		out = append(out, in.Path)
	}
	return out
}

// pathList reads a path or a list of paths or {path} objects.
func pathList(raw json.RawMessage) []string {
	return entries(raw, func(e json.RawMessage) string {
		var f struct {
			Path     string `json:"path"`
			FilePath string `json:"file_path"`
		}
		if transcript.Unmarshal(e, &f) != nil {
			return ""
		}
		return cmp.Or(f.Path, f.FilePath)
	})
}

// patchFile is a file an apply_patch patch touches.
type patchFile struct {
	path string
	op   transcript.FileOp
}

// patchFiles reads the file headers of an apply_patch patch.
func patchFiles(patch string) []patchFile {
	var out []patchFile
	for line := range strings.Lines(patch) {
		line = strings.TrimRight(line, "\r\n")
		for _, h := range []struct {
			prefix string
			op     transcript.FileOp
		}{{"*** Add File: ", transcript.Create}, {"*** Update File: ", transcript.Edit}, {"*** Delete File: ", transcript.Delete}, {"*** Move to: ", transcript.Create}} {
			if p, ok := strings.CutPrefix(line, h.prefix); ok && strings.TrimSpace(p) != "" {
				out = append(out, patchFile{strings.TrimSpace(p), h.op})
			}
		}
	}
	return out
}

// exitLine is how Cline's shell tool states a failing command's exit
// code: "[Command exited with code N]" at the start of its result, and
// "Command exited with code N" as its error (@cline/core 0.0.86,
// extensions/tools/executors/bash.ts).
var exitLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Command exited with code (-?\d+)`) })

// result folds a tool result in: each command's outcome, and whether a
// file operation failed.
func (s *session) result(bl block) {
	c, ok := s.calls[bl.ToolUseID]
	if !ok {
		return
	}
	delete(s.calls, bl.ToolUseID)
	outs := toolOutputs(bl.Content)
	if c.name != "run_commands" {
		if failed := bl.IsError || len(outs) > 0 && outs[0].Success != nil && !*outs[0].Success; failed && c.name != "read_files" {
			s.b.Outcome(bl.ToolUseID, nil, true, outputText(outs))
		} else if s.b.Observing() {
			// The result of a file tool that did not fail: an observer
			// keeps it; the digest keeps only failures.
			s.b.Done(bl.ToolUseID, outputText(outs))
		}
		return
	}
	for i := range c.commands {
		id := subID(bl.ToolUseID, i)
		if i >= len(outs) {
			if bl.IsError {
				s.b.Outcome(id, nil, true, "")
			}
			continue
		}
		o := outs[i]
		text := resultText(o.Result)
		var exit *int
		if mt := exitLine().FindStringSubmatch(o.Error + "\n" + firstLine(text)); mt != nil {
			if n, err := strconv.Atoi(mt[1]); err == nil {
				exit = &n
			}
		}
		success := o.Success != nil && *o.Success && !bl.IsError
		switch {
		case exit == nil && success:
			zero := 0 // Cline reports success for exit code 0 alone
			s.b.Outcome(id, &zero, false, text)
		case exit == nil && strings.Contains(o.Error, "aborted"):
			s.b.Status(id, handoff.StatusInterrupted, o.Error)
		default:
			s.b.Outcome(id, exit, !success || exit != nil && *exit != 0, cmp.Or(text, o.Error))
		}
	}
}

// toolOutputs reads a tool result's content: a list of outputs or text
// blocks, or a string that may itself be the JSON of one or a list.
func toolOutputs(raw json.RawMessage) []toolOutput {
	var str string
	if transcript.Unmarshal(raw, &str) == nil {
		raw = json.RawMessage(str)
		if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' && t[0] != '[' {
			return []toolOutput{{Type: "text", Text: str}}
		}
	}
	var list []toolOutput
	if transcript.Unmarshal(raw, &list) == nil {
		return list
	}
	var one toolOutput
	if transcript.Unmarshal(raw, &one) == nil {
		return []toolOutput{one}
	}
	return []toolOutput{{Type: "text", Text: str}}
}

// resultText is an output's result as text: a string, or its JSON.
func resultText(raw json.RawMessage) string {
	var str string
	if transcript.Unmarshal(raw, &str) == nil {
		return str
	}
	return string(raw)
}

// outputText joins the text of outputs.
func outputText(outs []toolOutput) string {
	var parts []string
	for _, o := range outs {
		parts = append(parts, cmp.Or(o.Error, resultText(o.Result), o.Text))
	}
	return strings.Join(parts, "\n")
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// finish completes the digest.
func (s *session) finish() (*transcript.Digest, error) {
	if s.compaction != nil {
		s.compacted()
	}
	if s.cancelled {
		s.b.Cancel()
	}
	d := s.b.Digest()
	d.Title = s.title
	d.Session.AgentVersion = s.version
	out, err := s.b.Finish(agentName)
	if err != nil {
		return nil, err
	}
	out.Cancelled = out.Cancelled || s.cancelled
	return out, nil
}
