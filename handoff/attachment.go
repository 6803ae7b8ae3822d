package handoff

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoAttachment is wrapped by FindAttachment's error when no attachment
// has the name asked for.
var ErrNoAttachment = errors.New("no such attachment")

// FindAttachment returns the record's attachment with the given display
// name. A name no attachment has, or one several have, is an error that
// lists the names the record does have (cleaned and shortened, as they
// are untrusted text).
func (r *Record) FindAttachment(name string) (Attachment, error) {
	var found []Attachment
	for _, at := range r.Attachments {
		if at.Name == name {
			found = append(found, at)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return Attachment{}, fmt.Errorf("attachment %q is ambiguous: %d attachments have that name (%s)", Shorten(name, 60), len(found), attachmentNames(r.Attachments))
	case len(r.Attachments) == 0:
		return Attachment{}, fmt.Errorf("attachment %q: %w: the record has no attachments", Shorten(name, 60), ErrNoAttachment)
	}
	return Attachment{}, fmt.Errorf("attachment %q: %w; the record has %s", Shorten(name, 60), ErrNoAttachment, attachmentNames(r.Attachments))
}

// attachmentNames lists the names of ats for an error message, each
// quoted and shortened, at most ten of them.
func attachmentNames(ats []Attachment) string {
	const most = 10
	var names []string
	for i, at := range ats {
		if i == most {
			names = append(names, fmt.Sprintf("and %d more", len(ats)-most))
			break
		}
		names = append(names, fmt.Sprintf("%q", Shorten(at.Name, 60)))
	}
	return strings.Join(names, ", ")
}

// ChangesMediaType is the media type of the attachment that carries a
// worktree's uncommitted changes as a git patch (FORMAT.md §1.1).
const ChangesMediaType = "text/x-git-patch"

// Changes returns the attachment that carries the worktree's uncommitted
// changes, and whether the record has one.
func (r *Record) Changes() (Attachment, bool) {
	for _, at := range r.Attachments {
		if at.MediaType == ChangesMediaType {
			return at, true
		}
	}
	return Attachment{}, false
}

// Uncommitted counts the distinct files the git state lists as staged,
// unstaged or untracked; zero for no git state.
func (g *GitState) Uncommitted() int {
	if g == nil {
		return 0
	}
	seen := map[string]bool{}
	for _, l := range [][]FileStatus{g.Staged, g.Unstaged} {
		for _, f := range l {
			seen[f.Path] = true
		}
	}
	for _, p := range g.Untracked {
		seen[p] = true
	}
	return len(seen)
}
