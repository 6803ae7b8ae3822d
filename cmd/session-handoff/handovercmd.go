package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/internal/handover"
	"github.com/session-handoff/session-handoff/internal/paths"
)

// exitPaused is the exit code of work stopped by a PAUSE file.
const exitPaused = 6

// handoverObserve, when set (by tests), is told of every step's phases.
var handoverObserve func(step string, phase handover.Phase)

// handoverConfigName is the configuration file looked for in the project
// and then in the configuration directory.
const handoverConfigName = "handover.toml"

func init() {
	register(&command{
		name:    "handover",
		summary: "run the end-of-session writes as checkpointed, resumable steps",
		usage:   "handover run [--config F] [--restart] [--dry-run] [--project DIR] | handover check | handover status [--json] | handover allow",
		help: `handover run does the writes that end a session, one step at a time,
recording each in a checkpoint: by default capture the latest agent session
(or save from git when there is none), write a layer-1 note and the layer-2
state into the memory directory, render HANDOFF.md, and compact old notes.
A configuration (--config, else handover.toml in the project, else in the
configuration directory) declares other steps: capture, save, memory,
handoff-file, export, publish (git add/commit/push of the memory
directory), send (through a remote inbox, to people by name) and exec (a
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
needs resuming (or is running now), 2 when the last run completed.
Paused work exits 6.`,
		example: `  session-handoff handover run
  session-handoff handover check; [ $? -eq 1 ] && session-handoff handover run
  session-handoff handover status --json`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeFlag(fs, a)
			keysFlag(fs, a)
			configFile := fs.String("config", "", "the run's configuration (TOML)")
			restart := fs.Bool("restart", false, "abandon a pending run and start a new one")
			dryRun := fs.Bool("dry-run", false, "say what would run, and write nothing")
			project := fs.String("project", ".", "the project directory")
			asJSON := fs.Bool("json", false, "print JSON")
			return func(args []string) error {
				if len(args) != 1 || !slices.Contains([]string{"run", "check", "status", "allow"}, args[0]) {
					return usagef("want 'handover run', 'handover check', 'handover status' or 'handover allow'")
				}
				sub := args[0]
				if sub != "run" && (*restart || *dryRun || *configFile != "") {
					return usagef("--restart, --dry-run and --config go with 'handover run'")
				}
				root, err := a.projectRoot(*project)
				if err != nil {
					return err
				}
				s, err := a.openStore()
				if err != nil {
					return err
				}
				stateDir := handover.StateDir(s.Dir(), root)
				switch sub {
				case "allow":
					kr, err := a.keyring()
					if err != nil {
						return err
					}
					path := filepath.Join(root, handoverConfigName)
					if _, err := handover.LoadConfig(path); err != nil {
						return err
					}
					if err := handover.Approve(kr.Files().HandoverApprovals(), path); err != nil {
						return err
					}
					fmt.Fprintf(a.stdout, "approved %s as it is now; a change to it needs approving again\n", path)
					return nil
				case "check":
					st, cp, err := handover.Check(stateDir)
					if err != nil {
						return exitError{code: int(handover.StatusResumeNeeded), err: err}
					}
					a.printCheck(st, cp, stateDir)
					return exitError{code: int(st)}
				case "status":
					return a.handoverStatus(stateDir, *asJSON)
				}
				kr, err := a.keyring()
				if err != nil {
					return err
				}
				cfg, cfgPath, err := loadHandoverConfig(*configFile, root, kr.Dir)
				if err != nil {
					return err
				}
				r := &handover.Runner{Project: root, StateDir: stateDir, PauseFiles: handover.PauseFiles(kr.Dir, root), ConfigDir: kr.Dir,
					Config: cfg, Store: s, Producer: producer(), Env: a.getenv, Log: a.stderr, Observe: handoverObserve}
				if *dryRun {
					return a.handoverPlan(r, cfgPath, *restart, *asJSON)
				}
				if r.Redactor, err = a.redactor(kr.Dir); err != nil {
					return err
				}
				if slices.ContainsFunc(cfg.Steps, func(st handover.Step) bool { return st.Kind == handover.KindExport || st.Kind == handover.KindSend }) {
					// A run is unattended: the key's passphrase comes from
					// the environment, never from a prompt.
					if r.SigningKey, err = kr.SigningKey(a.envPassphrase(keyPassphraseEnv, passphraseEnv)); err != nil {
						return err
					}
				}
				cp, err := r.Run(a.ctx, *restart)
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
				if *asJSON {
					return a.writeJSON(cp)
				}
				fmt.Fprintf(a.stdout, "handover run %s completed: %d steps, handoff %s\n", cp.RunID, len(cp.Steps), cp.HandoffID)
				return nil
			}
		},
	})
	register(&command{
		name:    "pause",
		summary: "stop automated writes (handover runs, hooks) until unpause",
		usage:   "pause [--reason TEXT] [--global] [--project DIR]",
		help: `Creates a PAUSE file: in the project root, or with --global in the
configuration directory (every project). While it exists, handover runs
and hooks write nothing and exit 6; a pending run stays resumable.`,
		example: `  session-handoff pause --reason "reviewing the last handover"
  session-handoff unpause`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			keysDir := keysFlag(fs, a)
			reason := fs.String("reason", "", "why, for whoever finds the file")
			global := fs.Bool("global", false, "pause every project, not only this one")
			project := fs.String("project", ".", "the project directory")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments")
				}
				path, err := a.pauseFile(*keysDir, *project, *global)
				if err != nil {
					return err
				}
				created, err := handover.Pause(path, *reason, time.Now())
				if err != nil {
					return err
				}
				if created {
					fmt.Fprintf(a.stdout, "paused: %s\n", path)
				} else {
					fmt.Fprintf(a.stdout, "already paused: %s\n", path)
				}
				return nil
			}
		},
	})
	register(&command{
		name:    "unpause",
		summary: "remove the PAUSE file that pause created",
		usage:   "unpause [--global] [--project DIR]",
		example: "  session-handoff unpause --global",
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			keysDir := keysFlag(fs, a)
			global := fs.Bool("global", false, "remove the global PAUSE file")
			project := fs.String("project", ".", "the project directory")
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments")
				}
				path, err := a.pauseFile(*keysDir, *project, *global)
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
		},
	})
}

// pauseFile is the PAUSE file pause and unpause work on.
func (a *app) pauseFile(keysDir, project string, global bool) (string, error) {
	if global {
		kr, err := a.keyring()
		if err != nil {
			return "", err
		}
		if err := os.MkdirAll(kr.Dir, 0o700); err != nil {
			return "", err
		}
		return kr.Files().Pause(), nil
	}
	root, err := a.projectRoot(project)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, paths.PauseFile), nil
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

// loadHandoverConfig finds the run's configuration: the flag, the
// project's handover.toml, the configuration directory's, or the default.
// A project's own handover.toml came with the repository, perhaps from a
// stranger, and its exec steps run commands: it is used only once the
// user has approved its exact content with 'handover allow'.
func loadHandoverConfig(flagValue, root, configDir string) (*handover.Config, string, error) {
	if flagValue != "" {
		c, err := handover.LoadConfig(flagValue)
		return c, flagValue, err
	}
	projectConfig := filepath.Join(root, handoverConfigName)
	if _, err := os.Stat(projectConfig); err == nil {
		ok, err := handover.Approved(paths.ConfigDir(configDir).HandoverApprovals(), projectConfig)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "", withHint(fmt.Errorf("%s is not approved to run on this machine (new, or changed since it was approved)", projectConfig),
				"read it, then run 'session-handoff handover allow'")
		}
		c, err := handover.LoadConfig(projectConfig)
		return c, projectConfig, err
	}
	userConfig := filepath.Join(configDir, handoverConfigName)
	if _, err := os.Stat(userConfig); err == nil || !errors.Is(err, fs.ErrNotExist) {
		c, err := handover.LoadConfig(userConfig)
		return c, userConfig, err
	}
	return handover.DefaultConfig(), "(built-in default)", nil
}

func (a *app) printCheck(st handover.Status, cp *handover.Checkpoint, stateDir string) {
	switch st {
	case handover.StatusNone:
		fmt.Fprintln(a.stdout, "no handover run has started for this project")
	case handover.StatusCompleted:
		fmt.Fprintf(a.stdout, "the last handover run (%s) completed at %s\n", cp.RunID, cp.FinishedAt.Local().Format(time.RFC3339))
	default:
		if handover.Running(stateDir) {
			fmt.Fprintf(a.stdout, "handover run %s is running now\n", cp.RunID)
			return
		}
		fmt.Fprintf(a.stdout, "handover run %s was interrupted: steps left: %v\n", cp.RunID, cp.Pending())
		fmt.Fprintln(a.stdout, "resume it with 'session-handoff handover run'")
	}
}

func (a *app) handoverStatus(stateDir string, asJSON bool) error {
	st, cp, err := handover.Check(stateDir)
	if err != nil {
		return err
	}
	if asJSON {
		return a.writeJSON(struct {
			Status     string               `json:"status"`
			Running    bool                 `json:"running"`
			Checkpoint *handover.Checkpoint `json:"checkpoint"`
		}{[]string{"none", "resume-needed", "completed"}[st], handover.Running(stateDir), cp})
	}
	if cp == nil {
		fmt.Fprintln(a.stdout, "no handover run has started for this project")
		return nil
	}
	fmt.Fprintf(a.stdout, "run %s (%s), started %s, handoff %s\n", cp.RunID, cp.State, cp.StartedAt.Local().Format(time.RFC3339), cp.HandoffID)
	for _, s := range cp.Steps {
		line := fmt.Sprintf("  %-16s %-12s %-8s", s.Name, s.Kind, s.State)
		if s.Attempts > 1 {
			line += fmt.Sprintf(" (%d attempts)", s.Attempts)
		}
		if s.Error != "" {
			line += " " + oneLine(s.Error)
		}
		fmt.Fprintln(a.stdout, line)
	}
	return nil
}

func (a *app) handoverPlan(r *handover.Runner, cfgPath string, restart, asJSON bool) error {
	plan, cp, err := r.Plan(restart)
	if err != nil {
		return err
	}
	if asJSON {
		return a.writeJSON(struct {
			Config string              `json:"config"`
			Resume bool                `json:"resume"`
			Steps  []handover.PlanStep `json:"steps"`
		}{cfgPath, cp != nil, plan})
	}
	if cp != nil {
		fmt.Fprintf(a.stdout, "would resume run %s (config %s):\n", cp.RunID, cfgPath)
	} else {
		fmt.Fprintf(a.stdout, "would start a new run (config %s):\n", cfgPath)
	}
	if err := handover.CheckPause(r.PauseFiles); err != nil {
		fmt.Fprintf(a.stdout, "  but it is %v\n", err)
	}
	for _, p := range plan {
		fmt.Fprintf(a.stdout, "  %-4s %-16s %s\n", p.Action, p.Name, p.Kind)
	}
	return nil
}
