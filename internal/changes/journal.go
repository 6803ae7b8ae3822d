package changes

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/git"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// journalName is the file, in the repository's git directory, that says
// an apply is under way: written before the worktree is touched, removed
// when the patch is in. One found at the start of an apply was left by an
// apply that was killed; it says how to undo what that one began.
const journalName = "session-handoff-apply"

// journal is what an interrupted apply needs to be undone: what it
// changed in the repository, and each file it may write where there was
// none, with the object id of what it writes there. Undo removes a file
// only when its content is that object (apply wrote it), and never acts
// on anything but the journal: not on the next patch's file list.
type journal struct {
	path      string
	Head      string    // HEAD before the apply
	Branch    string    // the branch checked out before ("refs/heads/…"), empty when detached
	NewBranch string    // the branch the apply makes, if any
	Stash     string    // the stash commit of the local changes, if any
	Creates   []created // the files the apply writes where none was
}

// created is a file apply writes where none was, and the object id of
// the content it writes (git's blob id: SHA-1 or SHA-256, as the
// repository's).
type created struct {
	Path string
	Blob string
}

// maxJournal bounds the journal read back: a line for each created file.
const maxJournal = MaxFiles * 4200

// journalPath is where the journal of the repository g reads lives.
func journalPath(ctx context.Context, g git.Runner) (string, error) {
	out, err := g.Run(ctx, "rev-parse", "--path-format=absolute", "--git-path", journalName)
	if err != nil {
		return "", fmt.Errorf("find the git directory: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// readJournal reads the journal at path; nil when there is none.
func readJournal(path string) (*journal, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxJournal+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxJournal {
		return nil, fmt.Errorf("%s: over %d bytes: remove it once the worktree is as you want it", path, maxJournal)
	}
	j := &journal{path: path}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "create":
			blob, p, _ := strings.Cut(v, " ")
			if !isHash(blob) || checkPath(p) != nil {
				return nil, fmt.Errorf("%s: damaged: remove it once the worktree is as you want it", path)
			}
			j.Creates = append(j.Creates, created{Path: p, Blob: blob})
		case "head":
			j.Head = v
		case "branch":
			j.Branch = v
		case "new-branch":
			j.NewBranch = v
		case "stash":
			j.Stash = v
		}
	}
	if !isHash(j.Head) || (j.Stash != "" && !isHash(j.Stash)) {
		return nil, fmt.Errorf("%s: damaged: remove it once the worktree is as you want it", path)
	}
	return j, nil
}

// write stores the journal atomically.
func (j *journal) write() error {
	var b strings.Builder
	fmt.Fprintf(&b, "head %s\nbranch %s\nnew-branch %s\nstash %s\n", j.Head, j.Branch, j.NewBranch, j.Stash)
	for _, c := range j.Creates {
		// A path holds no newline or other control character (checkPath).
		fmt.Fprintf(&b, "create %s %s\n", c.Blob, c.Path)
	}
	return safefile.WriteFile(j.path, []byte(b.String()), 0o600)
}

// undo puts the worktree back as it was before the interrupted apply the
// journal describes: whatever the worktree holds now is first kept as a
// stash entry of its own, then HEAD, the index and the tracked files are
// reset, the files the apply created removed (each only if it holds what
// the apply wrote: see removeCreated), the new branch dropped, and the
// local changes restored from their stash entry. It refuses when HEAD
// moved since (someone committed after the interruption). It reads the
// journal alone, never a patch: the one being applied now may be another.
func (j *journal) undo(ctx context.Context, g git.Runner, root, message string) error {
	// A git killed with the apply leaves its lock; git never takes one
	// for stale, and neither do we: another git may hold it right now.
	lock := filepath.Join(filepath.Dir(j.path), "index.lock")
	if _, err := os.Lstat(lock); err == nil {
		return fmt.Errorf("an earlier apply was interrupted and left %s: %w (if no git runs in this repository now, remove that file and run apply again)", lock, ErrWorktree)
	}
	if j.NewBranch != "" {
		cur, _ := g.Run(ctx, "symbolic-ref", "-q", "HEAD")
		if strings.TrimSpace(string(cur)) == "refs/heads/"+j.NewBranch {
			if err := j.keepWorktree(ctx, g, message); err != nil {
				return err
			}
			back := []string{"switch", "-f", "--detach", j.Head}
			if j.Branch != "" {
				back = []string{"switch", "-f", "--no-guess", strings.TrimPrefix(j.Branch, "refs/heads/")}
			}
			if _, err := g.Run(ctx, back...); err != nil {
				return fmt.Errorf("undo the interrupted apply: %w", err)
			}
		}
		if _, err := g.Run(ctx, "rev-parse", "--verify", "-q", "refs/heads/"+j.NewBranch); err == nil {
			if _, err := g.Run(ctx, "branch", "-D", "--end-of-options", j.NewBranch); err != nil {
				return fmt.Errorf("undo the interrupted apply: %w", err)
			}
		}
	}
	head, err := g.Run(ctx, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil || strings.TrimSpace(string(head)) != j.Head {
		return fmt.Errorf("an earlier apply was interrupted and HEAD moved since: %w (local changes are in stash %s; remove %s once the worktree is as you want it)", ErrWorktree, j.Stash, j.path)
	}
	if err := j.keepWorktree(ctx, g, message); err != nil {
		return err
	}
	if _, err := g.Run(ctx, "reset", "-q", "--hard", j.Head); err != nil {
		return fmt.Errorf("undo the interrupted apply: %w", err)
	}
	for _, c := range j.Creates {
		if err := removeCreated(root, c); err != nil {
			return fmt.Errorf("undo the interrupted apply: %s: %w", untrusted.Quote(c.Path, 200), err)
		}
	}
	if j.Stash != "" {
		if _, err := g.Run(ctx, "stash", "apply", "--index", j.Stash); err != nil {
			return fmt.Errorf("restore local changes from stash %s: %w", j.Stash, err)
		}
	}
	return safefile.Remove(j.path)
}

// keepWorktree saves what the worktree holds now (tracked files) as a
// stash entry before undo resets it, so that nothing is lost, not even
// an edit made after the interruption.
func (j *journal) keepWorktree(ctx context.Context, g git.Runner, message string) error {
	out, err := g.Run(ctx, "stash", "create", message+" (worktree of an interrupted apply)")
	if err != nil {
		return fmt.Errorf("keep the worktree: %w", err)
	}
	if c := strings.TrimSpace(string(out)); c != "" {
		if _, err := g.Run(ctx, "stash", "store", "-m", message+" (worktree of an interrupted apply)", c); err != nil {
			return fmt.Errorf("keep the worktree: %w", err)
		}
	}
	return nil
}

// removeCreated removes the file apply created at c.Path, if it is there
// and holds exactly the content apply wrote (its blob id is c.Blob), or
// nothing at all: a file someone else wrote there since, or one whose
// content differs (a conflict, an edit, a line-end conversion, a write
// cut short), is left. No link is followed on the way to it (checkDisk).
// The error is only that of the removal.
func removeCreated(root string, c created) error {
	if err := checkDisk(root, &Summary{Files: []File{{Path: c.Path, Status: "M"}}}); err != nil {
		return nil // a link on the way: nothing there is ours to remove
	}
	path := filepath.Join(root, filepath.FromSlash(c.Path))
	f, err := os.OpenFile(path, os.O_RDONLY|safefile.OpenNoFollow|safefile.OpenNonBlock, 0)
	if err != nil {
		return nil // nothing there, or nothing we could have written (a link…)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > MaxBinary {
		return nil
	}
	// An empty file holds no byte of anyone's: git apply killed between
	// creating a file and writing it leaves one.
	if info.Size() > 0 {
		if id, err := blobID(f, info.Size(), len(c.Blob)); err != nil || id != c.Blob {
			return nil
		}
	}
	return os.Remove(path)
}

// blobID is git's object id of a blob of size bytes read from r: SHA-1
// (40 hex digits) or SHA-256 (64) of "blob SIZE\0" and the bytes.
func blobID(r io.Reader, size int64, hexLen int) (string, error) {
	var h hash.Hash
	switch hexLen {
	case 40:
		h = sha1.New()
	case 64:
		h = sha256.New()
	default:
		return "", errors.New("unknown object id length")
	}
	fmt.Fprintf(h, "blob %d\x00", size)
	n, err := io.Copy(h, io.LimitReader(r, size+1))
	if err != nil {
		return "", err
	}
	if n != size {
		return "", errors.New("the file changed while read")
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
