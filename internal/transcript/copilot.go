package transcript

// GitHub Copilot CLI: where its sessions live, how a line of one is
// recognised, and how one is read. Checked against @github/copilot
// 1.0.102, whose session-events.schema.json (schemas/ in the unpacked
// package) defines every line type, and against sessions it wrote itself
// (testdata/real-e2e/copilot, SOURCES.md).
//
// A session is a directory, <copilot home>/session-state/<id>/, holding
// events.jsonl (one event a line: {"type", "data", "id", "timestamp",
// "parentId"}), workspace.yaml (its name, cwd, branch) and session.db
// (SQLite; the todos). Capture reads events.jsonl, and the name in
// workspace.yaml for the title.

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode"

	"github.com/session-handoff/session-handoff/handoff"
)

// Copilot is GitHub Copilot CLI, as the agents table names it.
const Copilot Agent = "copilot"

// copilotEvents is the name of a Copilot session's event log.
const copilotEvents = "events.jsonl"

// copilotFiles lists the event logs under the session-state directories.
func copilotFiles(roots []string) []candidate {
	var out []candidate
	for _, root := range roots {
		for _, dir := range subdirs(root) {
			n := len(out)
			listFiles(dir, func(name string) bool { return name == copilotEvents }, &out)
			for i := n; i < len(out); i++ {
				out[i].id = filepath.Base(dir)
			}
		}
	}
	return out
}

// copilotShape is an event line as the reader and the prober read it:
// the outputs Copilot copies beside a result (detailedContent, the
// telemetry) are dropped.
var copilotShape = sync.OnceValue(func() *shape {
	args := fields(map[string]*shape{"command": nil, "path": nil, "query": nil})
	req := fields(map[string]*shape{"toolCallId": nil, "name": nil, "arguments": args})
	req.elem = req
	ctx := fields(map[string]*shape{"cwd": nil, "branch": nil})
	data := fields(map[string]*shape{
		"sessionId": nil, "copilotVersion": nil, "startTime": nil, "context": ctx,
		"content": nil, "messageId": nil, "toolRequests": req,
		"toolCallId": nil, "success": nil,
		"shellExecution": fields(map[string]*shape{"exitCode": nil}),
		"result":         fields(map[string]*shape{"content": nil}),
		"error":          fields(map[string]*shape{"message": nil, "code": nil}),
		"usage":          fields(map[string]*shape{"inputTokens": nil, "outputTokens": nil, "cacheReadTokens": nil, "cacheWriteTokens": nil}),
		"title":          nil, "summaryContent": nil,
	})
	return fields(map[string]*shape{"type": nil, "data": data, "id": nil, "timestamp": nil})
})

// copilotKnown are the line types that say nothing the digest keeps:
// read, and not counted as unknown.
var copilotKnown = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, t := range []string{
		"system.message", "assistant.turn_start", "assistant.turn_end", "tool.execution_start",
		"session.shutdown", "session.info", "session.warning", "session.idle", "session.model_change",
		"session.mode_changed", "session.context_changed", "session.compaction_start", "session.truncation",
		"session.skills_loaded", "session.mcp_servers_loaded", "session.mcp_server_status_changed",
		"session.permissions_changed", "session.custom_agents_updated", "session.background_tasks_changed",
		"session.usage_info", "session.task_complete", "assistant.usage", "assistant.intent",
		"assistant.reasoning", "assistant.idle", "tool.shell_output", "user.model_selection",
		// A hook's run: its input and output (a sessionStart hook's
		// additionalContext is not a request).
		"hook.start", "hook.end",
		// The trace of a model call made outside a turn (a compaction's:
		// its answer is also in session.compaction_complete), and the
		// usage totals written after it.
		"model.turn_started", "model.model_call_started", "model.model_call_success", "model.message",
		"model.response", "model.turn_ended", "model.messages_snapshot", "session.usage_checkpoint",
	} {
		m[t] = true
	}
	return m
})

// isCopilotLine says whether m looks like a Copilot event: a dotted type
// of its families, a data object and an id.
func isCopilotLine(m map[string]any) bool {
	typ := getStr(m, "type")
	fam, _, ok := strings.Cut(typ, ".")
	if !ok || getMap(m, "data") == nil || getStr(m, "id") == "" {
		return typ == "abort" && getMap(m, "data") != nil
	}
	switch fam {
	case "session", "user", "assistant", "tool", "system":
		return true
	}
	return false
}

// ReadCopilot reads a GitHub Copilot CLI session's events.jsonl.
func ReadCopilot(r io.Reader, limits Limits) (*Digest, error) {
	return readCopilot(r, limits, copilotShape())
}

func readCopilot(r io.Reader, limits Limits, sh *shape) (*Digest, error) {
	lim := limits.withDefaults()
	c := &copilotReader{d: &Digest{}, fold: newFolder(), sql: map[string]string{}}
	if err := eachRecordAt(io.LimitReader(r, lim.MaxFile), lim, &c.d.Stats, sh, func(_ int, m map[string]any) { c.record(m) }); err != nil {
		return nil, err
	}
	d := c.d
	if d.Session.StartedAt == nil {
		d.Session.StartedAt = timePtr(c.span.first)
	}
	d.Session.LastActivity = timePtr(c.span.last)
	c.fold.finish(d)
	if err := finishCommon(d, Copilot); err != nil {
		return nil, err
	}
	return d, nil
}

// readCopilotFile reads events.jsonl and takes the session's name from
// workspace.yaml beside it, when the user named the session.
func readCopilotFile(r io.Reader, lim Limits, file string) (*Digest, error) {
	d, err := ReadCopilot(r, lim)
	if err != nil {
		return nil, err
	}
	if name, user := copilotWorkspaceName(filepath.Join(filepath.Dir(file), "workspace.yaml")); name != "" && (user || d.Title == "") {
		d.Title = titleFrom(name)
	}
	return d, nil
}

type copilotReader struct {
	d    *Digest
	fold *folder
	cwd  string
	span timeSpan
	// sql holds the queries of sql calls until their outcome: a query
	// that failed changed no todo.
	sql map[string]string
}

func (c *copilotReader) add(e event) { foldEvent(c.fold, c.cwd, e) }

func (c *copilotReader) record(m map[string]any) {
	t, ok := getTime(m, "timestamp")
	c.span.add(t, ok)
	data := getMap(m, "data")
	typ := getStr(m, "type")
	switch typ {
	case "session.start", "session.resume":
		if typ == "session.start" {
			c.d.Session.ID = getStr(data, "sessionId")
			c.d.Session.AgentVersion = getStr(data, "copilotVersion")
			if st, ok := getTime(data, "startTime"); ok {
				c.d.Session.StartedAt = &st
			}
		}
		if ctx := getMap(data, "context"); ctx != nil {
			c.cwd = firstNonEmpty(getStr(ctx, "cwd"), c.cwd)
			c.d.CWD = c.cwd
			c.d.GitBranch = firstNonEmpty(getStr(ctx, "branch"), c.d.GitBranch)
		}
	case "user.message":
		// content is what the user typed; transformedContent adds the
		// date and reminders Copilot injects.
		c.add(evReq(getStr(data, "content")))
	case "assistant.message":
		c.add(evAgent(getStr(data, "messageId"), getStr(data, "content")))
		for _, v := range getArr(data, "toolRequests") {
			if req, ok := v.(map[string]any); ok {
				c.call(req)
			}
		}
	case "tool.execution_complete":
		c.outcome(data)
	case "session.usage_record":
		// One record a model call; the line's id is unique, where the
		// call's apiCallId is the provider's and may repeat.
		u := getMap(data, "usage")
		c.add(event{kind: evTokens, id: getStr(m, "id"), tokens: handoff.Tokens{
			Input: getCount(u, "inputTokens"), Output: getCount(u, "outputTokens"),
			CacheRead: getCount(u, "cacheReadTokens"), CacheWrite: getCount(u, "cacheWriteTokens")}})
	case "session.compaction_complete":
		c.add(evCompact(getStr(data, "summaryContent")))
	case "session.title_changed":
		c.d.Title = getStr(data, "title")
	case "abort", "session.abort":
		c.add(event{kind: evCancel})
	default:
		if !copilotKnown()[typ] {
			c.d.Stats.unknownType(typ)
		}
	}
}

// call reads one tool request of an assistant message.
func (c *copilotReader) call(req map[string]any) {
	id := getStr(req, "toolCallId")
	args := getMap(req, "arguments")
	switch getStr(req, "name") {
	case "bash":
		c.add(evCmd(id, getStr(args, "command")))
	case "create":
		c.add(evOps(id, fileOp{path: getStr(args, "path"), op: opCreate}))
	case "edit":
		c.add(evOps(id, fileOp{path: getStr(args, "path"), op: opEdit}))
	case "view":
		c.add(evOps(id, fileOp{path: getStr(args, "path"), op: opRead}))
	case "sql":
		if id != "" && len(c.sql) < maxTodos {
			c.sql[id] = getStr(args, "query")
		}
	}
}

// outcome reads a tool.execution_complete. A shell command's exit code
// decides: Copilot 1.0.102 writes success: true beside exitCode 1 or 2.
func (c *copilotReader) outcome(data map[string]any) {
	id := getStr(data, "toolCallId")
	success := getBool(data, "success")
	if q, ok := c.sql[id]; ok {
		delete(c.sql, id)
		if success {
			for _, e := range copilotTodoSQL(q) {
				c.add(e)
			}
		}
	}
	errMap := getMap(data, "error")
	if getStr(errMap, "code") == "denied" {
		c.add(evStatus(id, handoff.StatusRejected, getStr(errMap, "message")))
		return
	}
	out := getStr(getMap(data, "result"), "content")
	if out == "" {
		out = getStr(errMap, "message")
	}
	if exit := exitCode(getMap(data, "shellExecution")["exitCode"]); exit != nil {
		c.add(evOut(id, exit, *exit != 0, true, out))
		return
	}
	_, known := data["success"]
	c.add(evOut(id, nil, known && !success, known, out))
}

// copilotLine is the prober's reading of one event line.
func (p *prober) copilotLine(m map[string]any, head bool) {
	data := getMap(m, "data")
	switch getStr(m, "type") {
	case "session.start":
		p.id = firstNonEmpty(p.id, getStr(data, "sessionId"))
		p.version = firstNonEmpty(getStr(data, "copilotVersion"), p.version)
		p.cwd = firstNonEmpty(p.cwd, getStr(getMap(data, "context"), "cwd"))
	case "session.resume":
		p.cwd = firstNonEmpty(p.cwd, getStr(getMap(data, "context"), "cwd"))
	case "user.message":
		if head && p.firstReq == "" {
			p.firstReq = getStr(data, "content")
		}
	case "session.title_changed":
		p.custom = firstNonEmpty(getStr(data, "title"), p.custom)
	}
}

// copilotProbeTitle takes a listed session's title from its
// workspace.yaml when the user named it, or when the log gave none.
func copilotProbeTitle(s *SessionInfo) {
	if name, user := copilotWorkspaceName(filepath.Join(filepath.Dir(s.Path), "workspace.yaml")); name != "" && (user || s.Title == "") {
		s.Title = titleFrom(name)
	}
}

// copilotWorkspaceName reads the name: line of a session's workspace.yaml
// and whether the user gave it (user_named: true). Only these two scalar
// lines are read, from the first 64 KiB.
func copilotWorkspaceName(file string) (name string, user bool) {
	f, err := os.Open(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch k {
		case "name":
			name = yamlScalar(v)
		case "user_named":
			user = yamlScalar(v) == "true"
		}
	}
	return name, user
}

// yamlScalar reads a one-line YAML scalar: plain, or quoted in ' or ".
// Anything it cannot read plainly (a block, an escape) is taken as it is.
func yamlScalar(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '\'' && v[len(v)-1] == '\'') {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && !strings.Contains(v, `\`) {
		return v[1 : len(v)-1]
	}
	return v
}

// copilotTodoSQL reads the todo changes of a query Copilot's sql tool ran
// on its todos table, in the two forms the tool's instructions teach:
//
//	INSERT INTO todos (id, title[, description][, status]) VALUES ('a', 'A', …), (…);
//	UPDATE todos SET status = 'done' WHERE id = 'a';
//
// Anything else (other tables, SELECT, expressions, several statements
// but these) yields nothing: the todos then stay as last read.
func copilotTodoSQL(q string) []event {
	var out []event
	for _, stmt := range splitSQL(q) {
		toks := sqlTokens(stmt)
		switch {
		case len(toks) > 4 && strings.EqualFold(toks[0], "insert") && strings.EqualFold(toks[1], "into") && strings.EqualFold(toks[2], "todos"):
			out = append(out, todoInsert(toks[3:])...)
		case len(toks) >= 10 && strings.EqualFold(toks[0], "update") && strings.EqualFold(toks[1], "todos") && strings.EqualFold(toks[2], "set"):
			if e, ok := todoUpdate(toks[3:]); ok {
				out = append(out, e)
			}
		}
	}
	return out
}

// todoInsert reads "(cols) VALUES (vals), (vals)".
func todoInsert(toks []string) []event {
	cols, rest, ok := sqlList(toks)
	if !ok || len(rest) == 0 || !strings.EqualFold(rest[0], "values") {
		return nil
	}
	rest = rest[1:]
	var out []event
	for len(rest) > 0 {
		vals, r, ok := sqlList(rest)
		if !ok || len(vals) != len(cols) {
			return out
		}
		row := map[string]string{}
		for i, col := range cols {
			v, ok := sqlString(vals[i])
			if !ok {
				return out
			}
			row[strings.ToLower(col)] = v
		}
		if row["id"] != "" && row["title"] != "" {
			out = append(out, event{kind: evTask, id: row["id"], text: row["title"], status: firstNonEmpty(row["status"], "pending")})
		}
		rest = r
		if len(rest) > 0 && rest[0] == "," {
			rest = rest[1:]
		}
	}
	return out
}

// todoUpdate reads "status = 'x' WHERE id = 'y'".
func todoUpdate(toks []string) (event, bool) {
	if len(toks) != 7 || !strings.EqualFold(toks[0], "status") || toks[1] != "=" || !strings.EqualFold(toks[3], "where") ||
		!strings.EqualFold(toks[4], "id") || toks[5] != "=" {
		return event{}, false
	}
	status, ok1 := sqlString(toks[2])
	id, ok2 := sqlString(toks[6])
	if !ok1 || !ok2 || id == "" || status == "" {
		return event{}, false
	}
	return event{kind: evTask, id: id, status: status}, true
}

// sqlList reads "( a , b , … )" from the start of toks.
func sqlList(toks []string) (items, rest []string, ok bool) {
	if len(toks) == 0 || toks[0] != "(" {
		return nil, toks, false
	}
	for i := 1; i+1 < len(toks); i += 2 {
		if strings.ContainsAny(toks[i], "(),=") && toks[i][0] != '\'' {
			return nil, toks, false
		}
		items = append(items, toks[i])
		switch toks[i+1] {
		case ")":
			return items, toks[i+2:], true
		case ",":
		default:
			return nil, toks, false
		}
	}
	return nil, toks, false
}

// sqlString reads a quoted SQL string token.
func sqlString(tok string) (string, bool) {
	if len(tok) < 2 || tok[0] != '\'' || tok[len(tok)-1] != '\'' {
		return "", false
	}
	return strings.ReplaceAll(tok[1:len(tok)-1], "''", "'"), true
}

// splitSQL splits a query at the semicolons outside quotes.
func splitSQL(q string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '\'':
			quoted = !quoted
		case ';':
			if !quoted {
				out = append(out, q[start:i])
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(q[start:]) != "" {
		out = append(out, q[start:])
	}
	return out
}

// sqlTokens splits a statement into words, quoted strings (quotes kept,
// ” inside), and the punctuation ( ) , =. An unclosed string or another
// character ends it with nothing: the caller then reads no todo.
func sqlTokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			i++
		case ch == '(' || ch == ')' || ch == ',' || ch == '=':
			out = append(out, s[i:i+1])
			i++
		case ch == '\'':
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], '\'')
				if k < 0 {
					return nil
				}
				j += k + 1
				if j < len(s) && s[j] == '\'' {
					j++
					continue
				}
				break
			}
			out = append(out, s[i:j])
			i = j
		case ch == '_' || ch < 0x80 && (unicode.IsLetter(rune(ch)) || unicode.IsDigit(rune(ch))):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] < 0x80 && (unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j])))) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			return nil
		}
		if len(out) > 4*maxTodos {
			return nil
		}
	}
	return out
}

// CopilotEventsFile is the event log of the GitHub Copilot CLI session id,
// in the first of the agent's directories that holds it; "" when none
// does or id is not a plain name (it comes from a hook's input).
func CopilotEventsFile(id string, roots []string) string {
	if !IsCopilotSessionID(id) {
		return ""
	}
	for _, root := range roots {
		p := filepath.Join(root, id, copilotEvents)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// IsCopilotSessionID says whether id can name a session directory: one
// plain path element, bounded.
func IsCopilotSessionID(id string) bool {
	return id != "" && id == filepath.Base(id) && id != "." && id != ".." && len(id) <= maxID && !strings.ContainsRune(id, '\\')
}

// CopilotEnded says whether the event log file has grown past size and
// now ends with a session.shutdown line: GitHub Copilot CLI 1.0.102 keeps
// a run's events in memory and writes them when the session shuts down,
// after its sessionEnd hook has run (seen offline: at sessionEnd and at
// agentStop the file held session.start and the hook's lines only).
func CopilotEnded(file string, size int64) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= size {
		return false
	}
	const tail = 64 << 10
	off := max(fi.Size()-tail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return false
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	return strings.Contains(lines[len(lines)-1], `"type":"session.shutdown"`)
}

// CopilotDirs are the agent's own directories, most preferred first, under
// home unless its environment variables move them (agent.Agent.OwnDirs).
func CopilotDirs(home string, getenv func(string) string) []string {
	if d := getenv("COPILOT_HOME"); d != "" {
		return []string{d}
	}
	out := []string{filepath.Join(home, ".copilot")}
	if st := getenv("XDG_STATE_HOME"); st != "" && filepath.IsAbs(st) {
		out = append(out, filepath.Join(st, ".copilot"))
	}
	return out
}

// CopilotSessionsDir is the directory under each of CopilotDirs that holds
// its transcripts.
const CopilotSessionsDir = "session-state"
