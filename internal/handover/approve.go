package handover

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/safefile"
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

// Approved reports whether the configuration at path, as it is now, was
// approved in the approvals file.
func Approved(approvals, path string) (bool, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false, err
	}
	digest, err := configDigest(abs)
	if err != nil {
		return false, err
	}
	data, err := safefile.ReadFile(approvals, maxApprovals)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", approvals, err)
	}
	return bytes.Contains(data, []byte(digest+" "+abs+"\n")), nil
}

// Approve records the configuration at path, as it is now, as approved;
// an earlier approval of the same path is replaced.
func Approve(approvals, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if strings.ContainsAny(abs, "\n\r") {
		return fmt.Errorf("%q: a path with a line break cannot be approved", abs)
	}
	digest, err := configDigest(abs)
	if err != nil {
		return err
	}
	return safefile.Update(approvals, "handover approvals", 0o600, func() ([]byte, error) {
		old, err := safefile.ReadFile(approvals, maxApprovals)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read %s: %w", approvals, err)
		}
		var out bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(old))
		sc.Buffer(make([]byte, 0, 4096), maxApprovals)
		for sc.Scan() {
			line := sc.Text()
			if _, p, ok := strings.Cut(line, " "); ok && p == abs {
				continue
			}
			if line != "" {
				out.WriteString(line + "\n")
			}
		}
		out.WriteString(digest + " " + abs + "\n")
		return out.Bytes(), nil
	})
}
