package store

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// sessionCapture is what a hook's capture of session id makes: a
// transcript record whose session ran from start to last.
func sessionCapture(t *testing.T, at, start, last time.Time, id string, files ...string) *handoff.Record {
	t.Helper()
	r := mkRecord(t, at, "claude-code", "app", "port the lexer")
	r.Summary = ""
	r.Source.Kind, r.Source.Machine = handoff.SourceTranscript, "laptop"
	r.Session = &handoff.Session{Agent: "claude-code", ID: id, StartedAt: &start, LastActivity: &last, Requests: []string{"port the lexer"}}
	for _, f := range files {
		r.Files = append(r.Files, handoff.FileTouched{Path: f, Action: "edited", Edits: 1})
	}
	return r
}

// handSave is what the agent's handoff_save (or save) makes at at.
func handSave(t *testing.T, at time.Time, machine string, next ...string) *handoff.Record {
	t.Helper()
	r := mkRecord(t, at, "claude-code", "app", "Lexer ported; parser next")
	r.Summary = "The lexer is ported."
	r.Source.Kind, r.Source.Machine = handoff.SourceHand, machine
	r.NextSteps = next
	r.Decisions = []string{"Keep the hand-written lexer"}
	return r
}

// The agent saves next steps over MCP, then the session's captures (a
// PreCompact, then the SessionEnd) come: one record, under the save's id,
// keeping what the agent wrote and adding what the transcript shows.
func TestSaveThenCaptureIsOneRecord(t *testing.T) {
	s := newTestStore(t)
	start := baseTime
	save := handSave(t, start.Add(10*time.Minute), "laptop", "Port the parser", "Run the race tests")
	mustSave(t, s, save)

	pre := sessionCapture(t, start.Add(20*time.Minute), start, start.Add(15*time.Minute), "sess-1", "lexer.go")
	if updated, err := s.SaveSessionCapture(pre, handoff.Notes{}); err != nil || !updated {
		t.Fatalf("PreCompact capture: updated %v, %v", updated, err)
	}
	end := sessionCapture(t, start.Add(40*time.Minute), start, start.Add(39*time.Minute), "sess-1", "lexer.go", "parser.go")
	if updated, err := s.SaveSessionCapture(end, handoff.Notes{}); err != nil || !updated {
		t.Fatalf("SessionEnd capture: updated %v, %v", updated, err)
	}
	entries, err := s.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].ID != save.ID {
		t.Fatalf("entries %+v, want the one record %s", entries, save.ID)
	}
	got, err := s.Get(save.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.NextSteps, save.NextSteps) || !slices.Equal(got.Decisions, save.Decisions) ||
		got.Title != save.Title || got.Summary != save.Summary {
		t.Errorf("what the agent wrote was replaced: %+v", got)
	}
	if got.Session == nil || got.Session.ID != "sess-1" || len(got.Files) != 2 {
		t.Errorf("what the transcript shows is missing: session %+v, files %+v", got.Session, got.Files)
	}
	latest, _, err := s.LatestForProject(save.Project.Path, nil)
	if err != nil || latest == nil || latest.ID != save.ID {
		t.Fatalf("latest %v, %v; want %s", latest, err, save.ID)
	}
}

// A capture, then the agent's save in the same session, then the next
// capture: the two records become one, under the first one's id, with the
// save's words.
func TestCaptureSaveCaptureIsOneRecord(t *testing.T) {
	s := newTestStore(t)
	start := baseTime
	pre := sessionCapture(t, start.Add(5*time.Minute), start, start.Add(4*time.Minute), "sess-1", "lexer.go")
	if _, err := s.SaveSessionCapture(pre, handoff.Notes{}); err != nil {
		t.Fatal(err)
	}
	save := handSave(t, start.Add(10*time.Minute), "laptop", "Port the parser")
	mustSave(t, s, save)
	end := sessionCapture(t, start.Add(30*time.Minute), start, start.Add(29*time.Minute), "sess-1", "lexer.go")
	if _, err := s.SaveSessionCapture(end, handoff.Notes{NextSteps: []string{"Tell the user"}}); err != nil {
		t.Fatal(err)
	}
	entries, err := s.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].ID != pre.ID {
		t.Fatalf("entries %+v, want the one record %s", entries, pre.ID)
	}
	got, err := s.Get(pre.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Port the parser", "Tell the user"}; !slices.Equal(got.NextSteps, want) {
		t.Errorf("next steps %q, want %q (the save's, then the capture's own notes)", got.NextSteps, want)
	}
}

// Saves that are not of the session stay records of their own: one made
// before it started or after it ended, one from another machine, one of
// another session.
func TestCaptureLeavesOtherSavesAlone(t *testing.T) {
	s := newTestStore(t)
	start := baseTime
	before := handSave(t, start.Add(-time.Minute), "laptop", "old")
	after := handSave(t, start.Add(2*time.Hour), "laptop", "later")
	elsewhere := handSave(t, start.Add(10*time.Minute), "desktop", "there")
	other := sessionCapture(t, start.Add(11*time.Minute), start, start.Add(10*time.Minute), "sess-0", "x.go")
	for _, r := range []*handoff.Record{before, after, elsewhere, other} {
		mustSave(t, s, r)
	}
	end := sessionCapture(t, start.Add(50*time.Minute), start, start.Add(45*time.Minute), "sess-1", "lexer.go")
	if updated, err := s.SaveSessionCapture(end, handoff.Notes{}); err != nil || updated {
		t.Fatalf("updated %v, %v; want a record of its own", updated, err)
	}
	entries, err := s.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 5 {
		t.Fatalf("%d records, want 5: %+v", len(entries), entries)
	}
	if got, err := s.Get(end.ID); err != nil || len(got.NextSteps) != 0 {
		t.Errorf("the capture took another record's words: %+v, %v", got, err)
	}
}

// A session captured with notes and a transcript attached, then captured
// again with neither (the next hook, or capture run again): one record,
// which keeps the notes (they made it hand-written) and the attachment;
// a newer attachment of the same name replaces the older.
func TestRecaptureKeepsNotesAndAttachments(t *testing.T) {
	s := newTestStore(t)
	start := baseTime
	first := sessionCapture(t, start.Add(10*time.Minute), start, start.Add(9*time.Minute), "sess-1", "lexer.go")
	first.Attachments = []handoff.Attachment{
		{Name: "transcript.jsonl", MediaType: "application/x-ndjson", Size: 1, SHA256: strings.Repeat("a", 64)},
		{Name: "changes.patch", MediaType: "text/x-git-patch", Size: 1, SHA256: strings.Repeat("b", 64)},
	}
	first.Redactions = []handoff.Redaction{{Kind: "github-token", Count: 2}}
	if _, err := s.SaveSessionCapture(first, handoff.Notes{NextSteps: []string{"Port the parser"}}); err != nil {
		t.Fatal(err)
	}
	again := sessionCapture(t, start.Add(20*time.Minute), start, start.Add(19*time.Minute), "sess-1", "lexer.go", "parser.go")
	again.Attachments = []handoff.Attachment{{Name: "changes.patch", MediaType: "text/x-git-patch", Size: 2, SHA256: strings.Repeat("c", 64)}}
	if updated, err := s.SaveSessionCapture(again, handoff.Notes{}); err != nil || !updated {
		t.Fatalf("second capture: updated %v, %v", updated, err)
	}
	entries := mustList(t, s, Filter{})
	if len(entries) != 1 {
		t.Fatalf("%d records, want 1", len(entries))
	}
	got, err := s.Get(entries[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.NextSteps, []string{"Port the parser"}) {
		t.Errorf("next steps %q: the first capture's notes were lost", got.NextSteps)
	}
	var names []string
	for _, a := range got.Attachments {
		names = append(names, a.Name+":"+a.SHA256[:1])
	}
	if !slices.Equal(names, []string{"changes.patch:c", "transcript.jsonl:a"}) {
		t.Errorf("attachments %v, want the newer changes and the first transcript", names)
	}
	if len(got.Redactions) != 1 || got.Redactions[0].Count != 2 {
		t.Errorf("redactions %+v", got.Redactions)
	}
	if len(got.Files) != 2 {
		t.Errorf("files %+v: the newest capture's", got.Files)
	}
}
