package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// A project's latest handoff may be one imported from another machine for
// the same repository (LatestForProject). For a project with no handoff
// of its own, finding that none is would mean reading the whole index for
// imported lines, at every session start in a new project. The
// identities file says instead, with one stat, whether there can be any:
// it is made, durably, before the first index line of an imported record
// that carries its project's identity (a root commit or a remote) is
// written, and never removed but by a rebuild that finds no such record.
// Its absence is a promise; its presence only says "look".

// identityBearing reports whether the index lines in lines (whole "+" or
// "*" lines, each with its newline; "-" lines are passed over) list an
// imported record that carries its project's identity.
func identityBearing(lines []byte) bool {
	for len(lines) > 0 {
		line, rest, _ := bytes.Cut(lines, []byte{'\n'})
		lines = rest
		if _, reason := checkLine(line); reason != "" || line[0] == '-' {
			continue
		}
		f := splitFields(line)
		if string(f[fSource]) == handoff.SourceImport && (len(f[fRootCommit]) > 0 || len(f[fRemoteKey]) > 0) {
			return true
		}
	}
	return false
}

// markIdentities makes the identities file, durably, when lines are
// identity-bearing and it is not there yet. Called with the write lock
// held, before lines are written to the index.
func (s *Store) markIdentities(lines []byte) error {
	if !identityBearing(lines) {
		return nil
	}
	path := s.path(identitiesFile)
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := safefile.WriteFile(path, []byte("the index may list imported records with a project identity\n"), filePerm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// mayHoldIdentities reports whether the index may list an imported record
// that carries its project's identity: false is certain.
func (s *Store) mayHoldIdentities() (bool, error) {
	_, err := os.Stat(s.path(identitiesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
