package capture

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestProjectRoot(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	gitCmd(t, repo, "init", "-q", "-b", "main")
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	file := filepath.Join(plain, "f.txt")
	write(t, file, "x")
	wantRepo, _ := filepath.EvalSymlinks(repo)

	for _, tc := range []struct {
		name, dir, want string
		wantErr         bool
	}{
		{"a subdirectory of a worktree is its top", sub, wantRepo, false},
		{"a directory in no worktree is itself", plain, plain, false},
		{"a file is refused", file, "", true},
		{"a missing directory is refused", filepath.Join(plain, "missing"), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ProjectRoot(ctx, tc.dir)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("ProjectRoot(%s) = %q, want an error", tc.dir, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g, _ := filepath.EvalSymlinks(got); g != tc.want {
				t.Errorf("ProjectRoot(%s) = %q, want %q", tc.dir, got, tc.want)
			}
		})
	}
}
