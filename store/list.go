package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Filter selects records for List. The zero Filter selects every record.
// All the conditions set must hold.
type Filter struct {
	// Tool matches the tool exactly, ignoring case.
	Tool string
	// Project matches the project name exactly or, when it is an absolute
	// path, a project path equal to it or under it.
	Project string
	// Query is a substring, ignoring case, of the title, the first 200
	// bytes of the summary, a tag, or the project name.
	Query string
	// IDPrefix is a prefix of the id, ignoring case.
	IDPrefix string
	// Since keeps records created at or after it; zero means no bound.
	Since time.Time
	// Latest keeps only the match that entered this store last: the one
	// whose index line was written last (saved, imported, or replaced),
	// not the one that claims the newest creation time. An imported
	// record's own date therefore cannot make it "latest". A rebuilt index
	// keeps the entry order (see scanResult.inEntryOrder).
	Latest bool
	// Limit caps the number of entries, newest (last entered) first; 0
	// means no cap.
	Limit int
}

// Entry is what the index knows of one record: enough to list and filter
// without reading the record file.
type Entry struct {
	ID handoff.ID `json:"id"`
	// CreatedAt is the record's creation time to the millisecond, in UTC.
	CreatedAt   time.Time `json:"created_at"`
	Tool        string    `json:"tool"`
	ProjectName string    `json:"project_name"`
	ProjectPath string    `json:"project_path"`
	Title       string    `json:"title"`
	// Branch is the git branch, empty without git state or on a detached
	// HEAD.
	Branch string `json:"branch,omitempty"`
	// Source is the record's source kind: hand, transcript, import, legacy.
	Source string   `json:"source"`
	Tags   []string `json:"tags,omitempty"`
	// Origin is how far to trust where the record came from
	// (handoff.Source.Origin); set by FillOrigins, not by List.
	Origin string `json:"origin,omitempty"`
}

// AmbiguousError is returned by Resolve when a prefix matches more than one
// record.
type AmbiguousError struct {
	// Prefix is the prefix as given.
	Prefix string
	// Candidates are all the records that match, newest first.
	Candidates []Entry
}

// Error says how many records the prefix matches.
func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("id prefix %q is ambiguous: %d handoffs match", e.Prefix, len(e.Candidates))
}

// List returns the records that match f, newest first: the last to enter
// the store first (saved, imported or replaced last: the order of their
// index lines, never their ids or dates, which a sender chooses; with
// f.Latest, the one match that entered last). It reads only the index. A
// pending marker left by a crashed writer is reconciled first if no
// writer holds the lock; a damaged or missing index is rebuilt if the lock
// is free, and otherwise List reads the record files itself without
// writing anything.
func (s *Store) List(f Filter) ([]Entry, error) {
	m, err := newMatcher(f)
	if err != nil {
		return nil, err
	}
	if f.Latest {
		return s.lastEntered(m)
	}
	if m.limit > 0 {
		// The newest are near the end of the index: read from there, and
		// in full only when they are not, or the end is damaged.
		out, err := s.tailNewest(m)
		if !errors.Is(err, errCorruptIndex) && !errors.Is(err, errTailGaveUp) {
			return out, err
		}
	}
	return s.listFull(m)
}

// listFull is List over the whole index, loaded and checked.
func (s *Store) listFull(m *matcher) ([]Entry, error) {
	var out []Entry
	err := s.withIndex(func(ix *parsedIndex) error {
		out = out[:0]
		for k := len(ix.live) - 1; k >= 0; k-- {
			i := ix.entered(k)
			ok, err := m.match(ix.line(i))
			if err != nil {
				return &indexError{Line: ix.lineNumber(i), Reason: err.Error()}
			}
			if !ok {
				continue
			}
			e, err := ix.entry(i)
			if err != nil {
				return err
			}
			out = append(out, e)
			if m.limit > 0 && len(out) == m.limit {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// lastEntered returns the live entry matching m whose index line comes
// last in the file, as a list of at most one.
func (s *Store) lastEntered(m *matcher) ([]Entry, error) {
	found, err := s.latestEntries(m)
	if err != nil || found[0] == nil {
		return nil, err
	}
	return []Entry{*found[0]}, nil
}

// latestEntries returns, for each matcher, the live entry it matches whose
// index line comes last in the file (nil where none does). The first
// matcher decides when to stop; the others are its fallbacks. The index is
// read from its end; when the answer is not near the end, or the end is
// damaged, it is read (and if need be rebuilt) in full.
func (s *Store) latestEntries(ms ...*matcher) ([]*Entry, error) {
	found, err := s.tailLatest(ms...)
	if errors.Is(err, errCorruptIndex) || errors.Is(err, errTailGaveUp) {
		return s.latestEntriesFull(ms...)
	}
	return found, err
}

// latestEntriesFull is latestEntries over the whole index, loaded and
// checked.
func (s *Store) latestEntriesFull(ms ...*matcher) ([]*Entry, error) {
	out := make([]*Entry, len(ms))
	err := s.withIndex(func(ix *parsedIndex) error {
		best := make([]int, len(ms))
		for j := range best {
			best[j] = -1
		}
		for i := range ix.live {
			for j, m := range ms {
				if best[j] >= 0 && ix.live[i].off < ix.live[best[j]].off {
					continue
				}
				ok, err := m.match(ix.line(i))
				if err != nil {
					return &indexError{Line: ix.lineNumber(i), Reason: err.Error()}
				}
				if ok {
					best[j] = i
				}
			}
		}
		for j, i := range best {
			out[j] = nil
			if i < 0 {
				continue
			}
			e, err := ix.entry(i)
			if err != nil {
				return err
			}
			out[j] = &e
		}
		return nil
	})
	return out, err
}

// Resolve turns a reference into a stored id. A reference is a full id, a
// unique id prefix (both ignoring case), or "latest". A prefix that matches
// several records gives an *AmbiguousError listing them; no match gives an
// error wrapping ErrNotFound, and "latest" on an empty store one wrapping
// ErrEmpty. A reference that cannot be an id wraps handoff.ErrInvalidID.
func (s *Store) Resolve(ref string) (handoff.ID, error) {
	if strings.EqualFold(ref, "latest") {
		es, err := s.List(Filter{Latest: true})
		if err != nil {
			return "", err
		}
		if len(es) == 0 {
			return "", fmt.Errorf("latest: %w", ErrEmpty)
		}
		return es[0].ID, nil
	}
	if !handoff.ValidPrefix(ref) {
		return "", fmt.Errorf("%w: %q is not an id, an id prefix or \"latest\"", handoff.ErrInvalidID, handoff.Shorten(ref, 40))
	}
	if len(ref) == handoff.IDLength {
		id, err := handoff.ParseID(ref)
		if err != nil {
			return "", err
		}
		_, err = os.Lstat(s.recordPath(id))
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("handoff %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return "", fmt.Errorf("look up %s: %w", id, err)
		}
		return id, nil
	}
	es, err := s.List(Filter{IDPrefix: ref})
	if err != nil {
		return "", err
	}
	switch len(es) {
	case 0:
		return "", fmt.Errorf("id prefix %s: %w", untrusted.Quote(strings.ToUpper(ref), 64), ErrNotFound)
	case 1:
		return es[0].ID, nil
	}
	return "", &AmbiguousError{Prefix: ref, Candidates: es}
}

// matcher is a compiled Filter.
type matcher struct {
	tool      string
	project   string
	projPath  string // cleaned, when Project is an absolute path
	exactPath bool   // projPath must equal the project path, not contain it
	// elsewhere, with exactPath, also matches a handoff imported from
	// another machine whose project has the identity it returns (read on
	// first need, once).
	elsewhere *lazyIdentity
	// vouchedImports, when set, reads a record whose index line matches
	// and is an import: it matches only when vouched for
	// (handoff.Source.Vouched), as identity matching requires.
	vouchedImports func(id handoff.ID) (*handoff.Record, error)
	query          string // lower case
	queryASCII     bool
	queryComma     bool
	idPrefix       []byte // upper case
	since          bool
	sinceMS        int64
	limit          int
	fields         bool // whether match needs more than the id
}

func newMatcher(f Filter) (*matcher, error) {
	if f.Limit < 0 {
		return nil, fmt.Errorf("list: limit %d is negative", f.Limit)
	}
	m := &matcher{
		tool:    f.Tool,
		project: f.Project,
		query:   strings.ToLower(f.Query),
		limit:   f.Limit,
	}
	if f.Latest {
		m.limit = 1
	}
	if f.IDPrefix != "" {
		if !handoff.ValidPrefix(f.IDPrefix) {
			return nil, fmt.Errorf("list: %w: %q is not an id prefix", handoff.ErrInvalidID, handoff.Shorten(f.IDPrefix, 40))
		}
		m.idPrefix = []byte(strings.ToUpper(f.IDPrefix))
	}
	if filepath.IsAbs(f.Project) {
		m.projPath = filepath.Clean(f.Project)
	}
	m.queryASCII = isASCII([]byte(m.query))
	m.queryComma = strings.IndexByte(m.query, ',') >= 0
	if !f.Since.IsZero() {
		m.since = true
		m.sinceMS = f.Since.UnixMilli()
		if f.Since.Sub(time.UnixMilli(m.sinceMS)) > 0 {
			m.sinceMS++ // created_at is stored to the millisecond
		}
	}
	m.fields = m.tool != "" || m.project != "" || m.query != "" || m.since
	return m, nil
}

// match reports whether a live "+" line matches. Errors mean the line is
// damaged.
func (m *matcher) match(line []byte) (bool, error) {
	if m.idPrefix != nil && !bytes.HasPrefix(line[2:], m.idPrefix) {
		return false, nil
	}
	if !m.fields {
		return true, nil
	}
	f := splitFields(line)
	if m.since {
		ms, ok := parseInt(f[fCreated])
		if !ok {
			return false, fmt.Errorf("created time %q is not a number", handoff.Shorten(string(f[fCreated]), 40))
		}
		if ms < m.sinceMS {
			return false, nil
		}
	}
	if m.tool != "" {
		v, err := fieldValue(f[fTool])
		if err != nil {
			return false, err
		}
		if !bytes.EqualFold(v, []byte(m.tool)) {
			return false, nil
		}
	}
	if m.project != "" {
		name, err := fieldValue(f[fProjectName])
		if err != nil {
			return false, err
		}
		ok := string(name) == m.project && !m.exactPath
		if !ok && m.projPath != "" {
			path, err := fieldValue(f[fProjectPath])
			if err != nil {
				return false, err
			}
			if m.exactPath {
				ok = string(path) == m.projPath
				if !ok && m.elsewhere != nil {
					if ok, err = m.elsewhere.matches(f); err != nil {
						return false, err
					}
				}
			} else {
				ok = under(string(path), m.projPath)
			}
		}
		if !ok {
			return false, nil
		}
	}
	if m.vouchedImports != nil {
		if ok, err := vouchedOrMine(f, m.vouchedImports); err != nil || !ok {
			return false, err
		}
	}
	if m.query != "" {
		for _, i := range [...]int{fTitle, fSummary, fTags, fProjectName} {
			if i == fTags && m.queryComma {
				continue // tags cannot contain a comma; the field joins them with one
			}
			ok, err := m.contains(f[i])
			if err != nil {
				return false, err
			}
			if ok {
				return true, nil
			}
		}
		return false, nil
	}
	return true, nil
}

// contains reports whether the field contains the query, ignoring case.
func (m *matcher) contains(field []byte) (bool, error) {
	v, err := fieldValue(field)
	if err != nil {
		return false, err
	}
	if isASCII(v) {
		// The lower case of ASCII is ASCII: a query that is not cannot match.
		return m.queryASCII && indexFoldASCII(v, m.query), nil
	}
	return strings.Contains(strings.ToLower(string(v)), m.query), nil
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool {
	if !strings.HasPrefix(path, dir) {
		return false
	}
	return len(path) == len(dir) || strings.HasSuffix(dir, "/") || path[len(dir)] == '/'
}

// isASCII reports whether b is all ASCII, eight bytes at a time.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// indexFoldASCII reports whether h contains q, ignoring ASCII case; q is
// lower-case ASCII. Candidates for the first byte are found with the
// vectorised bytes.IndexByte, in both cases for a letter.
func indexFoldASCII(h []byte, q string) bool {
	n := len(q)
	if n == 0 {
		return true
	}
	if len(h) < n {
		return false
	}
	lo, up := q[0], q[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	last := len(h) - n // the last position a match can start at
	nextLo, nextUp := -1, -1
	if lo == up {
		nextUp = len(h) // never
	}
	for pos := 0; pos <= last; {
		if nextLo < pos {
			if nextLo = bytes.IndexByte(h[pos:last+1], lo); nextLo < 0 {
				nextLo = len(h)
			} else {
				nextLo += pos
			}
		}
		if nextUp < pos {
			if nextUp = bytes.IndexByte(h[pos:last+1], up); nextUp < 0 {
				nextUp = len(h)
			} else {
				nextUp += pos
			}
		}
		i := min(nextLo, nextUp)
		if i > last {
			return false
		}
		if equalFoldASCII(h[i+1:i+n], q[1:]) {
			return true
		}
		pos = i + 1
	}
	return false
}

// equalFoldASCII reports whether h equals q ignoring ASCII case; q is lower
// case.
func equalFoldASCII(h []byte, q string) bool {
	for j := 0; j < len(q); j++ {
		if lowerASCII(h[j]) != q[j] {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// ProjectMatch says how LatestForProject found a project's handoff.
type ProjectMatch int

const (
	// NoMatch: the project has no handoff.
	NoMatch ProjectMatch = iota
	// MatchPath: made at the project's own path.
	MatchPath
	// MatchIdentity: imported from another machine, made for the same
	// repository (handoff.Identity) at another path.
	MatchIdentity
	// MatchName: made for a project of the same directory name at another
	// path, on this machine or imported and vouched for, and nothing
	// matched better.
	MatchName
)

// LatestForProject finds the newest handoff made for the project at root:
// the last to enter the store of those made at its path (exactly, not a
// project below it) or, when identity is not nil, imported from another
// machine for the same repository at another path (identity returns this
// project's handoff.Identity; it is called only when such a handoff is a
// candidate, since it costs git calls) and signed by a key the trust
// store holds (handoff.Source.Vouched). Only when neither finds one, a
// handoff made for a project of the same directory name elsewhere is
// taken: made on this machine, or imported and vouched for (a stranger's
// bundle from an unrelated repository of the same name never is). It
// returns nil and NoMatch when there is none.
func (s *Store) LatestForProject(root string, identity func() handoff.Identity) (*handoff.Record, ProjectMatch, error) {
	m, err := newMatcher(Filter{Project: root})
	if err != nil {
		return nil, NoMatch, err
	}
	m.exactPath = true
	if identity != nil {
		m.elsewhere = &lazyIdentity{read: identity, get: s.Get}
	}
	name := filepath.Base(root)
	byName := name != "/" && name != "." && !strings.ContainsRune(name, filepath.Separator)
	// One backward pass finds both; it stops at the first match by path
	// or identity, which wins over any match by name.
	ms := []*matcher{m}
	if byName {
		nm, err := newMatcher(Filter{Project: name})
		if err != nil {
			return nil, NoMatch, err
		}
		// A name says nothing of who made it: an import matched by
		// name alone is taken only when vouched for, as by identity.
		nm.vouchedImports = s.Get
		ms = append(ms, nm)
	}
	// The end of the index first, briefly: a project at work has its
	// newest handoff there.
	found, err := s.tailLatestWithin(projectTailBudget, ms...)
	if errors.Is(err, errTailGaveUp) && m.projPath != "" {
		// Not near the end of the index. Most often the project has no
		// handoff at all (a session in a new project): when no line holds
		// its path, nor its name where no match by name was found, nor
		// (with imports in the store) its identity, that is the answer,
		// found at the speed of a byte search instead of parsing every
		// line. Else the backward scan goes on, and the full read after
		// it.
		need := []string{m.projPath}
		if byName && found[1] == nil {
			need = append(need, name)
		}
		absent, aerr := s.indexLacksFields(need...)
		if aerr == nil && absent && m.elsewhere != nil {
			absent, aerr = s.indexLacksIdentity(m.elsewhere)
		}
		if aerr == nil && absent {
			err = nil
		} else {
			found, err = s.tailLatest(ms...)
		}
	}
	if errors.Is(err, errCorruptIndex) || errors.Is(err, errTailGaveUp) {
		found, err = s.latestEntriesFull(ms...)
	}
	if err != nil {
		return nil, NoMatch, err
	}
	for i, e := range found {
		if e == nil {
			continue
		}
		rec, err := s.Get(e.ID)
		how := MatchPath
		switch {
		case i > 0:
			how = MatchName
		case e.ProjectPath != m.projPath:
			how = MatchIdentity
		}
		return rec, how, err
	}
	return nil, NoMatch, nil
}

// vouchedOrMine reports whether the index line split into f is a handoff
// made on this machine, or imported and vouched for (get reads it whole).
func vouchedOrMine(f [indexFields][]byte, get func(handoff.ID) (*handoff.Record, error)) (bool, error) {
	src, err := fieldValue(f[fSource])
	if err != nil || string(src) != handoff.SourceImport {
		return err == nil, err
	}
	rec, err := get(handoff.ID(f[fID]))
	return err == nil && rec.Source.Vouched(), nil
}

// indexLacksIdentity reports whether no handoff imported from another
// machine can be of the repository id describes: the store has never
// listed an imported handoff with a project identity (the identities
// file, one stat), or no line holds its root commit or a remote key of
// its. The identity is read only in the second case.
func (s *Store) indexLacksIdentity(id *lazyIdentity) (bool, error) {
	may, err := s.mayHoldIdentities()
	if err != nil || !may {
		return !may, err
	}
	here := id.identity()
	if !here.Known() {
		return true, nil
	}
	var need []string
	if here.RootCommit != "" {
		need = append(need, here.RootCommit)
	}
	return s.indexLacksFields(append(need, here.RemoteKeys...)...)
}

// lazyIdentity is a project's identity, read on first need, and what
// decides whether an imported handoff may be taken for the project.
type lazyIdentity struct {
	read func() handoff.Identity
	// get reads a record whose index line matches, for the identity to
	// decide on it whole (handoff.Identity.Takes).
	get  func(id handoff.ID) (*handoff.Record, error)
	done bool
	id   handoff.Identity
}

func (l *lazyIdentity) identity() handoff.Identity {
	if !l.done {
		l.id, l.done = l.read(), true
	}
	return l.id
}

// matches reports whether the index line split into f is a handoff
// imported from another machine for the repository l names, and vouched
// for.
func (l *lazyIdentity) matches(f [indexFields][]byte) (bool, error) {
	if len(f[fRootCommit]) == 0 && len(f[fRemoteKey]) == 0 {
		return false, nil
	}
	src, err := fieldValue(f[fSource])
	if err != nil || string(src) != handoff.SourceImport {
		return false, err
	}
	root, err := fieldValue(f[fRootCommit])
	if err != nil {
		return false, err
	}
	remote, err := fieldValue(f[fRemoteKey])
	if err != nil {
		return false, err
	}
	here := l.identity()
	if !here.Matches(string(root), string(remote)) {
		return false, nil
	}
	rec, err := l.get(handoff.ID(f[fID]))
	return err == nil && here.Takes(rec), nil
}

// Matches reports whether query, ignoring case, occurs in the entry's id,
// title, project name, tool or tags: the picker's filter as the user
// types. The empty query matches every entry.
func (e Entry) Matches(query string) bool {
	hay := strings.ToLower(string(e.ID) + " " + e.Title + " " + e.ProjectName + " " + e.Tool + " " + strings.Join(e.Tags, " "))
	return strings.Contains(hay, strings.ToLower(query))
}

// Pick is the handoff a reference named, with a note on how "latest" was
// decided.
type Pick struct {
	ID handoff.ID
	// Note says in one line which handoff "latest" took when that is not
	// obvious: when the project changed the answer, or when the project
	// has no handoff and the store's newest was taken. It is empty
	// otherwise.
	Note string
	// Fallback is set when the project has no handoff and "latest" is the
	// store's newest, as it would be without a project.
	Fallback bool
}

// ResolveForProject is Resolve with "latest" meaning the newest handoff of
// the project at root (matched as LatestForProject does, identity as
// there), or the store's newest when that project has none or root is
// empty. An id or prefix resolves as Resolve does, wherever the project
// is.
func (s *Store) ResolveForProject(ref, root string, identity func() handoff.Identity) (Pick, error) {
	id, err := s.Resolve(ref)
	if err != nil || root == "" || !strings.EqualFold(ref, "latest") {
		return Pick{ID: id}, err
	}
	rec, match, err := s.LatestForProject(root, identity)
	if err != nil {
		return Pick{}, err
	}
	if rec == nil {
		return Pick{ID: id, Fallback: true, Note: fmt.Sprintf("latest: no handoff for this project; the store's newest is %s", id)}, nil
	}
	if rec.ID == id {
		return Pick{ID: id}, nil
	}
	how := ""
	switch match {
	case MatchName:
		how = " (matched by the directory's name)"
	case MatchIdentity:
		how = " (made on another machine for the same repository)"
	}
	return Pick{ID: rec.ID, Note: fmt.Sprintf("latest: the newest handoff of %s%s (%s)", handoff.CleanText(root), how, rec.ID)}, nil
}
