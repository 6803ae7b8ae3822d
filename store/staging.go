package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// stagingDir holds the staging directories of imports in progress, on the
// store's own file system so that checked blobs move in by rename.
const stagingDir = "staging"

// stagingLock is the lock file inside each staging directory; its holder
// is alive while the lock is held.
const stagingLock = ".lock"

// Staging is a directory in which an import writes blobs before they are
// checked. Blobs that pass move into the store with AdoptBlob; Close
// removes whatever is left. A staging directory whose owner died is
// removed by Check.
type Staging struct {
	Dir  string
	lock *safefile.Lock
	// subs are the directories Sub made in Dir, by name.
	mu   sync.Mutex
	subs map[string]bool
	// created are the directories NewStaging had to make (the store's
	// own, the staging parent), removed again by Close when empty, so a
	// refused import leaves the file system as it found it.
	created []string
}

// NewStaging creates a staging directory inside the store, and removes
// those of imports that died.
func (s *Store) NewStaging() (*Staging, error) {
	parent := filepath.Join(s.dir, stagingDir)
	st := &Staging{}
	for _, d := range []string{s.dir, parent} {
		if _, err := os.Stat(d); errors.Is(err, fs.ErrNotExist) {
			st.created = append(st.created, d)
		}
	}
	// Another import may remove what this one is making (a Close removes
	// the empty parent; a reaper takes a directory not yet locked for a
	// dead one's): each time, someone else made progress, and this one
	// starts again.
	var err error
	for range maxStagingAttempts {
		if err = st.make(parent); !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		st.removeCreated()
		return nil, fmt.Errorf("create staging directory: %w", err)
	}
	// Staging directories of imports that died (killed, the machine
	// went down) are removed by the next import, not only by Check.
	reapStaging(parent, st.Dir, true)
	return st, nil
}

// maxStagingAttempts bounds the attempts to make a staging directory
// while other imports remove it from under this one.
const maxStagingAttempts = 100

// make makes st's directory in parent and locks it. An error wrapping
// fs.ErrNotExist means another import removed the parent, or took the
// new directory for a dead one's before it was locked, meanwhile.
func (st *Staging) make(parent string) error {
	if err := os.MkdirAll(parent, dirPerm); err != nil {
		return err
	}
	dir, err := os.MkdirTemp(parent, "import-")
	if err != nil {
		return err
	}
	lock, err := safefile.LockFile(filepath.Join(dir, stagingLock))
	if err == nil {
		if _, err = os.Stat(dir); err != nil {
			lock.Unlock()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	st.Dir, st.lock = dir, lock
	return nil
}

// Close removes the staging directory and everything still in it.
func (st *Staging) Close() error {
	err := os.RemoveAll(st.Dir)
	st.lock.Unlock()
	st.removeCreated()
	return err
}

// removeCreated removes, innermost first, the directories NewStaging made,
// where they are empty; the store's own directory stays once it holds
// anything.
func (st *Staging) removeCreated() {
	os.Remove(filepath.Join(filepath.Dir(st.Dir), "")) // the staging parent, if empty
	for i := len(st.created) - 1; i >= 0; i-- {
		os.Remove(st.created[i])
	}
}

// adoptBlob moves a file from a staging directory (or a directory Sub
// named in it) into the store as the blob with the given SHA-256, without
// syncing the blob directory (Batch.AdoptBlob does). The caller vouches
// for the hash (the bundle reader computed it while the file was written
// and synced); OpenBlob checks it again on every read, so a wrong one can
// never be served.
func (s *Store) adoptBlob(st *Staging, path, sha256hex string) error {
	if !validSHA256(sha256hex) {
		return fmt.Errorf("adopt blob: %q is not a sha256 in hex", sha256hex)
	}
	if !st.holds(filepath.Dir(path)) {
		return fmt.Errorf("adopt blob: %s is not in the staging directory", path)
	}
	dir := s.blobDir()
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return fmt.Errorf("create blob directory: %w", err)
	}
	if err := os.Rename(path, filepath.Join(dir, sha256hex)); err != nil {
		return fmt.Errorf("adopt blob %s: %w", sha256hex, err)
	}
	return nil
}

// holds reports whether dir is the staging directory or one Sub made.
func (st *Staging) holds(dir string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return dir == st.Dir || filepath.Dir(dir) == st.Dir && st.subs[filepath.Base(dir)]
}

// Sub names a new directory inside the staging directory, so that
// imports run at once (exchange.ImportMany's) each stage their blobs
// apart: a bundle that fails removes what it wrote, never another's blob
// of the same hash. The directory is not made: whoever writes there makes
// it (bundle.Read does at a bundle's first blob), so a bundle without
// blobs costs none.
func (st *Staging) Sub() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.subs == nil {
		st.subs = map[string]bool{}
	}
	name := fmt.Sprintf("sub-%d", len(st.subs))
	st.subs[name] = true
	return filepath.Join(st.Dir, name)
}

// checkStaging counts staging directories whose import died (their lock
// is free) and, when repairing, removes them.
func (s *Store) checkStaging(rep *CheckReport, repair bool) error {
	found, removed, err := reapStaging(filepath.Join(s.dir, stagingDir), "", repair)
	rep.TempFound += found
	rep.TempRemoved += removed
	return err
}

// reapStaging counts the staging directories under parent whose import
// died (their lock is free), other than keep, and with remove set removes
// them. An empty directory without its lock file is one being made (or
// whose import died before it locked it), never judged. One whose maker made the lock file but has
// not locked it yet may be taken for a dead one: its maker finds it gone
// once it holds the lock, and makes another.
func reapStaging(parent, keep string, remove bool) (found, removed int, err error) {
	des, err := os.ReadDir(parent)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, safefile.Wrap("read", parent, err)
	}
	for _, de := range des {
		dir := filepath.Join(parent, de.Name())
		if dir == keep {
			continue
		}
		lockPath := filepath.Join(dir, stagingLock)
		if _, err := os.Lstat(lockPath); err != nil {
			if des, _ := os.ReadDir(dir); len(des) == 0 {
				continue // being made: not ours to judge
			}
		}
		l, err := safefile.TryLockFile(lockPath)
		if err != nil || l == nil {
			continue // alive, or not ours to judge
		}
		found++
		if remove {
			if err := os.RemoveAll(dir); err != nil {
				l.Unlock()
				return found, removed, fmt.Errorf("remove dead staging directory %s: %w", dir, err)
			}
			removed++
		}
		l.Unlock()
	}
	return found, removed, nil
}
