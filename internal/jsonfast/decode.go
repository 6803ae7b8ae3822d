package jsonfast

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Decode decodes line, one JSON object, into v, a pointer to a struct
// whose fields name the line's fields in json tags: the way a reader in an
// agent's folder declares each field it reads once, as a typed line
// struct. It runs on the package's fast parser (jsonfast.go), so it
// accepts and refuses exactly the lines encoding/json does, and a field
// the struct does not name is checked and never built.
//
// It differs from json.Unmarshal where a transcript is hostile or its
// agent changes its format: a value of another type than its field's (a
// string where a number is wanted, an object where a list is) leaves the
// field as it was instead of failing the whole line, as the readers'
// lenient look-ups always have; a number beyond the field's range or with
// a fraction for an integer reads as absent; names match exactly (no
// case folding); a field tagged ",string", embedded structs and
// unmarshaler methods are not honoured. Fields of type json.RawMessage get
// the value's bytes, json.Number a number's text, any the value as
// encoding/json builds it.
func Decode(line []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return errors.New("jsonfast.Decode: want a pointer to a struct")
	}
	if !decodeInto(line, rv.Elem(), true) {
		return errNotObject
	}
	return nil
}

// decodeInto decodes b, one JSON value (an object when object is set),
// into rv; false when b is not one.
func decodeInto(b []byte, rv reflect.Value, object bool) bool {
	p := parsers.Get().(*jsonParser)
	defer p.release()
	p.b, p.i, p.depth = b, 0, 0
	p.ws()
	if object && (p.i >= len(p.b) || p.b[p.i] != '{') || !p.into(rv) {
		return false
	}
	p.ws()
	return p.i == len(p.b)
}

// parsers keep the scratch buffers Decode unescapes strings into, from
// one line to the next: a reader decodes every line of a transcript.
var parsers = sync.Pool{New: func() any { return new(jsonParser) }}

// release puts p back into parsers, holding no line, and no scratch
// buffer larger than a line usually needs.
func (p *jsonParser) release() {
	p.b, p.floats, p.typeErr, p.inStruct, p.path = nil, false, nil, nil, p.path[:0]
	if cap(p.buf) > 1<<20 {
		p.buf = nil
	}
	parsers.Put(p)
}

// errNotObject is Decode's error for a line that is not one JSON object.
var errNotObject = errors.New("not a JSON object")

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
)

// into decodes the value at p.i into rv, or checks and skips it when its
// JSON type does not fit rv's kind. It reports whether the value was
// valid JSON.
func (p *jsonParser) into(rv reflect.Value) bool {
	if p.i >= len(p.b) {
		return false
	}
	c := p.b[p.i]
	switch t := rv.Type(); {
	case t == rawMessageType:
		start := p.i
		if !p.skip() {
			return false
		}
		rv.SetBytes(append([]byte(nil), p.b[start:p.i]...))
		return true
	case t == textOrJSONType:
		return p.intoTextOrJSON(rv.Addr().Interface().(*TextOrJSON))
	case t == numberType:
		start := p.i
		if c == '"' || c == '{' || c == '[' || c == 't' || c == 'f' || c == 'n' {
			return p.skip()
		}
		if !p.number() {
			return false
		}
		rv.SetString(string(p.b[start:p.i]))
		return true
	}
	switch rv.Kind() {
	case reflect.Pointer:
		if c == 'n' {
			return p.literal("null")
		}
		if !fits(rv.Type().Elem(), c) {
			return p.skip() // a value of another type: the pointer stays nil
		}
		if rv.IsNil() {
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		return p.into(rv.Elem())
	case reflect.Interface:
		if rv.NumMethod() != 0 {
			return p.skip()
		}
		val, ok := p.value()
		if ok && val != nil {
			rv.Set(reflect.ValueOf(val))
		}
		return ok
	case reflect.Struct:
		if c != '{' {
			return p.skip()
		}
		return p.intoStruct(rv, fieldsOf(rv.Type()))
	case reflect.Slice:
		if c != '[' {
			return p.skip()
		}
		return p.intoSlice(rv)
	case reflect.Map:
		if c != '{' || rv.Type().Key().Kind() != reflect.String {
			return p.skip()
		}
		return p.intoMap(rv)
	case reflect.String:
		if c != '"' {
			return p.skip()
		}
		start, end, esc, ok := p.scanString()
		if ok {
			rv.SetString(p.makeString(p.b[start:end], esc))
		}
		return ok
	case reflect.Bool:
		switch c {
		case 't':
			rv.SetBool(true)
			return p.literal("true")
		case 'f':
			rv.SetBool(false)
			return p.literal("false")
		}
		return p.skip()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if c == '"' || c == '{' || c == '[' || c == 't' || c == 'f' || c == 'n' {
			return p.skip()
		}
		start := p.i
		if !p.number() {
			return false
		}
		setNumber(rv, string(p.b[start:p.i]))
		return true
	}
	return p.skip()
}

// fits says whether a JSON value starting with c can be decoded into a
// value of type t.
func fits(t reflect.Type, c byte) bool {
	if t == rawMessageType || t == textOrJSONType || c == 'n' && t.Kind() == reflect.Pointer {
		return true
	}
	num := c == '-' || c >= '0' && c <= '9'
	if t == numberType {
		return num
	}
	switch t.Kind() {
	case reflect.Pointer:
		return fits(t.Elem(), c)
	case reflect.Interface:
		return t.NumMethod() == 0
	case reflect.Struct:
		return c == '{'
	case reflect.Map:
		return c == '{' && t.Key().Kind() == reflect.String
	case reflect.Slice:
		return c == '['
	case reflect.String:
		return c == '"'
	case reflect.Bool:
		return c == 't' || c == 'f'
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return num
	}
	return false
}

// setNumber sets rv, a number of some kind, to the JSON number text s
// when it fits: an integer field takes a whole number in its range (a
// fraction is dropped, as Int does).
func setNumber(rv reflect.Value, s string) {
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		if f, err := strconv.ParseFloat(s, rv.Type().Bits()); err == nil {
			rv.SetFloat(f)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, ok := Int(json.Number(s)); ok && n >= 0 && !rv.OverflowUint(uint64(n)) {
			rv.SetUint(uint64(n))
		}
	default:
		if n, ok := Int(json.Number(s)); ok && !rv.OverflowInt(n) {
			rv.SetInt(n)
		}
	}
}

func (p *jsonParser) intoStruct(rv reflect.Value, fields map[string][]int) bool {
	return p.members(func(key []byte, esc bool) bool {
		name := key
		if esc {
			name = p.unescape(key)
		}
		idx, ok := fields[string(name)]
		if !ok {
			return p.skip()
		}
		return p.into(rv.FieldByIndex(idx))
	})
}

func (p *jsonParser) intoMap(rv reflect.Value) bool {
	if rv.IsNil() {
		rv.Set(reflect.MakeMap(rv.Type()))
	}
	elem := rv.Type().Elem()
	v := reflect.New(elem).Elem() // each value in turn: the map keeps a copy
	return p.members(func(key []byte, esc bool) bool {
		if p.i >= len(p.b) {
			return false
		}
		if !fits(elem, p.b[p.i]) {
			return p.skip() // a value of another type is left out
		}
		k := p.makeString(key, esc)
		v.SetZero()
		if !p.into(v) {
			return false
		}
		rv.SetMapIndex(reflect.ValueOf(k).Convert(rv.Type().Key()), v)
		return true
	})
}

// intoSlice decodes the array at p.i into a new slice that replaces
// rv's, each element decoded where it lies in the slice, not built apart
// and copied in.
func (p *jsonParser) intoSlice(rv reflect.Value) bool {
	out := reflect.New(rv.Type()).Elem()
	n := 0
	if !p.elements(func() bool {
		if n == out.Cap() {
			out.Grow(1)
		}
		out.SetLen(n + 1)
		n++
		return p.into(out.Index(n - 1))
	}) {
		return false
	}
	if n == 0 {
		out = reflect.MakeSlice(rv.Type(), 0, 0)
	}
	rv.Set(out)
	return true
}

// structFields caches each struct type's fields by JSON name.
var structFields sync.Map // reflect.Type -> map[string][]int

// fieldsOf maps the JSON names of t's exported fields to their index: the
// name in the json tag, else the field's own; "-" leaves a field out.
func fieldsOf(t reflect.Type) map[string][]int {
	if m, ok := structFields.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		m[name] = f.Index
	}
	structFields.Store(t, m)
	return m
}

// TextOrJSON is a field whose value is a string or some other JSON value,
// as agents write a tool's output or arguments: Decode sets Text and
// IsText for a string, else JSON to the value's bytes (null included).
// Read either way, the value is scanned once.
type TextOrJSON struct {
	Text   string
	IsText bool
	JSON   json.RawMessage
}

var textOrJSONType = reflect.TypeFor[TextOrJSON]()

// intoTextOrJSON decodes the value at p.i into v.
func (p *jsonParser) intoTextOrJSON(v *TextOrJSON) bool {
	if p.b[p.i] == '"' {
		start, end, esc, ok := p.scanString()
		if ok {
			*v = TextOrJSON{Text: p.makeString(p.b[start:end], esc), IsText: true}
		}
		return ok
	}
	start := p.i
	if !p.skip() {
		return false
	}
	*v = TextOrJSON{JSON: append(json.RawMessage(nil), p.b[start:p.i]...)}
	return true
}

// Has says whether the field was there.
func (v TextOrJSON) Has() bool { return v.IsText || len(v.JSON) > 0 }

// EachLeaf walks b, one JSON value, in one pass: fn gets each value in it
// that is not an array, in order, nested arrays flattened, with the index
// of the element of b it lies in (-1 when b is no array): the parts of a
// content that may be a value or a list of them. The bytes are b's, valid
// while b is. It fails when b is not one JSON value.
func EachLeaf(b []byte, fn func(leaf []byte, top int)) error {
	var p jsonParser
	p.b = b
	p.ws()
	ok := false
	if p.i < len(p.b) && p.b[p.i] == '[' {
		n := 0
		ok = p.elements(func() bool {
			n++
			return p.leaves(fn, n-1)
		})
	} else {
		ok = p.leaves(fn, -1)
	}
	p.ws()
	if !ok || p.i != len(p.b) {
		return errNotValue
	}
	return nil
}

// leaves walks the value at p.i for EachLeaf, descending into arrays.
func (p *jsonParser) leaves(fn func([]byte, int), top int) bool {
	if p.i >= len(p.b) {
		return false
	}
	if p.b[p.i] == '[' {
		return p.elements(func() bool { return p.leaves(fn, top) })
	}
	start := p.i
	if !p.skip() {
		return false
	}
	fn(p.b[start:p.i], top)
	return true
}

// DecodeValue decodes raw, one JSON value of any kind (a list, a string,
// an object…), into v, a pointer, as leniently as Decode decodes a line's
// fields: a value of another type leaves v as it was. It is for a field an
// agent writes in more than one shape, kept as a json.RawMessage and
// decoded once its shape is known.
func DecodeValue(raw []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("jsonfast.DecodeValue: want a pointer")
	}
	if !decodeInto(raw, rv.Elem(), false) {
		return errNotValue
	}
	return nil
}

// errNotValue is DecodeValue's error for bytes that are not one JSON
// value.
var errNotValue = errors.New("not a JSON value")

// Int is v, a json.Number, as an integer: a fraction dropped, absent
// (ok false) when v is no number or beyond int64.
func Int(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f >= math.MaxInt64 || f <= math.MinInt64 {
		return 0, false
	}
	return int64(f), true
}
