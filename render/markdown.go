// Package render turns a handoff into text for people and agents. Text
// that came from a record is data, not instructions: it is fenced, and
// where the record was imported the output says who it came from.
package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
)

// Markdown writes rec as a Markdown document for reading.
func Markdown(w io.Writer, rec *handoff.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", inline(rec.Title))
	fmt.Fprintf(&b, "- id: %s\n- created: %s\n- tool: %s\n", recordID(rec.ID), rec.CreatedAt.Format("2006-01-02 15:04 MST"), inline(rec.Tool))
	fmt.Fprintf(&b, "- project: %s (`%s`)\n", inline(rec.Project.Name), inline(rec.Project.Path))
	if p := rec.Source.Import; p != nil {
		fmt.Fprintf(&b, "- imported from bundle `%s`: %s", inline(p.BundleID), inline(verification(p)))
		if p.Signer != "" {
			fmt.Fprintf(&b, ", signed by %s", inline(p.Signer))
		}
		if p.Fingerprint != "" {
			fmt.Fprintf(&b, " (%s)", inline(p.Fingerprint))
		}
		b.WriteString("\n")
	}
	if rec.Summary != "" {
		fmt.Fprintf(&b, "\n## Where things stand\n\n%s\n", Fence(rec.Summary))
	}
	list(&b, "Decisions", rec.Decisions, false)
	if derived := rec.DerivedNextSteps(); len(derived) > 0 {
		list(&b, "Next steps (derived from the session: nobody wrote any)", shortenAll(derived, 400), true)
	} else {
		list(&b, "Next steps", rec.NextSteps, true)
	}
	list(&b, "Open questions", rec.OpenQuestions, false)
	if s := rec.Session; s != nil && len(s.Requests) > 0 {
		from := max(0, len(s.Requests)-peopleRequests)
		heading := "Requests"
		if from > 0 {
			heading = fmt.Sprintf("Requests (the last %d of %d)", len(s.Requests)-from, len(s.Requests))
		}
		list(&b, heading, shortenAll(s.Requests[from:], 300), false)
	}
	if s := rec.Session; s != nil && strings.TrimSpace(s.LastAgentMessage) != "" {
		fmt.Fprintf(&b, "\n## The agent's last message\n\n%s\n", Fence(handoff.Shorten(s.LastAgentMessage, peopleTextMax)))
	}
	if g := rec.Git; g != nil {
		fmt.Fprintf(&b, "\n## Git state\n\n")
		if g.Branch != "" {
			fmt.Fprintf(&b, "- branch: `%s`\n", inline(g.Branch))
		}
		if g.Head != "" {
			fmt.Fprintf(&b, "- HEAD: `%s` (check with `git rev-parse HEAD`)\n", g.Head)
		}
		if g.Upstream != "" {
			fmt.Fprintf(&b, "- upstream: `%s`, %d ahead, %d behind\n", inline(g.Upstream), g.Ahead, g.Behind)
		}
		for _, f := range g.Staged {
			fmt.Fprintf(&b, "- staged %s `%s`\n", f.Status, inline(f.Path))
		}
		for _, f := range g.Unstaged {
			fmt.Fprintf(&b, "- unstaged %s `%s`\n", f.Status, inline(f.Path))
		}
		for _, p := range g.Untracked {
			fmt.Fprintf(&b, "- untracked `%s`\n", inline(p))
		}
	}
	if len(rec.Files) > 0 {
		fmt.Fprintf(&b, "\n## Files touched\n\n")
		for _, f := range rec.Files {
			if f.From != "" {
				fmt.Fprintf(&b, "- %s `%s` to `%s`\n", f.Action, inline(f.From), inline(f.Path))
				continue
			}
			fmt.Fprintf(&b, "- %s `%s`\n", f.Action, inline(f.Path))
		}
	}
	if rec.Session != nil && len(rec.Session.FailedEdits) > 0 {
		fmt.Fprintf(&b, "\n## Failed edits (nothing was written)\n\n")
		for _, fe := range rec.Session.FailedEdits {
			fmt.Fprintf(&b, "- `%s`\n", inline(fe.Path))
		}
	}
	if len(rec.Attachments) > 0 {
		fmt.Fprintf(&b, "\n## Attachments\n\n")
		for _, a := range rec.Attachments {
			fmt.Fprintf(&b, "- %s (%s, %d bytes, sha256 `%s`)\n", inline(a.Name), inline(a.MediaType), a.Size, a.SHA256)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func list(b *strings.Builder, heading string, items []string, numbered bool) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n", heading)
	for i, it := range items {
		if numbered {
			fmt.Fprintf(b, "%d. %s\n", i+1, inline(it))
		} else {
			fmt.Fprintf(b, "- %s\n", inline(it))
		}
	}
}

// Fence puts untrusted text in a fenced block whose fence is longer than
// any run of backticks inside it, so the text cannot close the fence and
// pass itself off as ours.
func Fence(s string) string {
	// Clean first: removing a character between two runs of backticks
	// would join them into a longer run than the one counted.
	s = strings.TrimRight(handoff.CleanText(s), "\n")
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "text\n" + s + "\n" + fence
}

// inline makes untrusted text safe on one Markdown line: no line breaks, no
// control characters, no backticks that could open code spans across ours.
// It cleans first, because cleaning turns Unicode line separators into
// line breaks.
func inline(s string) string {
	return inlineBreaks.Replace(handoff.CleanText(s))
}

// inlineBreaks turns line breaks into spaces and backticks into quotes.
var inlineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "`", "'")
