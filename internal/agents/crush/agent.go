// Package crush is Crush (Charm's coding agent: the npm package
// @charmland/crush, github.com/charmbracelet/crush, a Go program) as
// session-handoff knows it: its entry in the agents table
// (internal/agents), and the reader of its sessions, which are rows of a
// SQLite database per project (db.go), not files.
//
// Checked against the sources of github.com/charmbracelet/crush at tag
// v0.90.0 (the newest the public mirror here holds; the npm registry's
// @charmland/crush 0.96.1 fetches its binary from GitHub at install time,
// which this workplace cannot reach), and against databases a Crush
// v0.90.0 built from those sources wrote offline against a scripted model
// (testdata/real-e2e, SOURCES.md).
package crush

import (
	"bytes"
	"os"
	"slices"
	"time"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/sqlitefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is Crush's name in the agents table.
const Name transcript.Agent = "crush"

// checked is the Crush version the reader was checked against.
const checked = "0.90.0"

// Agent is Crush's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: string(Name), Display: "Crush", Aliases: []string{"charm-crush", "charmland-crush"},
		Program: "crush", InstructionFile: "CRUSH.md", MCP: true, Checked: checked,
		SessionsHelp: "each project's .crush/crush.db, listed in ~/.local/share/crush/projects.json (or $CRUSH_GLOBAL_DATA, $XDG_DATA_HOME/crush)",
		OwnDirs:      ownDirs,
		// A project's crush.json is integrate's when new (MCP).
		SettingsFiles: []string{"crush.json"},
		Transcripts:   reader{},
		Profile: agent.Profile{
			// defaultContextPaths of internal/config/config.go (v0.90.0):
			// every one of these found in the working directory is read,
			// whole, into the system prompt; and the user's
			// ~/.config/crush/CRUSH.md and ~/.config/AGENTS.md
			// (GlobalContextPaths, internal/config/load.go).
			Reads: []string{"CRUSH.md, CRUSH.local.md, AGENTS.md, CLAUDE.md, CLAUDE.local.md, GEMINI.md, .cursorrules, .cursor/rules/, .github/copilot-instructions.md in the working directory, all that exist",
				"~/.config/crush/CRUSH.md and ~/.config/AGENTS.md", `"options.context_paths" in crush.json`},
			// CRUSH.local.md is read beside CRUSH.md (defaultContextPaths):
			// the personal file, where render --write puts the handoff.
			PersonalFile:      "CRUSH.local.md",
			InstructionBudget: 16 << 10,
			Launch: []agent.Launch{
				{How: "interactive: write the block into CRUSH.local.md, then start the agent", Command: `session-handoff render --as instructions --target crush --write && crush`},
				// 'crush run' reads a prompt piped on stdin in front of its
				// arguments (MaybePrependStdin, internal/cmd/root.go v0.90.0).
				// It approves every tool call of the run
				// (RunNonInteractive, internal/app/app.go v0.90.0): for a
				// handoff of your own.
				{How: "headless, the handoff piped in front of the prompt; crush run approves every tool call, so only for a handoff you made", Command: `crush run "Continue the work described above" < FILE`},
			},
			Style: agent.Style{Agent: "Crush", Guidance: []string{"Keep the next steps in your todo list (todos) and work through them in order. " + agent.CheckGuidance}},
			Notes: []string{"render --write puts the handoff in CRUSH.local.md, which is yours; --shared in CRUSH.md, which the team shares.",
				"Crush runs no command at session start or end: its only hook event is PreToolUse (internal/hooks, v0.90.0), so it is briefed through CRUSH.md and captured with capture --from crush."},
			// "mcp" in crush.json, the project's (found from the working
			// directory up) or the user's ~/.config/crush/crush.json,
			// each server {"type": "stdio", "command", "args"}
			// (MCPConfig, internal/config/config.go v0.90.0).
			MCP: &agent.MCPRegistration{ProjectFile: "crush.json", UserFile: "~/.config/crush/crush.json", Format: "json", Key: "mcp", Entry: stdioEntry,
				Register: "session-handoff integrate crush --mcp",
				Docs:     "README.md of github.com/charmbracelet/crush, MCPs (v0.90.0)"},
		},
		// 'crush' starts the TUI; it takes no first prompt on its command
		// line (internal/cmd/root.go, v0.90.0): the handoff is in
		// CRUSH.md.
		StartArgs: nil,
	}
}

// reader finds, recognises and reads Crush's sessions.
type reader struct{}

// Find lists the sessions of the project databases the roots know of
// (projects.json), newest activity first: no subagent's, and none without
// a message.
func (reader) Find(roots []string) ([]transcript.SessionInfo, error) {
	var out []transcript.SessionInfo
	seen := map[string]bool{}
	for _, root := range roots {
		for _, p := range databases(root) {
			if seen[p.db] {
				continue
			}
			seen[p.db] = true
			found, err := find(p)
			if err != nil {
				// One unreadable database must not hide the others'
				// sessions.
				continue
			}
			out = append(out, found...)
		}
	}
	slices.SortStableFunc(out, func(a, b transcript.SessionInfo) int { return b.LastActivity.Compare(a.LastActivity) })
	return out, nil
}

// find lists the sessions of one project's database.
func find(p project) ([]transcript.SessionInfo, error) {
	db, err := openDB(p.db, transcript.DefaultMaxLine)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	all, err := sessions(db)
	if err != nil {
		return nil, err
	}
	var out []transcript.SessionInfo
	// The rows written last first: Find sorts by last activity, in
	// seconds, and keeps this order within one second, as pick does.
	slices.Reverse(all)
	for _, s := range all {
		if s.parent != "" || s.messages == 0 {
			continue
		}
		info := transcript.SessionInfo{Agent: Name, ID: s.id, Path: p.db, CWD: p.dir,
			Started: unixTime(s.created), LastActivity: unixTime(s.updated)}
		if s.title != defaultTitle {
			info.Title = transcript.ShortenHead(transcript.Clean(s.title), transcript.MaxTitle)
		}
		out = append(out, info)
	}
	return out, nil
}

// unixTime reads a time Crush stored: seconds since the epoch
// (strftime('%s', 'now') in its queries), though its schema's comments
// say milliseconds, which a value past the year 33658 in seconds is.
func unixTime(t int64) time.Time {
	if t <= 0 {
		return time.Time{}
	}
	if t >= 1e12 {
		return time.UnixMilli(t)
	}
	return time.Unix(t, 0)
}

// Detect takes a SQLite database whose schema, as far as head holds it,
// creates Crush's sessions table (with its parent_session_id) or goose's
// version table beside a sessions table; or one whose schema lies past
// head (its first page an interior page of the schema's b-tree), as
// Crush's does once its migrations have grown it: Crush adds tables and
// indexes past its first pages, so its schema is often out of head's
// reach. Reading such a file then says whether it is Crush's.
func (reader) Detect(head []byte) (transcript.Detected, bool) {
	if !sqlitefile.HasHeader(head) {
		return transcript.Detected{}, false
	}
	has := func(s string) bool { return bytes.Contains(head, []byte(s)) }
	if has("CREATE TABLE sessions (") && (has("parent_session_id") || has("goose_db_version")) {
		return transcript.Detected{Agent: Name, What: "a Crush database"}, true
	}
	// Page 1: the 100-byte header, then an interior table page.
	if len(head) >= 112 && head[100] == 0x05 {
		return transcript.Detected{Agent: Name, What: "a SQLite database whose schema lies past its first pages (Crush's, if any)", Guess: true}, true
	}
	return transcript.Detected{}, false
}

// DetectSchema takes a database whose sessions table has Crush's
// parent_session_id, or that has goose's version table beside a sessions
// table, wherever its schema lies.
func (reader) DetectSchema(tables map[string][]string) (transcript.Detected, bool) {
	cols, ok := tables["sessions"]
	if !ok {
		return transcript.Detected{}, false
	}
	if _, goose := tables["goose_db_version"]; goose || slices.Contains(cols, "parent_session_id") {
		return transcript.Detected{Agent: Name, What: "a Crush database"}, true
	}
	return transcript.Detected{}, false
}

// Read reads the session id of the database at path (the latest session
// that is no subagent's when id is none of the database's).
func (reader) Read(path, id string, lim transcript.Limits) (*transcript.Digest, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: path, Err: os.ErrInvalid}
	}
	return read(path, id, lim)
}
