package transcript

import (
	"encoding/json"
	"testing"
)

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
