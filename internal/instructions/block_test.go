package instructions

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

const (
	blkBegin = BlockBegin
	blkEnd   = BlockEnd
)

// markerCounts counts the lines of content that are begin and end markers.
func markerCounts(content []byte) (begins, ends int) {
	for _, line := range bytes.Split(content, []byte("\n")) {
		switch kindOf(line) {
		case beginMarker:
			begins++
		case endMarker:
			ends++
		}
	}
	return begins, ends
}

// checkBlockProperties checks what must hold for any content and body; the
// property test and the fuzz target share it.
func checkBlockProperties(t testing.TB, c []byte, body string) {
	t.Helper()
	orig := bytes.Clone(c)
	out, err := InsertBlock(c, body)
	start, end, found, ferr := findBlock(c)
	if ferr != nil {
		// Damaged: both functions refuse, with the same kind of error.
		if !errors.Is(err, ErrDamagedBlock) || !errors.Is(ferr, ErrDamagedBlock) {
			t.Fatalf("damaged content %q: InsertBlock error %v", c, err)
		}
		if _, _, rerr := RemoveBlock(c); !errors.Is(rerr, ErrDamagedBlock) {
			t.Fatalf("damaged content %q: RemoveBlock error %v", c, rerr)
		}
		return
	}
	if err != nil {
		t.Fatalf("InsertBlock(%q, %q): %v", c, body, err)
	}
	if !bytes.Equal(c, orig) {
		t.Fatalf("InsertBlock changed its input: %q, was %q", c, orig)
	}
	if b, e := markerCounts(out); b != 1 || e != 1 {
		t.Fatalf("InsertBlock(%q, %q) = %q: %d begin and %d end markers, want one each", c, body, out, b, e)
	}
	// Idempotent, and a new body replaces any old one completely.
	again, err := InsertBlock(out, body)
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("second InsertBlock(%q) = %q, %v; want %q", body, again, err, out)
	}
	other, err := InsertBlock(out, "other\n")
	want, _ := InsertBlock(c, "other\n")
	if err != nil || !bytes.Equal(other, want) {
		t.Fatalf("replacing body %q by another gave %q, %v; want %q", body, other, err, want)
	}
	removed, had, err := RemoveBlock(out)
	if err != nil || !had {
		t.Fatalf("RemoveBlock(%q) = %v, %v", out, had, err)
	}
	if found {
		// Replaced in place: the text around the old block is kept byte
		// for byte, and removing gives what removing the old block gave.
		if !bytes.HasPrefix(out, c[:start]) || !bytes.HasSuffix(out[start:], c[end:]) {
			t.Fatalf("InsertBlock(%q) = %q: text around the block [%d:%d] not kept", c, out, start, end)
		}
		old, _, _ := RemoveBlock(c)
		if !bytes.Equal(removed, old) {
			t.Fatalf("RemoveBlock after replace = %q, want %q", removed, old)
		}
		return
	}
	if !bytes.Equal(removed, c) {
		t.Fatalf("RemoveBlock(InsertBlock(%q, %q)) = %q", c, body, removed)
	}
	if r, had, err := RemoveBlock(c); err != nil || had || !bytes.Equal(r, c) {
		t.Fatalf("RemoveBlock without a block = %q, %v, %v", r, had, err)
	}
}

func TestInsertBlockAppends(t *testing.T) {
	for _, tc := range []struct{ content, body, want string }{
		{"", "hello", blkBegin + "\nhello\n" + blkEnd + "\n"},
		{"", "", blkBegin + "\n" + blkEnd + "\n"},
		// A blank line between the user's text and the block.
		{"# Rules\n", "hello\n", "# Rules\n\n" + blkBegin + "\nhello\n" + blkEnd + "\n"},
		// The user's last line is ended, nothing more.
		{"# Rules", "hello\n", "# Rules\n" + blkBegin + "\nhello\n" + blkEnd + "\n"},
		// A CRLF file gets CRLF markers and separator; the body is as given
		// except for its missing last line ending.
		{"a\r\nb\r\n", "x\ny", "a\r\nb\r\n\r\n" + blkBegin + "\r\nx\ny\r\n" + blkEnd + "\r\n"},
		// After a trailing "\r", the separator is "\r\n" whatever the file's style.
		{"a\r", "x\n", "a\r\r\n" + blkBegin + "\nx\n" + blkEnd + "\n"},
		{"\n", "x\n", "\n\n" + blkBegin + "\nx\n" + blkEnd + "\n"},
	} {
		out, err := InsertBlock([]byte(tc.content), tc.body)
		if err != nil || string(out) != tc.want {
			t.Errorf("InsertBlock(%q, %q) = %q, %v\nwant %q", tc.content, tc.body, out, err, tc.want)
			continue
		}
		back, had, err := RemoveBlock(out)
		if err != nil || !had || string(back) != tc.content {
			t.Errorf("RemoveBlock(%q) = %q, %v, %v; want %q", out, back, had, err, tc.content)
		}
	}
}

func TestInsertBlockExactInverse(t *testing.T) {
	contents := []string{
		"", "\n", "\n\n", "\r\n", "\r", "\r\r", " ", "x", "x\n", "x\n\n", "x\r\n", "x\r\n\r\n",
		"x\r", "x\n\r", "mixed\r\nendings\nhere", "no final newline\nsecond line",
		"tabs\t\n  \n", "unicode ✓ € \u2028\n", "\xff\xfe invalid utf-8", "\x00nul\x00",
		"prose that mentions " + blkBegin + " mid-line\n",
		"`" + blkEnd + "`\n",
	}
	bodies := []string{"", "x", "x\n", "a\r\nb", "\n\n", "line\n" + blkEnd + "\nafter\n", blkBegin + "\r"}
	for _, c := range contents {
		for _, b := range bodies {
			checkBlockProperties(t, []byte(c), b)
		}
	}
}

func TestInsertBlockReplacesInPlace(t *testing.T) {
	for _, tc := range []struct{ content, want string }{
		// Markers with spaces and CRLF; text after the block without a
		// final newline; both kept byte for byte.
		{"intro\r\n  " + blkBegin + " \t\r\nold body\nmore\n\t" + blkEnd + "\r\nafter, no newline",
			"intro\r\n" + blkBegin + "\r\nnew\r\n" + blkEnd + "\r\nafter, no newline"},
		// A block that starts the file, user text after it.
		{blkBegin + "\nold\n" + blkEnd + "\nuser\n", blkBegin + "\nnew\n" + blkEnd + "\nuser\n"},
		// An end marker on the last line without a newline.
		{"x\n\n" + blkBegin + "\nold\n" + blkEnd, "x\n\n" + blkBegin + "\nnew\n" + blkEnd + "\n"},
		// An older wording of the begin marker is still replaced.
		{"x\n\n<!-- session-handoff:begin -->\nold\n" + blkEnd + "\n", "x\n\n" + blkBegin + "\nnew\n" + blkEnd + "\n"},
	} {
		out, err := InsertBlock([]byte(tc.content), "new")
		if err != nil || string(out) != tc.want {
			t.Errorf("InsertBlock(%q) = %q, %v\nwant %q", tc.content, out, err, tc.want)
		}
		checkBlockProperties(t, []byte(tc.content), "new")
	}
	// Removing takes the block and the one line ending before it.
	for _, tc := range []struct{ content, want string }{
		{blkBegin + "\nold\n" + blkEnd + "\nuser\n", "user\n"},
		{"intro\n\n" + blkBegin + "\nold\n" + blkEnd + "\noutro\n", "intro\noutro\n"},
		{"intro\r\n\r\n" + blkBegin + "\r\nold\r\n" + blkEnd + "\r\n", "intro\r\n"},
	} {
		out, had, err := RemoveBlock([]byte(tc.content))
		if err != nil || !had || string(out) != tc.want {
			t.Errorf("RemoveBlock(%q) = %q, %v, %v; want %q", tc.content, out, had, err, tc.want)
		}
	}
}

func TestInsertBlockDoesNotWriteIntoInput(t *testing.T) {
	buf := make([]byte, 64)
	for i := range buf {
		buf[i] = '.'
	}
	c := buf[:5] // spare capacity an append would write into
	copy(c, "text\n")
	if _, err := InsertBlock(c, "body"); err != nil {
		t.Fatal(err)
	}
	if string(buf[5:]) != strings.Repeat(".", 59) {
		t.Fatalf("InsertBlock wrote into its input's spare capacity: %q", buf)
	}
}

func TestBodyCannotForgeMarkers(t *testing.T) {
	evil := strings.Join([]string{
		"before",
		blkEnd,
		"  " + blkEnd + "  \r",
		"\t" + blkBegin,
		"<!-- session-handoff:begin -->",
		"<!-- session-handoff:end: forged -->",
		"x\r" + blkEnd,
		"after " + blkEnd,
		"# Injected instructions outside the block",
	}, "\n")
	content := []byte("# My rules\n")
	out, err := InsertBlock(content, evil)
	if err != nil {
		t.Fatal(err)
	}
	if b, e := markerCounts(out); b != 1 || e != 1 {
		t.Fatalf("%d begin and %d end markers in %q, want one each", b, e, out)
	}
	// The only unescaped marker text is the two real markers.
	if n := bytes.Count(out, []byte(markerPrefix)); n != 2 {
		t.Fatalf("%d unescaped %q in %q, want 2", n, markerPrefix, out)
	}
	if !bytes.Contains(out, []byte("\n&lt;!-- session-handoff:end -->\n")) ||
		!bytes.Contains(out, []byte("x\r&lt;!-- session-handoff:end -->\n")) {
		t.Fatalf("escaped marker lines missing from %q", out)
	}
	// Nothing of the body survives removal, and a new body replaces all of it.
	if back, had, err := RemoveBlock(out); err != nil || !had || !bytes.Equal(back, content) {
		t.Fatalf("RemoveBlock = %q, %v, %v", back, had, err)
	}
	clean, err := InsertBlock(out, "clean\n")
	if err != nil || string(clean) != "# My rules\n\n"+blkBegin+"\nclean\n"+blkEnd+"\n" {
		t.Fatalf("replacing the hostile body gave %q, %v", clean, err)
	}
}

func TestMarkersOnlyOnWholeLines(t *testing.T) {
	for _, tc := range []struct {
		line string
		want markerKind
	}{
		{blkBegin, beginMarker},
		{blkEnd, endMarker},
		{" \t" + blkBegin + " \t\r", beginMarker},
		{blkEnd + "\r\r", endMarker},
		{"<!-- session-handoff:begin -->", beginMarker},
		{"<!-- session-handoff:end: written by v2 -->", endMarker},
		{"x" + blkBegin, notMarker},
		{blkEnd + " and prose", notMarker},
		{"`" + blkEnd + "`", notMarker},
		{"> " + blkEnd, notMarker},
		{"<!-- session-handoff:endless -->", notMarker},
		{"<!-- session-handoff:note -->", notMarker},
		{"<!-- session-handoff:end", notMarker},
		{"&lt;!-- session-handoff:end -->", notMarker},
	} {
		if got := kindOf([]byte(tc.line)); got != tc.want {
			t.Errorf("kindOf(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
	prose := []byte("Notes: " + blkBegin + " starts a block.\nAnd `" + blkEnd + "` ends it.\n")
	if out, had, err := RemoveBlock(prose); err != nil || had || !bytes.Equal(out, prose) {
		t.Fatalf("RemoveBlock(prose) = %q, %v, %v", out, had, err)
	}
	out, err := InsertBlock(prose, "body")
	if err != nil || !bytes.HasPrefix(out, append(bytes.Clone(prose), '\n')) {
		t.Fatalf("InsertBlock(prose) = %q, %v; want the block appended", out, err)
	}
	checkBlockProperties(t, prose, "body")
}

var damagedCases = []struct {
	name, content, detail string
}{
	{"begin without end", "a\n" + blkBegin + "\nbody\n", "begin marker on line 2 has no end marker"},
	{"end before begin", blkEnd + "\n" + blkBegin + "\n" + blkEnd + "\n", "end marker on line 1 comes before any begin marker"},
	{"end alone", "text\n  " + blkEnd + "\r\n", "end marker on line 2 comes before any begin marker"},
	{"two blocks", blkBegin + "\n" + blkEnd + "\nmid\n" + blkBegin + "\n" + blkEnd + "\n", "second block begins on line 4"},
	{"nested", blkBegin + "\n" + blkBegin + "\n" + blkEnd + "\n" + blkEnd + "\n", "begin marker on line 1 has no end marker before another begin marker on line 2"},
	{"two ends", blkBegin + "\n" + blkEnd + "\n" + blkEnd + "\n", "second end marker is on line 3"},
}

func TestDamagedBlocks(t *testing.T) {
	for _, tc := range damagedCases {
		t.Run(tc.name, func(t *testing.T) {
			c := []byte(tc.content)
			_, err := InsertBlock(c, "x")
			checkDamaged(t, err, tc.detail)
			_, _, err = RemoveBlock(c)
			checkDamaged(t, err, tc.detail)

			p := filepath.Join(t.TempDir(), "AGENTS.md")
			writeFixture(t, p, tc.content, 0o644)
			f := BlockFile{Path: p}
			_, err = f.Write(func(int) (string, error) {
				t.Fatal("body called for a damaged file")
				return "", nil
			})
			checkDamaged(t, err, tc.detail)
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error does not name the file: %v", err)
			}
			_, err = f.Remove()
			checkDamaged(t, err, tc.detail)
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error does not name the file: %v", err)
			}
			if got := readFixture(t, p); got != tc.content {
				t.Errorf("damaged file changed to %q", got)
			}
			assertOnlyFiles(t, filepath.Dir(p), "AGENTS.md")
		})
	}
}

func checkDamaged(t *testing.T, err error, detail string) {
	t.Helper()
	if !errors.Is(err, ErrDamagedBlock) {
		t.Fatalf("error %v, want ErrDamagedBlock", err)
	}
	if msg := err.Error(); !strings.Contains(msg, detail) || !strings.Contains(msg, "remove the session-handoff markers by hand") {
		t.Fatalf("error %q lacks %q or the fix", msg, detail)
	}
}

func TestInsertRemoveProperty(t *testing.T) {
	pieces := []string{"", "a", "word ", "\n", "\r\n", "\r", " ", "\t", "\n\n",
		blkBegin, blkEnd, "  " + blkEnd + " ", markerPrefix, "-->", "<!-- session-handoff:begin -->", "&lt;", "✓"}
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(most int) string {
		var sb strings.Builder
		for range rng.IntN(most + 1) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return sb.String()
	}
	inverse := 0
	for range 20000 {
		c, body := gen(8), gen(6)
		checkBlockProperties(t, []byte(c), body)
		if b, e := markerCounts([]byte(c)); b == 0 && e == 0 {
			inverse++
		}
	}
	// The generator must exercise the exact-inverse case, not only damage.
	if inverse < 5000 {
		t.Fatalf("only %d generated contents were without markers", inverse)
	}
}

// writeFixture writes a test file with exactly the given mode.
func writeFixture(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func readFixture(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// assertOnlyFiles checks that dir holds exactly the named entries: no lock
// file, no temporary file left behind.
func assertOnlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Fatalf("%s holds %q, want %q", dir, got, names)
	}
}

func fixedBody(s string) func(int) (string, error) {
	return func(int) (string, error) { return s, nil }
}

func TestWriteCreatesWithHeaderAndRemoveDeletes(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".cursor", "rules", "handoff.mdc")
	header := "---\nalwaysApply: true\n---\n"
	f := BlockFile{Path: p, Header: header}
	changed, err := f.Write(fixedBody("first\n"))
	if err != nil || !changed {
		t.Fatalf("Write = %v, %v", changed, err)
	}
	if got, want := readFixture(t, p), header+"\n"+blkBegin+"\nfirst\n"+blkEnd+"\n"; got != want {
		t.Fatalf("created %q, want %q", got, want)
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != 0o644 {
		t.Fatalf("new file mode %v, want 0644", info.Mode().Perm())
	}
	if st, err := os.Stat(filepath.Dir(p)); err != nil || !st.IsDir() {
		t.Fatalf("parent directory: %v", err)
	}

	// The same body again: reported unchanged and not rewritten (the
	// atomic rename of a rewrite would give a new inode).
	changed, err = f.Write(fixedBody("first\n"))
	if err != nil || changed {
		t.Fatalf("same Write = %v, %v; want unchanged", changed, err)
	}
	if again, _ := os.Stat(p); !os.SameFile(info, again) {
		t.Fatal("unchanged file was rewritten")
	}

	// A new body replaces the old; the header is not written twice.
	if changed, err = f.Write(fixedBody("second")); err != nil || !changed {
		t.Fatalf("Write = %v, %v", changed, err)
	}
	if got, want := readFixture(t, p), header+"\n"+blkBegin+"\nsecond\n"+blkEnd+"\n"; got != want {
		t.Fatalf("replaced %q, want %q", got, want)
	}
	assertOnlyFiles(t, filepath.Dir(p), "handoff.mdc")

	// What remains is the header we wrote: the file goes.
	if changed, err = f.Remove(); err != nil || !changed {
		t.Fatalf("Remove = %v, %v", changed, err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("file left after Remove: %v", err)
	}
	assertOnlyFiles(t, filepath.Dir(p))
	if changed, err = f.Remove(); err != nil || changed {
		t.Fatalf("Remove of a missing file = %v, %v", changed, err)
	}
	if changed, err = (BlockFile{Path: filepath.Join(root, "no", "such", "dir", "X.md")}).Remove(); err != nil || changed {
		t.Fatalf("Remove in a missing directory = %v, %v", changed, err)
	}
}

func TestWriteKeepsUserTextAndMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "AGENTS.md")
	user := "# Project\r\nRules, no final newline"
	writeFixture(t, p, user, 0o600)
	f := BlockFile{Path: p, Header: "unused: the file exists\n"}
	if changed, err := f.Write(fixedBody("handoff\n")); err != nil || !changed {
		t.Fatalf("Write = %v, %v", changed, err)
	}
	if got, want := readFixture(t, p), user+"\r\n"+blkBegin+"\r\nhandoff\n"+blkEnd+"\r\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600 kept", info.Mode().Perm())
	}
	// The user adds text after the block; a new Write keeps it.
	withMore := readFixture(t, p) + "## Added later\r\n"
	writeFixture(t, p, withMore, 0o600)
	if _, err := f.Write(fixedBody("newer\n")); err != nil {
		t.Fatal(err)
	}
	if got, want := readFixture(t, p), user+"\r\n"+blkBegin+"\r\nnewer\n"+blkEnd+"\r\n## Added later\r\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	writeFixture(t, p, strings.TrimSuffix(readFixture(t, p), "## Added later\r\n"), 0o600)

	// Remove gives the user's file back exactly, mode included, and keeps it.
	if changed, err := f.Remove(); err != nil || !changed {
		t.Fatalf("Remove = %v, %v", changed, err)
	}
	if got := readFixture(t, p); got != user {
		t.Fatalf("after Remove %q, want %q", got, user)
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v after Remove", info.Mode().Perm())
	}
	// No block: nothing to do, nothing rewritten.
	if changed, err := f.Remove(); err != nil || changed {
		t.Fatalf("Remove without a block = %v, %v", changed, err)
	}
	if again, _ := os.Stat(p); !os.SameFile(info, again) {
		t.Fatal("file without a block was rewritten")
	}
	assertOnlyFiles(t, dir, "AGENTS.md")
}

func TestWriteFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "AGENTS.md")
	claude := filepath.Join(dir, "CLAUDE.md")
	writeFixture(t, agents, "# Shared rules\n", 0o644)
	if err := os.Symlink("AGENTS.md", claude); err != nil {
		t.Fatal(err)
	}
	f := BlockFile{Path: claude}
	lockPath := filepath.Join(dir, ".AGENTS.md.session-handoff.lock")
	_, err := f.Write(func(int) (string, error) {
		// Writers through either name share the target's lock.
		assertLocked(t, lockPath)
		return "body\n", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if dest, err := os.Readlink(claude); err != nil || dest != "AGENTS.md" {
		t.Fatalf("CLAUDE.md is no longer the link: %q, %v", dest, err)
	}
	if got, want := readFixture(t, agents), "# Shared rules\n\n"+blkBegin+"\nbody\n"+blkEnd+"\n"; got != want {
		t.Fatalf("AGENTS.md = %q, want %q", got, want)
	}
	if changed, err := f.Remove(); err != nil || !changed {
		t.Fatalf("Remove = %v, %v", changed, err)
	}
	if got := readFixture(t, agents); got != "# Shared rules\n" {
		t.Fatalf("AGENTS.md after Remove = %q", got)
	}
	if dest, _ := os.Readlink(claude); dest != "AGENTS.md" {
		t.Fatal("link lost by Remove")
	}
	assertOnlyFiles(t, dir, "AGENTS.md", "CLAUDE.md")

	// A link to a missing file in a missing directory, through "..":
	// the target is created, the link kept.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(sub, "GEMINI.md")
	if err := os.Symlink("../docs/GEMINI.md", link); err != nil {
		t.Fatal(err)
	}
	if _, err := (BlockFile{Path: link}).Write(fixedBody("x\n")); err != nil {
		t.Fatal(err)
	}
	if got := readFixture(t, filepath.Join(dir, "docs", "GEMINI.md")); got != blkBegin+"\nx\n"+blkEnd+"\n" {
		t.Fatalf("target created with %q", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v", err)
	}
	// Removing the only content removes the target, and keeps the
	// (now dangling) link, which is the user's.
	if changed, err := (BlockFile{Path: link}).Remove(); err != nil || !changed {
		t.Fatalf("Remove = %v, %v", changed, err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Fatalf("link removed: %v", err)
	}

	// A loop of links is an error naming the file.
	a, b := filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md")
	testsys.Check(t, os.Symlink("b.md", a))
	testsys.Check(t, os.Symlink("a.md", b))
	if _, err := (BlockFile{Path: a}).Write(fixedBody("x")); err == nil || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), "symbolic links") {
		t.Fatalf("link loop: %v", err)
	}
}

// assertLocked checks that the lock on path is held by someone else.
func assertLocked(t *testing.T, path string) {
	t.Helper()
	lf, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Errorf("lock file: %v", err)
		return
	}
	defer lf.Close()
	if err := safefile.Flock(lf, true); !errors.Is(err, safefile.ErrLocked) {
		t.Errorf("lock %s not held during the write: %v", path, err)
	}
}

func TestWriteHoldsTheLock(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "CLAUDE.md")
	lockPath := filepath.Join(dir, ".CLAUDE.md.session-handoff.lock")
	called := false
	_, err := BlockFile{Path: p}.Write(func(int) (string, error) {
		called = true
		assertLocked(t, lockPath)
		return "x", nil
	})
	if err != nil || !called {
		t.Fatalf("Write = %v (body called: %v)", err, called)
	}
	// The lock file is ours and goes with the lock.
	assertOnlyFiles(t, dir, "CLAUDE.md")

	// Remove takes the same lock (the hook runs as it opens the lock file).
	held := false
	testHookLockOpened = func() { held = true }
	defer func() { testHookLockOpened = nil }()
	if changed, err := (BlockFile{Path: p}).Remove(); err != nil || !changed || !held {
		t.Fatalf("Remove = %v, %v; lock taken: %v", changed, err, held)
	}
	assertOnlyFiles(t, dir)
}

// TestLockFileRemovedWhileWaiting plays a writer that unlocks, and so
// removes or replaces the lock file, just after Write opened it: a lock on
// that orphaned file would exclude nobody, so Write must lock the file now
// at the path instead.
func TestLockFileRemovedWhileWaiting(t *testing.T) {
	for _, replace := range []bool{false, true} {
		dir := t.TempDir()
		p := filepath.Join(dir, "AGENTS.md")
		lockPath := filepath.Join(dir, ".AGENTS.md.session-handoff.lock")
		opened := 0
		testHookLockOpened = func() {
			opened++
			if opened > 1 {
				return
			}
			if err := os.Remove(lockPath); err != nil {
				t.Error(err)
			}
			if replace {
				writeFixture(t, lockPath, "", 0o600)
			}
		}
		_, err := BlockFile{Path: p}.Write(func(int) (string, error) {
			if opened != 2 {
				t.Errorf("replace %v: in the body after opening the lock file %d times, want 2", replace, opened)
			}
			assertLocked(t, lockPath)
			return "x", nil
		})
		testHookLockOpened = nil
		if err != nil {
			t.Fatal(err)
		}
		assertOnlyFiles(t, dir, "AGENTS.md")
	}
}

func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "AGENTS.md")
	user := "# Mine\n"
	writeFixture(t, p, user, 0o644)
	var inside, overlaps atomic.Int32
	var wg sync.WaitGroup
	bodies := []string{"alpha\n", "beta\n", "gamma\n", "delta\n"}
	for i := range 8 {
		wg.Go(func() {
			f := BlockFile{Path: p, MaxSize: 4096}
			for j := range 10 {
				if (i+j)%3 == 2 {
					if _, err := f.Remove(); err != nil {
						t.Error(err)
					}
					continue
				}
				_, err := f.Write(func(int) (string, error) {
					if inside.Add(1) != 1 {
						overlaps.Add(1)
					}
					defer inside.Add(-1)
					return bodies[(i+j)%len(bodies)], nil
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if n := overlaps.Load(); n != 0 {
		t.Fatalf("%d writers ran at the same time", n)
	}
	got := readFixture(t, p)
	ok := got == user
	for _, b := range bodies {
		want, _ := InsertBlock([]byte(user), b)
		ok = ok || got == string(want)
	}
	if !ok {
		t.Fatalf("after concurrent writers: %q", got)
	}
	assertOnlyFiles(t, dir, "AGENTS.md")
}

func TestWriteMaxSize(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "AGENTS.md")
	user := "# Rules\n"
	writeFixture(t, p, user, 0o644)
	const maxSize = 300
	// Everything but the body: the user's text, the blank line, the
	// markers and their newlines; one more byte is kept back for the
	// newline the body gets if it has none.
	wantRoom := maxSize - len(user) - 1 - len(blkBegin) - 1 - len(blkEnd) - 1 - 1
	f := BlockFile{Path: p, MaxSize: maxSize}

	var gotRoom int
	if _, err := f.Write(func(room int) (string, error) {
		gotRoom = room
		return strings.Repeat("x", room), nil
	}); err != nil {
		t.Fatal(err)
	}
	if gotRoom != wantRoom {
		t.Fatalf("room = %d, want %d", gotRoom, wantRoom)
	}
	if got := readFixture(t, p); len(got) != maxSize {
		t.Fatalf("a body of exactly room bytes gave a file of %d bytes, want %d", len(got), maxSize)
	}
	full := readFixture(t, p)

	// The old block does not count: room is the same with it present.
	gotRoom = -2
	_, err := f.Write(func(room int) (string, error) {
		gotRoom = room
		return strings.Repeat("y", room+1), nil
	})
	if gotRoom != wantRoom {
		t.Fatalf("room with an old block = %d, want %d", gotRoom, wantRoom)
	}
	checkTooLarge(t, err, p, "300")
	if readFixture(t, p) != full {
		t.Fatal("file changed by a refused write")
	}

	// Escaping marker text can push a body of room bytes over.
	_, err = f.Write(func(room int) (string, error) {
		return (markerPrefix + strings.Repeat("z", room))[:room], nil
	})
	checkTooLarge(t, err, p, "300")

	// A limit smaller than the markers: the body is not even asked for.
	small := BlockFile{Path: p, MaxSize: len(user) + 10}
	_, err = small.Write(func(int) (string, error) {
		t.Fatal("body called with no room")
		return "", nil
	})
	checkTooLarge(t, err, p, "18")
	if readFixture(t, p) != full {
		t.Fatal("file changed by a refused write")
	}

	// No limit: room is -1.
	if _, err := (BlockFile{Path: p}).Write(func(room int) (string, error) {
		gotRoom = room
		return "ok", nil
	}); err != nil || gotRoom != -1 {
		t.Fatalf("unlimited room = %d, %v", gotRoom, err)
	}
	assertOnlyFiles(t, dir, "AGENTS.md")
}

func checkTooLarge(t *testing.T, err error, path, limit string) {
	t.Helper()
	if !errors.Is(err, safefile.ErrTooLarge) {
		t.Fatalf("error %v, want ErrTooLarge", err)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "would exceed "+limit+" bytes") {
		t.Fatalf("error %q should name the file and say it would exceed %s bytes", msg, limit)
	}
}

func TestWriteRefusesHugeFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "CLAUDE.md")
	huge := strings.Repeat("a", maxInstructionFile) + "b"
	writeFixture(t, p, huge, 0o644)
	f := BlockFile{Path: p}
	_, err := f.Write(func(int) (string, error) {
		t.Fatal("body called for a file too large")
		return "", nil
	})
	if !errors.Is(err, safefile.ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Fatalf("Write: %v", err)
	}
	if _, err := f.Remove(); !errors.Is(err, safefile.ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Fatalf("Remove: %v", err)
	}
	if readFixture(t, p) != huge {
		t.Fatal("huge file changed")
	}
	// At the limit exactly, the file is edited.
	writeFixture(t, p, huge[:maxInstructionFile], 0o644)
	if changed, err := f.Write(fixedBody("x")); err != nil || !changed {
		t.Fatalf("Write at the limit = %v, %v", changed, err)
	}
	assertOnlyFiles(t, dir, "CLAUDE.md")
}

func TestWriteRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	asDir := filepath.Join(dir, "AGENTS.md")
	if err := os.Mkdir(asDir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "CLAUDE.md")
	testsys.Mkfifo(t, fifo)
	for path, what := range map[string]string{asDir: "a directory", fifo: "a named pipe"} {
		f := BlockFile{Path: path}
		_, err := f.Write(func(int) (string, error) {
			t.Fatal("body called")
			return "", nil
		})
		if !errors.Is(err, errNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), what) {
			t.Errorf("Write(%s): %v", what, err)
		}
		if _, err := f.Remove(); !errors.Is(err, errNotRegular) {
			t.Errorf("Remove(%s): %v", what, err)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("fifo replaced: %v", err)
	}
	assertOnlyFiles(t, dir, "AGENTS.md", "CLAUDE.md")
}

func TestWriteBodyErrorWritesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "GEMINI.md")
	boom := errors.New("render failed")
	_, err := BlockFile{Path: p}.Write(func(int) (string, error) { return "", boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), p) {
		t.Fatalf("Write: %v", err)
	}
	assertOnlyFiles(t, dir)

	writeFixture(t, p, "keep\n", 0o644)
	if _, err := (BlockFile{Path: p}).Write(func(int) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Fatalf("Write: %v", err)
	}
	if readFixture(t, p) != "keep\n" {
		t.Fatal("file changed by a failed write")
	}
	if _, err := (BlockFile{Path: p}).Write(nil); err == nil {
		t.Fatal("nil body accepted")
	}
	if _, err := (BlockFile{}).Write(fixedBody("x")); err == nil {
		t.Fatal("empty path accepted")
	}
	assertOnlyFiles(t, dir, "GEMINI.md")
}

// TestBlockFileStaysInRoot checks that a link out of the project is not
// followed for writing or removing, and that links inside it are.
func TestBlockFileStaysInRoot(t *testing.T) {
	outside := t.TempDir()
	victim := filepath.Join(outside, ".bashrc")
	if err := os.WriteFile(victim, []byte("export PATH=/usr/bin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	link := filepath.Join(root, "CLAUDE.md")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	f := BlockFile{Path: link, Root: root}
	if _, err := f.Write(func(int) (string, error) { return "handoff\n", nil }); err == nil || !strings.Contains(err.Error(), "outside the project") {
		t.Fatalf("write through a link out of the project: %v", err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "export PATH=/usr/bin\n" {
		t.Fatalf("the file outside the project changed: %q", data)
	}
	if _, err := f.Remove(); err == nil {
		t.Fatal("remove through a link out of the project succeeded")
	}
	// A directory link out of the project is caught too.
	if err := os.Symlink(outside, filepath.Join(root, ".github")); err != nil {
		t.Fatal(err)
	}
	g := BlockFile{Path: filepath.Join(root, ".github", "copilot-instructions.md"), Root: root}
	if _, err := g.Write(func(int) (string, error) { return "x\n", nil }); err == nil {
		t.Fatal("write under a directory link out of the project succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "copilot-instructions.md")); err == nil {
		t.Fatal("a file was created outside the project")
	}
	// Inside the project: CLAUDE.md -> AGENTS.md is followed, and a new
	// directory below the root is fine.
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("# rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(root, "GEMINI.md")
	if err := os.Symlink("AGENTS.md", inside); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{inside, filepath.Join(root, ".cursor", "rules", "handoff.mdc")} {
		if _, err := (BlockFile{Path: p, Root: root}).Write(func(int) (string, error) { return "x\n", nil }); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(root, "AGENTS.md")); !strings.Contains(string(data), BlockBegin) {
		t.Fatal("the link inside the project was not followed")
	}
}
