package handoff

import (
	"net/url"
	"path"
	"slices"
	"strings"
)

// Identity is what makes a repository the same project on every machine,
// wherever it is cloned: its root commit (Project.RootCommit) and the keys
// of its remotes (RemoteKey). A handoff made at another path is the same
// project's when Identity.Matches says so (FORMAT.md §3.2).
type Identity struct {
	// RootCommit is the repository's root commit, empty when unknown.
	RootCommit string
	// RemoteKeys are the keys (RemoteKey) of the repository's remotes.
	RemoteKeys []string
}

// Known reports whether id can match anything.
func (id Identity) Known() bool { return id.RootCommit != "" || len(id.RemoteKeys) > 0 }

// Matches reports whether a handoff whose project has the root commit root
// and the remote key remote (either may be empty) is of the repository id
// describes. Two known root commits decide alone: a fork shares its
// upstream's, and two clones of one remote whose first commits differ are
// not the same history. Otherwise the remote decides.
func (id Identity) Matches(root, remote string) bool {
	if id.RootCommit != "" && root != "" {
		return id.RootCommit == root
	}
	return remote != "" && slices.Contains(id.RemoteKeys, remote)
}

// Takes reports whether r may be taken for the project of the repository
// id describes though it was made at another path: imported from another
// machine (source.kind import), for the same repository (Matches), and
// signed by a key the trust store holds (Source.Vouched), so that a
// stranger's bundle naming a repository never becomes its latest.
func (id Identity) Takes(r *Record) bool {
	return r.Source.Kind == SourceImport && r.Source.Vouched() && id.Matches(r.Project.RootCommit, RemoteKey(r.Project.Remote))
}

// RemoteKey is the part of a remote URL that names the repository the same
// way from every machine: host and path, lower-cased, without the scheme,
// the user, the port, a trailing slash or ".git", so
// "git@github.com:Org/App.git", "ssh://git@github.com:22/org/app" and
// "https://token@github.com/org/app/" share the key "github.com/org/app".
// A local path keeps its cleaned path. Empty for an empty or unusable URL.
func RemoteKey(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > 2048 {
		return ""
	}
	var host, p string
	switch {
	case strings.Contains(raw, "://"):
		u, err := url.Parse(raw)
		if err != nil {
			return ""
		}
		if u.Scheme == "file" {
			host, p = "", u.Path
		} else {
			host, p = u.Hostname(), u.Path
		}
	case scpLike(raw):
		// [user@]host:path, git's scp-like syntax (git-clone(1) "GIT URLS").
		at := strings.LastIndexByte(raw[:strings.IndexByte(raw, ':')], '@')
		hostPath := raw[at+1:]
		i := strings.IndexByte(hostPath, ':')
		host, p = hostPath[:i], hostPath[i+1:]
	default:
		p = raw
	}
	p = strings.TrimSuffix(strings.TrimRight(p, "/"), ".git")
	if host == "" {
		if p == "" {
			return ""
		}
		return path.Clean(p)
	}
	p = strings.Trim(path.Clean("/"+p), "/")
	if p == "" {
		return ""
	}
	return strings.ToLower(host + "/" + p)
}

// scpLike reports whether raw is git's scp-like address: a colon before
// any slash, and not a Windows drive letter.
func scpLike(raw string) bool {
	colon := strings.IndexByte(raw, ':')
	if colon <= 1 {
		return false
	}
	slash := strings.IndexByte(raw, '/')
	return slash < 0 || colon < slash
}

// ValidCommit reports whether s is a full git object name: 40 (SHA-1) or
// 64 (SHA-256) lower-case hex digits.
func ValidCommit(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
