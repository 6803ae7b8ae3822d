package capture

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
)

// A Gemini CLI chat recording is, in its current form, a log of JSON
// lines: a metadata line first (sessionId, projectHash, startTime…), then
// message records (type user or gemini, with toolCalls), where a record
// whose id was seen before replaces that message in place; {"$set": {...}}
// updates the metadata (and $set.messages replaces the whole list);
// {"$rewindTo": id} drops that message and every later one, as Gemini CLI
// does. Older sessions are one pretty-printed ConversationRecord object
// with a messages array.

type geminiReader struct {
	d        *Digest
	lim      Limits
	span     timeSpan
	meta     map[string]any
	ids      []string
	byID     map[string]map[string]any
	archived []map[string]any
}

// ReadGemini reads a Gemini CLI chat recording, in the JSONL form or the
// older single-object .json form.
func ReadGemini(r io.Reader, limits Limits) (*Digest, error) {
	return readGemini(r, limits.withDefaults(), "")
}

// readGemini reads a recording; rootHint is the project root when the
// caller knows it from where the file lies.
func readGemini(r io.Reader, lim Limits, rootHint string) (*Digest, error) {
	return readGeminiShaped(r, lim, rootHint, geminiShape)
}

func readGeminiShaped(r io.Reader, lim Limits, rootHint string, sh *shape) (*Digest, error) {
	g := &geminiReader{d: &Digest{}, lim: lim, meta: map[string]any{}, byID: map[string]map[string]any{}}
	lr := newLineReader(io.LimitReader(r, lim.MaxFile), lim.MaxLine)
	var p jsonParser
	first := true
	for {
		line, tooLong, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if !tooLong && len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if first {
			first = false
			if !tooLong && string(bytes.TrimSpace(line)) == "{" {
				// The older form: one object spread over many lines.
				head := append(append([]byte(nil), line...), '\n')
				g.legacy(io.MultiReader(bytes.NewReader(head), lr.br))
				break
			}
		}
		countLine(&p, line, lr.n, tooLong, &g.d.Stats, sh, g.record)
	}
	return g.finish(rootHint)
}

func (g *geminiReader) record(m map[string]any) {
	switch {
	case isStr(m["$rewindTo"]):
		g.rewind(m["$rewindTo"].(string))
	case isStr(m["id"]):
		g.upsert(m)
	case getMap(m, "$set") != nil:
		g.set(getMap(m, "$set"))
	case isStr(m["sessionId"]):
		if msgs, ok := m["messages"].([]any); ok {
			// The older form written on one line.
			g.set(map[string]any{"messages": msgs})
			delete(m, "messages")
		}
		g.set(m)
	default:
		g.d.Stats.Unknown++
	}
}

func isStr(v any) bool {
	_, ok := v.(string)
	return ok
}

func (g *geminiReader) upsert(m map[string]any) {
	id := m["id"].(string)
	t, ok := getTime(m, "timestamp")
	g.span.add(t, ok)
	if _, seen := g.byID[id]; !seen {
		g.ids = append(g.ids, id)
	}
	g.byID[id] = m
}

func (g *geminiReader) rewind(id string) {
	for i, x := range g.ids {
		if x == id {
			for _, gone := range g.ids[i:] {
				delete(g.byID, gone)
			}
			g.ids = g.ids[:i]
			return
		}
	}
	// Gemini CLI clears the conversation when the target is unknown.
	g.ids = nil
	g.byID = map[string]map[string]any{}
}

func (g *geminiReader) set(upd map[string]any) {
	for k, v := range upd {
		if k == "messages" {
			msgs, ok := v.([]any)
			if !ok || len(msgs) == 0 {
				continue
			}
			// The list is replaced, after a compression for one. What
			// the dropped messages did still happened: keep them aside.
			keep := map[string]bool{}
			for _, x := range msgs {
				if mm, ok := x.(map[string]any); ok && isStr(mm["id"]) {
					keep[mm["id"].(string)] = true
				}
			}
			for _, id := range g.ids {
				if !keep[id] {
					g.archived = append(g.archived, g.byID[id])
				}
			}
			g.ids, g.byID = nil, map[string]map[string]any{}
			for _, x := range msgs {
				if mm, ok := x.(map[string]any); ok && isStr(mm["id"]) {
					g.upsert(mm)
				}
			}
			continue
		}
		if k == "lastUpdated" || k == "startTime" {
			t, ok := parseTime(getStr(upd, k))
			g.span.add(t, ok)
		}
		g.meta[k] = v
	}
}

// legacy reads the older form as a stream: the messages one at a time.
func (g *geminiReader) legacy(r io.Reader) {
	st := &g.d.Stats
	st.Lines++
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		st.Malformed++
		return
	}
	st.Records++
	top := map[string]any{}
	defer func() { g.set(top) }() // what was read counts, even when the rest is broken
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			st.Malformed++
			return
		}
		if key != "messages" {
			var v any
			if err := dec.Decode(&v); err != nil {
				st.Malformed++
				return
			}
			top[key] = v
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			st.Malformed++
			return
		}
		for dec.More() {
			var v any
			if err := dec.Decode(&v); err != nil {
				st.Malformed++
				return
			}
			st.Lines++
			if m, ok := v.(map[string]any); ok && isStr(m["id"]) {
				st.Records++
				g.upsert(m)
			} else {
				st.Malformed++
			}
		}
		if _, err := dec.Token(); err != nil {
			st.Malformed++
			return
		}
	}
}

func (g *geminiReader) finish(rootHint string) (*Digest, error) {
	d := g.d
	d.Session.ID = getStr(g.meta, "sessionId")
	if t, ok := parseTime(getStr(g.meta, "startTime")); ok {
		d.Session.StartedAt = &t
	} else {
		d.Session.StartedAt = timePtr(g.span.first)
	}
	d.Session.LastActivity = timePtr(g.span.last)
	d.Title = getStr(g.meta, "summary")

	msgs := slices.Clip(g.archived)
	for _, id := range g.ids {
		msgs = append(msgs, g.byID[id])
	}
	var touched []string
	for _, p := range getArr(getMap(g.meta, "memoryScratchpad"), "touchedPaths") {
		if s, ok := p.(string); ok && strings.TrimSpace(s) != "" && len(touched) < maxFiles {
			touched = append(touched, s)
		}
	}

	var events []event
	for _, m := range msgs {
		events = append(events, geminiMessage(m)...)
	}

	// The working directory: the first workspace directory, else where
	// the recording lies, else what the touched paths imply.
	if dirs := getArr(g.meta, "directories"); len(dirs) > 0 {
		d.CWD, _ = dirs[0].(string)
	}
	if d.CWD == "" {
		d.CWD = rootHint
	}
	if d.CWD == "" {
		d.CWD = inferRoot(events, touched)
	}

	f := newFolder()
	for _, e := range events {
		foldEvent(f, d.CWD, e)
	}
	if len(touched) > 0 {
		t := event{kind: evTouch}
		for _, p := range touched {
			t.ops = append(t.ops, fileOp{path: joinPath(d.CWD, p)})
		}
		foldEvent(f, d.CWD, t)
	}
	f.finish(d)
	if err := finishCommon(d, Gemini); err != nil {
		return nil, err
	}
	return d, nil
}

// geminiExit finds the exit code a shell command's output states, as
// (?m)^Exit Code: (-?\d{1,10})\s*$ would.
func geminiExit(out string) *int {
	if n, ok := exitLine(out, "Exit Code:"); ok {
		return parseExit(n)
	}
	return nil
}

func geminiMessage(m map[string]any) []event {
	id := getStr(m, "id")
	var evs []event
	switch getStr(m, "type") {
	case "user":
		content := m["displayContent"]
		if geminiText(content) == "" {
			content = m["content"]
		}
		text := strings.TrimSpace(geminiText(content))
		if strings.HasPrefix(text, "<state_snapshot>") {
			return []event{evCompact(text)}
		}
		if text != "" {
			evs = append(evs, evReq(text))
		}
	case "gemini":
		if text := strings.TrimSpace(geminiText(m["content"])); text != "" {
			evs = append(evs, evAgent(id, text))
		}
		for i, tc := range getArr(m, "toolCalls") {
			if tc, ok := tc.(map[string]any); ok {
				evs = append(evs, geminiToolCall(id, i, tc)...)
			}
		}
		if t := getMap(m, "tokens"); t != nil {
			in, cached := getCount(t, "input"), getCount(t, "cached")
			evs = append(evs, event{kind: evTokens, id: "msg:" + id, tokens: handoff.Tokens{
				Input:     max(in-cached, 0),
				Output:    satAdd(getCount(t, "output"), getCount(t, "thoughts")),
				CacheRead: cached,
			}})
		}
	}
	return evs
}

func geminiToolCall(msgID string, i int, tc map[string]any) []event {
	id := getStr(tc, "id")
	if id == "" {
		id = msgID + "#" + strconv.Itoa(i)
	}
	args := getMap(tc, "args")
	if args == nil {
		args = map[string]any{}
	}
	status := getStr(tc, "status")
	out := geminiResultText(tc["result"])
	if out == "" {
		out = getStr(tc, "resultDisplay")
	}
	filePath := firstNonEmpty(getStr(args, "file_path"), getStr(args, "absolute_path"), getStr(args, "path"))
	var call event
	switch getStr(tc, "name") {
	case "run_shell_command":
		call = evCmd(id, getStr(args, "command"))
	case "replace", "edit", "smart_edit":
		call = evOps(id, fileOp{path: filePath, op: opEdit, n: 1})
	case "write_file":
		op := opWrite
		switch {
		case strings.Contains(out, "created"):
			op = opCreate
		case strings.Contains(out, "overwrote"):
			op = opEdit
		}
		call = evOps(id, fileOp{path: filePath, op: op, n: 1})
	case "read_file":
		call = evOps(id, fileOp{path: filePath, op: opRead})
	case "write_todos":
		if todos, ok := args["todos"].([]any); ok {
			return []event{evTodoList(parseTodos(todos, "description", "content"))}
		}
		return nil
	default:
		return nil
	}
	var res event
	switch status {
	case "success":
		exit := intPtr(0)
		if n, ok := exitLine(out, "Exit Code:"); ok {
			exit = parseExit(n)
		}
		res = evOut(id, exit, exit != nil && *exit != 0, true, out)
	case "error":
		exit := geminiExit(out)
		res = evOut(id, exit, true, true, out)
	case "cancelled":
		res = event{kind: evResult, id: id, skipped: true}
	default:
		return []event{call}
	}
	return []event{call, res}
}

// geminiText joins the text parts of a content (a string, a part, or a
// list of parts), leaving out the model's thoughts.
func geminiText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case map[string]any:
		if getBool(c, "thought") {
			return ""
		}
		return getStr(c, "text")
	case []any:
		var parts []string
		for _, p := range c {
			if t := geminiText(p); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// geminiResultText reads the output of a tool call's result parts.
func geminiResultText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case map[string]any:
		if fr := getMap(c, "functionResponse"); fr != nil {
			resp := getMap(fr, "response")
			return firstNonEmpty(getStr(resp, "output"), getStr(resp, "error"), getStr(resp, "llmContent"), getStr(resp, "content"))
		}
		return getStr(c, "text")
	case []any:
		var parts []string
		for _, p := range c {
			if t := geminiResultText(p); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// inferRoot finds the directory that absolute tool paths share with the
// relative touched paths: /r/a/b.go and a/b.go give /r.
func inferRoot(events []event, touched []string) string {
	for _, e := range events {
		for _, op := range e.ops {
			if !strings.HasPrefix(op.path, "/") {
				continue
			}
			for _, t := range touched {
				t = strings.TrimPrefix(t, "./")
				if t == "" || strings.HasPrefix(t, "/") {
					continue
				}
				if root, ok := strings.CutSuffix(op.path, "/"+t); ok && root != "" {
					return root
				}
			}
		}
	}
	return ""
}

// geminiProjectRoot reads the .project_root marker that Gemini CLI keeps
// in a project's directory under ~/.gemini/tmp, for a recording at file
// (chats/x.jsonl, or chats/<parent>/x.jsonl for a subagent).
func geminiProjectRoot(file string) string {
	dir := filepath.Dir(filepath.Dir(file))
	for range 2 {
		if root := readSmall(filepath.Join(dir, ".project_root"), 4096); root != "" {
			root = strings.TrimSpace(root)
			if strings.HasPrefix(root, "/") && !strings.ContainsAny(root, "\n\x00") {
				return root
			}
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

// readSmall returns the start of a small regular file, at most n bytes,
// or "" when it cannot.
func readSmall(file string, n int64) string {
	fi, err := os.Stat(file)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return ""
	}
	return clean(string(b))
}
