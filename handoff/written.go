package handoff

import "slices"

// AdoptWritten puts into r, a new capture of an agent session, what a
// person or the agent wrote in w, a record of the same session saved by
// hand (session-handoff save, or the agent's handoff_save over MCP), and
// takes w's id and creation time: one record per session. What was
// written is never replaced by what a capture derives: w's title, summary,
// next steps and decisions win where w has them; open questions and tags
// are joined, written first; attachments and redactions are kept (an
// attachment r has a newer one of the same name of is replaced). What the
// transcript and git show (the session, files, git state) stays r's.
// docs/FORMAT.md, "One record per agent session", is the rule.
func (r *Record) AdoptWritten(w *Record) {
	if w.Title != "" {
		r.Title = w.Title
	}
	if w.Summary != "" {
		r.Summary = w.Summary
	}
	if len(w.NextSteps) > 0 {
		r.NextSteps = slices.Clone(w.NextSteps)
	}
	if len(w.Decisions) > 0 {
		r.Decisions = slices.Clone(w.Decisions)
	}
	r.OpenQuestions = joinUnique(w.OpenQuestions, r.OpenQuestions)
	r.Tags = joinUnique(w.Tags, r.Tags)
	r.keepAttachments(w)
	r.keepRedactions(w)
	r.ID, r.CreatedAt = w.ID, w.CreatedAt
	r.Source.Kind = SourceHand
}

// KeepAttachments puts into r, a new capture of an agent session, the
// attachments of c, an earlier capture of it, that r has none of the same
// name of (the transcript attached then, the changes carried then: a
// newer one of the same name replaces it), with their redaction counts.
func (r *Record) KeepAttachments(c *Record) {
	if r.keepAttachments(c) {
		r.keepRedactions(c)
	}
}

// keepAttachments adds to r the attachments of w whose names r lacks, and
// reports whether it added any.
func (r *Record) keepAttachments(w *Record) (kept bool) {
	for _, a := range w.Attachments {
		if !slices.ContainsFunc(r.Attachments, func(b Attachment) bool { return b.Name == a.Name }) {
			r.Attachments = append(r.Attachments, a)
			kept = true
		}
	}
	return kept
}

// keepRedactions counts in r the redactions of w, which r now holds part
// of: the larger count of each kind.
func (r *Record) keepRedactions(w *Record) {
	for _, red := range w.Redactions {
		if i := slices.IndexFunc(r.Redactions, func(x Redaction) bool { return x.Kind == red.Kind }); i >= 0 {
			r.Redactions[i].Count = max(r.Redactions[i].Count, red.Count)
		} else {
			r.Redactions = append(r.Redactions, red)
		}
	}
}

// joinUnique is a followed by the items of b it lacks, at most MaxItems.
func joinUnique(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) > MaxItems {
		out = out[:MaxItems]
	}
	return out
}
