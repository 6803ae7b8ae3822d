package tsvconf

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

func testFile(t *testing.T) File {
	return File{Path: filepath.Join(t.TempDir(), "things"), What: "things", Kind: "things file",
		Header: "session-handoff-things 1", Comment: "A<TAB>B; managed by a test", MaxSize: 256, Perm: 0o600}
}

func read(f File) ([][]string, error) {
	var out [][]string
	err := f.Read(func(r []string) error {
		if r[0] == "bad" {
			return errors.New("bad record")
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

func TestRead(t *testing.T) {
	f := testFile(t)
	if got, err := read(f); err != nil || got != nil {
		t.Fatalf("missing file: %v, %v", got, err)
	}
	testsys.Check(t, os.WriteFile(f.Path, []byte("session-handoff-things 1\r\n# a comment\n\n   \na\tb\r\n#x\ty\nc\t\td\n"), 0o600))
	got, err := read(f)
	want := [][]string{{"a", "b"}, {"c", "", "d"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read %q, %v; want %q", got, err, want)
	}
}

func TestReadErrorsNameFileAndLine(t *testing.T) {
	f := testFile(t)
	for _, tc := range []struct{ content, want string }{
		{"session-handoff-other 1\n", f.Path + `:1: not a session-handoff things file (want "session-handoff-things 1")`},
		{"session-handoff-things 1\n\n# c\nbad\tx\n", f.Path + ":4: bad record"},
		{"session-handoff-things 1\n" + strings.Repeat("x", 300), "read things " + f.Path + ": "},
	} {
		testsys.Check(t, os.WriteFile(f.Path, []byte(tc.content), 0o600))
		_, err := read(f)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.content, err, tc.want)
		}
	}
	if _, err := read(f); !errors.Is(err, safefile.ErrTooLarge) {
		t.Errorf("oversize file: %v", err)
	}
	testsys.Check(t, os.Remove(f.Path))
	testsys.Check(t, os.Mkdir(f.Path, 0o700))
	if _, err := read(f); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("a directory: %v", err)
	}
}

// The format written is fixed: users' files hold it.
func TestUpdateWritesTheFormat(t *testing.T) {
	f := testFile(t)
	err := f.Update(func() ([][]string, error) { return [][]string{{"a", "b"}, {"c", "d", "e"}}, nil })
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(f.Path)
	if want := "session-handoff-things 1\n# A<TAB>B; managed by a test\na\tb\nc\td\te\n"; string(data) != want {
		t.Fatalf("wrote %q, want %q", data, want)
	}
	if info, _ := os.Stat(f.Path); info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", info.Mode().Perm())
	}
	if err := f.Update(func() ([][]string, error) { return nil, errors.New("no") }); err == nil {
		t.Fatal("a failing update reported no error")
	}
	if again, _ := os.ReadFile(f.Path); string(again) != string(data) {
		t.Fatal("a failing update changed the file")
	}
}

// Every record written reads back as it was, whatever its fields hold:
// tabs, newlines, a leading '#' or quote, blanks. Before fields were
// quoted, a project root with a tab broke its line and every later read.
func TestRoundTrip(t *testing.T) {
	f := testFile(t)
	f.MaxSize = 1 << 20
	for _, rec := range [][]string{
		{"/home/me/a\tb", "on", "-", "-"},
		{"/home/me/new\nline", "on"},
		{"#not a comment", "x"},
		{"", ""},
		{"   ", "y"},
		{`"quoted"`, `"`},
		{"cr\r", "\x7f", "é ✓"},
		{"plain", `C:\Users\me`, `a"b`},
	} {
		checkRoundTrip(t, f, rec)
	}
}

func checkRoundTrip(t *testing.T, f File, rec []string) {
	t.Helper()
	if err := f.Update(func() ([][]string, error) { return [][]string{rec, {"after", "it"}}, nil }); err != nil {
		t.Fatal(err)
	}
	var got [][]string
	if err := f.Read(func(r []string) error { got = append(got, r); return nil }); err != nil {
		t.Fatalf("%q: %v", rec, err)
	}
	if want := [][]string{rec, {"after", "it"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("wrote %q, read %q", want, got)
	}
}

// Files written before fields were quoted read the same: a field is
// unquoted only when it starts with a double quote and is a Go literal.
func TestReadsOldFilesUnchanged(t *testing.T) {
	f := testFile(t)
	testsys.Check(t, os.WriteFile(f.Path, []byte("session-handoff-things 1\nC:\\Users\\me\ta\\tb\t\"half\n"), 0o600))
	got, err := read(f)
	if want := [][]string{{`C:\Users\me`, `a\tb`, `"half`}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read %q, %v; want %q", got, err, want)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add("a\tb", "c")
	f.Add("#x", "\n")
	f.Add(`"q"`, "")
	f.Fuzz(func(t *testing.T, a, b string) {
		file := File{Path: filepath.Join(t.TempDir(), "things"), What: "things", Kind: "things file",
			Header: "session-handoff-things 1", Comment: "fuzz", MaxSize: 1 << 20, Perm: 0o600}
		checkRoundTrip(t, file, []string{a, b})
	})
}
