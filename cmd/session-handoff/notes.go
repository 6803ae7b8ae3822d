package main

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
)

// noteOptions are what a person says about a handoff, the same on save and
// capture: a title, a summary, and lists of next steps, decisions,
// questions and tags.
type noteOptions struct {
	title, summary, summaryFile           string
	next, decisions, questions, tagValues []string
}

// bind declares the note flags on fs.
func (n *noteOptions) bind(fs *pflag.FlagSet, titleHelp string) {
	fs.StringVar(&n.title, "title", "", titleHelp)
	fs.StringVar(&n.summary, "summary", "", "where things stand")
	fs.StringVar(&n.summaryFile, "summary-file", "", "read the summary from a file, or - for standard input")
	repeatedVar(fs, &n.next, "next", "next step, in order (repeatable)")
	repeatedVar(fs, &n.decisions, "decision", "a settled decision, with its reason (repeatable)")
	repeatedVar(fs, &n.questions, "question", "an open question (repeatable)")
	repeatedVar(fs, &n.tagValues, "tag", "a tag (repeatable)")
}

// check refuses flag combinations and tags that cannot be right, before
// any work is done.
func (n *noteOptions) check() error {
	if n.summary != "" && n.summaryFile != "" {
		return usagef("--summary and --summary-file cannot be used together")
	}
	for _, t := range n.tagValues {
		if !handoff.ValidTag(t) {
			return usagef("--tag %q: tags are letters, digits and . _ : / + -, starting with a letter or digit", handoff.Shorten(t, 40))
		}
	}
	return nil
}

// apply reads the summary file if one was named and puts what the person
// said into rec (handoff.Notes.Apply); an empty item is a usage error.
func (n *noteOptions) apply(a *app, rec *handoff.Record) error {
	notes, err := n.read(a)
	if err != nil {
		return err
	}
	return noteError(notes.Apply(rec))
}

// read is what the person said, with the summary file read if one was
// named.
func (n *noteOptions) read(a *app) (handoff.Notes, error) {
	notes := handoff.Notes{Title: n.title, Summary: n.summary, NextSteps: n.next, Decisions: n.decisions,
		OpenQuestions: n.questions, Tags: n.tagValues}
	if n.summaryFile != "" {
		t, err := a.readText(n.summaryFile)
		if err != nil {
			return notes, err
		}
		notes.Summary = t
	}
	if len(notes.Summary) > handoff.MaxText {
		flag := "--summary"
		if n.summaryFile != "" {
			flag = "--summary-file " + handoff.Shorten(n.summaryFile, 80)
		}
		return notes, withHint(usagef("%s: the summary is %d bytes, over the limit of %d (64 KiB)", flag, len(notes.Summary), handoff.MaxText),
			"keep the summary to where things stand and put the longer text in a file: in the project, where the next session reads it, or sent along with 'session-handoff export --attach FILE'")
	}
	return notes, nil
}

// noteError makes an empty item among the notes a usage error.
func noteError(err error) error {
	if errors.Is(err, handoff.ErrEmptyItem) {
		return usageError{err}
	}
	return err
}
