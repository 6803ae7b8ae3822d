package handoff

import (
	"slices"
	"testing"
)

func TestDerivedNextSteps(t *testing.T) {
	exit1 := 1
	session := func() *Session {
		return &Session{
			Requests: []string{"port the lexer", "now the parser"},
			Todos: []Todo{{Content: "Split parser", Status: "completed"}, {Content: "Run race tests", Status: "pending"},
				{Content: "Fix refresh test matrix", Status: "in_progress"}},
			LastFailure: &Command{Command: "go test ./internal/auth", ExitCode: &exit1,
				Output: "ok  \tpkg/a\n--- FAIL: TestRefresh (0.00s)\n    refresh_test.go:41: got 200, want 401\n"},
		}
	}
	for _, c := range []struct {
		name string
		rec  Record
		want []string
	}{
		{"todos in progress first, then the failure", Record{Session: session()}, []string{
			"Finish (in progress): Fix refresh test matrix", "Run race tests",
			"Make `go test ./internal/auth` pass; it failed with: --- FAIL: TestRefresh (0.00s)"}},
		{"written next steps win", Record{NextSteps: []string{"Ship it"}, Session: session()}, nil},
		{"no session", Record{}, nil},
		{"a cancelled last turn", Record{OpenQuestions: []string{CancelledTurnQuestion}, Session: &Session{Requests: []string{"a", "rename the flag"}}},
			[]string{"Finish the last request, cancelled before it ended (check with the user first): rename the flag"}},
		{"nothing open", Record{Session: &Session{Requests: []string{"what next?"}, Todos: []Todo{{Content: "x", Status: "completed"}}}}, nil},
		{"a failure without output", Record{Session: &Session{LastFailure: &Command{Command: "make"}}}, []string{"Make `make` pass"}},
		{"an approved plan no todo list tracks, before the failure", Record{Session: &Session{Plan: "# Port\n1. lexer", PlanStatus: PlanApproved, LastFailure: &Command{Command: "make"}}},
			[]string{ApprovedPlanStep, "Make `make` pass"}},
		{"an approved plan whose todos are done", Record{Session: &Session{Plan: "# Port", PlanStatus: PlanApproved, Todos: []Todo{{Content: "x", Status: "completed"}}}}, nil},
		{"a plan awaiting the user, first", Record{Session: &Session{Plan: "# Port", PlanStatus: PlanPending, Todos: []Todo{{Content: "Lexer", Status: "pending"}}}},
			[]string{PendingPlanStep, "Lexer"}},
		{"a rejected plan is no way forward", Record{Session: &Session{Plan: "# Port", PlanStatus: PlanRejected}}, nil},
	} {
		if got := c.rec.DerivedNextSteps(); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	many := &Session{}
	for range 30 {
		many.Todos = append(many.Todos, Todo{Content: "t", Status: "pending"})
	}
	if got := (&Record{Session: many}).DerivedNextSteps(); len(got) != maxDerivedSteps {
		t.Errorf("%d derived steps, want at most %d", len(got), maxDerivedSteps)
	}
}

func TestHasSubstance(t *testing.T) {
	question := func() *Record {
		return &Record{Source: Source{Kind: SourceTranscript}, Session: &Session{Requests: []string{"what should I do next?"}, LastAgentMessage: "Fix the tests."}}
	}
	if question().HasSubstance() {
		t.Errorf("a question-only session has substance")
	}
	for name, change := range map[string]func(*Record){
		"saved by hand": func(r *Record) { r.Source.Kind = SourceHand },
		"imported":      func(r *Record) { r.Source.Kind = SourceImport },
		"next steps":    func(r *Record) { r.NextSteps = []string{"x"} },
		"decisions":     func(r *Record) { r.Decisions = []string{"x"} },
		"files":         func(r *Record) { r.Files = []FileTouched{{Path: "a.go"}} },
		"commands":      func(r *Record) { r.Session.Commands = []Command{{Command: "ls"}} },
		"todos":         func(r *Record) { r.Session.Todos = []Todo{{Content: "x", Status: "pending"}} },
		"plan":          func(r *Record) { r.Session.Plan = "1. x" },
		"compaction":    func(r *Record) { r.Session.CompactionSummary = "x" },
	} {
		r := question()
		change(r)
		if !r.HasSubstance() {
			t.Errorf("%s: no substance", name)
		}
	}
}
