package transcript

import "io"

// Reader finds, recognises and reads the transcripts of one of the agents
// whose readers live in this package (ClaudeCode, Codex, Gemini):
// their folders under internal/agents hand it to the table as their
// agent.Transcripts until the readers move there too.
type Reader struct{ agent Agent }

// ReaderOf is the Reader of agent.
func ReaderOf(agent Agent) Reader { return Reader{agent: agent} }

// Find lists the agent's sessions under roots, newest first.
func (r Reader) Find(roots []string) ([]SessionInfo, error) { return FindSessions(r.agent, roots) }

// Detect says whether head is one of the agent's transcripts, or another
// output of the agent that is none.
func (r Reader) Detect(head []byte) (Detected, bool) {
	d := Detect(head)
	return d, d.Agent == r.agent || d.Foreign && d.owner == r.agent
}

// Read reads the transcript at path; id is unused: each file holds one
// session.
func (r Reader) Read(path, _ string, lim Limits) (*Digest, error) {
	return ReadTranscript(r.agent, path, lim)
}

// ReadOpen opens file, which must be a regular file no larger than
// lim.MaxFile, and reads it with read, as the agents' readers do: what
// there was when it was opened, never past the limit. Errors name the
// file.
func ReadOpen(file string, lim Limits, read func(*io.SectionReader) (*Digest, error)) (*Digest, error) {
	return withTranscript(file, lim.withDefaults(), read)
}
