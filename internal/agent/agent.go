// Package agent says what session-handoff knows of one coding agent: the
// Agent every folder under internal/agents returns, and the Transcripts
// interface through which its sessions are found, recognised and read.
// The table of agents is internal/agents; each agent's knowledge lives in
// its own folder there (internal/agents/<name>), so that adding an agent
// touches its folder and one line of the table.
package agent

import (
	"path/filepath"

	"github.com/session-handoff/session-handoff/internal/carry"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Agent describes one coding agent.
type Agent struct {
	// Name is the agent's id on the command line and in records.
	Name string
	// Display is the agent's name as people write it.
	Display string
	// Aliases are other names accepted for it, in the normal form
	// internal/agents compares (lower case, '-' for '_').
	Aliases []string
	// Program is the executable that starts it, looked up on PATH.
	Program string
	// InstructionFile is the project file it reads at every start,
	// relative to the project root.
	InstructionFile string
	// Hooks is set when the agent runs hooks at session start and end
	// and integrate installs session-handoff's into them.
	Hooks bool
	// MCP is set when integrate --mcp registers session-handoff's MCP
	// server with the agent.
	MCP bool
	// Checked is the agent's version that session-handoff was last
	// checked against, end to end or on transcripts it wrote.
	Checked string
	// SessionsHelp says where the agent keeps its transcripts, for
	// help texts: the default place and the variable that moves it.
	SessionsHelp string
	// HookContextLimit is how many characters (Codex: bytes) of a
	// session-start hook's additionalContext the agent takes whole; 0
	// when it states none.
	HookContextLimit int
	// SettingsFiles are the files in a project that hold the agent's own
	// settings, where integrate installs hooks and MCP servers, relative
	// to the root; a name ending in / is the agent's directory as git
	// lists it when nothing in it is tracked.
	SettingsFiles []string
	// OwnDirs are the agent's own directories, most preferred first:
	// where it keeps its settings and transcripts, under home unless one
	// of the agent's environment variables moves them; getenv is the
	// commands' own lookup.
	OwnDirs func(home string, getenv func(string) string) []string
	// SessionsDir is the directory under each of OwnDirs that holds its
	// transcripts.
	SessionsDir string
	// Transcripts finds, recognises and reads its sessions.
	Transcripts Transcripts
	// Profile is its render target (targets): the files it reads, how to
	// hand it a prompt, its limits, its render style, where it registers
	// MCP servers. Name, Agent, Aliases, InstructionFile, Capture and
	// Checked are filled from the fields above.
	Profile Profile
	// StartArgs are its arguments that start an interactive session on
	// message, the prompt file being in dir (launch); nil when
	// session-handoff does not start it.
	StartArgs func(dir, message string) []string
	// HookSpec says where integrate installs session-handoff's hooks, and
	// which; nil when the agent has none.
	HookSpec *HookSpec
	// Reasoning says where its transcripts hold the model's private
	// reasoning, which no copy of a transcript keeps
	// (transcript.WithoutReasoning); empty for an agent whose sessions
	// are rows of a database, which is never copied.
	Reasoning transcript.Reasoning

	// What the commands' generic code asks of the agent beyond the facts
	// above (declare.go): each declared by the agent's folder, nil when
	// the agent needs nothing of the kind. hooks, doctor, targets and
	// integrate ask the table for these and never compare an agent's
	// name, so that adding an agent is its folder and one line of the
	// table (internal/agents/recipe_test.go).

	// LateSession is set for an agent that writes a session's log only
	// after its session-end hook has run: the capture waits for it in a
	// process of its own (internal/hooks).
	LateSession *LateSession
	// CompactCaptures says whether an automatic pre-compact hook call
	// comes before a compaction, for an agent that fires it before others
	// too; nil captures at every pre-compact hook.
	CompactCaptures func(HookCall) bool
	// HookTrust is doctor's check that the agent will run our hooks where
	// they are installed: a Distrust when it will not (an untrusted
	// folder, an unapproved hook), nil when it will or cannot tell.
	HookTrust func(TrustCheck) (*Distrust, error)
	// ForProject is the agent's Profile as it applies in the project at
	// root, for what the agent decides from the project's files (Codex:
	// an override file, a configured size limit); dirs are its own
	// directories (Dirs).
	ForProject func(p Profile, root string, dirs []string) (Profile, error)
	// Package is the plugin or extension integrate writes for the agent
	// (integrate --plugin or --extension).
	Package *Package

	// Native, when set, lays a conversation carried over from another
	// agent out as a session of this agent's own, where its resume
	// command finds it (launch --native, internal/native); nil for an
	// agent session-handoff writes no session of.
	Native carry.Writer
}

// HookSpec says where an agent keeps its hook settings and which hooks
// session-handoff installs there (internal/integrate).
type HookSpec struct {
	// ProjectSettings is the settings file in a project, relative to its
	// root; UserSettings the user's own, relative to the home directory
	// when the agent's own directory has not moved.
	ProjectSettings string
	UserSettings    string
	// LocalSettings is the project's settings file that is not shared
	// with the team (not committed), relative to the root; "" when the
	// agent has none.
	LocalSettings string
	// Events are the hooks installed, in order.
	Events []HookEvent
	// Named is set when the agent's hook entries carry a name.
	Named bool
	// Flat is set for flat hook entries (GitHub Copilot CLI's), camelCase
	// input ({"sessionId", "cwd", …}, no transcript path) and a
	// session-start output of {"additionalContext"} at the top level.
	Flat bool
	// Whole, when set, makes the hooks a file of their own that
	// integrate writes whole at ProjectSettings or UserSettings and
	// removes whole (a plugin or an extension in the agent's language),
	// not entries inserted into a settings file: its content, given the
	// hooks to run. The content must hold each hook's command line as a
	// JSON member "command", as a settings file does, for integrate and
	// doctor to find it: a WholeHook marshalled to JSON is one.
	Whole func(hooks []WholeHook) []byte
	// Trust says how the agent asks the user to trust newly installed
	// hooks, in one sentence; "" when it runs them as they are.
	Trust string
	// Docs is where the hook format was checked.
	Docs string
}

// WholeHook is one of our hooks as a Whole file runs it.
type WholeHook struct {
	// Ours is our name for it (session-start, pre-compact,
	// session-end); Event the agent's.
	Ours  string `json:"ours"`
	Event string `json:"event"`
	// Command is the shell command line to run.
	Command string `json:"command"`
	// Timeout is the hook's timeout in seconds; 0 declares none.
	Timeout int `json:"timeout,omitempty"`
}

// HookEvents are our hooks' events, by our names: session-start briefs;
// pre-compact and session-end capture, or run an approved handover;
// turn-end, for an agent that fires no session end after every session
// (Qwen Code's Stop, at the end of each turn), captures and never runs a
// handover, which may export or publish and is for a session's end.
var HookEvents = []string{"session-start", "pre-compact", "session-end", "turn-end"}

// HookEvent is one of our hooks as an agent knows it.
type HookEvent struct {
	// Ours is our name for it, one of HookEvents.
	Ours string
	// Theirs is the agent's event name.
	Theirs string
	// Timeout is the timeout the installed hook declares, in the agent's
	// unit; 0 declares none.
	Timeout int
}

// Transcripts is how an agent's sessions are found, recognised and read.
// Every method treats what it reads as hostile: bounded, never fatal for
// one bad line, errors naming the file.
type Transcripts interface {
	// Find lists the sessions under roots (Agent.SessionRoots; a missing
	// one is no error), newest activity first, from the little of each
	// that discovery reads: no subagent's and no empty session.
	Find(roots []string) ([]transcript.SessionInfo, error)
	// Detect says whether head, the first bytes of a file (at most
	// transcript.DetectBytes), is one of the agent's transcripts, or
	// another output of the agent that is none (Detected.Foreign).
	Detect(head []byte) (transcript.Detected, bool)
	// Read reads the session at path (id picks one where a file holds
	// many; "" otherwise) into a digest, its subagents folded in, within
	// lim.
	Read(path, id string, lim transcript.Limits) (*transcript.Digest, error)
}

// LineDetector is what the Transcripts of an agent whose sessions are
// JSON Lines may also implement: DetectLine says whether one line, a JSON
// object, is a line of the agent's session files, or of another output of
// the agent (Detected.Foreign). It knows the agent's own lines only. When
// a file opens with a JSON object on a line, the first of its first lines
// that an agent claims decides whose the file is, the agents asked in the
// table's order (capture.Detect); so a folder never needs to know another
// agent's lines to leave them alone.
type LineDetector interface {
	DetectLine(line []byte) (transcript.Detected, bool)
}

// SchemaDetector is what the Transcripts of an agent whose sessions are
// rows of a SQLite database implement: DetectSchema says whether a
// database whose tables (each name with its column names, read from
// sqlite_schema wherever its pages lie) are tables is the agent's. It
// claims only its own schema, so that no order of the table decides
// (capture.DetectFile asks it before any guess from the file's head).
type SchemaDetector interface {
	DetectSchema(tables map[string][]string) (transcript.Detected, bool)
}

// MaxDetectLines is how many lines of a file's head detection reads.
const MaxDetectLines = 50

// Dirs are the agent's own directories (settings and transcripts), most
// preferred first.
func (a Agent) Dirs(home string, getenv func(string) string) []string {
	if a.OwnDirs == nil {
		return nil
	}
	return a.OwnDirs(home, getenv)
}

// SessionRoots are the directories that hold the agent's transcripts,
// whether they exist or not.
func (a Agent) SessionRoots(home string, getenv func(string) string) []string {
	var out []string
	for _, d := range a.Dirs(home, getenv) {
		out = append(out, filepath.Join(d, a.SessionsDir))
	}
	return out
}
