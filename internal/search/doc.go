// Package search is session-handoff's full-text index of past work: every
// agent session this machine can read and every stored handoff, searched
// in milliseconds without a server.
//
// The engine is the project's own (docs/SEARCH.md gives the measurements
// that chose it): an inverted index with positions, for phrases, whose
// term dictionary is sorted, for prefixes. It lives in segment files,
// each written once and atomically, listed by a manifest that is swapped
// atomically: a reader sees the old index or the new one, never half of
// one, and a writer killed at any point leaves an index that answers and
// is repaired by the next run (segments no manifest lists are removed).
// Writers hold a lock; readers need none.
//
// What is indexed is a Doc: one session or one handoff, cut into Units
// of one kind each (a request, an agent message, a command, a file
// path, a decision). Callers redact the text before it is indexed.
package search

import "time"

// Kind is what a unit of text is.
type Kind uint8

// The kinds of text indexed.
const (
	KindTitle    Kind = iota // a session's or a handoff's title
	KindRequest              // what the user asked
	KindMessage              // what the agent said: messages, summaries, plans, next steps
	KindCommand              // a command the agent ran, with its output's first lines
	KindFile                 // a file path the session touched
	KindDecision             // a question put to the user and the answer, a decision
	KindTodo                 // a todo item
	numKinds
)

var kindNames = [numKinds]string{"title", "request", "message", "command", "file", "decision", "todo"}

// String is the kind's name, as --kind and --json spell it.
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "unknown"
}

// ParseKind reads a kind's name.
func ParseKind(s string) (Kind, bool) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), true
		}
	}
	return 0, false
}

// Unit is one piece of text of one kind.
type Unit struct {
	Kind Kind
	Text string
}

// Doc is one session or handoff as the index keeps it.
type Doc struct {
	// Key names the source uniquely: "session:AGENT:PATH#ID" or
	// "handoff:ID".
	Key string
	// Type is "session" or "handoff".
	Type string
	// Agent is the agent's name (a handoff's tool).
	Agent string
	// ID is the session's or the handoff's id; Path the transcript's
	// file (sessions only).
	ID, Path string
	Title    string
	// CWD is the session's directory or the handoff's project path;
	// RootCommit and Remote the handoff's project identity, when known.
	CWD, RootCommit, Remote string
	// Machine is the host the work was done on.
	Machine string
	// Time is the session's last activity or the handoff's creation.
	Time  time.Time
	Units []Unit
}
