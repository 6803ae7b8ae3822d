// Package hooks does the work of the hooks 'integrate' installs in an
// agent's settings: at session start it briefs the agent, at a compaction
// or the session's end it runs the user's approved handover or captures
// the session's transcript into the store. What the agent sends a hook is
// untrusted and bounded.
package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/briefing"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/devsync"
	"github.com/session-handoff/session-handoff/internal/handover"
	"github.com/session-handoff/session-handoff/internal/integrate"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/store"
	"github.com/session-handoff/session-handoff/targets"
)

// Bounds for hooks.
const (
	// MaxInput bounds the JSON an agent sends a hook.
	MaxInput = 1 << 20
	// BriefingBudget is the size of the briefing a session-start hook
	// adds to the agent's context: about 8,000 tokens.
	BriefingBudget = 32 << 10
	// MaxLog is the size at which the hook log starts over (the old log
	// is kept as hooks.log.1).
	MaxLog = 1 << 20
	// LogName is the hook log's name in the data directory.
	LogName = "hooks.log"
)

// Events are the events a hook handles, by our names (agent.HookEvents).
var Events = agent.HookEvents

// Input is what Claude Code, Codex and Gemini CLI send a command hook on
// standard input; fields we do not use are ignored. The three agents name
// these fields alike (https://code.claude.com/docs/en/hooks; openai/codex
// codex-rs/hooks/schema/generated/*.command.input.schema.json;
// google-gemini/gemini-cli docs/hooks/reference.md).
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Source         string `json:"source"`
	Trigger        string `json:"trigger"`
	// SessionIDCamel is GitHub Copilot CLI's spelling, whose input names
	// no transcript: capture finds the session by its id. OpenCode's
	// plugin (internal/agents/opencode) sends it too: its sessions are
	// rows of one database.
	SessionIDCamel string `json:"sessionId"`
}

// Output is the JSON the agents read from a session-start hook: the text
// to add to the session's context (Codex: openai/codex
// codex-rs/hooks/schema/generated/session-start.command.output.schema.json).
type Output struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Options are what a hook run needs from the process that runs it.
type Options struct {
	Agent integrate.Agent
	// Event is ours: session-start, pre-compact or session-end.
	Event string
	// Input is the hook's JSON (the process's stdin); Stdout gets the
	// session-start output, Stderr what the hook did.
	Input          io.Reader
	Stdout, Stderr io.Writer
	// Getwd is the directory used when the input names none.
	Getwd func() (string, error)
	Store *store.Store
	// ConfigDir is the keys and configuration directory (PAUSE,
	// handover.toml, redact patterns).
	ConfigDir string
	Env       func(string) string
	// RunHandover runs an approved handover configuration in root; nil
	// means captures only.
	RunHandover func(ctx context.Context, root string, cfg *handover.Config) error
	// StartHandover starts the approved handover run of root in a process
	// of its own and returns at once; used at session end, where the agent
	// gives its hooks seconds. nil runs it in this process.
	StartHandover func(root string) error
	// StartSync starts, in a process of its own, the sync of root with my
	// other devices and returns at once: a push of the record id (just
	// captured), or a pull when id is empty. It is called only when sync
	// is on for root (devsync); nil never syncs.
	StartSync func(root string, id handoff.ID) error
	// SyncBeside starts the session-start pull beside the briefing, not
	// after it: the pull's start (a process, about a millisecond) then
	// costs the hook nothing. Off when the hook waits for the sync it
	// starts (tests), which must not import while the briefing is read.
	SyncBeside bool
	// StartPull starts the session-start pull as StartSync does and
	// returns a channel closed when its process has ended; with
	// PullWait, session start waits for it, at most PullWait, before
	// the briefing is made, so that what another device sent just
	// before is in this very briefing (issue 49: without the wait, it
	// was in the one after). It waits only when the last pull took no
	// longer than PullWait (devsync.LastPullTime), or none is known: a
	// remote that answers slowly costs a session start nothing, and its
	// pull runs beside the briefing as before. nil or 0: never waits.
	StartPull func(root string) (<-chan struct{}, error)
	PullWait  time.Duration
	// StartLater runs this hook again in a process of its own, with
	// input as its stdin and since passed on as Since, and returns at
	// once; nil does the work now. It serves GitHub Copilot CLI's session
	// end, whose transcript is written only after its hooks have run.
	StartLater func(input []byte, since int64) error
	// Later is set in that process: it first waits (at most LaterWait)
	// for the transcript to grow past Since and end with its shutdown.
	Later bool
	Since int64
	// StartIndex starts, in a process of its own, the search index's
	// catch-up with the session just captured, and returns at once; nil
	// never indexes.
	StartIndex func() error
	// Warn is told what the hook worked around.
	Warn func(format string, args ...any)
	Now  time.Time
}

func (o Options) warn(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(format, args...)
	}
}

// CheckEvent reports whether event is one a hook of agent handles.
func CheckEvent(agent integrate.Agent, event string) error {
	if agent.EventName(event) == "" {
		return fmt.Errorf("event %q: want %s", handoff.Shorten(event, 40), strings.Join(Events, ", "))
	}
	return nil
}

// ReadInput reads and parses the hook's input; empty input is no fields.
func ReadInput(r io.Reader) (Input, error) {
	var in Input
	data, err := safefile.ReadAllLimit(r, MaxInput)
	if err != nil {
		return in, fmt.Errorf("read the hook input: %w", err)
	}
	if len(strings.TrimSpace(string(data))) > 0 {
		if err := json.Unmarshal(data, &in); err != nil {
			return in, fmt.Errorf("hook input: %w", err)
		}
	}
	return in, nil
}

// Run does the hook's work: read the input, find the project, and brief
// the agent at session start, else run the approved handover or capture
// the transcript. Its error is for Log, never for the agent.
func Run(ctx context.Context, o Options) error {
	if err := CheckEvent(o.Agent, o.Event); err != nil {
		return err
	}
	// A hook lives a moment: the git reader made for the project is made
	// once (capture.WithReaderCache).
	ctx = capture.WithReaderCache(ctx)
	data, err := safefile.ReadAllLimit(o.Input, MaxInput)
	if err != nil {
		return fmt.Errorf("read the hook input: %w", err)
	}
	in, err := ReadInput(bytes.NewReader(data))
	if err != nil {
		return err
	}
	dir := in.CWD
	if dir == "" {
		if o.Getwd == nil {
			return errors.New("hook input names no cwd")
		}
		if dir, err = o.Getwd(); err != nil {
			return err
		}
	}
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("hook input: cwd %s is not an absolute path", untrusted.Quote(dir, maxQuoted))
	}
	root, err := capture.ProjectRoot(ctx, dir)
	if err != nil {
		return err
	}
	pause := handover.PauseFiles(o.ConfigDir, root)
	if o.Event == "session-start" {
		// The briefing is made from what has arrived already; the pull
		// for next time is started beside it (or after it), and is not
		// waited for.
		syncing := handover.CheckPause(pause) == nil
		if syncing && o.pullFirst(ctx, root) {
			syncing = false // started, and waited for
		}
		var started chan error
		if syncing && o.SyncBeside {
			started = make(chan error, 1)
			go func() { started <- o.syncStart(root, "") }()
		}
		var err error
		if in.Source == "compact" {
			// The same session goes on after a compaction: it is told
			// what its summary dropped, not handed the project's latest
			// handoff again.
			err = sessionRecap(ctx, o, root, in)
		} else {
			err = sessionStart(ctx, o, root, pause)
		}
		switch {
		case started != nil:
			if serr := <-started; serr != nil {
				o.warn("sync not started: %v", serr)
			}
		case syncing:
			o.startSync(root, "")
		}
		return err
	}
	if err := handover.CheckPause(pause); err != nil {
		return err
	}
	info, _ := agents.Find(o.Agent.Name)
	if id := in.SessionIDCamel; info.LateSession != nil && o.Event != "session-start" && info.LateSession.IsID(id) {
		// The agent writes the session's log only after this hook has
		// run (agent.LateSession): the capture waits for it, in a
		// process of its own.
		switch {
		case o.Later:
			waitLateSession(ctx, o, info, id)
		case o.StartLater != nil:
			// The log may not exist yet: a new session's is written,
			// whole, when it shuts down.
			var size int64
			if fi, err := os.Stat(lateSessionFile(info, id, o.Env)); err == nil {
				size = fi.Size()
			}
			return o.StartLater(data, size)
		}
	}
	if o.Event == "pre-compact" && info.CompactCaptures != nil && !info.CompactCaptures(hookCall(o, info, root, in)) {
		return nil
	}
	cfg, cfgPath, err := handover.ResolveConfig("", root, o.ConfigDir)
	switch {
	case err != nil:
		// An unapproved or broken handover.toml must not cost the user
		// the capture: say so, and capture as if there were none.
		o.warn("handover configuration not used: %v", err)
	case o.Event == "turn-end":
		// A turn's end captures; the handover waits for the session's.
	case cfgPath != handover.BuiltinConfigName && o.Event == "session-end" && o.StartHandover != nil:
		// The agent stops waiting within seconds (Claude Code: the
		// declared timeout; Codex: 3 s): the run, checkpointed, goes on
		// in its own process, and one cut short is finished by the next
		// 'handover run' (or 'handover check' at start-up).
		return o.StartHandover(root)
	case cfgPath != handover.BuiltinConfigName && o.RunHandover != nil:
		return o.RunHandover(ctx, root, cfg)
	}
	id, err := captureSession(ctx, o, root, in)
	if err != nil {
		return err
	}
	o.startSync(root, id)
	if o.StartIndex != nil {
		if err := o.StartIndex(); err != nil {
			o.warn("search index not updated: %v", err)
		}
	}
	return nil
}

// startSync starts the sync of root, push (id set) or pull, when it is on
// for root; what goes wrong is a warning, never the hook's failure.
func (o Options) startSync(root string, id handoff.ID) {
	if err := o.syncStart(root, id); err != nil {
		o.warn("sync not started: %v", err)
	}
}

// pullFirst starts the pull of root and waits for it, at most PullWait
// and no longer than ctx lasts (a Ctrl-C ends the wait at once), when
// sync is on for root and the last pull took no longer than that (or
// none is known). It reports whether it started one.
func (o Options) pullFirst(ctx context.Context, root string) bool {
	if o.StartPull == nil || o.PullWait <= 0 {
		return false
	}
	if _, on, err := devsync.Enabled(o.ConfigDir, root); err != nil || !on {
		return false
	}
	if last, known := devsync.LastPullTime(o.Store.Dir()); known && last > o.PullWait {
		return false
	}
	done, err := o.StartPull(root)
	if err != nil {
		o.warn("sync not started: %v", err)
		return true
	}
	wait := time.NewTimer(o.PullWait)
	defer wait.Stop()
	select {
	case <-done:
	case <-wait.C:
	case <-ctx.Done():
	}
	return true
}

// syncStart is startSync returning what went wrong instead of warning.
func (o Options) syncStart(root string, id handoff.ID) error {
	if o.StartSync == nil {
		return nil
	}
	_, on, err := devsync.Enabled(o.ConfigDir, root)
	if err == nil && on {
		err = o.StartSync(root, id)
	}
	return err
}

// LaterWait bounds how long a later session-end hook waits for an agent
// that writes its session's log late (agent.LateSession) to write it.
const LaterWait = 2 * time.Minute

// lateSessionFile is the log of session id (from the hook's input) of an
// agent that writes it late, in the first of its session directories that
// holds it; "" when none does or id is no plain name.
func lateSessionFile(info agents.Agent, id string, env func(string) string) string {
	roots, err := capture.SessionRoots(capture.Agent(info.Name), env)
	if err != nil {
		return ""
	}
	return info.LateSession.File(id, roots)
}

// waitLateSession waits until the agent has written the log of session id
// whole (agent.LateSession.Ended), polling, at most LaterWait; past that
// it captures what there is, and says so.
func waitLateSession(ctx context.Context, o Options, info agents.Agent, id string) {
	deadline := time.Now().Add(LaterWait)
	for {
		if file := lateSessionFile(info, id, o.Env); file != "" && info.LateSession.Ended(file, o.Since) {
			return
		}
		if time.Now().After(deadline) {
			o.warn("session %s: its shutdown was not written within %s: capturing what there is", untrusted.OneLine(id, maxQuoted), LaterWait)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// sessionStart writes the briefing as the JSON the agent adds to the
// session's context.
func sessionStart(ctx context.Context, o Options, root string, pause []string) error {
	p, err := targets.Lookup(o.Agent.Name)
	if err != nil {
		return err
	}
	br, res, err := briefing.Build(ctx, o.Store, briefing.Options{Project: root, MemoryDir: "memory",
		Render: render.Options{Style: p.Style, Budget: render.Budget{Bytes: briefingBudget(o.Agent.Name)}}, Warn: o.Warn})
	if err != nil {
		return err
	}
	paused := handover.CheckPause(pause)
	unsent := unsentLine(o, root)
	if br.Record == nil && len(br.Memory) == 0 && paused == nil && unsent == "" {
		// Nothing to brief: no handoff for this project, no memory.
		// Saying so would only cost the agent context.
		return nil
	}
	text := res.Text
	if paused != nil {
		// The PAUSE file's path and reason are the project's: quoted,
		// bounded, never among our words.
		text += "\nsession-handoff's automated writes (captures at the end of a session, handover runs) are paused until the PAUSE file is removed ('session-handoff unpause'). What it says:\n\n" +
			render.Fence(untrusted.OneLine(paused.Error(), maxPauseQuote)) + "\n"
	}
	text += unsent
	text += searchLine(o, root)
	return writeContext(o, text)
}

// searchLine is the one line that points the agent to handoff_search,
// when our MCP server is registered with it (the project's settings or
// the user's): past sessions are a query away. "" otherwise.
func searchLine(o Options, root string) string {
	home, err := paths.Home(o.Env)
	if err != nil {
		home = ""
	}
	if !integrate.MCPRegistered(o.Agent.Name, root, home, o.Env) {
		return ""
	}
	return "\nPast sessions of every agent on this machine, and the stored handoffs, can be searched with session-handoff's MCP tool handoff_search.\n"
}

// sessionRecap writes, at the start of a session that continues after a
// compaction (SessionStart with source "compact": Claude Code, Qwen
// Code), the recap of that same session read from its transcript now
// (render.RenderRecap): its requests, files, commands and open failure,
// todos and plan, which the agent's own summary mostly drops. Nothing is
// stored; the capture before the compaction already was. A session that
// cannot be read gets the usual briefing.
func sessionRecap(ctx context.Context, o Options, root string, in Input) error {
	red, err := redact.LoadUserPatterns(o.ConfigDir)
	if err != nil {
		return err
	}
	opts := capture.Options{Agent: capture.Agent(o.Agent.Name), Session: "latest", Project: root, Env: o.Env, Redactor: red}
	switch {
	case in.TranscriptPath != "":
		opts.Session = in.TranscriptPath
	case in.SessionID != "":
		opts.Session, opts.SessionIDOnly = in.SessionID, true
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	res, err := capture.Build(ctx, opts, now)
	if err != nil {
		o.warn("no recap after the compaction, the usual briefing instead: %v", err)
		return sessionStart(ctx, o, root, handover.PauseFiles(o.ConfigDir, root))
	}
	r, err := render.RenderRecap(res.Record, render.Options{Budget: render.Budget{Bytes: briefingBudget(o.Agent.Name)}})
	if err != nil {
		return err
	}
	return writeContext(o, r.Text)
}

// writeContext writes text as the JSON the agent adds to the session's
// context at its start.
func writeContext(o Options, text string) error {
	var out any
	if o.Agent.Flat {
		// GitHub Copilot CLI reads additionalContext at the top level.
		out = map[string]string{"additionalContext": openHookContext(text)}
	} else {
		var hs Output
		hs.HookSpecificOutput.HookEventName = o.Agent.EventName(o.Event)
		hs.HookSpecificOutput.AdditionalContext = openHookContext(text)
		out = hs
	}
	enc := json.NewEncoder(o.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// unsentLine is the briefing's line saying that this machine's last
// handoff did not go out to my other devices, when sync is on for root
// and its last push failed; "" otherwise.
func unsentLine(o Options, root string) string {
	_, fail, err := devsync.Pending(o.ConfigDir, o.Store.Dir(), root)
	if err != nil || fail == nil {
		return ""
	}
	return "\nThis machine's last handoff did not go out to the user's other devices (sync: " +
		untrusted.OneLine(fail.Reason, maxUnsentReason) + "); 'session-handoff sync status' says how to fix it.\n"
}

// maxUnsentReason bounds the failure's reason in the briefing, in bytes.
const maxUnsentReason = 200

// openHookContext keeps the briefing from closing the
// "<hook_context>…</hook_context>" block Gemini CLI wraps it in
// (packages/cli/src/gemini.tsx, v0.61.0): a closing tag in a handoff's text,
// in any case, gets a backslash ("<\/hook_context"), so neither Gemini nor
// the reader of its chats, which ends the block at the first closing tag,
// takes the rest of the briefing for the user's prompt.
func openHookContext(text string) string {
	const tag = "</hook_context"
	// ASCII case folding, byte by byte: it keeps every offset (ToLower
	// does not, for some runes and for invalid UTF-8), and the tag is ASCII.
	folded := []byte(text)
	for i, c := range folded {
		if 'A' <= c && c <= 'Z' {
			folded[i] = c + 'a' - 'A'
		}
	}
	lower := string(folded)
	if !strings.Contains(lower, tag) {
		return text
	}
	var b strings.Builder
	for {
		i := strings.Index(lower, tag)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i+1])
		b.WriteString(`\`)
		text, lower = text[i+1:], lower[i+1:]
	}
}

// pauseNoteRoom is what the PAUSE note after a briefing may take: our
// sentence and the fenced quote of at most maxPauseQuote bytes.
const (
	pauseNoteRoom = 512
	maxPauseQuote = 256
)

// briefingBudget is the briefing's size for agent, in bytes: what the
// agent's table says its session-start context takes whole (a byte
// budget holds at most as many characters), else BriefingBudget.
func briefingBudget(agent string) int {
	a, ok := agents.Find(agent)
	if !ok || a.HookContextLimit <= 0 {
		return BriefingBudget
	}
	return min(BriefingBudget, a.HookContextLimit-pauseNoteRoom)
}

// hookCall is what an agent's CompactCaptures is told of this call: the
// input's transcript and trigger, and the agent's own directories.
func hookCall(o Options, info agents.Agent, root string, in Input) agent.HookCall {
	c := agent.HookCall{Root: root, TranscriptPath: in.TranscriptPath, Trigger: in.Trigger,
		Read: func(path string) ([]byte, error) { return safefile.ReadRegular(path, integrate.MaxSettings) }}
	if home, err := paths.Home(o.Env); err == nil {
		c.Dirs = info.Dirs(home, o.Env)
	}
	return c
}

// captureSession captures the transcript the input names (else the
// agent's latest session in root), redacted, into the store.
func captureSession(ctx context.Context, o Options, root string, in Input) (handoff.ID, error) {
	red, err := redact.LoadUserPatterns(o.ConfigDir)
	if err != nil {
		return "", err
	}
	opts := capture.Options{Agent: capture.Agent(o.Agent.Name), Session: "latest", Project: root, Env: o.Env, Redactor: red}
	switch {
	case in.TranscriptPath != "":
		opts.Session = in.TranscriptPath
	case in.SessionIDCamel != "":
		opts.Session = in.SessionIDCamel
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	res, err := capture.Build(ctx, opts, now)
	if err != nil {
		return "", err
	}
	updated, err := o.Store.SaveSessionCapture(res.Record, handoff.Notes{})
	if err != nil {
		return "", err
	}
	verb := "captured"
	if updated {
		verb = "updated"
	}
	sid := res.Session.ID
	if rs := res.Record.Session; rs != nil && rs.ID != "" {
		sid = rs.ID
	}
	fmt.Fprintf(o.Stderr, "session-handoff: %s %s from %s session %s\n", verb, res.Record.ID, o.Agent.Name, untrusted.OneLine(sid, maxQuoted))
	return res.Record.ID, nil
}

// Log says a hook's failure on stderr, where agents show hook output to
// the user, and appends it to hooks.log in dir (the data directory),
// which starts over past MaxLog; dir is made (mode 0700) when missing. A
// pause is said but not logged. dir "" logs to stderr only.
func Log(stderr io.Writer, dir, agent, event string, err error, now time.Time) {
	msg := untrusted.OneLine(err.Error(), maxMessage)
	fmt.Fprintf(stderr, "session-handoff: hook %s %s: %s\n", agent, event, msg)
	if dir == "" || errors.Is(err, handover.ErrPaused) {
		return
	}
	// The store makes its directory on its first write: a hook that
	// fails before any handoff was saved must still be logged.
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	path := filepath.Join(dir, LogName)
	if info, serr := os.Lstat(path); serr == nil && info.Size() > MaxLog {
		os.Rename(path, path+".1")
	}
	f, ferr := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if ferr != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s %s: %s\n", now.UTC().Format(time.RFC3339), agent, event, msg)
}

// Bounds of what a hook's messages quote: a value from the hook input,
// and a whole message.
const (
	maxQuoted  = 120
	maxMessage = 1 << 10
)
