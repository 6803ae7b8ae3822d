package git

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// QuickRemote is, without starting git, what `git remote` and `git
// remote get-url NAME` answer together: the URL of the origin remote, or
// of the first remote by name when there is no origin, with git's
// url.<base>.insteadOf rewriting applied (the longest matching prefix
// wins, the first of equal ones), credentials not yet removed; "" when
// no remote is configured. ok is false when r was not made by
// UntrustedQuick, or when the configuration files it read hold anything
// this reading is not sure to take as git does: then the caller asks git.
//
// It reads the files UntrustedQuick found complete (none includes
// another), in git's order (system, global, the repository's config),
// each parsed as git's config.c parses it (quotes, escapes, continued
// lines, comments, a key after a section header, the old [remote.name]
// header), and gives up at what git would refuse or this reading does
// not take (an unknown escape, a NUL, a byte-order mark, a remote with
// no URL or an empty one, a dotted section name beside a quoted
// subsection), at a config.worktree file, and at remotes defined the old
// way (files in .git/remotes or .git/branches). As get-url, it knows
// only a remote the repository's own file names; one named only in the
// global or system file gives "".
func (r Runner) QuickRemote() (url string, ok bool) {
	if r.quick == nil {
		return "", false
	}
	for _, old := range []string{"remotes", "branches"} {
		if entries, err := os.ReadDir(filepath.Join(r.quick.gitDir, old)); err == nil && len(entries) > 0 {
			return "", false
		} else if err != nil && !os.IsNotExist(err) {
			return "", false
		}
	}
	repoConfig := filepath.Join(r.quick.gitDir, "config")
	var rc remoteConfig
	for _, f := range r.quick.configs {
		if f == os.DevNull || absent(f) {
			continue
		}
		if f == filepath.Join(r.quick.gitDir, "config.worktree") {
			// Read by git only with extensions.worktreeConfig, which
			// UntrustedQuick never lets through.
			return "", false
		}
		data, ok := readSmall(f, maxQuickConfig)
		if !ok || !rc.read(data, f == repoConfig) {
			return "", false
		}
	}
	return rc.url()
}

// remoteConfig is what QuickRemote gathers from the configuration files:
// each remote's URLs, the remotes in the order first met, those the
// repository's own file configures, and the insteadOf rewrites.
type remoteConfig struct {
	names   []string
	urls    map[string][]string
	inRepo  map[string]bool
	rewrite [][2]string // {prefix, base}, in the order met
}

// url is the URL git remote get-url gives for the remote Remote picks.
func (rc *remoteConfig) url() (string, bool) {
	if len(rc.names) == 0 {
		return "", true
	}
	for _, n := range rc.names {
		if len(rc.urls[n]) == 0 {
			return "", false
		}
	}
	name := slices.Min(rc.names) // git remote lists them sorted
	if slices.Contains(rc.names, "origin") {
		name = "origin"
	}
	if !rc.inRepo[name] {
		// git remote get-url knows only a remote the repository's own
		// configuration names (remote.c, remote_is_configured).
		return "", true
	}
	u := rc.urls[name][0]
	best := -1
	for i, rw := range rc.rewrite {
		if strings.HasPrefix(u, rw[0]) && (best < 0 || len(rw[0]) > len(rc.rewrite[best][0])) {
			best = i
		}
	}
	if best >= 0 {
		u = rc.rewrite[best][1] + u[len(rc.rewrite[best][0]):]
	}
	return u, true
}

// read takes the remotes and rewrites of one configuration file's text,
// parsed as git's config.c parses it (git-config(1) "CONFIGURATION
// FILE"); false where git would refuse the file, or where this reading
// is not sure to agree with git's.
func (rc *remoteConfig) read(data []byte, repo bool) bool {
	if bytes.IndexByte(data, 0) >= 0 || bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return false
	}
	p := configParser{data: bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))}
	var section, sub string
	for {
		c, eof := p.next()
		switch {
		case eof:
			return true
		case c == '\n' || c == ' ' || c == '\t' || c == '\r':
			continue
		case c == '#' || c == ';':
			p.skipLine()
			continue
		case c == '[':
			var ok bool
			if section, sub, ok = p.header(); !ok {
				return false
			}
			continue
		case !isAlpha(c) || section == "":
			return false
		}
		key, value, set, ok := p.keyValue(c)
		if !ok {
			return false
		}
		if !rc.take(section, sub, key, value, set, repo) {
			return false
		}
	}
}

// take keeps one key of the configuration, if it names a remote's URL
// or a rewrite; false where it is not sure to agree with git.
func (rc *remoteConfig) take(section, sub, key, value string, set, repo bool) bool {
	switch {
	case section == "remote" && sub != "":
		if !slices.Contains(rc.names, sub) {
			rc.names = append(rc.names, sub)
		}
		if repo {
			if rc.inRepo == nil {
				rc.inRepo = map[string]bool{}
			}
			rc.inRepo[sub] = true
		}
		if key == "url" {
			if !set || value == "" {
				return false
			}
			if rc.urls == nil {
				rc.urls = map[string][]string{}
			}
			rc.urls[sub] = append(rc.urls[sub], value)
		}
	case section == "url" && sub != "" && key == "insteadof":
		if !set || value == "" {
			return false
		}
		rc.rewrite = append(rc.rewrite, [2]string{value, sub})
	case (section == "remote" || section == "url") && sub == "":
		return false
	}
	return true
}

// configParser reads a configuration file's bytes one at a time, as
// git's get_next_char does ("\r\n" already made "\n").
type configParser struct {
	data []byte
	at   int
}

func (p *configParser) next() (c byte, eof bool) {
	if p.at >= len(p.data) {
		return '\n', true
	}
	p.at++
	return p.data[p.at-1], false
}

func (p *configParser) skipLine() {
	for {
		if c, eof := p.next(); eof || c == '\n' {
			return
		}
	}
}

// header reads a section header after its "[": `[name]` or
// `[name.sub]` (both in lower case, split at the first dot) or
// `[name "sub"]` (sub as written, with git's escapes). A name with a
// dot beside a quoted subsection is left to git.
func (p *configParser) header() (section, sub string, ok bool) {
	var name []byte
	for {
		c, eof := p.next()
		switch {
		case eof:
			return "", "", false
		case c == ']':
			if len(name) == 0 {
				return "", "", false
			}
			section, sub, _ := strings.Cut(string(name), ".")
			return section, sub, true
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			return p.quotedSub(string(name), c)
		case !isKeyChar(c) && c != '.':
			return "", "", false
		}
		name = append(name, lower(c))
	}
}

// quotedSub reads the `"sub"]` of a header whose name was read, c the
// blank after it.
func (p *configParser) quotedSub(name string, c byte) (section, sub string, ok bool) {
	if name == "" || strings.Contains(name, ".") {
		return "", "", false
	}
	for c == ' ' || c == '\t' || c == '\r' {
		c, _ = p.next()
	}
	if c != '"' {
		return "", "", false
	}
	var b []byte
	for {
		c, eof := p.next()
		if eof || c == '\n' {
			return "", "", false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c, eof = p.next(); eof || c == '\n' {
				return "", "", false
			}
		}
		b = append(b, c)
	}
	if c, _ := p.next(); c != ']' {
		return "", "", false
	}
	return name, string(b), true
}

// keyValue reads a key (its first letter c read) and its value, as git's
// get_value and parse_value do: the key in lower case; set false for a
// key alone (git's boolean true); the value with its quotes removed, its
// escapes (\\, \", \n, \t, \b, and a backslash before a newline, which
// continues the line) undone, a comment cut off, blanks before it
// dropped, those after it dropped unless more of it follows, and each
// blank inside it out of quotes made a space.
func (p *configParser) keyValue(c byte) (key, value string, set, ok bool) {
	name := []byte{lower(c)}
	var eof bool
	for {
		if c, eof = p.next(); eof || !isKeyChar(c) {
			break
		}
		name = append(name, lower(c))
	}
	for c == ' ' || c == '\t' {
		c, eof = p.next()
	}
	if c == '\n' {
		return string(name), "", false, true
	}
	if c != '=' {
		return "", "", false, false
	}
	var v []byte
	quoted, comment, space := false, false, 0
	for {
		c, _ := p.next()
		switch {
		case c == '\n':
			return string(name), string(v), true, !quoted
		case comment:
			continue
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			if len(v) > 0 {
				space++
			}
			continue
		case !quoted && (c == '#' || c == ';'):
			comment = true
			continue
		}
		for ; space > 0; space-- {
			v = append(v, ' ')
		}
		switch c {
		case '\\':
			e, eof := p.next()
			switch {
			case eof:
				return "", "", false, false
			case e == '\n':
				continue
			case e == 't':
				v = append(v, '\t')
			case e == 'b':
				v = append(v, '\b')
			case e == 'n':
				v = append(v, '\n')
			case e == '\\' || e == '"':
				v = append(v, e)
			default:
				return "", "", false, false
			}
		case '"':
			quoted = !quoted
		default:
			v = append(v, c)
		}
	}
}

func isAlpha(c byte) bool   { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isKeyChar(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' || c == '-' }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
