package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// filePerm is the mode of the memory files: they are meant to be
// committed and read by any agent.
const filePerm = 0o644

// gitignore is the .gitignore Init writes in the root.
const gitignore = "# session-handoff memory: the writers' lock file\n" + LockFile + "\n"

// InitOptions are Init's options.
type InitOptions struct {
	// Name is the agent's name, written into SOUL.md (one line, at most
	// 64 bytes); empty leaves a placeholder.
	Name string
	// Force brings existing identity files into the current form without
	// removing a line: an untouched template is replaced (to set Name), a
	// file without a header of ours (another tool's) gets one on top, and
	// a file holding the user's text is kept. An existing .gitignore is
	// never replaced: the lines Init needs are added to it, and none of
	// the user's lines is removed.
	Force bool
	// Beside is the project root when the memory directory is inside it:
	// an identity file the root holds and the memory directory does not
	// (agent-handoff kept SOUL.md, MEMORY.md and HANDOFF.md there) is kept
	// where it is, untouched, and no template is made to shadow it.
	Beside string
}

// What Init did to a path (InitResult.Action).
const (
	Created   = "created"   // it did not exist
	Overwrote = "overwrote" // an untouched template, replaced (--force)
	Updated   = "updated"   // our header put on top, or .gitignore lines added; no line removed
	Kept      = "kept"      // it exists and was left as it is
)

// InitResult is what Init did to one path.
type InitResult struct {
	// Path is the root (or Beside) joined with the file's name; a
	// directory ends in a separator.
	Path   string
	Action string
}

// Init makes a memory root: SOUL.md, MEMORY.md and HANDOFF.md from
// templates, the layer1/, layer2/ and layer3/ directories, and a
// .gitignore for the lock file. Existing files are left untouched unless
// o.Force is set. It returns what it did to each file, and to each
// directory it made.
func Init(root string, o InitOptions) (done []InitResult, err error) {
	if len(o.Name) > 64 || strings.IndexFunc(o.Name, unicode.IsControl) >= 0 || strings.TrimSpace(o.Name) != o.Name || !utf8.ValidString(o.Name) {
		return nil, fmt.Errorf("name %q: want one line of at most 64 bytes without surrounding spaces", handoff.Shorten(o.Name, 40))
	}
	d := Dir{Root: root}
	_, statErr := os.Lstat(root)
	fresh := errors.Is(statErr, fs.ErrNotExist)
	real, err := d.root(true)
	if err != nil {
		return nil, err
	}
	l, err := d.lock(real)
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	for _, dir := range []string{"layer1", "layer2", "layer3"} {
		_, statErr := os.Lstat(filepath.Join(real, dir))
		if _, err := d.dir(real, dir, true); err != nil {
			return done, err
		}
		if errors.Is(statErr, fs.ErrNotExist) {
			done = append(done, InitResult{d.name(dir) + string(filepath.Separator), Created})
		}
	}
	files := []struct {
		rel  string
		data []byte
	}{
		{SoulFile, (&Doc{Header: Header{Tag: "soul"}, Text: soulTemplate(o.Name)}).Format()},
		{MemoryFile, (&Doc{Header: Header{Tag: "memory"}, Text: memoryTemplate}).Format()},
		{HandoffFile, (&Doc{Header: Header{Tag: "handoff"}, Text: handoffTemplate}).Format()},
		{".gitignore", []byte(gitignore)},
	}
	for _, f := range files {
		p, exists, err := d.locate(real, f.rel, false)
		if err != nil {
			return done, err
		}
		if !exists && f.rel != ".gitignore" && o.Beside != "" {
			if b := filepath.Join(o.Beside, f.rel); isRegular(b) {
				done = append(done, InitResult{b, Kept})
				continue
			}
		}
		if exists && !o.Force {
			if fresh && f.rel == ".gitignore" {
				done = append(done, InitResult{d.name(f.rel), Created}) // made with the root
			} else if f.rel != ".gitignore" {
				done = append(done, InitResult{d.name(f.rel), Kept})
			}
			continue
		}
		data, action := f.data, Created
		if exists && f.rel != ".gitignore" {
			// Force never removes a line of the user's: only an untouched
			// template is replaced; a file without our header (another
			// tool's SOUL.md) gets the header on top of all its lines.
			if data, action, err = d.forceIdentity(p, f.rel, f.data, o.Name == ""); err != nil {
				return done, err
			}
			if action == Kept {
				done = append(done, InitResult{d.name(f.rel), Kept})
				continue
			}
		}
		if exists && f.rel == ".gitignore" {
			old, err := safefile.ReadRegular(p, MaxFileSize)
			if err != nil {
				return done, fmt.Errorf("%s: %w", d.name(f.rel), err)
			}
			var changed bool
			if data, changed = mergeLines(old, f.data); !changed {
				continue
			}
			action = Updated
		}
		if err := safefile.WriteFile(p, data, filePerm); err != nil {
			return done, fmt.Errorf("%s: %w", d.name(f.rel), err)
		}
		done = append(done, InitResult{d.name(f.rel), action})
	}
	return done, nil
}

// isRegular reports whether p is a regular file (not through a link).
func isRegular(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// forceIdentity decides what init --force writes over the identity file
// at p: want (the template, Overwrote) when the file is an untouched
// template; the file with our header line put before all of its bytes
// (Updated) when it has no header of ours (agent-handoff's SOUL.md,
// MEMORY.md, HANDOFF.md); and nothing (Kept) when it holds a header and
// text of the user's. With keepTitle (no name given) a SOUL.md template
// keeps the name it has.
func (d Dir) forceIdentity(p, rel string, want []byte, keepTitle bool) (data []byte, action string, err error) {
	old, err := d.readRaw(p, rel)
	if err != nil {
		return nil, "", err
	}
	doc, perr := Parse(old)
	if perr != nil {
		wantDoc, _ := Parse(want)
		if !utf8.Valid(old) || strings.IndexFunc(string(old), badControl) >= 0 {
			return nil, "", fmt.Errorf("%s: not a memory file, and not text init can keep: %w", d.name(rel), perr)
		}
		return append([]byte(wantDoc.Header.line()+"\n"), old...), Updated, nil
	}
	wantDoc, _ := Parse(want)
	if untouched(doc.Text, wantDoc.Text, rel == SoulFile) && string(old) != string(want) {
		title, _, _ := strings.Cut(doc.Text, "\n")
		wantTitle, _, _ := strings.Cut(wantDoc.Text, "\n")
		if keepTitle && rel == SoulFile && title != wantTitle {
			return nil, Kept, nil // the name it has stays
		}
		return want, Overwrote, nil
	}
	return nil, Kept, nil
}

// IsTemplate reports whether text, an identity file's text without its
// header line, is still the template Init wrote for it (SOUL.md with any
// name): nothing a briefing needs to quote.
func IsTemplate(name, text string) bool {
	var tmpl string
	switch name {
	case SoulFile:
		tmpl = soulTemplate("")
	case MemoryFile:
		tmpl = memoryTemplate
	case HandoffFile:
		tmpl = handoffTemplate
	default:
		return false
	}
	return untouched(text, tmpl, name == SoulFile)
}

// untouched reports whether text is the template tmpl; for SOUL.md any
// title line counts (it holds the agent's name).
func untouched(text, tmpl string, anyTitle bool) bool {
	if anyTitle {
		_, text, _ = strings.Cut(text, "\n")
		_, tmpl, _ = strings.Cut(tmpl, "\n")
	}
	return strings.TrimSpace(text) == strings.TrimSpace(tmpl)
}

// mergeLines is have with the lines of want that it lacks added at its
// end; changed is false when it lacks none. Comment lines of want are
// added only before a line that is added. No line of have is removed or
// reordered.
func mergeLines(have, want []byte) (merged []byte, changed bool) {
	present := map[string]bool{}
	for _, l := range strings.Split(string(have), "\n") {
		present[strings.TrimRight(l, " \t\r")] = true
	}
	merged = have
	var comments []string
	for _, l := range strings.SplitAfter(string(want), "\n") {
		line := strings.TrimRight(l, " \t\r\n")
		switch {
		case line == "":
		case strings.HasPrefix(line, "#"):
			comments = append(comments, l)
		case !present[line]:
			if len(merged) > 0 && merged[len(merged)-1] != '\n' {
				merged = append(merged, '\n')
			}
			for _, c := range comments {
				merged = append(merged, c...)
			}
			merged = append(merged, l...)
			comments, changed = nil, true
		default:
			comments = nil
		}
	}
	return merged, changed
}

func soulTemplate(name string) string {
	title := "Soul"
	if name != "" {
		title = name
	}
	return "# " + title + `

Who this agent is, for any agent that takes up the work: its name, its
voice, what it values and how it likes to work. Keep it short and edit it
freely; session-handoff never rewrites this file.

## Voice

## Values

## Habits
`
}

const memoryTemplate = `# Memory

What this agent knows that outlives a session: the project and its people,
conventions, decisions and where things are. Edit it freely.

Session notes are in layer1/, where things stand now in
layer2/current-state.md, and monthly archives of old notes in layer3/.
`

const handoffTemplate = `# Handoff

No handoff has been written here yet. session-handoff replaces this file
with the latest handoff.
`

// Note is one piece of memory to write.
type Note struct {
	// Layer is 1 (a session note), 2 (the current state) or 3 (an archive
	// entry); Write dispatches on it.
	Layer int
	// Tag names the note or archive (layers 1 and 3); see ValidTag.
	Tag string
	// Date is YYYY-MM-DD; for layer 3 it picks the month's archive.
	// Writers given an empty date use today's, in local time.
	Date string
	// HandoffID is the handoff the note came from, if any.
	HandoffID string
	// Key, when set, makes the write of a layer-1 or layer-3 entry
	// idempotent: an entry with the same key in the file means nothing is
	// written. See ValidKey.
	Key string
	// Body is the text: UTF-8, at most MaxBodySize bytes; control
	// characters other than newline and tab are removed.
	Body string
}

// today is the date writers use when given none.
func today() string { return time.Now().Format("2006-01-02") }

// Write writes n to the layer it names: WriteNote for layer 1,
// WriteArchive for layer 3, and for layer 2 the current state with the
// note's date in the header. written is false only when an entry with
// n.Key was there already.
func (d Dir) Write(n Note) (path string, written bool, err error) {
	switch n.Layer {
	case 1:
		return d.WriteNote(n)
	case 2:
		if n.Tag != "" || n.Key != "" {
			return "", false, errors.New("layer 2 takes no tag and no key")
		}
		p, err := d.writeWhole(StateFile, Header{Layer: 2, Date: n.Date}, n.HandoffID, n.Body)
		return p, err == nil, err
	case 3:
		return d.WriteArchive(n)
	}
	return "", false, fmt.Errorf("layer %d: want 1, 2 or 3", n.Layer)
}

// WriteNote appends an entry to the layer-1 note of n.Tag on n.Date
// (layer1/YYYY-MM/<tag>-<date>.md), creating the note if needed; a second
// note on the same day for the same tag is appended, never overwrites.
// n.Layer must be 1 (or 0, taken as 1). Key, when non-empty, makes the
// write idempotent: if an entry with the same key already exists in that
// file, nothing is written and (path, false, nil) is returned. Handover
// runs pass "<run-id>/<step>" so a resumed run never writes the same note
// twice. The path returned is Root joined with the note's path.
func (d Dir) WriteNote(n Note) (path string, written bool, err error) {
	if n.Layer != 0 && n.Layer != 1 {
		return "", false, fmt.Errorf("WriteNote: layer %d, want 1", n.Layer)
	}
	if n.Date == "" {
		n.Date = today()
	}
	e, err := n.entry()
	if err != nil {
		return "", false, err
	}
	h := Header{Layer: 1, Tag: n.Tag, Date: n.Date, HandoffID: e.HandoffID}
	return d.appendEntry(h, e)
}

// WriteArchive adds an entry to the layer-3 archive of n.Tag for the
// month of n.Date (layer3/YYYY-MM-<tag>-archive.md), by hand rather than
// by Compact. The entry goes after every entry of the same or an earlier
// date, so the archive stays in date order. Key makes it idempotent as
// for WriteNote.
func (d Dir) WriteArchive(n Note) (path string, written bool, err error) {
	if n.Layer != 0 && n.Layer != 3 {
		return "", false, fmt.Errorf("WriteArchive: layer %d, want 3", n.Layer)
	}
	if n.Date == "" {
		n.Date = today()
	}
	e, err := n.entry()
	if err != nil {
		return "", false, err
	}
	month := n.Date[:7]
	h := Header{Layer: 3, Tag: n.Tag, Date: month, HandoffID: e.HandoffID}
	return d.appendEntry(h, e)
}

// WriteState replaces the layer-2 current state (layer2/current-state.md)
// atomically with body, dated today; handoffID, if set, is recorded in
// the header.
func (d Dir) WriteState(handoffID string, body string) (path string, err error) {
	return d.writeWhole(StateFile, Header{Layer: 2}, handoffID, body)
}

// WriteHandoff replaces HANDOFF.md atomically with text (the rendered
// latest handoff), dated today, recording handoffID in the header.
func (d Dir) WriteHandoff(handoffID, text string) (path string, err error) {
	return d.writeWhole(HandoffFile, Header{Layer: 0, Tag: "handoff"}, handoffID, text)
}

// entry checks a layer-1 or layer-3 note and makes its entry.
func (n Note) entry() (Entry, error) {
	if err := ValidTag(n.Tag); err != nil {
		return Entry{}, err
	}
	if err := ValidDate(n.Date); err != nil {
		return Entry{}, err
	}
	if n.Key != "" {
		if err := ValidKey(n.Key); err != nil {
			return Entry{}, err
		}
	}
	id, err := validHandoffID(n.HandoffID)
	if err != nil {
		return Entry{}, err
	}
	body, err := CleanText(n.Body)
	if err != nil {
		return Entry{}, err
	}
	return Entry{Date: n.Date, Key: n.Key, HandoffID: id, Body: body}, nil
}

func notePreamble(tag, date string) string { return "# " + tag + ": notes of " + date + "\n" }

func archivePreamble(tag, month string) string {
	return "# " + tag + ": archive of " + month + "\n"
}

// appendEntry adds e to the note or archive of header h (layer 1 or 3),
// made with h and its preamble when missing, under the lock, unless e.Key
// is there already. A file whose tag is h's but for case is that file
// (SameTag): the entry goes into it, under the tag it has.
func (d Dir) appendEntry(h Header, e Entry) (string, bool, error) {
	real, err := d.root(true)
	if err != nil {
		return "", false, err
	}
	paths := func(tag string) (rel, preamble string) {
		if h.Layer == 3 {
			return ArchivePath(tag, h.Date), archivePreamble(tag, h.Date)
		}
		return NotePath(tag, h.Date), notePreamble(tag, h.Date)
	}
	rel, _ := paths(h.Tag)
	l, err := d.lockFor(real, rel)
	if err != nil {
		return "", false, err
	}
	defer l.Unlock()
	if h.Tag, err = d.tagInUse(real, h); err != nil {
		return "", false, err
	}
	rel, preamble := paths(h.Tag)
	p, exists, err := d.locate(real, rel, true)
	if err != nil {
		return "", false, err
	}
	doc := &Doc{Header: h, Text: preamble}
	if exists {
		if doc, err = d.readDoc(p, rel); err != nil {
			return "", false, err
		}
		if e.Key != "" && doc.hasKey(e.Key) {
			return d.name(rel), false, nil
		}
		if h.HandoffID != "" {
			doc.Header.HandoffID = h.HandoffID
		}
	}
	doc.insert(e)
	if err := d.writeDoc(p, rel, doc); err != nil {
		return "", false, err
	}
	return d.name(rel), true, nil
}

// writeWhole replaces the file rel (layer 0 or 2) with text under header
// h, dated today unless h has a date.
func (d Dir) writeWhole(rel string, h Header, handoffID, text string) (string, error) {
	doc, err := wholeDoc(h, handoffID, text)
	if err != nil {
		return "", err
	}
	real, err := d.root(true)
	if err != nil {
		return "", err
	}
	l, err := d.lockFor(real, rel)
	if err != nil {
		return "", err
	}
	defer l.Unlock()
	p, _, err := d.locate(real, rel, true)
	if err != nil {
		return "", err
	}
	if err := d.writeDoc(p, rel, doc); err != nil {
		return "", err
	}
	return d.name(rel), nil
}

// wholeDoc checks what writeWhole writes and makes its document: header
// h with the handoff id, dated today unless h has a date, and the cleaned
// text.
func wholeDoc(h Header, handoffID, text string) (*Doc, error) {
	id, err := validHandoffID(handoffID)
	if err != nil {
		return nil, err
	}
	h.HandoffID = id
	if h.Date == "" {
		h.Date = today()
	}
	if err := ValidDate(h.Date); err != nil {
		return nil, err
	}
	body, err := CleanText(text)
	if err != nil {
		return nil, err
	}
	return &Doc{Header: h, Text: body}, nil
}

// KeepsRootHandoff reports whether the project at root keeps agent-handoff's
// layout, HANDOFF.md at its root as a regular file, and the memory
// directory d holds no HANDOFF.md: the handoff the project's agent reads
// is the root's.
func KeepsRootHandoff(root string, d Dir) bool {
	if _, err := os.Lstat(filepath.Join(d.Root, HandoffFile)); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	fi, err := os.Lstat(filepath.Join(root, HandoffFile))
	return err == nil && fi.Mode().IsRegular()
}

// WriteRootHandoff replaces HANDOFF.md at the project root (agent-handoff's
// layout: KeepsRootHandoff) atomically with text, as WriteHandoff writes
// it in the memory directory. It takes no lock, so that the project gets
// no lock file of ours: a whole-file replace, the last write wins. A
// HANDOFF.md that is not a regular file is refused.
func WriteRootHandoff(root, handoffID, text string) (string, error) {
	doc, err := wholeDoc(Header{Layer: 0, Tag: "handoff"}, handoffID, text)
	if err != nil {
		return "", err
	}
	d := Dir{Root: root}
	p := d.name(HandoffFile)
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file; not writing there", p)
	}
	if err := d.writeDoc(p, HandoffFile, doc); err != nil {
		return "", err
	}
	return p, nil
}

// writeDoc replaces the file at p atomically with doc, refusing to make
// it larger than MaxFileSize.
func (d Dir) writeDoc(p, rel string, doc *Doc) error {
	data := doc.Format()
	if len(data) > MaxFileSize {
		return fmt.Errorf("%s: would grow over the %d MiB limit for a memory file", d.name(rel), MaxFileSize>>20)
	}
	if err := safefile.WriteFile(p, data, filePerm); err != nil {
		return safefile.Wrap("write", d.name(rel), err)
	}
	return nil
}

// hasKey reports whether an entry of the document carries key.
func (doc *Doc) hasKey(key string) bool {
	for _, e := range doc.Entries {
		if e.Key == key {
			return true
		}
	}
	return false
}

// insert puts e after every entry dated on or before it, so entries stay
// in date order and a new one on the same day comes last. The text before
// it is given a blank line, so entries read as paragraphs.
func (doc *Doc) insert(e Entry) {
	i := sort.Search(len(doc.Entries), func(i int) bool { return doc.Entries[i].Date > e.Date })
	prev := &doc.Text
	if i > 0 {
		prev = &doc.Entries[i-1].Body
	}
	*prev = separate(*prev)
	if i < len(doc.Entries) {
		e.Body = separate(e.Body)
	}
	doc.Entries = append(doc.Entries, Entry{})
	copy(doc.Entries[i+1:], doc.Entries[i:])
	doc.Entries[i] = e
}

// separate ends non-empty text with a blank line.
func separate(s string) string {
	if s == "" || strings.HasSuffix(s, "\n\n") || strings.HasSuffix(s, "\n\r\n") {
		return s
	}
	if strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s + "\n\n"
}

// tagInUse is the tag of the existing note or archive of header h's layer
// and date whose tag is h's but for case: h.Tag itself when the file of
// h.Tag exists or none does, else the first such file's tag by name.
func (d Dir) tagInUse(real string, h Header) (string, error) {
	dirRel := "layer3"
	if h.Layer == 1 {
		dirRel = "layer1/" + h.Date[:7]
	}
	names, err := d.readDir(real, dirRel)
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	found := ""
	for _, n := range names {
		f, err := classify(dirRel + "/" + n)
		if err != nil || f.Layer != h.Layer || f.Date != h.Date || !SameTag(f.Tag, h.Tag) {
			continue
		}
		if f.Tag == h.Tag {
			return h.Tag, nil
		}
		if found == "" {
			found = f.Tag
		}
	}
	if found == "" {
		return h.Tag, nil
	}
	return found, nil
}
