package handover

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// maxApprovals bounds the approvals file.
const maxApprovals = 1 << 20

// configDigest is the hash of a configuration file's exact bytes.
func configDigest(path string) (string, error) {
	data, err := safefile.ReadRegular(path, MaxConfigSize)
	if err != nil {
		return "", readError(path, err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// approval is one line of the approvals file.
type approval struct {
	digest, path string
}

// parseApprovals reads the approvals file's lines: each is the SHA-256 of
// the approved bytes in lower-case hex, one space, and the absolute path
// (which may hold spaces: it runs to the end of the line). Empty lines are
// skipped; anything else is an error naming the file and the line, so
// that a damaged file never approves by accident.
func parseApprovals(file string, data []byte) ([]approval, error) {
	var out []approval
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" {
			continue
		}
		digest, path, ok := strings.Cut(line, " ")
		switch {
		case !ok || !isHexDigest(digest):
			return nil, fmt.Errorf("%s:%d: want a sha256 in lower-case hex, a space and a path", file, i+1)
		case !filepath.IsAbs(path) || strings.ContainsAny(path, "\r\x00"):
			return nil, fmt.Errorf("%s:%d: %q is not an absolute path", file, i+1, shortPath(path))
		}
		out = append(out, approval{digest, path})
	}
	return out, nil
}

func isHexDigest(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func shortPath(p string) string {
	if len(p) > 80 {
		return p[:80] + "…"
	}
	return p
}

// readApprovals reads and parses the approvals file; a missing file holds
// no approvals.
func readApprovals(file string) ([]approval, error) {
	data, err := safefile.ReadFile(file, maxApprovals)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, safefile.Wrap("read", file, err)
	}
	return parseApprovals(file, data)
}

// Approved reports whether the configuration at path, as it is now, was
// approved in the approvals file: a line with exactly its path and the
// digest of its bytes.
func Approved(approvals, path string) (bool, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false, err
	}
	digest, err := configDigest(abs)
	if err != nil {
		return false, err
	}
	list, err := readApprovals(approvals)
	if err != nil {
		return false, err
	}
	for _, a := range list {
		if a.digest == digest && a.path == abs {
			return true, nil
		}
	}
	return false, nil
}

// Approve records the configuration at path, as it is now, as approved;
// an earlier approval of the same path is replaced. A damaged approvals
// file is not rewritten: the error names its line.
func Approve(approvals, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if strings.ContainsAny(abs, "\n\r\x00") {
		return fmt.Errorf("%s: a path with a line break cannot be approved", untrusted.Quote(abs, 256))
	}
	digest, err := configDigest(abs)
	if err != nil {
		return err
	}
	return safefile.Update(approvals, "handover approvals", 0o600, func() ([]byte, error) {
		list, err := readApprovals(approvals)
		if err != nil {
			return nil, err
		}
		var out bytes.Buffer
		for _, a := range list {
			if a.path != abs {
				out.WriteString(a.digest + " " + a.path + "\n")
			}
		}
		out.WriteString(digest + " " + abs + "\n")
		return out.Bytes(), nil
	})
}
