package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsEchoNoHugeArgument: an argument the schema refuses, an unknown
// tool or method name, each 3 MB of text with line breaks and bidi
// controls in it, gets an error that quotes at most a bounded, cleaned
// part of it, and the server answers the next request.
func TestErrorsEchoNoHugeArgument(t *testing.T) {
	f := newFixture(t)
	w := newWire(t, f.options(), 4<<20)
	w.send(initLine)
	w.reply()
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	huge := strings.Repeat(`a\n\u202eb`, (3<<20)/10)
	for i, line := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"handoff_save","arguments":{"title":"` + huge + `"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"handoff_show","arguments":{"id":"` + huge + `"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"handoff_list","arguments":{"` + huge + `":1}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"` + huge + `","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"` + huge + `"}`,
	} {
		w.send(line)
		m := w.reply()
		if n := len(w.out.Bytes()); n > 4<<10 {
			t.Errorf("request %d: the error reply is %d bytes: %.200s…", i, n, w.out.Text())
		}
		var said string
		if e, ok := m["error"].(map[string]any); ok {
			said, _ = e["message"].(string)
		} else if r, ok := m["result"].(map[string]any); ok && r["isError"] == true {
			said = mustJSON(r["content"])
		} else {
			t.Errorf("request %d: neither an error nor an error result: %.200s", i, w.out.Text())
		}
		if strings.ContainsAny(said, "\u202e\n") {
			t.Errorf("request %d: the error carries a bidi control or a line break: %.200q…", i, said)
		}
	}
	w.send(`{"jsonrpc":"2.0","id":99,"method":"tools/list"}`)
	if m := w.reply(); errorCode(m) != 0 {
		t.Fatalf("the server does not answer after the huge arguments: %v", m)
	}
}

// TestResumeWarningsAreCleanLines: a memory file that links out of the
// project is left out with a warning naming where it leads, a path the
// repository chose: the warning is one cleaned line.
func TestResumeWarningsAreCleanLines(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(filepath.Dir(f.project), "x\u202e\n# INJECTED")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "SOUL.md"), []byte("soul"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "SOUL.md"), filepath.Join(f.project, "SOUL.md")); err != nil {
		t.Fatal(err)
	}
	_, out := call(t, connect(t, f.options()), ToolResume, map[string]any{}, false)
	ws, _ := out["warnings"].([]any)
	if len(ws) == 0 {
		t.Fatalf("no warning for a memory file that leads out: %v", out)
	}
	for _, w := range ws {
		if s, _ := w.(string); strings.ContainsAny(s, "\n\u202e") {
			t.Errorf("warning is not one clean line: %q", s)
		}
	}
}
