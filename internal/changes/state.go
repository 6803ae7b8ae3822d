package changes

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

// State says whether a worktree holds a patch's changes, as far as a cheap
// look can tell.
type State int

// The states of AppliedState.
const (
	// CannotTell: the look cannot tell (a file changed since, a mix, a
	// filter or end-of-line conversion git would apply, a link, an id
	// not given in full, a file past the bound). Never said as either.
	CannotTell State = iota
	// AllApplied: every file the patch changes is as the patch leaves it.
	AllApplied
	// NoneApplied: every file is as it was before the patch.
	NoneApplied
)

// MaxHashed bounds the bytes AppliedState reads, in all.
const MaxHashed = 64 << 20

// AppliedState decides, without running git, whether the worktree at root
// holds the changes of the patch data (issue 49: the session-start hook
// waited on 'git apply --check --reverse', 15 s for a 30 MB patch, then
// said "not applied" of a worktree that had them). Each file the patch
// changes is hashed as git hashes a blob, its bytes as they are, and
// compared with the ids the patch's index lines give (Make writes them in
// full): every file at its new content is AllApplied, every file at its
// old content (absent for a file the patch creates, and for one it
// deletes when applied) NoneApplied, and anything else CannotTell. A path is read only
// through directories, never through a link. It reads at most MaxHashed
// bytes and starts no process.
func AppliedState(root string, data []byte) State {
	files, err := headers(bytes.NewReader(data))
	if err != nil {
		return CannotTell
	}
	return stateOf(root, files)
}

// CarriedState is what rec carries of its worktree's uncommitted changes
// (how many files; 0 when none) and AppliedState of the worktree at root,
// from the patch's file headers alone, and no git starts (the
// session-start briefing and show call it). The headers come from the
// patch's headers sidecar (KeepHeaders), so that its cost does not grow
// with the patch; without a sound one (a store of an earlier version, a
// damaged or planted sidecar) the patch is streamed for them, as its
// hunks and binary blocks pass unread, and the sidecar written, so that
// the next look is as cheap.
func CarriedState(s *store.Store, rec *handoff.Record, root string) (files int, st State, err error) {
	at, ok := rec.Changes()
	if !ok {
		return 0, CannotTell, nil
	}
	if at.Size > MaxPatch {
		return 0, CannotTell, fmt.Errorf("%s: over %d bytes", Name, MaxPatch)
	}
	fs, ok := storedHeaders(s, at)
	if !ok {
		// An error writing the sidecar leaves the headers as read.
		if fs, err = patchHeaders(s, at, true); fs == nil {
			return 0, CannotTell, err
		}
	}
	return len(fs), stateOf(root, fs), nil
}

// diffGit opens a file's header.
var diffGit = []byte("diff --git ")

// headers reads a patch's file headers alone: each "diff --git" line's
// path (checked as Check checks it) and its index line's ids. A hunk's
// lines start with ' ', '+', '-' or '\\', and a binary block's lines hold
// no space, so no line of either is taken for a header.
func headers(r io.Reader) ([]File, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var files []File
	inHeader := false
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long content line: no header; read through it.
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			inHeader = false
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		if n == 1 && strings.TrimSuffix(string(line), "\n") != header {
			return nil, fmt.Errorf("%w: not a session-handoff changes patch", ErrHostile)
		}
		if !bytes.HasPrefix(line, diffGit) && !inHeader {
			// A hunk's or a binary block's line: passed over unread.
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		l := strings.TrimSuffix(string(line), "\n")
		switch {
		case strings.HasPrefix(l, "diff --git "):
			path, perr := headerPath(strings.TrimPrefix(l, "diff --git "))
			if perr == nil {
				perr = checkPath(path)
			}
			if perr != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrHostile, n, perr)
			}
			if len(files) == MaxFiles {
				return nil, fmt.Errorf("%w: over %d files", ErrHostile, MaxFiles)
			}
			files = append(files, File{Path: path, Status: "M"})
			inHeader = true
		case inHeader && strings.HasPrefix(l, "index "):
			from, to, ierr := indexLine(strings.TrimPrefix(l, "index "))
			if ierr == nil && isHash(from) && isHash(to) {
				files[len(files)-1].OldBlob, files[len(files)-1].Blob = from, to
			}
		case inHeader && (strings.HasPrefix(l, "@@ ") || l == "GIT binary patch" || strings.HasPrefix(l, "--- ")):
			inHeader = false
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: the patch changes no file", ErrHostile)
	}
	return files, nil
}

// stateOf is AppliedState of the worktree at root for the patch's files.
func stateOf(root string, files []File) State {
	budget := int64(MaxHashed)
	applied, before := true, true
	for _, f := range files {
		if f.Blob == "" || f.OldBlob == "" {
			return CannotTell
		}
		id, err := worktreeBlob(root, f.Path, len(f.Blob), &budget)
		if err != nil {
			return CannotTell
		}
		applied = applied && id == f.Blob
		before = before && id == f.OldBlob
		if !applied && !before {
			return CannotTell
		}
	}
	switch {
	case applied:
		return AllApplied
	case before:
		return NoneApplied
	}
	return CannotTell
}

// absentID is the id the index line gives a file that does not exist on
// one side: all zeros, as long as the repository's ids.
func absentID(n int) string { return strings.Repeat("0", n) }

// errNotPlain is returned for a path that is no plain file (a link on the
// way or at the path, a directory, a device).
var errNotPlain = errors.New("not a plain file")

// worktreeBlob is the git blob id (of n hex digits: SHA-1 or SHA-256) of
// the file at rel under root as it is on disk, all zeros when it does not
// exist; each component is looked at without following it.
func worktreeBlob(root, rel string, n int, budget *int64) (string, error) {
	parts := strings.Split(rel, "/")
	p := root
	for i, part := range parts {
		p = filepath.Join(p, part)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return absentID(n), nil
		}
		if err != nil {
			return "", err
		}
		last := i == len(parts)-1
		if !last && !info.IsDir() || last && !info.Mode().IsRegular() {
			return "", errNotPlain
		}
		if last {
			if info.Size() > *budget {
				return "", errors.New("over the bound")
			}
			*budget -= info.Size()
		}
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return "", errNotPlain
	}
	var h hash.Hash = sha1.New()
	if n == 64 {
		h = sha256.New()
	}
	h.Write([]byte("blob " + strconv.FormatInt(info.Size(), 10) + "\x00"))
	if m, err := io.Copy(h, io.LimitReader(f, info.Size()+1)); err != nil || m != info.Size() {
		return "", errors.New("changed while read")
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
