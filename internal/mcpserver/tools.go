package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/briefing"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/untrusted"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/store"
	"github.com/session-handoff/session-handoff/targets"
)

// Tool names. No other tool exists: importing, trusting, exporting and
// handover runs are the user's, on the command line.
const (
	ToolList    = "handoff_list"
	ToolShow    = "handoff_show"
	ToolSearch  = "handoff_search"
	ToolSave    = "handoff_save"
	ToolCapture = "handoff_capture"
	ToolResume  = "handoff_resume"
	ToolRender  = "handoff_render"
	ToolScore   = "handoff_score"
)

// ToolNames lists every tool, in the order tools/list gives them.
var ToolNames = []string{ToolCapture, ToolList, ToolRender, ToolResume, ToolSave, ToolScore, ToolSearch, ToolShow}

// Listing limits: an agent gets at most maxListLimit handoffs a call.
const (
	defaultListLimit = 20
	maxListLimit     = 200
)

func (s *server) addTools(srv *mcp.Server) {
	target := bound{maxLength: boundName.maxLength, names: targets.Names()}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
	writes := &mcp.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(false)}
	toolName := bound{maxLength: boundName.maxLength, names: agents.Names()}
	filters := map[string]bound{"tool": toolName, "project": boundQuery, "query": boundQuery, "id": boundRef, "since": boundBudget}
	addTool(srv, s.gate, &mcp.Tool{Name: ToolList, Title: "List handoffs", Annotations: readOnly,
		Description: "Lists stored handoffs, newest first, with the filters of 'session-handoff list': tool, project (a name, or a directory and everything under it), query, id prefix, since (90m, 6h, 2d, 1w or a date), latest, limit (default 20, at most 200)."},
		filters, s.list)
	addTool(srv, s.gate, &mcp.Tool{Name: ToolSearch, Title: "Search past work", Annotations: readOnly,
		Description: "Finds past work, newest first: every session of every coding agent on this machine (the requests, the agent's messages and summaries, commands with their output's first lines, files, decisions, plans, todos) and every stored handoff, this machine's and those synced from the user's other machines; secrets are redacted. Words are ANDed; \"a phrase\", prefix*, a OR b, -word. Filters: kind (request, message, command, file, decision), agent, project (. for this one), since; limit (default 8, at most 20). Each result says how to open it."},
		map[string]bound{"query": boundQuery, "kind": boundName, "agent": toolName, "project": boundQuery, "since": boundBudget}, s.search)
	ref := map[string]bound{"id": boundRef}
	addTool(srv, s.gate, &mcp.Tool{Name: ToolShow, Title: "Show a handoff", Annotations: readOnly,
		Description: "Shows one handoff in full: its task, state, decisions, next steps, questions, files, commands, git state and where it came from. id is an id, a unique prefix or latest (the default: the newest handoff of this project)."},
		ref, s.show)
	notes := map[string]bound{"title": boundTitle, "summary": boundSummary, "next_steps": boundItems, "decisions": boundItems, "questions": boundItems, "tags": boundTags}
	saveBounds := map[string]bound{"tool": toolName}
	for k, v := range notes {
		saveBounds[k] = v
	}
	addTool(srv, s.gate, &mcp.Tool{Name: ToolSave, Title: "Save a handoff", Annotations: writes,
		Description: "Saves a handoff of this project: title, summary, next steps in order, decisions with their reasons, open questions, tags. The git state (branch, HEAD, upstream, staged, unstaged and untracked files, recent commits) is recorded with it, as 'session-handoff save' does. Returns its id and what would make it more complete."},
		saveBounds, s.save)
	from := append(capture.AgentNames(), "auto")
	captureBounds := map[string]bound{"from": {maxLength: 16, enum: anys(from), names: from}, "session": boundRef}
	for k, v := range notes {
		captureBounds[k] = v
	}
	addTool(srv, s.gate, &mcp.Tool{Name: ToolCapture, Title: "Capture this session", Annotations: writes,
		Description: "Builds a handoff from your own transcript (the requests, your last message, files edited, commands and the last failure, open todos) and the git worktree, with secrets redacted, and stores it; the same session captured again updates its handoff. Anything you add (title, summary, next steps, decisions, questions) wins over what the transcript says. dry_run shows it and stores nothing."},
		captureBounds, s.capture)
	addTool(srv, s.gate, &mcp.Tool{Name: ToolResume, Title: "Brief this session", Annotations: readOnly,
		Description: "The start-of-session briefing for this project: its identity and memory files (SOUL.md, MEMORY.md), the latest handoff, and how the git worktree moved since. budget caps its size: tokens (8000) or bytes (32KiB)."},
		map[string]bound{"target": target, "budget": boundBudget}, s.resume)
	addTool(srv, s.gate, &mcp.Tool{Name: ToolRender, Title: "Render a handoff", Annotations: readOnly,
		Description: "Renders a handoff as a prompt (or an instruction-file section) for an agent: target is " + agents.OrList(targets.Names()...) + "; budget caps the size (low-value sections give way first; provenance, decisions and next steps never); sections picks sections by id. Nothing is written to any file."},
		map[string]bound{"id": boundRef, "target": target, "budget": boundBudget, "as": {maxLength: 16, enum: []any{"prompt", "instructions"}},
			"sections": {maxLength: 32, maxItems: len(render.SectionIDs)}}, s.render)
	addTool(srv, s.gate, &mcp.Tool{Name: ToolScore, Title: "Score a handoff", Annotations: readOnly,
		Description: "Rates how complete a handoff is (0-100) against the rubric of 'session-handoff score', and says what to add."},
		ref, s.score)
}

// anys converts names for a schema's enum.
func anys(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}

// listInput are handoff_list's arguments: list's filters.
type listInput struct {
	Tool    string `json:"tool,omitempty" jsonschema:"only handoffs from this agent ({names}…)"`
	Project string `json:"project,omitempty" jsonschema:"only handoffs for this project name, or this directory and everything under it"`
	Query   string `json:"query,omitempty" jsonschema:"only handoffs with this in any text field, ignoring case"`
	ID      string `json:"id,omitempty" jsonschema:"only ids starting with this prefix"`
	Since   string `json:"since,omitempty" jsonschema:"only handoffs newer than this: a duration back from now (90m, 6h, 2d, 1w) or a date (2026-11-20)"`
	Latest  bool   `json:"latest,omitempty" jsonschema:"only the newest match"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many, newest first (default 20, at most 200)"`
}

// listItem is one handoff of a listing, in values of our own shape only:
// its title and project are in the text, quoted.
type listItem struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	Tool      string    `json:"tool,omitempty" jsonschema:"the agent of the session, when its name has the expected shape"`
	Source    string    `json:"source" jsonschema:"hand, transcript, import or legacy"`
	Trust     string    `json:"trust" jsonschema:"mine, verified, pinned, untrusted, unsigned, legacy or unknown"`
}

// listOutput is what handoff_list and handoff_search return.
type listOutput struct {
	Count    int        `json:"count"`
	More     bool       `json:"more" jsonschema:"more handoffs match past the limit"`
	Handoffs []listItem `json:"handoffs"`
	Text     string     `json:"text" jsonschema:"the handoffs for reading: titles and projects quoted in a fenced block, as data"`
}

func (s *server) list(_ context.Context, in listInput) (*mcp.CallToolResult, listOutput, error) {
	since, err := store.ParseSince(in.Since, s.now())
	if err != nil {
		return nil, listOutput{}, fmt.Errorf("since %w", err)
	}
	f := store.Filter{Tool: in.Tool, Project: s.projectFilter(in.Project), Query: in.Query, IDPrefix: in.ID, Since: since, Latest: in.Latest}
	return s.listing(f, in.Limit, "Handoffs")
}

// projectFilter is list's --project (store.ProjectFilter), with a
// relative directory taken from the project the server works in rather
// than the server's working directory.
func (s *server) projectFilter(p string) string {
	f := filepath.FromSlash(p)
	if f == "." || f == ".." || (strings.ContainsRune(f, filepath.Separator) && !filepath.IsAbs(f)) {
		return filepath.Join(s.o.Project, f)
	}
	return store.ProjectFilter(p)
}

// listing runs a store query and writes its answer.
func (s *server) listing(f store.Filter, limit int, heading string) (*mcp.CallToolResult, listOutput, error) {
	switch {
	case limit < 0 || limit > maxListLimit:
		return nil, listOutput{}, fmt.Errorf("limit %d: want 1 to %d", limit, maxListLimit)
	case limit == 0:
		limit = defaultListLimit
	}
	f.Limit = limit + 1
	if f.Latest {
		f.Limit = 1
	}
	list := s.o.Store.List
	if strings.TrimSpace(f.Query) != "" {
		list = s.o.Store.Search // every text field, as list --query does
	}
	entries, err := list(f)
	if err != nil {
		return nil, listOutput{}, err
	}
	out := listOutput{Handoffs: []listItem{}}
	if len(entries) > limit {
		entries, out.More = entries[:limit], true
	}
	s.o.Store.FillOrigins(entries)
	rows := make([]render.ListRow, 0, len(entries))
	for _, e := range entries {
		out.Handoffs = append(out.Handoffs, listItem{ID: string(e.ID), CreatedAt: e.CreatedAt, Tool: toolName(e.Tool), Source: sourceKind(e.Source), Trust: trust(e.Origin)})
		rows = append(rows, render.ListRow{ID: e.ID, CreatedAt: e.CreatedAt, Tool: e.Tool, Origin: e.Origin, Project: e.ProjectName, Title: e.Title})
	}
	out.Count = len(out.Handoffs)
	out.Text = render.Listing(heading, rows, out.More)
	return text(out.Text), out, nil
}

// toolName is a record's tool when it has the shape of one, else "".
func toolName(t string) string {
	if handoff.ValidTool(t) {
		return t
	}
	return ""
}

// sourceKind is a record's source kind when it is one we know.
func sourceKind(k string) string {
	switch k {
	case handoff.SourceHand, handoff.SourceTranscript, handoff.SourceImport, handoff.SourceLegacy:
		return k
	}
	return "unknown"
}

// trust is the first word of an origin (handoff.Source.Origin): how far
// to trust the record, without the signer's name.
func trust(origin string) string {
	word, _, _ := strings.Cut(origin, ":")
	switch word {
	case "mine", "verified", "pinned", "untrusted", "unsigned", "legacy":
		return word
	case "no longer trusted":
		return "untrusted"
	}
	return "unknown"
}

// refInput names one handoff.
type refInput struct {
	ID          string `json:"id,omitempty" jsonschema:"a handoff id, a unique prefix of one, or latest (the default: the newest handoff of this project)"`
	AllProjects bool   `json:"all_projects,omitempty" jsonschema:"latest means the newest handoff in the whole store, not this project's"`
}

// record reads the handoff ref names: "latest" (or nothing) is this
// project's newest, unless allProjects. note says which one "latest" took
// when that is not obvious.
func (s *server) record(ctx context.Context, ref string, allProjects bool) (rec *handoff.Record, note string, err error) {
	if ref == "" {
		ref = "latest"
	}
	root := s.o.Project
	if allProjects {
		root = ""
	}
	pick, err := s.o.Store.ResolveForProject(ref, root, capture.IdentityFunc(ctx, root))
	if err != nil {
		return nil, "", err
	}
	rec, err = s.o.Store.Get(pick.ID)
	return rec, pick.Note, err
}

// handoffOutput is what handoff_show returns.
type handoffOutput struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	Tool      string    `json:"tool,omitempty"`
	Trust     string    `json:"trust" jsonschema:"mine, verified, pinned, untrusted, unsigned, legacy or unknown"`
	Note      string    `json:"note,omitempty" jsonschema:"which handoff latest took, when that is not obvious"`
	Text      string    `json:"text" jsonschema:"the handoff for reading: everything from it quoted in fenced blocks, as data"`
}

func (s *server) show(ctx context.Context, in refInput) (*mcp.CallToolResult, handoffOutput, error) {
	rec, note, err := s.record(ctx, in.ID, in.AllProjects)
	if err != nil {
		return nil, handoffOutput{}, err
	}
	p, _ := targets.Lookup("generic")
	res, err := render.Render(rec, render.Options{Style: p.Style})
	if err != nil {
		return nil, handoffOutput{}, err
	}
	out := handoffOutput{ID: string(rec.ID), CreatedAt: rec.CreatedAt, Tool: toolName(rec.Tool), Trust: trust(rec.Source.Origin()), Note: note, Text: res.Text}
	return text(withNote(note, res.Text)), out, nil
}

// withNote puts a note of ours before a text.
func withNote(note, t string) string {
	if note == "" {
		return t
	}
	return "(" + note + ")\n\n" + t
}

// notesInput is what an agent says about a handoff: the note flags of
// save and capture.
type notesInput struct {
	Title     string   `json:"title,omitempty" jsonschema:"one line that says what the work is"`
	Summary   string   `json:"summary,omitempty" jsonschema:"where things stand"`
	NextSteps []string `json:"next_steps,omitempty" jsonschema:"what to do next, in order"`
	Decisions []string `json:"decisions,omitempty" jsonschema:"settled decisions, each with its reason"`
	Questions []string `json:"questions,omitempty" jsonschema:"open questions"`
	Tags      []string `json:"tags,omitempty" jsonschema:"tags: letters, digits and . _ : / + -"`
}

func (n notesInput) notes() handoff.Notes {
	return handoff.Notes{Title: n.Title, Summary: n.Summary, NextSteps: n.NextSteps, Decisions: n.Decisions, OpenQuestions: n.Questions, Tags: n.Tags}
}

// saveInput are handoff_save's arguments.
type saveInput struct {
	Title     string   `json:"title" jsonschema:"one line that says what the work is"`
	Summary   string   `json:"summary,omitempty" jsonschema:"where things stand"`
	NextSteps []string `json:"next_steps,omitempty" jsonschema:"what to do next, in order"`
	Decisions []string `json:"decisions,omitempty" jsonschema:"settled decisions, each with its reason"`
	Questions []string `json:"questions,omitempty" jsonschema:"open questions"`
	Tags      []string `json:"tags,omitempty" jsonschema:"tags: letters, digits and . _ : / + -"`
	Tool      string   `json:"tool,omitempty" jsonschema:"the agent that did the work ({names}…); default: the agent the server was set up for"`
	NoGit     bool     `json:"no_git,omitempty" jsonschema:"save without git state, for a project that is not a git worktree"`
}

// savedOutput is what handoff_save and handoff_capture return.
type savedOutput struct {
	Saved   bool   `json:"saved" jsonschema:"false on a dry run"`
	Updated bool   `json:"updated,omitempty" jsonschema:"an earlier capture of the same session was replaced"`
	ID      string `json:"id"`
	Score   int    `json:"score" jsonschema:"how complete the handoff is, 0 to 100"`
	// Missing says, heaviest first, what would make it more complete
	// (the rubric's own words).
	Missing    []string            `json:"missing,omitempty"`
	Redactions []handoff.Redaction `json:"redactions,omitempty" jsonschema:"the kinds of secret removed, and how many of each"`
	Text       string              `json:"text"`
}

func (s *server) save(ctx context.Context, in saveInput) (*mcp.CallToolResult, savedOutput, error) {
	if strings.TrimSpace(in.Title) == "" {
		return nil, savedOutput{}, errors.New("title: say in one line what the work is")
	}
	tool := in.Tool
	if tool == "" {
		tool = s.defaultTool()
	}
	if !handoff.ValidTool(tool) {
		return nil, savedOutput{}, fmt.Errorf("tool %q: want a lower-case name such as %s", handoff.Shorten(handoff.CleanText(tool), 40), agents.OrList(agents.Names()...))
	}
	rec, err := handoff.New(s.now(), tool, in.Title)
	if err != nil {
		return nil, savedOutput{}, err
	}
	rec.Source.Machine = s.o.Machine
	if err := capture.FromWorktree(ctx, rec, s.o.Project, in.NoGit); err != nil {
		if errors.Is(err, capture.ErrNotGitRepo) {
			return nil, savedOutput{}, fmt.Errorf("%w (pass no_git to save without git state)", err)
		}
		return nil, savedOutput{}, err
	}
	n := notesInput{Title: in.Title, Summary: in.Summary, NextSteps: in.NextSteps, Decisions: in.Decisions, Questions: in.Questions, Tags: in.Tags}
	if err := n.notes().Apply(rec); err != nil {
		return nil, savedOutput{}, err
	}
	if err := s.o.Store.Save(rec); err != nil {
		return nil, savedOutput{}, err
	}
	out := saved(rec, true)
	out.Text = fmt.Sprintf("Saved handoff %s.\n%s", rec.ID, advice(out))
	return text(out.Text), out, nil
}

// saved is the part of savedOutput every save fills.
func saved(rec *handoff.Record, stored bool) savedOutput {
	sc := handoff.Assess(rec, nil)
	out := savedOutput{Saved: stored, ID: string(rec.ID), Score: sc.Percent, Redactions: rec.Redactions}
	for _, c := range sc.Missing() {
		out.Missing = append(out.Missing, c.Missing)
	}
	return out
}

// advice says the score and what to add, in our words.
func advice(o savedOutput) string {
	if len(o.Missing) == 0 {
		return fmt.Sprintf("Score %d/100: nothing to add.\n", o.Score)
	}
	return fmt.Sprintf("Score %d/100. To make it more complete:\n- %s\n", o.Score, strings.Join(o.Missing, "\n- "))
}

// defaultTool is the tool a save records when the agent does not say.
func (s *server) defaultTool() string {
	if handoff.ValidTool(s.o.Agent) {
		return s.o.Agent
	}
	return "generic"
}

// captureInput are handoff_capture's arguments.
type captureInput struct {
	From      string   `json:"from,omitempty" jsonschema:"the agent whose transcript to read: {names} (default: the agent the server was set up for, else auto)"`
	Session   string   `json:"session,omitempty" jsonschema:"latest (the default: the newest session of this project) or a session id or unique prefix of one; never a file"`
	Title     string   `json:"title,omitempty" jsonschema:"one line that says what the work is (default: the session's own)"`
	Summary   string   `json:"summary,omitempty" jsonschema:"where things stand"`
	NextSteps []string `json:"next_steps,omitempty" jsonschema:"what to do next, in order"`
	Decisions []string `json:"decisions,omitempty" jsonschema:"settled decisions, each with its reason"`
	Questions []string `json:"questions,omitempty" jsonschema:"open questions"`
	Tags      []string `json:"tags,omitempty" jsonschema:"tags: letters, digits and . _ : / + -"`
	DryRun    bool     `json:"dry_run,omitempty" jsonschema:"build the handoff and show it; store nothing"`
}

// sessionRef is the shape of a session id or prefix an agent may name.
var sessionRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`) })

func (s *server) capture(ctx context.Context, in captureInput) (*mcp.CallToolResult, savedOutput, error) {
	from := in.From
	if from == "" {
		from = s.o.Agent
	}
	var agent capture.Agent
	if from != "" && from != "auto" {
		a, err := capture.ParseAgent(from)
		if err != nil {
			return nil, savedOutput{}, fmt.Errorf("from: %w", err)
		}
		agent = a
	}
	session := in.Session
	if session == "" {
		session = "latest"
	}
	if session != "latest" && !sessionRef().MatchString(session) {
		return nil, savedOutput{}, errors.New("session: want latest or a session id (letters, digits, - and _); files are not read here")
	}
	red, err := redact.LoadUserPatterns(s.o.ConfigDir)
	if err != nil {
		return nil, savedOutput{}, err
	}
	res, err := capture.Build(ctx, capture.Options{Agent: agent, Session: session, SessionIDOnly: true, Project: s.o.Project, Env: s.o.Env, Redactor: red}, s.now())
	if err != nil {
		return nil, savedOutput{}, err
	}
	rec := res.Record
	rec.Source.Machine = s.o.Machine
	notes := notesInput{Title: in.Title, Summary: in.Summary, NextSteps: in.NextSteps, Decisions: in.Decisions, Questions: in.Questions, Tags: in.Tags}.notes()
	if in.DryRun {
		if err := notes.Apply(rec); err != nil {
			return nil, savedOutput{}, err
		}
		out := saved(rec, false)
		r, err := render.Render(rec, render.Options{})
		if err != nil {
			return nil, savedOutput{}, err
		}
		out.Text = "Dry run: nothing stored. The handoff would be:\n\n" + r.Text + "\n" + advice(out)
		return text(out.Text), out, nil
	}
	updated, err := s.o.Store.SaveSessionCapture(rec, notes)
	if err != nil {
		return nil, savedOutput{}, err
	}
	out := saved(rec, true)
	out.Updated = updated
	verb := "Captured"
	if updated {
		verb = "Updated"
	}
	out.Text = fmt.Sprintf("%s handoff %s from a %s session (%d transcript lines; %s).\n%s", verb, rec.ID, res.Session.Agent, res.Digest.Stats.Lines, redactions(rec.Redactions), advice(out))
	return text(out.Text), out, nil
}

// redactions says what redaction removed, in our words.
func redactions(r []handoff.Redaction) string {
	if len(r) == 0 {
		return "no secret found to redact"
	}
	parts := make([]string, len(r))
	for i, x := range r {
		parts[i] = fmt.Sprintf("%d %s", x.Count, x.Kind)
	}
	return "redacted " + strings.Join(parts, ", ")
}

// resumeInput are handoff_resume's arguments.
type resumeInput struct {
	Target string `json:"target,omitempty" jsonschema:"the agent to write for: {names} (default: the agent the server was set up for)"`
	Budget string `json:"budget,omitempty" jsonschema:"size limit: tokens (8000) or bytes (32KiB); default none"`
}

// resumeOutput is what handoff_resume returns.
type resumeOutput struct {
	Project          string   `json:"project"`
	HandoffID        string   `json:"handoff_id,omitempty" jsonschema:"the handoff the briefing holds, if any"`
	MatchedByName    bool     `json:"matched_by_name,omitempty" jsonschema:"the handoff was made for a project of the same name elsewhere"`
	MatchedElsewhere bool     `json:"matched_elsewhere,omitempty" jsonschema:"the handoff was made on another machine for the same repository at another path"`
	Omitted          []string `json:"omitted,omitempty" jsonschema:"sections the budget left out"`
	Shortened        []string `json:"shortened,omitempty" jsonschema:"sections the budget shortened"`
	Warnings         []string `json:"warnings,omitempty" jsonschema:"what was left out of the briefing, and why"`
	Text             string   `json:"text"`
}

func (s *server) resume(ctx context.Context, in resumeInput) (*mcp.CallToolResult, resumeOutput, error) {
	p, err := s.target(in.Target)
	if err != nil {
		return nil, resumeOutput{}, err
	}
	b, err := render.ParseBudget(in.Budget)
	if err != nil {
		return nil, resumeOutput{}, fmt.Errorf("budget: %w", err)
	}
	out := resumeOutput{Project: s.o.Project}
	// A warning names the project's files and where their links lead:
	// one cleaned, bounded line each.
	warn := func(format string, args ...any) {
		out.Warnings = append(out.Warnings, untrusted.OneLine(fmt.Sprintf(format, args...), maxErrorText))
	}
	br, res, err := briefing.Build(ctx, s.o.Store, briefing.Options{Project: s.o.Project, MemoryDir: s.memoryDir(),
		Render: render.Options{Style: p.Style, Budget: b}, Warn: warn})
	if err != nil {
		return nil, resumeOutput{}, err
	}
	if br.Record != nil {
		out.HandoffID = string(br.Record.ID)
	}
	out.MatchedByName, out.MatchedElsewhere, out.Omitted, out.Shortened, out.Text = br.MatchedByName, br.MatchedElsewhere, res.Omitted, res.Shortened, res.Text
	return text(res.Text), out, nil
}

// target is the render profile an agent names, or by default the one of
// the agent the server was set up for.
func (s *server) target(name string) (targets.Profile, error) {
	if name == "" {
		name = s.o.Agent
	}
	p, err := targets.Lookup(name)
	if err != nil {
		return targets.Profile{}, fmt.Errorf("target: %w", err)
	}
	return p, nil
}

// renderInput are handoff_render's arguments.
type renderInput struct {
	ID          string   `json:"id,omitempty" jsonschema:"a handoff id, a unique prefix of one, or latest (the default: the newest handoff of this project)"`
	AllProjects bool     `json:"all_projects,omitempty" jsonschema:"latest means the newest handoff in the whole store, not this project's"`
	Target      string   `json:"target,omitempty" jsonschema:"the agent to write for: {names} (default: the agent the server was set up for)"`
	As          string   `json:"as,omitempty" jsonschema:"prompt (the default: a message that starts a session) or instructions (a section of an instruction file)"`
	Budget      string   `json:"budget,omitempty" jsonschema:"size limit: tokens (8000) or bytes (32KiB); default none for a prompt, the target's for instructions"`
	Sections    []string `json:"sections,omitempty" jsonschema:"only these sections, by id (provenance is always included)"`
}

// renderOutput is what handoff_render returns.
type renderOutput struct {
	ID        string   `json:"id"`
	Note      string   `json:"note,omitempty" jsonschema:"which handoff latest took, when that is not obvious"`
	Omitted   []string `json:"omitted,omitempty" jsonschema:"sections the budget left out"`
	Shortened []string `json:"shortened,omitempty" jsonschema:"sections the budget shortened"`
	Text      string   `json:"text"`
}

func (s *server) render(ctx context.Context, in renderInput) (*mcp.CallToolResult, renderOutput, error) {
	p, err := s.target(in.Target)
	if err != nil {
		return nil, renderOutput{}, err
	}
	as := in.As
	if as == "" {
		as = "prompt"
	}
	mode, err := render.ParseMode(as)
	if err != nil {
		return nil, renderOutput{}, fmt.Errorf("as %w", err)
	}
	b, err := render.ParseBudget(in.Budget)
	if err != nil {
		return nil, renderOutput{}, fmt.Errorf("budget: %w", err)
	}
	ropts, err := p.RenderOptions(mode, b, in.Sections)
	if err != nil {
		return nil, renderOutput{}, fmt.Errorf("sections: %w", err)
	}
	rec, note, err := s.record(ctx, in.ID, in.AllProjects)
	if err != nil {
		return nil, renderOutput{}, err
	}
	res, err := render.Render(rec, ropts)
	if err != nil {
		return nil, renderOutput{}, err
	}
	out := renderOutput{ID: string(rec.ID), Note: note, Omitted: res.Omitted, Shortened: res.Shortened, Text: res.Text}
	return text(withNote(note, res.Text)), out, nil
}

// scoreOutput is what handoff_score returns.
type scoreOutput struct {
	ID       string              `json:"id"`
	Percent  int                 `json:"percent"`
	Points   int                 `json:"points"`
	Possible int                 `json:"possible"`
	Criteria []handoff.Criterion `json:"criteria"`
	Text     string              `json:"text"`
}

func (s *server) score(ctx context.Context, in refInput) (*mcp.CallToolResult, scoreOutput, error) {
	rec, note, err := s.record(ctx, in.ID, in.AllProjects)
	if err != nil {
		return nil, scoreOutput{}, err
	}
	sc := handoff.Assess(rec, capture.CurrentState(ctx, rec))
	var b strings.Builder
	fmt.Fprintf(&b, "Handoff %s scores %d/100.\n", rec.ID, sc.Percent)
	for _, c := range sc.Missing() {
		fmt.Fprintf(&b, "- missing (%d): %s\n", c.Weight, c.Missing)
	}
	out := scoreOutput{ID: string(rec.ID), Percent: sc.Percent, Points: sc.Points, Possible: sc.Possible, Criteria: sc.Criteria, Text: withNote(note, b.String())}
	return text(out.Text), out, nil
}
