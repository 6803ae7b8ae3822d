package render

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Mode is what a rendering is for.
type Mode int

const (
	// Prompt is a message handed to an agent when a session starts.
	Prompt Mode = iota
	// Instructions is a section of an instruction file the agent reads by
	// itself (CLAUDE.md, AGENTS.md…); its headings start one level lower so
	// it sits under the file's own title.
	Instructions
)

// Style is how a handoff is written for one agent: its name and our
// advice for it (internal/agent keeps it with the agent's profile).
type Style = agent.Style

// Options control a rendering.
type Options struct {
	Mode   Mode
	Style  Style
	Budget Budget
	// Sections names the sections to render (see SectionIDs); nil renders
	// them all. Provenance is rendered whatever is asked, because an agent
	// must always know where the text came from.
	Sections []string
	// nested renders the handoff inside a briefing: headings one level
	// down, and no preamble of its own.
	nested bool
	// filesAbove is set when the briefing lists the files that differ
	// now: the git state then counts the handoff's uncommitted files
	// instead of listing them a second time.
	filesAbove bool
}

// depth is the level of the rendering's top heading.
func (o Options) depth() int {
	if o.Mode == Instructions || o.nested {
		return 2
	}
	return 1
}

// Result is a rendering and what it had to leave out.
type Result struct {
	Text string
	// Omitted and Shortened name the sections dropped or shortened to fit
	// the budget, in the order it happened.
	Omitted   []string
	Shortened []string
}

// Section ids, in the order they are rendered.
const (
	SecProvenance  = "provenance"
	SecTask        = "task"
	SecStatus      = "status"
	SecDecisions   = "decisions"
	SecNext        = "next"
	SecQuestions   = "questions"
	SecTodos       = "todos"
	SecFiles       = "files"
	SecAttachments = "attachments"
	SecCommands    = "commands"
	SecChecks      = "checks"
	SecGit         = "git"
)

// SectionIDs lists every section in the order it is rendered.
var SectionIDs = []string{SecProvenance, SecTask, SecStatus, SecDecisions, SecNext, SecQuestions,
	SecTodos, SecFiles, SecAttachments, SecCommands, SecChecks, SecGit}

// ErrBudget is wrapped when even the sections that are never dropped
// (provenance, and decisions and next steps at their shortest) do not fit
// the budget.
var ErrBudget = errors.New("budget too small")

// dropped is the level of a section that is left out.
const dropped = -1

// step is one move of the budget plan: set a section to a level.
type step struct {
	section string
	level   int
}

// plan is the order in which sections give way when the text is over
// budget: low-value detail is shortened first, then dropped; the task
// goes next. Where things stand (the summary), the decisions and the next
// steps are clipped in turns, each a little at a time, and the summary is
// dropped only when the decisions and next steps are at their shortest:
// each item clipped, the first few shown and the rest counted (issue 48:
// a long summary beside many next steps was dropped whole). Decisions and
// next steps are never dropped. Provenance is never touched. After the
// plan, render gives back what still fits (refill).
var plan = func() []step {
	p := []step{
		{SecAttachments, dropped}, {SecCommands, 1}, {SecFiles, 1}, {SecTodos, 1}, {SecGit, 1}, {SecStatus, 1}, {SecTask, 1}, {SecQuestions, 1},
		{SecCommands, dropped}, {SecChecks, dropped}, {SecFiles, dropped}, {SecTodos, dropped},
		{SecStatus, 2}, {SecQuestions, dropped}, {SecGit, dropped}, {SecTask, 2},
	}
	// Decisions, next steps and the summary a level at a time, in turns.
	status := 2
	for lv := 1; lv < len(itemLevels); lv++ {
		p = append(p, step{SecDecisions, lv}, step{SecNext, lv})
		if status < len(summaryLevels)-1 {
			status++
			p = append(p, step{SecStatus, status})
		}
	}
	for status < len(summaryLevels)-1 {
		status++
		p = append(p, step{SecStatus, status})
	}
	return append(p, step{SecStatus, dropped})
}()

// change is one step of the plan that render took: section from one
// level to another.
type change struct {
	section  string
	from, to int
}

// Render writes rec as text for an agent. The same record and options
// always give the same bytes. Everything that came from the record is
// fenced as quoted data; only the words around it are ours.
func Render(rec *handoff.Record, opt Options) (*Result, error) {
	levels := map[string]int{}
	for _, id := range SectionIDs {
		levels[id] = 0
	}
	if opt.Sections != nil {
		for _, id := range SectionIDs {
			if id != SecProvenance && !slices.Contains(opt.Sections, id) {
				levels[id] = dropped
			}
		}
		for _, id := range opt.Sections {
			if !slices.Contains(SectionIDs, id) {
				return nil, fmt.Errorf("unknown section %s: want one of %s", untrusted.Quote(id, 32), strings.Join(SectionIDs, ", "))
			}
		}
	}
	res := &Result{}
	c := &composer{rec: rec, opt: opt, cache: map[step]string{}}
	text := c.compose(levels, res)
	if opt.Budget.Bytes == 0 {
		res.Text = text
		return res, nil
	}
	var taken []change
	for _, st := range plan {
		if len(text) <= opt.Budget.Bytes {
			break
		}
		cur := levels[st.section]
		if cur == dropped || (st.level != dropped && cur >= st.level) {
			continue
		}
		if c.section(st.section, cur) == c.levelText(st.section, st.level) {
			continue // nothing to give: the section is empty, or as short already
		}
		levels[st.section] = st.level
		taken = append(taken, change{st.section, cur, st.level})
		res.note(taken, levels)
		text = c.compose(levels, res)
	}
	// The steps go in coarse strides: the last may have given far more
	// than was needed. Give back, most valuable first (the steps taken
	// last), every one that still fits.
	for i := len(taken) - 1; i >= 0 && len(text) <= opt.Budget.Bytes; i-- {
		ch := taken[i]
		if levels[ch.section] != ch.to {
			continue
		}
		levels[ch.section] = ch.from
		res.note(taken, levels)
		if t := c.compose(levels, res); len(t) <= opt.Budget.Bytes {
			text = t
			continue
		}
		levels[ch.section] = ch.to
		res.note(taken, levels)
	}
	if len(text) > opt.Budget.Bytes {
		return nil, fmt.Errorf("%w: %s, but what is never left out (the preamble, provenance, and the first decisions and next steps) takes %d bytes (~%d tokens)",
			ErrBudget, opt.Budget, len(text), Tokens(len(text)))
	}
	res.Text = text
	return res, nil
}

// note sets what res says was left out and shortened: the sections the
// changes taken touched, in the order first touched, as levels leave them.
func (res *Result) note(taken []change, levels map[string]int) {
	res.Omitted, res.Shortened = nil, nil
	for _, ch := range taken {
		id := ch.section
		if slices.Contains(res.Omitted, id) || slices.Contains(res.Shortened, id) {
			continue
		}
		switch lv := levels[id]; {
		case lv == dropped:
			res.Omitted = append(res.Omitted, id)
		case lv > 0:
			res.Shortened = append(res.Shortened, id)
		}
	}
}

// composer renders a record's sections, each at most once per level, so
// that trying one budget step after another costs little more than one
// rendering.
type composer struct {
	rec   *handoff.Record
	opt   Options
	head  string
	cache map[step]string
}

// levelText is a section's text at a level, "" when dropped.
func (c *composer) levelText(id string, level int) string {
	if level == dropped {
		return ""
	}
	return c.section(id, level)
}

// section renders one section at a level.
func (c *composer) section(id string, level int) string {
	k := step{id, level}
	if t, ok := c.cache[k]; ok {
		return t
	}
	w := &writer{mode: c.opt.Mode, depth: c.opt.depth(), filesAbove: c.opt.filesAbove}
	sections[id](w, c.rec, level)
	c.cache[k] = w.String()
	return c.cache[k]
}

// compose renders every section at its level, and the note that says what
// the budget left out.
func (c *composer) compose(levels map[string]int, res *Result) string {
	if c.head == "" {
		w := &writer{mode: c.opt.Mode, depth: c.opt.depth()}
		w.title("Handoff from a previous coding session")
		w.preamble(c.rec, c.opt)
		c.head = w.String()
	}
	w := &writer{mode: c.opt.Mode, depth: c.opt.depth()}
	w.WriteString(c.head)
	for _, id := range SectionIDs {
		if lv := levels[id]; lv != dropped {
			w.WriteString(c.section(id, lv))
		}
	}
	if len(res.Omitted)+len(res.Shortened) > 0 {
		w.printf("\n---\n")
		if len(res.Omitted) > 0 {
			w.printf("Left out to fit the budget: %s.", strings.Join(sectionNames(res.Omitted), ", "))
		}
		if len(res.Shortened) > 0 {
			if len(res.Omitted) > 0 {
				w.printf(" ")
			}
			w.printf("Shortened: %s.", strings.Join(sectionNames(res.Shortened), ", "))
		}
		w.printf(" The whole handoff: %s.\n", showCommand(c.rec.ID))
	}
	return w.String()
}

// sectionNames turns section ids into the headings people see.
func sectionNames(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strings.ToLower(headings[id])
	}
	return out
}

// writer builds one rendering.
type writer struct {
	strings.Builder
	mode Mode
	// depth is the level of the top heading: 1 for a prompt, 2 inside an
	// instruction file or a briefing.
	depth int
	// filesAbove is Options.filesAbove.
	filesAbove bool
}

func (w *writer) printf(format string, args ...any) { fmt.Fprintf(w, format, args...) }

// title writes the top heading.
func (w *writer) title(s string) {
	w.printf("%s %s\n", strings.Repeat("#", w.depth), s)
}

// heading starts a section.
func (w *writer) heading(id string) {
	w.subheading(headings[id])
}

// subheading starts a section one level below the title.
func (w *writer) subheading(s string) {
	w.printf("\n%s %s\n\n", strings.Repeat("#", w.depth+1), s)
}

// quote writes untrusted text as a fenced block, cut to max bytes with a
// note of ours after the fence when it was cut.
func (w *writer) quote(s string, max int) {
	cut := 0
	if len(s) > max {
		c := handoff.Clip(s, max)
		cut = len(s) - len(c)
		s = c
	}
	// Cleaning can grow invalid UTF-8 (each bad byte becomes U+FFFD), so
	// the bound is applied again to what is printed.
	s = strings.TrimSpace(handoff.CleanText(s))
	if len(s) > max {
		c := handoff.Clip(s, max)
		cut += len(s) - len(c)
		s = c
	}
	w.printf("%s\n", Fence(s))
	if cut > 0 {
		w.printf("(%d more bytes cut here.)\n", cut)
	}
}

// quoteLines writes untrusted list items in one fenced block, one per
// line, each flattened to a single line and cut to itemMax bytes; at most
// maxItems are written and the rest counted.
func (w *writer) quoteLines(items []string, maxItems, itemMax int, numbered bool) {
	var b strings.Builder
	for i, it := range items {
		if i == maxItems {
			break
		}
		it = handoff.Shorten(flatten(it), itemMax)
		if numbered {
			fmt.Fprintf(&b, "%d. %s\n", i+1, it)
		} else {
			fmt.Fprintf(&b, "- %s\n", it)
		}
	}
	w.printf("%s\n", Fence(b.String()))
	if len(items) > maxItems {
		w.printf("(and %d more not shown)\n", len(items)-maxItems)
	}
}

// flatten makes one line of untrusted text: control characters go and
// line breaks (including the Unicode separators CleanText turns into
// newlines) become spaces.
func flatten(s string) string {
	return strings.TrimSpace(lineBreaks.Replace(handoff.CleanText(s)))
}

// lineBreaks turns every line break into a space.
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// ParseMode reads a mode's name: prompt or instructions.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "prompt":
		return Prompt, nil
	case "instructions":
		return Instructions, nil
	}
	return Prompt, fmt.Errorf("%s: want prompt or instructions", untrusted.Quote(s, 20))
}

// CheckSections refuses a section id that is not one of SectionIDs.
func CheckSections(ids []string) error {
	for _, id := range ids {
		if !slices.Contains(SectionIDs, id) {
			return fmt.Errorf("unknown section %s: want some of %s", untrusted.Quote(id, 32), strings.Join(SectionIDs, ", "))
		}
	}
	return nil
}
