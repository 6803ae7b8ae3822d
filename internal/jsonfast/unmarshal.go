package jsonfast

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Unmarshal is json.Unmarshal(data, v) for v a pointer to a zero value
// (a variable just declared, as the readers decode into): the same value
// and the same error, bit for bit, in one pass of the package's parser
// instead of encoding/json's two (a check of the whole input, then the
// decoding). It decodes what it can tell encoding/json would decode the
// same way: objects into structs of plain fields (their json tags'
// names), maps with string keys, slices, pointers, strings, booleans,
// numbers, json.RawMessage, json.Number and any (numbers as float64); a
// value of another type is left as it was and its error is the first
// json.UnmarshalTypeError, as encoding/json reports it. Anything else it
// hands to encoding/json itself, v zeroed again: a v that is not a
// pointer to a zero value, a type it does not decode (an Unmarshaler,
// an embedded struct, a ",string" field, an array, a []byte), and, in
// the input, a syntax error, a key that names a field only by its case
// (or holds a non-ASCII letter), a field given twice, a json.Number
// given as a string. TestUnmarshalMatchesStd and FuzzUnmarshal hold it
// to encoding/json.
func Unmarshal(data []byte, v any) error {
	if done, err := unmarshal(data, v); done {
		return err
	}
	return json.Unmarshal(data, v)
}

// unmarshal is Unmarshal on the package's parser; done is false, and v
// as it was, where encoding/json must decode.
func unmarshal(data []byte, v any) (done bool, err error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || !strictType(rv.Type().Elem()) || !rv.Elem().IsZero() {
		return false, nil
	}
	p := parsers.Get().(*jsonParser)
	defer p.release()
	p.b, p.i, p.depth, p.floats = data, 0, 0, true
	p.ws()
	ok := p.strictInto(rv.Elem())
	p.ws()
	if !ok || p.i != len(p.b) {
		rv.Elem().SetZero()
		return false, nil
	}
	if p.typeErr != nil {
		return true, p.typeErr
	}
	return true, nil
}

// strictInto decodes the value at p.i into rv as encoding/json would; it
// returns false on a syntax error or whatever Unmarshal hands on to
// encoding/json.
func (p *jsonParser) strictInto(rv reflect.Value) bool {
	if p.i >= len(p.b) {
		return false
	}
	c, t := p.b[p.i], rv.Type()
	if t == rawMessageType { // its UnmarshalJSON keeps the bytes, null's too
		start := p.i
		if !p.skip() {
			return false
		}
		rv.SetBytes(append([]byte(nil), p.b[start:p.i]...))
		return true
	}
	if c == 'n' {
		if !p.literal("null") {
			return false
		}
		switch rv.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice:
			rv.SetZero()
		}
		return true
	}
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			rv.Set(reflect.New(t.Elem()))
		}
		return p.strictInto(rv.Elem())
	case reflect.Interface:
		val, ok := p.value()
		if ok && val != nil {
			rv.Set(reflect.ValueOf(val))
		}
		return ok
	case reflect.Struct:
		if c != '{' {
			return p.mismatch(t)
		}
		return p.strictStruct(rv, strictFields(t))
	case reflect.Map:
		if c != '{' {
			return p.mismatch(t)
		}
		return p.strictMap(rv)
	case reflect.Slice:
		if c != '[' {
			return p.mismatch(t)
		}
		return p.strictSlice(rv)
	case reflect.String:
		if t == numberType {
			switch c {
			case '"':
				return false // a number in a string: encoding/json checks it
			case '{', '[', 't', 'f':
				return p.mismatch(t)
			}
			start := p.i
			if !p.number() {
				return false
			}
			rv.SetString(string(p.b[start:p.i]))
			return true
		}
		if c != '"' {
			return p.mismatch(t)
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
		return p.mismatch(t)
	}
	// A number.
	if c == '"' || c == '{' || c == '[' || c == 't' || c == 'f' {
		return p.mismatch(t)
	}
	start := p.i
	if !p.number() {
		return false
	}
	if !setStrictNumber(rv, p.b[start:p.i]) {
		p.typeError("number "+string(p.b[start:p.i]), t, p.i)
	}
	return true
}

// setStrictNumber sets rv, a number of some kind, to the number text s as
// encoding/json does; false when s does not fit.
func setStrictNumber(rv reflect.Value, s []byte) bool {
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := smallInt(s)
		if !ok {
			var err error
			if n, err = strconv.ParseInt(string(s), 10, 64); err != nil {
				return false
			}
		}
		if rv.OverflowInt(n) {
			return false
		}
		rv.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(string(s), 10, 64)
		if err != nil || rv.OverflowUint(n) {
			return false
		}
		rv.SetUint(n)
	default: // Float32, Float64
		n, err := strconv.ParseFloat(string(s), rv.Type().Bits())
		if err != nil || rv.OverflowFloat(n) {
			return false
		}
		rv.SetFloat(n)
	}
	return true
}

// smallInt is s, a checked JSON number, when it is an integer of at most
// 18 digits (strconv.ParseInt's value, without making s a string).
func smallInt(s []byte) (int64, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// mismatch records that the value at p.i is not of type t, as
// encoding/json says so, and moves past it.
func (p *jsonParser) mismatch(t reflect.Type) bool {
	start := p.i
	if !p.skip() {
		return false
	}
	switch c := p.b[start]; c {
	case '{', '[':
		what := "object"
		if c == '[' {
			what = "array"
		}
		p.typeError(what, t, start+1) // encoding/json's offset: past the bracket
	case '"':
		p.typeError("string", t, p.i)
	case 't', 'f':
		p.typeError("bool", t, p.i)
	default:
		p.typeError("number", t, p.i)
	}
	return true
}

// typeError keeps the first type error, with the struct and the path of
// fields it lies in, as encoding/json reports them.
func (p *jsonParser) typeError(value string, t reflect.Type, offset int) {
	if p.typeErr != nil {
		return
	}
	e := &json.UnmarshalTypeError{Value: value, Type: t, Offset: int64(offset)}
	if p.inStruct != nil {
		e.Struct = p.inStruct.Name()
		e.Field = strings.Join(p.path, ".")
	}
	p.typeErr = e
}

func (p *jsonParser) strictStruct(rv reflect.Value, fs *structInfo) bool {
	var seen uint64
	outer, depth := p.inStruct, len(p.path)
	return p.members(func(key []byte, esc bool) bool {
		name := key
		if esc {
			name = p.unescape(key)
		}
		f, ok := fs.byName[string(name)]
		if !ok {
			if fs.folds(name) {
				return false // encoding/json would take it for a field
			}
			return p.skip()
		}
		if seen&(1<<f) != 0 {
			return false // a field given twice: encoding/json decodes into what the first left
		}
		seen |= 1 << f
		p.inStruct, p.path = rv.Type(), append(p.path, fs.names[f])
		ok = p.strictInto(rv.Field(fs.index[f]))
		p.inStruct, p.path = outer, p.path[:depth]
		return ok
	})
}

func (p *jsonParser) strictMap(rv reflect.Value) bool {
	t := rv.Type()
	if rv.IsNil() {
		rv.Set(reflect.MakeMap(t))
	}
	elem := reflect.New(t.Elem()).Elem()
	return p.members(func(key []byte, esc bool) bool {
		k := reflect.New(t.Key()).Elem()
		k.SetString(p.makeString(key, esc))
		elem.SetZero()
		if !p.strictInto(elem) {
			return false
		}
		rv.SetMapIndex(k, elem)
		return true
	})
}

func (p *jsonParser) strictSlice(rv reflect.Value) bool {
	n := 0
	if !p.elements(func() bool {
		if n >= rv.Cap() {
			rv.Grow(1)
		}
		if n >= rv.Len() {
			rv.SetLen(n + 1)
		}
		n++
		return p.strictInto(rv.Index(n - 1))
	}) {
		return false
	}
	if n == 0 {
		rv.Set(reflect.MakeSlice(rv.Type(), 0, 0))
	}
	return true
}

// structInfo is a struct type's fields as encoding/json names them.
type structInfo struct {
	byName map[string]int // a JSON name to its place in index and names
	index  []int          // the field's index in the struct
	names  []string
	maxLen int // the longest name
}

// folds says whether key, no field's exact name, may still name one to
// encoding/json, which matches names regardless of case: an ASCII key
// that equals a name but for case, or one with any other byte.
func (fs *structInfo) folds(key []byte) bool {
	for _, c := range key {
		if c >= 0x80 {
			return true
		}
	}
	if len(key) > fs.maxLen {
		return false
	}
	for _, name := range fs.names {
		if len(name) == len(key) && equalFoldASCII(name, key) {
			return true
		}
	}
	return false
}

func equalFoldASCII(s string, b []byte) bool {
	for i := range len(b) {
		x, y := s[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// strictTypes caches, per type, whether Unmarshal decodes it: false, or
// true, or a *structInfo for a struct it decodes.
var strictTypes sync.Map // reflect.Type -> any

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// strictType says whether Unmarshal decodes values of type t itself. The
// types t holds are decided with it, and kept only when it is decoded:
// a type that holds itself is taken as decoded until the rest says.
func strictType(t reflect.Type) bool {
	if v, ok := strictTypes.Load(t); ok {
		return v != false
	}
	local := map[reflect.Type]any{}
	if !strictCheck(t, local) {
		strictTypes.Store(t, false)
		return false
	}
	for t, v := range local {
		strictTypes.Store(t, v)
	}
	return true
}

// strictFields is the fields of t, a struct type strictType accepted.
func strictFields(t reflect.Type) *structInfo {
	v, _ := strictTypes.Load(t)
	return v.(*structInfo)
}

func strictCheck(t reflect.Type, local map[reflect.Type]any) bool {
	if v, ok := strictTypes.Load(t); ok {
		return v != false
	}
	if v, ok := local[t]; ok {
		return v != false
	}
	local[t] = true
	var info *structInfo
	ok := true
	switch {
	case t == rawMessageType, t == numberType:
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface &&
		(reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType)):
		ok = false
	default:
		switch t.Kind() {
		case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		case reflect.Interface:
			ok = t.NumMethod() == 0
		case reflect.Pointer:
			ok = strictCheck(t.Elem(), local)
		case reflect.Slice:
			ok = t.Elem().Kind() != reflect.Uint8 && strictCheck(t.Elem(), local)
		case reflect.Map:
			ok = t.Key().Kind() == reflect.String && !reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) &&
				strictCheck(t.Elem(), local)
		case reflect.Struct:
			info, ok = jsonFields(t, local)
		default:
			ok = false
		}
	}
	switch {
	case !ok:
		local[t] = false
	case info != nil:
		local[t] = info
	}
	return ok
}

// jsonFields names t's fields as encoding/json does (the json tag's
// name when valid, else the field's; "-" leaves one out, as does being
// unexported), or refuses the struct (ok false) where its rules are
// more than that: an embedded field, a ",string" field, two fields of
// one name, a name not ASCII, more than 64 fields, a field of a type
// Unmarshal does not decode.
func jsonFields(t reflect.Type, local map[reflect.Type]any) (*structInfo, bool) {
	info := &structInfo{byName: map[string]int{}}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil, false
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		for opt := range strings.SplitSeq(opts, ",") {
			if opt == "string" {
				return nil, false
			}
		}
		if !validTagName(name) {
			name = f.Name
		}
		for j := range len(name) {
			if name[j] >= 0x80 {
				return nil, false
			}
		}
		if _, dup := info.byName[name]; dup || len(info.names) == 64 || !strictCheck(f.Type, local) {
			return nil, false
		}
		info.byName[name] = len(info.names)
		info.index = append(info.index, i)
		info.names = append(info.names, name)
		info.maxLen = max(info.maxLen, len(name))
	}
	return info, true
}

// validTagName is encoding/json's rule for a tag's name, for ASCII: not
// empty, letters, digits and punctuation but quotes and backslash. A
// name with other bytes is taken as valid here, and refused as not
// ASCII.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch {
		case c >= 0x80, 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) >= 0:
		default:
			return false
		}
	}
	return true
}
