package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

const goodRecord = `{
  "schema_version": 1,
  "id": "01M83T4CM0ABCDEFGHJKMNPQRS",
  "created_at": "2026-11-23T09:00:00Z",
  "tool": "codex",
  "project": {"path": "/src/app", "name": "app"},
  "title": "Refactor auth middleware",
  "next_steps": ["Fix refresh test matrix"],
  "source": {"kind": "hand"}
}`

func TestStrictCheckRejects(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"duplicate key", `{"a":1,"a":2}`, `duplicate key "a"`},
		{"nested duplicate", `{"a":{"b":1,"c":[{"d":1,"d":1}]}}`, `duplicate key "d" at /a/c/0`},
		{"escaped duplicate", `{"a":1,"\u0061":2}`, `duplicate key "a"`},
		{"missing value", `{"a":}`, "invalid character"},
		{"trailing comma", `[1,]`, "invalid character"},
		{"trailing data", `{"a":1} {"b":2}`, "trailing data"},
		{"trailing garbage", `{"a":1}x`, "trailing data"},
		{"invalid utf-8", "{\"a\":\"\xff\"}", "invalid UTF-8 at byte 6"},
		{"truncated", `{"a":`, "unexpected end"},
		{"empty", ``, "unexpected end"},
		{"too deep", strings.Repeat("[", 100) + strings.Repeat("]", 100), "nested deeper than 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := StrictCheck([]byte(tc.in))
			if err == nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an ErrMalformed containing %q", err, tc.want)
			}
		})
	}
	if err := StrictCheck([]byte(" {\"a\":[1,{\"b\":null}],\"c\":\"é\"}\n")); err != nil {
		t.Fatalf("valid JSON refused: %v", err)
	}
}

func TestValidateGoodRecord(t *testing.T) {
	if err := Validate(Handoff, []byte(goodRecord)); err != nil {
		t.Fatal(err)
	}
}

func TestValidateListsEveryViolation(t *testing.T) {
	bad := strings.NewReplacer(
		`"tool": "codex"`, `"tool": "Codex!"`,
		`"next_steps": ["Fix refresh test matrix"]`, `"next_steps": ["   "], "colour": "red"`,
		`"created_at": "2026-11-23T09:00:00Z"`, `"created_at": "yesterday"`,
	).Replace(goodRecord)
	err := Validate(Handoff, []byte(bad))
	var ve *ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("got %v, want *ValidationError", err)
	}
	want := map[string]bool{"/tool": false, "/next_steps/0": false, "/created_at": false, "": false}
	for _, v := range ve.Violations {
		if _, ok := want[v.Pointer]; ok {
			want[v.Pointer] = true
		}
	}
	for p, seen := range want {
		if !seen {
			t.Errorf("no violation at %q in %v", p, ve.Violations)
		}
	}
	if !strings.Contains(err.Error(), "colour") {
		t.Errorf("unknown field not named: %v", err)
	}
}

func TestValidateNewerSchemaVersionIsAViolation(t *testing.T) {
	err := Validate(Handoff, []byte(strings.Replace(goodRecord, `"schema_version": 1`, `"schema_version": 2`, 1)))
	if err == nil || !strings.Contains(err.Error(), "/schema_version") {
		t.Fatalf("got %v", err)
	}
}

func TestDecodeRefusesUnknownFieldsAndFillsStruct(t *testing.T) {
	var v struct {
		SchemaVersion int    `json:"schema_version"`
		Title         string `json:"title"`
	}
	// The schema accepts the full record but the target struct does not
	// know most of its fields: Decode must refuse rather than drop them.
	if err := Decode(Handoff, []byte(goodRecord), &v); err == nil || !errors.Is(err, ErrMalformed) {
		t.Fatalf("got %v, want unknown field error", err)
	}
}

func TestEmbeddedSchemasCompile(t *testing.T) {
	if _, err := compiled(); err != nil {
		t.Fatal(err)
	}
	if src, err := Source(Handoff); err != nil || !strings.Contains(string(src), "2020-12") {
		t.Fatalf("Source: %v", err)
	}
}

// TestEveryPatternCompiles compiles every pattern of the embedded
// schemas, which validation compiles only when a string meets it.
func TestEveryPatternCompiles(t *testing.T) {
	schemas, err := compiled()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[*node]bool{}
	patterns := 0
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.pattern != nil {
			patterns++
			if _, err := n.pattern.compiled(); err != nil {
				t.Error(err)
			}
		}
		for _, c := range n.properties {
			walk(c)
		}
		for _, c := range []*node{n.additional, n.items, n.refNode, n.ifNode, n.thenNode, n.elseNode} {
			walk(c)
		}
	}
	for _, n := range schemas {
		walk(n)
	}
	if patterns < 10 {
		t.Errorf("found %d patterns, the handoff schema alone has 13", patterns)
	}
}

// A pattern that does not compile is a violation where it is used.
func TestBadPatternIsAViolation(t *testing.T) {
	n := &node{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, pattern: newPattern("#/x", "(")}
	var got []Violation
	n.validateValue("text", "", &got)
	if len(got) != 1 || !strings.Contains(got[0].Message, "#/x/pattern") {
		t.Errorf("violations %v, want one naming the pattern", got)
	}
}

func FuzzStrictCheck(f *testing.F) {
	f.Add([]byte(goodRecord))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte("[[[[\xff"))
	f.Add([]byte(`"\ud800"`))
	f.Add([]byte(`1e999`))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := StrictCheck(data)
		if err == nil && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if err == nil {
			// Anything StrictCheck accepts the schema validator's own
			// decoder reads too: Validate says valid, or names schema
			// violations, each at a place, never a malformed document.
			verr := Validate(Handoff, data)
			var ve *ValidationError
			if verr != nil && (!errors.As(verr, &ve) || len(ve.Violations) == 0) {
				t.Fatalf("StrictCheck took %q, Validate says %v", data, verr)
			}
		}
	})
}

// A duplicate key quoted in an error is cut on a character boundary.
func TestDuplicateKeyErrorKeepsUTF8(t *testing.T) {
	key := strings.Repeat("k", 39) + "ü" + strings.Repeat("z", 10)
	doc := `{"` + key + `":1,"` + key + `":2}`
	err := StrictCheck([]byte(doc))
	if err == nil {
		t.Fatal("duplicate key accepted")
	}
	if !utf8.ValidString(err.Error()) {
		t.Fatalf("error splits a character: %q", err.Error())
	}
}
