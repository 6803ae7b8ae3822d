package jsonfast

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// Members and Elements give each member's key and value, each element
// and where it begins, once the whole is checked: nothing for input that
// is not one object (one array), and they stop at fn's error.
func TestMembersAndElements(t *testing.T) {
	var keys, values []string
	valid, err := Members([]byte(` {"a":1, "b" : [1, 2] ,"\u0063":{"x":null},"a":"\ud800"} `), func(k string, v []byte) error {
		keys, values = append(keys, k), append(values, string(v))
		return nil
	})
	if !valid || err != nil || !slices.Equal(keys, []string{"a", "b", "c", "a"}) ||
		!slices.Equal(values, []string{`1`, `[1, 2]`, `{"x":null}`, `"\ud800"`}) {
		t.Errorf("Members: %v %v, keys %q, values %q", valid, err, keys, values)
	}
	arr := []byte(`[ 1 ,"x", {} ]`)
	var at []int
	valid, err = Elements(arr, func(e []byte, i int) error {
		if !bytes.Equal(arr[i:i+len(e)], e) {
			t.Errorf("element %q is not at %d", e, i)
		}
		at = append(at, i)
		return nil
	})
	if !valid || err != nil || !slices.Equal(at, []int{2, 5, 10}) {
		t.Errorf("Elements: %v %v, at %v", valid, err, at)
	}
	for _, in := range []string{`{"a":1} x`, `{"a":}`, `[1,]`, `[1]`, ``, `{"a":1`, "\xef\xbb\xbf{}"} {
		if valid, _ := Members([]byte(in), func(string, []byte) error { t.Errorf("%q: a member", in); return nil }); valid {
			t.Errorf("Members(%q) valid", in)
		}
	}
	if valid, _ := Elements([]byte(`{}`), func([]byte, int) error { return nil }); valid {
		t.Error("Elements of an object valid")
	}
	stop := errors.New("stop")
	n := 0
	if _, err := Elements([]byte(`[1,2,3]`), func([]byte, int) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("Elements went on after an error: %v, %d calls", err, n)
	}
}

// FuzzMembers holds Members' check to encoding/json's: valid exactly
// when the input is valid JSON opening with an object, each value
// valid JSON.
func FuzzMembers(f *testing.F) {
	for _, in := range umInputs {
		if len(in) < 1000 {
			f.Add([]byte(in))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		valid, _ := Members(b, func(k string, v []byte) error {
			if !json.Valid(v) {
				t.Errorf("%q: value %q", b, v)
			}
			return nil
		})
		trimmed := bytes.TrimLeft(b, " \t\r\n")
		if want := json.Valid(b) && len(trimmed) > 0 && trimmed[0] == '{'; valid != want {
			t.Errorf("%q: valid %v, encoding/json %v", b, valid, want)
		}
	})
}
