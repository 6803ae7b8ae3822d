package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/session-handoff/session-handoff/store"
)

// wire drives a server through LineTransport as a client program would:
// lines in, lines out.
type wire struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func newWire(t *testing.T, o Options, max int) *wire {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	w.out.Buffer(make([]byte, 1<<20), 16<<20)
	go func() {
		w.done <- New(o).Run(context.Background(), &LineTransport{Reader: inR, Writer: outW, MaxMessage: max})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); <-w.done })
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// reply reads the next message the server writes.
func (w *wire) reply() map[string]any {
	w.t.Helper()
	if !w.out.Scan() {
		w.t.Fatalf("server wrote nothing more: %v", w.out.Err())
	}
	var m map[string]any
	if err := json.Unmarshal(w.out.Bytes(), &m); err != nil {
		w.t.Fatalf("server wrote a line that is not JSON: %v: %q", err, w.out.Text())
	}
	return m
}

// errorCode is the code of a JSON-RPC error reply, 0 for a result.
func errorCode(m map[string]any) int {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	return int(e["code"].(float64))
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func TestHostileRequestsGetErrorsAndTheServerReadsOn(t *testing.T) {
	f := newFixture(t)
	const max = 64 << 10
	w := newWire(t, f.options(), max)
	w.send(initLine)
	if m := w.reply(); m["id"].(float64) != 1 || errorCode(m) != 0 {
		t.Fatalf("initialize: %v", m)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, c := range []struct {
		name, line string
		code       int     // the JSON-RPC error code, or 0 for a tool error result
		id         float64 // the reply's id; 0: null
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":2,"method":`, -32700, 0},
		{"garbage bytes", "\x00\xff\xfe garbage", -32700, 0},
		{"huge message", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 3*max) + `"}}`, -32600, 0},
		{"huge line of garbage", strings.Repeat("x", 5*max), -32600, 0},
		{"batch", `[{"jsonrpc":"2.0","id":4,"method":"tools/list"}]`, -32600, 0},
		{"not a message", `{"hello":"world"}`, -32600, 0},
		{"wrong version", `{"jsonrpc":"1.0","id":5,"method":"tools/list"}`, -32600, 0},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, 0},
		{"unknown method", `{"jsonrpc":"2.0","id":6,"method":"handoff/import"}`, -32601, 6},
		{"unknown tool", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"handoff_import","arguments":{}}}`, -32602, 7},
		{"params not an object", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"handoff_list"}`, -32602, 8},
		{"argument of the wrong type", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"handoff_list","arguments":{"limit":"all"}}}`, 0, 9},
		{"unknown argument", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"handoff_list","arguments":{"delete":true}}}`, 0, 10},
		{"title over the limit", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"handoff_save","arguments":{"title":"` + strings.Repeat("t", 201) + `"}}}`, 0, 11},
		{"missing title", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"handoff_save","arguments":{}}}`, 0, 12},
		{"arguments not an object", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"handoff_show","arguments":[1,2]}}`, 0, 13},
		{"limit out of range", `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"handoff_list","arguments":{"limit":100000}}}`, 0, 14},
		{"nested deep", `{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"handoff_show","arguments":{"id":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}}`, -32600, 0},
	} {
		w.send(c.line)
		m := w.reply()
		gotID, _ := m["id"].(float64)
		switch {
		case gotID != c.id:
			t.Errorf("%s: reply id %v, want %v: %v", c.name, m["id"], c.id, m)
		case c.code != 0 && errorCode(m) != c.code:
			t.Errorf("%s: %v, want error %d", c.name, m, c.code)
		case c.code == 0 && (errorCode(m) != 0 || m["result"].(map[string]any)["isError"] != true):
			t.Errorf("%s: %v, want a tool error result", c.name, m)
		}
		// The server still answers after each one.
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 100+i))
		if m := w.reply(); errorCode(m) != 0 || m["id"].(float64) != float64(100+i) {
			t.Fatalf("after %s the server does not answer: %v", c.name, m)
		}
	}
	// Nothing was stored by any of it.
	if es, err := f.store.List(storeFilterAll); err != nil || len(es) != 0 {
		t.Fatalf("hostile requests stored %d handoffs (%v)", len(es), err)
	}
}

func TestInputEndAnswersWhatWasAsked(t *testing.T) {
	f := newFixture(t)
	in := strings.Join([]string{initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"handoff_save","arguments":{"title":"Saved just before the end"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`}, "\n") + "\n"
	var out strings.Builder
	if err := New(f.options()).Run(context.Background(), &LineTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	for _, id := range []string{`"id":1`, `"id":2`, `"id":3`} {
		if !strings.Contains(out.String(), id) {
			t.Fatalf("no answer with %s once the input ended:\n%s", id, out.String())
		}
	}
}

// FuzzLineTransport feeds any input to the line reader and decoder: every
// line gets at most one reply, each reply is one JSON object, and
// nothing panics.
func FuzzLineTransport(f *testing.F) {
	for _, s := range []string{initLine, "garbage\n", "[1]\n", `{"jsonrpc":"2.0","id":null,"method":"x"}`, "\r\n\r\n", strings.Repeat("{", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var out strings.Builder
		c := &lineConn{r: strings.NewReader(in), w: &out, incoming: make(chan lineMsg), closed: make(chan struct{}), idle: make(chan struct{}, 1)}
		go c.readLoop(256)
		lines := 0
		for {
			m, err := c.Read(context.Background())
			if err != nil {
				break
			}
			lines++
			// Answer calls, as the server does: the end of the input
			// waits for the answers.
			if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
				if err := c.Write(context.Background(), &jsonrpc.Response{ID: r.ID, Result: json.RawMessage("{}")}); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if l != "" && !json.Valid([]byte(l)) {
				t.Fatalf("reply is not JSON: %q", l)
			}
		}
		if n := strings.Count(in, "\n") + 1; lines > n {
			t.Fatalf("%d messages from %d lines", lines, n)
		}
	})
}

// storeFilterAll lists every handoff.
var storeFilterAll = store.Filter{}
