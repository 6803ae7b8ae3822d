package search

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// The catch-up before a search lists every agent's sessions, which reads
// the start of each: a second or more on a large archive. A fingerprint
// of what could have changed (every file under the agents' session
// directories and the store's own files, by name, size and modification
// time, and every transcript the index holds) lets a search skip that
// when nothing did.

// fingerprintName is the file that holds the fingerprint of the sources
// as the last complete catch-up saw them.
const fingerprintName = "fingerprint"

// maxWalk bounds the files a fingerprint looks at: past it, the catch-up
// always runs.
const maxWalk = 1 << 20

// Fingerprint hashes what could change the sources: every file under
// roots (recursively) and the files directly in flat, each by name, size
// and modification time, and the transcripts the index knows. "" when
// there are too many files to tell.
func (ix *Index) Fingerprint(roots, flat []string) string {
	h := sha256.New()
	n := 0
	add := func(path string, fi fs.FileInfo) {
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:], uint64(fi.Size()))
		binary.LittleEndian.PutUint64(b[8:], uint64(fi.ModTime().UnixNano()))
		h.Write([]byte(path))
		h.Write([]byte{0})
		h.Write(b[:])
		n++
	}
	for _, root := range roots {
		h.Write([]byte("root\x00" + root + "\x00"))
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || n > maxWalk {
				return filepath.SkipDir
			}
			if fi, err := d.Info(); err == nil {
				add(path, fi)
			}
			return nil
		})
	}
	for _, dir := range flat {
		des, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, de := range des {
			if fi, err := de.Info(); err == nil && de.Name() != DirName {
				add(filepath.Join(dir, de.Name()), fi)
			}
		}
	}
	if m, err := ix.readManifest(); err == nil {
		paths := map[string]bool{}
		for k := range m.Live {
			if p, ok := sessionPath(k); ok {
				paths[p] = true
			}
		}
		sorted := make([]string, 0, len(paths))
		for p := range paths {
			sorted = append(sorted, p)
		}
		slices.Sort(sorted)
		for _, p := range sorted {
			if fi, err := os.Stat(p); err == nil {
				add(p, fi)
			} else {
				h.Write([]byte(p + "\x00gone\x00"))
			}
		}
	}
	if n > maxWalk {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sessionPath is the transcript of a session's key
// ("session:AGENT:PATH#ID").
func sessionPath(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "session:")
	if !ok {
		return "", false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] == ':' {
			rest = rest[i+1:]
			break
		}
	}
	for i := len(rest) - 1; i >= 0; i-- {
		if rest[i] == '#' {
			return rest[:i], true
		}
	}
	return "", false
}

// Fresh says the sources' fingerprint is fp, as the last complete
// catch-up saw it.
func (ix *Index) Fresh(fp string) bool {
	if fp == "" {
		return false
	}
	b, err := safefile.ReadFile(filepath.Join(ix.dir, fingerprintName), 256)
	return err == nil && string(b) == fp
}

// SetFresh records fp as what the last complete catch-up saw.
func (ix *Index) SetFresh(fp string) error {
	if fp == "" {
		return nil
	}
	return safefile.WriteFile(filepath.Join(ix.dir, fingerprintName), []byte(fp), 0o600)
}
