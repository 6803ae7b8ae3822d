package native

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// Gemini writes Gemini CLI chat recordings: one JSON object a line in
// tmp/<project>/chats/session-YYYY-MM-DDTHH-MM-<first 8 of id>.jsonl
// under ~/.gemini ($GEMINI_CLI_HOME/.gemini), where gemini --resume ID
// finds a session of that project by the sessionId of its first line
// ({"sessionId", "projectHash": the SHA-256 of the project's path,
// "startTime", "lastUpdated", "kind": "main"}). Each later line is a
// message: {"id", "timestamp", "type": "user", "content": [{"text"}]} for
// a user turn; {"type": "gemini", "content": text} for an assistant
// turn; a shell command a gemini message with one toolCalls entry
// (run_shell_command {"command"}, its result a functionResponse and its
// status). Another tool call becomes the assistant's words about it, as
// for Claude Code. The project's directory is the one Gemini CLI's
// project registry gives the worktree's path (projects.json, or a
// directory whose .project_root names it); when it has none yet, a new
// one named as Gemini CLI names it (the path's base name, lower-cased,
// every other character "-", a counter when taken) with its .project_root,
// which Gemini CLI adopts (ProjectRegistry.findExistingSlugForPath);
// projects.json itself, Gemini CLI's to rewrite, is never written. The
// format is read from internal/agents/gemini/testdata/real-e2e and
// Gemini CLI 0.61.0's bundle (convertSessionToClientHistory,
// ProjectRegistry, ChatRecordingService).
type Gemini struct{}

// Name is the target's name.
func (Gemini) Name() string { return agents.Gemini }

// Checked lists the Gemini CLI versions the format was checked against.
func (Gemini) Checked() []string { return []string{"0.61.0"} }

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// geminiProject is the directory under tmp Gemini CLI keeps the project
// at cwd in, and whether its .project_root must be made.
func geminiProject(home, cwd string) (string, bool) {
	tmp := filepath.Join(home, "tmp")
	owner := func(slug string) string {
		b, err := safefile.ReadFile(filepath.Join(tmp, slug, ".project_root"), 4096)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if b, err := safefile.ReadFile(filepath.Join(home, "projects.json"), 1<<20); err == nil {
		_ = json.Unmarshal(b, &reg)
	}
	if slug, ok := reg.Projects[cwd]; ok && slug != "" && !strings.ContainsAny(slug, `/\`) && owner(slug) == cwd {
		return slug, false
	}
	if entries, err := os.ReadDir(tmp); err == nil {
		for _, e := range entries {
			if e.IsDir() && owner(e.Name()) == cwd {
				return e.Name(), false
			}
		}
	}
	taken := map[string]bool{}
	for _, s := range reg.Projects {
		taken[s] = true
	}
	base := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(filepath.Base(cwd)), "-"), "-")
	if base == "" {
		base = "project"
	}
	for n := 0; ; n++ {
		slug := base
		if n > 0 {
			slug = fmt.Sprintf("%s-%d", base, n)
		}
		if taken[slug] {
			continue
		}
		if _, err := os.Lstat(filepath.Join(tmp, slug, ".project_root")); err == nil {
			continue
		}
		if _, err := os.Lstat(filepath.Join(home, "history", slug, ".project_root")); err == nil && n < 1000 {
			continue
		}
		return slug, true
	}
}

// Plan lays c out as a Gemini CLI chat recording under o.
func (w Gemini) Plan(c *Conversation, o Options) (*Planned, error) {
	if o.Home == "" || o.CWD == "" {
		return nil, fmt.Errorf("%s: no home or working directory to write for", w.Name())
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	id := o.ID
	if id == "" {
		id = newID(now)
	}
	want := written(c, w.Name(), claudeFit)
	ts := now.UTC()
	stamp := func() string {
		s := ts.Format("2006-01-02T15:04:05.000Z")
		ts = ts.Add(time.Millisecond)
		return s
	}
	sum := sha256.Sum256([]byte(o.CWD))
	var buf bytes.Buffer
	put := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
		return nil
	}
	start := stamp()
	if err := put(map[string]any{"sessionId": id, "projectHash": hex.EncodeToString(sum[:]), "startTime": start, "lastUpdated": start, "kind": "main"}); err != nil {
		return nil, err
	}
	for i, t := range want.Turns {
		msgID := fmt.Sprintf("%s-%d", id, i)
		var err error
		switch t.Kind {
		case User:
			err = put(map[string]any{"id": msgID, "timestamp": stamp(), "type": "user", "content": []map[string]string{{"text": t.Text}}})
		case Assistant:
			err = put(map[string]any{"id": msgID, "timestamp": stamp(), "type": "gemini", "content": t.Text, "thoughts": []any{}, "model": "imported"})
		case Call:
			callID := fmt.Sprintf("run_shell_command_imported_%d", i)
			status := "success"
			if t.Failed {
				status = "error"
			}
			resp := map[string]any{"functionResponse": map[string]any{"id": callID, "name": "run_shell_command", "response": map[string]string{"output": callOutput(t)}}}
			call := map[string]any{"id": callID, "name": "run_shell_command", "args": map[string]string{"command": t.Text, "description": "imported"},
				"result": []any{resp}, "status": status, "timestamp": stamp()}
			err = put(map[string]any{"id": msgID, "timestamp": stamp(), "type": "gemini", "content": "", "thoughts": []any{}, "model": "imported", "toolCalls": []any{call}})
		}
		if err != nil {
			return nil, fmt.Errorf("%s: turn %d: %w", w.Name(), i+1, err)
		}
	}
	slug, mark := geminiProject(o.Home, o.CWD)
	dir := filepath.Join(o.Home, "tmp", slug)
	p := &Planned{
		Target: w.Name(), ID: id, Data: buf.Bytes(), conv: want,
		Path:   filepath.Join(dir, "chats", "session-"+now.UTC().Format("2006-01-02T15-04")+"-"+id[:8]+".jsonl"),
		Resume: []string{program(w.Name()), "--resume", id},
	}
	if mark {
		p.Marker = &File{Path: filepath.Join(dir, ".project_root"), Data: []byte(o.CWD)}
	}
	return p, nil
}
