package transcript

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Listing the agents' directories and stating each file in them is most
// of what listing the sessions costs on a large archive (tens of
// thousands of files), and search's catch-up has just done both for its
// snapshot of those directories. Listings keeps what such a walk read, so
// that discovery reads each directory and states each file once: search
// installs one while it lists the sessions (SetListings), filled by the
// walk that takes its snapshot; nothing else does, and without one
// discovery reads the directories itself. A directory not in it is read
// as before.

// Listings holds directories as they were read: each entry, and the
// size, mode and time of each regular file and directory among them. It
// is safe for concurrent use.
type Listings struct {
	mu sync.Mutex
	m  map[string][]fs.DirEntry
}

// NewListings is an empty Listings.
func NewListings() *Listings { return &Listings{m: map[string][]fs.DirEntry{}} }

// ReadDir reads dir as os.ReadDir does, states its regular files and
// directories (what Info gives then, without another stat), and keeps
// it; on a nil Listings it is os.ReadDir. A directory that cannot be read
// whole is not kept.
func (l *Listings) ReadDir(dir string) ([]fs.DirEntry, error) {
	des, err := os.ReadDir(dir)
	if l == nil || err != nil {
		return des, err
	}
	out := make([]fs.DirEntry, len(des))
	for i, de := range des {
		out[i] = de
		if !de.IsDir() && !de.Type().IsRegular() {
			continue
		}
		e := &statted{name: de.Name(), typ: de.Type()}
		if fi, err := de.Info(); err == nil {
			e.mode, e.size, e.mtime = fi.Mode(), fi.Size(), fi.ModTime()
		} else {
			e.err = err
		}
		out[i] = e
	}
	l.mu.Lock()
	l.m[filepath.Clean(dir)] = out
	l.mu.Unlock()
	return out, nil
}

// lookup is dir as l holds it.
func (l *Listings) lookup(dir string) ([]fs.DirEntry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	des, ok := l.m[filepath.Clean(dir)]
	return des, ok
}

var listings atomic.Pointer[Listings]

// SetListings makes discovery read directories from l until restore is
// called, which leaves none installed (unless another was installed
// since): a listing kept past its catch-up would hide what changed
// after it, so none outlives the catch-up that installed it, even when
// two overlap.
func SetListings(l *Listings) (restore func()) {
	listings.Store(l)
	return func() { listings.CompareAndSwap(l, nil) }
}

// ReadDir reads dir as os.ReadDir does, from the installed Listings when
// they hold it (then each regular file's and directory's Info needs no
// stat).
func ReadDir(dir string) ([]fs.DirEntry, error) {
	if l := listings.Load(); l != nil {
		if des, ok := l.lookup(dir); ok {
			return des, nil
		}
	}
	return os.ReadDir(dir)
}

// Lstat is os.Lstat, from the installed Listings when they hold the
// directory of path.
func Lstat(path string) (fs.FileInfo, error) {
	if l := listings.Load(); l != nil {
		if des, ok := l.lookup(filepath.Dir(path)); ok {
			name := filepath.Base(path)
			i, found := slices.BinarySearchFunc(des, name, func(de fs.DirEntry, name string) int { return strings.Compare(de.Name(), name) })
			if !found {
				return nil, &fs.PathError{Op: "lstat", Path: path, Err: fs.ErrNotExist}
			}
			return des[i].Info()
		}
	}
	return os.Lstat(path)
}

// statted is a directory entry stated when its directory was read: it is
// its own FileInfo.
type statted struct {
	name  string
	typ   fs.FileMode
	mode  fs.FileMode
	size  int64
	mtime time.Time
	err   error // from the stat: the entry went away meanwhile
}

func (e *statted) Name() string      { return e.name }
func (e *statted) IsDir() bool       { return e.typ.IsDir() }
func (e *statted) Type() fs.FileMode { return e.typ }
func (e *statted) Info() (fs.FileInfo, error) {
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}
func (e *statted) Size() int64        { return e.size }
func (e *statted) Mode() fs.FileMode  { return e.mode }
func (e *statted) ModTime() time.Time { return e.mtime }
func (e *statted) Sys() any           { return nil }
