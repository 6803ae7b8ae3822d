package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
	"github.com/session-handoff/session-handoff/store"
)

// maxTextInput bounds text read from a file or stdin for one field.
const maxTextInput = 1 << 20

// openStore opens the store named by --store or the default location.
func (a *app) openStore() (*store.Store, error) {
	dir := a.global.storeDir
	if dir == "" {
		d, err := paths.Data(a.getenv)
		if err != nil {
			return nil, err
		}
		dir = d
	}
	s, err := store.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	// What the store worked around (a corrupt record left out of a rebuilt
	// index) is said, one line each, without stopping the command.
	warn := func(err error) {
		fmt.Fprintf(a.stderr, "session-handoff: warning: %s\n", untrusted.OneLine(err.Error(), maxLine))
	}
	s.SetWarn(warn)
	// Trust is decided when a record is read, against the trust store as
	// it is now (handoff.Source.Recheck).
	if kr, err := a.keyring(); err == nil {
		s.SetTrust(kr.Binds(warn))
	} else {
		s.SetTrust(func(string, string) bool { return false })
	}
	return s, nil
}

// resolve turns an id, unique prefix or "latest" into a stored id, with a
// hint for the usual mistakes.
func resolve(s *store.Store, ref string) (string, error) {
	id, err := s.Resolve(ref)
	if err != nil {
		id, err = resolveLegacy(s, ref, err)
	}
	if err == nil {
		return string(id), nil
	}
	return "", resolveHint(err)
}

// resolveLegacy looks ref up as an id an earlier version gave a record
// (kept by import --legacy) when it named no current id (err).
func resolveLegacy(s *store.Store, ref string, err error) (handoff.ID, error) {
	if !errors.Is(err, store.ErrNotFound) && !errors.Is(err, handoff.ErrInvalidID) {
		return "", err
	}
	id, lerr := s.ResolveLegacy(ref)
	if lerr == nil {
		return id, nil
	}
	var amb *store.AmbiguousError
	if errors.As(lerr, &amb) {
		return "", lerr
	}
	return "", err
}

// resolveHint adds a hint for the usual mistakes to an error of
// store.Resolve.
func resolveHint(err error) error {
	var amb *store.AmbiguousError
	switch {
	case errors.As(err, &amb):
		ids := make([]string, 0, len(amb.Candidates))
		for i, c := range amb.Candidates {
			if i == 5 {
				ids = append(ids, fmt.Sprintf("and %d more", len(amb.Candidates)-5))
				break
			}
			ids = append(ids, string(c.ID))
		}
		return withHint(err, "use a longer prefix: "+strings.Join(ids, ", "))
	case errors.Is(err, store.ErrEmpty):
		return withHint(err, "save one with 'session-handoff save --title …'")
	case errors.Is(err, store.ErrNotFound):
		return withHint(err, "run 'session-handoff list' to see what is stored")
	}
	return err
}

// resolveHere turns ref into a stored id, "latest" meaning the newest
// handoff of the project of the working directory unless allProjects, and
// says on stderr which one "latest" took when that is not obvious.
func (a *app) resolveHere(s *store.Store, ref string, allProjects bool) (handoff.ID, error) {
	pick, err := a.pickHere(s, ref, allProjects)
	return pick.ID, err
}

// pickHere is resolveHere's store.Pick: with the record, when finding it
// read it.
func (a *app) pickHere(s *store.Store, ref string, allProjects bool) (store.Pick, error) {
	root := ""
	if !allProjects && strings.EqualFold(ref, "latest") {
		// No project found (the directory is gone, git fails): the
		// store's newest, as before projects counted.
		root, _ = capture.ProjectRoot(a.ctx, ".")
	}
	pick, err := s.ResolveForProject(ref, root, capture.IdentityFunc(a.ctx, root))
	if err != nil {
		id, err := resolveLegacy(s, ref, err)
		if err != nil {
			return store.Pick{}, resolveHint(err)
		}
		return store.Pick{ID: id}, nil
	}
	// The store's newest, taken because this project has none, is worth a
	// note inside a git worktree, where another project's handoff may be
	// a surprise; outside any, it is what "latest" always meant.
	if pick.Note != "" && (!pick.Fallback || inWorktree(a, root)) {
		fmt.Fprintf(a.stderr, "session-handoff: %s\n", pick.Note)
	}
	return pick, nil
}

// inWorktree reports whether root is the top of a git worktree.
func inWorktree(a *app, root string) bool {
	top, err := capture.Root(a.ctx, root)
	return err == nil && top == root
}

// openRecord opens the store and reads the handoff ref names (an id, a
// unique prefix or "latest", which resolveHere decides).
func (a *app) openRecord(ref string, allProjects bool) (*store.Store, *handoff.Record, error) {
	s, err := a.openStore()
	if err != nil {
		return nil, nil, err
	}
	pick, err := a.pickHere(s, ref, allProjects)
	if err != nil {
		return s, nil, err
	}
	if pick.Record != nil {
		return s, pick.Record, nil
	}
	rec, err := s.Get(pick.ID)
	return s, rec, err
}

// allProjectsUsage is the help of --all-projects on the commands that take
// an id.
const allProjectsUsage = "\"latest\" is the newest handoff in the whole store, not of this project"

// readText reads a long text field from a file, or from stdin for "-".
func (a *app) readText(path string) (string, error) {
	var r io.Reader
	name := path
	if path == "-" {
		r, name = a.stdin, "standard input"
	} else {
		f, _, err := safefile.OpenRegular(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		r = f
	}
	data, err := safefile.ReadAllLimit(r, maxTextInput)
	if err != nil {
		return "", safefile.Wrap("read", name, err)
	}
	return string(data), nil
}

// writeJSON prints v as indented JSON.
//
// Text from outside stays exactly what it was, but the characters that
// would change what a terminal shows (bidirectional and invisible format
// characters, DEL, C1 controls) are written as \u escapes, as Go's encoder
// already does for C0 controls and line separators.
func (a *app) writeJSON(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := a.stdout.Write(escapeInvisible(buf.Bytes()))
	return err
}

// escapeInvisible writes the runes of JSON text that a terminal would not
// show as themselves as \u escapes. They can only stand inside strings,
// where an escape means the same rune.
func escapeInvisible(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || (r >= 0x80 && r < 0xa0) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			if out == nil {
				out = append(make([]byte, 0, len(b)+16), b[:i]...)
			}
			if r >= 0x10000 {
				r1, r2 := utf16.EncodeRune(r)
				out = fmt.Appendf(out, "\\u%04x\\u%04x", r1, r2)
			} else {
				out = fmt.Appendf(out, "\\u%04x", r)
			}
		} else if out != nil {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	if out == nil {
		return b
	}
	return out
}

// parseSince reads --since (store.ParseSince); a bad value is a usage
// error.
func parseSince(s string, now time.Time) (time.Time, error) {
	t, err := store.ParseSince(s, now)
	if err != nil {
		return time.Time{}, usagef("--since %w", err)
	}
	return t, nil
}

// warn prints a warning on stderr without stopping the command.
func (a *app) warn(format string, args ...any) {
	fmt.Fprintf(a.stderr, "session-handoff: warning: %s\n", untrusted.OneLine(fmt.Sprintf(format, args...), maxLine))
}

// clean makes record text safe to print on a terminal.
func clean(s string) string { return handoff.CleanText(s) }
