package memory

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/handoff"
)

// The machine-readable lines of a memory file. Both are HTML comments, so
// they are invisible when the Markdown is rendered, and each is one whole
// line of space-separated name=value fields.
const (
	// headerPrefix starts the first line of every memory file:
	//   <!-- session-handoff:memory v=1 layer=1 tag=api date=2026-03-05 handoff=01J… -->
	headerPrefix = "<!-- session-handoff:memory"
	// markerPrefix starts the line that opens each entry of a layer-1 or
	// layer-3 file:
	//   <!-- entry date=2026-03-05 key=RUN/step handoff=01J… -->
	markerPrefix = "<!-- entry"
	commentEnd   = "-->"
	// FormatVersion is the v= field of the header line.
	FormatVersion = "1"
)

// Header is the first line of a memory file.
type Header struct {
	// Layer is 1, 2 or 3, or 0 for the identity files at the root.
	Layer int `json:"layer"`
	// Tag is the note's or archive's tag (layers 1 and 3), or which
	// identity file it is (layer 0: soul, memory or handoff); empty for
	// layer 2.
	Tag string `json:"tag,omitempty"`
	// Date is YYYY-MM-DD for layers 0 to 2 (the note's day, or when the
	// file was last written) and the month YYYY-MM for layer 3.
	Date string `json:"date,omitempty"`
	// HandoffID is the handoff the file came from, if any.
	HandoffID string `json:"handoff,omitempty"`
}

// Entry is one entry of a layer-1 note or a layer-3 archive.
type Entry struct {
	// Date is the day the entry was written (YYYY-MM-DD).
	Date string `json:"date"`
	// Key, when set, identifies the entry so that a repeated write is
	// recognised and skipped.
	Key string `json:"key,omitempty"`
	// HandoffID is the handoff the entry came from, if any.
	HandoffID string `json:"handoff,omitempty"`
	// Body is the text after the marker line up to the next marker or the
	// end of the file, exactly (with its line endings and blank lines).
	Body string `json:"body"`
}

// Doc is a parsed memory file.
type Doc struct {
	Header Header `json:"header"`
	// Text is, for layers 0 and 2, everything after the header line; for
	// layers 1 and 3, what comes before the first entry (a title).
	Text string `json:"text"`
	// Entries are the entries of a layer-1 or layer-3 file, in file order.
	Entries []Entry `json:"entries,omitempty"`
	// Older is set when the file is in the earlier agent-handover tool's
	// form (see older.go); its next write rewrites it in the current one.
	Older bool `json:"older_form,omitempty"`
}

// hasEntries reports whether files of the layer are made of entries.
func hasEntries(layer int) bool { return layer == 1 || layer == 3 }

// identityTags are the tags of the layer-0 files, by file name.
var identityTags = map[string]string{"SOUL.md": "soul", "MEMORY.md": "memory", "HANDOFF.md": "handoff"}

// Parse reads a memory file. It never panics on hostile input; it fails,
// naming the line, when the header is missing or malformed, when a line
// starting with "<!-- entry " is not a well-formed marker, when the text
// is not UTF-8 or holds control characters other than tab, newline and
// carriage return, or when an entry's date does not belong to the file.
// Lines in entry text that would read as markers are stored with one extra
// leading backslash, which Parse removes.
func Parse(data []byte) (*Doc, error) {
	first, rest, err := splitHeader(data)
	if err != nil {
		return nil, err
	}
	h, err := parseHeader(first)
	if err != nil {
		return nil, fmt.Errorf("line 1: %w", err)
	}
	d := &Doc{Header: h}
	if !hasEntries(h.Layer) {
		d.Text = rest
		return d, nil
	}
	var cur *strings.Builder
	var text strings.Builder
	cur = &text
	var bodies []*strings.Builder
	for n := 2; rest != ""; n++ {
		line, next, nl := strings.Cut(rest, "\n")
		rest = next
		if strings.HasPrefix(line, markerPrefix+" ") {
			e, err := parseMarker(strings.TrimRight(line, " \t\r"))
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			if err := h.checkEntryDate(e.Date); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			d.Entries = append(d.Entries, e)
			cur = new(strings.Builder)
			bodies = append(bodies, cur)
			continue
		}
		if strings.HasPrefix(line, `\`) && strings.HasPrefix(strings.TrimLeft(line, `\`), markerPrefix+" ") {
			line = line[1:]
		}
		cur.WriteString(line)
		if nl {
			cur.WriteByte('\n')
		}
	}
	d.Text = text.String()
	for i := range d.Entries {
		d.Entries[i].Body = bodies[i].String()
	}
	return d, nil
}

// Format writes the document back as a file. For any document Parse
// returned, Parse(d.Format()) gives back an equal document. A text or body
// that does not end in a newline gets one before a following marker.
func (d *Doc) Format() []byte {
	var b strings.Builder
	b.WriteString(d.Header.line())
	b.WriteByte('\n')
	if !hasEntries(d.Header.Layer) {
		b.WriteString(d.Text)
		return []byte(b.String())
	}
	writeEscaped(&b, d.Text, len(d.Entries) > 0)
	for i, e := range d.Entries {
		b.WriteString(e.marker())
		b.WriteByte('\n')
		writeEscaped(&b, e.Body, i+1 < len(d.Entries))
	}
	return []byte(b.String())
}

// Body is the file as Format writes it, without the header line.
func (d *Doc) Body() string {
	f := d.Format()
	_, rest, _ := strings.Cut(string(f), "\n")
	return rest
}

// writeEscaped writes text, giving every line that would read as an entry
// marker one more leading backslash, and ends it with a newline when more
// follows.
func writeEscaped(b *strings.Builder, text string, more bool) {
	for text != "" {
		line, rest, nl := strings.Cut(text, "\n")
		text = rest
		if strings.HasPrefix(strings.TrimLeft(line, `\`), markerPrefix+" ") {
			b.WriteByte('\\')
		}
		b.WriteString(line)
		if nl || more {
			b.WriteByte('\n')
		}
	}
}

// splitHeader checks a memory file's text (UTF-8, no control characters
// but tab, newline and carriage return) and returns its first line,
// without trailing space, and the rest, a byte order mark dropped.
func splitHeader(data []byte) (first, rest string, err error) {
	s := string(data)
	if !utf8.ValidString(s) {
		return "", "", errors.New("not valid UTF-8")
	}
	if i := strings.IndexFunc(s, badControl); i >= 0 {
		return "", "", fmt.Errorf("line %d: control character %U", 1+strings.Count(s[:i], "\n"), []rune(s[i:])[0])
	}
	first, rest, _ = strings.Cut(strings.TrimPrefix(s, "\uFEFF"), "\n")
	return strings.TrimRight(first, " \t\r"), rest, nil
}

// badControl reports the control characters a memory file may not hold.
func badControl(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r'
}

// line is the header line, without its newline.
func (h Header) line() string {
	f := []string{headerPrefix, "v=" + FormatVersion, "layer=" + strconv.Itoa(h.Layer)}
	if h.Tag != "" {
		f = append(f, "tag="+h.Tag)
	}
	if h.Date != "" {
		f = append(f, "date="+h.Date)
	}
	if h.HandoffID != "" {
		f = append(f, "handoff="+h.HandoffID)
	}
	return strings.Join(append(f, commentEnd), " ")
}

// marker is the entry's marker line, without its newline.
func (e Entry) marker() string {
	f := []string{markerPrefix, "date=" + e.Date}
	if e.Key != "" {
		f = append(f, "key="+e.Key)
	}
	if e.HandoffID != "" {
		f = append(f, "handoff="+e.HandoffID)
	}
	return strings.Join(append(f, commentEnd), " ")
}

// fields splits the inside of a comment line "PREFIX k=v … -->" into its
// fields, refusing repeated or empty ones.
func fields(line, prefix string) (map[string]string, error) {
	if !strings.HasPrefix(line, prefix) || !strings.HasSuffix(line, commentEnd) || len(line) < len(prefix)+len(commentEnd) {
		return nil, errors.New("not a whole comment line")
	}
	inner := line[len(prefix) : len(line)-len(commentEnd)]
	if inner != "" && inner[0] != ' ' && inner[0] != '\t' {
		return nil, errors.New("not a whole comment line")
	}
	m := map[string]string{}
	for _, f := range strings.Fields(inner) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("field %q is not name=value", handoff.Shorten(f, 40))
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("field %q given twice", handoff.Shorten(k, 40))
		}
		m[k] = v
	}
	return m, nil
}

func parseHeader(line string) (Header, error) {
	var h Header
	if !strings.HasPrefix(line, headerPrefix) {
		return h, errors.New("no memory header (want a first line starting " + headerPrefix + ")")
	}
	m, err := fields(line, headerPrefix)
	if err != nil {
		return h, fmt.Errorf("memory header: %w", err)
	}
	if v := m["v"]; v != FormatVersion {
		return h, fmt.Errorf("memory header: version %q, want %s", handoff.Shorten(v, 20), FormatVersion)
	}
	switch m["layer"] {
	case "0", "1", "2", "3":
		h.Layer = int(m["layer"][0] - '0')
	default:
		return h, fmt.Errorf("memory header: layer %q, want 0, 1, 2 or 3", handoff.Shorten(m["layer"], 20))
	}
	h.Tag, h.Date = m["tag"], m["date"]
	if id, ok := m["handoff"]; ok {
		pid, err := handoff.ParseID(id)
		if err != nil {
			return h, fmt.Errorf("memory header: %w", err)
		}
		h.HandoffID = string(pid)
	}
	for k := range m {
		switch k {
		case "v", "layer", "tag", "date", "handoff":
		default:
			return h, fmt.Errorf("memory header: unknown field %q", handoff.Shorten(k, 40))
		}
	}
	if err := h.check(); err != nil {
		return h, fmt.Errorf("memory header: %w", err)
	}
	return h, nil
}

// check applies the rules for the layer's tag and date.
func (h Header) check() error {
	switch h.Layer {
	case 0:
		ok := false
		for _, t := range identityTags {
			ok = ok || h.Tag == t
		}
		if !ok {
			return fmt.Errorf("layer 0 tag %q: want soul, memory or handoff", handoff.Shorten(h.Tag, 40))
		}
	case 1, 3:
		if err := ValidTag(h.Tag); err != nil {
			return err
		}
	case 2:
		if h.Tag != "" {
			return errors.New("layer 2 takes no tag")
		}
	}
	switch {
	case h.Layer == 3:
		return ValidMonth(h.Date)
	case h.Layer == 1 || h.Date != "":
		return ValidDate(h.Date)
	}
	return nil
}

// checkEntryDate checks that an entry dated date belongs in a file with
// this header: a note holds its own day, an archive its month.
func (h Header) checkEntryDate(date string) error {
	if h.Layer == 1 && date != h.Date {
		return fmt.Errorf("entry dated %s in the note of %s", date, h.Date)
	}
	if h.Layer == 3 && date[:7] != h.Date {
		return fmt.Errorf("entry dated %s in the archive of %s", date, h.Date)
	}
	return nil
}

func parseMarker(line string) (Entry, error) {
	var e Entry
	m, err := fields(line, markerPrefix)
	if err != nil {
		return e, fmt.Errorf("entry marker: %w", err)
	}
	for k, v := range m {
		switch k {
		case "date":
			if err := ValidDate(v); err != nil {
				return e, fmt.Errorf("entry marker: %w", err)
			}
			e.Date = v
		case "key":
			if err := ValidKey(v); err != nil {
				return e, fmt.Errorf("entry marker: %w", err)
			}
			e.Key = v
		case "handoff":
			id, err := handoff.ParseID(v)
			if err != nil {
				return e, fmt.Errorf("entry marker: %w", err)
			}
			e.HandoffID = string(id)
		default:
			return e, fmt.Errorf("entry marker: unknown field %q", handoff.Shorten(k, 40))
		}
	}
	if e.Date == "" {
		return e, errors.New("entry marker: no date")
	}
	return e, nil
}
