package transcript

import (
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Events: what a reader tells a Builder, in the session's order, as an
// observer sees it (Limits.Observe). A digest keeps only the end of a
// session (the last requests, the last message, the commands); an
// observer sees every turn, for a conversion of the whole conversation
// (internal/native). The texts are cleaned and bounded as the digest's
// are (a cut is marked); a result's output is the reader's, bounded by
// MaxFailureOutput, failed or not. Private reasoning is never an event:
// no reader reads it.

// EventKind says what an Event is.
type EventKind uint8

// The kinds of event.
const (
	EventRequest    EventKind = iota + 1 // Text: what the user asked
	EventAgentText                       // Text: what the agent said; ID groups the parts of one message
	EventCall                            // a tool call: ID; Text: its command, if a shell command; Files: its file operations; Tool, Arguments: its tool and arguments, when the reader tells them
	EventResult                          // a tool call's outcome: ID, Exit, Failed, Status; Text: its output
	EventTodos                           // Todos: the todo list as it now stands (also after each change of one task)
	EventCompaction                      // Text: a compaction summary
	EventPlan                            // Text: the plan the agent put to the user; Status: its answer
	EventDecision                        // Text: a question the user answered, and the answer
)

// Event is one thing a reader told a Builder.
type Event struct {
	Kind   EventKind
	ID     string
	Text   string
	Files  []PathOp
	Exit   *int
	Failed bool
	Status string
	Todos  []handoff.Todo
	// Tool is a call's tool, as the agent names it; Arguments its
	// arguments (JSON, as the transcript holds them), cut at
	// MaxToolArguments with a marker. A reader that tells them
	// (Builder.Tool) may tell them before or after the call's command or
	// files, in an event of their own with the call's ID.
	Tool      string
	Arguments string
}

// Observe has fn told every event the builder is given from now on, in
// order. A reader calls it with its Limits.Observe for a session's main
// thread only, never for a subagent's.
func (b *Builder) Observe(fn func(Event)) { b.f.observe = fn }

// Tool tells an observer the tool of the call id and its arguments
// (raw JSON or text, cut at MaxToolArguments): what a call that is no
// shell command and touches no file did. The digest does not keep it;
// without an observer it does nothing.
func (b *Builder) Tool(id, name, arguments string) {
	if b.f.observe == nil || id == "" {
		return
	}
	b.f.add(event{kind: evTool, id: id, text: untrusted.OneLine(name, 128), output: shortenHead(arguments, MaxToolArguments)})
}

// Observing says an observer wants the outputs of calls that succeeded
// too, which a digest does not keep: a reader that leaves them out for
// speed passes them when this is true.
func (b *Builder) Observing() bool { return b.f.observe != nil }

// observed is what the observer of f is told of e, if anything.
func observed(e event) (Event, bool) {
	out := Event{ID: e.id, Text: e.text, Exit: e.exit, Failed: e.failed, Status: e.status, Todos: e.todos}
	switch e.kind {
	case evRequest:
		out.Kind = EventRequest
	case evAgentText:
		out.Kind = EventAgentText
	case evCall:
		out.Kind = EventCall
		if !e.hasCmd {
			out.Text = ""
		}
		for _, op := range e.ops {
			out.Files = append(out.Files, PathOp{Path: op.path, Op: FileOp(op.op)})
		}
	case evResult:
		out.Kind = EventResult
		out.Text = e.output
	case evTodos:
		out.Kind = EventTodos
	case evCompaction:
		out.Kind = EventCompaction
	case evPlan:
		out.Kind = EventPlan
	case evDecision:
		out.Kind = EventDecision
	case evTool:
		out.Kind, out.Text, out.Tool, out.Arguments = EventCall, "", e.text, e.output
	default:
		return Event{}, false
	}
	return out, true
}

// withOutput is e with the output a call gave, for an observer: the fold
// reads only e.text, which it keeps for a failure.
func (b *Builder) withOutput(e event, output string) event {
	if b.f.observe != nil {
		e.output = shortenMiddle(output, MaxFailureOutput)
	}
	return e
}
