package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestGeminiPassesAgree reads real recordings and hand-made ones whose
// messages are rewritten, rewound and replaced, in one pass (every
// message kept) and in several (the messages folded as they come): the
// digests must be the same.
func TestGeminiPassesAgree(t *testing.T) {
	inputs := map[string][]byte{
		"rewrites": []byte(lines(
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
		"replaced": []byte(lines(
			`{"sessionId":"s","projectHash":"h","directories":["/r"]}`,
			`{"id":"a","type":"user","content":"one"}`,
			`{"id":"b","type":"gemini","content":"","toolCalls":[{"id":"1","name":"replace","args":{"file_path":"/r/a.go"},"status":"success"}]}`,
			`{"$set":{"messages":[{"id":"s","type":"user","content":"<state_snapshot>summary</state_snapshot>"},{"id":"a","type":"user","content":"one, again"}]}}`,
			`{"id":"c","type":"user","content":"two"}`,
		)),
		// A message rewritten after the next one began waits for it.
		"out of order": []byte(lines(
			`{"sessionId":"s","projectHash":"h"}`,
			`{"id":"a","type":"user","content":"one"}`,
			`{"id":"b","type":"user","content":"two"}`,
			`{"id":"a","type":"user","content":"one, edited"}`,
		)),
	}
	files, _ := filepath.Glob(filepath.Join(realDir, "gemini", "*", "*"))
	if len(files) == 0 {
		t.Fatalf("no real Gemini recordings under %s", realDir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = data
	}
	for name, data := range inputs {
		once, err1 := readGeminiOnce(bytes.NewReader(data), Limits{}.withDefaults(), "", lineShapes().gemini)
		twice, err2 := readGemini(bytes.NewReader(data), Limits{}.withDefaults(), "")
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(once, twice) {
			t.Errorf("%s: one pass %+v %v\nseveral %+v %v", name, once, err1, twice, err2)
		}
	}
	d := mustRead(t, gemini, string(inputs["rewrites"]))
	if d.CWD != "/r" || findFile(d, "x/a.go") == nil || findCommand(d.Session, "make") != nil || findCommand(d.Session, "make test") == nil {
		t.Errorf("cwd %q files %+v commands %+v", d.CWD, d.Files, d.Session.Commands)
	}
}

// FuzzGeminiPasses checks that reading in passes gives what reading once
// gives, whatever the input.
func FuzzGeminiPasses(f *testing.F) {
	addSeeds(f, "gemini",
		lines(`{"sessionId":"s","projectHash":"h"}`, `{"id":"a","type":"user","content":"x"}`, `{"id":"b","type":"user","content":"y"}`, `{"id":"a","type":"user","content":"z"}`, `{"$rewindTo":"b"}`),
		lines(`{"sessionId":"s","projectHash":"h","messages":[{"id":"a","type":"user","content":"x"}]}`, `{"$set":{"messages":[{"id":"c","type":"user","content":"y"}],"memoryScratchpad":{"touchedPaths":["a"]}}}`),
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := Limits{MaxLine: 64 << 10, MaxFile: 1 << 20}.withDefaults()
		once, err1 := readGeminiOnce(bytes.NewReader(data), lim, "", lineShapes().gemini)
		twice, err2 := readGemini(bytes.NewReader(data), lim, "")
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(once, twice) {
			t.Fatalf("one pass %+v %v\nseveral %+v %v", once, err1, twice, err2)
		}
	})
}
