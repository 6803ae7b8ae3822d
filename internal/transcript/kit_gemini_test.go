package transcript

import (
	"strings"
	"testing"
)

// A pointer field given a value of another type than the one it points
// to stays nil, as Decode's other fields stay as they were: a reader can
// tell "an object" from "anything else" by it.
func TestDecodePointerOfAnotherType(t *testing.T) {
	type obj struct {
		A int `json:"a"`
	}
	var v struct {
		P *obj    `json:"p"`
		S *string `json:"s"`
		N *int    `json:"n"`
		L *[]int  `json:"l"`
	}
	if err := Decode([]byte(`{"p":"x","s":5,"n":"y","l":{}}`), &v); err != nil || v.P != nil || v.S != nil || v.N != nil || v.L != nil {
		t.Errorf("%+v %v: want every field nil", v, err)
	}
	if err := Decode([]byte(`{"p":{"a":1},"s":"v","n":2,"l":[3]}`), &v); err != nil || v.P == nil || v.P.A != 1 || v.S == nil || *v.S != "v" || v.N == nil || *v.N != 2 || v.L == nil || len(*v.L) != 1 {
		t.Errorf("%+v %v", v, err)
	}
	// Of another type, the value is still checked.
	if err := Decode([]byte(`{"p":"x}`), &v); err == nil {
		t.Error("a broken value was accepted")
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
