package transcript

import (
	"strings"
	"testing"
)

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
