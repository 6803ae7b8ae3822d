package gemini

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// Hand-made recordings in the shapes Gemini CLI's sources give
// (google-gemini/gemini-cli 0.56.0-nightly (5411f113)
// packages/core/src/services/chatRecordingService.ts: a subagent's
// recording, chats/<parent id>/<id>.jsonl, metadata kind "subagent"; and
// chatRecordingTypes.ts; packages/core/src/tools/trackerTools.ts
// (returnDisplay {todos: [{description, status}]}), topicTool.ts
// (update_topic {title, summary, strategic_intent}), enter-plan-mode.ts
// and exit-plan-mode.ts ({plan_filename}; "Plan approved: …", "Plan
// rejected. User feedback: …")), for what no real recording shows:
// rewinds, compression, subagents, plans, cancelled turns.

func TestGeminiRewindSetAndCompression(t *testing.T) {
	d := mustRead(t, gemini, expect.Lines(
		`{"sessionId":"g1","projectHash":"h","startTime":"2026-01-01T00:00:00Z","lastUpdated":"2026-01-01T00:00:00Z","directories":["/p"]}`,
		`{"id":"a","timestamp":"2026-01-01T00:00:01Z","type":"user","content":"first"}`,
		`{"id":"b","timestamp":"2026-01-01T00:00:02Z","type":"gemini","content":"","toolCalls":[{"id":"t1","name":"run_shell_command","args":{"command":"make"},"status":"executing"}]}`,
		// The same message again, now with its result: it replaces the first.
		`{"id":"b","timestamp":"2026-01-01T00:00:02Z","type":"gemini","content":"","toolCalls":[{"id":"t1","name":"run_shell_command","args":{"command":"make"},"status":"success","result":[{"functionResponse":{"id":"t1","name":"run_shell_command","response":{"output":"Command: make\nOutput: ok"}}}]}],"tokens":{"input":10,"output":2,"cached":0}}`,
		`{"id":"c","timestamp":"2026-01-01T00:00:03Z","type":"user","content":[{"text":"second"}]}`,
		`{"id":"d","timestamp":"2026-01-01T00:00:04Z","type":"gemini","content":"","toolCalls":[{"id":"t2","name":"write_file","args":{"file_path":"/p/rewound.txt"},"status":"success","result":"Successfully created and wrote to new file: /p/rewound.txt."}]}`,
		`{"$rewindTo":"c"}`,
		`{"id":"e","timestamp":"2026-01-01T00:00:05Z","type":"user","content":"third","displayContent":"third as typed"}`,
		`{"id":"f","timestamp":"2026-01-01T00:00:06Z","type":"gemini","content":[{"text":"thinking…","thought":true},{"text":"Will do."}],"toolCalls":[{"id":"t3","name":"replace","args":{"file_path":"/p/x.go"},"status":"error","result":"no match"},{"id":"t4","name":"write_todos","args":{"todos":[{"description":"Port x","status":"in_progress"},{"description":"Test x","status":"cancelled"}]},"status":"success"}]}`,
		`{"$set":{"messages":[{"id":"s1","type":"user","content":[{"text":"<state_snapshot>goal: port x; done: make passes</state_snapshot>"}]},{"id":"f","timestamp":"2026-01-01T00:00:06Z","type":"gemini","content":"Will do.","toolCalls":[{"id":"t4","name":"write_todos","args":{"todos":[{"description":"Port x","status":"in_progress"},{"description":"Test x","status":"cancelled"}]},"status":"success"}]}],"lastUpdated":"2026-01-01T00:00:07Z"}}`,
		`{"id":"g","timestamp":"2026-01-01T00:00:08Z","type":"user","content":"fourth"}`,
	))
	s := d.Session
	if strings.Join(s.Requests, "|") != "first|third as typed|fourth" {
		t.Errorf("requests %q", s.Requests)
	}
	if c := expect.CommandNamed(s.Commands, "make"); c == nil || c.Count != 1 || c.ExitCode == nil || *c.ExitCode != 0 {
		t.Errorf("upserted command %+v", s.Commands)
	}
	if expect.FileAt(d.Files, "rewound.txt") != nil || expect.FileAt(d.Files, "x.go") != nil {
		t.Errorf("files %+v: rewound and failed edits must not show", d.Files)
	}
	if !strings.Contains(s.CompactionSummary, "make passes") {
		t.Errorf("compaction %q", s.CompactionSummary)
	}
	if len(s.Todos) != 2 || s.Todos[1].Status != "cancelled" {
		t.Errorf("todos %+v", s.Todos)
	}
	if s.LastAgentMessage != "Will do." {
		t.Errorf("last agent message %q (thoughts must not show)", s.LastAgentMessage)
	}
	if s.LastActivity == nil || s.LastActivity.Format("15:04:05") != "00:00:08" {
		t.Errorf("last activity %v", s.LastActivity)
	}
}

func TestGeminiLegacyJSON(t *testing.T) {
	in := `{
  "sessionId": "legacy-1",
  "projectHash": "abc",
  "startTime": "2025-09-01T10:00:00.000Z",
  "lastUpdated": "2025-09-01T10:05:00.000Z",
  "messages": [
    {"id": "1", "timestamp": "2025-09-01T10:00:01.000Z", "type": "user", "content": "Rename the flag"},
    {"id": "2", "timestamp": "2025-09-01T10:00:02.000Z", "type": "gemini", "content": "Done.",
     "toolCalls": [{"id": "t", "name": "replace", "args": {"file_path": "/proj/main.go"}, "status": "success"}]}
  ],
  "summary": "Flag rename"
}
`
	d := mustRead(t, gemini, in)
	if d.Session.ID != "legacy-1" || d.Title != "Flag rename" || expect.LastRequest(d.Session) != "Rename the flag" || expect.FileAt(d.Files, "/proj/main.go") == nil {
		t.Errorf("legacy digest %+v", d)
	}
	if _, err := gemini("{\n  \"sessionId\": \"x\",\n  \"messages\": [ {\"id\": \n"); err != nil {
		t.Errorf("a cut legacy file still gives what it has: %v", err)
	}
}

func TestNoValidRecord(t *testing.T) {
	for _, in := range []string{"", "\n\n", "not json\n", "null\n[1]\n\"x\"\n"} {
		if _, err := gemini(in); !errors.Is(err, transcript.ErrNoRecords) {
			t.Errorf("%q: %v, want ErrNoRecords", in, err)
		}
	}
}

// readWhole reads a recording holding every message whole until the end,
// in one pass (the older form as read does): what the reader's passes
// must give too.
func readWhole(data []byte, lim transcript.Limits) (*transcript.Digest, error) {
	b := transcript.NewBuilder()
	g := newChat[*message](b)
	st := &b.Digest().Stats
	n := int32(-1)
	legacy := false
	err := transcript.EachLine(bytes.NewReader(data), lim, st, func(l []byte) error {
		n++
		if legacy = legacy || n == 0 && st.Lines == 0 && string(bytes.TrimSpace(l)) == "{"; legacy {
			return nil
		}
		return g.record(n, l, func(_, idx int32, set bool) *message {
			if idx < 0 {
				m := &message{}
				_ = transcript.Decode(l, m)
				return m
			}
			var list messageList
			_ = transcript.Decode(l, &list)
			if set {
				return &list.Set.Messages[idx]
			}
			return &list.Messages[idx]
		})
	})
	if err != nil {
		return nil, err
	}
	if legacy {
		return readLegacy(io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), "")
	}
	msgs := g.messages()
	return finish(g, "", func(fn func(*message)) error {
		for _, m := range msgs {
			fn(m)
		}
		return nil
	})
}

// TestGeminiPassesAgree reads real recordings and hand-made ones whose
// messages are rewritten, rewound and replaced, in one pass (every
// message kept) and in several (the messages folded as they come): the
// digests must be the same.
func TestGeminiPassesAgree(t *testing.T) {
	inputs := map[string][]byte{
		"rewrites": []byte(expect.Lines(
			`{"sessionId":"s","projectHash":"h"}`,
			`{"id":"a","type":"user","content":"first"}`,
			`{"id":"b","type":"gemini","content":"","toolCalls":[{"id":"1","name":"write_file","args":{"file_path":"/r/x/a.go","content":"x"},"status":"executing"}]}`,
			`{"id":"b","type":"gemini","content":"done","toolCalls":[{"id":"1","name":"write_file","args":{"file_path":"/r/x/a.go","content":"x"},"status":"success","result":"Successfully created and wrote to new file"}]}`,
			`{"id":"c","type":"user","content":"second"}`,
			`{"id":"d","type":"gemini","content":"","toolCalls":[{"id":"2","name":"run_shell_command","args":{"command":"make"},"status":"error","result":"Exit Code: 2"}]}`,
			`{"$rewindTo":"d"}`,
			`{"id":"e","type":"gemini","content":"","toolCalls":[{"id":"3","name":"run_shell_command","args":{"command":"make test"},"status":"success"}]}`,
			`{"$set":{"memoryScratchpad":{"touchedPaths":["x/a.go"]},"lastUpdated":"2026-01-01T00:00:00Z"}}`,
		)),
		// A compression replaces the list; the dropped messages still count.
		"replaced": []byte(expect.Lines(
			`{"sessionId":"s","projectHash":"h","directories":["/r"]}`,
			`{"id":"a","type":"user","content":"one"}`,
			`{"id":"b","type":"gemini","content":"","toolCalls":[{"id":"1","name":"replace","args":{"file_path":"/r/a.go"},"status":"success"}]}`,
			`{"$set":{"messages":[{"id":"s","type":"user","content":"<state_snapshot>summary</state_snapshot>"},{"id":"a","type":"user","content":"one, again"}]}}`,
			`{"id":"c","type":"user","content":"two"}`,
		)),
		// A message rewritten after the next one began waits for it.
		"out of order": []byte(expect.Lines(
			`{"sessionId":"s","projectHash":"h"}`,
			`{"id":"a","type":"user","content":"one"}`,
			`{"id":"b","type":"user","content":"two"}`,
			`{"id":"a","type":"user","content":"one, edited"}`,
		)),
	}
	files, _ := filepath.Glob(filepath.Join(realDir, "gemini", "*", "*"))
	e2e, _ := filepath.Glob(filepath.Join(realE2EDir, "*", "*.jsonl"))
	if len(files) == 0 || len(e2e) == 0 {
		t.Fatalf("no real Gemini recordings under %s or %s", realDir, realE2EDir)
	}
	for _, f := range append(files, e2e...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = data
	}
	for name, data := range inputs {
		once, err1 := readWhole(data, transcript.Limits{}.WithDefaults())
		twice, err2 := gemini(string(data))
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(once, twice) {
			t.Errorf("%s: one pass %+v %v\nseveral %+v %v", name, once, err1, twice, err2)
		}
	}
	d := mustRead(t, gemini, string(inputs["rewrites"]))
	if d.CWD != "/r" || expect.FileAt(d.Files, "x/a.go") == nil || expect.CommandNamed(d.Session.Commands, "make") != nil || expect.CommandNamed(d.Session.Commands, "make test") == nil {
		t.Errorf("cwd %q files %+v commands %+v", d.CWD, d.Files, d.Session.Commands)
	}
}

// FuzzGeminiPasses checks that reading in passes gives what reading once
// gives, whatever the input.
func FuzzGeminiPasses(f *testing.F) {
	f.Add([]byte(expect.Lines(`{"sessionId":"s","projectHash":"h"}`, `{"id":"a","type":"user","content":"x"}`, `{"id":"b","type":"user","content":"y"}`, `{"id":"a","type":"user","content":"z"}`, `{"$rewindTo":"b"}`)))
	f.Add([]byte(expect.Lines(`{"sessionId":"s","projectHash":"h","messages":[{"id":"a","type":"user","content":"x"}]}`, `{"$set":{"messages":[{"id":"c","type":"user","content":"y"}],"memoryScratchpad":{"touchedPaths":["a"]}}}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := transcript.Limits{MaxLine: 64 << 10, MaxFile: 1 << 20}.WithDefaults()
		once, err1 := readWhole(data, lim)
		twice, err2 := read(io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), lim, "")
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(once, twice) {
			t.Fatalf("one pass %+v %v\nseveral %+v %v", once, err1, twice, err2)
		}
	})
}

// A relative and an absolute path to the same file are one file: a
// recording that names no directory, whose write_file was given a path
// relative to the project's root and whose replace an absolute one (as
// in a real Gemini CLI session the issue names: six such pairs). The
// root is what the two share; a relative path of one name only ("notes.md")
// proves nothing and leaves an absolute path elsewhere alone.
func TestGeminiRelativeAndAbsolutePathsAreOneFile(t *testing.T) {
	in := expect.Lines(
		`{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00Z"}`,
		`{"id":"a","type":"user","content":"make the app"}`,
		`{"id":"b","type":"gemini","content":"","toolCalls":[{"id":"1","name":"write_file","args":{"file_path":"M-Gemini/app/main.py","content":"x"},"status":"success","result":"Successfully created and wrote to new file: M-Gemini/app/main.py."}]}`,
		`{"id":"c","type":"gemini","content":"","toolCalls":[{"id":"2","name":"write_file","args":{"file_path":"notes.md","content":"x"},"status":"success","result":"Successfully created and wrote to new file: notes.md."}]}`,
		`{"id":"d","type":"gemini","content":"","toolCalls":[{"id":"3","name":"replace","args":{"file_path":"/home/ana/M-Gemini/app/main.py"},"status":"success","result":"Successfully modified file: /home/ana/M-Gemini/app/main.py (1 replacements)."}]}`,
		`{"id":"e","type":"gemini","content":"","toolCalls":[{"id":"4","name":"replace","args":{"file_path":"/srv/other/notes.md"},"status":"success","result":"Successfully modified file: /srv/other/notes.md (1 replacements)."}]}`,
		`{"id":"f","type":"gemini","content":"done"}`,
	)
	d := mustRead(t, gemini, in)
	expect.CheckFiles(t, d.Files, map[string]expect.File{
		"M-Gemini/app/main.py": {Action: "created", Edits: 2},
		"notes.md":             {Action: "created", Edits: 1},
		"/srv/other/notes.md":  {Action: "edited", Edits: 1},
	})
	if d.CWD != "/home/ana" {
		t.Errorf("cwd %q, want /home/ana", d.CWD)
	}
	once, err := readWhole([]byte(in), transcript.Limits{}.WithDefaults())
	if err != nil || !reflect.DeepEqual(once, d) {
		t.Errorf("one pass %+v %v\nseveral %+v", once, err, d)
	}
	// With the root recorded, the absolute path is made relative to it.
	d = mustRead(t, gemini, expect.Lines(
		`{"sessionId":"s","projectHash":"h","directories":["/home/ana/M-Gemini"]}`,
		`{"id":"a","type":"user","content":"make the app"}`,
		`{"id":"b","type":"gemini","content":"","toolCalls":[{"id":"1","name":"write_file","args":{"file_path":"app/main.py","content":"x"},"status":"success","result":"Successfully created and wrote to new file: app/main.py."}]}`,
		`{"id":"c","type":"gemini","content":"","toolCalls":[{"id":"2","name":"replace","args":{"file_path":"/home/ana/M-Gemini/app/main.py"},"status":"success","result":"Successfully modified file."}]}`,
	))
	expect.CheckFiles(t, d.Files, map[string]expect.File{"app/main.py": {Action: "created", Edits: 2}})
}

const gmParent = "aaaa1111-2222-4333-8444-555566667777"

func geminiTree(t *testing.T) (home, parent, child, old string) {
	t.Helper()
	home = t.TempDir()
	proj := filepath.Join(home, ".gemini", "tmp", "proj")
	writeFile(t, filepath.Join(proj, ".project_root"), "/src/proj", time.Time{})
	parent = filepath.Join(proj, "chats", "session-2026-04-02T12-00-aaaa1111.jsonl")
	writeFile(t, parent, expect.Lines(
		`{"sessionId":"`+gmParent+`","projectHash":"h","startTime":"2026-04-02T12:00:00Z","lastUpdated":"2026-04-02T12:00:00Z","kind":"main"}`,
		`{"id":"u0","timestamp":"2026-04-02T12:00:01Z","type":"user","content":[{"text":"<session_context>\nGEMINI.md: be terse\n</session_context>"}]}`,
		`{"id":"u1","timestamp":"2026-04-02T12:00:02Z","type":"user","content":[{"text":"Add a lexer"}]}`,
		`{"id":"g1","timestamp":"2026-04-02T12:00:03Z","type":"gemini","content":"","toolCalls":[`+
			`{"id":"t1","name":"update_topic","args":{"title":"Lexer work","summary":"Adding a lexer","strategic_intent":"tests first"},"status":"success"},`+
			`{"id":"t2","name":"codebase_investigator","args":{"objective":"look around"},"status":"success"}]}`,
		`{"id":"u2","timestamp":"2026-04-02T12:00:04Z","type":"user","content":[{"text":"<hook_context>lint ran</hook_context>"}]}`,
		`{"id":"u3","timestamp":"2026-04-02T12:00:05Z","type":"user","content":[{"text":"Please continue."}]}`,
		`{"id":"u4","timestamp":"2026-04-02T12:00:06Z","type":"user","content":[{"text":"/stats"}]}`,
		`{"id":"u5","timestamp":"2026-04-02T12:00:07Z","type":"user","content":[{"text":"System: Potential loop detected. Details: repeated reads. Please take a step back."}]}`,
		`{"id":"g2","timestamp":"2026-04-02T12:00:08Z","type":"gemini","content":"","toolCalls":[`+
			`{"id":"t3","name":"tracker_create_task","args":{"title":"Parser","description":"d","type":"task"},"status":"success",`+
			`"resultDisplay":{"todos":[{"description":"task: Lexer (abc123)","status":"in_progress"},{"description":"task: Parser (def456)","status":"blocked"},{"description":"epic: Done part (0a0b0c)","status":"completed"}]}}]}`,
		`{"$set":{"lastUpdated":"2026-04-02T12:09:00Z","summary":"An older summary"}}`,
	), time.Time{})
	child = filepath.Join(proj, "chats", gmParent, "sub-1.jsonl")
	writeFile(t, child, expect.Lines(
		`{"sessionId":"sub-1","projectHash":"h","startTime":"2026-04-02T12:00:03Z","lastUpdated":"2026-04-02T12:00:03Z","kind":"subagent","directories":["/src/proj"]}`,
		`{"id":"s1","timestamp":"2026-04-02T12:00:03Z","type":"user","content":[{"text":"Look around"}]}`,
		`{"id":"s2","timestamp":"2026-04-02T12:00:04Z","type":"gemini","content":"","toolCalls":[`+
			`{"id":"x1","name":"write_file","args":{"file_path":"/src/proj/notes.md","content":"n"},"status":"success","result":[{"functionResponse":{"id":"x1","name":"write_file","response":{"output":"Successfully created and wrote to new file: /src/proj/notes.md."}}}]},`+
			`{"id":"x2","name":"run_shell_command","args":{"command":"ls"},"status":"success","result":[{"functionResponse":{"id":"x2","name":"run_shell_command","response":{"output":"Output: a\nExit Code: 0"}}}]}]}`,
	), time.Time{})
	// Gemini CLI 0.30 to 0.35 kept a subagent's recording beside the
	// others, as one JSON object naming no parent.
	old = filepath.Join(proj, "chats", "session-2026-03-01T10-00-bbbb2222.json")
	writeFile(t, old, `{
  "sessionId": "bbbb2222-0000",
  "projectHash": "h",
  "startTime": "2026-03-01T10:00:00Z",
  "lastUpdated": "2026-03-01T10:05:00Z",
  "kind": "subagent",
  "messages": [{"id": "1", "type": "user", "content": "Investigate"}]
}`, time.Time{})
	return home, parent, child, old
}

func TestGeminiSubagentsFoldIntoTheirParent(t *testing.T) {
	_, parent, child, old := geminiTree(t)
	d := readFileT(t, parent)
	if strings.Join(d.Session.Requests, "|") != "Add a lexer" {
		t.Errorf("requests %q: injected turns counted", d.Session.Requests)
	}
	if d.Title != "Lexer work" {
		t.Errorf("title %q, want the topic's", d.Title)
	}
	want := []handoff.Todo{{Content: "task: Lexer (abc123)", Status: "in_progress"}, {Content: "task: Parser (def456)", Status: "pending"}, {Content: "epic: Done part (0a0b0c)", Status: "completed"}}
	if !slices.Equal(d.Session.Todos, want) {
		t.Errorf("todos %+v", d.Session.Todos)
	}
	if f := expect.FileAt(d.Files, "notes.md"); f == nil || f.Action != "created" || expect.CommandNames(d.Session) != "ls" || d.Stats.Subagents != 1 {
		t.Errorf("files %+v commands %q folded %d", d.Files, expect.CommandNames(d.Session), d.Stats.Subagents)
	}
	if k := readFileT(t, child); !k.Subagent || k.Parent != gmParent {
		t.Errorf("child: subagent %v parent %q", k.Subagent, k.Parent)
	}
	if o := readFileT(t, old); !o.Subagent || o.Parent != "" {
		t.Errorf("old layout: subagent %v parent %q", o.Subagent, o.Parent)
	}
}

func TestSubagentFoldingIsBounded(t *testing.T) {
	home := t.TempDir()
	chats := filepath.Join(home, "chats")
	// The session id names the directory of its subagents, sanitized as
	// Gemini CLI sanitizes it: it cannot lead out of chats/.
	id := "../../x"
	parent := filepath.Join(chats, "session-a.jsonl")
	writeFile(t, parent, expect.Lines(`{"sessionId":"`+id+`","projectHash":"h"}`, `{"id":"1","type":"user","content":"go"}`), time.Time{})
	writeFile(t, filepath.Join(home, "x", "escape.jsonl"), expect.Lines(
		`{"sessionId":"e","projectHash":"h","kind":"subagent"}`,
		`{"id":"1","type":"gemini","toolCalls":[{"id":"t","name":"run_shell_command","args":{"command":"escaped"},"status":"success"}]}`), time.Time{})
	for i := range maxSubagents + 6 {
		writeFile(t, filepath.Join(chats, safeName(id), fmt.Sprintf("sub-%03d.jsonl", i)), expect.Lines(
			`{"sessionId":"s","projectHash":"h","kind":"subagent"}`,
			fmt.Sprintf(`{"id":"1","type":"gemini","toolCalls":[{"id":"t","name":"run_shell_command","args":{"command":"step %03d"},"status":"success"}]}`, i)), time.Time{})
	}
	d := readFileT(t, parent)
	if d.Stats.Subagents != maxSubagents || len(d.Session.Commands) != maxSubagents || expect.CommandNamed(d.Session.Commands, "escaped") != nil {
		t.Errorf("folded %d subagents, %d commands: %s", d.Stats.Subagents, len(d.Session.Commands), expect.CommandNames(d.Session))
	}
}

func geminiPlanSession(calls ...string) string {
	return expect.Lines(
		`{"sessionId":"p","projectHash":"h","directories":["/src/proj"]}`,
		`{"id":"u1","type":"user","content":"Plan the migration"}`,
		`{"id":"g1","type":"gemini","content":"","toolCalls":[`+strings.Join(calls, ",")+`]}`,
	)
}

const (
	planPathT = "/home/u/.gemini/tmp/proj/p/plans/migrate.md"
	enterPlan = `{"id":"a","name":"enter_plan_mode","args":{"reason":"a big change"},"status":"success"}`
	writePlan = `{"id":"b","name":"write_file","args":{"file_path":"` + planPathT + `","content":"1. Add the column\n2. Backfill"},"status":"success","result":[{"functionResponse":{"response":{"output":"Successfully created and wrote to new file: ` + planPathT + `."}}}]}`
	editPlan  = `{"id":"c","name":"replace","args":{"file_path":"` + planPathT + `","old_string":"2. Backfill","new_string":"2. Backfill in batches of 1000"},"status":"success","result":[{"functionResponse":{"response":{"output":"Successfully modified file: ` + planPathT + ` (1 replacements)."}}}]}`
)

func exitPlan(output string) string {
	return `{"id":"d","name":"exit_plan_mode","args":{"plan_filename":"migrate.md"},"status":"success","result":[{"functionResponse":{"response":{"output":"` + output + `"}}}]}`
}

func TestGeminiPlan(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls []string
		want  []string // substrings of the plan; none: no plan
	}{
		{"approved", []string{enterPlan, writePlan, editPlan, exitPlan(`Switching to Default mode.\n\nThe approved implementation plan is stored at: ` + planPathT + `\nRead and follow the plan strictly during implementation.`)},
			[]string{"approved by the user", "1. Add the column\n2. Backfill in batches of 1000"}},
		{"rejected", []string{enterPlan, writePlan, exitPlan(`Plan rejected. User feedback: do it in two releases\n\nThe plan is stored at: ` + planPathT)},
			[]string{"rejected by the user (feedback: do it in two releases)", "2. Backfill"}},
		{"still drafting", []string{enterPlan, writePlan, editPlan},
			[]string{"not yet put to the user", "in batches of 1000"}},
		{"dialog dismissed", []string{enterPlan, writePlan, exitPlan(`User cancelled the plan approval dialog. The plan was not approved and you are still in Plan Mode.`)},
			[]string{"not yet put to the user", "2. Backfill"}},
		{"plan mode entered, nothing written", []string{enterPlan}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustRead(t, gemini, geminiPlanSession(tc.calls...))
			plan := d.Session.Plan
			if len(tc.want) == 0 && plan != "" {
				t.Errorf("plan %q, want none", plan)
			}
			for _, w := range tc.want {
				if !strings.Contains(plan, w) {
					t.Errorf("plan %q lacks %q", plan, w)
				}
			}
			// The plan file is Gemini CLI's, not the project's.
			if len(d.Files) != 0 {
				t.Errorf("files %+v", d.Files)
			}
		})
	}
}

func TestGeminiInjectedTurns(t *testing.T) {
	for _, content := range []string{
		"<session_context>\nThis is the Gemini CLI.\n</session_context>", "<hook_context>x</hook_context>",
		"Please continue.", "System: Please continue.", "/memory show", "?", "  ",
		"System: Potential loop detected. Details: x. Please take a step back.",
	} {
		in := expect.Lines(`{"sessionId":"s","projectHash":"h"}`,
			`{"id":"1","type":"user","content":[{"text":"real request"}]}`,
			`{"id":"2","type":"user","content":[{"text":`+expect.JSONString(content)+`}]}`)
		d := mustRead(t, gemini, in)
		if strings.Join(d.Session.Requests, "|") != "real request" {
			t.Errorf("%q counted as a request: %q", content, d.Session.Requests)
		}
	}
	// A command the CLI expands: the command is the request.
	d := mustRead(t, gemini, expect.Lines(`{"sessionId":"s","projectHash":"h"}`,
		`{"id":"1","type":"user","content":[{"text":"You are an AI agent that … write GEMINI.md"}],"displayContent":[{"text":"/init"}]}`))
	if strings.Join(d.Session.Requests, "|") != "/init" {
		t.Errorf("requests %q", d.Session.Requests)
	}
}

func TestGeminiCancelledTurn(t *testing.T) {
	cancelled := `{"id":"c","type":"info","content":"Request cancelled."}`
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{expect.Lines(`{"sessionId":"s","projectHash":"h"}`, `{"id":"1","type":"user","content":"a"}`, cancelled), true},
		{expect.Lines(`{"sessionId":"s","projectHash":"h"}`, `{"id":"1","type":"user","content":"a"}`, cancelled, `{"id":"2","type":"user","content":"b"}`), false},
		{expect.Lines(`{"sessionId":"s","projectHash":"h"}`, `{"id":"1","type":"user","content":"a"}`, `{"id":"i","type":"info","content":"Switched to fallback model."}`), false},
	} {
		if d := mustRead(t, gemini, tc.in); d.Cancelled != tc.want {
			t.Errorf("%s: cancelled %v, want %v", tc.in, d.Cancelled, tc.want)
		}
	}
}

func TestGeminiCancelledCalls(t *testing.T) {
	d := mustRead(t, gemini, expect.Lines(`{"sessionId":"s","projectHash":"h"}`,
		`{"id":"1","type":"user","content":"go"}`,
		`{"id":"2","type":"gemini","content":"","toolCalls":[`+
			`{"id":"a","name":"run_shell_command","args":{"command":"rm -rf build"},"status":"cancelled","result":[{"functionResponse":{"response":{"error":"[Operation Cancelled] Reason: User denied execution."}}}]},`+
			`{"id":"b","name":"run_shell_command","args":{"command":"npm test"},"status":"cancelled","result":[{"functionResponse":{"response":{"error":"[Operation Cancelled] User cancelled tool execution."}}}]},`+
			`{"id":"c","name":"replace","args":{"file_path":"a.go"},"status":"cancelled"}]}`))
	if c := expect.CommandNamed(d.Session.Commands, "rm -rf build"); c == nil || c.Status != handoff.StatusRejected {
		t.Errorf("denied: %+v", c)
	}
	if c := expect.CommandNamed(d.Session.Commands, "npm test"); c == nil || c.Status != handoff.StatusInterrupted {
		t.Errorf("stopped: %+v", c)
	}
	if len(d.Files) != 0 || d.Session.LastFailure != nil {
		t.Errorf("a cancelled edit changed %+v; failure %+v", d.Files, d.Session.LastFailure)
	}
}

// Gemini CLI puts the session-start hook's context in front of the prompt,
// in the same text (packages/cli/src/gemini.tsx, v0.61.0:
// "<hook_context>…</hook_context>\n\n" + input), and BeforeAgent's context in
// a text part after the request (packages/core/src/core/client.ts,
// sendMessageStream). Either way the prompt is the request and the title.
func TestGeminiHookContextKeepsThePrompt(t *testing.T) {
	for name, content := range map[string]string{
		"session start": `[{"text":` + expect.JSONString("<hook_context># Handoff\nDo <b>this</b>\n</hook_context>\n\nfix the login bug") + `}]`,
		"before agent":  `[{"text":"fix the login bug"},{"text":"<hook_context>lint ran</hook_context>"}]`,
		"both":          `[{"text":` + expect.JSONString("<hook_context>brief</hook_context>\n\nfix the login bug") + `},{"text":"<hook_context>lint</hook_context>"}]`,
	} {
		in := expect.Lines(`{"sessionId":"s","projectHash":"h"}`,
			`{"id":"1","type":"user","content":`+content+`}`)
		d := mustRead(t, gemini, in)
		if strings.Join(d.Session.Requests, "|") != "fix the login bug" {
			t.Errorf("%s: requests %q", name, d.Session.Requests)
		}
		if d.Title != "fix the login bug" {
			t.Errorf("%s: title %q", name, d.Title)
		}
	}
}

// A command Gemini CLI refused to run is rejected, not failed, and is
// never the last failure.
func TestGeminiRefusedCommandIsNoFailure(t *testing.T) {
	call := func(id, cmd, status, out string) string {
		return `{"id":"` + id + `","type":"gemini","content":"","toolCalls":[{"id":"` + id + `","name":"run_shell_command","args":{"command":` + expect.JSONString(cmd) +
			`},"status":"` + status + `","result":[{"functionResponse":{"id":"` + id + `","name":"run_shell_command","response":{"output":` + expect.JSONString(out) + `}}}]}]}`
	}
	d := mustRead(t, gemini, expect.Lines(`{"sessionId":"s","projectHash":"h"}`,
		`{"id":"u","type":"user","content":[{"text":"check it"}]}`,
		call("c1", "go test ./... && rm -rf /", "error", "Command rejected because it could not be parsed safely"),
		call("c2", "curl x | sh", "error", "Tool execution denied by policy. Network is off."),
	))
	if d.Session.LastFailure != nil {
		t.Errorf("last failure %+v, want none", d.Session.LastFailure)
	}
	for _, c := range d.Session.Commands {
		if c.Status != handoff.StatusRejected {
			t.Errorf("%q: status %q, want rejected", c.Command, c.Status)
		}
	}
	if len(d.Session.Commands) != 2 {
		t.Errorf("commands %+v", d.Session.Commands)
	}
}

// A content of lists nested deep, around a long text, is read in one
// pass over it: what reading allocates does not grow with the depth
// times the text (2,000 levels around 200 KB would be 400 MB).
func TestDeepContentIsReadOnce(t *testing.T) {
	const depth = 2000
	text := strings.Repeat("x", 200<<10)
	content := strings.Repeat("[", depth) + expect.JSONString(text) + strings.Repeat("]", depth)
	in := expect.Lines(`{"sessionId":"s","projectHash":"h"}`, `{"id":"1","type":"user","content":`+content+`}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d := mustRead(t, gemini, in)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 40<<20 {
		t.Errorf("reading allocated %d MB", got>>20)
	}
	if len(d.Session.Requests) != 1 || !strings.HasPrefix(d.Session.Requests[0], "xxx") {
		t.Errorf("requests %.40q", d.Session.Requests)
	}
}

// The older form read after blank lines of any white space, as the first
// pass skips them, and not after white space JSON refuses on the line
// that opens the object (as before the move, that object is broken).
func TestLegacyAfterBlankLines(t *testing.T) {
	obj := "{\n \"sessionId\": \"x\", \"messages\": [{\"id\":\"1\",\"type\":\"user\",\"content\":\"hi\"}]\n}\n"
	d := mustRead(t, gemini, "\ufeff \r\n\u00a0\v\u2028\n"+obj)
	if d.Session.ID != "x" || expect.LastRequest(d.Session) != "hi" || d.Stats.Malformed != 0 {
		t.Errorf("id %q requests %q stats %+v", d.Session.ID, d.Session.Requests, d.Stats)
	}
	if _, err := gemini("\u00a0" + obj); !errors.Is(err, transcript.ErrNoRecords) {
		t.Errorf("a non-JSON space before the brace: %v", err)
	}
}
