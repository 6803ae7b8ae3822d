package changes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

const pre = header + "\n# base 0123456789abcdef0123456789abcdef01234567\n"

// fileDiff is a well-formed change of one text file at path.
func fileDiff(path string) string {
	return "diff --git a/" + path + " b/" + path + "\nindex 1111111..2222222 100644\n--- a/" + path + "\n+++ b/" + path + "\n@@ -1 +1 @@\n-a\n+b\n"
}

// hostileCorpus holds the kinds of patch Check refuses, one file each,
// whose first line "# want: CAUSE" says what the refusal names; the
// hostile campaign sends each through apply too.
const hostileCorpus = "../../testdata/hostile/changes"

// hostile reads the corpus: each patch (after our preamble) and the cause
// it must be refused for.
func hostile(t testing.TB) map[string][2]string {
	files, err := filepath.Glob(filepath.Join(hostileCorpus, "*.patch"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no hostile patches: %v", err)
	}
	out := map[string][2]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		testsys.Check(t, err)
		first, _, _ := strings.Cut(string(b), "\n")
		out[filepath.Base(f)] = [2]string{pre + string(b), strings.TrimPrefix(first, "# want: ")}
	}
	return out
}

func TestCheckRefusesHostilePatches(t *testing.T) {
	for name, c := range hostile(t) {
		t.Run(name, func(t *testing.T) {
			_, err := Check([]byte(c[0]))
			if !errors.Is(err, ErrHostile) || !strings.Contains(err.Error(), c[1]) {
				t.Fatalf("Check = %v, want a refusal for %q", err, c[1])
			}
		})
	}
}

func TestCheckAcceptsOrdinaryPatches(t *testing.T) {
	for _, body := range []string{
		fileDiff("a.go") + fileDiff("dir/b c.go"),
		"diff --git \"a/caf\\303\\251\" \"b/caf\\303\\251\"\nindex 1111111..2222222 100755\n--- \"a/caf\\303\\251\"\n+++ \"b/caf\\303\\251\"\n@@ -1,2 +1,2 @@\n x\n-a\n+b\n\\ No newline at end of file\n",
		"diff --git a/gone b/gone\ndeleted file mode 100755\nindex 1111111..0000000\n--- a/gone\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
	} {
		sum, err := Check([]byte(pre + body))
		if err != nil {
			t.Fatalf("Check(%q) = %v", body, err)
		}
		if len(sum.Files) == 0 {
			t.Fatal("no files")
		}
	}
}

func TestCheckRefusesAPatchOfNoFile(t *testing.T) {
	if _, err := Check([]byte(pre + "# left out: x (executable)\n")); !errors.Is(err, ErrHostile) {
		t.Fatalf("Check = %v", err)
	}
}

func TestCheckRefusesAnOversizedPatch(t *testing.T) {
	if _, err := Check([]byte(pre + strings.Repeat("#", MaxPatch))); !errors.Is(err, ErrHostile) {
		t.Fatalf("Check = %v", err)
	}
}

// FuzzCheck: Check never panics, and every path of a patch it accepts
// stays inside the worktree and out of .git.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(pre + fileDiff("a.go")))
	for _, c := range hostile(f) {
		f.Add([]byte(c[0]))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sum, err := Check(data)
		if err != nil {
			return
		}
		for _, file := range sum.Files {
			if checkPath(file.Path) != nil {
				t.Fatalf("accepted %q", file.Path)
			}
		}
	})
}
