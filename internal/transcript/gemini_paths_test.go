package transcript

import (
	"bytes"
	"reflect"
	"testing"
)

// A relative and an absolute path to the same file are one file: a
// recording that names no directory, whose write_file was given a path
// relative to the project's root and whose replace an absolute one (as
// in a real Gemini CLI session the issue names: six such pairs). The
// root is what the two share; a relative path of one name only ("notes.md")
// proves nothing and leaves an absolute path elsewhere alone.
func TestGeminiRelativeAndAbsolutePathsAreOneFile(t *testing.T) {
	in := lines(
		`{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00Z"}`,
		`{"id":"a","type":"user","content":"make the app"}`,
		`{"id":"b","type":"gemini","content":"","toolCalls":[{"id":"1","name":"write_file","args":{"file_path":"M-Gemini/app/main.py","content":"x"},"status":"success","result":"Successfully created and wrote to new file: M-Gemini/app/main.py."}]}`,
		`{"id":"c","type":"gemini","content":"","toolCalls":[{"id":"2","name":"write_file","args":{"file_path":"notes.md","content":"x"},"status":"success","result":"Successfully created and wrote to new file: notes.md."}]}`,
		`{"id":"d","type":"gemini","content":"","toolCalls":[{"id":"3","name":"replace","args":{"file_path":"/home/ana/M-Gemini/app/main.py"},"status":"success","result":"Successfully modified file: /home/ana/M-Gemini/app/main.py (1 replacements)."}]}`,
		`{"id":"e","type":"gemini","content":"","toolCalls":[{"id":"4","name":"replace","args":{"file_path":"/srv/other/notes.md"},"status":"success","result":"Successfully modified file: /srv/other/notes.md (1 replacements)."}]}`,
		`{"id":"f","type":"gemini","content":"done"}`,
	)
	d := mustRead(t, gemini, in)
	checkRealFiles(t, d.Files, map[string]realFile{
		"M-Gemini/app/main.py": {action: "created", edits: 2},
		"notes.md":             {action: "created", edits: 1},
		"/srv/other/notes.md":  {action: "edited", edits: 1},
	})
	if d.CWD != "/home/ana" {
		t.Errorf("cwd %q, want /home/ana", d.CWD)
	}
	once, err := readGeminiOnce(bytes.NewReader([]byte(in)), Limits{}.withDefaults(), "", lineShapes().gemini)
	if err != nil || !reflect.DeepEqual(once, d) {
		t.Errorf("one pass %+v %v\nseveral %+v", once, err, d)
	}
	// With the root recorded, the absolute path is made relative to it.
	d = mustRead(t, gemini, lines(
		`{"sessionId":"s","projectHash":"h","directories":["/home/ana/M-Gemini"]}`,
		`{"id":"a","type":"user","content":"make the app"}`,
		`{"id":"b","type":"gemini","content":"","toolCalls":[{"id":"1","name":"write_file","args":{"file_path":"app/main.py","content":"x"},"status":"success","result":"Successfully created and wrote to new file: app/main.py."}]}`,
		`{"id":"c","type":"gemini","content":"","toolCalls":[{"id":"2","name":"replace","args":{"file_path":"/home/ana/M-Gemini/app/main.py"},"status":"success","result":"Successfully modified file."}]}`,
	))
	checkRealFiles(t, d.Files, map[string]realFile{"app/main.py": {action: "created", edits: 2}})
}
