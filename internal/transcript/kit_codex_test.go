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
