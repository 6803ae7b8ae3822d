package mcpserver

import (
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
