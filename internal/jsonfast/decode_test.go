package jsonfast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
	for _, glob := range []string{"../agents/codex/testdata/real-e2e/*/*.jsonl", "../agents/gemini/testdata/real-e2e/*/*.jsonl", samplesDir + "/real/*/*/*.jsonl", samplesDir + "/*/*.jsonl"} {
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
		// Only JSON's own white space may follow (bytes.TrimSpace would
		// also take a vertical tab, which encoding/json refuses there).
		if stdErr == nil && dec.InputOffset() < int64(len(b)) && len(bytes.Trim(b[dec.InputOffset():], " \t\r\n")) > 0 {
			stdErr = errors.New("data after the object")
		}
		if (err == nil) != (stdErr == nil && m != nil) {
			t.Fatalf("Decode %v, encoding/json %v (%v) on %q", err, stdErr, m != nil, b)
		}
	})
}

// The typed line structs of a reader in an agent's folder are decoded by
// Decode, on the fast parser, rather than by json.Unmarshal: on Claude
// Code lines (BenchmarkDecodeLines/fast against /std; /unmarshal is
// Unmarshal, encoding/json's decoding on the fast parser):
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
	}{{"fast", Decode}, {"std", json.Unmarshal}, {"unmarshal", Unmarshal}} {
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

// TestDecodePointerToAnotherType: a value of another type than a pointer
// field's target leaves the pointer nil, as Decode promises for every
// field, so that a reader can tell an object that is there from one that
// is not.
func TestDecodePointerToAnotherType(t *testing.T) {
	var v struct {
		Obj  *struct{ A string } `json:"obj"`
		Flag *bool               `json:"flag"`
		Text *string             `json:"text"`
	}
	if err := Decode([]byte(`{"obj":"x","flag":1,"text":{"a":1}}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.Obj != nil || v.Flag != nil || v.Text != nil {
		t.Errorf("pointers set from values of another type: %+v %v %v", v.Obj, v.Flag, v.Text)
	}
	if err := Decode([]byte(`{"obj":{"A":"a"},"flag":false,"text":""}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.Obj == nil || v.Obj.A != "a" || v.Flag == nil || *v.Flag || v.Text == nil {
		t.Errorf("pointers not set from values that fit: %+v %v %v", v.Obj, v.Flag, v.Text)
	}
}

// TestDecodeValue decodes JSON values of every kind, and refuses what is
// not one value.
func TestDecodeValue(t *testing.T) {
	var s string
	if err := DecodeValue([]byte(` "a\nb" `), &s); err != nil || s != "a\nb" {
		t.Errorf("string: %q, %v", s, err)
	}
	var raw []json.RawMessage
	if err := DecodeValue([]byte(`["x", {"text": "y"}, 3]`), &raw); err != nil || len(raw) != 3 || string(raw[1]) != `{"text": "y"}` {
		t.Errorf("list: %q, %v", raw, err)
	}
	for _, bad := range []string{``, `"a" "b"`, `[1,`, `{"a":}`} {
		if err := DecodeValue([]byte(bad), &raw); err == nil {
			t.Errorf("DecodeValue(%q) took it", bad)
		}
	}
}

// TestTextOrJSON: a string sets Text, any other value JSON, in a struct,
// a list and behind a pointer; a field not there is neither.
func TestTextOrJSON(t *testing.T) {
	var v struct {
		S    TextOrJSON   `json:"s"`
		O    TextOrJSON   `json:"o"`
		N    TextOrJSON   `json:"n"`
		L    []TextOrJSON `json:"l"`
		P    *TextOrJSON  `json:"p"`
		None TextOrJSON   `json:"none"`
	}
	if err := Decode([]byte(`{"s":"a\nb","o":{"x":[1]},"n":null,"l":["x",{"text":"y"}],"p":"q"}`), &v); err != nil {
		t.Fatal(err)
	}
	if !v.S.IsText || v.S.Text != "a\nb" || v.S.JSON != nil {
		t.Errorf("string: %+v", v.S)
	}
	if v.O.IsText || string(v.O.JSON) != `{"x":[1]}` || string(v.N.JSON) != "null" || !v.N.Has() {
		t.Errorf("object %+v, null %+v", v.O, v.N)
	}
	if len(v.L) != 2 || v.L[0].Text != "x" || string(v.L[1].JSON) != `{"text":"y"}` || v.P == nil || v.P.Text != "q" {
		t.Errorf("list %+v, pointer %+v", v.L, v.P)
	}
	if v.None.Has() {
		t.Errorf("absent: %+v", v.None)
	}
	if err := Decode([]byte(`{"s":"a`), &v); err == nil {
		t.Error("a cut string taken")
	}
}

// EachLeaf walks a value once, flattening lists, and says which element
// of the outer list each leaf is in.
func TestEachLeaf(t *testing.T) {
	var got []string
	err := EachLeaf([]byte(` ["a", [["b"], {"t":[1]}], [], 3] `), func(leaf []byte, top int) {
		got = append(got, string(leaf)+"@"+string(rune('0'+top)))
	})
	if want := `"a"@0 "b"@1 {"t":[1]}@1 3@3`; err != nil || strings.Join(got, " ") != want {
		t.Errorf("%q %v, want %s", got, err, want)
	}
	got = nil
	if err := EachLeaf([]byte(`{"x":1}`), func(leaf []byte, top int) { got = append(got, string(leaf)) }); err != nil || len(got) != 1 {
		t.Errorf("an object: %q %v", got, err)
	}
	for _, bad := range []string{`[1,`, `["a"] x`, strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1)} {
		if err := EachLeaf([]byte(bad), func([]byte, int) {}); err == nil {
			t.Errorf("%.20q: accepted", bad)
		}
	}
}

// Decode decodes a list's elements where they lie in the slice, and a
// map's values in one value reused, rather than allocating each apart
// (16 elements cost 16 allocations more than the slice's growth).
func TestDecodeListAllocatesForTheListOnly(t *testing.T) {
	line := []byte(`{"items":[` + strings.TrimSuffix(strings.Repeat(`{"a":1,"b":true},`, 16), ",") + `],"m":{"a":{"a":1},"b":{"a":2},"c":{"a":3},"d":{"a":4}}}`)
	var v struct {
		Items []struct {
			A int  `json:"a"`
			B bool `json:"b"`
		} `json:"items"`
		M map[string]struct {
			A int `json:"a"`
		} `json:"m"`
	}
	allocs := testing.AllocsPerRun(20, func() {
		v.Items, v.M = nil, nil
		if err := Decode(line, &v); err != nil || len(v.Items) != 16 || len(v.M) != 4 {
			t.Fatalf("%v, %d items, %d values", err, len(v.Items), len(v.M))
		}
	})
	// The slice grows 5 times to 16; the map and its keys: a few more.
	if allocs > 14 {
		t.Errorf("%.0f allocations", allocs)
	}
}
