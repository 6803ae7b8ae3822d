package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/handover"
	"github.com/session-handoff/session-handoff/internal/untrusted"
	"github.com/session-handoff/session-handoff/store"
)

// exitPaused is the exit code of work stopped by a PAUSE file.
const exitPaused = 6

// handoverObserve, when set (by tests), is told of every step's phases.
var handoverObserve func(step string, phase handover.Phase)

func newHandoverCmd(a *app) *cobra.Command {
	return newParentCmd("handover run|check|status|allow", "run the end-of-session writes as checkpointed, resumable steps",
		`handover run does the writes that end a session, one step at a time,
recording each in a checkpoint: by default capture the latest agent session
(or save from git when there is none), write a layer-1 note and the layer-2
state into the memory directory, render HANDOFF.md, and compact old notes.
A configuration (--config, else handover.toml in the project, else in the
configuration directory) declares other steps: capture, save, memory,
handoff-file, export, publish (git add/commit of the memory directory,
then push to the upstream, else origin and the current branch; push = false
only commits), send (through a remote inbox, to people by name) and exec (a
command with a timeout; 'session-handoff receive' on the other side).

A run killed at any point is finished by the next 'handover run', which
skips the steps already done; a run pending under a changed configuration
needs --restart. A PAUSE file (global in the configuration directory, or in
the project root) stops a run before it starts and between steps; the run
stays resumable.

A project's own handover.toml arrives with the repository and its exec
steps run commands, so it runs only after 'handover allow' approved its
exact content on this machine (a changed file needs approving again).

handover check exits 0 when no run was ever started here, 1 when a run
needs resuming (or is running now), 2 when the last run completed. An
interrupted run of the earlier agent-handover (.agent-handover/checkpoint.json)
also exits 1, until a completed 'handover run' retires that checkpoint to
.agent-handover/checkpoint.json.migrated.
Paused work exits 6.`,
		`  session-handoff handover run
  if session-handoff handover check; [ $? -eq 1 ]; then session-handoff handover run; fi
  session-handoff handover status --json`,
		newHandoverRunCmd(a), newHandoverCheckCmd(a), newHandoverStatusCmd(a), newHandoverAllowCmd(a))
}

// handoverRunOptions are the flags of 'handover run'.
type handoverRunOptions struct {
	project string
	config  string
	restart bool
	dryRun  bool
	json    bool
}

func newHandoverRunCmd(a *app) *cobra.Command {
	var opts handoverRunOptions
	cmd := &cobra.Command{
		Use:   "run [--config F] [--restart] [--dry-run] [--project DIR] [--json]",
		Short: "run the handover's steps, or resume the pending run",
		Long: `Runs the steps of the configuration (--config, else the project's
approved handover.toml, else the configuration directory's, else the
built-in default), or finishes the pending run, skipping the steps it did.
Paused work exits 6.`,
		Example: "  session-handoff handover run --dry-run",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runHandoverRun(a, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.project, "project", ".", "the project directory")
	f.StringVar(&opts.config, "config", "", "the run's configuration (TOML)")
	f.BoolVar(&opts.restart, "restart", false, "abandon a pending run and start a new one")
	f.BoolVar(&opts.dryRun, "dry-run", false, "say what would run, and write nothing")
	f.BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func runHandoverRun(a *app, opts handoverRunOptions) error {
	root, err := a.projectRoot(opts.project)
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
	cfg, cfgPath, err := a.resolveHandoverConfig(opts.config, root, kr)
	if err != nil {
		return err
	}
	r := handover.NewRunner(a.runnerOptions(root, kr, s, cfg))
	if opts.dryRun {
		return a.handoverPlan(r, cfgPath, opts.restart, opts.json)
	}
	if err := r.LoadSecrets(kr, a.envPassphrase(keyPassphraseEnv, passphraseEnv)); err != nil {
		return err
	}
	cp, err := r.Run(a.ctx, opts.restart)
	var paused *handover.PausedError
	if errors.As(err, &paused) {
		return exitError{code: exitPaused, err: err}
	}
	if err != nil {
		if cp != nil && cp.State == handover.RunRunning {
			return withHint(err, "fix the cause and run 'session-handoff handover run' again: finished steps are not repeated")
		}
		return err
	}
	// A session end that hands off to this run syncs what it made, as a
	// capture does.
	a.syncAfterHandover(kr.Dir, root, handoff.ID(cp.HandoffID))
	if opts.json {
		return a.writeJSON(cp)
	}
	// The run's handoff id is chosen at its start; only a capture or save
	// step stores a handoff under it.
	made := "handoff " + cp.HandoffID
	if _, err := s.Get(handoff.ID(cp.HandoffID)); errors.Is(err, store.ErrNotFound) {
		made = "no handoff saved (no capture or save step)"
	}
	fmt.Fprintf(a.stdout, "handover run %s completed: %d steps, %s\n", cp.RunID, len(cp.Steps), made)
	return nil
}

// handoverStateOptions are the flags of 'handover check', 'status' and
// 'allow': the project, and (status) --json.
type handoverStateOptions struct {
	project    string
	json       bool
	checkpoint string // agent-handover's --checkpoint PATH
	steps      bool   // list an agent-handover checkpoint's steps (status)
}

func newHandoverCheckCmd(a *app) *cobra.Command {
	var opts handoverStateOptions
	cmd := &cobra.Command{
		Use:     "check [--project DIR]",
		Short:   "exit 0 (no run), 1 (a run needs resuming) or 2 (the last run completed)",
		Example: "  if session-handoff handover check; [ $? -eq 1 ]; then session-handoff handover run; fi",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runHandoverCheck(a, opts) },
	}
	cmd.Flags().StringVar(&opts.project, "project", ".", "the project directory")
	cmd.Flags().StringVar(&opts.checkpoint, "checkpoint", "", "agent-handover's checkpoint file (default .agent-handover/checkpoint.json in the project)")
	return cmd
}

// runHandoverCheck reports the project's run state by its exit code:
// handover.Status's value, 1 when the state cannot be read.
func runHandoverCheck(a *app, opts handoverStateOptions) error {
	stateDir, err := a.handoverStateDir(opts.project)
	if err != nil {
		return err
	}
	rep, err := handover.Inspect(stateDir)
	if err != nil {
		return exitError{code: int(rep.Status), err: err}
	}
	a.printCheck(rep)
	code := int(rep.Status)
	// An interrupted run of either tool needs resuming (1); a completed
	// old run counts as agent-handover counted it (2) when no run of ours
	// says otherwise.
	switch old := a.printOlderCheckpoint(opts); {
	case old == 1, old == 2 && code == 0:
		code = old
	}
	return exitError{code: code}
}

// printOlderCheckpoint reports the earlier agent-handover's checkpoint in
// the project, if there is one, with what to do, and returns its check's
// exit code: 1 (an interrupted run, which 'handover check' honours until a
// 'handover run' retires it), else 0 or 2. opts.checkpoint names the file
// in place of the project's, as agent-handover's --checkpoint did.
func (a *app) printOlderCheckpoint(opts handoverStateOptions) int {
	var c *handover.OlderCheckpoint
	var err error
	if opts.checkpoint != "" {
		c, err = handover.ReadOlderCheckpointFile(opts.checkpoint, opts.checkpoint)
	} else {
		root, rerr := a.projectRoot(opts.project)
		if rerr != nil {
			return 0
		}
		c, err = handover.ReadOlderCheckpoint(root)
	}
	switch {
	case err != nil:
		fmt.Fprintf(a.stdout, "agent-handover: %s\n", untrusted.OneLine(err.Error(), maxLine))
	case c != nil:
		fmt.Fprintf(a.stdout, "agent-handover: %s\n", untrusted.OneLine(c.Advice(), maxLine))
		if opts.steps {
			a.printOlderSteps(c)
		}
		return c.ResumeCode()
	}
	return 0
}

// printOlderSteps lists an agent-handover checkpoint's steps, each done or
// pending, as its status did.
func (a *app) printOlderSteps(c *handover.OlderCheckpoint) {
	pending := map[string]bool{}
	for _, p := range c.Pending {
		pending[p] = true
	}
	for _, s := range c.Steps {
		state := "done"
		if pending[s] {
			state = "pending"
		}
		fmt.Fprintf(a.stdout, "  %-16s %s\n", untrusted.OneLine(s, 64), state)
	}
}

func newHandoverStatusCmd(a *app) *cobra.Command {
	var opts handoverStateOptions
	cmd := &cobra.Command{
		Use:     "status [--project DIR] [--json]",
		Short:   "show the last or pending run, step by step",
		Example: "  session-handoff handover status --json",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runHandoverStatus(a, opts) },
	}
	cmd.Flags().StringVar(&opts.project, "project", ".", "the project directory")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	cmd.Flags().StringVar(&opts.checkpoint, "checkpoint", "", "agent-handover's checkpoint file (default .agent-handover/checkpoint.json in the project)")
	return cmd
}

func newHandoverAllowCmd(a *app) *cobra.Command {
	var opts handoverStateOptions
	cmd := &cobra.Command{
		Use:     "allow [--project DIR]",
		Short:   "approve the project's handover.toml as it is now",
		Example: "  session-handoff handover allow",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runHandoverAllow(a, opts) },
	}
	cmd.Flags().StringVar(&opts.project, "project", ".", "the project directory")
	return cmd
}

func runHandoverAllow(a *app, opts handoverStateOptions) error {
	root, err := a.projectRoot(opts.project)
	if err != nil {
		return err
	}
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	path := filepath.Join(root, handover.ConfigFile)
	if _, err := handover.LoadConfig(path); err != nil {
		return err
	}
	if err := handover.Approve(kr.Files().HandoverApprovals(), path); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "approved %s as it is now; a change to it needs approving again\n", path)
	return nil
}

// handoverStateDir is where the project's handover state is kept.
func (a *app) handoverStateDir(project string) (string, error) {
	root, err := a.projectRoot(project)
	if err != nil {
		return "", err
	}
	s, err := a.openStore()
	if err != nil {
		return "", err
	}
	return handover.StateDir(s.Dir(), root), nil
}

// pauseOptions are the flags pause and unpause share (unpause has no
// --reason).
type pauseOptions struct {
	project string
	global  bool
	reason  string
}

// bindPauseFlags binds the flags pause and unpause share.
func bindPauseFlags(cmd *cobra.Command, opts *pauseOptions, global string) {
	cmd.Flags().StringVar(&opts.project, "project", ".", "the project directory")
	cmd.Flags().BoolVar(&opts.global, "global", false, global)
}

func newPauseCmd(a *app) *cobra.Command {
	var opts pauseOptions
	cmd := &cobra.Command{
		Use:   "pause [--reason TEXT] [--global] [--project DIR]",
		Short: "stop automated writes (handover runs, hooks) until unpause",
		Long: `Creates a PAUSE file: in the project root, or with --global in the
configuration directory (every project). While it exists, handover runs
and hooks write nothing and exit 6; a pending run stays resumable.`,
		Example: `  session-handoff pause --reason "reviewing the last handover"
  session-handoff unpause`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runPause(a, opts) },
	}
	cmd.Flags().StringVar(&opts.reason, "reason", "", "why, for whoever finds the file")
	bindPauseFlags(cmd, &opts, "pause every project, not only this one")
	return cmd
}

func newUnpauseCmd(a *app) *cobra.Command {
	var opts pauseOptions
	cmd := &cobra.Command{
		Use:     "unpause [--global] [--project DIR]",
		Short:   "remove the PAUSE file that pause created",
		Example: "  session-handoff unpause --global",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runUnpause(a, opts) },
	}
	bindPauseFlags(cmd, &opts, "remove the global PAUSE file")
	return cmd
}

func runPause(a *app, opts pauseOptions) error {
	path, err := a.pauseFile(opts)
	if err != nil {
		return err
	}
	created, err := handover.Pause(path, opts.reason, time.Now())
	if err != nil {
		return err
	}
	if created {
		fmt.Fprintf(a.stdout, "paused: %s\n", path)
		if !opts.global {
			a.excludeFromGit(path)
		}
	} else {
		fmt.Fprintf(a.stdout, "already paused: %s\n", path)
	}
	return nil
}

func runUnpause(a *app, opts pauseOptions) error {
	path, err := a.pauseFile(opts)
	if err != nil {
		return err
	}
	removed, err := handover.Unpause(path)
	if err != nil {
		return err
	}
	if removed {
		fmt.Fprintf(a.stdout, "unpaused: removed %s\n", path)
	} else {
		fmt.Fprintf(a.stdout, "not paused: no %s\n", path)
	}
	return nil
}

// pauseFile is the PAUSE file pause and unpause work on
// (handover.PauseFile); the project matters only without --global.
func (a *app) pauseFile(opts pauseOptions) (string, error) {
	kr, err := a.keyring()
	if err != nil {
		return "", err
	}
	root := ""
	if !opts.global {
		if root, err = a.projectRoot(opts.project); err != nil {
			return "", err
		}
	}
	return handover.PauseFile(kr.Dir, root, opts.global)
}

// envPassphrase reads a passphrase from the first environment variable set,
// for unattended work that must not prompt.
func (a *app) envPassphrase(names ...string) func() ([]byte, error) {
	return func() ([]byte, error) {
		for _, n := range names {
			if v := a.getenv(n); v != "" {
				return []byte(v), nil
			}
		}
		return nil, fmt.Errorf("the signing key needs a passphrase: set %s (a handover run never prompts)", names[0])
	}
}

// resolveHandoverConfig is handover.ResolveConfig with the hint a user
// needs for an unapproved project configuration.
func (a *app) resolveHandoverConfig(explicit, root string, kr exchange.Keyring) (*handover.Config, string, error) {
	cfg, path, err := handover.ResolveConfig(explicit, root, kr.Dir)
	var notApproved *handover.NotApprovedError
	if errors.As(err, &notApproved) {
		return nil, path, withHint(err, "read it, then run 'session-handoff handover allow'")
	}
	return cfg, path, err
}

// runnerOptions are what a handover run in root needs from this process.
func (a *app) runnerOptions(root string, kr exchange.Keyring, s *store.Store, cfg *handover.Config) handover.RunnerOptions {
	return handover.RunnerOptions{Project: root, Keyring: kr, Store: s, Config: cfg, Producer: producer(),
		Env: a.getenv, Log: a.stderr, Observe: handoverObserve}
}

// printCheck says what 'handover check' found.
func (a *app) printCheck(rep handover.Report) {
	switch cp := rep.Checkpoint; {
	case rep.Status == handover.StatusNone:
		fmt.Fprintln(a.stdout, "no handover run has started for this project")
	case rep.Status == handover.StatusCompleted:
		fmt.Fprintf(a.stdout, "the last handover run (%s) completed at %s\n", cp.RunID, cp.FinishedAt.Local().Format(time.RFC3339))
	case rep.Running:
		fmt.Fprintf(a.stdout, "handover run %s is running now\n", cp.RunID)
	default:
		fmt.Fprintf(a.stdout, "handover run %s was interrupted: steps left: %v\n", cp.RunID, cp.Pending())
		fmt.Fprintln(a.stdout, "resume it with 'session-handoff handover run'")
	}
}

func runHandoverStatus(a *app, opts handoverStateOptions) error {
	opts.steps = true
	stateDir, err := a.handoverStateDir(opts.project)
	if err != nil {
		return err
	}
	rep, err := handover.Inspect(stateDir)
	if err != nil {
		return err
	}
	if opts.json {
		return a.writeJSON(rep)
	}
	cp := rep.Checkpoint
	if cp == nil {
		fmt.Fprintln(a.stdout, "no handover run has started for this project")
		a.printOlderCheckpoint(opts)
		return nil
	}
	state := cp.State
	if cp.State == handover.RunRunning {
		// The checkpoint says running; the lock says whether a process
		// still is (the kernel frees it when the process dies).
		switch pid, ok := handover.LockOwner(stateDir); {
		case rep.Running && ok:
			state = fmt.Sprintf("running now, process %d", pid)
		case rep.Running:
			state = "running now"
		case ok:
			state = fmt.Sprintf("stale: process %d is gone; 'session-handoff handover run' resumes it", pid)
		default:
			state = "interrupted; 'session-handoff handover run' resumes it"
		}
	}
	fmt.Fprintf(a.stdout, "run %s (%s), started %s, handoff %s\n", cp.RunID, state, cp.StartedAt.Local().Format(time.RFC3339), cp.HandoffID)
	for _, s := range cp.Steps {
		line := fmt.Sprintf("  %-16s %-12s %-8s", s.Name, s.Kind, s.State)
		if s.Attempts > 1 {
			line += fmt.Sprintf(" (%d attempts)", s.Attempts)
		}
		if s.Error != "" {
			line += " " + untrusted.OneLine(s.Error, maxLine)
		}
		fmt.Fprintln(a.stdout, line)
	}
	a.printOlderCheckpoint(opts)
	return nil
}

// handoverPlan prints what 'handover run --dry-run' found.
func (a *app) handoverPlan(r *handover.Runner, cfgPath string, restart, asJSON bool) error {
	d, err := r.DryRun(cfgPath, restart)
	if err != nil {
		return err
	}
	if asJSON {
		return a.writeJSON(d)
	}
	if d.Resume {
		fmt.Fprintf(a.stdout, "would resume run %s (config %s):\n", d.RunID, d.Config)
	} else {
		fmt.Fprintf(a.stdout, "would start a new run (config %s):\n", d.Config)
	}
	if d.Paused != nil {
		fmt.Fprintf(a.stdout, "  but it is %v\n", d.Paused)
	}
	for _, p := range d.Steps {
		fmt.Fprintf(a.stdout, "  %-4s %-16s %s\n", p.Action, p.Name, p.Kind)
	}
	return nil
}
