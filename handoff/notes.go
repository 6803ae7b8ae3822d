package handoff

// Notes are what a person says about a handoff, beside what a program
// recorded: a title, a summary, and lists of next steps, decisions, open
// questions and tags.
type Notes struct {
	Title, Summary                            string
	NextSteps, Decisions, OpenQuestions, Tags []string
}

// Apply puts the notes into rec: a title or summary given replaces rec's
// (what the person says wins over what a transcript says), list items are
// added after rec's own. It normalises rec, so an empty item is an error
// wrapping ErrEmptyItem.
func (n Notes) Apply(rec *Record) error {
	if n.Title != "" {
		rec.Title = n.Title
	}
	if n.Summary != "" {
		rec.Summary = n.Summary
	}
	rec.NextSteps = append(rec.NextSteps, n.NextSteps...)
	rec.Decisions = append(rec.Decisions, n.Decisions...)
	rec.OpenQuestions = append(rec.OpenQuestions, n.OpenQuestions...)
	rec.Tags = append(rec.Tags, n.Tags...)
	return rec.Normalize()
}

// Check reports what Apply would refuse (an empty item, ErrEmptyItem),
// without a record to apply the notes to.
func (n Notes) Check() error {
	var scratch Record
	return n.Apply(&scratch)
}

// Empty reports whether the notes say nothing.
func (n Notes) Empty() bool {
	return n.Title == "" && n.Summary == "" && len(n.NextSteps) == 0 && len(n.Decisions) == 0 && len(n.OpenQuestions) == 0 && len(n.Tags) == 0
}
