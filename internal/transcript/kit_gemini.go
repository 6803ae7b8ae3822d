package transcript

import (
	"slices"
	"strings"
)

// Toolkit for the readers in agents' folders (internal/agents/<name>),
// beyond kit.go: paths an agent reports touching, contents that are a
// value or lists of them, and discovery that probes some files otherwise
// than by lines.

// Touched adds paths the agent itself reports touching, without saying
// how: each is an edited file unless known already. A relative path is
// taken relative to the session's directory (SetCWD).
func (b *Builder) Touched(paths []string) {
	if len(paths) == 0 {
		return
	}
	e := event{kind: evTouch}
	for _, p := range paths {
		e.ops = append(e.ops, fileOp{path: joinPath(b.d.CWD, p)})
	}
	foldEvent(b.f, b.d.CWD, e)
}

// ProbeSessionsWith is ProbeSessions with probe to probe each of the
// newest files: it fills s from its file and says whether s is a session
// to list.
func ProbeSessionsWith(agent Agent, files []Candidate, probe func(s *SessionInfo) bool) []SessionInfo {
	slices.SortFunc(files, func(a, b Candidate) int {
		if c := b.ModTime.Compare(a.ModTime); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	out := make([]SessionInfo, 0, len(files))
	for _, c := range files {
		out = append(out, SessionInfo{Agent: agent, Path: c.Path, ID: c.ID, CWD: c.CWD, LastActivity: c.ModTime})
	}
	probed := out[:min(len(out), maxProbed)]
	eachParallel(len(probed), func(i int) {
		s := &probed[i]
		s.empty = !probe(s)
	})
	out = slices.DeleteFunc(out, func(s SessionInfo) bool { return s.empty })
	slices.SortStableFunc(out, func(a, b SessionInfo) int { return b.LastActivity.Compare(a.LastActivity) })
	return out
}

// ProbeFile feeds p the head and the tail of s's file and fills s, as
// ProbeSessions does for each file it probes; it says whether s is a
// session to list. A file that cannot be read is listed as found.
func ProbeFile(s *SessionInfo, p Prober) bool { return probeFile(s, p) }

// EachLeaf walks b, one JSON value, in one pass: fn gets each value in it
// that is not an array, in order, nested arrays flattened, with the index
// of the element of b it lies in (-1 when b is no array): the parts of a
// content that may be a value or a list of them. The bytes are b's, valid
// while b is. It fails when b is not one JSON value.
func EachLeaf(b []byte, fn func(leaf []byte, top int)) error {
	var p jsonParser
	p.b = b
	p.ws()
	ok := false
	if p.i < len(p.b) && p.b[p.i] == '[' {
		n := 0
		ok = p.elements(func() bool {
			n++
			return p.leaves(fn, n-1)
		})
	} else {
		ok = p.leaves(fn, -1)
	}
	p.ws()
	if !ok || p.i != len(p.b) {
		return errNotValue
	}
	return nil
}

// leaves walks the value at p.i for EachLeaf, descending into arrays.
func (p *jsonParser) leaves(fn func([]byte, int), top int) bool {
	if p.i >= len(p.b) {
		return false
	}
	if p.b[p.i] == '[' {
		return p.elements(func() bool { return p.leaves(fn, top) })
	}
	start := p.i
	if !p.skip() {
		return false
	}
	fn(p.b[start:p.i], top)
	return true
}
