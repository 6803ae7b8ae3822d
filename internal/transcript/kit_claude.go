package transcript

import (
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Toolkit for the readers in agents' folders, beyond builder.go and
// kit.go: for an agent whose tool calls do several things at once, that
// keeps a task list by id, records the user's answers, or writes lines
// run on the session's behalf into the session's own file.

// CommandOn adds a shell command the agent ran by the tool call id that
// also does op to each of paths (a plain "rm a b" deletes a and b): its
// outcome decides both, as for one call.
func (b *Builder) CommandOn(id, cmd string, op FileOp, paths ...string) {
	e := evCmd(id, cmd)
	for _, p := range paths {
		e.ops = append(e.ops, fileOp{path: p, op: opKind(op)})
	}
	foldEvent(b.f, b.d.CWD, e)
}

// TaskList sets the todo list as it now stands from a task list the
// agent keeps by id: ids[i] is the id of items[i], for later Task calls.
// Items without text are left out, and the ids with them unless none is.
func (b *Builder) TaskList(ids []string, items []handoff.Todo) {
	e := evTodoList(items)
	if len(e.todos) == len(ids) {
		e.ids = ids
	}
	b.f.add(e)
}

// PlanCall adds the plan the agent put to the user by the tool call id:
// pending until that call's outcome approves it (success) or rejects it
// (refused, failed).
func (b *Builder) PlanCall(id, text string) {
	b.f.add(event{kind: evPlan, id: id, text: shortenMiddle(strings.TrimSpace(text), MaxCompaction)})
}

// Decision adds a question the agent put to the user and the answer the
// user gave, as "question → answer" on one line.
func (b *Builder) Decision(question, answer string) {
	b.f.add(event{kind: evDecision, text: untrusted.OneLine(question+" → "+answer, handoff.MaxItem)})
}

// Fold folds what b was given into its digest and returns it, without
// the finishing Finish does: for a builder of work done on the session's
// behalf whose lines are in the session's own file, which MergeSide then
// adds to the session's digest.
func (b *Builder) Fold() *Digest {
	b.f.finish(b.d)
	return b.d
}

// MergeSide adds the commands and file edits of sub, work done on the
// session's behalf, to d, each marked by, as MergeSubagent does, but
// without counting a subagent transcript: for work whose lines are in the
// session's own file, and for an agent whose digests never counted them.
func MergeSide(d, sub *Digest, by string) { mergeSubagent(d, sub, by) }

// MaxProbed is how many of the newest files ProbeSessions probes; the
// rest are listed from their names and times.
const MaxProbed = maxProbed
