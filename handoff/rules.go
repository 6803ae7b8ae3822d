package handoff

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits on the size of a record's fields. The schema enforces the same
// numbers; they are here so that callers can check input early.
const (
	MaxTitle    = 200
	MaxText     = 64 << 10 // summary and other long text
	MaxItem     = 4 << 10  // one decision, next step, question
	MaxItems    = 200      // items in one list
	MaxTag      = 64
	MaxRecordSz = 4 << 20 // a whole record, encoded
)

// ErrEmptyItem is wrapped when a list item is empty or only white space.
var ErrEmptyItem = errors.New("empty item")

// New returns a record with a fresh id, the current time and the fields a
// record always has; the caller fills in the rest and calls Normalize.
func New(now time.Time, tool, title string) (*Record, error) {
	id, err := NewID(now)
	if err != nil {
		return nil, err
	}
	return &Record{
		SchemaVersion: SchemaVersion,
		ID:            id,
		CreatedAt:     now.UTC().Truncate(time.Millisecond),
		Tool:          tool,
		Title:         title,
		Source:        Source{Kind: SourceHand},
	}, nil
}

// Normalize trims white space from the title, summary and list items,
// lower-cases the tool, drops duplicate tags, and fills in the project name.
// It rejects list items that are empty after trimming rather than silently
// dropping what the user typed.
func (r *Record) Normalize() error {
	r.Title = strings.TrimSpace(r.Title)
	r.Summary = strings.TrimSpace(r.Summary)
	r.Tool = strings.ToLower(strings.TrimSpace(r.Tool))
	r.CreatedAt = r.CreatedAt.UTC()
	for _, l := range []struct {
		name  string
		items *[]string
	}{{"decision", &r.Decisions}, {"next step", &r.NextSteps}, {"question", &r.OpenQuestions}} {
		for i, s := range *l.items {
			s = strings.TrimSpace(s)
			if s == "" {
				return fmt.Errorf("%s %d: %w", l.name, i+1, ErrEmptyItem)
			}
			(*l.items)[i] = s
		}
	}
	seen := map[string]bool{}
	tags := r.Tags[:0]
	for _, t := range r.Tags {
		t = strings.TrimSpace(t)
		if t == "" {
			return fmt.Errorf("tag: %w", ErrEmptyItem)
		}
		if !seen[t] {
			seen[t] = true
			tags = append(tags, t)
		}
	}
	r.Tags = tags
	if r.Project.Name == "" && r.Project.Path != "" {
		r.Project.Name = filepath.Base(r.Project.Path)
	}
	return nil
}

// Check applies the rules the schema cannot express. It returns every
// violation, not only the first.
func (r *Record) Check() []error {
	var errs []error
	if r.SchemaVersion != SchemaVersion {
		errs = append(errs, fmt.Errorf("schema_version: %d, this program handles %d", r.SchemaVersion, SchemaVersion))
	}
	if _, err := ParseID(string(r.ID)); err != nil || string(r.ID) != strings.ToUpper(string(r.ID)) {
		errs = append(errs, fmt.Errorf("id: %q is not a canonical handoff id", Shorten(string(r.ID), 40)))
	}
	if !ValidTool(r.Tool) {
		errs = append(errs, fmt.Errorf("tool: %q must be a lower-case name", Shorten(r.Tool, 40)))
	}
	if strings.TrimSpace(r.Title) == "" {
		errs = append(errs, errors.New("title: must not be empty"))
	}
	for i, t := range r.Tags {
		if !ValidTag(t) {
			errs = append(errs, fmt.Errorf("tags/%d: %q is not a valid tag", i, Shorten(t, 40)))
		}
	}
	if r.Project.Path != "" && !filepath.IsAbs(r.Project.Path) && !strings.HasPrefix(r.Project.Path, "/") {
		errs = append(errs, fmt.Errorf("project.path: %q is not absolute", Shorten(r.Project.Path, 80)))
	}
	if r.Project.RootCommit != "" && !ValidCommit(r.Project.RootCommit) {
		errs = append(errs, fmt.Errorf("project.root_commit: %q is not a full lower-case commit hash", Shorten(r.Project.RootCommit, 80)))
	}
	if r.Source.Kind == SourceImport && r.Source.Import == nil {
		errs = append(errs, errors.New("source.import: required when source.kind is import"))
	}
	if r.Source.LegacyID != "" && (r.Source.Kind != SourceLegacy || !ValidLegacyID(r.Source.LegacyID)) {
		errs = append(errs, fmt.Errorf("source.legacy_id: %q: only for kind legacy, 1 to 128 printable ASCII characters", Shorten(r.Source.LegacyID, 40)))
	}
	return errs
}

// ValidLegacyID reports whether s can be a record's source.legacy_id: 1 to
// 128 printable ASCII characters, no space.
func ValidLegacyID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// ValidTool reports whether s is an acceptable tool name.
// It is the schema's pattern ^[a-z0-9][a-z0-9._-]{0,63}$ as a loop:
// compiling the expression cost a tenth of a millisecond of every save.
func ValidTool(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// ValidTag reports whether s is an acceptable tag.
func ValidTag(s string) bool {
	n := 0
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			return false
		case unicode.IsLetter(r) || unicode.IsNumber(r):
		case i > 0 && strings.ContainsRune("._:/+-", r):
		default:
			return false
		}
		if n++; n > 64 {
			return false
		}
	}
	return n > 0
}
