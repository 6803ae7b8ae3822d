package render

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// People writes a record for a person at a terminal (show, capture): the
// header, what was written, what the session shows, git, files and
// attachments. It is the third layout beside the prompt and the
// briefing, and says what they say of the session, without the words
// addressed to an agent. Every value is cleaned of control characters,
// since records may come from other machines.
func People(w io.Writer, r *handoff.Record, now time.Time) {
	fmt.Fprintf(w, "%s\n", clean(r.Title))
	fmt.Fprintf(w, "id:       %s\n", r.ID)
	fmt.Fprintf(w, "created:  %s (%s)\n", r.CreatedAt.Local().Format(time.RFC3339), Ago(r.CreatedAt, now))
	fmt.Fprintf(w, "tool:     %s\n", r.Tool)
	fmt.Fprintf(w, "project:  %s (%s)\n", clean(r.Project.Name), clean(r.Project.Path))
	if r.Project.Remote != "" {
		fmt.Fprintf(w, "remote:   %s\n", clean(r.Project.Remote))
	}
	if len(r.Tags) > 0 {
		fmt.Fprintf(w, "tags:     %s\n", clean(strings.Join(r.Tags, ", ")))
	}
	fmt.Fprintf(w, "origin:   %s\n", clean(r.Source.Origin()))
	fmt.Fprintf(w, "source:   %s", r.Source.Kind)
	if r.Source.Machine != "" {
		fmt.Fprintf(w, " on %s", clean(r.Source.Machine))
	}
	if p := r.Source.Import; p != nil {
		fmt.Fprintf(w, ", bundle %s, %s", clean(p.BundleID), verification(p))
		if p.Signer != "" {
			fmt.Fprintf(w, " by %s", clean(p.Signer))
		}
		if p.Fingerprint != "" {
			fmt.Fprintf(w, " (%s)", clean(p.Fingerprint))
		}
	}
	fmt.Fprintln(w)
	if r.Summary != "" {
		fmt.Fprintf(w, "\nSummary\n%s\n", indent(clean(r.Summary)))
	}
	peopleList(w, "Decisions", r.Decisions, false)
	PeopleNextSteps(w, r)
	peopleList(w, "Open questions", r.OpenQuestions, false)
	PeopleSession(w, r)
	if g := r.Git; g != nil {
		fmt.Fprintf(w, "\nGit\n")
		branch := g.Branch
		if branch == "" {
			branch = "(detached HEAD)"
		}
		fmt.Fprintf(w, "  branch %s at %s\n", clean(branch), shortHash(g.Head))
		if g.Upstream != "" {
			fmt.Fprintf(w, "  upstream %s, %d ahead, %d behind\n", clean(g.Upstream), g.Ahead, g.Behind)
		}
		for _, f := range g.Staged {
			fmt.Fprintf(w, "  staged    %s %s\n", f.Status, clean(f.Path))
		}
		for _, f := range g.Unstaged {
			fmt.Fprintf(w, "  unstaged  %s %s\n", f.Status, clean(f.Path))
		}
		for _, p := range g.Untracked {
			fmt.Fprintf(w, "  untracked   %s\n", clean(p))
		}
		if g.Truncated {
			fmt.Fprintf(w, "  (lists cut at their limit)\n")
		}
		for _, c := range g.RecentCommits {
			fmt.Fprintf(w, "  %s %s\n", shortHash(c.Hash), clean(c.Subject))
		}
	}
	if len(r.Files) > 0 {
		fmt.Fprintf(w, "\nFiles touched\n")
		for _, f := range r.Files {
			if f.From != "" {
				fmt.Fprintf(w, "  %-8s %s -> %s\n", f.Action, clean(f.From), clean(f.Path))
				continue
			}
			fmt.Fprintf(w, "  %-8s %s\n", f.Action, clean(f.Path))
		}
	}
	if s := r.Session; s != nil && len(s.FailedEdits) > 0 {
		fmt.Fprintf(w, "\nFailed edits (nothing was written)\n")
		for _, fe := range s.FailedEdits {
			fmt.Fprintf(w, "  %s\n", clean(fe.Path))
		}
	}
	if len(r.Attachments) > 0 {
		fmt.Fprintf(w, "\nAttachments\n")
		for _, at := range r.Attachments {
			fmt.Fprintf(w, "  %s (%s, %d bytes, sha256 %s)\n", clean(at.Name), clean(at.MediaType), at.Size, shortHash(at.SHA256))
		}
	}
}

// PeopleNextSteps writes the record's next steps, or those derived from
// its session (labelled so) when nobody wrote any.
func PeopleNextSteps(w io.Writer, r *handoff.Record) {
	if derived := r.DerivedNextSteps(); len(derived) > 0 {
		peopleList(w, "Next steps (derived from the session: nobody wrote any)", shortenAll(derived, 400), true)
		return
	}
	peopleList(w, "Next steps", r.NextSteps, true)
}

// People's bounds on what it quotes of a session, so one huge field does
// not bury the rest: the full text is in --json.
const (
	peopleRequests = 5
	peopleCommands = 15
	peopleTextMax  = 2 << 10
	peopleOutput   = 1 << 10
)

// PeopleSession writes what a record's session shows, for a person: the
// last requests, the agent's last message, the commands with how each
// ended, the open failure with its output, open todos, the plan and the
// compaction summary. Nothing when the record has no session.
func PeopleSession(w io.Writer, r *handoff.Record) {
	s := r.Session
	if s == nil {
		return
	}
	if n := len(s.Requests); n > 0 {
		from := max(0, n-peopleRequests)
		heading := "Requests"
		if from > 0 {
			heading = fmt.Sprintf("Requests (the last %d of %d)", n-from, n)
		}
		peopleList(w, heading, shortenAll(s.Requests[from:], 300), false)
	}
	peopleText(w, "The agent's last message", s.LastAgentMessage, peopleTextMax)
	if n := len(s.Commands); n > 0 {
		from := max(0, n-peopleCommands)
		fmt.Fprintf(w, "\nCommands (the last %d of %d)\n", n-from, n)
		for _, c := range s.Commands[from:] {
			fmt.Fprintf(w, "  %s\n", clean(handoff.Shorten(flatten(commandLine(c)), 300)))
		}
	}
	if f := s.LastFailure; f != nil {
		fmt.Fprintf(w, "\nOpen failure\n  $ %s\n", clean(handoff.Shorten(flatten(f.Command), 300)))
		if f.ExitCode != nil {
			fmt.Fprintf(w, "  (exit %d)\n", *f.ExitCode)
		}
		if out := strings.TrimSpace(f.Output); out != "" {
			fmt.Fprintf(w, "%s\n", indent(clean(handoff.Clip(out, peopleOutput))))
		}
	}
	var open []string
	for _, t := range s.Todos {
		switch t.Status {
		case "in_progress":
			open = append(open, "[in progress] "+t.Content)
		case "pending":
			open = append(open, "[pending] "+t.Content)
		}
	}
	peopleList(w, "Open todos", shortenAll(open, 300), false)
	peopleText(w, "Plan ("+cmp.Or(s.PlanStatus, handoff.PlanPending)+")", s.Plan, peopleTextMax)
	peopleText(w, "Compaction summary", s.CompactionSummary, peopleTextMax)
}

func peopleText(w io.Writer, heading, text string, limit int) {
	if text = strings.TrimSpace(text); text == "" {
		return
	}
	cut := handoff.Clip(text, limit)
	fmt.Fprintf(w, "\n%s\n%s\n", heading, indent(clean(cut)))
	if n := len(text) - len(cut); n > 0 {
		fmt.Fprintf(w, "  (%d more bytes: --json has it whole)\n", n)
	}
}

func peopleList(w io.Writer, heading string, items []string, numbered bool) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", heading)
	for i, it := range items {
		if numbered {
			fmt.Fprintf(w, "  %d. %s\n", i+1, clean(it))
		} else {
			fmt.Fprintf(w, "  - %s\n", clean(it))
		}
	}
}

// shortenAll is each item on one line, shortened to n bytes.
func shortenAll(items []string, n int) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = handoff.Shorten(flatten(it), n)
	}
	return out
}

// clean makes record text safe to print on a terminal.
func clean(s string) string { return handoff.CleanText(s) }

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

func shortHash(h string) string {
	if h == "" {
		return "(no commits)"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Ago says how long ago t was, for people.
func Ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Local().Format("2006-01-02")
}
