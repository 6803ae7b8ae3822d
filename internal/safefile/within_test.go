package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWithin: a path is inside root only where the kernel would put it
// there, links in its directories resolved; a path that does not exist
// yet is judged by its deepest directory that does.
func TestWithin(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "project")
	home := filepath.Join(base, "home")
	for _, d := range []string{root + "/sub", home + "/.claude", root + "/inner"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, dest := range map[string]string{
		root + "/.claude": home + "/.claude", // the user-wide directory
		root + "/ok":      "inner",           // a link that stays inside
		root + "/up":      "inner/../..",     // .. after a link: the kernel's parent
		root + "/s":       home,
	} {
		if err := os.Symlink(dest, link); err != nil {
			t.Fatal(err)
		}
	}
	linkedRoot := filepath.Join(base, "linked")
	if err := os.Symlink(root, linkedRoot); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		root, path string
		inside     bool
	}{
		{root, root + "/file", true},
		{root, root + "/sub/file", true},
		{root, root + "/new/deeper/file", true},
		{root, root + "/ok/file", true},
		{linkedRoot, linkedRoot + "/sub/file", true},
		{linkedRoot, root + "/sub/file", true},
		{root, root + "/.claude/settings.json", false},
		{root, root + "/.claude/new/settings.json", false},
		{root, root + "/up/file", false},
		{root, root + "/s/../file", false},
		{root, base + "/elsewhere", false},
		{root, root, false},
	} {
		err := Within(c.root, c.path, "the project")
		if c.inside && err != nil {
			t.Errorf("Within(%s, %s): %v, want inside", c.root, c.path, err)
		}
		if !c.inside && !errors.Is(err, ErrOutside) {
			t.Errorf("Within(%s, %s): %v, want ErrOutside", c.root, c.path, err)
		}
	}
}
