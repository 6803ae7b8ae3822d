package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/carry"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// Native writes Gemini CLI chat recordings (launch --native): one JSON
// object a line in tmp/<project>/chats/session-YYYY-MM-DDTHH-MM-<first 8
// of id>.jsonl under ~/.gemini ($GEMINI_CLI_HOME/.gemini), where gemini
// --resume ID finds a session of that project by the sessionId of its
// first line (a random UUID) ({"sessionId", "projectHash": the SHA-256 of the project's
// path, "startTime", "lastUpdated", "kind": "main"}). Each later line is
// a message: {"id", "timestamp", "type": "user", "content": [{"text"}]}
// for a user turn; {"type": "gemini", "content": text} for an assistant
// turn; a shell command a gemini message with one toolCalls entry
// (run_shell_command {"command"}, its result a functionResponse and its
// status). Another tool call becomes the assistant's words about it
// (carry.FitShellOnly). The project's directory is the one Gemini CLI's
// project registry gives the worktree's path (projects.json, or a
// directory whose .project_root names it); when it has none yet, a new
// one named as Gemini CLI names it (the path's base name, lower-cased,
// every other character "-", a counter when taken) with its
// .project_root, which Gemini CLI adopts
// (ProjectRegistry.findExistingSlugForPath); projects.json itself, Gemini
// CLI's to rewrite, is never written. The format is read from
// testdata/real-e2e and Gemini CLI 0.61.0's bundle
// (convertSessionToClientHistory, ProjectRegistry, ChatRecordingService).
type Native struct{}

// Name is the target's name.
func (Native) Name() string { return Name }

// Checked lists the Gemini CLI versions the format was checked against.
func (Native) Checked() []string { return []string{"0.61.0"} }

// projectSlug is the name Gemini CLI gives a new project's directory:
// the base name of its path, lower-cased, each run of other characters
// than a-z and 0-9 one "-", none at either end.
func projectSlug(cwd string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(filepath.Base(cwd)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	if b.Len() == 0 {
		return "project"
	}
	return b.String()
}

// projectDir is the directory under tmp Gemini CLI keeps the project at
// cwd in, and whether its .project_root must be made.
func projectDir(home, cwd string) (string, bool) {
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
	base := projectSlug(cwd)
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
func (w Native) Plan(c *carry.Conversation, o carry.Options) (*carry.Planned, error) {
	// A random id (version 4, as Gemini CLI makes them): the file's name
	// holds its first 8 characters and the minute, which a time-ordered
	// id's would repeat within a minute.
	d, err := carry.Begin(Name, c, o, carry.NewRandomID, carry.FitShellOnly)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(o.CWD))
	start := d.Stamp()
	if err := d.Line(map[string]any{"sessionId": d.ID, "projectHash": hex.EncodeToString(sum[:]), "startTime": start, "lastUpdated": start, "kind": "main"}); err != nil {
		return nil, err
	}
	for i, t := range d.Want.Turns {
		msgID := fmt.Sprintf("%s-%d", d.ID, i)
		var err error
		switch t.Kind {
		case carry.User:
			err = d.Line(map[string]any{"id": msgID, "timestamp": d.Stamp(), "type": "user", "content": []map[string]string{{"text": t.Text}}})
		case carry.Assistant:
			err = d.Line(map[string]any{"id": msgID, "timestamp": d.Stamp(), "type": "gemini", "content": t.Text, "thoughts": []any{}, "model": "imported"})
		case carry.Call:
			callID := fmt.Sprintf("run_shell_command_imported_%d", i)
			status := "success"
			if t.Failed {
				status = "error"
			}
			resp := map[string]any{"functionResponse": map[string]any{"id": callID, "name": "run_shell_command", "response": map[string]string{"output": carry.CallOutput(t)}}}
			call := map[string]any{"id": callID, "name": "run_shell_command", "args": map[string]string{"command": t.Text, "description": "imported"},
				"result": []any{resp}, "status": status, "timestamp": d.Stamp()}
			err = d.Line(map[string]any{"id": msgID, "timestamp": d.Stamp(), "type": "gemini", "content": "", "thoughts": []any{}, "model": "imported", "toolCalls": []any{call}})
		}
		if err != nil {
			return nil, d.Turn(i, err)
		}
	}
	slug, mark := projectDir(o.Home, o.CWD)
	dir := filepath.Join(o.Home, "tmp", slug)
	p := d.Planned(filepath.Join(dir, "chats", "session-"+d.Now.UTC().Format("2006-01-02T15-04")+"-"+d.ID[:min(8, len(d.ID))]+".jsonl"),
		Agent().Program, "--resume", d.ID)
	if mark {
		p.Marker = &carry.File{Path: filepath.Join(dir, ".project_root"), Data: []byte(o.CWD)}
	}
	return p, nil
}
