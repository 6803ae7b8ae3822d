// Package redact removes secrets from text before session-handoff stores
// it: agent transcripts, summaries, command output and attachments.
//
// Each secret found is replaced by a marker that names its kind,
// "[REDACTED:github-token]", never by a shortened form of the secret. What
// was replaced is counted in a Report, per kind and per location, and the
// counts become the record's redactions field.
//
// What is found:
//   - provider keys and tokens by their shape: AWS access key ids, GitHub,
//     GitLab, Slack (and Slack webhook URLs), Stripe, OpenAI, Anthropic,
//     OpenRouter, Google, npm, PyPI, Twilio, SendGrid, Hugging Face,
//     DigitalOcean, Shopify, HashiCorp Vault, Groq, xAI, Perplexity and age
//     secret keys, and JWTs;
//   - private-key blocks (PEM, OpenSSH, PGP), across lines or inside a JSON
//     string where the newlines are \n escapes;
//   - credentials in Authorization headers and after a standalone Bearer or
//     Basic;
//   - the password of a URL or connection string (the user and host stay);
//   - the value assigned to a secret-looking name: NAME=value, NAME: value,
//     "name": "value", export NAME=value, --name value, Password=…; in an
//     ADO connection string. Names whose last word is a password, secret,
//     token or credential word are trusted: any concrete value is replaced.
//     Names that merely end in key or auth need a value that looks random.
//
// Decisions a user may meet:
//   - Documented example credentials (AKIAIOSFODNN7EXAMPLE, the jwt.io
//     token, password: example) are redacted like real ones: a shape cannot
//     tell them apart from a live key, and over-redacting a doc example
//     costs a word.
//   - Values that are not values are left alone: empty, null and booleans,
//     variable references ($TOKEN, ${TOKEN}, %TOKEN%, {{ .Token }}),
//     placeholders in angle brackets, masks (***), type names (password:
//     string), code (token = os.Getenv("TOKEN"), password: req.body.password)
//     and version ranges in package manifests ("jsonwebtoken": "^9.0.0").
//   - Text already holding a marker is not redacted again, so redaction is
//     idempotent.
//
// Markers hold only ASCII letters, digits, '-', ':' and brackets, so
// replacing a secret inside a JSON string keeps the JSON valid; a span that
// would cut an escape sequence or a UTF-8 sequence is widened to keep it
// whole. Text is taken as JSON-escaped where it looks so: \n, \t, \uXXXX
// and \/ are read through (a private key inside a JSON string, with \n
// between its lines, is found like one on real lines), and a value is never
// taken across the end of the JSON string it sits in. A bare JSON number
// after a secret-looking key is left alone rather than turned into a marker
// that would make the line invalid JSON.
//
// Speed: one pass of an Aho-Corasick automaton over the text (four
// interleaved, over four quarters of the window) finds the trigger
// literals; only there do rules look further. On transcript-like JSONL the
// whole redaction runs at several hundred MB/s on one core (BenchmarkRedact).
// Rules remember the runs they scanned, so text built to hold a trigger
// every few bytes costs a constant factor, not a quadratic one
// (BenchmarkHostile).
//
// Streaming: Copy works in windows of 1 MiB whatever the length of the
// lines, and String works through long input in the same windows, so the
// two always agree byte for byte. A window is written only up to a commit
// point that leaves the last 34 KiB (settle) for the next window, which
// starts 512 bytes (lookBehind) before it; every rule looks at most that
// far back and 17 KiB (reach) ahead, so a secret that crosses a window
// boundary is found whole in one of the two windows. Values and tokens
// longer than 16 KiB (4 KiB for an unquoted value) are not taken for
// secrets. The exception is a private-key block: from its BEGIN line on,
// its body is removed as far as it goes, through its END line or up to the
// first byte that cannot belong to it, across lines and windows (the state
// is carried), bounded at 1 MiB.
//
// Replaying: CopyEdits also records what it replaced, by input offsets,
// and Edits.Replay makes the same output from the same input again with a
// copy, at memory speed: export reads an attachment twice (once to hash
// the redacted bytes for the signed manifest, once into the bundle) and
// finds its secrets only once. A replay checks the bytes it removes
// against a keyed hash of those first removed.
//
// Not handled: secrets with no shape and no name (a password typed alone
// on a line), passwords containing '/' in URLs, multi-line YAML values
// (password: |), SQL (IDENTIFIED BY '…'), sshpass -p and mysql -pSECRET.
package redact

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode/utf8"
)

// Pattern is a user-defined secret pattern from the configuration. Kind
// names it in markers and reports and must match ^[a-z0-9-]{1,40}$. Regexp
// is RE2 syntax (Go's regexp); it must not match the empty string. If it has
// a capturing group, only the first group's text is replaced, otherwise the
// whole match. Matches are found within one line.
type Pattern struct {
	Kind   string `json:"kind"`
	Regexp string `json:"regexp"`
}

var kindRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9-]{1,40}$`) })

// Redactor finds and replaces secrets. It is safe for concurrent use.
type Redactor struct {
	d     *dfa
	trig  []trigger
	kinds []kindInfo
	user  []userPattern
	pool  *sync.Pool // of *engine
	// window is the size of the buffer Copy works in, and the unit in which
	// String works through long input so that both give the same result.
	window int
}

type kindInfo struct {
	name   string
	marker string
	prio   int
}

type userPattern struct {
	re     *regexp.Regexp
	kind   int
	prefix []byte // literal prefix every match starts with, if any
	group  bool   // replace group 1, not the whole match
}

// Limits of the streaming engine. Rules look at most lookBehind bytes
// before a trigger and at most reach bytes after it (maxValue is the
// longest value or token considered; a longer run is not taken for a
// secret). A window commits its output only up to settle bytes before its
// end, so every span that crosses the commit point was found whole.
const (
	maxValue   = 16 << 10
	reach      = maxValue + 1024
	settle     = 2 * reach
	lookBehind = 512
	// keyBudget bounds the body of one private-key block.
	keyBudget      = 1 << 20
	defaultWindow  = 1 << 20
	maxMarkerLen   = len("[REDACTED:]") + 40
	maxUserPattern = 4096
)

var (
	defaultOnce sync.Once
	defaultRed  *Redactor
)

// Default returns a Redactor with the built-in rules only.
func Default() *Redactor {
	defaultOnce.Do(func() {
		r, err := New(nil)
		if err != nil {
			panic(err)
		}
		defaultRed = r
	})
	return defaultRed
}

// New returns a Redactor with the built-in rules and the user's extra
// patterns. It reports every invalid pattern.
func New(extra []Pattern) (*Redactor, error) {
	r := &Redactor{window: defaultWindow, pool: new(sync.Pool)}
	r.kinds = slices.Clone(builtinKinds)
	for i := range r.kinds {
		r.kinds[i].marker = "[REDACTED:" + r.kinds[i].name + "]"
	}
	var errs []error
	for i, p := range extra {
		up, err := r.compileUser(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("redaction pattern %d (%q): %w", i+1, p.Kind, err))
			continue
		}
		r.user = append(r.user, up)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	trig := triggers()
	lits := make([]string, len(trig))
	for i, t := range trig {
		lits[i] = t.lit
	}
	r.trig = trig
	r.d = newDFA(lits)
	return r, nil
}

func (r *Redactor) compileUser(p Pattern) (userPattern, error) {
	if !kindRE().MatchString(p.Kind) {
		return userPattern{}, errors.New("kind must be 1 to 40 of a-z, 0-9 and -")
	}
	if p.Regexp == "" {
		return userPattern{}, errors.New("empty regexp")
	}
	if len(p.Regexp) > maxUserPattern {
		return userPattern{}, fmt.Errorf("regexp longer than %d bytes", maxUserPattern)
	}
	re, err := regexp.Compile(p.Regexp)
	if err != nil {
		return userPattern{}, err
	}
	if re.MatchString("") {
		return userPattern{}, errors.New("regexp matches the empty string")
	}
	group := re.NumSubexp() > 0
	if group {
		// Group 1 must not be able to match empty text on its own either.
		sre, err := syntax.Parse(p.Regexp, syntax.Perl)
		if err == nil {
			if g := firstCapture(sre); g != nil {
				gre, err := regexp.Compile(g.String())
				if err == nil && gre.MatchString("") {
					return userPattern{}, errors.New("the first group of the regexp matches the empty string")
				}
			}
		}
	}
	k := -1
	for i, ki := range r.kinds {
		if ki.name == p.Kind {
			k = i
		}
	}
	if k < 0 {
		r.kinds = append(r.kinds, kindInfo{name: p.Kind, marker: "[REDACTED:" + p.Kind + "]", prio: prioUser})
		k = len(r.kinds) - 1
	}
	up := userPattern{re: re, kind: k, group: group}
	if lit, _ := re.LiteralPrefix(); len(lit) >= 3 {
		up.prefix = []byte(lit)
	}
	return up, nil
}

func firstCapture(re *syntax.Regexp) *syntax.Regexp {
	if re.Op == syntax.OpCapture && re.Cap == 1 {
		return re.Sub[0]
	}
	for _, s := range re.Sub {
		if g := firstCapture(s); g != nil {
			return g
		}
	}
	return nil
}

// Kinds lists the kinds of secret r can report: the built-in ones and the
// user's.
func (r *Redactor) Kinds() []string {
	out := make([]string, len(r.kinds))
	for i, k := range r.kinds {
		out[i] = k.name
	}
	return out
}

// String returns s with its secrets replaced, and adds what it replaced to
// rep under location; rep may be nil. It returns s itself when nothing was
// found. The result is the same as Copy's on the same bytes.
func (r *Redactor) String(s, location string, rep *Report) string {
	if s == "" {
		return s
	}
	e := r.newEngine()
	buf := []byte(s)
	var out []byte
	if len(buf) > r.window {
		out = make([]byte, 0, len(buf)+len(buf)/16)
	}
	changed := false
	base, outStart := 0, 0 // buf[base:] is the window; outStart is relative to it
	for {
		end := min(len(buf), base+r.window)
		final := end == len(buf)
		w := buf[base:end]
		var cp int
		var ch bool
		out, cp, ch = e.window(w, outStart, final, out)
		if !ch {
			if final && !changed {
				break
			}
			out = append(out, w[outStart:cp]...)
		}
		changed = changed || ch
		if final {
			break
		}
		keep := e.advance(cp)
		outStart = cp - keep
		base += keep
	}
	e.report(location, rep)
	if !changed {
		return s
	}
	return string(out)
}

// Copy copies src to dst with its secrets replaced, and adds what it
// replaced to rep under location; rep may be nil. It works through the
// stream in windows of bounded size whatever the length of its lines: a
// line longer than the window is worked through in overlapping pieces (see
// the limits above), and a private-key block that spans lines or windows
// is removed whole by a state carried from one window to the next. The
// result is byte for byte the result of String on the whole input.
func (r *Redactor) Copy(dst io.Writer, src io.Reader, location string, rep *Report) error {
	return r.copy(dst, src, location, rep, nil)
}

// edit is one replacement a CopyEdits made: the input bytes [start, end)
// became marker. The rest of a private-key block that ran on from an
// earlier window is removed with no marker (marker is empty).
type edit struct {
	start, end int64
	marker     string
}

// Edits records the replacements of one CopyEdits, in input order, up to
// a bound, and a keyed hash of the bytes they removed. Replaying them over
// the same input gives the same output as running the redactor again, at
// the cost of a copy.
type Edits struct {
	list []edit
	// max is the most edits kept; past it overflow is set and the list is
	// dropped: the caller redacts the input again instead.
	max      int
	overflow bool
	// removed hashes the bytes the edits removed, with a key random to
	// this record (see Replay).
	seed    maphash.Seed
	removed maphash.Hash
}

// NewEdits returns an empty record that keeps at most max edits.
func NewEdits(max int) *Edits {
	e := &Edits{max: max, seed: maphash.MakeSeed()}
	e.removed.SetSeed(e.seed)
	return e
}

// Overflow says whether more than max edits were made: the record is then
// empty and cannot be replayed.
func (e *Edits) Overflow() bool { return e.overflow }

// Len is the number of edits recorded.
func (e *Edits) Len() int { return len(e.list) }

// add records that window bytes b, at input offset start, became marker.
func (e *Edits) add(start int64, b []byte, marker string) {
	if e.overflow {
		return
	}
	if len(e.list) == e.max {
		e.overflow = true
		e.list = nil
		return
	}
	e.removed.Write(b)
	e.list = append(e.list, edit{start: start, end: start + int64(len(b)), marker: marker})
}

// ErrInputChanged is what a replay fails with when the bytes it removes
// are not those the edits were made from.
var ErrInputChanged = errors.New("redact: the input changed since its secrets were found")

// CopyEdits is Copy that also records in edits, which must come fresh
// from NewEdits, every replacement it makes, with input offsets, so that
// Replay can make the same output from the same input without finding the
// secrets again.
func (r *Redactor) CopyEdits(dst io.Writer, src io.Reader, location string, rep *Report, edits *Edits) error {
	return r.copy(dst, src, location, rep, edits)
}

// A SharedWriter is a Writer that can take the slices it is given without
// copying them. Copy and CopyEdits write to it with WriteShared, from
// buffers of their own that they reuse only once Wait has said the writer
// no longer holds them; a writer that hashes in a goroutine of its own thus
// sees the window buffers themselves instead of a copy of them.
type SharedWriter interface {
	io.Writer
	// WriteShared writes p, which the writer may keep after it returns.
	WriteShared(p []byte) error
	// Wait returns once the writer holds at most n of the slices given to
	// WriteShared (or with its error).
	Wait(n int) error
}

// sharedWindows is how many window buffers Copy turns over when writing
// to a SharedWriter: one being filled and redacted, the two before it
// possibly still held.
const sharedWindows = 3

func (r *Redactor) copy(dst io.Writer, src io.Reader, location string, rep *Report, edits *Edits) error {
	e := r.newEngine()
	defer e.report(location, rep)
	e.edits = edits
	sw, shared := dst.(SharedWriter)
	nbuf := 1
	if shared {
		nbuf = sharedWindows
	}
	for i := range nbuf {
		if cap(e.wbufs[i]) != r.window {
			e.wbufs[i] = make([]byte, r.window)
		}
	}
	write := func(p []byte) error {
		if shared {
			return sw.WriteShared(p)
		}
		_, err := dst.Write(p)
		return err
	}
	k := 0 // windows so far; the current one is in wbufs[k%nbuf]
	buf := e.wbufs[0][:r.window]
	var out []byte
	n, outStart := 0, 0
	e.base = 0
	for {
		m, err := io.ReadFull(src, buf[n:])
		n += m
		final := false
		switch err {
		case nil:
		case io.EOF, io.ErrUnexpectedEOF:
			final = true
		default:
			return err
		}
		if n == 0 {
			return nil
		}
		var cp int
		var changed bool
		out, cp, changed = e.window(buf[:n], outStart, final, e.outs[k%nbuf][:0])
		e.outs[k%nbuf] = out
		var werr error
		if changed {
			werr = write(out)
		} else if cp > outStart {
			werr = write(buf[outStart:cp])
		}
		if werr != nil {
			return werr
		}
		if final {
			return nil
		}
		keep := e.advance(cp)
		next := buf
		if shared {
			// The next buffers (window and output) last held window
			// k+1-nbuf, written at most nbuf-1 writes ago.
			k++
			next = e.wbufs[k%nbuf][:r.window]
			if err := sw.Wait(nbuf - 1); err != nil {
				return err
			}
		}
		copy(next, buf[keep:n])
		buf = next
		n -= keep
		e.base += int64(keep)
		outStart = cp - keep
	}
}

// Replay returns a reader of src with edits applied: the output CopyEdits
// made, provided src holds the same bytes as the input it read. The
// replay checks the bytes it removes (the secrets) against a keyed hash of
// those CopyEdits removed and fails with ErrInputChanged, at the end, if
// they differ; a caller that must know that the rest of src is unchanged
// too hashes the output, which holds all of it. A src that ends before the
// last edit fails with io.ErrUnexpectedEOF.
func (e *Edits) Replay(src io.Reader) io.Reader {
	if e.overflow {
		return errReader{errors.New("redact: replay of an overflowed edit list")}
	}
	r := &replay{src: src, edits: e.list, want: e.removed.Sum64()}
	r.removed.SetSeed(e.seed)
	return r
}

// errReader fails every Read with err.
type errReader struct{ err error }

func (t errReader) Read([]byte) (int, error) { return 0, t.err }

// replay is the reader Replay returns.
type replay struct {
	src     io.Reader
	edits   []edit
	pos     int64  // input offset of the next byte of src
	pending string // the rest of a marker to hand out
	removed maphash.Hash
	want    uint64
}

func (r *replay) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for r.pending == "" && len(r.edits) > 0 && r.pos == r.edits[0].start {
		ed := r.edits[0]
		skip := ed.end - ed.start
		k, err := io.CopyN(&r.removed, r.src, skip)
		r.pos += k
		if k < skip {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		r.edits = r.edits[1:]
		r.pending = ed.marker
	}
	if r.pending != "" {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		return n, nil
	}
	if len(r.edits) > 0 {
		if left := r.edits[0].start - r.pos; int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := r.src.Read(p)
	r.pos += int64(n)
	if err == io.EOF {
		switch {
		case len(r.edits) > 0:
			err = io.ErrUnexpectedEOF
		case r.removed.Sum64() != r.want:
			err = ErrInputChanged
		}
	}
	return n, err
}

// span is a stretch of the window to replace.
type span struct {
	s, e int
	kind int
	// cont marks the rest of a private-key block begun in an earlier
	// window: it is removed without a marker and not counted again.
	cont bool
}

type engine struct {
	r        *Redactor
	buf      []byte
	outStart int
	limit    int // triggers starting at or after limit wait for the next window
	final    bool
	hits     []hit
	scratch  [4][]hit
	spans    []span
	// Copy's window buffers, and the outputs made from them: one, or
	// sharedWindows for a SharedWriter.
	wbufs [sharedWindows][]byte
	outs  [sharedWindows][]byte
	// edits, when set, records every replacement; base is the input
	// offset of the window's first byte.
	edits *Edits
	base  int64
	// cover is the union of the spans of phase one, sorted.
	cover    []span
	lastName int
	lastEnd  int // end of the last span of phase two
	keyEnd   int // end of the last private-key block
	runs     [8]runCache
	// The string tracker: whether a position lies inside a double-quoted
	// (JSON) string of its line. q is the cursor, q0 the state at the
	// window's start, qcp checkpoints every 4 KiB.
	q, q0 qstate
	qcp   []qstate
	val   struct {
		ok    bool
		query bool
		s, e  int
	}
	// key carries a private-key block that reached the end of a window.
	keyOn     bool
	keyBudget int
	// keyMore is set when a private-key span of this window reached its
	// end; keyLeft is then the budget left.
	keyMore bool
	keyLeft int
	counts  []int
}

// qstate is the string tracker's state at pos: inside a string or not,
// and the length of the run of backslashes just before pos.
type qstate struct {
	pos int
	odd bool
	bs  int
	ok  bool
}

// step moves the tracker over b[q.pos:p].
func (q *qstate) step(b []byte, p int, cps *[]qstate) {
	for i := q.pos; i < p; i++ {
		if i&4095 == 0 && cps != nil {
			k := i >> 12
			for len(*cps) <= k {
				*cps = append(*cps, qstate{})
			}
			(*cps)[k] = qstate{pos: i, odd: q.odd, bs: q.bs, ok: true}
		}
		switch b[i] {
		case '\n':
			q.odd, q.bs = false, 0
			continue
		case '\\':
			q.bs++
			continue
		case '"':
			if q.bs%2 == 0 {
				q.odd = !q.odd
			}
		}
		q.bs = 0
	}
	q.pos = p
}

// inString says whether b[p] lies inside a double-quoted string that
// began on its line: an odd number of unescaped quotes precede it. A line
// that began in an earlier window is followed from the state carried over.
func (e *engine) inString(p int) bool {
	b := e.buf
	if p < e.q.pos {
		k := p >> 12
		if k < len(e.qcp) && e.qcp[k].ok {
			e.q = e.qcp[k]
		} else if ls := bytes.LastIndexByte(b[:p], '\n'); ls >= 0 {
			e.q = qstate{pos: ls + 1}
		} else {
			e.q = e.q0
		}
	}
	// Lines with no question on them are skipped, not followed.
	if ls := bytes.LastIndexByte(b[e.q.pos:p], '\n'); ls >= 0 {
		e.q = qstate{pos: e.q.pos + ls + 1}
	}
	e.q.step(b, p, &e.qcp)
	return e.q.odd
}

// advance returns where the next window starts, keep bytes into this one
// (lookBehind before the commit point cp), and carries the string
// tracker's state there.
func (e *engine) advance(cp int) int {
	keep := max(cp-lookBehind, 0)
	b := e.buf
	q := e.q0
	if ls := bytes.LastIndexByte(b[:keep], '\n'); ls >= 0 {
		q = qstate{pos: ls + 1}
	} else if e.q.pos <= keep && e.q.pos >= q.pos {
		q = e.q
	}
	q.step(b, keep, nil)
	e.q0 = qstate{odd: q.odd, bs: q.bs}
	return keep
}

// floor returns the end of the last phase-one span that ends at or before
// i, or -1, and whether i lies inside a phase-one span.
func (e *engine) floor(i int) (int, bool) {
	k, _ := slices.BinarySearchFunc(e.cover, i, func(sp span, i int) int {
		if sp.e <= i {
			return -1
		}
		return 1
	})
	// cover[:k] end at or before i.
	inside := k < len(e.cover) && e.cover[k].s <= i
	if k == 0 {
		return -1, inside
	}
	return e.cover[k-1].e, inside
}

// noteKey records a private-key span ending at end; more says that the
// block went on past the end of the window.
func (e *engine) noteKey(end int, more bool, left int) {
	if more && !e.final && end == len(e.buf) {
		e.keyMore = true
		e.keyLeft = left
	}
}

// safeCut moves a commit point that no group decided back over a short
// run of backslashes, so that the next window never starts just after a
// backslash it cannot take back.
func (e *engine) safeCut(cp int, groups []span) int {
	floor := e.outStart + 1
	for _, g := range groups {
		if g.s < cp {
			floor = max(floor, g.e)
		}
	}
	for k := 0; k < 16 && cp > floor && e.buf[cp-1] == '\\'; k++ {
		cp--
	}
	return cp
}

func (r *Redactor) newEngine() *engine {
	if e, ok := r.pool.Get().(*engine); ok && e.r == r {
		clear(e.counts)
		e.keyOn, e.keyMore = false, false
		e.q0 = qstate{}
		return e
	}
	return &engine{r: r, counts: make([]int, len(r.kinds))}
}

// free returns e to the pool unless it grew large on a hostile window.
func (r *Redactor) free(e *engine) {
	e.buf = nil
	if cap(e.hits) > 1<<18 || cap(e.spans) > 1<<16 {
		return
	}
	r.pool.Put(e)
}

func (e *engine) report(location string, rep *Report) {
	e.edits = nil
	defer e.r.free(e)
	if rep == nil {
		return
	}
	for k, n := range e.counts {
		if n > 0 {
			rep.Add(location, e.r.kinds[k].name, n)
		}
	}
}

// add records a span found by a rule. Spans that begin before outStart
// were settled by the previous window.
func (e *engine) add(s, end, kind int) {
	if s < e.outStart || end <= s {
		return
	}
	e.spans = append(e.spans, span{s: s, e: end, kind: kind})
}

// window finds the secrets in buf, whose first outStart bytes were already
// written, appends to out the redacted text from outStart up to the commit
// point cp it returns, and says whether anything was replaced (when not,
// out is untouched and the text to write is buf[outStart:cp]). Unless
// final, cp leaves at least settle bytes for the next window, which starts
// at most lookBehind bytes before cp.
func (e *engine) window(buf []byte, outStart int, final bool, out []byte) ([]byte, int, bool) {
	e.buf, e.outStart, e.final = buf, outStart, final
	e.spans = e.spans[:0]
	e.lastName = -1
	e.lastEnd = -1
	e.keyEnd = -1
	e.runs = [8]runCache{}
	e.q = e.q0
	e.qcp = e.qcp[:0]
	e.val.ok = false
	n := len(buf)
	c := n
	e.limit = n
	if !final {
		c = n - settle
		e.limit = n - reach
	}
	e.keyMore = false
	if e.keyOn {
		e.keyOn = false
		end, more, left := e.keyBody(outStart, e.keyBudget)
		e.keyEnd = end
		if end > outStart {
			e.spans = append(e.spans, span{s: outStart, e: end, kind: kindPrivateKey, cont: true})
			e.noteKey(end, more, left)
		}
	}
	e.hits = e.r.d.scan(buf, e.hits[:0], &e.scratch)
	// Phase one: the rules that find secrets by their own shape, and the
	// user's patterns. Phase two: the assignment rule, whose names stop
	// where a secret found in phase one ends, as they will stop at its
	// marker when the output is redacted again.
	late := false
	for _, h := range e.hits {
		for _, t := range e.r.d.out[h.state] {
			if e.r.trig[t].late {
				late = true
				continue
			}
			te := int(h.end)
			ts := te - e.r.d.lens[t]
			if ts >= e.limit {
				continue
			}
			e.r.trig[t].fn(e, ts, te)
		}
	}
	if len(e.r.user) > 0 {
		e.userPatterns()
	}
	if late {
		e.cover = append(e.cover[:0], e.spans...)
		slices.SortFunc(e.cover, func(a, b span) int { return a.s - b.s })
		u := e.cover[:0]
		for _, sp := range e.cover {
			if len(u) > 0 && sp.s <= u[len(u)-1].e {
				u[len(u)-1].e = max(u[len(u)-1].e, sp.e)
				continue
			}
			u = append(u, sp)
		}
		e.cover = u
		for _, h := range e.hits {
			for _, t := range e.r.d.out[h.state] {
				if !e.r.trig[t].late {
					continue
				}
				te := int(h.end)
				ts := te - e.r.d.lens[t]
				if ts >= e.limit {
					continue
				}
				e.r.trig[t].fn(e, ts, te)
			}
		}
	}
	if len(e.spans) == 0 {
		cp := c
		if !final {
			cp = e.safeCut(c, nil)
		}
		return out, cp, false
	}
	// Normalise: never cut an escape sequence or a UTF-8 sequence.
	for i := range e.spans {
		sp := &e.spans[i]
		if !sp.cont {
			sp.s, sp.e = widen(buf, sp.s, sp.e, outStart)
		}
		if sp.e > n {
			sp.e = n
		}
	}
	slices.SortFunc(e.spans, func(a, b span) int {
		if a.s != b.s {
			return a.s - b.s
		}
		return b.e - a.e
	})
	// Merge overlapping spans into groups; a group takes the kind of its
	// highest-priority span and is a continuation if any span is one.
	groups := e.spans[:0]
	for _, sp := range e.spans {
		if len(groups) > 0 && sp.s < groups[len(groups)-1].e {
			g := &groups[len(groups)-1]
			g.e = max(g.e, sp.e)
			g.cont = g.cont || sp.cont
			if e.r.kinds[sp.kind].prio > e.r.kinds[g.kind].prio {
				g.kind = sp.kind
			}
			continue
		}
		groups = append(groups, sp)
	}
	// Commit point: every group that starts before c is written whole.
	cp := c
	for _, g := range groups {
		if g.s < c {
			cp = max(cp, g.e)
		}
	}
	if cp == c && !final {
		cp = e.safeCut(cp, groups)
	}
	changed := false
	pos := outStart
	for _, g := range groups {
		if g.s >= cp {
			break
		}
		out = append(out, buf[pos:g.s]...)
		marker := ""
		if !g.cont {
			marker = e.r.kinds[g.kind].marker
			out = append(out, marker...)
			e.counts[g.kind]++
		}
		if e.edits != nil {
			e.edits.add(e.base+int64(g.s), buf[g.s:g.e], marker)
		}
		pos = g.e
		changed = true
	}
	// A private-key block that ran to the end of the window goes on in
	// the next one, provided its group was committed (then cp == n).
	if !final && cp == n && e.keyMore {
		e.keyOn = true
		e.keyBudget = e.keyLeft
	}
	if !changed {
		return out, cp, false
	}
	out = append(out, buf[pos:cp]...)
	return out, cp, true
}

// widen grows a span so that it does not cut an escape sequence (a span
// that starts right after an escaping backslash takes the backslash; one
// that ends on an escaping backslash takes the escaped byte) or a UTF-8
// sequence. It never grows below floor.
func widen(b []byte, s, end, floor int) (int, int) {
	if s > floor && oddBackslashes(b[:s], s-1) {
		s--
	}
	if end < len(b) && end > s {
		k := end - 1
		r := 0
		for k >= s && b[k] == '\\' {
			r++
			k--
		}
		if r%2 == 1 {
			end++
		}
	}
	// Back to the lead byte of a sequence cut in two; invalid UTF-8
	// (a stray continuation byte) is left as it is.
	if s < len(b) && !utf8.RuneStart(b[s]) {
		for k := 1; k <= 3 && s-k >= floor; k++ {
			c := b[s-k]
			if c >= 0xC0 {
				s -= k
				break
			}
			if c < 0x80 {
				break
			}
		}
	}
	for end < len(b) && !utf8.RuneStart(b[end]) {
		end++
	}
	return s, end
}

// userPatterns runs the user's patterns over the lines of the window that
// are not yet written. A match is found within one line; in a window that
// is not the last, matches that start at or after limit wait for the next.
func (e *engine) userPatterns() {
	b := e.buf
	// Start of the line that holds outStart.
	ls := e.outStart
	for ls > 0 && b[ls-1] != '\n' {
		ls--
	}
	for ls < len(b) {
		le := ls + bytesIndexByte(b[ls:], '\n')
		line := b[ls:le]
		for _, up := range e.r.user {
			if up.prefix != nil && !bytes.Contains(line, up.prefix) {
				continue
			}
			for _, m := range up.re.FindAllSubmatchIndex(line, -1) {
				s, end := m[0], m[1]
				if up.group {
					if m[2] < 0 || m[3] <= m[2] {
						continue
					}
					s, end = m[2], m[3]
				}
				if ls+s >= e.limit {
					continue
				}
				e.add(ls+s, ls+end, up.kind)
			}
		}
		if le == len(b) {
			break
		}
		ls = le + 1
	}
}

func bytesIndexByte(b []byte, c byte) int {
	if i := bytes.IndexByte(b, c); i >= 0 {
		return i
	}
	return len(b)
}
