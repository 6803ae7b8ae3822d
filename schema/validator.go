package schema

// This file validates instances against the embedded schemas without a
// general JSON Schema library. The library (santhosh-tekuri/jsonschema)
// compiles every metaschema in its package init, about 3 ms and 1.7 MB of
// allocation in every process that links it, which is most of the start-up
// time of a command (issue 19). The embedded schemas use a small set of
// JSON Schema 2020-12 keywords; this validator implements exactly those,
// refuses a schema that uses any other keyword (so a schema change cannot
// be silently ignored), and is held to the library's verdicts by
// TestValidatorAgreesWithJSONSchema and FuzzValidatorAgreesWithJSONSchema,
// where the library stays as the test oracle.
//
// Keyword semantics follow JSON Schema 2020-12 Validation
// (https://json-schema.org/draft/2020-12/json-schema-validation):
// maxLength and minLength count Unicode code points; pattern is an
// unanchored match (Go's RE2, as the library's default engine); numbers
// compare by value, so 1 and 1.0 are equal and 1.0 is an integer.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// node is one compiled (sub)schema.
type node struct {
	types      []string // empty: any type
	properties map[string]*node
	required   []string
	// noAdditional is additionalProperties: false; additional is a schema
	// for them.
	noAdditional bool
	additional   *node
	items        *node
	minItems     int // -1: none
	maxItems     int
	unique       bool
	minLength    int
	maxLength    int
	pattern      *pattern
	minimum      *decimal
	maximum      *decimal
	enum         []string // canonical forms
	hasConst     bool
	constant     string // canonical form
	dateTime     bool
	ref          string
	refNode      *node
	ifNode       *node
	thenNode     *node
	elseNode     *node
}

// pattern is a schema's regular expression, compiled when a string is
// first checked against it: most records use few of the schema's
// patterns, and compiling all of them (Unicode classes among them) was a
// third of a save's own time. TestEveryPatternCompiles compiles each.
type pattern struct {
	src      string
	compiled func() (*regexp.Regexp, error)
}

func newPattern(ptr, src string) *pattern {
	return &pattern{src: src, compiled: sync.OnceValues(func() (*regexp.Regexp, error) {
		re, err := regexp.Compile(src)
		if err != nil {
			return nil, fmt.Errorf("%s/pattern: %w", ptr, err)
		}
		return re, nil
	})}
}

// annotation keywords: accepted and ignored.
var annotations = map[string]bool{"$schema": true, "$id": true, "$defs": true, "title": true, "description": true}

type compiler struct {
	docs  map[string]map[string]any // file name → parsed schema document
	nodes map[string]*node          // "file#pointer" → node
	refs  []*node                   // nodes whose ref is still to resolve
}

var (
	loadOnce sync.Once
	loaded   map[string]*node
	loadErr  error
)

// compiled returns the embedded schemas, compiled on first use.
func compiled() (map[string]*node, error) {
	loadOnce.Do(func() { loaded, loadErr = compileEmbedded() })
	return loaded, loadErr
}

func compileEmbedded() (map[string]*node, error) {
	entries, err := files.ReadDir(".")
	if err != nil {
		return nil, err
	}
	c := &compiler{docs: map[string]map[string]any{}, nodes: map[string]*node{}}
	for _, e := range entries {
		data, err := files.ReadFile(e.Name())
		if err != nil {
			return nil, err
		}
		var doc map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return nil, fmt.Errorf("embedded schema %s: %w", e.Name(), err)
		}
		c.docs[e.Name()] = doc
	}
	out := map[string]*node{}
	for name, doc := range c.docs {
		n, err := c.compile(name, "", doc)
		if err != nil {
			return nil, fmt.Errorf("embedded schema %s: %w", name, err)
		}
		out[name] = n
	}
	for i := 0; i < len(c.refs); i++ { // resolving may compile more nodes
		n := c.refs[i]
		target, err := c.resolve(n.ref)
		if err != nil {
			return nil, err
		}
		n.refNode = target
	}
	return out, nil
}

// resolve finds the node a $ref names: "#/$defs/x" inside its document
// (recorded as "file#/$defs/x") or "other.schema.json" for a whole
// embedded document.
func (c *compiler) resolve(ref string) (*node, error) {
	file, ptr, _ := strings.Cut(ref, "#")
	if n, ok := c.nodes[file+"#"+ptr]; ok {
		return n, nil
	}
	doc, ok := c.docs[file]
	if !ok {
		return nil, fmt.Errorf("$ref %q: no embedded schema %q", ref, file)
	}
	var v any = doc
	if ptr != "" {
		if !strings.HasPrefix(ptr, "/") {
			return nil, fmt.Errorf("$ref %q: only JSON pointers are supported", ref)
		}
		for _, tok := range strings.Split(ptr[1:], "/") {
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("$ref %q: %q is not inside an object", ref, tok)
			}
			tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
			if v, ok = obj[tok]; !ok {
				return nil, fmt.Errorf("$ref %q: no %q", ref, tok)
			}
		}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("$ref %q: not a schema object", ref)
	}
	return c.compile(file, ptr, obj)
}

func (c *compiler) compile(file, ptr string, s map[string]any) (*node, error) {
	key := file + "#" + ptr
	if n, ok := c.nodes[key]; ok {
		return n, nil
	}
	n := &node{minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
	c.nodes[key] = n
	sub := func(kw string, v any) (*node, error) {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s/%s: want a schema object", ptr, kw)
		}
		return c.compile(file, ptr+"/"+kw, obj)
	}
	count := func(kw string, v any) (int, error) {
		num, ok := v.(json.Number)
		i, err := strconv.Atoi(string(num))
		if !ok || err != nil || i < 0 {
			return 0, fmt.Errorf("%s/%s: want a non-negative integer", ptr, kw)
		}
		return i, nil
	}
	var err error
	for kw, v := range s {
		switch kw {
		case "type":
			switch t := v.(type) {
			case string:
				n.types = []string{t}
			case []any:
				for _, x := range t {
					s, ok := x.(string)
					if !ok {
						return nil, fmt.Errorf("%s/type: want strings", ptr)
					}
					n.types = append(n.types, s)
				}
			default:
				return nil, fmt.Errorf("%s/type: want a string or an array", ptr)
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s/properties: want an object", ptr)
			}
			n.properties = map[string]*node{}
			for name, ps := range props {
				obj, ok := ps.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%s/properties/%s: want a schema object", ptr, name)
				}
				if n.properties[name], err = c.compile(file, ptr+"/properties/"+escapePointer(name), obj); err != nil {
					return nil, err
				}
			}
		case "required":
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s/required: want an array", ptr)
			}
			for _, x := range list {
				s, ok := x.(string)
				if !ok {
					return nil, fmt.Errorf("%s/required: want strings", ptr)
				}
				n.required = append(n.required, s)
			}
		case "additionalProperties":
			if b, ok := v.(bool); ok {
				n.noAdditional = !b
			} else if n.additional, err = sub(kw, v); err != nil {
				return nil, err
			}
		case "items":
			if n.items, err = sub(kw, v); err != nil {
				return nil, err
			}
		case "minItems":
			n.minItems, err = count(kw, v)
		case "maxItems":
			n.maxItems, err = count(kw, v)
		case "minLength":
			n.minLength, err = count(kw, v)
		case "maxLength":
			n.maxLength, err = count(kw, v)
		case "uniqueItems":
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("%s/uniqueItems: want a boolean", ptr)
			}
			n.unique = b
		case "pattern":
			p, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s/pattern: want a string", ptr)
			}
			n.pattern = newPattern(ptr, p)
		case "minimum", "maximum":
			num, ok := v.(json.Number)
			d, okd := parseDecimal(string(num))
			if !ok || !okd {
				return nil, fmt.Errorf("%s/%s: want a number", ptr, kw)
			}
			if kw == "minimum" {
				n.minimum = &d
			} else {
				n.maximum = &d
			}
		case "enum":
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s/enum: want an array", ptr)
			}
			for _, x := range list {
				n.enum = append(n.enum, canonical(x))
			}
		case "const":
			n.hasConst, n.constant = true, canonical(v)
		case "format":
			if v != "date-time" {
				return nil, fmt.Errorf("%s/format: only date-time is supported, not %v", ptr, v)
			}
			n.dateTime = true
		case "$ref":
			r, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s/$ref: want a string", ptr)
			}
			if strings.HasPrefix(r, "#") {
				r = file + r
			}
			n.ref = r
			c.refs = append(c.refs, n)
		case "if":
			n.ifNode, err = sub(kw, v)
		case "then":
			n.thenNode, err = sub(kw, v)
		case "else":
			n.elseNode, err = sub(kw, v)
		default:
			if !annotations[kw] {
				return nil, fmt.Errorf("%s: keyword %q is not supported by this validator (schema/validator.go)", ptr, kw)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return n, nil
}

// validateValue checks v against n, appending every violation.
func (n *node) validateValue(v any, ptr string, out *[]Violation) {
	bad := func(format string, args ...any) {
		*out = append(*out, Violation{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}
	if n.refNode != nil {
		n.refNode.validateValue(v, ptr, out)
	}
	if len(n.types) > 0 && !hasType(v, n.types) {
		bad("got %s, want %s", typeName(v), strings.Join(n.types, " or "))
		return
	}
	if n.hasConst && canonical(v) != n.constant {
		bad("value must be %s", n.constant)
	}
	if n.enum != nil {
		c, found := canonical(v), false
		for _, e := range n.enum {
			if e == c {
				found = true
				break
			}
		}
		if !found {
			bad("value must be one of %s", strings.Join(n.enum, ", "))
		}
	}
	switch x := v.(type) {
	case string:
		if n.minLength >= 0 || n.maxLength >= 0 {
			l := utf8.RuneCountInString(x)
			if n.minLength >= 0 && l < n.minLength {
				bad("length must be >= %d, but got %d", n.minLength, l)
			}
			if n.maxLength >= 0 && l > n.maxLength {
				bad("length must be <= %d, but got %d", n.maxLength, l)
			}
		}
		if n.pattern != nil {
			if re, err := n.pattern.compiled(); err != nil {
				bad("%v", err)
			} else if !re.MatchString(x) {
				bad("does not match pattern %q", n.pattern.src)
			}
		}
		if n.dateTime {
			if err := checkDateTime(x); err != nil {
				bad("%q is not a valid date-time: %v", prefixRunes(x, 40), err)
			}
		}
	case json.Number:
		d, _ := parseDecimal(string(x))
		if n.minimum != nil && d.cmp(*n.minimum) < 0 {
			bad("must be >= %s, but got %s", n.minimum, x)
		}
		if n.maximum != nil && d.cmp(*n.maximum) > 0 {
			bad("must be <= %s, but got %s", n.maximum, x)
		}
	case []any:
		if n.minItems >= 0 && len(x) < n.minItems {
			bad("minItems: got %d, want %d", len(x), n.minItems)
		}
		if n.maxItems >= 0 && len(x) > n.maxItems {
			bad("maxItems: got %d, want %d", len(x), n.maxItems)
		}
		if n.unique {
			seen := make(map[string]int, len(x))
			for i, item := range x {
				c := canonical(item)
				if j, dup := seen[c]; dup {
					bad("items at %d and %d are equal", j, i)
					break
				}
				seen[c] = i
			}
		}
		if n.items != nil {
			for i, item := range x {
				n.items.validateValue(item, ptr+"/"+strconv.Itoa(i), out)
			}
		}
	case map[string]any:
		var missing []string
		for _, r := range n.required {
			if _, ok := x[r]; !ok {
				missing = append(missing, "'"+r+"'")
			}
		}
		if len(missing) > 0 {
			bad("missing %s %s", plural(len(missing), "property", "properties"), strings.Join(missing, ", "))
		}
		var extra []string
		for _, k := range sortedKeys(x) {
			if p, ok := n.properties[k]; ok {
				p.validateValue(x[k], ptr+"/"+escapePointer(k), out)
				continue
			}
			switch {
			case n.noAdditional:
				extra = append(extra, "'"+k+"'")
			case n.additional != nil:
				n.additional.validateValue(x[k], ptr+"/"+escapePointer(k), out)
			}
		}
		if len(extra) > 0 {
			bad("additional properties %s not allowed", strings.Join(extra, ", "))
		}
	}
	if n.ifNode != nil {
		var probe []Violation
		n.ifNode.validateValue(v, ptr, &probe)
		switch {
		case len(probe) == 0 && n.thenNode != nil:
			n.thenNode.validateValue(v, ptr, out)
		case len(probe) > 0 && n.elseNode != nil:
			n.elseNode.validateValue(v, ptr, out)
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}

func typeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if d, _ := parseDecimal(string(x)); d.isInt() {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	default:
		return "object"
	}
}

func hasType(v any, types []string) bool {
	got := typeName(v)
	for _, t := range types {
		if t == got || (t == "number" && got == "integer") {
			return true
		}
	}
	return false
}

// decodeInstance parses a document (already through StrictCheck) keeping
// numbers as their literals.
func decodeInstance(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil // StrictCheck, which runs first, refused trailing data
}

// canonical is a string that two JSON values share exactly when JSON
// Schema calls them equal: numbers by value, objects regardless of key
// order.
func canonical(v any) string {
	var b strings.Builder
	writeCanonical(&b, v)
	return b.String()
}

func writeCanonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		b.WriteString(strconv.Quote(x))
	case json.Number:
		d, _ := parseDecimal(string(x))
		b.WriteString(d.String())
	case []any:
		b.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, item)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			writeCanonical(b, x[k])
		}
		b.WriteByte('}')
	}
}

// decimal is a JSON number as sign × digits × 10^exp, digits without
// leading or trailing zeros (empty for zero). It compares exactly, without
// big-number arithmetic, so a literal like 1e999999999 costs nothing.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// parseDecimal reads a JSON number literal.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	mant, expPart, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" {
		return d, false
	}
	var exp int64
	if hasExp {
		e, err := strconv.ParseInt(strings.TrimPrefix(expPart, "+"), 10, 64)
		if err != nil {
			// Out of int64 range: clamp; the value is then 0 or beyond any bound.
			if strings.HasPrefix(expPart, "-") {
				e = -1 << 40
			} else {
				e = 1 << 40
			}
		}
		exp = max(min(e, 1<<40), -1<<40)
	}
	digits := intPart + frac
	for _, c := range digits {
		if c < '0' || c > '9' {
			return d, false
		}
	}
	exp -= int64(len(frac))
	digits = strings.TrimLeft(digits, "0")
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	d.digits = trimmed
	d.exp = exp
	if d.digits == "" {
		d.neg, d.exp = false, 0
	}
	return d, true
}

func (d decimal) isInt() bool { return d.digits == "" || d.exp >= 0 }

// String is a canonical form: equal values print alike.
func (d decimal) String() string {
	if d.digits == "" {
		return "0"
	}
	s := d.digits + "e" + strconv.FormatInt(d.exp, 10)
	if d.neg {
		return "-" + s
	}
	return s
}

// cmp compares d with o: -1, 0 or +1.
func (d decimal) cmp(o decimal) int {
	sign := func(x decimal) int {
		switch {
		case x.digits == "":
			return 0
		case x.neg:
			return -1
		}
		return 1
	}
	if sd, so := sign(d), sign(o); sd != so || sd == 0 {
		switch {
		case sd < so:
			return -1
		case sd > so:
			return 1
		}
		return 0
	}
	m := d.cmpMagnitude(o)
	if d.neg {
		return -m
	}
	return m
}

// cmpMagnitude compares |d| and |o|, both non-zero.
func (d decimal) cmpMagnitude(o decimal) int {
	// The position of the leading digit decides, then the digits.
	ld, lo := int64(len(d.digits))+d.exp, int64(len(o.digits))+o.exp
	switch {
	case ld < lo:
		return -1
	case ld > lo:
		return 1
	}
	a, b := d.digits, o.digits
	for i := 0; i < len(a) || i < len(b); i++ {
		var ca, cb byte = '0', '0'
		if i < len(a) {
			ca = a[i]
		}
		if i < len(b) {
			cb = b[i]
		}
		switch {
		case ca < cb:
			return -1
		case ca > cb:
			return 1
		}
	}
	return 0
}

// checkDateTime checks an RFC 3339 date-time (section 5.6):
// YYYY-MM-DD "T" hh:mm:ss[.frac] ("Z" | ±hh:mm), T and Z in either case,
// a real calendar date, and a leap second only at 23:59:60 UTC, as the
// JSON Schema format requires.
func checkDateTime(s string) error {
	digits := func(p string) (int, bool) {
		v := 0
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return 0, false
			}
			v = v*10 + int(p[i]-'0')
		}
		return v, len(p) > 0
	}
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return errors.New("want YYYY-MM-DDThh:mm:ss and a zone")
	}
	y, ok1 := digits(s[0:4])
	mo, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	h, ok4 := digits(s[11:13])
	mi, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 {
		return errors.New("want digits")
	}
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) {
		return errors.New("no such date")
	}
	if h > 23 || mi > 59 || sec > 60 {
		return errors.New("hour, minute or second out of range")
	}
	rest := s[19:]
	if strings.HasPrefix(rest, ".") {
		i := 1
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 1 {
			return errors.New("no digits in the fraction of a second")
		}
		rest = rest[i:]
	}
	utc := h*60 + mi
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		zh, ok1 := digits(rest[1:3])
		zm, ok2 := digits(rest[4:6])
		if !ok1 || !ok2 || zh > 23 || zm > 59 {
			return errors.New("bad zone offset")
		}
		off := zh*60 + zm
		if rest[0] == '+' {
			off = -off
		}
		utc = ((utc+off)%(24*60) + 24*60) % (24 * 60)
	default:
		return errors.New("want a zone: Z or ±hh:mm")
	}
	if sec == 60 && utc != 23*60+59 {
		return errors.New("a leap second is only 23:59:60 UTC")
	}
	return nil
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
