package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRedact: no panic; valid UTF-8 stays valid; valid JSON stays valid;
// redacting again changes nothing; the output grows at most by the markers
// it holds; Copy gives String's result; the report counts the markers.
func FuzzRedact(f *testing.F) {
	for _, c := range secretCases() {
		f.Add(c.text)
	}
	for _, l := range lookAlikes {
		f.Add(l)
	}
	for _, l := range strings.SplitAfter(string(transcriptCorpus(8<<10, 2, 11)), "\n") {
		f.Add(l)
	}
	f.Add("-----BEGIN RSA PRIVATE KEY-----\\nAAAA\\\\")
	f.Add(`"password": "a\"b\\"` + "\n")
	r := Default()
	f.Fuzz(func(t *testing.T, in string) {
		var rep Report
		out := r.String(in, "fuzz", &rep)
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of valid input:\n in %q\nout %q", in, out)
		}
		if json.Valid([]byte(in)) && !json.Valid([]byte(out)) {
			t.Fatalf("invalid JSON out of valid JSON:\n in %q\nout %q", in, out)
		}
		if len(out) > len(in)+rep.Total()*maxMarkerLen {
			t.Fatalf("output of %d bytes from %d bytes and %d markers", len(out), len(in), rep.Total())
		}
		var again Report
		if out2 := r.String(out, "fuzz", &again); out2 != out {
			t.Fatalf("not idempotent:\n in %q\nout %q\nout2 %q", in, out, out2)
		}
		var buf bytes.Buffer
		var crep Report
		if err := r.Copy(&buf, strings.NewReader(in), "fuzz", &crep); err != nil {
			t.Fatal(err)
		}
		if buf.String() != out || crep.Total() != rep.Total() {
			t.Fatalf("Copy differs from String:\n in %q\nout %q\ncopy %q", in, out, buf.String())
		}
		edits := NewEdits(1 << 16)
		if err := r.CopyEdits(io.Discard, strings.NewReader(in), "fuzz", nil, edits); err != nil {
			t.Fatal(err)
		}
		if rb, err := io.ReadAll(edits.Replay(strings.NewReader(in))); err != nil || string(rb) != out {
			t.Fatalf("replaying the edits differs from String (%v):\n in %q\nout %q\nreplay %q", err, in, out, rb)
		}
		// Inside JSON, as a transcript line holds it: still valid JSON.
		for _, v := range []any{map[string]string{"text": in}, map[string]string{in: in, "k": "x"}, []string{in, "x"}} {
			j, err := json.Marshal(v)
			if err != nil {
				continue
			}
			jo := r.String(string(j), "fuzz", nil)
			if !json.Valid([]byte(jo)) {
				t.Fatalf("JSON line broken:\n in %s\nout %s", j, jo)
			}
			if r.String(jo, "fuzz", nil) != jo {
				t.Fatalf("not idempotent on JSON line %s", j)
			}
		}
		if !strings.Contains(in, "[REDACTED") {
			if n := strings.Count(out, "[REDACTED:"); n != rep.Total() {
				t.Fatalf("%d markers, report counts %d:\n in %q\nout %q", n, rep.Total(), in, out)
			}
		}
	})
}
