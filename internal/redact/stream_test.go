package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// small returns the default rules working in windows of w bytes.
func small(w int) *Redactor {
	r := *Default()
	r.window = w
	return &r
}

// smallWindow is the smallest window the limits allow, with a little room.
const smallWindow = settle + lookBehind + 4096

func copyString(t *testing.T, r *Redactor, in string, wrap func(io.Reader) io.Reader) (string, *Report) {
	t.Helper()
	var out bytes.Buffer
	var rep Report
	var src io.Reader = strings.NewReader(in)
	if wrap != nil {
		src = wrap(src)
	}
	if err := r.Copy(&out, src, "stream", &rep); err != nil {
		t.Fatal(err)
	}
	return out.String(), &rep
}

// replayString runs CopyEdits over in, checks that it wrote what Copy
// writes, and returns what Replay makes of in (read through wrap) from the
// edits recorded.
func replayString(t *testing.T, r *Redactor, in string, wrap func(io.Reader) io.Reader) string {
	t.Helper()
	var out bytes.Buffer
	var src io.Reader = strings.NewReader(in)
	if wrap != nil {
		src = wrap(src)
	}
	edits := NewEdits(1 << 20)
	if err := r.CopyEdits(&out, src, "stream", nil, edits); err != nil {
		t.Fatal(err)
	}
	if want, _ := copyString(t, r, in, nil); out.String() != want {
		t.Fatalf("CopyEdits wrote something else than Copy")
	}
	src = strings.NewReader(in)
	if wrap != nil {
		src = wrap(src)
	}
	got, err := io.ReadAll(edits.Replay(src))
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

// mixedInput is transcript-like JSONL with the secret corpus mixed in:
// single-line cases as they are, multi-line ones too, and a few long lines.
func mixedInput() string {
	var b strings.Builder
	corpus := transcriptCorpus(1<<20, 5, 3)
	lines := bytes.SplitAfter(corpus, []byte("\n"))
	cases := secretCases()
	for i, l := range lines {
		b.Write(l)
		if i%7 == 0 {
			b.WriteString(cases[(i/7)%len(cases)].text)
			b.WriteByte('\n')
		}
		if i == len(lines)/2 {
			// A line longer than the small window, secrets all along it.
			b.WriteString(`{"type":"tool_result","content":"`)
			for j := 0; b.Len() < 3*smallWindow+len(corpus)/2; j++ {
				c := cases[j%len(cases)]
				if strings.Contains(c.text, "\n") {
					continue
				}
				b.WriteString(strings.ReplaceAll(strings.ReplaceAll(c.text, `\`, `\\`), `"`, `\"`))
				b.WriteString(`\n`)
				b.WriteString(strings.Repeat("lorem ipsum dolor token key pass ", j%40))
			}
			b.WriteString("\"}\n")
		}
	}
	return b.String()
}

func TestCopyEqualsString(t *testing.T) {
	in := mixedInput()
	want := Default().String(in, "stream", nil)
	var wantRep Report
	Default().String(in, "stream", &wantRep)
	if wantRep.Total() < 100 {
		t.Fatalf("only %d secrets found in the mixed input", wantRep.Total())
	}
	for _, tc := range []struct {
		name string
		r    *Redactor
		wrap func(io.Reader) io.Reader
	}{
		{"default", Default(), nil},
		{"one byte reads", Default(), iotest.OneByteReader},
		{"half reads", Default(), iotest.HalfReader},
		{"small window", small(smallWindow), nil},
		{"small window, data errors", small(smallWindow + 777), iotest.DataErrReader},
	} {
		got, rep := copyString(t, tc.r, in, tc.wrap)
		if got != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: Copy differs from String at byte %d:\n got %q\nwant %q", tc.name, i, snippet(got, i), snippet(want, i))
			continue
		}
		if !reflect.DeepEqual(rep, &wantRep) {
			t.Errorf("%s: report %v, want %v", tc.name, rep.Findings, wantRep.Findings)
		}
		if got := replayString(t, tc.r, in, tc.wrap); got != want {
			t.Errorf("%s: replaying the edits gives something else than Copy", tc.name)
		}
	}
	// String in small windows gives the same as in one piece.
	if got := small(smallWindow).String(in, "stream", nil); got != want {
		t.Errorf("String in small windows differs from String in one window")
	}
	checkReport(t, want, &wantRep)
	// Every JSON line stays valid JSON.
	for i, l := range strings.Split(want, "\n") {
		if strings.HasPrefix(l, "{\"") && !json.Valid([]byte(l)) {
			if json.Valid([]byte(strings.Split(in, "\n")[i])) {
				t.Errorf("line %d is no longer valid JSON: %q", i, snippet(l, 0))
			}
		}
	}
	for _, c := range secretCases() {
		if strings.Contains(want, c.secret) {
			t.Errorf("secret of kind %s left in the stream", c.kind)
		}
	}
}

func snippet(s string, i int) string {
	lo, hi := max(0, i-80), min(len(s), i+80)
	return s[lo:hi]
}

// Applied to a text without multi-line blocks, Copy equals String line by
// line.
func TestCopyEqualsStringLineByLine(t *testing.T) {
	var in strings.Builder
	corpus := transcriptCorpus(256<<10, 3, 5)
	in.Write(corpus)
	for _, c := range secretCases() {
		if !strings.Contains(c.text, "\n") {
			in.WriteString(c.text + "\n")
		}
	}
	var want strings.Builder
	var wantRep Report
	for _, l := range strings.SplitAfter(in.String(), "\n") {
		want.WriteString(Default().String(l, "x", &wantRep))
	}
	got, rep := copyString(t, small(smallWindow), in.String(), nil)
	if got != want.String() {
		t.Errorf("Copy differs from String line by line")
	}
	if !reflect.DeepEqual(rep.Findings, wantRep.Findings) {
		t.Errorf("report %v, want %v", rep.Findings, wantRep.Findings)
	}
}

// A private key split across lines, and across windows at every offset
// near the window's commit point, is removed whole and counted once.
func TestPrivateKeyAcrossWindows(t *testing.T) {
	g := newGen(9)
	var body []string
	for range 40 {
		body = append(body, g.s(csB64, 64))
	}
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + strings.Join(body, "\n") + "\n-----END OPENSSH PRIVATE KEY-----\n"
	escaped := strings.ReplaceAll(key, "\n", `\n`)
	r := small(smallWindow)
	cut := smallWindow - settle
	for _, k := range []string{key, `{"output":"` + escaped + `"}` + "\n"} {
		for off := cut - len(k) - 300; off < cut+300; off += 37 {
			in := strings.Repeat("x", off) + "\n" + k + "after\n"
			for _, wrap := range []func(io.Reader) io.Reader{nil, iotest.OneByteReader} {
				out, rep := copyString(t, r, in, wrap)
				for _, l := range body {
					if strings.Contains(out, l) {
						t.Fatalf("offset %d: key line left", off)
					}
				}
				if strings.Count(out, "[REDACTED:private-key]") != 1 || rep.Total() != 1 {
					t.Fatalf("offset %d: want one marker, got %d (report %d)", off, strings.Count(out, "[REDACTED:"), rep.Total())
				}
				if !strings.HasSuffix(out, "after\n") {
					t.Fatalf("offset %d: text after the key lost: %q", off, snippet(out, len(out)))
				}
				if s := Default().String(in, "", nil); s != out {
					t.Fatalf("offset %d: Copy differs from String", off)
				}
				if s := replayString(t, r, in, wrap); s != out {
					t.Fatalf("offset %d: replaying the edits differs from Copy", off)
				}
			}
		}
	}
}

// A key block that never ends is removed up to its budget, and not beyond
// the first byte that cannot be part of it.
func TestPrivateKeyTruncated(t *testing.T) {
	g := newGen(10)
	body := g.s(csB64, 64) + "\n" + g.s(csB64, 40)
	in := "-----BEGIN RSA PRIVATE KEY-----\n" + body + "\n$ echo done\n"
	out := Default().String(in, "", nil)
	if want := "[REDACTED:private-key]$ echo done\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

func TestIdempotentAndValid(t *testing.T) {
	in := mixedInput()
	once := Default().String(in, "", nil)
	var rep Report
	twice := Default().String(once, "", &rep)
	if twice != once || rep.Total() != 0 {
		t.Errorf("redacting twice changes the text (%v)", rep.Findings)
	}
	for _, l := range lookAlikes {
		if o := Default().String(l, "", nil); Default().String(o, "", nil) != o {
			t.Errorf("not idempotent on %q", l)
		}
	}
}

func TestNewValidates(t *testing.T) {
	for _, p := range []Pattern{
		{Kind: "Bad Kind", Regexp: "x+"},
		{Kind: "", Regexp: "x+"},
		{Kind: strings.Repeat("a", 41), Regexp: "x+"},
		{Kind: "ok", Regexp: "("},
		{Kind: "ok", Regexp: ""},
		{Kind: "ok", Regexp: "x*"},
		{Kind: "ok", Regexp: "a|"},
		{Kind: "ok", Regexp: "id=(x*)"},
		{Kind: "ok", Regexp: strings.Repeat("a", maxUserPattern+1)},
	} {
		if _, err := New([]Pattern{p}); err == nil {
			t.Errorf("New accepted %+v", p)
		}
	}
	_, err := New([]Pattern{{Kind: "A", Regexp: "x"}, {Kind: "b", Regexp: "("}})
	if err == nil || !strings.Contains(err.Error(), "pattern 1") || !strings.Contains(err.Error(), "pattern 2") {
		t.Errorf("want both patterns reported, got %v", err)
	}
}

func TestUserPatterns(t *testing.T) {
	r, err := New([]Pattern{
		{Kind: "acme-key", Regexp: `acme_[a-z0-9]{16}`},
		{Kind: "employee-id", Regexp: `employee id: (E\d{6})`},
		{Kind: "password", Regexp: `hunter\d`}, // a built-in kind
	})
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	in := "use acme_0123456789abcdef now\nemployee id: E123456\nmy pass is hunter7\n"
	out := r.String(in, "summary", &rep)
	want := "use [REDACTED:acme-key] now\nemployee id: [REDACTED:employee-id]\nmy pass is [REDACTED:password]\n"
	if out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	checkReport(t, out, &rep)
	got, _ := copyString(t, r, in, iotest.OneByteReader)
	if got != out {
		t.Errorf("Copy %q differs from String %q", got, out)
	}
	if !strings.Contains(strings.Join(r.Kinds(), ","), "acme-key") {
		t.Errorf("Kinds() = %v", r.Kinds())
	}
}

func TestReport(t *testing.T) {
	r := Default()
	var a, b Report
	r.String("GITHUB_TOKEN=ghp_"+strings.Repeat("a1B2", 9)+" password: x1y2z3", "summary", &a)
	r.String("password: x1y2z3", "request 3", &a)
	r.String("password: x1y2z3", "request 10", &b)
	r.String("AWS_SECRET_ACCESS_KEY="+strings.Repeat("Ab1/", 10), "summary", &b)
	a.Merge(&b, nil)
	wantF := []Finding{{"aws-secret-key", 1}, {"github-token", 1}, {"password", 3}}
	if !reflect.DeepEqual(a.Findings, wantF) {
		t.Errorf("findings %v, want %v", a.Findings, wantF)
	}
	wantW := []Place{
		{"summary", "github-token", 1}, {"summary", "password", 1}, {"summary", "aws-secret-key", 1},
		{"request 3", "password", 1}, {"request 10", "password", 1},
	}
	if !reflect.DeepEqual(a.Where, wantW) {
		t.Errorf("where %v, want %v", a.Where, wantW)
	}
	red := a.Redactions()
	if len(red) != 3 || red[2].Kind != "password" || red[2].Count != 3 {
		t.Errorf("redactions %v", red)
	}
	if (&Report{}).Redactions() != nil || (*Report)(nil).Redactions() != nil {
		t.Error("empty report gives redactions")
	}
	a.Merge(&a)
	if a.Total() != 10 {
		t.Errorf("self-merge: total %d, want 10", a.Total())
	}
	// More kinds than the schema allows fold into "other".
	var many Report
	for i := range 150 {
		many.Add("x", fmt.Sprintf("kind-%03d", i), 1)
	}
	red = many.Redactions()
	if len(red) != maxRedactions {
		t.Errorf("%d redactions, want %d", len(red), maxRedactions)
	}
	sum := 0
	for _, x := range red {
		sum += x.Count
	}
	if sum != 150 {
		t.Errorf("redactions sum to %d, want 150", sum)
	}
}

func TestMarkers(t *testing.T) {
	r := Default()
	for _, k := range r.kinds {
		if !kindRE().MatchString(k.name) || strings.ContainsAny(k.marker, "\"\\'`") || len(k.marker) > maxMarkerLen {
			t.Errorf("bad kind or marker %q", k.marker)
		}
		if o := r.String(k.marker, "", nil); o != k.marker {
			t.Errorf("marker %q redacted to %q", k.marker, o)
		}
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n += len(p); w.n > 1000 {
		return 0, io.ErrClosedPipe
	}
	return len(p), nil
}

func TestCopyErrors(t *testing.T) {
	in := mixedInput()
	if err := Default().Copy(&failWriter{}, strings.NewReader(in), "", nil); err != io.ErrClosedPipe {
		t.Errorf("write error: got %v", err)
	}
	r := iotest.TimeoutReader(strings.NewReader(in))
	if err := small(smallWindow).Copy(io.Discard, r, "", nil); err != iotest.ErrTimeout {
		t.Errorf("read error: got %v", err)
	}
	var out bytes.Buffer
	var rep Report
	if err := Default().Copy(&out, strings.NewReader(""), "", &rep); err != nil || out.Len() != 0 || rep.Total() != 0 {
		t.Errorf("empty input: %v %q %v", err, out.String(), rep)
	}
	if Default().String("", "", &rep) != "" || rep.Total() != 0 {
		t.Error("empty string")
	}
}

// One Redactor serves many goroutines; each gets the same result.
func TestConcurrent(t *testing.T) {
	in := string(transcriptCorpus(128<<10, 3, 21))
	want := Default().String(in, "", nil)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			var out bytes.Buffer
			var err error
			if i%2 == 0 {
				err = Default().Copy(&out, strings.NewReader(in), "", nil)
			} else {
				out.WriteString(Default().String(in, "", nil))
			}
			if err == nil && out.String() != want {
				err = fmt.Errorf("goroutine %d: different output", i)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// Edits past their bound are dropped, not kept in part; a replay over a
// source shorter than the edits say fails instead of ending early.
func TestEditsBoundAndShortSource(t *testing.T) {
	in := mixedInput()
	var want Report
	out := Default().String(in, "x", &want)
	edits := NewEdits(10)
	var buf bytes.Buffer
	if err := Default().CopyEdits(&buf, strings.NewReader(in), "x", nil, edits); err != nil {
		t.Fatal(err)
	}
	if buf.String() != out {
		t.Fatal("an overflowing edit list changed what CopyEdits wrote")
	}
	if !edits.Overflow() || edits.Len() != 0 {
		t.Fatalf("%d secrets, bound 10: overflow %v with %d edits kept", want.Total(), edits.Overflow(), edits.Len())
	}
	if _, err := io.ReadAll(edits.Replay(strings.NewReader(in))); err == nil {
		t.Fatal("replay of an overflowed list succeeded")
	}

	edits = NewEdits(1 << 20)
	if err := Default().CopyEdits(io.Discard, strings.NewReader(in), "x", nil, edits); err != nil {
		t.Fatal(err)
	}
	if edits.Overflow() || edits.Len() < want.Total() {
		t.Fatalf("%d secrets but %d edits (overflow %v)", want.Total(), edits.Len(), edits.Overflow())
	}
	last := edits.list[len(edits.list)-1]
	short := in[:last.end-1]
	if _, err := io.ReadAll(edits.Replay(strings.NewReader(short))); err != io.ErrUnexpectedEOF {
		t.Fatalf("replay over a source cut inside the last edit: %v, want %v", err, io.ErrUnexpectedEOF)
	}
	short = in[:last.start]
	if _, err := io.ReadAll(edits.Replay(strings.NewReader(short))); err != io.ErrUnexpectedEOF {
		t.Fatalf("replay over a source cut before the last edit: %v, want %v", err, io.ErrUnexpectedEOF)
	}
	// A secret changed in place (same length, other bytes): the output
	// would be the same, but the replay fails.
	first := edits.list[0]
	b := []byte(in)
	b[first.start] ^= 1
	if _, err := io.ReadAll(edits.Replay(bytes.NewReader(b))); err != ErrInputChanged {
		t.Fatalf("replay over a source whose first secret changed: %v, want %v", err, ErrInputChanged)
	}
	if got, err := io.ReadAll(edits.Replay(strings.NewReader(in))); err != nil || string(got) != out {
		t.Fatalf("replay of the same list again: %v", err)
	}
}

// holder is a SharedWriter that keeps every slice it is given for as long
// as Wait allows, and checks, when it lets one go, that nobody changed it
// meanwhile.
type holder struct {
	t        *testing.T
	held     [][]byte // the slices, oldest first
	snaps    [][]byte // their contents when written
	out      bytes.Buffer
	maxHeld  int
	released int
}

func (h *holder) Write(p []byte) (int, error) {
	h.t.Error("Write called on a SharedWriter")
	return len(p), nil
}

func (h *holder) WriteShared(p []byte) error {
	h.held = append(h.held, p)
	h.snaps = append(h.snaps, bytes.Clone(p))
	h.maxHeld = max(h.maxHeld, len(h.held))
	return nil
}

func (h *holder) Wait(n int) error {
	for len(h.held) > n {
		if !bytes.Equal(h.held[0], h.snaps[0]) {
			h.t.Errorf("slice %d was changed while the writer held it", h.released)
		}
		h.out.Write(h.snaps[0])
		h.held, h.snaps = h.held[1:], h.snaps[1:]
		h.released++
	}
	return nil
}

// TestCopySharedWriter: Copy hands a SharedWriter its window buffers and
// reuses none while it is held; what arrives is what Copy writes to any
// writer, and CopyEdits' edits replay to it.
func TestCopySharedWriter(t *testing.T) {
	in := mixedInput()
	for _, tc := range []struct {
		name string
		r    *Redactor
	}{
		{"default", Default()},
		{"small window", small(smallWindow)},
	} {
		want, _ := copyString(t, tc.r, in, nil)
		h := &holder{t: t}
		edits := NewEdits(1 << 20)
		if err := tc.r.CopyEdits(h, strings.NewReader(in), "stream", nil, edits); err != nil {
			t.Fatal(err)
		}
		h.Wait(0)
		if h.out.String() != want {
			t.Errorf("%s: a SharedWriter got something else than Copy writes", tc.name)
		}
		if h.maxHeld < 2 && tc.r != Default() {
			t.Errorf("%s: the writer never held more than %d slices", tc.name, h.maxHeld)
		}
		got, err := io.ReadAll(edits.Replay(strings.NewReader(in)))
		if err != nil || string(got) != want {
			t.Errorf("%s: replay over a SharedWriter's edits: %v", tc.name, err)
		}
	}
}
