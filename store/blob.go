package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// blobTempPattern names a blob being written. It starts with safefile's
// temporary prefix, so that Check recognises crash leftovers.
const blobTempPattern = ".tmp-blob-*"

func (s *Store) blobDir() string { return filepath.Join(s.dir, filepath.FromSlash(blobsDir)) }

// PutBlob stores the content of r, at most limit bytes, under its SHA-256
// and returns the hash in lower-case hex and the size. The content streams
// to a temporary file while it is hashed, then is renamed into place, so a
// crash never leaves a partial blob under a hash name. Storing the same
// content again is harmless. More than limit bytes is an error wrapping
// safefile.ErrTooLarge.
func (s *Store) PutBlob(r io.Reader, limit int64) (sha256hex string, size int64, err error) {
	if limit <= 0 {
		return "", 0, fmt.Errorf("store blob: limit %d is not positive", limit)
	}
	dir := s.blobDir()
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return "", 0, fmt.Errorf("create blob directory: %w", err)
	}
	f, err := createLockedTemp(dir)
	if err != nil {
		return "", 0, err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
		f.Close() // releases the temporary file's lock
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, limit+1))
	if err != nil {
		return "", 0, fmt.Errorf("store blob: %w", err)
	}
	if n > limit {
		return "", 0, fmt.Errorf("store blob: %w: more than %d bytes", safefile.ErrTooLarge, limit)
	}
	if err := f.Sync(); err != nil {
		return "", 0, fmt.Errorf("store blob: sync %s: %w", tmp, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	final := filepath.Join(dir, sum)
	// Renaming over an existing blob replaces it with the same bytes.
	if err := os.Rename(tmp, final); err != nil {
		return "", 0, fmt.Errorf("store blob %s: %w", sum, err)
	}
	if err := safefile.SyncDir(dir); err != nil {
		return "", 0, fmt.Errorf("store blob %s: %w", sum, err)
	}
	return sum, n, nil
}

// createLockedTemp creates a temporary file in dir and holds an exclusive
// lock on it until it is closed, so that Check can tell it from a crash
// leftover.
func createLockedTemp(dir string) (*os.File, error) {
	for range 10 {
		f, err := os.CreateTemp(dir, blobTempPattern)
		if err != nil {
			return nil, fmt.Errorf("store blob: create temporary file: %w", err)
		}
		if err := safefile.Flock(f, false); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, fmt.Errorf("store blob: lock %s: %w", f.Name(), err)
		}
		// Check may have taken the file for a leftover and removed it
		// between its creation and the lock: then start again.
		if same, _ := sameFile(f, f.Name()); same {
			return f, nil
		}
		f.Close()
	}
	return nil, errors.New("store blob: temporary files keep disappearing")
}

// sameFile reports whether path still names the open file f.
func sameFile(f *os.File, path string) (bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	pi, err := os.Lstat(path)
	if err != nil {
		return false, err
	}
	return os.SameFile(fi, pi), nil
}

// deadBlobTemp reports whether the blob temporary file at path is a crash
// leftover (no PutBlob holds its lock), and removes it if remove is set.
func deadBlobTemp(path string, remove bool) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, safefile.Wrap("open", path, err)
	}
	defer f.Close()
	if err := safefile.Flock(f, true); err != nil {
		if errors.Is(err, safefile.ErrLocked) {
			return false, nil
		}
		return false, fmt.Errorf("lock %s: %w", path, err)
	}
	if same, _ := sameFile(f, path); !same {
		return false, nil
	}
	if remove {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("remove leftover %s: %w", path, err)
		}
	}
	return true, nil
}

// OpenBlob opens the blob with the given SHA-256 (lower-case hex) and
// returns it with its size. The reader checks the content against the hash
// as it goes and returns an error instead of io.EOF if they differ. A
// missing blob gives an error wrapping ErrNotFound.
func (s *Store) OpenBlob(sha256hex string) (io.ReadCloser, int64, error) {
	if !validSHA256(sha256hex) {
		return nil, 0, fmt.Errorf("blob %q: not a SHA-256 in lower-case hex", handoff.Shorten(sha256hex, 80))
	}
	path := filepath.Join(s.blobDir(), sha256hex)
	f, err := os.OpenFile(path, os.O_RDONLY|safefile.OpenNonBlock, 0) // a named pipe must not block
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, fmt.Errorf("blob %s: %w", sha256hex, ErrNotFound)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("open blob: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, safefile.Wrap("stat", path, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	}
	return &blobReader{f: f, h: sha256.New(), want: sha256hex, path: path}, st.Size(), nil
}

func validSHA256(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// blobReader reads a blob and checks its hash at the end.
type blobReader struct {
	f    *os.File
	h    hash.Hash
	want string
	path string
}

func (b *blobReader) Read(p []byte) (int, error) {
	n, err := b.f.Read(p)
	b.h.Write(p[:n])
	if err == io.EOF {
		if got := hex.EncodeToString(b.h.Sum(nil)); got != b.want {
			return n, fmt.Errorf("blob %s: content does not match its name (sha256 %s)", b.path, got)
		}
		return n, io.EOF
	}
	if err != nil {
		return n, safefile.Wrap("read", b.path, err)
	}
	return n, nil
}

func (b *blobReader) Close() error { return b.f.Close() }
