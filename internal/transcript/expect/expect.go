// Package expect is for tests only: it compares what a transcript reader
// made of a transcript with what the transcript is known to hold, field by
// field. The expectations of the real transcripts in the tests of
// internal/transcript and of each agent's folder (internal/agents/<name>),
// and the held-out check (scripts/heldout.sh), are written in its terms.
// It imports no reader, so that every reader's tests can use it.
package expect

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/schema"
)

// Want is what a transcript is known to hold, established from the script
// or the session that made it, not from the reader's output.
type Want struct {
	Title string
	// Requests are the user's requests in order; each is a prefix of the
	// request read (real requests run to pages).
	Requests []string
	// Files maps each touched path to its action and edit count.
	Files map[string]File
	// Commands must be in the digest (each a prefix of the command text);
	// NumCommands is the number of distinct commands.
	Commands    []Command
	NumCommands int
	// OpenFailure is a prefix of the last failure's command, "" for none.
	OpenFailure string
	Todos       []handoff.Todo
	// Compaction is a substring of the compaction summary, "" for none.
	Compaction string
	// Plan is a substring of the session's plan, "" for none; PlanStatus
	// is its status.
	Plan, PlanStatus string
	// Cancelled says the user stopped the last turn.
	Cancelled bool
	// FailedEdits maps each file whose edit failed (and no later edit
	// changed) to how often and by whom; none when empty.
	FailedEdits map[string]FailedEdit
}

// FailedEdit is a failed edit's expected count and author ("" for the
// session's agent).
type FailedEdit struct {
	Count int
	By    string
}

// File is a touched file's expected action and edit count; By names who
// changed it when not the session's agent.
type File struct {
	Action string
	Edits  int
	By     string
}

// Command is an expected command: a prefix of its text, its exit code
// (nil: none recorded), how often it ran, its status when set, and who ran
// it when not the session's agent.
type Command struct {
	Prefix string
	Exit   *int
	Count  int
	Status string
	By     string
}

// Exit returns a pointer to an exit code, for tables.
func Exit(code int) *int { return &code }

// Got is what the reader made: the digest's title, session, files and
// whether its last turn was cancelled.
type Got struct {
	Title     string
	Session   handoff.Session
	Files     []handoff.FileTouched
	Cancelled bool
}

// Marks are an agent's own words that must not survive reading.
type Marks struct {
	// Injected says whether a request still holds text the agent or a
	// hook injected rather than what the user typed; Requests adds the
	// marks every agent's reader removes.
	Injected func(request string) bool
	// Wrappers are the agent's words around a compaction summary.
	Wrappers []string
}

// Fields are the fields Compare tells apart, in the order the held-out
// check prints them.
var Fields = []string{"title", "requests", "files", "commands", "last_failure", "todos", "compaction", "plan", "cancelled", "failed_edits"}

// Mismatch is one way a digest differs from its expectation, in one of
// Fields.
type Mismatch struct{ Field, Msg string }

type mismatches []Mismatch

func (ms *mismatches) add(field, format string, args ...any) {
	*ms = append(*ms, Mismatch{field, fmt.Sprintf(format, args...)})
}

// Check fails t with each mismatch between got and want.
func Check(t testing.TB, got Got, want Want, marks Marks) {
	t.Helper()
	for _, m := range Compare(got, want, marks) {
		t.Errorf("%s: %s", m.Field, m.Msg)
	}
}

// Compare compares got with want field by field.
func Compare(got Got, want Want, marks Marks) []Mismatch {
	var ms mismatches
	s := got.Session
	if got.Title != want.Title {
		ms.add("title", "title %q, want %q", got.Title, want.Title)
	}
	if len(s.Requests) != len(want.Requests) {
		ms.add("requests", "%d requests, want %d: %q", len(s.Requests), len(want.Requests), s.Requests)
	} else {
		for i, w := range want.Requests {
			if !strings.HasPrefix(s.Requests[i], w) {
				ms.add("requests", "request %d is %q, want it to start with %q", i, s.Requests[i], w)
			}
		}
	}
	for _, r := range s.Requests {
		if injected(r) || marks.Injected != nil && marks.Injected(r) {
			ms.add("requests", "request %q holds text the agent injected", handoff.Shorten(r, 80))
		}
	}
	ms.files(got.Files, want.Files)
	ms.commands(s.Commands, want)
	switch {
	case want.OpenFailure == "" && s.LastFailure != nil:
		ms.add("last_failure", "open failure %q, want none", s.LastFailure.Command)
	case want.OpenFailure != "" && (s.LastFailure == nil || !strings.HasPrefix(s.LastFailure.Command, want.OpenFailure)):
		ms.add("last_failure", "open failure %+v, want one starting %q", s.LastFailure, want.OpenFailure)
	}
	if !sameTodos(s.Todos, want.Todos) {
		ms.add("todos", "todos %+v, want %+v", s.Todos, want.Todos)
	}
	for _, w := range marks.Wrappers {
		if strings.Contains(s.CompactionSummary, w) {
			ms.add("compaction", "compaction keeps the agent's wrapper %q", w)
		}
	}
	switch {
	case want.Compaction == "" && s.CompactionSummary != "":
		ms.add("compaction", "compaction %q, want none", s.CompactionSummary)
	case want.Compaction != "" && !strings.Contains(s.CompactionSummary, want.Compaction):
		ms.add("compaction", "compaction %q, want it to contain %q", s.CompactionSummary, want.Compaction)
	}
	switch {
	case want.Plan == "" && (s.Plan != "" || s.PlanStatus != ""):
		ms.add("plan", "plan %q (%s), want none", handoff.Shorten(s.Plan, 80), s.PlanStatus)
	case want.Plan != "" && (!strings.Contains(s.Plan, want.Plan) || s.PlanStatus != want.PlanStatus):
		ms.add("plan", "plan %q (%s), want one containing %q (%s)", handoff.Shorten(s.Plan, 80), s.PlanStatus, want.Plan, want.PlanStatus)
	}
	if got.Cancelled != want.Cancelled {
		ms.add("cancelled", "last turn cancelled %v, want %v", got.Cancelled, want.Cancelled)
	}
	ms.failedEdits(s.FailedEdits, want.FailedEdits)
	return ms
}

// failedEdits compares the failed edits exactly: an expectation that
// names none holds the transcript to none.
func (ms *mismatches) failedEdits(got []handoff.FailedEdit, want map[string]FailedEdit) {
	if len(got) != len(want) {
		ms.add("failed_edits", "%d failed edits, want %d: %+v", len(got), len(want), got)
	}
	for _, fe := range got {
		w, ok := want[fe.Path]
		switch {
		case !ok:
			ms.add("failed_edits", "failed edit of %q (%d, by %q) not expected", fe.Path, fe.Count, fe.By)
		case fe.Count != w.Count || fe.By != w.By:
			ms.add("failed_edits", "failed edit of %q: %d by %q, want %d by %q", fe.Path, fe.Count, fe.By, w.Count, w.By)
		case strings.TrimSpace(fe.Error) == "":
			ms.add("failed_edits", "failed edit of %q: no error text", fe.Path)
		}
	}
}

// injected reports whether a request holds a tagged block of context the
// agents inject (<environment_context>, <system-reminder>,
// <hook_context>…), which every reader removes.
func injected(r string) bool {
	for _, mark := range []string{"<environment_context>", "<system-reminder>", "<hook_context>",
		"<session_context>", "<user_instructions>", "<local-command-", "<command-name>",
		"<recommended_plugins>", "<state_snapshot>", "# AGENTS.md instructions"} {
		if strings.Contains(r, mark) {
			return true
		}
	}
	return false
}

// CheckFiles fails t with each mismatch between the files touched and
// want.
func CheckFiles(t testing.TB, got []handoff.FileTouched, want map[string]File) {
	t.Helper()
	var ms mismatches
	ms.files(got, want)
	for _, m := range ms {
		t.Error(m.Msg)
	}
}

func (ms *mismatches) files(got []handoff.FileTouched, want map[string]File) {
	if len(got) != len(want) {
		ms.add("files", "%d files touched, want %d: %+v", len(got), len(want), got)
	}
	for _, f := range got {
		w, ok := want[f.Path]
		if !ok {
			ms.add("files", "file %q (%s, %d edits) not expected", f.Path, f.Action, f.Edits)
			continue
		}
		if f.Action != w.Action || f.Edits != w.Edits || f.By != w.By {
			ms.add("files", "file %q: %s with %d edits by %q, want %s with %d by %q", f.Path, f.Action, f.Edits, f.By, w.Action, w.Edits, w.By)
		}
	}
}

func (ms *mismatches) commands(got []handoff.Command, want Want) {
	if len(got) != want.NumCommands {
		ms.add("commands", "%d distinct commands, want %d", len(got), want.NumCommands)
	}
	for _, w := range want.Commands {
		c := FindCommand(got, w.Prefix)
		if c == nil {
			ms.add("commands", "no command starting %q", w.Prefix)
			continue
		}
		switch {
		case (c.ExitCode == nil) != (w.Exit == nil):
			ms.add("commands", "command %q: exit code %v, want %v", w.Prefix, c.ExitCode, w.Exit)
		case c.ExitCode != nil && *c.ExitCode != *w.Exit:
			ms.add("commands", "command %q: exit code %d, want %d", w.Prefix, *c.ExitCode, *w.Exit)
		}
		if c.Count != w.Count {
			ms.add("commands", "command %q: count %d, want %d", w.Prefix, c.Count, w.Count)
		}
		if w.Status != "" && c.Status != w.Status {
			ms.add("commands", "command %q: status %q, want %q", w.Prefix, c.Status, w.Status)
		}
		if c.By != w.By {
			ms.add("commands", "command %q: by %q, want %q", w.Prefix, c.By, w.By)
		}
	}
}

// FindCommand is the first of cmds whose text starts with prefix.
func FindCommand(cmds []handoff.Command, prefix string) *handoff.Command {
	for i := range cmds {
		if strings.HasPrefix(cmds[i].Command, prefix) {
			return &cmds[i]
		}
	}
	return nil
}

func sameTodos(a, b []handoff.Todo) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Covered fails t unless the files matching pattern under dir (a glob of
// paths relative to it, such as "*/*.jsonl") and the keys of expectations
// (those paths, with '/') are the same: a transcript kept without its
// expectation, or an expectation of a file no longer there. No file
// matching is a failure too.
func Covered[V any](t testing.TB, dir, pattern string, expectations map[string]V) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Errorf("no file matches %s under %s", pattern, dir)
	}
	rels := make([]string, len(files))
	for i, f := range files {
		rel, err := filepath.Rel(dir, f)
		if err != nil {
			t.Fatal(err)
		}
		rels[i] = filepath.ToSlash(rel)
	}
	CoveredFiles(t, rels, expectations, nil)
}

// CoveredFiles fails t unless files (paths with '/') and the keys of
// expectations are the same, but for pending: files that have no
// expectation yet, each of which must still be among files and still
// have none.
func CoveredFiles[V any](t testing.TB, files []string, expectations map[string]V, pending map[string]bool) {
	t.Helper()
	seen := map[string]bool{}
	for _, rel := range files {
		seen[rel] = true
		_, have := expectations[rel]
		switch {
		case have && pending[rel]:
			t.Errorf("%s has an expectation: take it off the pending list", rel)
		case !have && !pending[rel]:
			t.Errorf("%s has no expectation", rel)
		}
	}
	for rel := range expectations {
		if !seen[rel] {
			t.Errorf("the expectation of %s has no file", rel)
		}
	}
	for rel := range pending {
		if !seen[rel] {
			t.Errorf("%s is pending an expectation but is no file kept", rel)
		}
	}
}

// CommandNamed is the command in cmds that is exactly cmd, or nil.
func CommandNamed(cmds []handoff.Command, cmd string) *handoff.Command {
	for i := range cmds {
		if cmds[i].Command == cmd {
			return &cmds[i]
		}
	}
	return nil
}

// FileAt is the file of files at path, or nil.
func FileAt(files []handoff.FileTouched, path string) *handoff.FileTouched {
	for i := range files {
		if files[i].Path == path {
			return &files[i]
		}
	}
	return nil
}

// LastRequest is the session's last request, or "".
func LastRequest(s handoff.Session) string {
	if len(s.Requests) == 0 {
		return ""
	}
	return s.Requests[len(s.Requests)-1]
}

// CommandNames are the session's commands, joined by "|".
func CommandNames(s handoff.Session) string {
	var out []string
	for _, c := range s.Commands {
		out = append(out, c.Command)
	}
	return strings.Join(out, "|")
}

// Storable fails t unless a digest of this title, session and files makes
// a handoff record the schema takes: a digest must always be storable.
func Storable(t testing.TB, title string, s handoff.Session, files []handoff.FileTouched) {
	t.Helper()
	if strings.TrimSpace(title) == "" {
		title = "untitled"
	}
	rec, err := handoff.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), s.Agent, title)
	if err != nil {
		t.Fatal(err)
	}
	rec.Project = handoff.Project{Path: "/p", Name: "p"}
	rec.Session = &s
	rec.Files = files
	rec.Source = handoff.Source{Kind: handoff.SourceTranscript}
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(schema.Handoff, data); err != nil {
		t.Errorf("digest does not make a valid record: %v", err)
	}
}

// Lines joins ls as the lines of a file, each ended by a newline.
func Lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// JSONString is s as a JSON string, for lines written by hand: quotes,
// backslashes and newlines escaped.
func JSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
