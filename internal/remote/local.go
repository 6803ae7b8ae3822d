package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// LocalState is what this machine keeps of a remote.
type LocalState struct {
	// Cloned reports whether the local clone exists yet.
	Cloned bool `json:"cloned"`
	// Unsent are bundles made by sends that did not reach the remote.
	Unsent []Sent `json:"unsent,omitempty"`
}

// State reads the local state of remote name in dataDir, without git and
// without waiting for a command that holds the remote.
func State(dataDir, name string) (LocalState, error) {
	var st LocalState
	c := &clone{dir: clonePath(dataDir, name)}
	if _, err := os.Lstat(filepath.Join(c.dir, ".git")); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return st, nil
		}
		return st, err
	}
	st.Cloned = true
	pend, err := c.loadPending()
	if err != nil {
		return st, err
	}
	for _, p := range pend {
		st.Unsent = append(st.Unsent, Sent{BundleID: p.BundleID, HandoffID: p.HandoffID, Recipients: p.Recipients, Time: p.Time, Earlier: true})
	}
	return st, nil
}

// Forget removes the local clone of remote name from dataDir, with any
// unsent bundles in it, once no other command uses it.
func Forget(dataDir, name string) error {
	if err := ValidateName(name); err != nil {
		return err
	}
	lockPath := filepath.Join(dataDir, remotesDir, name+".lock")
	if _, err := os.Stat(filepath.Dir(lockPath)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	lock, err := safefile.LockFile(lockPath)
	if err != nil {
		return fmt.Errorf("lock remote %s: %w", name, err)
	}
	defer lock.Unlock()
	dir := clonePath(dataDir, name)
	// Move it aside first, so that a crash leaves either the whole clone
	// or a temporary directory, never half a clone.
	tmp := filepath.Join(filepath.Dir(dir), ".tmp-forget-"+name)
	os.RemoveAll(tmp)
	if err := os.Rename(dir, tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove clone of %s: %w", name, err)
	}
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("remove clone of %s: %w", name, err)
	}
	return safefile.SyncDir(filepath.Dir(dir))
}
