// Package memory keeps an agent's memory as plain Markdown files that any
// agent can read and git can track:
//
//	SOUL.md, MEMORY.md, HANDOFF.md        identity files (layer 0)
//	layer1/YYYY-MM/<tag>-YYYY-MM-DD.md    session notes, appended to
//	layer2/current-state.md               where things stand, replaced
//	layer3/YYYY-MM-<tag>-archive.md       monthly archives of old notes
//
// Every file starts with a one-line header (an HTML comment naming the
// layer, tag, date and handoff); notes and archives are sequences of
// entries, each opened by a marker line that may carry a key. Writers take
// an exclusive lock on .lock in the root and replace files atomically, and
// no path, link or name can lead a write out of the root. The format is
// specified in docs/FORMAT.md, "Memory layers".
package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Limits on what is read and written.
const (
	// MaxFileSize bounds every memory file read or written.
	MaxFileSize = 4 << 20
	// MaxBodySize bounds the text of one write.
	MaxBodySize = 1 << 20
)

// Names inside the memory root.
const (
	SoulFile    = "SOUL.md"
	MemoryFile  = "MEMORY.md"
	HandoffFile = "HANDOFF.md"
	StateFile   = "layer2/current-state.md"
	// LockFile is the writers' lock; the .gitignore Init writes ignores it.
	LockFile = ".lock"
)

// Dir is a memory root. Its zero value is not usable: Root must be set.
type Dir struct {
	// Root is the memory directory, e.g. "memory" in a project.
	Root string
}

var (
	tagPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })
	keyPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@+=-]{0,127}$`) })
)

// ValidTag checks a note tag: 1 to 64 characters from A-Z, a-z, 0-9, '.',
// '_' and '-', starting with a letter or digit, without "..". Tags are
// compared without regard to case (SameTag); a file keeps the case of the
// tag it was first written with, as agent-handover kept it.
func ValidTag(s string) error {
	if !tagPattern().MatchString(s) || strings.Contains(s, "..") {
		return fmt.Errorf("tag %q: want 1-64 characters from letters, digits, . _ - starting with a letter or digit, and no \"..\"", handoff.Shorten(s, 40))
	}
	return nil
}

// SameTag reports whether two valid tags name the same notes: tags compare
// without regard to case, so "Team-API" (agent-handover's file name) and
// "team-api" are one tag, on every file system.
func SameTag(a, b string) bool { return strings.EqualFold(a, b) }

// ValidDate checks a calendar date written YYYY-MM-DD.
func ValidDate(s string) error {
	if t, err := time.Parse("2006-01-02", s); err != nil || t.Format("2006-01-02") != s {
		return fmt.Errorf("date %q: want a real calendar date YYYY-MM-DD", handoff.Shorten(s, 40))
	}
	return nil
}

// ValidMonth checks a month written YYYY-MM.
func ValidMonth(s string) error {
	if t, err := time.Parse("2006-01", s); err != nil || t.Format("2006-01") != s {
		return fmt.Errorf("month %q: want YYYY-MM", handoff.Shorten(s, 40))
	}
	return nil
}

// ValidKey checks an entry key: 1 to 128 characters from letters, digits
// and . _ : / @ + = -, starting with a letter or digit.
func ValidKey(s string) error {
	if !keyPattern().MatchString(s) {
		return fmt.Errorf("key %q: want 1-128 characters from A-Z a-z 0-9 . _ : / @ + = - starting with a letter or digit", handoff.Shorten(s, 40))
	}
	return nil
}

// validHandoffID checks an optional handoff id and returns it canonical.
func validHandoffID(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	id, err := handoff.ParseID(s)
	return string(id), err
}

// NotePath is the path, relative to the root, of the layer-1 note of tag
// on date (both already valid).
func NotePath(tag, date string) string {
	return "layer1/" + date[:7] + "/" + tag + "-" + date + ".md"
}

// ArchivePath is the path, relative to the root, of the layer-3 archive
// of tag for month (both already valid).
func ArchivePath(tag, month string) string {
	return "layer3/" + month + "-" + tag + "-archive.md"
}

// classify says which file a root-relative slash path names, as the
// header it must carry: identity files, notes in their month's
// directory, the state file and archives. Anything else is an error.
func classify(rel string) (Header, error) {
	bad := fmt.Errorf("%q is not a memory file path (want SOUL.md, MEMORY.md, HANDOFF.md, %s, layer1/YYYY-MM/TAG-YYYY-MM-DD.md or layer3/YYYY-MM-TAG-archive.md)", handoff.Shorten(rel, 80), StateFile)
	if tag, ok := identityTags[rel]; ok {
		return Header{Layer: 0, Tag: tag}, nil
	}
	if rel == StateFile {
		return Header{Layer: 2}, nil
	}
	parts := strings.Split(rel, "/")
	switch {
	case len(parts) == 3 && parts[0] == "layer1":
		name, ok := strings.CutSuffix(parts[2], ".md")
		if !ok || len(name) < 12 || name[len(name)-11] != '-' {
			return Header{}, bad
		}
		tag, date := name[:len(name)-11], name[len(name)-10:]
		if ValidTag(tag) != nil || ValidDate(date) != nil || date[:7] != parts[1] {
			return Header{}, bad
		}
		return Header{Layer: 1, Tag: tag, Date: date}, nil
	case len(parts) == 2 && parts[0] == "layer3":
		name, ok := strings.CutSuffix(parts[1], "-archive.md")
		if !ok || len(name) < 9 || name[7] != '-' {
			return Header{}, bad
		}
		month, tag := name[:7], name[8:]
		if ValidMonth(month) != nil || ValidTag(tag) != nil {
			return Header{}, bad
		}
		return Header{Layer: 3, Tag: tag, Date: month}, nil
	}
	return Header{}, bad
}

// matches checks that a file's header agrees with the header its path
// implies (the date of layers 0 and 2 is free).
func (h Header) matches(want Header) error {
	if h.Layer != want.Layer || !SameTag(h.Tag, want.Tag) || (hasEntries(h.Layer) && h.Date != want.Date) {
		return fmt.Errorf("its header (layer %d, tag %s, date %s) does not match its name (layer %d, tag %s, date %s)",
			h.Layer, untrusted.Quote(h.Tag, 64), untrusted.Quote(h.Date, 32), want.Layer, untrusted.Quote(want.Tag, 64), untrusted.Quote(want.Date, 32))
	}
	return nil
}

// name is how errors and results show the root-relative path rel.
func (d Dir) name(rel string) string {
	return filepath.Join(d.Root, filepath.FromSlash(rel))
}

// root returns the root with its links resolved. With write set, a root
// that is a symbolic link must resolve inside the directory holding it (a
// project's memory/ cannot point out of the project), and a missing root
// is created with the .gitignore Init writes; without it a missing root is an error wrapping
// fs.ErrNotExist.
func (d Dir) root(write bool) (string, error) {
	if d.Root == "" {
		return "", errors.New("memory: no root directory given")
	}
	abs, err := filepath.Abs(d.Root)
	if err != nil {
		return "", err
	}
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) && write:
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return "", fmt.Errorf("create memory root: %w", err)
		}
		if err := safefile.SyncDir(filepath.Dir(abs)); err != nil {
			return "", err
		}
		// A root a writer makes ignores the lock file from the start, so
		// committing the directory never commits .lock.
		if err := safefile.Create(filepath.Join(abs, ".gitignore"), []byte(gitignore), filePerm); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("%s: %w", d.name(".gitignore"), err)
		}
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("memory root %s: %w", d.Root, fs.ErrNotExist)
	case err != nil:
		return "", fmt.Errorf("memory root: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0 && write:
		parent, err := filepath.EvalSymlinks(filepath.Dir(abs))
		if err != nil {
			return "", fmt.Errorf("memory root %s: %w", d.Root, err)
		}
		target, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return "", fmt.Errorf("memory root %s: %w", d.Root, err)
		}
		if !inside(parent, target) {
			return "", fmt.Errorf("memory root %s is a symbolic link to %s, outside %s; not writing there", d.Root, target, parent)
		}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("memory root %s: %w", d.Root, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("memory root %s is not a directory", d.Root)
	}
	return real, nil
}

// inside reports whether p lies strictly below dir (both cleaned, absolute,
// links resolved).
func inside(dir, p string) bool {
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// locate turns the root-relative slash path rel into a path below the
// resolved root real. The directories on the way are checked by dir (and
// with create made); the file itself, when it exists, must be a regular
// file: a memory file that is a symbolic link is never read or written
// through. exists reports whether it exists.
func (d Dir) locate(real, rel string, create bool) (p string, exists bool, err error) {
	if err := checkRel(rel); err != nil {
		return "", false, err
	}
	parent, base := path.Split(rel)
	p = real
	if parent != "" {
		p, err = d.dir(real, strings.TrimSuffix(parent, "/"), create)
		if !create && errors.Is(err, fs.ErrNotExist) {
			// A missing directory holds no file: layer2/ before the
			// first state is written.
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
	}
	p = filepath.Join(p, base)
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p, false, nil
	case err != nil:
		return "", false, fmt.Errorf("%s: %w", d.name(rel), err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", false, fmt.Errorf("%s is a symbolic link; memory files must be regular files", d.name(rel))
	case !fi.Mode().IsRegular():
		return "", false, fmt.Errorf("%s is not a regular file", d.name(rel))
	}
	return p, true, nil
}

// checkRel refuses a root-relative path that is not clean, slash-separated
// and inside the root.
func checkRel(rel string) error {
	if rel == "" || path.IsAbs(rel) || path.Clean(rel) != rel || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || strings.Contains(rel, `\`) {
		return fmt.Errorf("%q is not a path inside the memory root", handoff.Shorten(rel, 80))
	}
	return nil
}

// dir turns the root-relative directory rel into a path below the
// resolved root real. Each directory on the way must be a directory that
// resolves inside the root (a symbolic link to elsewhere in the root is
// followed, one out of it refused); with create, missing ones are made
// (mode 0755, made durable by syncing their parent). Without create a
// missing one gives an error wrapping fs.ErrNotExist.
func (d Dir) dir(real, rel string, create bool) (string, error) {
	if err := checkRel(rel); err != nil {
		return "", err
	}
	parts := strings.Split(rel, "/")
	p := real
	for i, part := range parts {
		next := filepath.Join(p, part)
		shown := d.name(strings.Join(parts[:i+1], "/"))
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) && create {
			if err := os.Mkdir(next, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", safefile.Wrap("create", shown, err)
			}
			if err := safefile.SyncDir(p); err != nil {
				return "", err
			}
			fi, err = os.Lstat(next)
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", shown, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(next)
			if err != nil {
				return "", fmt.Errorf("%s: %w", shown, err)
			}
			if !inside(real, target) {
				return "", fmt.Errorf("%s is a symbolic link to %s, outside the memory root %s; refusing it", shown, target, d.Root)
			}
			next = target
			if fi, err = os.Stat(next); err != nil {
				return "", fmt.Errorf("%s: %w", shown, err)
			}
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("%s is not a directory", shown)
		}
		p = next
	}
	return p, nil
}

// lock takes the writers' lock in the resolved root.
func (d Dir) lock(real string) (*safefile.Lock, error) {
	p := filepath.Join(real, LockFile)
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; refusing to lock through it", d.name(LockFile))
	}
	l, err := safefile.LockFile(p)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", d.Root, err)
	}
	return l, nil
}

// lockFor takes the writers' lock for a write to rel, after checking
// that nothing on the way to rel is a link out of the root, so that a
// refused write leaves not even the lock file behind. locate checks again
// under the lock.
func (d Dir) lockFor(real, rel string) (*safefile.Lock, error) {
	if _, _, err := d.locate(real, rel, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return d.lock(real)
}

// readRaw reads the regular file at p (found by locate) within
// MaxFileSize, naming rel in errors.
func (d Dir) readRaw(p, rel string) ([]byte, error) {
	// O_NOFOLLOW: a link swapped in since locate looked is not followed;
	// O_NONBLOCK: nor does a named pipe make the read hang.
	f, err := os.OpenFile(p, os.O_RDONLY|safefile.OpenNoFollow|safefile.OpenNonBlock, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name(rel), err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", d.name(rel))
	}
	data, err := safefile.ReadAllLimit(f, MaxFileSize)
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, fmt.Errorf("%s: over the %d MiB limit for a memory file", d.name(rel), MaxFileSize>>20)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name(rel), err)
	}
	return data, nil
}

// readDoc reads and parses the memory file at p, checking that its header
// agrees with its path rel.
func (d Dir) readDoc(p, rel string) (*Doc, error) {
	want, err := classify(rel)
	if err != nil {
		return nil, err
	}
	data, err := d.readRaw(p, rel)
	if err != nil {
		return nil, err
	}
	var doc *Doc
	if bytes.HasPrefix(bytes.TrimPrefix(data, []byte("\uFEFF")), []byte(olderPrefix)) {
		doc, err = parseOlder(data, want)
	} else {
		doc, err = Parse(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name(rel), err)
	}
	if err := doc.Header.matches(want); err != nil {
		return nil, fmt.Errorf("%s: %w", d.name(rel), err)
	}
	return doc, nil
}

// CleanText checks text given to a writer and returns it as it would be
// stored: valid UTF-8 of at most MaxBodySize bytes, cleaned as
// handoff.CleanText cleans what is shown (control characters other than
// newline and tab, bidirectional controls and invisible format characters
// removed, Unicode line separators made newlines), leading blank lines and
// trailing white space trimmed, and not empty. It ends in one newline.
func CleanText(s string) (string, error) {
	if len(s) > MaxBodySize {
		return "", fmt.Errorf("text is over the %d MiB limit", MaxBodySize>>20)
	}
	if !utf8.ValidString(s) {
		return "", errors.New("text is not valid UTF-8")
	}
	s = trimBlank(handoff.CleanText(s))
	if s == "" {
		return "", errors.New("text is empty")
	}
	return s + "\n", nil
}

// trimBlank removes leading empty lines and trailing white space, keeping
// the indentation of the first line.
func trimBlank(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			return s
		}
		s = rest
	}
}

// DirName is the memory directory's name at the top of a project.
const DirName = "memory"

// DefaultDir is the memory directory used when none is named: memory/ at
// projectRoot (the top of the git worktree holding wd, or wd itself
// outside git), given relative to the working directory wd (which is
// inside the project), so messages name it briefly. wd is compared with
// its symbolic links resolved, as git resolves the worktree's; an empty
// wd leaves the path absolute.
func DefaultDir(projectRoot, wd string) Dir {
	dir := filepath.Join(projectRoot, DirName)
	if wd == "" {
		return Dir{Root: dir}
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	if rel, err := filepath.Rel(wd, dir); err == nil {
		dir = rel
	}
	return Dir{Root: dir}
}

// DefaultTag is the tag of a note or archive written without one, as
// agent-handover's MemoryStore.write had it.
const DefaultTag = "general"

// CleanTag turns a tag as a person or an earlier tool wrote it into a valid
// one, as agent-handover's MemoryStore.write made its file names ('/' and
// '\' become '-', white space '_'), its case kept. It reports whether the
// tag changed, and fails when even the cleaned tag is not valid.
func CleanTag(s string) (tag string, changed bool, err error) {
	t := strings.TrimSpace(s)
	t = strings.NewReplacer("/", "-", "\\", "-").Replace(t)
	t = strings.Join(strings.Fields(t), "_")
	if ValidTag(t) != nil {
		return "", false, ValidTag(s)
	}
	return t, t != s, nil
}

// HasIdentity reports whether the memory directory holds SOUL.md and
// MEMORY.md as regular files, the identity files HANDOFF.md points at.
func (d Dir) HasIdentity() bool {
	for _, name := range []string{SoulFile, MemoryFile} {
		info, err := os.Lstat(filepath.Join(d.Root, name))
		if err != nil || !info.Mode().IsRegular() {
			return false
		}
	}
	return true
}
