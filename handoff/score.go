package handoff

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Criterion is one line of the completeness rubric: what a good handoff
// has, how much it weighs, and what to add when it is missing.
type Criterion struct {
	ID     string `json:"id"`
	Weight int    `json:"weight"`
	// Applies is false when the criterion says nothing about this record
	// (no transcript, so no failed command to report); such criteria count
	// neither way.
	Applies bool `json:"applies"`
	Met     bool `json:"met"`
	// Missing says what is missing and how to add it, when not met.
	Missing string `json:"missing,omitempty"`
	// short is set when what the criterion wants is there but too short
	// (a summary under 40 characters): Advice asks for more, not for one.
	short bool
}

// Score is how complete a handoff is.
type Score struct {
	// Percent is the weight of the criteria met over the weight of those
	// that apply, rounded down.
	Percent  int         `json:"percent"`
	Points   int         `json:"points"`
	Possible int         `json:"possible"`
	Criteria []Criterion `json:"criteria"`
}

// genericTitles are titles that say nothing about the work.
var genericTitles = map[string]bool{"wip": true, "todo": true, "handoff": true, "session": true, "update": true,
	"misc": true, "stuff": true, "work": true, "changes": true, "fix": true, "test": true}

// Assess rates how complete rec is, by this rubric (weights sum to 100
// when every criterion applies):
//
//	title      5  a title of at least 8 characters that is not a stock word (wip, todo…)
//	summary   15  a summary of where things stand, at least 40 characters
//	next      25  at least one next step
//	concrete   5  every next step has at least three words
//	decisions 10  at least one settled decision
//	git       10  the git state was recorded (applies only when it was: save
//	              and capture refuse a directory that is not a git worktree
//	              unless --no-git says so, and that explicit choice is not
//	              held against the handoff)
//	current   10  HEAD and branch now match the handoff (only when now is given)
//	files     10  the files touched are named (from the transcript, or git's changes)
//	failure    5  the last failed command is kept with its output (only when a command failed)
//	checks     5  how to build or test the project is known
//
// now is the worktree's state at the time of asking, or nil to skip the
// "current" criterion.
func Assess(rec *Record, now *GitState) Score {
	var s Score
	add := func(id string, weight int, applies, met bool, missing string) {
		c := Criterion{ID: id, Weight: weight, Applies: applies, Met: applies && met}
		if applies && !met {
			c.Missing = missing
		}
		s.Criteria = append(s.Criteria, c)
		if applies {
			s.Possible += weight
			if met {
				s.Points += weight
			}
		}
	}
	title := strings.TrimSpace(rec.Title)
	add("title", 5, true, len(title) >= 8 && !genericTitles[strings.ToLower(title)],
		"the title does not say what the work is: give one that does (--title)")
	if summary := strings.TrimSpace(rec.Summary); summary == "" {
		add("summary", 15, true, false, "no summary of where things stand: add one (--summary or --summary-file)")
	} else {
		add("summary", 15, true, len(summary) >= 40,
			"the summary is too short to help: say where things stand in a sentence or two (--summary or --summary-file)")
		s.Criteria[len(s.Criteria)-1].short = true
	}
	add("next", 25, true, len(rec.NextSteps) > 0,
		"no next steps: add them in the order they should be done (--next, once per step)")
	concrete := len(rec.NextSteps) > 0
	for _, n := range rec.NextSteps {
		if len(strings.Fields(n)) < 3 {
			concrete = false
		}
	}
	add("concrete", 5, len(rec.NextSteps) > 0, concrete,
		"a next step of one or two words: say what to do and where")
	add("decisions", 10, true, len(rec.Decisions) > 0,
		"no decisions recorded: add what was settled and why (--decision)")
	add("git", 10, rec.Git != nil, true, "")
	if now != nil && rec.Git != nil {
		met := now.Head == rec.Git.Head && now.Branch == rec.Git.Branch
		add("current", 10, true, met, fmt.Sprintf("the worktree has moved since the handoff (HEAD %s on %s, now %s on %s): save a new one",
			shortHash(rec.Git.Head), branchName(rec.Git.Branch), shortHash(now.Head), branchName(now.Branch)))
	} else {
		add("current", 10, false, false, "")
	}
	dirty := rec.Git != nil && len(rec.Git.Staged)+len(rec.Git.Unstaged)+len(rec.Git.Untracked) > 0
	add("files", 10, true, len(rec.Files) > 0 || dirty,
		"no files named: capture from the agent's transcript (session-handoff capture) so the files it touched are listed")
	failed := false
	if rec.Session != nil {
		for _, c := range rec.Session.Commands {
			if c.ExitCode != nil && *c.ExitCode != 0 {
				failed = true
			}
		}
	}
	add("failure", 5, failed, rec.Session != nil && rec.Session.LastFailure != nil && rec.Session.LastFailure.Output != "",
		"a command failed but its output was not kept")
	add("checks", 5, true, len(rec.Project.Checks) > 0,
		"no build or test command known: capture detects them from the project, or name them in the summary")
	if s.Possible > 0 {
		s.Percent = s.Points * 100 / s.Possible
	}
	return s
}

// Missing lists what to add, heaviest first.
func (s Score) Missing() []Criterion {
	var out []Criterion
	for _, c := range s.Criteria {
		if c.Applies && !c.Met {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Criterion) int { return b.Weight - a.Weight })
	return out
}

// advice names each criterion for Advice's one line, as what to add.
var advice = map[string]string{
	"title": "a clearer title", "summary": "a summary", "next": "next steps",
	"concrete": "concrete next steps", "decisions": "the decisions", "current": "a fresh handoff",
	"files": "the files touched", "failure": "the failed command's output", "checks": "the build command",
}

// Advice is the score in one line with the three heaviest things to add,
// e.g. "score 52/100: add a summary and the build command; 'session-handoff
// score' explains"; empty when nothing is missing.
func (s Score) Advice() string {
	missing := s.Missing()
	if len(missing) == 0 {
		return ""
	}
	var adds []string
	for _, c := range missing {
		if len(adds) == 3 {
			break
		}
		if c.short {
			adds = append(adds, "a longer "+strings.TrimPrefix(advice[c.ID], "a "))
			continue
		}
		adds = append(adds, advice[c.ID])
	}
	list := adds[0]
	if len(adds) > 1 {
		list = strings.Join(adds[:len(adds)-1], ", ") + " and " + adds[len(adds)-1]
	}
	more := ""
	if len(missing) > len(adds) {
		more = fmt.Sprintf(" (and %d more)", len(missing)-len(adds))
	}
	return fmt.Sprintf("score %d/100: add %s%s; 'session-handoff score' explains", s.Percent, list, more)
}

// The advice is shown as our own words (score, MCP's handoff_score), so
// a hash or a branch is named only in the shape of one.
var (
	hexHash   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{7,64}$`) })
	plainName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/-]{0,63}$`) })
)

func shortHash(h string) string {
	switch {
	case h == "":
		return "(none)"
	case !hexHash().MatchString(h):
		return "(a hash of unexpected shape)"
	}
	return Shorten(h, 12)
}

// branchName is a branch in quotes when its name is plain.
func branchName(b string) string {
	switch {
	case b == "":
		return "a detached HEAD"
	case !plainName().MatchString(b):
		return "a branch with an unusual name"
	}
	return `"` + b + `"`
}
