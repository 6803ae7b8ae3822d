package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Tracked reports whether the file at path is tracked by the git
// repository whose worktree holds it (it is in the index): a file
// everyone who clones the repository shares. A path whose directory does
// not exist or is in no worktree is not tracked; so is any path when git
// is not installed.
func Tracked(ctx context.Context, path string) (bool, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false, err
	}
	dir := filepath.Dir(abs)
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return false, nil
	}
	r, err := Runner{Dir: dir}.Untrusted(ctx)
	if err == nil {
		var out []byte
		if out, err = r.Run(ctx, "ls-files", "-z", "--", filepath.Base(abs)); err == nil {
			return len(out) > 0, nil
		}
	}
	if errors.Is(err, ErrNoGit) || strings.Contains(err.Error(), "not a git repository") {
		return false, nil
	}
	return false, err
}
