package transcript

import "github.com/session-handoff/session-handoff/internal/jsonfast"

// The JSON decoding of the readers' toolkit is internal/jsonfast's; the
// readers reach it here, as the rest of the toolkit.

// Decode decodes line, one JSON object, into v, a pointer to a struct of
// json-tagged fields, leniently about a field's type (jsonfast.Decode).
func Decode(line []byte, v any) error { return jsonfast.Decode(line, v) }

// DecodeValue decodes raw, one JSON value, into v, a pointer, as Decode
// decodes a field (jsonfast.DecodeValue).
func DecodeValue(raw []byte, v any) error { return jsonfast.DecodeValue(raw, v) }

// DecodeObject decodes one JSON object as encoding/json with UseNumber
// would; anything else is refused (jsonfast.DecodeObject).
func DecodeObject(b []byte) (map[string]any, bool) { return jsonfast.DecodeObject(b) }

// EachLeaf calls fn with each value of b, one JSON value, that is no
// array, nested arrays flattened, and the index of the element of b it
// lies in (jsonfast.EachLeaf).
func EachLeaf(b []byte, fn func(leaf []byte, top int)) error { return jsonfast.EachLeaf(b, fn) }

// TextOrJSON is a field that is a string or any other JSON value
// (jsonfast.TextOrJSON).
type TextOrJSON = jsonfast.TextOrJSON

// Unmarshal is json.Unmarshal for v a pointer to a zero value, the same
// value and the same error, faster (jsonfast.Unmarshal): for a reader
// whose decoding is encoding/json's, type errors and all.
func Unmarshal(data []byte, v any) error { return jsonfast.Unmarshal(data, v) }

// Members and Elements walk a JSON object's members and an array's
// elements, each value's bytes in turn, once the whole is checked
// (jsonfast.Members, jsonfast.Elements).
func Members(obj []byte, fn func(key string, value []byte) error) (valid bool, err error) {
	return jsonfast.Members(obj, fn)
}

func Elements(arr []byte, fn func(elem []byte, at int) error) (valid bool, err error) {
	return jsonfast.Elements(arr, fn)
}
