package memory

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDefaultDir(t *testing.T) {
	base := t.TempDir()
	real, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(real, "app")
	sub := filepath.Join(project, "src", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(real, "link")
	if err := os.Symlink(project, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, wd, want string }{
		{"at the root", project, "memory"},
		{"below the root", sub, filepath.Join("..", "..", "memory")},
		{"through a symbolic link", filepath.Join(link, "src"), filepath.Join("..", "memory")},
		{"no working directory", "", filepath.Join(project, "memory")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DefaultDir(project, tc.wd).Root; got != tc.want {
				t.Fatalf("DefaultDir(%s, %s) = %s, want %s", project, tc.wd, got, tc.want)
			}
		})
	}
}
