package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

const testID = "01JDZ3K4XQ2V8N5M7P9R0S1T2W"

// snapshot records every name under dir with its mode and, for regular
// files, content, without following links, so a test can prove that a
// refused write changed nothing.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return nil
			}
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := info.Mode().String()
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(data)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			v += " -> " + target
		}
		rel, _ := filepath.Rel(dir, p)
		m[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func newDir(t *testing.T) Dir {
	t.Helper()
	return Dir{Root: filepath.Join(t.TempDir(), "memory")}
}

// localDate is today's date as the package dates notes. A test that
// checks a default date takes it before and after the write and accepts
// either, so that midnight passing in between cannot fail it.
func localDate() string { return time.Now().Format("2006-01-02") }

func writeNote(t *testing.T, d Dir, n Note) string {
	t.Helper()
	p, written, err := d.WriteNote(n)
	if err != nil {
		t.Fatal(err)
	}
	if !written {
		t.Fatalf("note %+v not written", n)
	}
	return p
}

func TestHeaderRoundTrip(t *testing.T) {
	docs := []*Doc{
		{Header: Header{Layer: 0, Tag: "soul"}, Text: "# Aria\n"},
		{Header: Header{Layer: 0, Tag: "handoff", Date: "2026-03-05", HandoffID: testID}, Text: "text\n<!-- entry date=2026-03-05 -->\n"},
		{Header: Header{Layer: 2, Date: "2026-03-05"}, Text: ""},
		{Header: Header{Layer: 1, Tag: "api", Date: "2026-03-05", HandoffID: testID}, Text: "# title\n\n", Entries: []Entry{
			{Date: "2026-03-05", Key: "01JDZ3K4XQ2V8N5M7P9R0S1T2W/note", Body: "first\n\n"},
			{Date: "2026-03-05", HandoffID: testID, Body: "<!-- entry date=2026-03-05 -->\n\\<!-- entry x\n"},
			{Date: "2026-03-05", Body: "no newline at the end"},
		}},
		{Header: Header{Layer: 3, Tag: "a.b_c-d", Date: "2026-02"}, Entries: []Entry{{Date: "2026-02-01", Body: ""}, {Date: "2026-02-28", Key: "k", Body: "x\r\n"}}},
	}
	for i, d := range docs {
		data := d.Format()
		got, err := Parse(data)
		if err != nil {
			t.Fatalf("doc %d: %v\n%s", i, err, data)
		}
		if !reflect.DeepEqual(got, d) {
			t.Fatalf("doc %d: round trip\n got %#v\nwant %#v\n%s", i, got, d, data)
		}
	}
	// The exact bytes of a note, as docs/FORMAT.md shows them.
	want := "<!-- session-handoff:memory v=1 layer=1 tag=api date=2026-03-05 handoff=" + testID + " -->\n" +
		"# title\n\n" +
		"<!-- entry date=2026-03-05 key=01JDZ3K4XQ2V8N5M7P9R0S1T2W/note -->\n" +
		"first\n\n" +
		"<!-- entry date=2026-03-05 handoff=" + testID + " -->\n" +
		"\\<!-- entry date=2026-03-05 -->\n\\\\<!-- entry x\n" +
		"<!-- entry date=2026-03-05 -->\n" +
		"no newline at the end"
	if got := string(docs[3].Format()); got != want {
		t.Fatalf("format:\n%s\nwant:\n%s", got, want)
	}
}

func TestParseRefusesDamage(t *testing.T) {
	h1 := "<!-- session-handoff:memory v=1 layer=1 tag=api date=2026-03-05 -->\n"
	for _, c := range []struct{ name, data, want string }{
		{"empty", "", "no memory header"},
		{"no header", "# notes\n", "line 1: no memory header"},
		{"version", "<!-- session-handoff:memory v=2 layer=1 -->\n", "version"},
		{"no layer", "<!-- session-handoff:memory v=1 -->\n", "layer"},
		{"layer 4", "<!-- session-handoff:memory v=1 layer=4 -->\n", "layer"},
		{"unknown field", "<!-- session-handoff:memory v=1 layer=2 x=y -->\n", "unknown field"},
		{"twice", "<!-- session-handoff:memory v=1 layer=2 layer=2 -->\n", "twice"},
		{"bad tag", "<!-- session-handoff:memory v=1 layer=1 tag=../x date=2026-03-05 -->\n", "tag"},
		{"bad date", "<!-- session-handoff:memory v=1 layer=1 tag=a date=2026-02-30 -->\n", "date"},
		{"archive day", "<!-- session-handoff:memory v=1 layer=3 tag=a date=2026-02-01 -->\n", "month"},
		{"bad id", "<!-- session-handoff:memory v=1 layer=2 handoff=xyz -->\n", "invalid handoff id"},
		{"unterminated", "<!-- session-handoff:memory v=1 layer=2\n", "not a whole comment line"},
		{"marker", h1 + "<!-- entry key=x -->\n", "line 2: entry marker: no date"},
		{"marker field", h1 + "x\n<!-- entry date=2026-03-05 who=me -->\n", "line 3: entry marker: unknown field"},
		{"marker end", h1 + "<!-- entry date=2026-03-05\n", "line 2: entry marker"},
		{"wrong day", h1 + "<!-- entry date=2026-03-06 -->\n", "line 2: entry dated 2026-03-06 in the note of 2026-03-05"},
		{"bad key", h1 + "<!-- entry date=2026-03-05 key=-x -->\n", "key"},
		{"utf8", h1 + "\xff\n", "UTF-8"},
		{"control", h1 + "a\n\x1b[31m\n", "line 3: control character U+001B"},
		{"nul", h1 + "\x00", "line 2: control character U+0000"},
	} {
		_, err := Parse([]byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// Hand edits that stay readable: CRLF, trailing spaces, a BOM, fields
	// in another order, lower-case ids.
	doc, err := Parse([]byte("\uFEFF<!-- session-handoff:memory date=2026-03-05 tag=api layer=1 v=1 -->  \r\n<!-- entry   key=k date=2026-03-05 handoff=" + strings.ToLower(testID) + " -->\r\nbody\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Header.Tag != "api" || len(doc.Entries) != 1 || doc.Entries[0].Key != "k" || doc.Entries[0].HandoffID != testID || doc.Entries[0].Body != "body\r\n" {
		t.Fatalf("lenient parse: %#v", doc)
	}
}

func TestValidation(t *testing.T) {
	for _, s := range []string{"a", "api", "0", "a.b", "a_b-c", "x.", "A", "Team-API", strings.Repeat("a", 64)} {
		if err := ValidTag(s); err != nil {
			t.Errorf("ValidTag(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "../x", "a/b", "x\x00", "..", "a..b", ".a", "-a", "_a", "a b", "a\\b", "é", strings.Repeat("a", 65), "a\n"} {
		if err := ValidTag(s); err == nil {
			t.Errorf("ValidTag(%q) accepted", s)
		}
	}
	for _, s := range []string{"2026-02-28", "2024-02-29", "1999-12-31"} {
		if err := ValidDate(s); err != nil {
			t.Errorf("ValidDate(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "2026-02-30", "2026-13-01", "2025-02-29", "2026-1-01", "2026-01-1", "26-01-01", "2026-01-01T00:00:00Z", "2026/01/01", "../../etc"} {
		if err := ValidDate(s); err == nil {
			t.Errorf("ValidDate(%q) accepted", s)
		}
	}
	for _, s := range []string{"", "2026-13", "2026-1", "2026-01-01"} {
		if err := ValidMonth(s); err == nil {
			t.Errorf("ValidMonth(%q) accepted", s)
		}
	}
	for _, s := range []string{"", "-x", "a b", "a-->", "a>b", strings.Repeat("k", 129), "k\x00"} {
		if err := ValidKey(s); err == nil {
			t.Errorf("ValidKey(%q) accepted", s)
		}
	}
	if err := ValidKey(testID + "/note-1"); err != nil {
		t.Error(err)
	}
}

// paths are the paths of done that Init gave action.
func paths(done []InitResult, action string) []string {
	var out []string
	for _, r := range done {
		if r.Action == action {
			out = append(out, r.Path)
		}
	}
	return out
}

// An identity file at the project root (agent-handoff's layout) is kept
// there: Init makes no template in memory/ to shadow it.
func TestInitBeside(t *testing.T) {
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "SOUL.md"), []byte("# SOUL.md\n\nI am mycoolbot.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(project, "memory")
	done, err := Init(root, InitOptions{Force: true, Beside: project})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(done, Kept); !reflect.DeepEqual(got, []string{filepath.Join(project, "SOUL.md")}) {
		t.Fatalf("kept %q", got)
	}
	if _, err := os.Lstat(filepath.Join(root, "SOUL.md")); err == nil {
		t.Fatal("memory/SOUL.md made beside the project's own")
	}
	if got := mustRead(t, filepath.Join(project, "SOUL.md")); got != "# SOUL.md\n\nI am mycoolbot.\n" {
		t.Fatalf("the project's SOUL.md changed: %q", got)
	}
}

func TestInit(t *testing.T) {
	root := filepath.Join(t.TempDir(), "memory")
	done, err := Init(root, InitOptions{Name: "Aria"})
	created := paths(done, Created)
	if err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.Separator)
	want := []string{
		filepath.Join(root, "layer1") + sep, filepath.Join(root, "layer2") + sep, filepath.Join(root, "layer3") + sep,
		filepath.Join(root, "SOUL.md"), filepath.Join(root, "MEMORY.md"), filepath.Join(root, "HANDOFF.md"), filepath.Join(root, ".gitignore"),
	}
	if !reflect.DeepEqual(created, want) {
		t.Fatalf("created %q\nwant %q", created, want)
	}
	soul := mustRead(t, filepath.Join(root, "SOUL.md"))
	if !strings.HasPrefix(soul, "<!-- session-handoff:memory v=1 layer=0 tag=soul -->\n# Aria\n") {
		t.Fatalf("SOUL.md:\n%s", soul)
	}
	if gi := mustRead(t, filepath.Join(root, ".gitignore")); !strings.Contains(gi, "\n.lock\n") {
		t.Fatalf(".gitignore: %q", gi)
	}
	for _, f := range []string{"MEMORY.md", "HANDOFF.md"} {
		if _, _, err := (Dir{root}).Read(f); err != nil {
			t.Fatal(err)
		}
	}

	// Again: an edited file is kept, nothing is created.
	edited := "<!-- session-handoff:memory v=1 layer=0 tag=soul -->\n# Mine\n"
	if err := os.WriteFile(filepath.Join(root, "SOUL.md"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if done, err = Init(root, InitOptions{Name: "Other"}); err != nil || len(paths(done, Created)) != 0 || len(paths(done, Kept)) != 3 {
		t.Fatalf("second Init: %q, %v", done, err)
	}
	if got := mustRead(t, filepath.Join(root, "SOUL.md")); got != edited {
		t.Fatalf("SOUL.md changed:\n%s", got)
	}
	// --force rewrites the untouched templates, not the directories,
	// leaves a .gitignore that has what it needs as it is, and never
	// removes a line of the user's: the edited SOUL.md stays.
	// (The templates are as they would be written: kept, not
	// overwritten.) A template with another name is overwritten.
	done, err = Init(root, InitOptions{Force: true})
	if err != nil || len(paths(done, Kept)) != 3 || len(paths(done, Overwrote)) != 0 {
		t.Fatalf("forced Init: %q, %v", done, err)
	}
	if err := os.WriteFile(filepath.Join(root, "MEMORY.md"), []byte(strings.Replace(mustRead(t, filepath.Join(root, "MEMORY.md")), "\n", "\n\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	done, err = Init(root, InitOptions{Force: true})
	if err != nil || !reflect.DeepEqual(paths(done, Overwrote), []string{filepath.Join(root, "MEMORY.md")}) {
		t.Fatalf("forced Init of a reformatted template: %q, %v", done, err)
	}
	if got := mustRead(t, filepath.Join(root, "SOUL.md")); got != edited {
		t.Fatalf("SOUL.md after --force:\n%s", got)
	}
	// Another tool's SOUL.md (agent-handoff's, no header) gets our header
	// on top of every one of its bytes.
	theirs := "# SOUL.md\n\nI am mycoolbot.\n"
	if err := os.WriteFile(filepath.Join(root, "SOUL.md"), []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	if done, err = Init(root, InitOptions{Force: true}); err != nil || !reflect.DeepEqual(paths(done, Updated), []string{filepath.Join(root, "SOUL.md")}) {
		t.Fatal(done, err)
	}
	if got := mustRead(t, filepath.Join(root, "SOUL.md")); got != "<!-- session-handoff:memory v=1 layer=0 tag=soul -->\n"+theirs {
		t.Fatalf("SOUL.md after --force:\n%s", got)
	}
	if _, _, err := (Dir{root}).Read("SOUL.md"); err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{"a\nb", " x", strings.Repeat("n", 65), "\xff"} {
		if _, err := Init(filepath.Join(t.TempDir(), "m"), InitOptions{Name: name}); err == nil {
			t.Errorf("Init with name %q succeeded", name)
		}
	}
}

func TestWriteNoteAppendsNeverOverwrites(t *testing.T) {
	d := newDir(t)
	p := writeNote(t, d, Note{Layer: 1, Tag: "api", Date: "2026-03-05", HandoffID: strings.ToLower(testID), Body: "\n\nFixed the login bug.\x00\x1b\r\n  \n"})
	if p != filepath.Join(d.Root, "layer1", "2026-03", "api-2026-03-05.md") {
		t.Fatalf("path %s", p)
	}
	writeNote(t, d, Note{Tag: "api", Date: "2026-03-05", Body: "Second note\n\twith a tab."})
	writeNote(t, d, Note{Tag: "ui", Date: "2026-03-05", Body: "other tag"})
	want := "<!-- session-handoff:memory v=1 layer=1 tag=api date=2026-03-05 handoff=" + testID + " -->\n" +
		"# api: notes of 2026-03-05\n\n" +
		"<!-- entry date=2026-03-05 handoff=" + testID + " -->\n" +
		"Fixed the login bug.\n\n" +
		"<!-- entry date=2026-03-05 -->\n" +
		"Second note\n\twith a tab.\n"
	if got := mustRead(t, p); got != want {
		t.Fatalf("note:\n%s\nwant:\n%s", got, want)
	}
	info, err := os.Stat(p)
	if err != nil || info.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, %v", info.Mode(), err)
	}
	// A body that looks like markers stays one entry and reads back as
	// written.
	body := "<!-- entry date=2026-03-05 key=x -->\n\\<!-- entry y\n<!-- session-handoff:memory v=1 layer=2 -->\n"
	writeNote(t, d, Note{Tag: "api", Date: "2026-03-05", Body: body})
	_, doc, err := d.Read("layer1/2026-03/api-2026-03-05.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Entries) != 3 || doc.Entries[2].Body != body {
		t.Fatalf("entries %#v", doc.Entries)
	}
	// The root a writer made ignores the lock file.
	if gi := mustRead(t, filepath.Join(d.Root, ".gitignore")); gi != gitignore {
		t.Fatalf(".gitignore: %q", gi)
	}
	// The date defaults to today (either day when midnight passes during
	// the write).
	first := localDate()
	p = writeNote(t, d, Note{Tag: "api", Body: "today"})
	if !strings.HasSuffix(p, "api-"+first+".md") && !strings.HasSuffix(p, "api-"+localDate()+".md") {
		t.Fatalf("default date: %s", p)
	}
}

func TestKeysMakeWritesIdempotent(t *testing.T) {
	d := newDir(t)
	n := Note{Tag: "session", Date: "2026-03-05", Key: testID + "/note", Body: "once"}
	p := writeNote(t, d, n)
	before := mustRead(t, p)
	for range 2 {
		n.Body = "twice?"
		got, written, err := d.WriteNote(n)
		if err != nil || written || got != p {
			t.Fatalf("repeat: %s %v %v", got, written, err)
		}
	}
	if after := mustRead(t, p); after != before {
		t.Fatalf("file changed:\n%s", after)
	}
	writeNote(t, d, Note{Tag: "session", Date: "2026-03-05", Key: testID + "/other", Body: "another key"})
	// Archives too.
	a := Note{Layer: 3, Tag: "session", Date: "2026-03-07", Key: "k1", Body: "archived"}
	if _, written, err := d.WriteArchive(a); err != nil || !written {
		t.Fatal(written, err)
	}
	if _, written, err := d.WriteArchive(a); err != nil || written {
		t.Fatal(written, err)
	}
	_, doc, err := d.Read(ArchivePath("session", "2026-03"))
	if err != nil || len(doc.Entries) != 1 {
		t.Fatalf("%v %#v", err, doc)
	}
}

func TestWriteStateOverwrites(t *testing.T) {
	d := newDir(t)
	p, err := d.WriteState(testID, "first state")
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(d.Root, "layer2", "current-state.md") {
		t.Fatal(p)
	}
	first := localDate()
	if _, err := d.WriteState("", "## Now\n\nsecond state\n"); err != nil {
		t.Fatal(err)
	}
	want := func(date string) string {
		return "<!-- session-handoff:memory v=1 layer=2 date=" + date + " -->\n## Now\n\nsecond state\n"
	}
	if got := mustRead(t, p); got != want(first) && got != want(localDate()) {
		t.Fatalf("state:\n%q\nwant\n%q", got, want(first))
	}
	if _, _, err := d.Write(Note{Layer: 2, Date: "2026-01-02", HandoffID: testID, Body: "third"}); err != nil {
		t.Fatal(err)
	}
	f, doc, err := d.Read(StateFile)
	if err != nil || f.Date != "2026-01-02" || f.HandoffID != testID || doc.Text != "third\n" {
		t.Fatalf("%+v %#v %v", f, doc, err)
	}
	if _, _, err := d.Write(Note{Layer: 2, Tag: "x", Body: "y"}); err == nil {
		t.Fatal("layer 2 with a tag accepted")
	}
	hp, err := d.WriteHandoff(testID, "# Handoff\n\nrendered")
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, hp); !strings.HasPrefix(got, "<!-- session-handoff:memory v=1 layer=0 tag=handoff date=") || !strings.HasSuffix(got, " handoff="+testID+" -->\n# Handoff\n\nrendered\n") {
		t.Fatalf("HANDOFF.md:\n%s", got)
	}
}

func TestArchiveKeepsDateOrder(t *testing.T) {
	d := newDir(t)
	for _, n := range []struct{ date, body string }{
		{"2026-02-10", "ten a"}, {"2026-02-03", "three"}, {"2026-02-10", "ten b"}, {"2026-02-01", "one"}, {"2026-02-28", "last"},
	} {
		if _, _, err := d.Write(Note{Layer: 3, Tag: "api", Date: n.date, Body: n.body}); err != nil {
			t.Fatal(err)
		}
	}
	_, doc, err := d.Read("layer3/2026-02-api-archive.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range doc.Entries {
		got = append(got, e.Date+" "+trimBlank(e.Body))
	}
	want := []string{"2026-02-01 one", "2026-02-03 three", "2026-02-10 ten a", "2026-02-10 ten b", "2026-02-28 last"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order %q", got)
	}
	// Entries are separated by blank lines and the file ends in one newline.
	data := mustRead(t, filepath.Join(d.Root, "layer3", "2026-02-api-archive.md"))
	if !strings.Contains(data, "one\n\n<!-- entry date=2026-02-03 -->\nthree\n\n") || !strings.HasSuffix(data, "last\n") || strings.HasSuffix(data, "\n\n") {
		t.Fatalf("archive:\n%s", data)
	}
}

func TestHostileInputWritesNothing(t *testing.T) {
	d := newDir(t)
	writeNote(t, d, Note{Tag: "api", Date: "2026-03-05", Body: "existing"})
	if _, err := d.WriteState("", "state"); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, d.Root)
	good := Note{Layer: 1, Tag: "api", Date: "2026-03-05", Body: "x"}
	bad := []Note{}
	for _, tag := range []string{"../x", "a/b", "x\x00", "", "..", "a..b", "/etc", `a\b`} {
		n := good
		n.Tag = tag
		bad = append(bad, n)
		n.Layer = 3
		bad = append(bad, n)
	}
	for _, date := range []string{"2026-02-30", "2026-13-01", "2026-3-5", "../../../etc/x", "2026-03-05/../../x"} {
		n := good
		n.Date = date
		bad = append(bad, n)
		n.Layer = 3
		bad = append(bad, n)
		n.Layer, n.Tag = 2, ""
		bad = append(bad, n)
	}
	for _, body := range []string{"", " \n\t\n", "\x00\x01", "\xff\xfe", strings.Repeat("x", MaxBodySize+1)} {
		n := good
		n.Body = body
		bad = append(bad, n)
		n.Layer, n.Tag = 2, ""
		bad = append(bad, n)
	}
	bad = append(bad,
		Note{Layer: 1, Tag: "api", Date: "2026-03-05", Key: "a b", Body: "x"},
		Note{Layer: 1, Tag: "api", Date: "2026-03-05", Key: "x-->", Body: "x"},
		Note{Layer: 1, Tag: "api", Date: "2026-03-05", HandoffID: "../x", Body: "x"},
		Note{Layer: 2, HandoffID: "nope", Body: "x"},
		Note{Layer: 4, Tag: "api", Date: "2026-03-05", Body: "x"},
		Note{Layer: 0, Tag: "api", Date: "2026-03-05", Body: "x"},
	)
	for _, n := range bad {
		if p, _, err := d.Write(n); err == nil {
			t.Errorf("Write(%+.60v) succeeded: %s", n, p)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("error on two lines: %q", err)
		}
	}
	if _, err := d.WriteHandoff("bad id", "x"); err == nil {
		t.Error("WriteHandoff with a bad id succeeded")
	}
	if _, err := d.Compact("2026-13", 0, time.Now()); err == nil {
		t.Error("Compact with a bad month succeeded")
	}
	if _, err := d.Compact("", -1, time.Now()); err == nil {
		t.Error("Compact with negative keepDays succeeded")
	}
	for _, rel := range []string{"../x", "/etc/passwd", "layer1/../../x", "layer1/2026-03/../../../x.md", "layer2/../SOUL.md", "layer1/2026-04/api-2026-03-05.md", "notes.md", ""} {
		if _, _, err := d.Read(rel); err == nil {
			t.Errorf("Read(%q) succeeded", rel)
		}
	}
	if after := snapshot(t, d.Root); !reflect.DeepEqual(after, before) {
		t.Fatalf("tree changed:\n%v\n%v", before, after)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(d.Root), "x")); err == nil {
		t.Fatal("a file escaped the root")
	}
}

func TestDamagedFilesAreRefusedAndNamed(t *testing.T) {
	d := newDir(t)
	p := writeNote(t, d, Note{Tag: "api", Date: "2026-03-05", Body: "ok"})
	damaged := mustRead(t, p) + "<!-- entry date=2026-03-05 oops -->\n"
	if err := os.WriteFile(p, []byte(damaged), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := d.WriteNote(Note{Tag: "api", Date: "2026-03-05", Body: "more"})
	if err == nil || !strings.Contains(err.Error(), p+": line 6: entry marker") {
		t.Fatalf("got %v", err)
	}
	if mustRead(t, p) != damaged {
		t.Fatal("damaged file changed")
	}
	// A header that disagrees with the file name.
	q := writeNote(t, d, Note{Tag: "ui", Date: "2026-03-05", Body: "ok"})
	other := strings.Replace(mustRead(t, q), "tag=ui", "tag=uix", 1)
	if err := os.WriteFile(q, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.WriteNote(Note{Tag: "ui", Date: "2026-03-05", Body: "more"}); err == nil || !strings.Contains(err.Error(), "does not match its name") {
		t.Fatalf("got %v", err)
	}
	// Over the size limit.
	big := filepath.Join(d.Root, "layer1", "2026-03", "big-2026-03-05.md")
	data := "<!-- session-handoff:memory v=1 layer=1 tag=big date=2026-03-05 -->\n" + strings.Repeat("x", MaxFileSize)
	if err := os.WriteFile(big, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.WriteNote(Note{Tag: "big", Date: "2026-03-05", Body: "more"}); err == nil || !strings.Contains(err.Error(), big+": over the 4 MiB limit") {
		t.Fatalf("got %v", err)
	}
	// List names each problem and still lists the rest.
	files, err := d.List(1, "")
	if err != nil {
		t.Fatal(err)
	}
	problems := 0
	for _, f := range files {
		if f.Problem != "" {
			problems++
		}
	}
	if len(files) != 3 || problems != 3 {
		t.Fatalf("list: %+v", files)
	}
	// Compact refuses too, before writing anything.
	before := snapshot(t, d.Root)
	if _, err := d.Compact("2026-03", 0, time.Now()); err == nil {
		t.Fatal("Compact over damaged notes succeeded")
	}
	if after := snapshot(t, d.Root); !reflect.DeepEqual(after, before) {
		t.Fatal("Compact changed the tree")
	}
}

func TestSymlinksOutOfTheRootAreRefused(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(base, "project")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	note := Note{Tag: "api", Date: "2026-03-05", Body: "x"}
	refused := func(t *testing.T, d Dir) {
		t.Helper()
		before := snapshot(t, base)
		if _, _, err := d.WriteNote(note); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("WriteNote: %v", err)
		}
		if _, _, err := d.WriteArchive(note); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("WriteArchive: %v", err)
		}
		if _, err := d.WriteState("", "x"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("WriteState: %v", err)
		}
		if after := snapshot(t, base); !reflect.DeepEqual(after, before) {
			t.Fatalf("tree changed:\n%v\n%v", before, after)
		}
	}

	t.Run("root", func(t *testing.T) {
		root := filepath.Join(project, "memory")
		if err := os.Symlink(outside, root); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(root)
		refused(t, Dir{root})
		if _, err := dirAt(root).WriteHandoff("", "x"); err == nil {
			t.Fatal("WriteHandoff through the root link")
		}
		if _, err := Init(root, InitOptions{}); err == nil {
			t.Fatal("Init through the root link")
		}
	})
	t.Run("layer dir", func(t *testing.T) {
		root := filepath.Join(project, "memory")
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(root)
		for _, l := range []string{"layer1", "layer2", "layer3"} {
			if err := os.Symlink(outside, filepath.Join(root, l)); err != nil {
				t.Fatal(err)
			}
		}
		refused(t, Dir{root})
		if _, err := dirAt(root).List(0, ""); err == nil {
			t.Fatal("List followed a link out of the root")
		}
	})
	t.Run("month dir", func(t *testing.T) {
		root := filepath.Join(project, "memory")
		if err := os.MkdirAll(filepath.Join(root, "layer1"), 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(root)
		if err := os.Symlink("../../../outside", filepath.Join(root, "layer1", "2026-03")); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, base)
		if _, _, err := dirAt(root).WriteNote(note); err == nil || !strings.Contains(err.Error(), "outside the memory root") {
			t.Fatalf("WriteNote: %v", err)
		}
		if after := snapshot(t, base); !reflect.DeepEqual(after, before) {
			t.Fatal("tree changed")
		}
	})
	t.Run("file", func(t *testing.T) {
		root := filepath.Join(project, "memory")
		secret := filepath.Join(outside, "secret")
		if err := os.WriteFile(secret, []byte("<!-- session-handoff:memory v=1 layer=2 -->\nsecret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, "layer2"), 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(root)
		if err := os.Symlink(secret, filepath.Join(root, "layer2", "current-state.md")); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, base)
		if _, err := dirAt(root).WriteState("", "x"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("WriteState: %v", err)
		}
		if _, _, err := dirAt(root).Read(StateFile); err == nil {
			t.Fatal("Read followed a file link")
		}
		if after := snapshot(t, base); !reflect.DeepEqual(after, before) {
			t.Fatal("tree changed")
		}
	})
	t.Run("links inside are followed", func(t *testing.T) {
		// A root linked to a directory beside it, and a layer directory
		// linked within the root, stay inside: they are used.
		real := filepath.Join(project, "real-memory")
		if err := os.MkdirAll(filepath.Join(real, "notes"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("notes", filepath.Join(real, "layer1")); err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(project, "memory")
		if err := os.Symlink("real-memory", root); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(root)
		writeNote(t, Dir{root}, note)
		if _, err := os.Stat(filepath.Join(real, "notes", "2026-03", "api-2026-03-05.md")); err != nil {
			t.Fatal(err)
		}
	})
}

func dirAt(root string) Dir { return Dir{Root: root} }

func TestList(t *testing.T) {
	d := newDir(t)
	if _, err := d.List(0, ""); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing root: %v", err)
	}
	if _, err := Init(d.Root, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	writeNote(t, d, Note{Tag: "api", Date: "2026-03-05", HandoffID: testID, Body: "a"})
	writeNote(t, d, Note{Tag: "api", Date: "2026-03-05", Body: "b"})
	writeNote(t, d, Note{Tag: "ui", Date: "2026-02-01", Body: "c"})
	if _, _, err := d.WriteArchive(Note{Tag: "api", Date: "2026-01-09", Body: "d"}); err != nil {
		t.Fatal(err)
	}
	first := localDate()
	if _, err := d.WriteState("", "s"); err != nil {
		t.Fatal(err)
	}
	last := localDate()
	// Stray files are not listed.
	testsys.Check(t, os.WriteFile(filepath.Join(d.Root, "layer1", "README.md"), []byte("x"), 0o644))
	testsys.Check(t, os.WriteFile(filepath.Join(d.Root, "layer1", "2026-03", "notes.txt"), []byte("x"), 0o644))
	files, err := d.List(0, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, fmt.Sprintf("%d %s %s %s %s %d", f.Layer, f.Path, f.Tag, f.Date, f.HandoffID, f.Entries))
		if f.Size <= 0 || f.Problem != "" {
			t.Errorf("%+v", f)
		}
	}
	want := func(today string) []string {
		return []string{
			"0 HANDOFF.md handoff   0", "0 MEMORY.md memory   0", "0 SOUL.md soul   0",
			"1 layer1/2026-02/ui-2026-02-01.md ui 2026-02-01  1",
			"1 layer1/2026-03/api-2026-03-05.md api 2026-03-05 " + testID + " 2",
			"2 layer2/current-state.md  " + today + "  0",
			"3 layer3/2026-01-api-archive.md api 2026-01  1",
		}
	}
	if !reflect.DeepEqual(got, want(first)) && !reflect.DeepEqual(got, want(last)) {
		t.Fatalf("list\n%q\nwant\n%q", got, want(first))
	}
	if files, _ := d.List(0, "api"); len(files) != 2 {
		t.Fatalf("tag filter: %+v", files)
	}
	if files, _ := d.List(3, ""); len(files) != 1 || files[0].Layer != 3 {
		t.Fatalf("layer filter: %+v", files)
	}
	if _, err := d.List(4, ""); err == nil {
		t.Fatal("layer 4 listed")
	}
	// Tags compare without regard to case.
	if files, _ := d.List(0, "API"); len(files) != 2 {
		t.Fatalf("tag filter API: %+v", files)
	}
	if _, err := d.List(0, "a b"); err == nil {
		t.Fatal("bad tag listed")
	}
}

// init --force never removes a line of an existing .gitignore (the memory
// root may be the project root): it adds what it needs, once.
func TestInitForceMergesGitignore(t *testing.T) {
	root := t.TempDir()
	user := "node_modules/\n# build output\ndist\n*.log"
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(root, InitOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	got := mustRead(t, filepath.Join(root, ".gitignore"))
	if want := user + "\n" + gitignore; got != want {
		t.Fatalf(".gitignore:\n%q\nwant\n%q", got, want)
	}
	// Again: nothing more is added, and .gitignore is not reported.
	done, err := Init(root, InitOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if again := mustRead(t, filepath.Join(root, ".gitignore")); again != got {
		t.Fatalf("second init changed .gitignore: %q", again)
	}
	for _, c := range done {
		if strings.HasSuffix(c.Path, ".gitignore") {
			t.Fatalf("second init reported %s", c)
		}
	}
	// A .gitignore that already ignores the lock file gets nothing, not
	// even the comment.
	root2 := t.TempDir()
	if err := os.WriteFile(filepath.Join(root2, ".gitignore"), []byte(LockFile+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(root2, InitOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, filepath.Join(root2, ".gitignore")); got != LockFile+"\n" {
		t.Fatalf(".gitignore: %q", got)
	}
}

// TestTagsCompareWithoutCase: agent-handover kept a tag's case in its file
// names (Team-API-2026-09-02.md); that note is listed by its tag in any
// case, a write of the same tag in another case goes into it rather than
// into a second file of the same day, and compaction archives it.
func TestTagsCompareWithoutCase(t *testing.T) {
	d := newDir(t)
	old := filepath.Join(d.Root, "layer1", "2026-09", "Team-API-2026-09-02.md")
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("<!-- agent-handover | layer1 | 2026-09-02 -->\nfirst\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := d.List(0, "team-api")
	if err != nil || len(files) != 1 || files[0].Tag != "Team-API" || files[0].Problem != "" {
		t.Fatalf("List(team-api) = %+v, %v", files, err)
	}
	p, _, err := d.WriteNote(Note{Tag: "team-api", Date: "2026-09-02", Body: "second"})
	if err != nil || p != old {
		t.Fatalf("WriteNote = %s, %v; want %s", p, err, old)
	}
	if _, err := d.Compact("2026-09", 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	files, err = d.List(3, "TEAM-API")
	if err != nil || len(files) != 1 || files[0].Path != "layer3/2026-09-Team-API-archive.md" || files[0].Entries != 2 {
		t.Fatalf("archive: %+v, %v", files, err)
	}
	// A missing layer2/current-state.md is not a file to list.
	all, err := d.List(0, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if f.Layer == 2 {
			t.Fatalf("missing state listed: %+v", f)
		}
	}
}
