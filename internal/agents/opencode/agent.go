// Package opencode is OpenCode (opencode-ai, github.com/anomalyco/opencode,
// formerly sst/opencode) as session-handoff knows it: its entry in the
// agents table (internal/agents), and the reader of its sessions, which
// are rows of its SQLite database (db.go), not files.
//
// Checked against opencode-ai 1.18.33: its binary's own code, the
// repository's TypeScript sources, and databases it wrote itself offline
// against a scripted model (testdata/real-e2e, SOURCES.md).
package opencode

import (
	"bytes"
	"encoding/binary"
	"os"
	"slices"
	"time"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/sqlitefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Name is OpenCode's name in the agents table.
const Name transcript.Agent = "opencode"

// Agent is OpenCode's entry in the agents table.
func Agent() agent.Agent {
	return agent.Agent{
		Name: string(Name), Display: own.Display, Aliases: []string{"opencode-ai", "open-code"},
		Program: "opencode", InstructionFile: "AGENTS.md", Hooks: true, MCP: true, Checked: "1.18.33",
		SessionsHelp: "~/.local/share/opencode/opencode.db, or $XDG_DATA_HOME/opencode/opencode.db, or $OPENCODE_DB",
		OwnDirs:      Dirs(own),
		// A project's opencode.json and plugin are integrate's when new.
		SettingsFiles: []string{"opencode.json", ".opencode/", ".opencode/plugin/", ".opencode/plugin/session-handoff.js"},
		Transcripts:   reader{own},
		Profile: agent.Profile{
			// session/instruction.ts of 1.18.33: the first of AGENTS.md,
			// CLAUDE.md (unless OPENCODE_DISABLE_CLAUDE_CODE_PROMPT) found
			// from the directory up to the worktree's root, the user's
			// ~/.config/opencode/AGENTS.md, and the files and globs of
			// "instructions" in opencode.json.
			Reads:             []string{"AGENTS.md (CLAUDE.md when there is none), from the directory up to the project's root", "~/.config/opencode/AGENTS.md", `"instructions" in opencode.json (files and globs)`},
			InstructionBudget: 16 << 10,
			Launch: []agent.Launch{
				{How: "write the instructions, then start the agent with a short prompt", Command: `session-handoff render --as instructions --target opencode --write && opencode --prompt "Continue the work described in AGENTS.md"`},
				// run --file attaches the file to the message (opencode run
				// --help, 1.18.33).
				{How: "headless, the handoff attached to the prompt", Command: `opencode run --file FILE "Continue the work described in the attached handoff"`},
			},
			Style: agent.Style{Agent: "OpenCode", Guidance: []string{"Keep the next steps in your todo list (todowrite) and work through them in order. " + agent.CheckGuidance}},
			// "mcp" in opencode.json, the project's (at its root) or the
			// user's (~/.config/opencode), each server {"type": "local",
			// "command": [program, args…]} (https://opencode.ai/docs/mcp-servers/;
			// the config schema of opencode 1.18.33). Checked offline:
			// 'opencode mcp list' shows it connected, and its tools reach
			// the model as session-handoff_handoff_list….
			MCP: &agent.MCPRegistration{ProjectFile: "opencode.json", UserFile: "~/.config/opencode/opencode.json", Format: "json", Key: "mcp", Entry: LocalEntry,
				Register: "session-handoff integrate opencode --mcp",
				Docs:     "https://opencode.ai/docs/mcp-servers/ (opencode-ai 1.18.33)"},
		},
		// 'opencode [project] --prompt TEXT' starts the TUI with the
		// prompt (opencode --help, 1.18.33).
		StartArgs: func(dir, message string) []string { return []string{"--prompt", message} },
		// The hooks are a plugin (plugin.go), in the project's
		// .opencode/plugin or the user's ~/.config/opencode/plugin. OpenCode
		// installs @opencode-ai/plugin into that directory at its next
		// start, online (our plugin needs none of it).
		HookSpec: &agent.HookSpec{ProjectSettings: ".opencode/plugin/session-handoff.js", UserSettings: ".config/opencode/plugin/session-handoff.js",
			Events: HookEvents(), Whole: Plugin(own),
			Docs: "https://opencode.ai/docs/plugins/ (opencode-ai 1.18.33)"},
	}
}

// HookEvents are our hooks as OpenCode's plugin events (and a fork's
// that loads OpenCode's plugins).
func HookEvents() []agent.HookEvent {
	var out []agent.HookEvent
	for _, e := range pluginEvents {
		out = append(out, agent.HookEvent{Ours: e.ours, Theirs: e.theirs})
	}
	return out
}

// Layout is a program that keeps its sessions in OpenCode's SQLite
// database under names of its own: OpenCode itself, or a fork of it
// built from its source (Kilo Code's CLI), whose folder reads them with
// Transcripts.
type Layout struct {
	// Name is the program's name in the agents table, Display as people
	// write it; What says what its database is ("an OpenCode database").
	Name          transcript.Agent
	Display, What string
	// Stem names its directories (the configuration's and the data's,
	// under the XDG bases) and its database file, Stem.db, or
	// Stem-<channel>.db for a build of another channel.
	Stem string
	// DBVar is the environment variable that names the database file
	// instead (OPENCODE_DB).
	DBVar string
	// Marks are tables only this program's database has; Foreign those
	// of another program's in the same layout, which is not this one's.
	Marks, Foreign []string
	// Plain is set for the layout's own program (OpenCode): it also
	// takes a database with the layout's session and part tables and
	// none of Foreign, which a fork's never is (each fork is told by its
	// Marks), so that no two programs claim one database.
	Plain bool
}

// own is OpenCode's layout. A fork's database holding one of Foreign is
// the fork's (kilo_board: Kilo Code's CLI 7.7.7), not OpenCode's.
var own = Layout{Name: Name, Display: "OpenCode", What: "an OpenCode database", Stem: "opencode", DBVar: "OPENCODE_DB",
	Marks: []string{"event_sequence", "control_account"}, Foreign: []string{"kilo_board", "kilo_board_message"}, Plain: true}

// Transcripts finds, recognises and reads the sessions of a program in
// OpenCode's layout.
func Transcripts(l Layout) agent.Transcripts { return reader{l} }

// reader finds, recognises and reads the sessions of a program in
// OpenCode's layout.
type reader struct{ l Layout }

// Find lists the sessions of the databases under roots (dataDirs), newest
// activity first: no subagent's, and none without a message.
func (r reader) Find(roots []string) ([]transcript.SessionInfo, error) {
	var out []transcript.SessionInfo
	seen := map[string]bool{}
	for _, root := range roots {
		for _, path := range databases(root, r.l.Stem) {
			if seen[path] {
				continue
			}
			seen[path] = true
			found, err := find(path, r.l.Name)
			if err != nil {
				// One unreadable database must not hide the others'
				// sessions, nor another agent's: it has none to list.
				continue
			}
			out = append(out, found...)
		}
	}
	slices.SortStableFunc(out, func(a, b transcript.SessionInfo) int { return b.LastActivity.Compare(a.LastActivity) })
	return out, nil
}

// find lists the sessions of one database, as name's.
func find(path string, name transcript.Agent) ([]transcript.SessionInfo, error) {
	db, err := openDB(path, transcript.DefaultMaxLine)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	all, err := sessions(db)
	if err != nil {
		return nil, err
	}
	// Which sessions have a message: through the index on session_id
	// when there is one (a few pages a session), else only the
	// session_id column of every message is read.
	t, err := openTable(db, "message", "session_id")
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(all))
	for _, s := range all {
		ids = append(ids, s.id)
	}
	has, ok := t.HasEqual("session_id", ids)
	if !ok {
		has = map[string]bool{}
		if err := t.Scan(func(r *sqlitefile.Row) error {
			sid, err := t.Text(r, "session_id")
			has[sid] = true
			return err
		}); err != nil {
			return nil, err
		}
	}
	var out []transcript.SessionInfo
	for _, s := range all {
		if s.parent != "" || !has[s.id] {
			continue
		}
		info := transcript.SessionInfo{Agent: name, ID: s.id, Path: path, CWD: s.directory, AgentVersion: s.version,
			Started: time.UnixMilli(s.created), LastActivity: time.UnixMilli(s.updated)}
		if !isDefaultTitle(s.title) {
			info.Title = transcript.ShortenHead(transcript.Clean(s.title), transcript.MaxTitle)
		}
		out = append(out, info)
	}
	return out, nil
}

// Detect takes a SQLite database whose schema, as far as head holds it,
// creates tables only the program's has (Marks: those of its first
// migrations, which sqlite_schema lists first; or, for a Plain layout,
// session and part) and none of Foreign; or, as a guess, one whose first
// page holds no schema yet, as OpenCode's main file has until the first
// checkpoint of its WAL (reading it then says whether it is one).
func (r reader) Detect(head []byte) (transcript.Detected, bool) {
	if !sqlitefile.HasHeader(head) {
		return transcript.Detected{}, false
	}
	d := transcript.Detected{Agent: r.l.Name, What: r.l.What}
	has := func(table string) bool { return bytes.Contains(head, []byte("CREATE TABLE `"+table+"`")) }
	if slices.ContainsFunc(r.l.Foreign, has) {
		return transcript.Detected{}, false
	}
	if slices.ContainsFunc(r.l.Marks, has) || r.l.Plain && has("session") && has("part") {
		return d, true
	}
	// Page 1: the 100-byte header, then a table leaf with no cell.
	if len(head) >= 108 && head[100] == 0x0d && binary.BigEndian.Uint16(head[103:105]) == 0 {
		d.What = "a SQLite database with its schema still in its WAL (" + r.l.Display + "'s, if any)"
		d.Guess = true
		return d, true
	}
	return transcript.Detected{}, false
}

// DetectSchema takes a database that has the program's tables (Marks, or
// for a Plain layout session and part) and none of Foreign, wherever its schema lies: a
// database after VACUUM, or rebuilt from a dump, as users copy them.
func (r reader) DetectSchema(tables map[string][]string) (transcript.Detected, bool) {
	has := func(table string) bool { _, ok := tables[table]; return ok }
	if slices.ContainsFunc(r.l.Foreign, has) {
		return transcript.Detected{}, false
	}
	if slices.ContainsFunc(r.l.Marks, has) || r.l.Plain && has("session") && has("part") {
		return transcript.Detected{Agent: r.l.Name, What: r.l.What}, true
	}
	return transcript.Detected{}, false
}

// Read reads the session id of the database at path (the latest session
// that is no subagent's when id is none of OpenCode's session ids).
func (r reader) Read(path, id string, lim transcript.Limits) (*transcript.Digest, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: path, Err: os.ErrInvalid}
	}
	return read(path, id, r.l.Name, lim)
}
