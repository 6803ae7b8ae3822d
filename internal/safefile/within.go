package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutside is wrapped by Within's refusal.
var ErrOutside = errors.New("not writing there")

// Within checks that path, once the symbolic links in its directories are
// resolved as the kernel resolves them, lies inside root (resolved too);
// what names root in the error ("the project"). path itself need not
// exist yet, nor its nearest directories: what is below the deepest one
// that exists is created by the caller, without links. A link at path
// itself is not followed: callers refuse one, or resolve it first and ask
// again about its target.
//
// It is the one check of every file that render --write, integrate (hooks
// and MCP registrations) and --plugin / --extension write, so that a
// project whose .claude is a link to ~/.claude cannot make a write meant
// for the project land in the user's own settings.
func Within(root, path, what string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if realRoot, err = filepath.Abs(realRoot); err != nil {
		return err
	}
	// No filepath.Clean (nor Abs, Dir or Join, which clean) before the
	// links are resolved: "link/.." is the parent of where link points,
	// which only the file system knows. EvalSymlinks resolves each
	// component in turn, as the kernel does.
	abs := strings.TrimRight(path, string(filepath.Separator))
	if !filepath.IsAbs(abs) {
		cwd, err := os.Getwd()
		if err != nil {
			return err
		}
		abs = cwd + string(filepath.Separator) + abs
	}
	dir, rest := splitLast(abs)
	for {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			abs = filepath.Join(real, rest)
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return err
		}
		var last string
		if dir, last = splitLast(dir); last == "" {
			return err
		}
		rest = last + string(filepath.Separator) + rest
	}
	if !strings.HasPrefix(abs, realRoot+string(filepath.Separator)) {
		return fmt.Errorf("it resolves to %s, outside %s %s; %w", abs, what, root, ErrOutside)
	}
	return nil
}

// splitLast splits an absolute path at its last separator, by text;
// last is "" at the root.
func splitLast(p string) (dir, last string) {
	i := strings.LastIndexByte(p, filepath.Separator)
	if i < 0 {
		return p, ""
	}
	dir = p[:i]
	if dir == "" || strings.HasSuffix(dir, ":") {
		dir += string(filepath.Separator)
	}
	return dir, p[i+1:]
}
