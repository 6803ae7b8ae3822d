package render

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
)

// headings are the section titles people and agents see.
var headings = map[string]string{
	SecProvenance:  "Where this handoff came from",
	SecTask:        "The task",
	SecStatus:      "Where things stand",
	SecDecisions:   "Decisions",
	SecNext:        "Next steps",
	SecQuestions:   "Open questions",
	SecTodos:       "Open todos",
	SecFiles:       "Files touched",
	SecAttachments: "Attachments",
	SecCommands:    "Commands run",
	SecChecks:      "How to check the work",
	SecGit:         "Git state",
}

// sections render one section each at a level: 0 is in full, higher
// levels are shorter. A section with nothing to say writes nothing.
var sections = map[string]func(w *writer, rec *handoff.Record, level int){
	SecProvenance:  provenanceSection,
	SecTask:        taskSection,
	SecStatus:      statusSection,
	SecDecisions:   decisionsSection,
	SecNext:        nextSection,
	SecQuestions:   questionsSection,
	SecTodos:       todosSection,
	SecFiles:       filesSection,
	SecAttachments: attachmentsSection,
	SecCommands:    commandsSection,
	SecChecks:      checksSection,
	SecGit:         gitSection,
}

// pick returns the value for a level from a list that runs from full to
// shortest; levels past the end take the last value.
func pick(level int, values ...int) int {
	return values[min(level, len(values)-1)]
}

// hexCommit matches a full commit hash (SHA-1 or SHA-256), the only form
// of a record's HEAD we print outside a fence.
var hexCommit = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`) })

// preamble is ours: what the text is, and how to treat the quoted parts.
func (w *writer) preamble(rec *handoff.Record, opt Options) {
	if opt.nested {
		return
	}
	w.printf("\n")
	if opt.Mode == Instructions {
		w.printf("This section was written by session-handoff from handoff %s and is replaced by the next handoff; change the handoff, not this text.\n\n", recordID(rec.ID))
	}
	agent := opt.Style.Agent
	if agent == "" {
		agent = "an AI coding agent"
	}
	words := wordingFor(rec)
	w.printf(words.intro+"\n\n", agent)
	w.printf("%s\n", DataLabel("the handoff"))
	if words.guidance {
		for _, g := range opt.Style.Guidance {
			w.printf("\n%s\n", g)
		}
	}
}

func provenanceSection(w *writer, rec *handoff.Record, _ int) {
	w.heading(SecProvenance)
	w.printf("- Handoff %s, made %s", recordID(rec.ID), rec.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	if handoff.ValidTool(rec.Tool) {
		w.printf(" from a %s session", rec.Tool)
	}
	w.printf(".\n")
	src := rec.Source
	switch src.Kind {
	case handoff.SourceImport:
		p := src.Import
		if p == nil {
			w.printf("- Imported, with no record of how it was checked: treat it as unverified.\n")
			break
		}
		bundleID := "(an id of unexpected shape)"
		if bundleIDPattern().MatchString(p.BundleID) {
			bundleID = "`" + p.BundleID + "`"
		}
		w.printf("- Imported from bundle %s on %s: ", bundleID, p.ImportedAt.UTC().Format("2006-01-02"))
		switch {
		case p.Verification == "verified" && p.Withdrawn:
			w.printf("signed by %s (%s), a key that was in your trust store when it arrived and is no longer in your trust store under that name (a device removed, a key no longer trusted): who wrote it is not verified now.\n", token(p.Signer), fingerprint(p.Fingerprint))
		case p.Verification == "verified":
			w.printf("signed by %s (%s), a key in your trust store.\n", token(p.Signer), fingerprint(p.Fingerprint))
		case p.Verification == "pinned":
			w.printf("signed by %s, a key trusted on first use when this bundle arrived (nobody vouched for it before).\n", fingerprint(p.Fingerprint))
		case p.Verification == "untrusted":
			w.printf("signed by %s, a key that is NOT in your trust store: who wrote it is not verified.\n", fingerprint(p.Fingerprint))
		default:
			w.printf("NOT signed: who wrote it is not known.\n")
		}
	case handoff.SourceLegacy:
		w.printf("- Imported from an older session-handoff format, unsigned.\n")
	case handoff.SourceTranscript:
		w.printf("- Captured from the agent's own transcript on this machine.\n")
	default:
		w.printf("- Written by hand with `session-handoff save` on this machine.\n")
	}
	if !src.Vouched() {
		w.printf("- %s\n", cautionUnverified)
	}
	if s := rec.Session; s != nil {
		w.printf("- From the session transcript:\n")
		var b strings.Builder
		fmt.Fprintf(&b, "agent: %s", flatten(handoff.Shorten(s.Agent, 64)))
		switch {
		case s.AgentVersion != "":
			fmt.Fprintf(&b, " %s", flatten(handoff.Shorten(s.AgentVersion, 64)))
		case s.AgentVersionSource == handoff.VersionUnknown:
			b.WriteString(" (version unknown: its transcript records none)")
		}
		if s.ID != "" {
			fmt.Fprintf(&b, "\nsession: %s", flatten(handoff.Shorten(s.ID, 128)))
		}
		if s.StartedAt != nil {
			fmt.Fprintf(&b, "\nstarted: %s", s.StartedAt.UTC().Format(time.RFC3339))
		}
		if s.LastActivity != nil {
			fmt.Fprintf(&b, "\nlast activity: %s", s.LastActivity.UTC().Format(time.RFC3339))
		}
		if t := s.Tokens; t != nil {
			fmt.Fprintf(&b, "\ntokens: %d in, %d out", t.Input, t.Output)
		}
		w.quote(b.String(), 2048)
	}
	if len(rec.Redactions) > 0 {
		n := 0
		for _, r := range rec.Redactions {
			n += r.Count
		}
		w.printf("- %d secret(s) were redacted before it was stored; `[REDACTED:kind]` marks where.\n", n)
	}
}

// recordID prints a record's id in a code span when it has the shape of
// one, and a placeholder when it does not.
func recordID(id handoff.ID) string {
	if p, err := handoff.ParseID(string(id)); err == nil && p == id {
		return "`" + string(id) + "`"
	}
	return "(an id of unexpected shape)"
}

// showCommand is the command that shows the whole record, in a code span:
// with its id when the id has the shape of one.
func showCommand(id handoff.ID) string {
	if p, err := handoff.ParseID(string(id)); err == nil && p == id {
		return "`session-handoff show " + string(id) + "`"
	}
	return "`session-handoff show`"
}

// safeFileName matches the memory file names we print among our own
// words (SOUL.md, memory/layer1/2026-01-02-notes.md); anything else is
// quoted instead.
var safeFileName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}(/[A-Za-z0-9_][A-Za-z0-9._-]{0,63}){0,3}$`)
})

// fileHeading starts the quote of a memory file: its name as the
// heading when it has a plain shape, else a heading of ours with the name
// quoted below it.
func (w *writer) fileHeading(name string, title bool) {
	head := name
	if !safeFileName().MatchString(name) {
		head = "A memory file with an unusual name"
	}
	if title {
		w.title(head)
	} else {
		w.subheading(head)
	}
	if head != name {
		w.printf("Its name:\n\n")
		w.quote(name, 512)
		w.printf("\n")
	}
}

// bundleIDPattern is the shape of a bundle id (docs/FORMAT.md).
var bundleIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{32}$`) })

// fingerprintPattern is the shape of an SSH SHA256 key fingerprint.
var fingerprintPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^SHA256:[A-Za-z0-9+/]{43}$`) })

// safeToken matches the principals we print among our own words: names
// from the local trust store, which ValidatePrincipal keeps to this shape.
// Anything else is not printed there.
var safeToken = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:+/=@-]{0,127}$`) })

// token prints an identifier in a code span when it has the expected
// shape, and a placeholder when it does not.
func token(s string) string {
	if safeToken().MatchString(s) {
		return "`" + s + "`"
	}
	return "(a name with unexpected characters, not shown)"
}

// fingerprint prints a key fingerprint only in its expected shape.
func fingerprint(fp string) string {
	if fingerprintPattern().MatchString(fp) {
		return "key `" + fp + "`"
	}
	return "an unnamed key"
}

func taskSection(w *writer, rec *handoff.Record, level int) {
	w.heading(SecTask)
	w.printf("The title, and what the user asked for, as the handoff records them:\n\n")
	var b strings.Builder
	fmt.Fprintf(&b, "Title: %s\n", flatten(rec.Title))
	if s := rec.Session; s != nil && len(s.Requests) > 0 && level < 2 {
		n := len(s.Requests)
		if earlier := pick(level, 5, 0); earlier > 0 && n > 1 {
			from := max(0, n-1-earlier)
			fmt.Fprintf(&b, "\nEarlier requests (%d of %d):\n", n-1-from, n-1)
			for _, r := range s.Requests[from : n-1] {
				fmt.Fprintf(&b, "- %s\n", handoff.Shorten(flatten(r), 300))
			}
		}
		fmt.Fprintf(&b, "\nLast request:\n%s\n", handoff.Clip(strings.TrimSpace(handoff.CleanText(s.Requests[n-1])), pick(level, 8<<10, 1<<10)))
	}
	w.quote(b.String(), 12<<10)
}

func statusSection(w *writer, rec *handoff.Record, level int) {
	s := rec.Session
	hasSession := s != nil && (s.LastAgentMessage != "" || s.CompactionSummary != "" || s.Plan != "" || len(s.PullRequests) > 0)
	if rec.Summary == "" && !hasSession {
		return
	}
	w.heading(SecStatus)
	if rec.Summary != "" {
		w.printf("Summary:\n\n")
		w.quote(rec.Summary, pick(level, summaryLevels...))
		if len(rec.Summary) > pick(level, summaryLevels...) {
			w.printf("The whole summary: %s.\n", showCommand(rec.ID))
		}
	}
	if s == nil || level >= 2 {
		return
	}
	if s.LastAgentMessage != "" {
		w.printf("\nThe agent's last message:\n\n")
		w.quote(s.LastAgentMessage, pick(level, 8<<10, 1<<10))
		if s.LastFailure != nil && claimsSuccess(s.LastAgentMessage) {
			// The message is the agent's word; the command record is the
			// fact (issue 45).
			w.printf("\nThat message claims success, but the record says otherwise: the last command that failed (below) was not settled by any later run. Check it before you build on the claim.\n")
		}
		if len(s.FailedEdits) > 0 && claimsSuccess(s.LastAgentMessage) {
			w.printf("\nThat message claims success, but the record says otherwise: an edit failed and no later edit changed that file (%s, below). Check it before you build on the claim.\n", clean(s.FailedEdits[len(s.FailedEdits)-1].Path))
		}
	}
	if s.CompactionSummary != "" {
		w.printf("\nThe summary written when the session was compacted:\n\n")
		w.quote(s.CompactionSummary, pick(level, 8<<10, 1<<10))
	}
	if s.Plan != "" {
		switch s.PlanStatus {
		case handoff.PlanApproved:
			w.printf("\nThe plan the agent last put to the user, who approved it:\n\n")
		case handoff.PlanRejected:
			w.printf("\nA plan the agent put to the user, who rejected it: it is not the way forward, do not carry it out:\n\n")
		default:
			w.printf("\nThe plan the agent last put to the user, not approved yet: confirm it with the user before carrying it out:\n\n")
		}
		w.quote(s.Plan, pick(level, 8<<10, 1<<10))
	}
	if len(s.PullRequests) > 0 {
		lines := make([]string, len(s.PullRequests))
		for i, pr := range s.PullRequests {
			lines[i] = pr.URL
			if pr.Repository != "" && pr.Number > 0 {
				lines[i] += fmt.Sprintf(" (%s#%d)", pr.Repository, pr.Number)
			}
		}
		w.printf("\nPull requests the session is linked to:\n\n")
		w.quoteLines(lines, 20, 512, false)
	}
}

func decisionsSection(w *writer, rec *handoff.Record, level int) {
	if len(rec.Decisions) == 0 {
		return
	}
	w.heading(SecDecisions)
	w.printf("%s\n\n", wordingFor(rec).decisions)
	w.quoteItems(rec, rec.Decisions, level, false)
}

func nextSection(w *writer, rec *handoff.Record, level int) {
	w.heading(SecNext)
	if len(rec.NextSteps) == 0 {
		if derived := rec.DerivedNextSteps(); len(derived) > 0 {
			w.printf("Nobody wrote next steps; these are derived from the session (its open todos, its open failure, a cancelled last request). Confirm them with the user before you act on them:\n\n")
			w.quoteItems(rec, derived, level, true)
			return
		}
		w.printf("The handoff names no next steps: ask the user what to do before changing anything.\n")
		return
	}
	w.printf("%s\n\n", wordingFor(rec).next)
	w.quoteItems(rec, rec.NextSteps, level, true)
}

// summaryLevels are the bytes of the summary each level of where things
// stand quotes.
var summaryLevels = []int{16 << 10, 12 << 10, 9 << 10, 7 << 10, 5 << 10, 4 << 10, 3 << 10, 2 << 10, 1400, 1 << 10, 600}

// itemLevels are how many decisions or next steps each level shows, and
// the bytes of each: a little less at a time, so that a budget is filled
// rather than left half empty (issue 48).
var itemLevels = []struct{ items, itemMax int }{
	{handoff.MaxItems, handoff.MaxItem}, {handoff.MaxItems, 400}, {handoff.MaxItems, 200},
	{100, 200}, {70, 200}, {50, 200}, {35, 200}, {25, 200}, {18, 200}, {12, 200}, {8, 200}, {3, 120},
}

// quoteItems writes decisions or next steps at a level: whole at 0; under
// a tight budget each item is clipped, then only the first few are shown,
// and the rest are counted with the command that shows them all.
func (w *writer) quoteItems(rec *handoff.Record, items []string, level int, numbered bool) {
	l := itemLevels[min(level, len(itemLevels)-1)]
	maxItems := l.items
	w.quoteLines(items[:min(len(items), maxItems)], maxItems, l.itemMax, numbered)
	if len(items) > maxItems {
		w.printf("(and %d more: %s)\n", len(items)-maxItems, showCommand(rec.ID))
	}
}

func questionsSection(w *writer, rec *handoff.Record, level int) {
	if len(rec.OpenQuestions) == 0 {
		return
	}
	w.heading(SecQuestions)
	w.printf("Not settled yet; ask the user rather than guess:\n\n")
	w.quoteLines(rec.OpenQuestions, pick(level, handoff.MaxItems, 5), pick(level, handoff.MaxItem, 300), false)
}

func todosSection(w *writer, rec *handoff.Record, level int) {
	if rec.Session == nil {
		return
	}
	var open []string
	done := 0
	for _, t := range rec.Session.Todos {
		if t.Status == "completed" {
			done++
			continue
		}
		status := "pending"
		if t.Status == "in_progress" {
			status = "in progress"
		}
		open = append(open, "["+status+"] "+t.Content)
	}
	if len(open) == 0 {
		return
	}
	w.heading(SecTodos)
	w.printf("The agent's task list when the session ended (%d done, %d open):\n\n", done, len(open))
	w.quoteLines(open, pick(level, 100, 10), pick(level, 1000, 200), false)
}

func filesSection(w *writer, rec *handoff.Record, level int) {
	untouched := untouchedDirty(rec)
	if w.filesAbove {
		untouched = nil // the briefing lists what is dirty now, once
	}
	failed := failedEdits(rec)
	if len(rec.Files) == 0 && len(untouched) == 0 && len(failed) == 0 {
		return
	}
	w.heading(SecFiles)
	limit := pick(level, 100, 20)
	if len(rec.Files) > 0 {
		lines := make([]string, len(rec.Files))
		for i, f := range rec.Files {
			l := f.Action + " " + f.Path
			if f.From != "" {
				l = f.Action + " " + f.From + " to " + f.Path
			}
			var notes []string
			if f.Edits > 1 {
				notes = append(notes, fmt.Sprintf("%d edits", f.Edits))
			}
			if f.Git != "" {
				notes = append(notes, f.Git)
			}
			if f.By != "" {
				notes = append(notes, "by "+f.By)
			}
			if len(notes) > 0 {
				l += " (" + strings.Join(notes, ", ") + ")"
			}
			lines[i] = l
		}
		w.printf("What the session changed, and how each file stands in git:\n\n")
		w.quoteLines(lines, limit, 512, false)
	}
	if len(untouched) > 0 {
		w.printf("\nDirty in git but not touched by the session (someone else's change, or a tool's):\n\n")
		w.quoteLines(untouched, limit, 512, false)
	}
	if len(failed) > 0 {
		w.printf("\nEdits that failed: nothing was written by them, whatever the agent's last message says:\n\n")
		w.quoteLines(failed, limit, 512, false)
	}
}

// failedEdits are the lines of the session's failed edits: "failed edit
// of PATH: nothing was written", with the tool's answer.
func failedEdits(rec *handoff.Record) []string {
	if rec.Session == nil {
		return nil
	}
	lines := make([]string, 0, len(rec.Session.FailedEdits))
	for _, fe := range rec.Session.FailedEdits {
		l := "failed edit of " + fe.Path + ": nothing was written"
		var notes []string
		if fe.Count > 1 {
			notes = append(notes, fmt.Sprintf("%d tries", fe.Count))
		}
		if fe.By != "" {
			notes = append(notes, "by "+fe.By)
		}
		if len(notes) > 0 {
			l += " (" + strings.Join(notes, ", ") + ")"
		}
		if e := handoff.Shorten(strings.Join(strings.Fields(clean(fe.Error)), " "), 200); e != "" {
			l += "; the tool said: " + e
		}
		lines = append(lines, l)
	}
	return lines
}

// attachmentsSection lists the record's attachments (name, size, media
// type) as quoted data; their content is not rendered: 'session-handoff
// show ID --attachment NAME -o FILE' writes one out.
func attachmentsSection(w *writer, rec *handoff.Record, _ int) {
	if len(rec.Attachments) == 0 {
		return
	}
	w.heading(SecAttachments)
	lines := make([]string, len(rec.Attachments))
	for i, at := range rec.Attachments {
		lines[i] = fmt.Sprintf("%s (%d bytes, %s)", at.Name, at.Size, at.MediaType)
	}
	w.printf("Files stored with the handoff; their content is not shown here:\n\n")
	w.quoteLines(lines, 20, 256, false)
}

// untouchedDirty lists the files git had changed that the session did not
// touch, the agents' settings files left out: integrate's hooks and MCP
// servers live there, and they are nobody's work.
func untouchedDirty(rec *handoff.Record) []string {
	g := rec.Git
	if g == nil || rec.Session == nil {
		return nil
	}
	touched := map[string]bool{}
	for _, f := range rec.Files {
		touched[strings.TrimPrefix(f.Path, "./")] = true
		if f.From != "" {
			touched[strings.TrimPrefix(f.From, "./")] = true
		}
	}
	// A new directory git lists as "dir/" is the session's when the
	// session touched a file in it.
	touchedIn := func(dir string) bool {
		for p := range touched {
			if strings.HasPrefix(p, dir) {
				return true
			}
		}
		return false
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !touched[p] && !seen[p] && !agents.IsSettingsFile(p) && !(strings.HasSuffix(p, "/") && touchedIn(p)) {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, f := range g.Staged {
		add(f.Path)
	}
	for _, f := range g.Unstaged {
		add(f.Path)
	}
	for _, p := range g.Untracked {
		add(p)
	}
	return out
}

func commandsSection(w *writer, rec *handoff.Record, level int) {
	s := rec.Session
	if s == nil || (len(s.Commands) == 0 && s.LastFailure == nil) {
		return
	}
	w.heading(SecCommands)
	if n := len(s.Commands); n > 0 {
		show := pick(level, 20, 0)
		if show > 0 {
			from := max(0, n-show)
			lines := make([]string, 0, n-from)
			for _, c := range s.Commands[from:] {
				lines = append(lines, commandLine(c))
			}
			w.printf("The last %d of %d commands the session ran:\n\n", n-from, n)
			w.quoteLines(lines, show, 400, false)
		} else {
			w.printf("The session ran %d commands.\n", n)
		}
	}
	if f := s.LastFailure; f != nil {
		w.printf("\nThe last command that failed, with its output:\n\n")
		var b strings.Builder
		b.WriteString("$ " + flatten(handoff.Shorten(f.Command, 2048)) + "\n")
		if f.ExitCode != nil {
			fmt.Fprintf(&b, "(exit %d)\n", *f.ExitCode)
		} else if f.Status == handoff.StatusBlocked {
			b.WriteString("(blocked by a hook before it ran)\n")
		}
		b.WriteString(f.Output)
		w.quote(b.String(), pick(level, 4<<10, 1<<10))
	}
}

func commandLine(c handoff.Command) string {
	l := c.Command
	switch {
	case c.ExitCode != nil:
		l = fmt.Sprintf("[exit %d] %s", *c.ExitCode, l)
	case c.Status == handoff.StatusRejected || c.Status == handoff.StatusInterrupted ||
		c.Status == handoff.StatusBlocked || c.Status == handoff.StatusBackground:
		// It did not run its course: say how.
		l = fmt.Sprintf("[%s] %s", c.Status, l)
	}
	switch {
	case c.Count > 1 && len(c.Runs) > 0:
		// The runs did not all end alike: say how each did.
		runs := strings.Join(c.Runs, ", ")
		if c.Count > len(c.Runs) {
			runs = "…, " + runs
		}
		l += fmt.Sprintf(" (%d times: %s)", c.Count, runs)
	case c.Count > 1:
		l += fmt.Sprintf(" (%d times)", c.Count)
	}
	if c.By != "" {
		l += " (by " + c.By + ")"
	}
	return l
}

func checksSection(w *writer, rec *handoff.Record, _ int) {
	p := rec.Project
	if len(p.Checks) == 0 {
		return
	}
	w.heading(SecChecks)
	w.printf("How the project builds and tests, as the handoff records it. Read each command before you run it:\n\n")
	lines := make([]string, len(p.Checks))
	for i, c := range p.Checks {
		lines[i] = c.Purpose + ": " + c.Command
	}
	if p.Kind != "" {
		lines = append([]string{"kind: " + p.Kind}, lines...)
	}
	w.quoteLines(lines, 40, 512, false)
}

func gitSection(w *writer, rec *handoff.Record, level int) {
	g := rec.Git
	if g == nil {
		return
	}
	w.heading(SecGit)
	w.printf("The worktree when the handoff was made:\n\n")
	var b strings.Builder
	fmt.Fprintf(&b, "project: %s\n", flatten(handoff.Shorten(rec.Project.Name, 200)))
	if rec.Project.Remote != "" {
		fmt.Fprintf(&b, "remote: %s\n", flatten(handoff.Shorten(rec.Project.Remote, 400)))
	}
	branch := "(detached HEAD)"
	if g.Branch != "" {
		branch = flatten(handoff.Shorten(g.Branch, 256))
	}
	fmt.Fprintf(&b, "branch: %s\n", branch)
	if g.Head != "" {
		fmt.Fprintf(&b, "HEAD: %s\n", flatten(handoff.Shorten(g.Head, 80)))
	}
	if g.Upstream != "" {
		fmt.Fprintf(&b, "upstream: %s (%d ahead, %d behind)\n", flatten(handoff.Shorten(g.Upstream, 256)), g.Ahead, g.Behind)
	}
	if level == 0 && !w.filesAbove {
		limit := 50
		list := func(label string, paths []string) {
			for i, p := range paths {
				if i == limit {
					fmt.Fprintf(&b, "%s: and %d more\n", label, len(paths)-limit)
					break
				}
				fmt.Fprintf(&b, "%s: %s\n", label, flatten(handoff.Shorten(p, 512)))
			}
		}
		list("staged", statusPaths(g.Staged))
		list("unstaged", statusPaths(g.Unstaged))
		list("untracked", g.Untracked)
	} else {
		fmt.Fprintf(&b, "changed files: %d staged, %d unstaged, %d untracked\n", len(g.Staged), len(g.Unstaged), len(g.Untracked))
	}
	if level == 0 {
		for _, c := range g.RecentCommits {
			fmt.Fprintf(&b, "commit: %s %s\n", flatten(handoff.Shorten(c.Hash, 12)), flatten(handoff.Shorten(c.Subject, 200)))
		}
	}
	w.quote(b.String(), 16<<10)
	w.printf("\nBefore you start, check the worktree still matches:")
	if hexCommit().MatchString(g.Head) {
		w.printf(" `git rev-parse HEAD` should print `%s`;", g.Head)
	}
	w.printf(" `git branch --show-current` should print the branch above; `git status --short` should list the same changes. If they differ, say so before you go on.\n")
}

func statusPaths(list []handoff.FileStatus) []string {
	out := make([]string, len(list))
	for i, f := range list {
		out[i] = f.Status + " " + f.Path
		if f.From != "" {
			out[i] += " (from " + f.From + ")"
		}
	}
	return out
}

// successClaim matches words by which an agent says the work is done and
// good: "fixed", "all tests pass", "works now".
var successClaim = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(fixed|passes|passing|pass now|tests? pass|succeed(s|ed)?|successful(ly)?|works now|working now|resolved|all green|is green)\b`)
})

// claimsSuccess says whether an agent's message reads as a claim that
// the work succeeded (the start of it: a claim comes first).
func claimsSuccess(msg string) bool {
	return successClaim().MatchString(handoff.Clip(msg, 4096))
}
