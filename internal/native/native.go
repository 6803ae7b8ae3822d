// Package native turns a session of one coding agent into a session of
// another, written where that agent keeps its own, so that the agent's
// own resume command continues it with the whole conversation: the
// "switch agents" of docs/TRANSCRIPTS.md.
//
// A source session is read through the project's own reader for its
// agent (internal/agents/*, via internal/capture), with an observer on
// its transcript.Builder (transcript.Limits.Observe) that sees every
// turn in order; the turns become a Conversation, every text redacted
// (internal/redact). The Writer the target agent's folder declares
// (agent.Agent.Native, built on internal/carry's scaffold) lays the
// Conversation out in the target's on-disk format, under a new session
// id, at the path of the worktree it is resumed in; Write places it
// atomically and never over an existing file, then reads it back through
// the project's reader for the target before it says it is done.
//
// The first turn of a written session is the imported turn
// (carry.Conversation.Imported): session-handoff's own words saying where
// the conversation came from (the source agent, the machine, the signer,
// and whether the handoff was vouched for), with those untrusted names
// inside a fence.
package native

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/carry"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// The conversation and its parts (internal/carry).
type (
	Conversation = carry.Conversation
	Turn         = carry.Turn
	Kind         = carry.Kind
	Source       = carry.Source
	Options      = carry.Options
	Planned      = carry.Planned
	File         = carry.File
	Writer       = carry.Writer
)

// The kinds of turn, and the bounds on a conversation.
const (
	User      = carry.User
	Assistant = carry.Assistant
	Call      = carry.Call
	MaxTurns  = carry.MaxTurns
	MaxOutput = carry.MaxOutput
)

// ErrNoTurns is wrapped when a session gives no turns to carry over
// (one that only started): every reader of the agents table tells its
// turns to an observer.
var ErrNoTurns = errors.New("no turns to carry over ('launch --target AGENT' briefs the agent instead)")

// Read reads the session s through its agent's reader and returns its
// conversation, every text redacted by r.
func Read(s capture.SessionInfo, lim transcript.Limits, r *redact.Redactor) (*Conversation, error) {
	c := &Conversation{}
	calls := map[string]int{}
	lim.Observe = func(e transcript.Event) { add(c, e, calls, MaxOutput) }
	d, err := capture.ReadSession(s, lim)
	if err != nil {
		return nil, err
	}
	if len(c.Turns) == 0 {
		return nil, fmt.Errorf("%s session %s: %w", s.Agent, untrusted.Quote(d.Session.ID, 64), ErrNoTurns)
	}
	c.Source = Source{Agent: string(s.Agent), Session: d.Session.ID, Machine: "this machine", Vouched: true}
	c.CWD, c.Title = d.CWD, d.Title
	trim(c)
	Redact(c, r)
	return c, nil
}

// add adds to c what the reader told its builder, each call's output cut
// to maxOutput (0: as the reader gave it, for a read-back, whose outputs
// were cut before they were written).
func add(c *Conversation, e transcript.Event, calls map[string]int, maxOutput int) {
	switch e.Kind {
	case transcript.EventRequest:
		if t := strings.TrimSpace(e.Text); t != "" {
			c.Turns = append(c.Turns, Turn{Kind: User, Text: t})
		}
	case transcript.EventAgentText:
		t := strings.TrimSpace(e.Text)
		if t == "" {
			return
		}
		if n := len(c.Turns); n > 0 && e.ID != "" && c.Turns[n-1].Kind == Assistant && c.Turns[n-1].ID == e.ID {
			c.Turns[n-1].Text += "\n\n" + t
			return
		}
		if turn := (Turn{Kind: Assistant, Text: t, ID: e.ID}); !c.Repeats(turn) {
			c.Turns = append(c.Turns, turn)
		}
	case transcript.EventCall:
		t := Turn{Kind: Call, Text: e.Text, ID: e.ID, Tool: e.Tool, Arguments: e.Arguments}
		for _, f := range e.Files {
			t.Files = append(t.Files, opName(f.Op)+" "+f.Path)
		}
		if i, ok := calls[e.ID]; ok && e.ID != "" && c.Turns[i].Kind == Call && !c.Turns[i].Ended() {
			// One call told twice (a command that also touches files,
			// its tool told apart); an id whose call has ended is a new
			// call's (Copilot CLI numbers its calls afresh each turn).
			u := &c.Turns[i]
			u.Files = append(u.Files, t.Files...)
			u.Text = cmp.Or(u.Text, t.Text)
			u.Tool, u.Arguments = cmp.Or(u.Tool, t.Tool), cmp.Or(u.Arguments, t.Arguments)
			return
		}
		calls[e.ID] = len(c.Turns)
		c.Turns = append(c.Turns, t)
	case transcript.EventResult:
		i, ok := calls[e.ID]
		if !ok || e.ID == "" || c.Turns[i].Ended() {
			// A result whose call the reader did not tell (a tool that is
			// no command and touches no file): kept as a call of its own.
			i = len(c.Turns)
			calls[e.ID] = i
			c.Turns = append(c.Turns, Turn{Kind: Call, ID: e.ID})
		}
		t := &c.Turns[i]
		t.Output = e.Text
		if maxOutput > 0 {
			t.Output = transcript.ShortenMiddle(e.Text, maxOutput)
		}
		t.Exit, t.Failed, t.Status = e.Exit, e.Failed, resultStatus(e)
	case transcript.EventTodos:
		c.Todos = e.Todos
	case transcript.EventPlan:
		if strings.TrimSpace(e.Text) != "" {
			c.Plan = e.Text
		}
	case transcript.EventCompaction:
		c.Compaction = e.Text
	}
}

func resultStatus(e transcript.Event) string {
	switch {
	case e.Status != "":
		return e.Status
	case e.Failed || e.Exit != nil && *e.Exit != 0:
		return "failed"
	}
	return "ok"
}

func opName(op transcript.FileOp) string {
	switch op {
	case transcript.Read:
		return "read"
	case transcript.Create:
		return "create"
	case transcript.Write:
		return "write"
	case transcript.Delete:
		return "delete"
	}
	return "edit"
}

// trim keeps the latest MaxTurns turns of c.
func trim(c *Conversation) {
	if n := len(c.Turns); n > MaxTurns {
		c.Dropped += n - MaxTurns
		c.Turns = append([]Turn(nil), c.Turns[n-MaxTurns:]...)
	}
}

// Redact runs r over every text of c, in place.
func Redact(c *Conversation, r *redact.Redactor) {
	if r == nil {
		r = redact.Default()
	}
	red := func(s, where string) string { return r.String(s, where, nil) }
	c.Title = red(c.Title, "title")
	c.Plan = red(c.Plan, "plan")
	c.Compaction = red(c.Compaction, "compaction")
	for i := range c.Todos {
		c.Todos[i].Content = red(c.Todos[i].Content, "todo")
	}
	for i := range c.Turns {
		t := &c.Turns[i]
		where := fmt.Sprintf("turn %d", i+1)
		t.Text = red(t.Text, where)
		t.Output = red(t.Output, where)
		t.Arguments = red(t.Arguments, where)
		for j := range t.Files {
			t.Files[j] = red(t.Files[j], where)
		}
	}
}
