package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

var testReasoning = Reasoning{
	Types:   []string{"thinking", "reasoning"},
	Members: []string{"reasoningText", "thoughts"},
	Flags:   []string{"thought"},
}

func strip(t *testing.T, in string, lim Limits) (string, StripStats) {
	t.Helper()
	var out bytes.Buffer
	st, err := WithoutReasoning(&out, strings.NewReader(in), testReasoning, lim)
	if err != nil {
		t.Fatalf("WithoutReasoning: %v", err)
	}
	return out.String(), st
}

func TestWithoutReasoningLines(t *testing.T) {
	in := `{"type":"user","message":{"content":"keep me"}}
{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"SECRET-1","signature":"sig"},{"type":"text","text":"visible"}]}}
{"type":"response_item","payload":{"type":"reasoning","encrypted_content":"SECRET-2"}}
{"type":"reasoning","text":"SECRET-3"}
{"type":"gemini","content":"answer","thoughts":[{"subject":"SECRET-4"}],"tokens":{"thoughts":12}}
{"message":{"parts":[{"text":"SECRET-5","thought":true},{"text":"said"}]}}
{"data":{"content":"hi","reasoningText":"SECRET-6","n":1}}
{"type":"\u0074hinking","thinking":"SECRET-7"}
{"broken": "SECRET-8 \u00
`
	out, st := strip(t, in, Limits{})
	for i := 1; i <= 8; i++ {
		if s := "SECRET-" + string(rune('0'+i)); strings.Contains(out, s) {
			t.Errorf("%s kept:\n%s", s, out)
		}
	}
	for _, keep := range []string{`"keep me"`, `"visible"`, `"answer"`, `"said"`, `"hi"`, `"thoughts":12`, `"n":1`} {
		if !strings.Contains(out, keep) {
			t.Errorf("%s lost:\n%s", keep, out)
		}
	}
	// The untouched first line is copied byte for byte.
	if !strings.HasPrefix(out, `{"type":"user","message":{"content":"keep me"}}`+"\n") {
		t.Errorf("first line changed:\n%s", out)
	}
	// Every line left is JSON.
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !json.Valid([]byte(l)) {
			t.Errorf("not JSON: %s", l)
		}
	}
	if st.DroppedLines != 3 || st.Removed < 7 {
		t.Errorf("stats = %+v, want 3 lines dropped (reasoning line, escaped type, broken) and at least 7 removals", st)
	}
}

// A transcript with no reasoning is copied unchanged, the last line
// without a newline included.
func TestWithoutReasoningUnchanged(t *testing.T) {
	in := "{\"type\":\"user\",\"a\":[1,2,{\"b\":\"c\"}]}\n\n{\"type\":\"text\", \"text\" : \"x\"}"
	if out, _ := strip(t, in, Limits{}); out != in {
		t.Errorf("changed:\n%q\nwant\n%q", out, in)
	}
}

// A transcript that is one document over many lines is filtered whole.
func TestWithoutReasoningDocument(t *testing.T) {
	in := "[\n  {\"role\": \"assistant\",\n   \"content\": [\n     {\"type\": \"thinking\", \"thinking\": \"SECRET\"},\n     {\"type\": \"text\", \"text\": \"kept\"}]}\n]\n"
	out, _ := strip(t, in, Limits{})
	if strings.Contains(out, "SECRET") || !strings.Contains(out, `"kept"`) || !json.Valid([]byte(out)) {
		t.Errorf("document filtered to:\n%s", out)
	}
}

// Nested deeper than any agent nests, a value is left out whole: a
// hostile line costs a bounded number of passes.
func TestWithoutReasoningDepth(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 200) + `"\u0041"` + strings.Repeat(`}`, 200)
	out, _ := strip(t, `{"keep":1,"x":`+deep+"}\n", Limits{})
	if !strings.Contains(out, `"keep":1`) || strings.Contains(out, `\u0041`) {
		t.Errorf("deep value filtered to:\n%s", out)
	}
}

func TestWithoutReasoningLimits(t *testing.T) {
	var out bytes.Buffer
	big := strings.Repeat(`{"a":"`+strings.Repeat("x", 100)+`"}`+"\n", 20)
	if _, err := WithoutReasoning(&out, strings.NewReader(big), testReasoning, Limits{MaxFile: 1000, MaxLine: 500}); !errors.Is(err, ErrReasoningLimit) {
		t.Errorf("over MaxFile: err = %v", err)
	}
	// A line over MaxLine is left out, as no reader reads it.
	out.Reset()
	st, err := WithoutReasoning(&out, strings.NewReader(`{"a":"`+strings.Repeat("x", 600)+`"}`+"\n{\"b\":1}\n"), testReasoning, Limits{MaxLine: 500})
	if err != nil || out.String() != "{\"b\":1}\n" || st.DroppedLines != 1 {
		t.Errorf("over MaxLine: %q, %+v, %v", out.String(), st, err)
	}
}

func FuzzWithoutReasoning(f *testing.F) {
	f.Add([]byte(`{"type":"thinking","thinking":"x"}` + "\n" + `{"a":[{"thought":true}]}`))
	f.Add([]byte("[\n{\"reasoningText\":\"x\"}\n]"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		if _, err := WithoutReasoning(&out, bytes.NewReader(in), testReasoning, Limits{MaxFile: 1 << 20, MaxLine: 1 << 20}); err != nil {
			return
		}
		// Filtering twice changes nothing more: what is left holds no
		// reasoning the filter can find.
		var again bytes.Buffer
		st, err := WithoutReasoning(&again, bytes.NewReader(out.Bytes()), testReasoning, Limits{MaxFile: 1 << 21, MaxLine: 1 << 21})
		if err != nil {
			t.Fatalf("second pass: %v", err)
		}
		if st.Removed != 0 {
			t.Fatalf("second pass removed %d more from %q", st.Removed, out.Bytes())
		}
	})
}
