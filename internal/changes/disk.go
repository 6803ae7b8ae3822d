package changes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/git"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// ErrLink is wrapped when a path the patch writes meets a symbolic link
// on the recipient's side: on disk, or in the patch's base commit.
var ErrLink = errors.New("a symbolic link is in the way")

// checkDisk checks the patch's paths against the worktree at root as it
// is on disk, where Check read them as text: every component of every
// path is looked at without following it (Lstat), and a symbolic link
// anywhere on the way, or at the path itself, is refused (git apply
// --3way writes through a link in a leading directory, and a change
// with no mode line re-points a link). A file the patch creates must not
// exist in any form (an ignored file is one status does not show).
func checkDisk(root string, sum *Summary) error {
	for _, f := range sum.Files {
		parts := strings.Split(f.Path, "/")
		for i := range parts {
			sub := strings.Join(parts[:i+1], "/")
			info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(sub)))
			if errors.Is(err, fs.ErrNotExist) {
				break // nothing below it exists either
			}
			if err != nil {
				return fmt.Errorf("%s: %w", untrusted.Quote(sub, 200), err)
			}
			last := i == len(parts)-1
			switch {
			case info.Mode()&fs.ModeSymlink != 0:
				return fmt.Errorf("%s is a symbolic link here and the patch writes %s: %w", untrusted.Quote(sub, 200), untrusted.Quote(f.Path, 200), ErrLink)
			case last && f.Status == "A":
				return fmt.Errorf("%s exists here (perhaps ignored) and the patch creates it: %w (move it away)", untrusted.Quote(f.Path, 200), ErrWorktree)
			case !last && !info.IsDir():
				return nil // git apply finds a file where a directory must be, and fails
			}
		}
	}
	return nil
}

// checkBaseLinks refuses a patch that writes a path which is a symbolic
// link, or lies below one, in its base commit: the tree a new branch
// checks out, and the one a change of a link with no mode line passes
// git's own check against.
func checkBaseLinks(ctx context.Context, g git.Runner, sum *Summary) error {
	seen := map[string]bool{}
	var specs []string
	for _, f := range sum.Files {
		parts := strings.Split(f.Path, "/")
		for i := range parts {
			if sub := strings.Join(parts[:i+1], "/"); !seen[sub] {
				seen[sub] = true
				specs = append(specs, sub)
			}
		}
	}
	g.Env = append(g.Env, "GIT_LITERAL_PATHSPECS=1")
	const batch = 500
	for i := 0; i < len(specs); i += batch {
		args := append([]string{"ls-tree", "-z", "--full-tree", "--end-of-options", sum.Base, "--"}, specs[i:min(i+batch, len(specs))]...)
		out, err := g.Run(ctx, args...)
		if err != nil {
			return fmt.Errorf("read the base commit: %w", err)
		}
		for _, e := range splitZ(out) {
			meta, path, _ := strings.Cut(e, "\t")
			if strings.HasPrefix(meta, "120000 ") {
				return fmt.Errorf("%s is a symbolic link in the base commit and the patch writes it or below it: %w", untrusted.Quote(path, 200), ErrLink)
			}
		}
	}
	return nil
}
