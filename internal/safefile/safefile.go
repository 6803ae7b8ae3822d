// Package safefile writes files so that a crash at any instant leaves either
// the old content or the new one, and serialises writers with advisory locks.
//
// Every write goes to a temporary file in the destination directory, is
// fsynced, renamed over the destination, and the directory is fsynced so the
// rename itself is durable. A failed write removes its temporary file.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// tempPrefix starts the name of every temporary file this package creates,
// so that a checker can recognise (and clean up) leftovers of a crash.
const tempPrefix = ".tmp-"

// IsTemp reports whether name (a base name) is one of this package's
// temporary files.
func IsTemp(name string) bool {
	return len(name) > len(tempPrefix) && name[:len(tempPrefix)] == tempPrefix
}

// WriteFile atomically replaces path with data, created with perm.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write atomically replaces path with whatever fill writes. If fill returns
// an error, the destination is untouched and the temporary file is removed.
func Write(path string, perm os.FileMode, fill func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("set mode of temporary file: %w", err)
	}
	if err = fill(NewWritebackWriter(f)); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", filepath.Base(path), err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", filepath.Base(path), err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	return SyncDir(dir)
}

// Create writes a new file at path atomically, failing with an error that
// wraps fs.ErrExist if path already exists. Unlike Write it never replaces
// an existing file, so concurrent creators cannot overwrite each other.
func Create(path string, data []byte, perm os.FileMode) error {
	if err := Place(path, data, perm, true); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// Place writes data to a temporary file beside path, fsyncs it and puts it
// in place: exclusive fails with an error wrapping fs.ErrExist if path
// exists (as Create), otherwise it replaces path (as WriteFile). It does
// not sync the directory: a caller placing many files in one directory
// calls SyncDir once, before anything depends on their names.
func Place(path string, data []byte, perm os.FileMode, exclusive bool) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	defer f.Close()
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("set mode of temporary file: %w", err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", filepath.Base(path), err)
	}
	if !exclusive {
		if err = os.Rename(tmp, path); err != nil {
			return fmt.Errorf("rename into place: %w", err)
		}
		return nil
	}
	// A hard link fails if path exists, which makes the creation exclusive
	// while the content is already complete and durable.
	if err = os.Link(tmp, path); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) && errors.Is(le.Err, os.ErrExist) {
			return fmt.Errorf("%s: %w", filepath.Base(path), os.ErrExist)
		}
		return fmt.Errorf("link into place: %w", err)
	}
	return nil
}

// SyncDir fsyncs a directory so that renames and removals in it are durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory for sync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// Remove deletes path and fsyncs its directory. A missing file is not an error.
func Remove(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// ReadFile reads the file at path, a path a user gave or the tool keeps,
// bounded: files larger than limit bytes are refused, so that a hostile or
// corrupt file cannot make the caller allocate without bound, and so is
// anything but a regular file (ReadRegular): a named pipe, which opened
// for reading would wait for a writer for ever (deaf to SIGTERM), a
// device such as /dev/zero, a directory. It is the one read of a file by
// its path; stdin ("-", where a command takes it) is the way to pipe.
func ReadFile(path string, limit int64) ([]byte, error) {
	return ReadRegular(path, limit)
}

// ErrTooLarge is wrapped by errors for inputs over a size limit.
var ErrTooLarge = errors.New("too large")

// ReadAllLimit reads r to the end but fails once more than limit bytes arrive.
func ReadAllLimit(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: over %d bytes", ErrTooLarge, limit)
	}
	return data, nil
}

// Update rewrites the file at path under the lock file path+".lock", so
// that concurrent read-modify-write cycles do not lose each other's
// changes: fn reads the current state and returns the new content, which
// is written atomically with perm, or nil when nothing changed. The
// directory is created (0700) if missing. If fn fails, nothing is written.
// what names the file in errors.
func Update(path, what string, perm os.FileMode, fn func() ([]byte, error)) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create directory of %s: %w", what, err)
	}
	lock, err := LockFile(path + ".lock")
	if err != nil {
		return fmt.Errorf("lock %s: %w", what, err)
	}
	defer func() {
		if uerr := lock.Unlock(); uerr != nil && err == nil {
			err = fmt.Errorf("unlock %s: %w", what, uerr)
		}
	}()
	data, err := fn()
	if err != nil || data == nil {
		return err
	}
	if err := WriteFile(path, data, perm); err != nil {
		return fmt.Errorf("write %s %s: %w", what, path, err)
	}
	return nil
}
