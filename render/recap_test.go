package render_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/render"
)

// The recap holds every part the summary drops, fenced, and fits the
// agent's limit however large the session: fences stay balanced when it
// is cut.
func TestRenderRecap(t *testing.T) {
	rec := fullRecord()
	rec.Session.Requests = []string{"FIRST: port the lexer", "then the parser", "LAST: run the race tests"}
	rec.Session.Plan = "1. Split tokens\n2. Port scanner"
	rec.Session.PlanStatus = handoff.PlanApproved
	res, err := render.RenderRecap(rec, render.Options{Budget: render.Budget{Bytes: 10_000}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FIRST: port the lexer", "LAST: run the race tests", "who approved it", "Split tokens", "It is the same session, not a new handoff"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("lacks %q:\n%s", want, res.Text)
		}
	}
	rec.Session.LastAgentMessage, rec.Session.CompactionSummary = "LAST-MESSAGE-TEXT", "SUMMARY-TEXT"
	if res, _ := render.RenderRecap(rec, render.Options{}); strings.Contains(res.Text, "LAST-MESSAGE-TEXT") || strings.Contains(res.Text, "SUMMARY-TEXT") {
		t.Errorf("repeats the session's own last message or summary:\n%s", res.Text)
	}

	// A huge session: still within the budget, the first request kept,
	// every fence closed.
	for i := range 400 {
		rec.Session.Requests = append(rec.Session.Requests, fmt.Sprintf("request %d %s", i, strings.Repeat("x", 500)))
		rec.Files = append(rec.Files, handoff.FileTouched{Path: fmt.Sprintf("pkg/f%d.go", i), Action: "edited"})
	}
	for _, budget := range []int{10_000, 3_000, 1_200} {
		res, err := render.RenderRecap(rec, render.Options{Budget: render.Budget{Bytes: budget}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Text) > budget {
			t.Errorf("budget %d: %d bytes", budget, len(res.Text))
		}
		if strings.Count(res.Text, "```text")*2 != strings.Count(res.Text, "```") {
			t.Errorf("budget %d: unbalanced fences:\n%s", budget, res.Text)
		}
		if budget == 10_000 && !strings.Contains(res.Text, "FIRST: port the lexer") {
			t.Errorf("budget %d: the first request is lost", budget)
		}
	}
}

// A long session's recap, at Claude Code's limit, names every request
// and every file, and the open failure.
func TestRecapNamesEveryRequestAndFile(t *testing.T) {
	rec := fullRecord()
	rec.Session.Requests = nil
	rec.Files = nil
	for i := range 30 {
		rec.Session.Requests = append(rec.Session.Requests, fmt.Sprintf("request %02d: %s", i, strings.Repeat("please do the thing ", 20)))
	}
	for i := range 100 {
		rec.Files = append(rec.Files, handoff.FileTouched{Path: fmt.Sprintf("internal/pkg%02d/file%02d.go", i%7, i), Action: "edited"})
	}
	for i := range 60 {
		rec.Session.Commands = append(rec.Session.Commands, handoff.Command{Command: fmt.Sprintf("go test ./internal/pkg%02d/ -run TestThing%d", i%7, i)})
	}
	res, err := render.RenderRecap(rec, render.Options{Budget: render.Budget{Bytes: 10_000 - 512}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if want := fmt.Sprintf("request %02d: please do", i); !strings.Contains(res.Text, want) {
			t.Errorf("lacks %q", want)
		}
	}
	for _, f := range rec.Files {
		if !strings.Contains(res.Text, f.Path) {
			t.Errorf("lacks %s", f.Path)
		}
	}
	if !strings.Contains(res.Text, rec.Session.LastFailure.Command) {
		t.Errorf("lacks the open failure")
	}
	if len(res.Text) > 10_000-512 {
		t.Errorf("%d bytes", len(res.Text))
	}
}
