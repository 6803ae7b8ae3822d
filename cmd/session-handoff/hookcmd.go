package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/handover"
	"github.com/session-handoff/session-handoff/internal/hooks"
	"github.com/session-handoff/session-handoff/internal/integrate"
	"github.com/session-handoff/session-handoff/internal/proc"
)

// hookOptions are hook's arguments.
type hookOptions struct {
	agent string // an agent that runs hooks (hookAgentNames)
	event string // session-start, pre-compact or session-end
}

func newHookCmd(a *app) *cobra.Command {
	var opts hookOptions
	return &cobra.Command{
		Use:   "hook " + agents.Choices(hookAgentNames()) + " " + strings.Join(hooks.Events, "|") + " < HOOK-INPUT.json",
		Short: "what the installed agent hooks run (see integrate)",
		Long: `Run by the hooks 'integrate' installs; reads the hook's JSON on standard
input (session id, transcript path, working directory, event).

session-start prints the resume briefing (memory files, the latest handoff
for the project, what changed in git since) as the JSON the agent adds to
the session's context. pre-compact and session-end capture the session from
the transcript the agent names and store it, or do a handover run when the
project has an approved handover.toml (or the user a handover.toml); at
session-end that run goes on in the background, checkpointed, since the
agents wait seconds for these hooks. turn-end, for an agent that fires no
session end after every session (Qwen Code's Stop, at the end of each
turn), captures and never runs a handover.

A hook never stops the agent: whatever goes wrong is logged to hooks.log in
the data directory and on stderr, and the exit status is 0. A PAUSE file
stops the writes of pre-compact, session-end and turn-end.`,
		Example:           `  echo '{"cwd": "'$PWD'", "hook_event_name": "SessionStart"}' | session-handoff hook claude-code session-start`,
		Args:              exactArgs(2, "an agent and an event: 'hook AGENT EVENT'"),
		ValidArgsFunction: completeHookArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			opts.agent, opts.event = args[0], args[1]
			return runHook(a, opts)
		},
	}
}

// runHook checks the arguments (a wrong one is a usage error), then does
// the hook's work; whatever goes wrong after that is logged and the exit
// status is 0, so a hook never stops the agent.
func runHook(a *app, opts hookOptions) error {
	agent, err := integrate.LookupAgent(opts.agent)
	if err != nil {
		return usageError{err}
	}
	if err := hooks.CheckEvent(agent, opts.event); err != nil {
		return usageError{err}
	}
	// In the process startHookLater starts, the size of the transcript
	// when the agent ran the hook.
	since, perr := strconv.ParseInt(a.getenv(hookLaterEnv), 10, 64)
	later := perr == nil && since >= 0
	logDir := ""
	err = func() error {
		s, err := a.openStore()
		if err != nil {
			return err
		}
		logDir = s.Dir()
		kr, err := a.keyring()
		if err != nil {
			return err
		}
		return hooks.Run(a.ctx, hooks.Options{Agent: agent, Event: opts.event,
			Input: a.stdin, Stdout: a.stdout, Stderr: a.stderr, Getwd: os.Getwd,
			Store: s, ConfigDir: kr.Dir, Env: a.getenv, Warn: a.warn, Now: time.Now(),
			RunHandover: func(ctx context.Context, root string, cfg *handover.Config) error {
				r := handover.NewRunner(a.runnerOptions(root, kr, s, cfg))
				if err := r.LoadSecrets(kr, a.envPassphrase(keyPassphraseEnv, passphraseEnv)); err != nil {
					return err
				}
				cp, err := r.Run(ctx, false)
				if err == nil && cp != nil {
					a.syncAfterHandover(kr.Dir, root, handoff.ID(cp.HandoffID))
				}
				return err
			},
			StartHandover: a.startHandover, StartSync: a.startSync, SyncBeside: a.getenv(syncWaitEnv) != "1", StartIndex: a.startIndex,
			StartPull: a.startPull, PullWait: a.pullWait(),
			StartLater: func(input []byte, since int64) error { return a.startHookLater(opts, input, since) },
			Later:      later, Since: since})
	}()
	if err != nil {
		hooks.Log(a.stderr, logDir, agent.Name, opts.event, err, time.Now())
	}
	return nil
}

// completeHookArgs completes hook's agent, then its event.
func completeHookArgs(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	switch len(args) {
	case 0:
		return hookAgentNames(), cobra.ShellCompDirectiveNoFileComp
	case 1:
		return hooks.Events, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// hookAgentNames are the agents that run hooks.
func hookAgentNames() []string {
	var names []string
	for _, ag := range integrate.Agents {
		if len(ag.Events) > 0 {
			names = append(names, ag.Name)
		}
	}
	return names
}

// integrateAgentNames are the agents integrate knows.
func integrateAgentNames() []string {
	var names []string
	for _, ag := range integrate.Agents {
		names = append(names, ag.Name)
	}
	return names
}

// hookLaterEnv marks the process startHookLater starts, with the size of
// the transcript when the agent ran the hook.
const hookLaterEnv = "SESSION_HANDOFF_HOOK_LATER"

// sessionStartPullWait bounds how long a session start waits for the pull
// it starts (hooks.Options.PullWait): what another device sent just
// before is then in this very briefing when the remote answers within it
// (bench/README.md, "sync latency").
const sessionStartPullWait = 150 * time.Millisecond

// pullWait is sessionStartPullWait, or 0 with SESSION_HANDOFF_NO_PULL_WAIT=1.
func (a *app) pullWait() time.Duration {
	if a.getenv(noPullWaitEnv) == "1" {
		return 0
	}
	return sessionStartPullWait
}

// startHookLater runs 'session-handoff hook AGENT EVENT' again in a
// process of its own, with input on its stdin, and returns without
// waiting; that process waits for the agent to write its transcript
// (hooks.Options.Later), then captures. Its errors go to hooks.log.
func (a *app) startHookLater(opts hookOptions, input []byte, since int64) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start the capture: %w", err)
	}
	args, err := a.childArgs("hook", opts.agent, opts.event)
	if err != nil {
		return fmt.Errorf("start the capture: %w", err)
	}
	// The input goes through a pipe written here before returning: a
	// reader that is no file would be copied by a goroutine this process
	// may not outlive.
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("start the capture: %w", err)
	}
	defer r.Close()
	cmd := proc.Detached(exe, args...)
	cmd.Stdin = r
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", hookLaterEnv, since))
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("start the capture: %w", err)
	}
	_, werr := w.Write(input)
	if err := w.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("start the capture: %w", werr)
	}
	fmt.Fprintf(a.stderr, "session-handoff: capture started in the background, once the agent has written the session (pid %d)\n", cmd.Process.Pid)
	return cmd.Process.Release()
}

// childArgs are args followed by this process's --store and --keys, made
// absolute: the processes the hooks start run in another directory.
func (a *app) childArgs(args ...string) ([]string, error) {
	for _, d := range []struct{ flag, dir string }{{"--store", a.global.storeDir}, {"--keys", a.global.keysDir}} {
		if d.dir == "" {
			continue
		}
		abs, err := filepath.Abs(d.dir)
		if err != nil {
			return nil, err
		}
		args = append(args, d.flag, abs)
	}
	return args, nil
}

// startHandover starts 'session-handoff handover run' for root in a
// process of its own, detached as every process a hook starts is (a
// session of its own: the agent killing the hook's process group does not
// end it; issue 50), with this one's store and keys, and returns without
// waiting: its output goes nowhere (the run keeps its own state, which
// 'handover status' shows), and a run cut short is finished by the next.
func (a *app) startHandover(root string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start the handover run: %w", err)
	}
	args, err := a.childArgs("handover", "run", "--project", root)
	if err != nil {
		return fmt.Errorf("start the handover run: %w", err)
	}
	cmd := proc.Detached(exe, args...)
	cmd.Dir = root
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the handover run: %w", err)
	}
	fmt.Fprintf(a.stderr, "session-handoff: handover run started in the background (pid %d)\n", cmd.Process.Pid)
	return cmd.Process.Release()
}
