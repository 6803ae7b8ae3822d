package cline

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// writeSession writes a messages file (and, when given, a manifest) into
// a session folder of its own and returns the messages file's path.
func writeSession(t testing.TB, messages, manifest string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "s1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s1"+messagesSuffix)
	if err := os.WriteFile(path, []byte(messages), 0o644); err != nil {
		t.Fatal(err)
	}
	if manifest != "" {
		if err := os.WriteFile(filepath.Join(dir, "s1.json"), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

const oneRequest = `{"version":1,"updated_at":"2026-11-27T14:00:00Z","agent":"lead","sessionId":"s1","origin":{"version":"3.0.65"},"messages":[
{"id":"u1","role":"user","content":[{"type":"text","text":"<user_input mode=\"act\">fix the build</user_input>"}],"ts":1795790000000}]}`

// Hostile and broken files: a clear error naming the file, or a digest
// that counts what it skipped; never a panic.
func TestHostileSessions(t *testing.T) {
	for _, c := range []struct {
		name, messages string
		err            string // "" when it reads
	}{
		{"not JSON", "hello", "no JSON object"},
		{"an array", `[{"role":"user"}]`, "no JSON object"},
		{"no messages", `{"sessionId":"s1"}`, "no messages"},
		{"messages not an array", `{"messages":{"role":"user"}}`, "not an array"},
		{"cut short", oneRequest[:len(oneRequest)-10], "unexpected EOF"},
		{"no message readable", `{"messages":[1,"x",{"role":""}]}`, transcript.ErrNoRecords.Error()},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeSession(t, c.messages, "")
			_, err := reader{}.Read(path, "", transcript.Limits{})
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %v, want one naming %s and saying %q", err, path, c.err)
			}
		})
	}
}

// A message over Limits.MaxLine is skipped and counted, an unknown block
// type and role counted by name; the rest is read.
func TestOverlongAndUnknownAreCounted(t *testing.T) {
	big := strings.Repeat("x", 4096)
	messages := strings.TrimSuffix(oneRequest, "]}") + `,
{"id":"a1","role":"assistant","content":[{"type":"text","text":"` + big + `"}]},
{"id":"a2","role":"assistant","content":[{"type":"hologram"},{"type":"text","text":"done"}]},
{"id":"x","role":"narrator","content":"once upon a time"}]}`
	d, err := reader{}.Read(writeSession(t, messages, ""), "", transcript.Limits{MaxLine: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if d.Stats.TooLong != 1 || d.Stats.UnknownTypes["assistant hologram"] != 1 || d.Stats.UnknownTypes["role narrator"] != 1 {
		t.Errorf("stats %+v, want one too long, one unknown block, one unknown role", d.Stats)
	}
	if d.Session.LastAgentMessage != "done" || len(d.Session.Requests) != 1 || d.Session.Requests[0] != "fix the build" {
		t.Errorf("digest %+v", d.Session)
	}
}

// A file over Limits.MaxFile is refused as too large.
func TestOverMaxFile(t *testing.T) {
	_, err := reader{}.Read(writeSession(t, oneRequest, ""), "", transcript.Limits{MaxFile: 64})
	if !errors.Is(err, transcript.ErrTooLarge) {
		t.Errorf("error %v, want ErrTooLarge", err)
	}
}

// A manifest that is not a small regular file (here a directory) or not
// JSON is left out; the messages still read.
func TestBadManifestIsLeftOut(t *testing.T) {
	path := writeSession(t, oneRequest, "{not json")
	d, err := reader{}.Read(path, "", transcript.Limits{})
	if err != nil || d.Title != "fix the build" || d.CWD != "" {
		t.Errorf("digest %+v, %v", d, err)
	}
}

// Text Cline or a hook put in the conversation is no request: the
// run's [SYSTEM] reminder, hook context, a displayRole of system.
func TestInjectedTextIsNoRequest(t *testing.T) {
	messages := strings.TrimSuffix(oneRequest, "]}") + `,
{"id":"r","role":"user","content":[{"type":"text","text":"[SYSTEM] This run is not complete until you call one of these terminal completion tools: submit_and_exit."}],"metadata":{"userRunSpan":0}},
{"id":"h","role":"user","content":[{"type":"text","text":"<hook_context source=\"RunStart\">\nBRIEFING\n</hook_context>"}],"metadata":{"userRunSpan":0,"displayRole":"system"}},
{"id":"u2","role":"user","content":"<user_input mode=\"plan\"><mode_notice>Switched to plan mode.</mode_notice>and now plan it</user_input>"}]}`
	d, err := reader{}.Read(writeSession(t, messages, ""), "", transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"fix the build", "and now plan it"}; strings.Join(d.Session.Requests, "|") != strings.Join(want, "|") {
		t.Errorf("requests %q, want %q", d.Session.Requests, want)
	}
}

func FuzzReadCline(f *testing.F) {
	for _, s := range []string{oneRequest, `{"messages":[]}`, `{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"run_commands","input":{"commands":["ls",{"command":"go","args":["test"]}]}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":[{"query":"ls","result":"[Command exited with code 2]","success":false}]}]}]}`,
		`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"e","name":"editor","input":{"path":"/p/a","old_text":"x","new_text":"y"}},{"type":"tool_use","id":"p","name":"apply_patch","input":{"input":"*** Begin Patch\n*** Add File: b\n+x\n*** End Patch"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"e","content":"{\"success\":false,\"error\":\"no match\"}"}]}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		path := writeSession(t, data, "")
		d, err := reader{}.Read(path, "", transcript.Limits{MaxFile: 1 << 20, MaxLine: 64 << 10})
		if err == nil && d == nil {
			t.Fatal("no digest and no error")
		}
		if err == nil {
			if err := transcript.CheckDigest(d); err != nil {
				t.Fatal(err)
			}
		}
		reader{}.Detect([]byte(data))
	})
}

// A field of the wrong type (a changed or hostile file) costs that field,
// not the message (transcript.Decode is lenient).
func TestWrongTypeKeepsTheMessage(t *testing.T) {
	messages := `{"sessionId":"s1","messages":[{"id":"u1","role":"user","ts":"yesterday","metadata":[],"content":[{"type":"text","text":"<user_input mode=\"act\">fix the build</user_input>"}]}]}`
	d, err := reader{}.Read(writeSession(t, messages, ""), "", transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Session.Requests) != 1 || d.Session.Requests[0] != "fix the build" || d.Stats.Malformed != 0 {
		t.Errorf("requests %q, stats %+v", d.Session.Requests, d.Stats)
	}
}

// apply_patch (the terminal UI's file tool) names its files in the
// patch's headers: added, updated, deleted.
func TestApplyPatchFiles(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: /w/new.go\n+package w\n*** Update File: /w/old.go\n@@\n-a\n+b\n*** Delete File: /w/gone.go\n*** End Patch\n"
	in, _ := json.Marshal(map[string]string{"input": patch})
	messages := `{"sessionId":"s1","messages":[{"id":"a1","role":"assistant","content":[{"type":"tool_use","id":"p1","name":"apply_patch","input":` + string(in) + `}]}]}`
	d, err := reader{}.Read(writeSession(t, messages, `{"session_id":"s1","cwd":"/w"}`), "", transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range d.Files {
		got[f.Path] = f.Action
	}
	if want := map[string]string{"new.go": "created", "old.go": "edited", "gone.go": "deleted"}; !maps.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
}
