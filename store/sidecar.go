package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// sidecarsDir holds the sidecars: small files derived from a blob, so
// that a reader need not stream the blob for them (a patch's file
// headers), each named <blob's SHA-256>.<kind>. A sidecar is a cache: a
// missing or damaged one costs its reader a read of the blob, and whoever
// reads one validates it as it would the blob's own bytes.
const sidecarsDir = "blobs/sidecars"

func (s *Store) sidecarDir() string { return filepath.Join(s.dir, filepath.FromSlash(sidecarsDir)) }

// sidecarName is the file name of blob sha256hex's sidecar of kind, or ""
// when either is not well formed (kind: 1 to 16 lower-case letters).
func sidecarName(sha256hex, kind string) string {
	if !validSHA256(sha256hex) || kind == "" || len(kind) > 16 || strings.Trim(kind, "abcdefghijklmnopqrstuvwxyz") != "" {
		return ""
	}
	return sha256hex + "." + kind
}

// PutSidecar stores data as blob sha256hex's sidecar of kind, replacing
// any, written as a blob is: to a locked temporary file, synced, renamed
// into place.
func (s *Store) PutSidecar(sha256hex, kind string, data []byte) (err error) {
	name := sidecarName(sha256hex, kind)
	if name == "" {
		return fmt.Errorf("sidecar %q of blob %q: not a well-formed name", kind, sha256hex)
	}
	dir := s.sidecarDir()
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return fmt.Errorf("create sidecar directory: %w", err)
	}
	f, err := createLockedTemp(dir)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
		f.Close() // releases the temporary file's lock
	}()
	if _, err := f.Write(data); err != nil {
		return safefile.Wrap("write", tmp, err)
	}
	if err := f.Sync(); err != nil {
		return safefile.Wrap("sync", tmp, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("store sidecar %s: %w", name, err)
	}
	return safefile.SyncDir(dir)
}

// ReadSidecar reads blob sha256hex's sidecar of kind, at most limit bytes
// (more is an error wrapping safefile.ErrTooLarge); a missing one is an
// error wrapping ErrNotFound, and anything but a regular file (a link
// included) an error. The caller validates what it holds.
func (s *Store) ReadSidecar(sha256hex, kind string, limit int64) ([]byte, error) {
	name := sidecarName(sha256hex, kind)
	if name == "" {
		return nil, fmt.Errorf("sidecar %q of blob %q: not a well-formed name", kind, sha256hex)
	}
	path := filepath.Join(s.sidecarDir(), name)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sidecar %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, safefile.Wrap("stat", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, safefile.ErrNotRegular)
	}
	data, err := safefile.ReadRegular(path, limit)
	if err != nil {
		return nil, fmt.Errorf("sidecar %s: %w", name, err)
	}
	return data, nil
}

// BlobSize is the size of the blob sha256hex, from its file's metadata
// alone: its content is not read, nor checked against its name. A missing
// blob is an error wrapping ErrNotFound.
func (s *Store) BlobSize(sha256hex string) (int64, error) {
	if !validSHA256(sha256hex) {
		return 0, fmt.Errorf("blob %q: not a SHA-256 in lower-case hex", sha256hex)
	}
	path := filepath.Join(s.blobDir(), sha256hex)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("blob %s: %w", sha256hex, ErrNotFound)
	}
	if err != nil {
		return 0, safefile.Wrap("stat", path, err)
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("%s: %w", path, safefile.ErrNotRegular)
	}
	return fi.Size(), nil
}

// staleSidecars lists the files of the sidecar directory that are no
// sidecar of a blob the store holds (the blob removed, a name not of a
// sidecar), by name, sorted, and with remove set removes them. A sidecar
// whose blob is being put meanwhile may be taken: it is a cache, and its
// reader writes it again.
func (s *Store) staleSidecars(remove bool) ([]string, error) {
	dir := s.sidecarDir()
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, safefile.Wrap("read", dir, err)
	}
	var stale []string
	for _, de := range des {
		name := de.Name()
		if safefile.IsTemp(name) || de.IsDir() {
			continue // checkTemps' concern; a directory is left alone
		}
		sha, kind, _ := strings.Cut(name, ".")
		if sidecarName(sha, kind) == name && de.Type().IsRegular() {
			if _, err := os.Lstat(filepath.Join(s.blobDir(), sha)); !errors.Is(err, fs.ErrNotExist) {
				continue
			}
		}
		stale = append(stale, name)
		if remove {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return stale, fmt.Errorf("remove stale sidecar %s: %w", name, err)
			}
		}
	}
	if remove && len(stale) > 0 {
		return stale, safefile.SyncDir(dir)
	}
	return stale, nil
}
