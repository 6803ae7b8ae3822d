package git

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// maxExclude bounds what is read of info/exclude.
const maxExclude = 1 << 20

// Exclusion is what Exclude did.
type Exclusion struct {
	// Line is the pattern for the file, anchored to the worktree's top
	// ("/CLAUDE.local.md").
	Line string
	// File is the exclude file (the repository's info/exclude, shared by
	// its linked worktrees), shown relative to the worktree's top when it
	// is inside it.
	File string
	// Added is false when the line was there already.
	Added bool
}

// Exclude adds the file at path to its repository's info/exclude, so that
// git status does not show a personal file we wrote into a worktree
// (CLAUDE.local.md, PAUSE). The line is added once, at the end, and every
// line already there is kept; the file is rewritten atomically. A path in
// no worktree, or no git at all, is nothing to do: nil and no error.
func Exclude(ctx context.Context, path string) (*Exclusion, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(abs)
	r, err := Runner{Dir: dir}.Untrusted(ctx)
	var out []byte
	if err == nil {
		out, err = r.Run(ctx, "rev-parse", "--show-toplevel", "--git-common-dir")
	}
	if errors.Is(err, ErrNoGit) || err != nil && strings.Contains(err.Error(), "not a git repository") {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	top, common, ok := strings.Cut(strings.TrimRight(string(out), "\n"), "\n")
	if !ok || top == "" || common == "" {
		return nil, fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, nil
	}
	x := &Exclusion{Line: "/" + filepath.ToSlash(rel), File: filepath.Join(common, "info", "exclude")}
	if shown, err := filepath.Rel(top, x.File); err == nil && !strings.HasPrefix(shown, "..") {
		x.File = filepath.ToSlash(shown)
	}
	file := filepath.Join(common, "info", "exclude")
	old, err := safefile.ReadRegular(file, maxExclude)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, safefile.Wrap("read", file, err)
	}
	for _, l := range strings.Split(string(old), "\n") {
		if strings.TrimSpace(l) == x.Line {
			return x, nil
		}
	}
	data := old
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	data = append(data, x.Line+"\n"...)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, err
	}
	if err := safefile.WriteFile(file, data, 0o644); err != nil {
		return nil, safefile.Wrap("write", file, err)
	}
	x.Added = true
	return x, nil
}
