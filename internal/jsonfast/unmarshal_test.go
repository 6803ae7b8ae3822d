package jsonfast

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The shapes the readers decode into with Unmarshal, and the rest of
// what it decodes itself or hands to encoding/json.
type (
	umTokens struct {
		Input int64 `json:"input"`
		Cache struct {
			Read int64 `json:"read"`
		} `json:"cache"`
	}
	umMessage struct {
		Role string `json:"role"`
		Time struct {
			Created int64 `json:"created"`
		} `json:"time"`
		Summary json.RawMessage `json:"summary"`
		Tokens  *umTokens       `json:"tokens"`
		Error   *struct {
			Name string `json:"name"`
		} `json:"error"`
		Exit     *int       `json:"exit"`
		Exists   *bool      `json:"exists"`
		Edits    []struct{} `json:"edits"`
		Todos    []umTodo   `json:"todos"`
		Args     []string   `json:"args"`
		Items    []json.RawMessage
		Meta     map[string]any  `json:"meta"`
		Counts   map[string]int  `json:"counts"`
		Any      any             `json:"any"`
		Num      json.Number     `json:"num"`
		Small    int8            `json:"small"`
		Unsigned uint16          `json:"unsigned"`
		Float    float32         `json:"float"`
		Ptrs     []*umTodo       `json:"ptrs"`
		PP       **int           `json:"pp"`
		Named    umName          `json:"named"`
		ByName   map[umName]bool `json:"by_name"`
		Skipped  string          `json:"-"`
		NoTag    string
	}
	umTodo struct {
		Content string `json:"content"`
		Status  string `json:"status"`
	}
	umName string
	// What Unmarshal hands to encoding/json.
	umTime     struct{ At time.Time }
	umEmbedded struct {
		umTodo
		X int `json:"x"`
	}
	umQuoted struct {
		N int `json:"n,string"`
	}
	umBytes struct{ B []byte }
	umArray struct{ A [2]int }
	umTree  struct {
		Name string    `json:"name"`
		Kids []*umTree `json:"kids"`
	}
)

var umTypes = []reflect.Type{
	reflect.TypeFor[umMessage](), reflect.TypeFor[[]umMessage](), reflect.TypeFor[string](),
	reflect.TypeFor[[]json.RawMessage](), reflect.TypeFor[json.RawMessage](), reflect.TypeFor[any](),
	reflect.TypeFor[map[string]json.RawMessage](), reflect.TypeFor[*umTodo](), reflect.TypeFor[[]string](),
	reflect.TypeFor[int](), reflect.TypeFor[float64](), reflect.TypeFor[bool](), reflect.TypeFor[json.Number](),
	reflect.TypeFor[umTime](), reflect.TypeFor[umEmbedded](), reflect.TypeFor[umQuoted](),
	reflect.TypeFor[umBytes](), reflect.TypeFor[umArray](), reflect.TypeFor[umTree](), reflect.TypeFor[[]any](),
}

var umInputs = []string{
	`{}`, `[]`, `null`, `""`, `"x"`, `1`, `-0`, `1.5`, `1e3`, `true`, `false`, ` {"role":"user"} `,
	`{"role":"assistant","time":{"created":1700000000000},"summary":true,"tokens":{"input":3,"cache":{"read":4}},"error":{"name":"MessageAbortedError"}}`,
	`{"summary":null,"tokens":null,"error":null,"exit":null,"exists":null,"edits":null,"todos":null,"meta":null,"any":null,"num":null,"pp":null}`,
	`{"summary":{"diffs":[]},"exit":0,"exists":false,"edits":[{},{"a":1}],"todos":[{"content":"a","status":"done"},null,{"content":2}]}`,
	`{"args":["a",1,null,"b"],"Items":[1,"2",{"3":[4]},null],"meta":{"a":1,"b":[1,2.5e3,{"c":null}],"d":"e","f":true}}`,
	`{"counts":{"a":1,"b":"x","c":1.5,"d":null},"any":[1,{"x":"y"}],"num":-1.5e-7,"small":127,"unsigned":65535,"float":3.25}`,
	`{"small":128}`, `{"small":-129}`, `{"unsigned":-1}`, `{"unsigned":1.0}`, `{"float":1e39}`, `{"float":"1"}`,
	`{"num":"12"}`, `{"num":"x"}`, `{"num":true}`, `{"num":{}}`, `{"any":1e400}`, `{"meta":{"a":1e400,"b":2}}`,
	`{"ptrs":[{"content":"a"},null,{}],"pp":5,"named":"n","by_name":{"a":true,"b":1}}`,
	`{"role":1,"time":"x","tokens":[],"error":"e","edits":{},"todos":"t","args":{"0":"a"}}`,
	`{"tokens":{"input":"3","cache":[]}}`, `{"tokens":{"cache":{"read":1.5}}}`, `{"todos":[{"status":[1]}]}`,
	`{"role":"a","role":"b"}`, `{"todos":[{"content":"a"}],"todos":[{"status":"b"}]}`,
	`{"Role":"user"}`, `{"ROLE":"user"}`, `{"rolé":"x"}`, `{"ſummary":1}`, `{"\u0072ole":"user"}`, `{"r\u00f6le":1}`,
	`{"-":"dash"}`, `{"a\"b":"q"}`, `{"BadTag":"t"}`, `{"NoTag":"n"}`, `{"notag":"n"}`, `{"hidden":"h"}`, `{"Skipped":"s"}`,
	`{"role":"\ud800"}`, `{"role":"\ud83d\ude00 \u00e9\n\"\\\/"}`, "{\"role\":\"\xff\xfe\"}", "\"\xc3\x28\"",
	`{"role":"user"`, `{"role":}`, `{"role":"user"} x`, `{"role" "user"}`, `{,}`, `[1,]`, `01`, `-`, `1.`, `tru`, ``, ` `,
	`{"At":"2024-01-02T03:04:05Z"}`, `{"content":"c","x":1}`, `{"n":"5"}`, `{"B":"aGk="}`, `{"A":[1,2,3]}`,
	`{"name":"r","kids":[{"name":"k","kids":[]},{"kids":null}]}`, `{"kids":[1]}`,
	`[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]`, `{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	`"\u0000"`, `"a\tb"`, "\"a\tb\"", `9223372036854775807`, `9223372036854775808`, `-9223372036854775808`,
	`123456789012345678`, `-1234567890123456789`, `1E2`, `0.0`, `-0.0`,
}

// sameResult says how jsonfast.Unmarshal and json.Unmarshal differ on
// data into a new value of type t: "" when they give the same value and
// the same error.
func sameResult(t reflect.Type, data []byte) string {
	got, want := reflect.New(t), reflect.New(t)
	gotErr := Unmarshal(data, got.Interface())
	wantErr := json.Unmarshal(data, want.Interface())
	if !reflect.DeepEqual(got.Elem().Interface(), want.Elem().Interface()) {
		return "value " + show(got.Elem().Interface()) + ", encoding/json's " + show(want.Elem().Interface())
	}
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		return "error " + errText(gotErr) + ", encoding/json's " + errText(wantErr)
	}
	var g, w *json.UnmarshalTypeError
	if errors.As(gotErr, &g) != errors.As(wantErr, &w) || g != nil && *g != *w {
		return "type error " + show(g) + ", encoding/json's " + show(w)
	}
	return ""
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func errText(err error) string {
	if err == nil {
		return "none"
	}
	return err.Error()
}

// Unmarshal gives what json.Unmarshal gives, value and error, for every
// type and every input: well-formed, of the wrong types at every depth,
// null everywhere, fields given twice, keys matching a field but for
// their case, escapes, invalid UTF-8, numbers out of range, syntax
// errors, types it hands to encoding/json.
func TestUnmarshalMatchesStd(t *testing.T) {
	for _, typ := range umTypes {
		for _, in := range umInputs {
			if d := sameResult(typ, []byte(in)); d != "" {
				t.Errorf("%v from %.60q: %s", typ, in, d)
			}
		}
	}
}

// Unmarshal decodes itself what it can: well-formed input into the
// readers' shapes, type errors included, and hands on only the rest.
func TestUnmarshalDecodesItself(t *testing.T) {
	for _, c := range []struct {
		typ  reflect.Type
		in   string
		self bool
	}{
		{reflect.TypeFor[umMessage](), umInputs[12], true},
		{reflect.TypeFor[umMessage](), umInputs[14], true},
		{reflect.TypeFor[umMessage](), `{"role":1,"time":"x","tokens":[]}`, true},
		{reflect.TypeFor[[]json.RawMessage](), `[1,"a",{}]`, true},
		{reflect.TypeFor[string](), `[1,"a",{}]`, true},
		{reflect.TypeFor[any](), `{"a":[1,2]}`, true},
		{reflect.TypeFor[umTree](), `{"name":"r","kids":[{"name":"k"}]}`, true},
		{reflect.TypeFor[umMessage](), `{"Role":"user"}`, false},
		{reflect.TypeFor[umMessage](), `{"role":"a","role":"b"}`, false},
		{reflect.TypeFor[umMessage](), `{"role":"a"`, false},
		{reflect.TypeFor[umTime](), `{}`, false},
		{reflect.TypeFor[umEmbedded](), `{}`, false},
		{reflect.TypeFor[umQuoted](), `{}`, false},
		{reflect.TypeFor[umBytes](), `{}`, false},
		{reflect.TypeFor[umArray](), `{}`, false},
	} {
		v := reflect.New(c.typ)
		if done, _ := unmarshal([]byte(c.in), v.Interface()); done != c.self {
			t.Errorf("%v from %q: decoded itself %v, want %v", c.typ, c.in, done, c.self)
		}
		if !c.self && !v.Elem().IsZero() {
			t.Errorf("%v from %q: handed on, its value not zero again", c.typ, c.in)
		}
	}
	// A value that is not zero is encoding/json's to decode into.
	s := "set"
	if done, _ := unmarshal([]byte(`"x"`), &s); done {
		t.Error("decoded into a value that was not zero")
	}
}

// FuzzUnmarshal holds Unmarshal to json.Unmarshal on any input, into
// every type of the test.
func FuzzUnmarshal(f *testing.F) {
	for _, in := range umInputs {
		if len(in) < 1000 {
			f.Add([]byte(in))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, typ := range umTypes {
			if d := sameResult(typ, data); d != "" {
				t.Errorf("%v from %q: %s", typ, data, d)
			}
		}
	})
}

// validTagName is encoding/json's rule for a tag's name on ASCII: a
// name that breaks it gives way to the field's own.
func TestValidTagName(t *testing.T) {
	for name, want := range map[string]bool{"": false, "a": true, "a b-c.d": true, "a'b": false, `a\b`: false, `a"b`: false, "a,b": false, "é": true, "!#$%&()*+-./:;<=>?@[]^_{|}~": true} {
		if got := validTagName(name); got != want {
			t.Errorf("validTagName(%q) = %v", name, got)
		}
	}
}
