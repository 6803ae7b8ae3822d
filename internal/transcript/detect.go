package transcript

import (
	"bytes"
)

// What a file looks like, from its first bytes, when no agent's Detect
// (internal/agents/<name>) takes it: a description to name in the error.

// DetectBytes bounds what detection reads.
const DetectBytes = 64 << 10

// KnownToThisVersion ends the description of JSON no reader takes; the
// caller that knows the table names the agents after it.
const KnownToThisVersion = "known to this version"

// Detected is what a file looks like.
type Detected struct {
	// Agent is the agent whose session the file is; "" when none.
	Agent Agent
	// What describes the file in words ("a Codex session rollout").
	What string
	// Foreign is set for a file recognised as another output of an agent
	// (a prompt log, an event stream): no reader can take it.
	Foreign bool
	// Guess is set when an agent's claim rests on the file's shape alone
	// (a database whose schema lies past the bytes detection read): a
	// claim that is no guess wins over it, and guesses of two agents name
	// neither, so that no order of the agents decides.
	Guess bool
}

// Detect says what a file whose first bytes are head looks like, as far
// as its shape tells: empty, not JSON, a JSON array, JSON or JSON Lines
// of no format known. It names no agent: each agent's folder recognises
// its own files.
func Detect(head []byte) Detected {
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case len(trimmed) == 0:
		return Detected{What: "an empty file"}
	case trimmed[0] == '[':
		return Detected{What: "a JSON array, not a transcript"}
	case trimmed[0] != '{':
		return Detected{What: "not JSON (a transcript is JSON Lines or, for some agents, one JSON object)"}
	}
	first, _, _ := bytes.Cut(trimmed, []byte{'\n'})
	if m, ok := DecodeObject(bytes.TrimSpace(first)); !ok || m == nil {
		return Detected{What: "JSON of no transcript format " + KnownToThisVersion}
	}
	return Detected{What: "JSON Lines of no transcript format " + KnownToThisVersion}
}
