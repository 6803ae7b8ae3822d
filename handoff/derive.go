package handoff

import "strings"

// CancelledTurnQuestion is the open question a capture adds when the user
// cancelled the session's last turn before it ended.
const CancelledTurnQuestion = "The user cancelled the last turn before it ended: is the last request done, half done or dropped?"

// The next steps a session's plan points to (DerivedNextSteps).
const (
	PendingPlanStep  = "Ask the user to approve or change the plan (in the session's plan) before acting on it"
	ApprovedPlanStep = "Carry on with the approved plan (in the session's plan): check which of its steps the files and commits already cover"
)

// maxDerivedSteps bounds the next steps DerivedNextSteps returns.
const maxDerivedSteps = 10

// DerivedNextSteps are the next steps the session itself points to, for a
// handoff in which nobody wrote any: asking for the user's word on a plan
// put to them and not answered, the open todos (in progress first), going
// on with an approved plan no todo list tracks, making the open failure
// pass, with its first error line, and the last request when the user
// cancelled the last turn. They are never stored as
// the record's next steps, so nothing derived can take the place of what a
// person or the agent wrote; render labels them as derived. None when the
// record names next steps or the session shows none.
func (r *Record) DerivedNextSteps() []string {
	if len(r.NextSteps) > 0 || r.Session == nil {
		return nil
	}
	s := r.Session
	var steps []string
	add := func(step string) {
		if step = strings.TrimSpace(step); step != "" && len(steps) < maxDerivedSteps {
			steps = append(steps, step)
		}
	}
	if s.Plan != "" && s.PlanStatus == PlanPending {
		add(PendingPlanStep)
	}
	for _, status := range []string{"in_progress", "pending"} {
		for _, t := range s.Todos {
			if t.Status != status {
				continue
			}
			if status == "in_progress" {
				add("Finish (in progress): " + t.Content)
			} else {
				add(t.Content)
			}
		}
	}
	if s.Plan != "" && s.PlanStatus == PlanApproved && len(s.Todos) == 0 {
		// No todo list tracks the plan's progress: the plan is the work.
		add(ApprovedPlanStep)
	}
	if f := s.LastFailure; f != nil && f.Command != "" {
		step := "Make `" + f.Command + "` pass"
		if line := firstErrorLine(f.Output); line != "" {
			step += "; it failed with: " + line
		}
		add(step)
	}
	for _, q := range r.OpenQuestions {
		if q == CancelledTurnQuestion && len(s.Requests) > 0 {
			add("Finish the last request, cancelled before it ended (check with the user first): " + s.Requests[len(s.Requests)-1])
			break
		}
	}
	return steps
}

// firstErrorLine is the first line of a command's output that reads like
// an error, else its first non-empty line, cut to 200 bytes.
func firstErrorLine(out string) string {
	first := ""
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		lower := strings.ToLower(line)
		for _, mark := range []string{"fail", "error", "panic", "cannot", "undefined", "expected", "want"} {
			if strings.Contains(lower, mark) {
				return Shorten(line, 200)
			}
		}
	}
	return Shorten(first, 200)
}

// HasSubstance reports whether the record is worth briefing the next
// session on: someone wrote it (a save by a person or the agent, an
// import), or it names next steps or decisions, or its session did tool
// work (files, commands, failed edits), left todos or a plan, or was compacted. A
// session that only asked a question has none; it is still stored, but a
// briefing passes over it to the record before.
func (r *Record) HasSubstance() bool {
	if r.Source.Kind != SourceTranscript || len(r.NextSteps)+len(r.Decisions)+len(r.Files)+len(r.Attachments) > 0 {
		return true
	}
	s := r.Session
	return s != nil && (len(s.Commands)+len(s.Todos)+len(s.PullRequests)+len(s.FailedEdits) > 0 || s.Plan != "" || s.CompactionSummary != "" || s.LastFailure != nil)
}
