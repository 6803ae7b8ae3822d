package handoff

import "strings"

// SearchText is every text field of the record a person may search by,
// lower-cased and joined by newlines: title, summary (whole), decisions,
// next steps, open questions, tags, files touched, the project's name and
// path, the tool, the branch, the id an earlier version gave it, and from
// the agent's session its requests, last message, todos and compaction
// summary. A query that holds no newline matches the text exactly when it
// occurs in one of the fields.
func (r *Record) SearchText() string {
	var b strings.Builder
	add := func(ss ...string) {
		for _, s := range ss {
			if s != "" {
				b.WriteString(strings.ToLower(s))
				b.WriteByte('\n')
			}
		}
	}
	add(r.Title, r.Summary, r.Tool, r.Project.Name, r.Project.Path, r.Source.LegacyID)
	add(r.Decisions...)
	add(r.NextSteps...)
	add(r.OpenQuestions...)
	add(r.Tags...)
	for _, f := range r.Files {
		add(f.Path)
	}
	if r.Git != nil {
		add(r.Git.Branch)
	}
	if s := r.Session; s != nil {
		add(s.Requests...)
		add(s.LastAgentMessage, s.CompactionSummary)
		for _, t := range s.Todos {
			add(t.Content)
		}
	}
	return b.String()
}

// ContainsText reports whether query occurs, ignoring case, in one of the
// record's text fields (SearchText). The empty query matches.
func (r *Record) ContainsText(query string) bool {
	q := strings.ToLower(strings.TrimSpace(query))
	return q == "" || strings.Contains(r.SearchText(), q)
}
