package gemini

import (
	"encoding/json"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// toolCall is a tool call a gemini message records, with its status and
// result. Tool names and arguments: packages/core/src/tools/definitions/
// base-declarations.ts and tool-names.ts (v0.56); what each returns:
// write-file.ts, edit.ts, trackerTools.ts, exit-plan-mode.ts.
type toolCall struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Args   args   `json:"args"`
	// Result is the parts given to the model; ResultDisplay what the
	// user saw: a string, or the task tracker's {todos}.
	Result        json.RawMessage `json:"result"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
}

// args are the arguments of the tools read.
type args struct {
	FilePath      string `json:"file_path"`
	AbsolutePath  string `json:"absolute_path"`
	Path          string `json:"path"`
	Command       string `json:"command"`
	Todos         []todo `json:"todos"`
	Title         string `json:"title"`
	PlanFilename  string `json:"plan_filename"`
	Content       string `json:"content"`
	OldString     string `json:"old_string"`
	NewString     string `json:"new_string"`
	AllowMultiple bool   `json:"allow_multiple"`
}

// file is the file a tool call's arguments name.
func (a *args) file() string { return firstNonEmpty(a.FilePath, a.AbsolutePath, a.Path) }

type todo struct {
	Description string `json:"description"`
	Content     string `json:"content"`
	Status      string `json:"status"`
}

// display is a tool call's resultDisplay when it is an object: the task
// tracker's whole task list.
type display struct {
	Todos []todo `json:"todos"`
}

// tokens are a gemini message's token counts.
type tokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
}

// part is a part of a content: its text, unless it is the model's thought.
type part struct {
	Text    string `json:"text"`
	Thought bool   `json:"thought"`
}

// resultPart is a part of a tool call's result: the tool's response, or
// text.
type resultPart struct {
	Text             string            `json:"text"`
	FunctionResponse *functionResponse `json:"functionResponse"`
}

type functionResponse struct {
	Response struct {
		Output     string `json:"output"`
		Error      string `json:"error"`
		LLMContent string `json:"llmContent"`
		Content    string `json:"content"`
	} `json:"response"`
}

// fold turns a recording's messages into the builder's events, in order,
// and gathers what is not an event: the topic's title, the plan, and
// whether the last turn was cancelled.
type fold struct {
	b         *transcript.Builder
	topic     string
	cancelled bool
	// planFiles are the plan files written (at most maxPlanFiles), the
	// latest written last, each with its latest text; planWrites counts
	// the writes.
	planFiles  []planFile
	planWrites int
	inPlan     bool   // enter_plan_mode ran and exit_plan_mode has not
	planFrom   int    // planWrites when plan mode was entered
	plan       string // the last plan put to the user, with its outcome
	planStatus string // what the user said to it: a handoff.Plan* status
	// initMade says /init made an empty GEMINI.md that the agent has not
	// written yet: its first write, an overwrite, makes the file.
	initMade bool
}

type planFile struct{ path, text string }

func (f *fold) message(m *message) {
	var id string
	if m.ID != nil {
		id = *m.ID
	}
	switch m.Type {
	case "user":
		content := userText(m.Content)
		if strings.HasPrefix(content, "<state_snapshot>") {
			// The summary Gemini CLI's compression wrote, in the tags it
			// asks the model for (packages/core/src/core/prompts.ts).
			f.b.Compaction(strings.TrimSuffix(strings.TrimPrefix(content, "<state_snapshot>"), "</state_snapshot>"))
			return
		}
		if text, ok := request(m.DisplayContent, content); ok {
			f.b.Request(text)
			f.cancelled = false
		}
	case "info":
		// What Gemini CLI shows when the user stops a turn
		// (packages/cli/src/ui/hooks/useGeminiStream.ts, "Request
		// cancelled."): the last request may be half done.
		switch strings.TrimSpace(contentText(m.Content)) {
		case "Request cancelled.":
			f.cancelled = true
		case "Empty GEMINI.md created. Now analyzing the project to populate it.":
			// /init (packages/cli/src/ui/commands/initCommand.ts).
			f.initMade = true
		}
	case "gemini":
		if text := strings.TrimSpace(contentText(m.Content)); text != "" {
			f.b.AgentMessage(id, text)
		}
		for i := range m.ToolCalls {
			f.toolCall(id, i, &m.ToolCalls[i])
		}
		if t := m.Tokens; t != nil {
			in, cached := max(t.Input, 0), max(t.Cached, 0)
			f.b.Tokens("msg:"+id, handoff.Tokens{
				Input:     max(in-cached, 0),
				Output:    satAdd(max(t.Output, 0), max(t.Thoughts, 0)),
				CacheRead: cached,
			})
		}
	}
}

func satAdd(a, b int64) int64 {
	if a+b < a {
		return 1<<63 - 1
	}
	return a + b
}

// request returns what the user asked in a user message whose content
// reads content: what the user typed (displayContent, as "/init" for the
// prompt the command expands to), unless the message is one Gemini CLI
// itself does not count as the user's.
func request(displayContent json.RawMessage, content string) (string, bool) {
	if injected(content) {
		return "", false
	}
	text := strings.TrimSpace(contentText(displayContent))
	if text == "" {
		text = content
	}
	if strings.HasPrefix(strings.TrimSpace(text), initPrompt) {
		text = "/init"
	}
	return text, text != ""
}

// initPrompt opens the prompt /init submits, unchanged from the
// command's first release (v0.1, July 2025) to v0.56
// (google-gemini/gemini-cli packages/core/src/commands/init.ts,
// performInit; packages/cli/src/ui/commands/initCommand.ts). Recordings
// older than v0.28.0 (commit bb6a336c) keep no displayContent, only this
// prompt: it is read as "/init".
const initPrompt = "You are an AI agent that brings the power of Gemini directly into the terminal. " +
	"Your task is to analyze the current directory and generate a comprehensive GEMINI.md file"

// injected reports whether a user message's content is not a request:
// what Gemini CLI's isIgnoredUserContent leaves out of a resumed history
// (empty, a slash or ? command, the <session_context> that carries
// GEMINI.md, a <hook_context>; packages/core/src/utils/sessionUtils.ts,
// v0.56), and the turns Gemini CLI sends on its own: "Please continue."
// after its next-speaker check (packages/core/src/core/client.ts),
// "System: Please continue." after an invalid stream (until v0.42,
// commit 9380e13f) and its loop-detection feedback (client.ts).
func injected(content string) bool {
	switch content {
	case "", "Please continue.", "System: Please continue.":
		return true
	}
	for _, p := range []string{"/", "?", "<session_context>", "<hook_context>", "System: Potential loop detected."} {
		if strings.HasPrefix(content, p) {
			return true
		}
	}
	return false
}

func (f *fold) toolCall(msgID string, i int, tc *toolCall) {
	id := tc.ID
	if id == "" {
		id = msgID + "#" + strconv.Itoa(i)
	}
	a := &tc.Args
	status := tc.Status
	out := resultText(tc.Result)
	if out == "" && len(tc.ResultDisplay) > 0 && tc.ResultDisplay[0] == '"' {
		_ = transcript.DecodeValue(tc.ResultDisplay, &out)
	}
	filePath := a.file()
	switch name := tc.Name; name {
	case "run_shell_command":
		f.b.Command(id, a.Command)
	case "replace", "edit", "smart_edit":
		op := transcript.Edit
		if strings.HasPrefix(out, "Created new file") {
			op = transcript.Create
		}
		if status != "error" && status != "cancelled" {
			f.editPlan(filePath, a)
		}
		f.b.File(id, projectFile(filePath), op, 1)
	case "write_file":
		op := transcript.Write
		switch {
		case strings.HasPrefix(out, "Successfully created"):
			op = transcript.Create
		case strings.HasPrefix(out, "Successfully overwrote"):
			op = transcript.Edit
			if f.initMade && (filePath == "GEMINI.md" || strings.HasSuffix(filepath.ToSlash(filePath), "/GEMINI.md")) {
				op, f.initMade = transcript.Create, false
			}
		}
		if status != "error" && status != "cancelled" && isPlanPath(filePath) {
			f.writePlan(filePath, a.Content)
		}
		f.b.File(id, projectFile(filePath), op, 1)
	case "read_file":
		f.b.File(id, filePath, transcript.Read, 0)
	case "write_todos":
		if a.Todos != nil {
			f.b.Todos(todoList(a.Todos, true))
		}
		return
	case "update_topic":
		if t := strings.TrimSpace(a.Title); t != "" && status != "error" {
			f.topic = t
		}
		return
	case "enter_plan_mode":
		if status == "success" {
			f.inPlan, f.planFrom = true, f.planWrites
		}
		return
	case "exit_plan_mode":
		if status == "success" {
			f.exitPlan(a.PlanFilename, out)
		}
		return
	default:
		// The task tracker's tools show the whole task list
		// (returnDisplay {todos}, trackerTools.ts).
		if strings.HasPrefix(name, "tracker_") && status == "success" && isObject(tc.ResultDisplay) {
			var d display
			if transcript.Decode(tc.ResultDisplay, &d) == nil && d.Todos != nil {
				f.b.Todos(todoList(d.Todos, false))
			}
		}
		return
	}
	switch status {
	case "success":
		exit := new(int)
		if code, ok := transcript.ExitLine(out, "Exit Code:"); ok {
			exit = code
		}
		f.b.Outcome(id, exit, exit != nil && *exit != 0, out)
	case "error":
		if refused(out) {
			f.b.Status(id, handoff.StatusRejected, out)
			return
		}
		exit, _ := transcript.ExitLine(out, "Exit Code:")
		f.b.Outcome(id, exit, true, out)
	case "cancelled":
		// The user declined it ("[Operation Cancelled] Reason: User denied
		// execution.") or stopped it (packages/core/src/scheduler/
		// scheduler.ts, state-manager.ts): it did not run its course.
		st := handoff.StatusInterrupted
		if strings.Contains(out, "User denied execution") {
			st = handoff.StatusRejected
		}
		f.b.Status(id, st, out)
	}
}

// maxTodos bounds a todo list, as a digest's todos are.
const maxTodos = 500

// todoList is a todo list's items with a text: the description, else (when
// withContent) the content.
func todoList(items []todo, withContent bool) []handoff.Todo {
	var out []handoff.Todo
	for _, it := range items {
		text := it.Description
		if strings.TrimSpace(text) == "" && withContent {
			text = it.Content
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		out = append(out, handoff.Todo{Content: text, Status: it.Status})
		if len(out) >= maxTodos {
			break
		}
	}
	return out
}

// projectFile is the file a write or an edit is of, unless the file is
// Gemini CLI's own (a plan under ~/.gemini/tmp), which is no file of the
// project: "" then, which the builder counts as no file.
func projectFile(p string) string {
	if ownFile(p) {
		return ""
	}
	return p
}

func ownFile(p string) bool { return strings.Contains(filepath.ToSlash(p), "/.gemini/tmp/") }

// isPlanPath reports whether a file lies in a plans directory, where
// Gemini CLI's plan mode keeps its plans (Storage.getPlansDir,
// packages/core/src/config/storage.ts: ~/.gemini/tmp/<project>/<session>/plans
// or a plans directory the user configured).
func isPlanPath(p string) bool {
	p = filepath.ToSlash(p)
	return strings.HasPrefix(p, "plans/") || strings.Contains(p, "/plans/")
}

// maxPlanFiles bounds the plan files whose text is kept.
const maxPlanFiles = 8

// writePlan keeps text as the plan file p's, last.
func (f *fold) writePlan(p, text string) {
	f.planWrites++
	f.planFiles = slices.DeleteFunc(f.planFiles, func(pf planFile) bool { return pf.path == p })
	if len(f.planFiles) == maxPlanFiles {
		f.planFiles = slices.Delete(f.planFiles, 0, 1)
	}
	f.planFiles = append(f.planFiles, planFile{path: p, text: transcript.ShortenHead(text, 2*transcript.MaxCompaction)})
}

// editPlan applies a replace to a plan file whose text is known.
func (f *fold) editPlan(p string, a *args) {
	if !isPlanPath(p) {
		return
	}
	for i := len(f.planFiles) - 1; i >= 0; i-- {
		if f.planFiles[i].path != p {
			continue
		}
		text := f.planFiles[i].text
		n := 1
		if a.AllowMultiple {
			n = -1
		}
		if a.OldString != "" {
			text = strings.Replace(text, a.OldString, a.NewString, n)
		}
		f.writePlan(p, text)
		return
	}
}

// planText is the latest text written to the plan file name names (a
// path, or a name in the plans directory).
func (f *fold) planText(name string) (string, bool) {
	name = filepath.ToSlash(strings.TrimSpace(name))
	if name == "" {
		return "", false
	}
	for i := len(f.planFiles) - 1; i >= 0; i-- {
		p := f.planFiles[i].path
		if p == name || path.Base(filepath.ToSlash(p)) == path.Base(name) {
			return f.planFiles[i].text, true
		}
	}
	return "", false
}

// exitPlan records the plan exit_plan_mode put to the user, and how the
// user answered (its llmContent, exit-plan-mode.ts).
func (f *fold) exitPlan(name, out string) {
	outcome := "put to the user"
	status := handoff.PlanPending
	switch {
	case strings.HasPrefix(out, "User cancelled"):
		return // the approval dialog was dismissed: still planning
	case strings.HasPrefix(out, "Plan rejected"):
		outcome, status = "rejected by the user", handoff.PlanRejected
		if fb, ok := strings.CutPrefix(out, "Plan rejected. User feedback: "); ok {
			fb, _, _ = strings.Cut(fb, "\n")
			outcome += " (feedback: " + untrusted.OneLine(fb, handoff.MaxItem) + ")"
		}
	case strings.Contains(out, "approved"):
		outcome, status = "approved by the user", handoff.PlanApproved
	}
	f.inPlan = false
	text, ok := f.planText(name)
	if !ok {
		text = "(the plan file " + untrusted.OneLine(name, 256) + " is not in the transcript)"
	}
	f.plan = transcript.ShortenMiddle(strings.TrimSpace(text)+"\n\n(Gemini CLI plan mode: "+outcome+".)", transcript.MaxCompaction)
	f.planStatus = status
}

// finishPlan is the plan to hand on, and its status: the last one put to
// the user, or one still being drafted in plan mode (pending).
func (f *fold) finishPlan() (string, string) {
	if f.inPlan && f.planWrites > f.planFrom {
		last := f.planFiles[len(f.planFiles)-1]
		return transcript.ShortenMiddle(strings.TrimSpace(last.text)+"\n\n(Gemini CLI plan mode: a draft, not yet put to the user.)", transcript.MaxCompaction), handoff.PlanPending
	}
	return f.plan, f.planStatus
}

// contentText joins the text parts of a content (a string, a part, or a
// list of them), leaving out the model's thoughts.
func contentText(raw json.RawMessage) string {
	return joinParts(raw, partText, nil)
}

// partText is the text of a part of a content: a string, or an object's
// text unless it is a thought.
func partText(v []byte) string {
	switch v[0] {
	case '"':
		var s string
		_ = transcript.DecodeValue(v, &s)
		return s
	case '{':
		var pt part
		if transcript.DecodeValue(v, &pt) != nil || pt.Thought {
			return ""
		}
		return pt.Text
	}
	return ""
}

// joinParts joins the texts text gives of the parts of raw, a value or a
// list of them (lists in lists flattened), one line each; those empty are
// left out, and, when drop is set, the elements of a list whose text drop
// says to leave out.
func joinParts(raw json.RawMessage, text func([]byte) string, drop func(string) bool) string {
	if len(raw) == 0 {
		return ""
	}
	var out, elem []string
	last := -1
	flush := func() {
		if t := strings.Join(elem, "\n"); t != "" && (drop == nil || last < 0 || !drop(strings.TrimSpace(t))) {
			out = append(out, t)
		}
		elem = elem[:0]
	}
	_ = transcript.EachLeaf(raw, func(leaf []byte, top int) {
		if top != last {
			flush()
			last = top
		}
		if t := text(leaf); t != "" {
			elem = append(elem, t)
		}
	})
	flush()
	return strings.Join(out, "\n")
}

// userText is the text of a user message without the hooks' context
// Gemini CLI records in it: a leading "<hook_context>…</hook_context>"
// block, which the session-start hook's context becomes in front of the
// prompt (packages/cli/src/gemini.tsx, v0.61.0), and whole text parts of
// that form, which BeforeAgent's context becomes after the request
// (packages/core/src/core/client.ts, sendMessageStream). The block ends at
// its first closing tag: our own briefings never hold one (internal/hooks
// escapes any a handoff's text holds), and Gemini CLI escapes nothing
// inside it.
func userText(raw json.RawMessage) string {
	text := strings.TrimSpace(joinParts(raw, partText, isHookContext))
	for strings.HasPrefix(text, hookContextOpen) {
		end := strings.Index(text, hookContextClose)
		if end < 0 {
			return text // unclosed: injected leaves it out whole
		}
		text = strings.TrimSpace(text[end+len(hookContextClose):])
	}
	return text
}

const hookContextOpen, hookContextClose = "<hook_context>", "</hook_context>"

// isHookContext reports whether a text part is one hook context block.
func isHookContext(t string) bool {
	return strings.HasPrefix(t, hookContextOpen) && strings.HasSuffix(t, hookContextClose) &&
		strings.Index(t, hookContextClose) == len(t)-len(hookContextClose)
}

// refused reports whether an errored call's output says the CLI refused
// to run it: its policy engine ("Tool execution denied by policy.",
// packages/core/src/scheduler/policy.ts, v0.61.0) or its shell parser
// ("Command rejected because it could not be parsed safely", seen in real
// chats). A refused call did not run: it is no failure.
func refused(out string) bool {
	out = strings.TrimSpace(out)
	first, _, _ := strings.Cut(out, "\n")
	return strings.HasPrefix(out, "Tool execution denied by policy") || strings.HasPrefix(out, "Command rejected because") ||
		strings.Contains(first, "could not be parsed safely")
}

// resultText reads the output of a tool call's result parts.
func resultText(raw json.RawMessage) string {
	return joinParts(raw, func(v []byte) string {
		if v[0] != '{' {
			return partText(v)
		}
		var rp resultPart
		_ = transcript.DecodeValue(v, &rp)
		if fr := rp.FunctionResponse; fr != nil {
			r := fr.Response
			return firstNonEmpty(r.Output, r.Error, r.LLMContent, r.Content)
		}
		return rp.Text
	}, nil)
}

// pathRoots gathers the paths of a recording's file operations, to find
// the directory its relative paths are relative to when it names none
// (Gemini CLI resolves them against the project's root): the model may
// give write_file a relative path and replace an absolute one for the
// same file.
type pathRoots struct{ abs, rel []string }

// maxRootPaths bounds each of pathRoots' lists (root compares them all).
const maxRootPaths = 1000

// message adds the paths of m's file operations.
func (r *pathRoots) message(m *message) {
	if m.Type != "gemini" {
		return
	}
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		switch p := tc.Args.file(); tc.Name {
		case "replace", "edit", "smart_edit", "write_file":
			if !ownFile(p) {
				r.add(p)
			}
		case "read_file":
			r.add(p)
		}
	}
}

func (r *pathRoots) add(p string) {
	switch {
	case strings.HasPrefix(p, "/"):
		if len(r.abs) < maxRootPaths {
			r.abs = append(r.abs, p)
		}
	case strings.Contains(strings.TrimPrefix(p, "./"), "/"):
		// A path of one name only could lie anywhere: it proves no root.
		if len(r.rel) < maxRootPaths {
			r.rel = append(r.rel, p)
		}
	}
}

// root is the directory the first absolute path that can lies in as one
// of the relative touched paths (Gemini CLI's own list) or of the tool
// calls' relative paths: /r/a/b.go and a/b.go give /r; "" for none.
func (r *pathRoots) root(touched []string) string {
	rel := append(slices.Clip(touched), r.rel...)
	for _, p := range r.abs {
		if root := rootOf(p, rel); root != "" {
			return root
		}
	}
	return ""
}

// rootOf is the directory an absolute path p lies in as one of the
// relative touched paths: /r/a/b.go and a/b.go give /r.
func rootOf(p string, touched []string) string {
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	for _, t := range touched {
		t = strings.TrimPrefix(t, "./")
		if t == "" || strings.HasPrefix(t, "/") {
			continue
		}
		if root, ok := strings.CutSuffix(p, "/"+t); ok && root != "" {
			return root
		}
	}
	return ""
}
