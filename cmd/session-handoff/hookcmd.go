package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/internal/briefing"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/handover"
	"github.com/session-handoff/session-handoff/internal/integrate"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/targets"
)

// Bounds for hooks.
const (
	// maxHookInput bounds the JSON an agent sends a hook.
	maxHookInput = 1 << 20
	// hookBriefingBudget is the size of the briefing a session-start hook
	// adds to the agent's context: about 8,000 tokens.
	hookBriefingBudget = 32 << 10
	// maxHookLog is the size at which the hook log starts over.
	maxHookLog = 1 << 20
)

// hookInput is what Claude Code and Gemini CLI send a command hook on
// standard input; fields we do not use are ignored.
type hookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Source         string `json:"source"`
	Trigger        string `json:"trigger"`
}

// hookOutput is the JSON both agents read from a session-start hook: the
// text to add to the session's context.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func init() {
	register(&command{
		name:    "hook",
		summary: "what the installed agent hooks run (see integrate)",
		usage:   "hook claude-code|gemini session-start|pre-compact|session-end < HOOK-INPUT.json",
		help: `Run by the hooks 'integrate' installs; reads the hook's JSON on standard
input (session id, transcript path, working directory, event).

session-start prints the resume briefing (memory files, the latest handoff
for the project, what changed in git since) as the JSON the agent adds to
the session's context. pre-compact and session-end capture the session from
the transcript the agent names and store it, or do a handover run when the
project has an approved handover.toml (or the user a handover.toml).

A hook never stops the agent: whatever goes wrong is logged to hooks.log in
the data directory and on stderr, and the exit status is 0. A PAUSE file
stops the writes of pre-compact and session-end.`,
		example: `  echo '{"cwd": "'$PWD'", "hook_event_name": "SessionStart"}' | session-handoff hook claude-code session-start`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeDir := storeFlag(fs, a)
			keysDir := keysFlag(fs, a)
			return func(args []string) error {
				if len(args) != 2 {
					return usagef("want 'hook AGENT EVENT'")
				}
				agent, err := integrate.LookupAgent(args[0])
				if err != nil || agent.NoHooks != "" {
					return usagef("agent %q: want claude-code or gemini", args[0])
				}
				event := args[1]
				if agent.EventName(event) == "" {
					return usagef("event %q: want session-start, pre-compact or session-end", event)
				}
				err = a.runHook(agent, event, *storeDir, *keysDir)
				if err != nil {
					a.logHook(*storeDir, agent.Name, event, err)
				}
				return nil
			}
		},
	})
}

// runHook does the hook's work; its error is logged, never returned to
// the agent.
func (a *app) runHook(agent integrate.Agent, event, storeDir, keysDir string) error {
	data, err := safefile.ReadAllLimit(a.stdin, maxHookInput)
	if err != nil {
		return fmt.Errorf("read the hook input: %w", err)
	}
	var in hookInput
	if len(strings.TrimSpace(string(data))) > 0 {
		if err := json.Unmarshal(data, &in); err != nil {
			return fmt.Errorf("hook input: %w", err)
		}
	}
	dir := in.CWD
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return err
		}
	}
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("hook input: cwd %q is not an absolute path", clipForLog(dir))
	}
	root, err := a.projectRoot(dir)
	if err != nil {
		return err
	}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	pauseFiles := handover.PauseFiles(kr.Dir, root)
	if event == "session-start" {
		p, err := targets.Lookup(agent.Name)
		if err != nil {
			return err
		}
		_, res, err := briefing.Build(a.ctx, s, briefing.Options{Project: root, MemoryDir: "memory",
			Render: render.Options{Style: p.Style, Budget: render.Budget{Bytes: hookBriefingBudget}}, Warn: a.warn})
		if err != nil {
			return err
		}
		text := res.Text
		if perr := handover.CheckPause(pauseFiles); perr != nil {
			text += "\n(session-handoff: automated writes are " + perr.Error() + ")\n"
		}
		var out hookOutput
		out.HookSpecificOutput.HookEventName = agent.EventName(event)
		out.HookSpecificOutput.AdditionalContext = text
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	if err := handover.CheckPause(pauseFiles); err != nil {
		return err
	}
	if cfg, cfgPath, err := handover.ResolveConfig("", root, kr.Dir); err == nil && cfgPath != handover.BuiltinConfigName {
		r := handover.NewRunner(a.runnerOptions(root, kr, s, cfg))
		if err := r.LoadSecrets(kr, a.envPassphrase(keyPassphraseEnv, passphraseEnv)); err != nil {
			return err
		}
		_, err := r.Run(a.ctx, false)
		return err
	} else if err != nil {
		// An unapproved or broken handover.toml must not cost the user
		// the capture: say so, and capture as if there were none.
		a.warn("handover configuration not used: %v", err)
	}
	red, err := a.redactor()
	if err != nil {
		return err
	}
	opts := capture.Options{Agent: capture.Agent(agent.Name), Session: "latest", Project: root, Env: a.getenv, Redactor: red}
	if in.TranscriptPath != "" {
		opts.Session = in.TranscriptPath
	}
	res, err := capture.Build(a.ctx, opts, time.Now())
	if err != nil {
		return err
	}
	if err := s.Save(res.Record); err != nil {
		return err
	}
	sid := res.Session.ID
	if rs := res.Record.Session; rs != nil && rs.ID != "" {
		sid = rs.ID
	}
	fmt.Fprintf(a.stderr, "session-handoff: captured %s from %s session %s\n", res.Record.ID, agent.Name, clipForLog(sid))
	return nil
}

// logHook records a hook's failure in hooks.log in the store's directory,
// and on stderr, where agents show hook output to the user.
func (a *app) logHook(storeDir, agent, event string, err error) {
	line := fmt.Sprintf("%s %s %s: %s\n", time.Now().UTC().Format(time.RFC3339), agent, event, oneLine(err.Error()))
	fmt.Fprintf(a.stderr, "session-handoff: hook %s %s: %s\n", agent, event, oneLine(err.Error()))
	if errors.Is(err, handover.ErrPaused) {
		return
	}
	s, oerr := a.openStore()
	if oerr != nil {
		return
	}
	path := filepath.Join(s.Dir(), "hooks.log")
	if info, serr := os.Stat(path); serr == nil && info.Size() > maxHookLog {
		os.Rename(path, path+".1")
	}
	f, ferr := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if ferr != nil {
		return
	}
	defer f.Close()
	io.WriteString(f, line)
}

func clipForLog(s string) string { return cell(s, 120) }
