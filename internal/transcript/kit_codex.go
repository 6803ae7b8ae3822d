package transcript

import (
	"encoding/json"
	"reflect"

	"github.com/session-handoff/session-handoff/handoff"
)

// Bounds of a digest that readers apply themselves.
const (
	// MaxFiles bounds the files of a digest (schema: files maxItems).
	MaxFiles = maxFiles
	// MaxID bounds a session's id (schema: session.id maxLength).
	MaxID = maxID
	// MaxSubagents bounds the subagents whose transcripts are folded into
	// their parent's.
	MaxSubagents = maxSubagents
	// HeadBytes is how much of a file's start discovery reads.
	HeadBytes = headBytes
)

// PathOp is one file operation of a tool call.
type PathOp struct {
	Path string
	Op   FileOp
}

// Files adds the tool call id with the file operations it made, in order,
// one edit each: one call, whose outcome settles them all. With none, it
// is a call that touched no file (a patch whose files are not known).
func (b *Builder) Files(id string, ops ...PathOp) {
	e := evOps(id)
	for _, op := range ops {
		e.ops = append(e.ops, fileOp{path: op.Path, op: opKind(op.Op), n: 1})
	}
	foldEvent(b.f, b.d.CWD, e)
}

// OutcomeKnown adds how the tool call id ended when known says the
// transcript tells (Outcome), else that it ended (Done).
func (b *Builder) OutcomeKnown(id string, exit *int, failed, known bool, output string) {
	b.f.add(evOut(id, exit, failed, known, output))
}

// TotalTokens sets the session's token use so far, as a transcript that
// keeps running totals states it: a later total replaces it.
func (b *Builder) TotalTokens(t handoff.Tokens) {
	b.f.add(event{kind: evTokens, set: true, tokens: t})
}

// FirstNonEmpty is the first of ss that is not blank; "" when all are.
func FirstNonEmpty(ss ...string) string { return firstNonEmpty(ss...) }

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
