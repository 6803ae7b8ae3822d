package jsonfast

// Members calls fn with each member of obj, one JSON object with nothing
// but whitespace around it, in order: its key, unescaped as encoding/json
// does, and its value's bytes (obj's, valid while obj is). The whole of
// obj is checked first: when it is not one JSON object valid to the
// end, valid is false and fn is called for none. It stops at the first
// error fn returns, and returns it.
func Members(obj []byte, fn func(key string, value []byte) error) (valid bool, err error) {
	p, ok := checked(obj, '{')
	if !ok {
		return false, nil
	}
	p.members(func(key []byte, esc bool) bool {
		k := p.makeString(key, esc)
		start := p.i
		p.skip()
		err = fn(k, p.b[start:p.i])
		return err == nil
	})
	return true, err
}

// Elements calls fn with each element of arr, one JSON array with
// nothing but whitespace around it, in order: its bytes (arr's) and
// where they begin in arr. It checks arr whole first, as Members does.
func Elements(arr []byte, fn func(elem []byte, at int) error) (valid bool, err error) {
	p, ok := checked(arr, '[')
	if !ok {
		return false, nil
	}
	p.elements(func() bool {
		start := p.i
		p.skip()
		err = fn(p.b[start:p.i], start)
		return err == nil
	})
	return true, err
}

// checked is a parser at the opening bracket of b, one JSON value that
// opens with it, once b is checked whole.
func checked(b []byte, open byte) (*jsonParser, bool) {
	p := &jsonParser{b: b}
	p.ws()
	start := p.i
	if p.i >= len(p.b) || p.b[p.i] != open || !p.skip() {
		return nil, false
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, false
	}
	p.i, p.depth = start, 0
	return p, true
}
