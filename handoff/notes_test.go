package handoff

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func TestNotesApply(t *testing.T) {
	rec, err := New(time.Now(), "codex", "from the transcript")
	if err != nil {
		t.Fatal(err)
	}
	rec.Summary = "transcript summary"
	rec.NextSteps = []string{"transcript step"}
	rec.Tags = []string{"auth"}

	// Empty fields leave rec's alone.
	if err := (Notes{}).Apply(rec); err != nil || rec.Title != "from the transcript" || rec.Summary != "transcript summary" {
		t.Fatalf("empty notes changed the record: %v %+v", err, rec)
	}
	n := Notes{Title: "  Mine  ", Summary: "my summary", NextSteps: []string{"my step"}, Decisions: []string{"keep JWT"},
		OpenQuestions: []string{"why?"}, Tags: []string{"auth", "perf"}}
	if err := n.Apply(rec); err != nil {
		t.Fatal(err)
	}
	if rec.Title != "Mine" || rec.Summary != "my summary" {
		t.Errorf("title %q summary %q: the person's words should win, trimmed", rec.Title, rec.Summary)
	}
	if !slices.Equal(rec.NextSteps, []string{"transcript step", "my step"}) || !slices.Equal(rec.Decisions, []string{"keep JWT"}) || !slices.Equal(rec.OpenQuestions, []string{"why?"}) {
		t.Errorf("lists %q %q %q: the person's items come after the record's own", rec.NextSteps, rec.Decisions, rec.OpenQuestions)
	}
	if !slices.Equal(rec.Tags, []string{"auth", "perf"}) {
		t.Errorf("tags %q: a repeated tag is kept once", rec.Tags)
	}
	if err := (Notes{Decisions: []string{" "}}).Apply(rec); !errors.Is(err, ErrEmptyItem) {
		t.Errorf("an empty item: err %v, want ErrEmptyItem", err)
	}
}
