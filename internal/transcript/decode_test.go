package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcriptgen"
)

// decodeLine is a line struct of every kind Decode fills, in the shapes
// the agents write: Claude Code's lines, Codex's payloads, Gemini CLI's
// messages and Copilot CLI's events share these names.
type decodeLine struct {
	Type      string                 `json:"type"`
	UUID      string                 `json:"uuid"`
	SessionID string                 `json:"sessionId"`
	Timestamp string                 `json:"timestamp"`
	Sidechain bool                   `json:"isSidechain"`
	Message   *decodeMessage         `json:"message"`
	Payload   json.RawMessage        `json:"payload"`
	Data      map[string]any         `json:"data"`
	Content   any                    `json:"content"`
	ToolCalls []decodeCall           `json:"toolCalls"`
	Tokens    map[string]json.Number `json:"tokens"`
	Ignored   string                 `json:"-"`
}

type decodeMessage struct {
	Role    string          `json:"role"`
	ID      string          `json:"id"`
	Content json.RawMessage `json:"content"`
	Usage   *struct {
		Input  int64   `json:"input_tokens"`
		Output uint32  `json:"output_tokens"`
		Ratio  float64 `json:"ratio"`
	} `json:"usage"`
}

type decodeCall struct {
	ID     string         `json:"id"`
	Name   string         `json:"name"`
	Args   map[string]any `json:"args"`
	Status string         `json:"status"`
	Result []struct {
		Text string `json:"text"`
	} `json:"result"`
}

// On the lines of real and generated transcripts, which are well typed,
// Decode builds what json.Unmarshal builds (with UseNumber).
func TestDecodeMatchesStd(t *testing.T) {
	var files []string
	for _, glob := range []string{"testdata/real-e2e/*/*/*.jsonl", "../agents/codex/testdata/real-e2e/*/*.jsonl", samplesDir + "/real/*/*/*.jsonl", samplesDir + "/*/*.jsonl"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("only %d transcripts found", len(files))
	}
	n := 0
	check := func(where string, line []byte) {
		t.Helper()
		var want, got decodeLine
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			return // a line of other types than decodeLine's: see TestDecodeLenient
		}
		if err := Decode(line, &got); err != nil {
			t.Fatalf("%s: Decode: %v", where, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %+v\nwant %+v", where, got, want)
		}
		n++
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for i := 1; sc.Scan(); i++ {
			check(f+":"+string(rune('0'+i%10)), sc.Bytes())
		}
	}
	for _, agent := range transcriptgen.Agents {
		var buf bytes.Buffer
		if err := transcriptgen.New(7, "/src/app").Write(agent, &buf, 1<<20); err != nil {
			t.Fatal(err)
		}
		for line := range bytes.SplitSeq(buf.Bytes(), []byte("\n")) {
			if len(line) > 0 {
				check(agent, line)
			}
		}
	}
	if n < 1000 {
		t.Fatalf("compared %d lines only", n)
	}
}

// A value of the wrong type leaves its field alone, where json.Unmarshal
// fails the whole line; the other fields are read.
func TestDecodeLenient(t *testing.T) {
	line := []byte(`{"type":7,"uuid":"u1","isSidechain":"yes","message":{"role":"user","usage":{"input_tokens":"12","output_tokens":-1,"ratio":0.5}},` +
		`"toolCalls":{"not":"a list"},"tokens":{"a":1,"b":"x"},"sessionId":"s\u00e9","Ignored":"x","extra":[1,{"deep":[null]}]}`)
	var got decodeLine
	if err := Decode(line, &got); err != nil {
		t.Fatal(err)
	}
	if got.Type != "" || got.UUID != "u1" || got.Sidechain || got.SessionID != "sé" || got.ToolCalls != nil || got.Ignored != "" {
		t.Errorf("%+v", got)
	}
	if u := got.Message.Usage; u == nil || u.Input != 0 || u.Output != 0 || u.Ratio != 0.5 {
		t.Errorf("usage %+v", got.Message.Usage)
	}
	if len(got.Tokens) != 1 || got.Tokens["a"] != "1" {
		t.Errorf("tokens %v", got.Tokens)
	}
	var std decodeLine
	if json.Unmarshal(line, &std) == nil {
		t.Error("json.Unmarshal took the line: the test does not show the difference")
	}
}

// Decode refuses what is not one JSON object, as encoding/json does.
func TestDecodeRefuses(t *testing.T) {
	for _, in := range []string{``, `[]`, `"x"`, `{`, `{"a":}`, `{"a":1}x`, `{"a":"\x01"}`, `{"a":[1,]}`, `{"type":"x",}`, `{"a":01}`} {
		var v decodeLine
		if err := Decode([]byte(in), &v); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	var notStruct map[string]any
	if err := Decode([]byte(`{}`), &notStruct); err == nil {
		t.Error("a map target accepted")
	}
}

// FuzzDecode holds Decode to encoding/json on any input: the same lines
// are valid, nothing panics.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"type":"user","message":{"content":[{"type":"text","text":"hi"}]}}`, `{"toolCalls":[{"args":{"a":[1,2]}}]}`, `{"tokens":{"a":1e400}}`, `{"payload":{"x":"\ud800"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v decodeLine
		err := Decode(b, &v)
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		stdErr := dec.Decode(&m)
		if stdErr == nil && dec.InputOffset() < int64(len(b)) && len(bytes.TrimSpace(b[dec.InputOffset():])) > 0 {
			stdErr = errors.New("data after the object")
		}
		if (err == nil) != (stdErr == nil && m != nil) {
			t.Fatalf("Decode %v, encoding/json %v (%v) on %q", err, stdErr, m != nil, b)
		}
	})
}

// The typed line structs of a reader in an agent's folder are decoded by
// Decode, on the fast parser, rather than by json.Unmarshal: on Claude
// Code lines (BenchmarkDecodeLines/fast against /std):
//
//	go test -run '^$' -bench DecodeLines -count 5 ./internal/transcript/
func BenchmarkDecodeLines(b *testing.B) {
	var buf bytes.Buffer
	if err := transcriptgen.New(3, "/src/app").Write(transcriptgen.Agents[0], &buf, 8<<20); err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	for _, c := range []struct {
		name   string
		decode func([]byte, any) error
	}{{"fast", Decode}, {"std", json.Unmarshal}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			for b.Loop() {
				for _, line := range lines {
					var l decodeLine
					if err := c.decode(line, &l); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
