package git

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// maxPackedRefs bounds the packed-refs file QuickHead reads; a larger one
// is left to git.
const maxPackedRefs = 4 << 20

// QuickHead is, without starting git, the commit HEAD names in the
// repository UntrustedQuick found: HEAD itself when detached, else the
// branch it names, from its loose ref file or packed-refs
// (gitrepository-layout(5)). ok is false when r was not made by
// UntrustedQuick, and wherever the files are not the plain ones this
// reads (a reftable, a branch that is a symbolic ref, a HEAD naming
// anything but refs/heads/…, a branch with no commit yet): the caller
// then asks git, or does without.
func (r Runner) QuickHead() (oid string, ok bool) {
	if r.quick == nil || !absent(filepath.Join(r.quick.gitDir, "reftable")) {
		return "", false
	}
	head, ok := readSmall(filepath.Join(r.quick.gitDir, "HEAD"), 4096)
	if !ok {
		return "", false
	}
	text := strings.TrimSuffix(string(head), "\n")
	if isOID(text) {
		return text, true
	}
	ref, found := strings.CutPrefix(text, "ref: ")
	if !found || !plainBranch(ref) {
		return "", false
	}
	loose := filepath.Join(r.quick.gitDir, filepath.FromSlash(ref))
	if info, err := os.Lstat(loose); err == nil {
		if !info.Mode().IsRegular() {
			return "", false // a link, a directory…
		}
		data, ok := readSmall(loose, 4096)
		oid := strings.TrimSuffix(string(data), "\n")
		return oid, ok && isOID(oid)
	} else if !absent(loose) {
		return "", false
	}
	packed, ok := readSmall(filepath.Join(r.quick.gitDir, "packed-refs"), maxPackedRefs)
	if !ok {
		return "", false
	}
	for line := range bytes.Lines(packed) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		id, name, found := bytes.Cut(line, []byte(" "))
		if found && string(name) == ref && isOID(string(id)) {
			return string(id), true
		}
	}
	return "", false
}

// QuickShallow reports whether the repository UntrustedQuick found is a
// shallow clone (its history ends at commits a fetch can move); true
// when r was not made by UntrustedQuick.
func (r Runner) QuickShallow() bool {
	return r.quick == nil || !absent(filepath.Join(r.quick.gitDir, "shallow"))
}

// isOID reports whether s is a full object id: 40 or 64 lower-case hex
// digits.
func isOID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// plainBranch reports whether ref is refs/heads/ and a name whose every
// component is plain: no empty, "." or ".." one, no control character or
// backslash (a path that stays below refs/heads).
func plainBranch(ref string) bool {
	name, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok || name == "" {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c == 0x7f || c == '\\' {
			return false
		}
	}
	return true
}
