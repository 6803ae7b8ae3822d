package changes

import (
	"errors"
	"strings"
	"testing"
)

const pre = header + "\n# base 0123456789abcdef0123456789abcdef01234567\n"

// fileDiff is a well-formed change of one text file at path.
func fileDiff(path string) string {
	return "diff --git a/" + path + " b/" + path + "\nindex 1111111..2222222 100644\n--- a/" + path + "\n+++ b/" + path + "\n@@ -1 +1 @@\n-a\n+b\n"
}

// Hostile are the kinds of patch Check refuses, by name; the hostile
// campaign sends each through apply too.
var Hostile = map[string]string{
	"path-outside":       fileDiff("../outside.txt"),
	"path-absolute":      "diff --git a//etc/passwd b//etc/passwd\nnew file mode 100644\n--- /dev/null\n+++ b//etc/passwd\n@@ -0,0 +1 @@\n+x\n",
	"path-into-git":      fileDiff(".git/hooks/pre-commit"),
	"path-into-git-case": fileDiff("sub/.GIT/config"),
	"symlink":            "diff --git a/link b/link\nnew file mode 120000\nindex 0000000..1111111\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+/etc\n\\ No newline at end of file\n",
	"executable-new":     "diff --git a/run.sh b/run.sh\nnew file mode 100755\nindex 0000000..1111111\n--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1 @@\n+rm -rf ~\n",
	"executable-mode":    "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
	"submodule":          "diff --git a/sub b/sub\nindex 1111111..2222222 160000\n--- a/sub\n+++ b/sub\n@@ -1 +1 @@\n-Subproject commit 1111111111111111111111111111111111111111\n+Subproject commit 2222222222222222222222222222222222222222\n",
	"rename":             "diff --git a/a b/a\nsimilarity index 100%\nrename from a\nrename to ../b\n",
	"huge-hunk":          "diff --git a/a b/a\nindex 1111111..2222222 100644\n--- a/a\n+++ b/a\n@@ -1,999999999 +1,1 @@\n-a\n+b\n",
	"binary-bomb":        "diff --git a/z.bin b/z.bin\nnew file mode 100644\nindex 0000000..1111111\nGIT binary patch\nliteral 4294967296\nzcmZo\n\nliteral 0\nHcmV?d00001\n\n",
	"smuggled-header":    fileDiff("a") + "--- a/../../x\n+++ b/../../x\n@@ -0,0 +1 @@\n+x\n",
	"header-mismatch":    "diff --git a/safe b/../unsafe\nindex 1111111..2222222 100644\n--- a/safe\n+++ b/../unsafe\n@@ -1 +1 @@\n-a\n+b\n",
	"traditional-diff":   "--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n",
	"names-disagree":     "diff --git a/a b/a\nindex 1111111..2222222 100644\n--- a/a\n+++ b/../a\n@@ -1 +1 @@\n-a\n+b\n",
}

func TestCheckRefusesHostilePatches(t *testing.T) {
	for name, body := range Hostile {
		t.Run(name, func(t *testing.T) {
			_, err := Check([]byte(pre + body))
			if !errors.Is(err, ErrHostile) {
				t.Fatalf("Check = %v, want a refusal", err)
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

func TestCheckRefusesAnOversizedPatch(t *testing.T) {
	if _, err := Check([]byte(pre + strings.Repeat("#", MaxPatch))); !errors.Is(err, ErrHostile) {
		t.Fatalf("Check = %v", err)
	}
}

// FuzzCheck: Check never panics, and every path of a patch it accepts
// stays inside the worktree and out of .git.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(pre + fileDiff("a.go")))
	for _, body := range Hostile {
		f.Add([]byte(pre + body))
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
