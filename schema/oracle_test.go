package schema

// The JSON Schema library is the oracle the hand-written validator is held
// to: every mutation below must get the same verdict from both, with
// violations at the same places. The library is linked into this test
// only, never into the binary (TestBinaryDoesNotLinkTheSchemaLibrary).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	oracleOnce    sync.Once
	oracleSchemas map[string]*jsonschema.Schema
	oracleErr     error
)

func oracle(t testing.TB) map[string]*jsonschema.Schema {
	t.Helper()
	oracleOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		c.DefaultDraft(jsonschema.Draft2020)
		entries, err := files.ReadDir(".")
		if err != nil {
			oracleErr = err
			return
		}
		for _, e := range entries {
			data, _ := files.ReadFile(e.Name())
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err == nil {
				err = c.AddResource(e.Name(), doc)
			}
			if err != nil {
				oracleErr = err
				return
			}
		}
		oracleSchemas = map[string]*jsonschema.Schema{}
		for _, e := range entries {
			s, err := c.Compile(e.Name()) // also checks the schema against its metaschema
			if err != nil {
				oracleErr = err
				return
			}
			oracleSchemas[e.Name()] = s
		}
	})
	if oracleErr != nil {
		t.Fatal(oracleErr)
	}
	return oracleSchemas
}

// oracleVerdict is the library's answer: nil when valid, else the sorted,
// de-duplicated pointers of the leaf violations.
func oracleVerdict(t testing.TB, name string, data []byte) (valid bool, pointers []string) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("oracle cannot parse %s", data)
	}
	err = oracle(t)[name].Validate(inst)
	if err == nil {
		return true, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("oracle: %v", err)
	}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			ptr := ""
			for _, tok := range e.InstanceLocation {
				ptr += "/" + escapePointer(tok)
			}
			pointers = append(pointers, ptr)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return false, uniqueSorted(pointers)
}

func ourVerdict(t testing.TB, name string, data []byte) (valid bool, pointers []string) {
	err := Validate(name, data)
	if err == nil {
		return true, nil
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate: %v", err)
	}
	for _, v := range ve.Violations {
		pointers = append(pointers, v.Pointer)
	}
	return false, uniqueSorted(pointers)
}

func uniqueSorted(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// compareWithOracle fails t when the verdicts differ. Where the library
// accepts a date-time that RFC 3339 does not (its time parser takes
// "+1:00:00" for an hour), ours may be the stricter one.
func compareWithOracle(t testing.TB, name string, data []byte) {
	t.Helper()
	if StrictCheck(data) != nil {
		return
	}
	okTheirs, theirs := oracleVerdict(t, name, data)
	okOurs, ours := ourVerdict(t, name, data)
	if okTheirs == okOurs && strings.Join(theirs, " ") == strings.Join(ours, " ") {
		return
	}
	if stricterOnDateTimeOnly(name, data, theirs, ours) {
		return
	}
	t.Fatalf("%s: library says valid=%v at %q, we say valid=%v at %q\n%s", name, okTheirs, theirs, okOurs, ours, data)
}

// stricterOnDateTimeOnly reports whether ours differs from the library's
// verdict only by refusing date-times the library takes (its time parser
// reads "+0" as an hour; RFC 3339 wants two digits): every place the
// library found is ours too, and each place only we found holds nothing
// but a date-time violation.
func stricterOnDateTimeOnly(name string, data []byte, theirs, ours []string) bool {
	var ve *ValidationError
	if !errors.As(Validate(name, data), &ve) {
		return false
	}
	inTheirs := map[string]bool{}
	for _, p := range theirs {
		inTheirs[p] = true
	}
	oursSet := map[string]bool{}
	for _, p := range ours {
		oursSet[p] = true
	}
	for p := range inTheirs {
		if !oursSet[p] {
			return false
		}
	}
	extra := false
	for _, v := range ve.Violations {
		if inTheirs[v.Pointer] {
			continue
		}
		if !strings.Contains(v.Message, "is not a valid date-time") {
			return false
		}
		extra = true
	}
	return extra
}

// goldenManifest is a manifest with a record that uses most fields.
func goldenManifest(t testing.TB) map[string]any {
	data, err := os.ReadFile("../testdata/bundles/golden/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// replacements are values put in place of each value of a good document.
var replacements = []string{
	`null`, `true`, `0`, `-1`, `1.0`, `1.5`, `1e400`, `-0`, `9007199254740992`, `""`, `" "`, `"x"`, `"M"`, `"Z"`,
	`"edited"`, `"dirty"`, `"pending"`, `"recipients"`, `"none"`, `"passphrase"`, `"session-handoff-bundle"`,
	`"2026-11-23T09:00:00Z"`, `"2026-02-29T09:00:00Z"`, `"2024-02-29T09:00:00+01:00"`, `"2026-11-23T23:59:60Z"`,
	`"2026-11-23T22:59:60-01:00"`, `"2026-11-23 09:00:00Z"`, `"2026-11-23T09:00:00.Z"`, `"2026-11-23T09:00:00.123456789z"`,
	`"01JGM1B2C3D4E5F6G7H8J9K0MN"`, `"0123456789abcdef0123456789abcdef01234567"`, `"ssh-ed25519 AAAA"`,
	`"a/b"`, `"é"`, `"\u0000"`, `[]`, `[""]`, `["a","a"]`, `["a","b"]`, `[1,1.0]`, `[{"a":1},{"a":1.0}]`, `{}`,
	`{"path":"p","status":"M"}`, `{"content":"c","status":"done"}`, `{"kind":"hand"}`,
}

// mutations returns documents that differ from root in one place each:
// every value replaced by each of replacements or by long strings,
// removed, an unknown field added to every object, every array doubled.
func mutations(root map[string]any) (out [][]byte) {
	var walk func(v any, path []string)
	emit := func(path []string, set func(parent any, key string) bool) {
		cp := deepCopy(root)
		var parent any = cp
		for _, tok := range path[:len(path)-1] {
			parent = child(parent, tok)
		}
		if set(parent, path[len(path)-1]) {
			data, _ := json.Marshal(cp)
			out = append(out, data)
		}
	}
	walk = func(v any, path []string) {
		if len(path) > 0 {
			for _, r := range replacements {
				var nv any
				dec := json.NewDecoder(strings.NewReader(r))
				dec.UseNumber()
				if err := dec.Decode(&nv); err != nil {
					panic(fmt.Sprintf("replacement %q: %v", r, err))
				}
				emit(path, func(parent any, key string) bool { return setChild(parent, key, nv) })
			}
			// Two-byte characters around each maxLength: a byte count
			// where code points are meant shows.
			for _, n := range []int{150, 201, 600, 2500, 5000, 40000, 70000} {
				long := strings.Repeat("é", n)
				emit(path, func(parent any, key string) bool { return setChild(parent, key, long) })
			}
			emit(path, func(parent any, key string) bool {
				obj, ok := parent.(map[string]any)
				if ok {
					delete(obj, key)
				}
				return ok
			})
		}
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(c, append(append([]string{}, path...), k))
			}
			cp := deepCopy(root)
			var target any = cp
			for _, tok := range path {
				target = child(target, tok)
			}
			target.(map[string]any)["unknown_field"] = "x"
			data, _ := json.Marshal(cp)
			out = append(out, data)
		case []any:
			for i, c := range x {
				walk(c, append(append([]string{}, path...), strconv.Itoa(i)))
			}
			cp := deepCopy(root)
			var target any = cp
			for _, tok := range path[:len(path)-1] {
				target = child(target, tok)
			}
			arr := child(target, path[len(path)-1]).([]any)
			setChild(target, path[len(path)-1], append(append([]any{}, arr...), arr...))
			data, _ := json.Marshal(cp)
			out = append(out, data)
		}
	}
	walk(root, nil)
	return out
}

func child(v any, tok string) any {
	switch x := v.(type) {
	case map[string]any:
		return x[tok]
	case []any:
		i, _ := strconv.Atoi(tok)
		return x[i]
	}
	return nil
}

func setChild(parent any, key string, v any) bool {
	switch x := parent.(type) {
	case map[string]any:
		x[key] = v
		return true
	case []any:
		i, _ := strconv.Atoi(key)
		x[i] = v
		return true
	}
	return false
}

func deepCopy(v any) map[string]any {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		panic(err)
	}
	return out
}

func TestValidatorAgreesWithJSONSchema(t *testing.T) {
	m := goldenManifest(t)
	record := m["record"].(map[string]any)
	// Fields the golden bundle predates, so that their keywords are
	// mutated too.
	full := deepCopy(record)
	sess := full["session"].(map[string]any)
	sess["plan"] = "1. read\n2. fix"
	sess["pull_requests"] = []any{map[string]any{"url": "https://example.com/pr/1", "number": json.Number("1"), "repository": "a/b"}}
	sess["commands"] = []any{map[string]any{"command": "go test ./...", "exit_code": json.Number("1"), "status": "failed", "by": "subagent a1", "count": json.Number("2")}}
	full["files"].([]any)[0].(map[string]any)["by"] = "subagent a1"
	if err := Validate(Handoff, mustJSON(t, full)); err != nil {
		t.Fatalf("the extended record is not valid: %v", err)
	}
	docs := map[string][][]byte{Handoff: append(mutations(record), mutations(full)...), Manifest: mutations(m)}
	// Under the race detector (CI's go test -race) the library validates
	// about ten times slower, and the whole campaign took 107 s: there it
	// checks every raceSample-th mutation of each list, a fixed sample
	// spread over all of them. .ci/run runs the full set without -race
	// (its step "schema oracle, every mutation").
	every := 1
	if raceDetector {
		every = raceSample
	}
	n, checked := 0, 0
	for name, list := range docs {
		for i, data := range list {
			n++
			if i%every != 0 {
				continue
			}
			compareWithOracle(t, name, data)
			checked++
		}
	}
	if n < 2000 {
		t.Fatalf("only %d mutations: the generator lost its way", n)
	}
	t.Logf("%d of %d documents checked, all agree", checked, n)
}

// raceSample is the share of mutations checked under the race detector:
// one in raceSample.
const raceSample = 8

func FuzzValidatorAgreesWithJSONSchema(f *testing.F) {
	m := goldenManifest(f)
	rec, _ := json.Marshal(m["record"])
	man, _ := json.Marshal(m)
	f.Add(rec, false)
	f.Add(man, true)
	f.Add([]byte(goodRecord), false)
	f.Fuzz(func(t *testing.T, data []byte, manifest bool) {
		if len(data) > 1<<16 {
			return
		}
		name := Handoff
		if manifest {
			name = Manifest
		}
		compareWithOracle(t, name, data)
	})
}

func TestDecimalCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"1", "1.0", 0}, {"-0", "0", 0}, {"0.1e1", "1", 0}, {"10", "1e1", 0}, {"9007199254740991", "9007199254740992", -1},
		{"-1", "0", -1}, {"-2", "-1", -1}, {"1e400", "9007199254740991", 1}, {"1e-400", "0", 1}, {"-1e-400", "0", -1},
		{"123.45", "123.5", -1}, {"100", "99.999", 1},
	} {
		a, ok1 := parseDecimal(tc.a)
		b, ok2 := parseDecimal(tc.b)
		if !ok1 || !ok2 {
			t.Fatalf("parse %s %s", tc.a, tc.b)
		}
		if got := a.cmp(b); got != tc.want {
			t.Errorf("cmp(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	for lit, want := range map[string]bool{"1": true, "1.0": true, "1.5": false, "1e3": true, "1.5e1": true, "1e-1": false, "0.0": true, "1e-400": false} {
		if d, _ := parseDecimal(lit); d.isInt() != want {
			t.Errorf("isInt(%s) = %v", lit, !want)
		}
	}
}

// TestUnsupportedKeywordIsRefused: a schema change that uses a keyword the
// validator does not implement must fail loudly, not be ignored.
func TestUnsupportedKeywordIsRefused(t *testing.T) {
	c := &compiler{docs: map[string]map[string]any{}, nodes: map[string]*node{}}
	for _, kw := range []string{"oneOf", "patternProperties", "exclusiveMinimum", "dependentRequired", "contains"} {
		if _, err := c.compile("x.json", "/"+kw, map[string]any{kw: []any{}}); err == nil || !strings.Contains(err.Error(), kw) {
			t.Errorf("%s: got %v", kw, err)
		}
	}
}

// TestBinaryDoesNotLinkTheSchemaLibrary holds the start-up gain: the
// library compiles its metaschemas at package init, in every process.
func TestBinaryDoesNotLinkTheSchemaLibrary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "../cmd/session-handoff").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/santhosh-tekuri/jsonschema") {
			t.Fatalf("the binary links %s: its init compiles every metaschema at start-up", dep)
		}
	}
}

func mustJSON(t testing.TB, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
