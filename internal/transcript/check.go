package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/schema"
)

// CheckDigest checks what every digest must satisfy, whatever it was read
// from: valid UTF-8 everywhere, every bound kept, and a record made from it
// valid against the schema. Every reader's tests and fuzz targets hold
// the digests it makes to it.
func CheckDigest(d *Digest) error {
	if d == nil {
		return errors.New("nil digest without an error")
	}
	var bad []string
	walkStrings(reflect.ValueOf(d), "digest", func(where, s string) {
		if !utf8.ValidString(s) {
			bad = append(bad, where+": invalid UTF-8")
		}
		if strings.IndexByte(s, 0) >= 0 {
			bad = append(bad, where+": NUL")
		}
	})
	s := d.Session
	check := func(ok bool, format string, args ...any) {
		if !ok {
			bad = append(bad, fmt.Sprintf(format, args...))
		}
	}
	check(len(s.Requests) <= maxRequests, "%d requests", len(s.Requests))
	for i, r := range s.Requests {
		limit := MaxEarlierRequest
		if i == len(s.Requests)-1 {
			limit = MaxLastRequest
		}
		check(len(r) <= limit && strings.TrimSpace(r) != "", "request %d: %d bytes", i, len(r))
	}
	check(len(s.LastAgentMessage) <= MaxAgentMessage, "last agent message: %d bytes", len(s.LastAgentMessage))
	check(len(s.CompactionSummary) <= MaxCompaction, "compaction: %d bytes", len(s.CompactionSummary))
	check(len(s.Commands) <= maxCommands, "%d commands", len(s.Commands))
	for i, c := range s.Commands {
		check(c.Command != "" && len(c.Command) <= MaxCommandText, "command %d: %d bytes", i, len(c.Command))
		check(len(c.Output) <= MaxCommandOutput, "command %d output: %d bytes", i, len(c.Output))
		check(c.Count >= 1, "command %d count %d", i, c.Count)
	}
	if lf := s.LastFailure; lf != nil {
		check(len(lf.Output) <= MaxFailureOutput && lf.Command != "", "last failure: %d bytes", len(lf.Output))
	}
	for i, c := range s.Commands {
		check(slices.Contains([]string{"", "ok", "failed", "blocked", "rejected", "interrupted", "background", "unknown"}, c.Status), "command %d status %q", i, c.Status)
		check(len(c.By) <= 300, "command %d by: %d bytes", i, len(c.By))
	}
	check(len(s.Plan) <= MaxCompaction, "plan: %d bytes", len(s.Plan))
	check(len(s.PullRequests) <= maxPRs, "%d pull requests", len(s.PullRequests))
	for i, pr := range s.PullRequests {
		check(pr.URL != "" && len(pr.URL) <= 2048 && len(pr.Repository) <= 256 && pr.Number >= 0, "pull request %d: %+v", i, pr)
	}
	check(len(d.Decisions) <= handoff.MaxItems, "%d decisions", len(d.Decisions))
	for i, q := range d.Decisions {
		check(strings.TrimSpace(q) != "" && len(q) <= handoff.MaxItem, "decision %d: %d bytes", i, len(q))
	}
	for i, f := range d.Files {
		check(len(f.By) <= 300, "file %d by: %d bytes", i, len(f.By))
	}
	check(len(s.FailedEdits) <= maxFiles, "%d failed edits", len(s.FailedEdits))
	for i, fe := range s.FailedEdits {
		check(fe.Path != "" && len(fe.Path) <= maxPath && len(fe.Error) <= maxFailedEditError && len(fe.By) <= 300 && fe.Count >= 1,
			"failed edit %d: path %d bytes, error %d, by %d, count %d", i, len(fe.Path), len(fe.Error), len(fe.By), fe.Count)
	}
	check(len(d.Worktree) <= maxPath, "worktree: %d bytes", len(d.Worktree))
	check(len(d.Stats.UnknownTypes) <= MaxUnknownTypes, "%d unknown type names", len(d.Stats.UnknownTypes))
	check(len(s.Todos) <= maxTodos, "%d todos", len(s.Todos))
	for i, t := range s.Todos {
		check(t.Content != "" && len(t.Content) <= maxTodoText, "todo %d: %d bytes", i, len(t.Content))
		check(t.Status == "pending" || t.Status == "in_progress" || t.Status == "completed" || t.Status == "cancelled", "todo %d status %q", i, t.Status)
	}
	if tk := s.Tokens; tk != nil {
		check(tk.Input >= 0 && tk.Output >= 0 && tk.CacheRead >= 0 && tk.CacheWrite >= 0, "tokens %+v", *tk)
	}
	check(len(d.Files) <= maxFiles, "%d files", len(d.Files))
	for i, f := range d.Files {
		check(f.Path != "" && len(f.Path) <= maxPath, "file %d: path of %d bytes", i, len(f.Path))
		check(f.Action == "edited" || f.Action == "created" || f.Action == "deleted", "file %d action %q", i, f.Action)
		check(f.Edits >= 0, "file %d edits %d", i, f.Edits)
	}
	check(len(d.Title) <= MaxTitle, "title: %d bytes", len(d.Title))
	check(len(d.Goal) <= handoff.MaxItem && len(d.Parent) <= maxID, "goal %d, parent %d bytes", len(d.Goal), len(d.Parent))
	check(s.SkippedRecords == d.Stats.Unknown+d.Stats.Malformed+d.Stats.TooLong, "skipped %d, stats %+v", s.SkippedRecords, d.Stats)
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return validRecord(d)
}

func validRecord(d *Digest) error {
	title := d.Title
	if strings.TrimSpace(title) == "" {
		title = "untitled"
	}
	rec, err := handoff.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), d.Session.Agent, title)
	if err != nil {
		return err
	}
	rec.Project = handoff.Project{Path: "/p", Name: "p"}
	s := d.Session
	rec.Session = &s
	rec.Files = d.Files
	rec.Source = handoff.Source{Kind: handoff.SourceTranscript}
	d.NoteInto(rec)
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return schema.Validate(schema.Handoff, data)
}

func walkStrings(v reflect.Value, where string, fn func(where, s string)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkStrings(v.Elem(), where, fn)
		}
	case reflect.String:
		fn(where, v.String())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walkStrings(v.Field(i), where+"."+v.Type().Field(i).Name, fn)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			walkStrings(v.Index(i), fmt.Sprintf("%s[%d]", where, i), fn)
		}
	}
}

// maxPRs bounds the pull requests kept (the schema's pull_requests
// maxItems).
const maxPRs = 100
