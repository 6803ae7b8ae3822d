package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/native"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/targets"
)

// launchOptions are launch's flags and arguments.
type launchOptions struct {
	ref         string   // id, prefix or "latest"
	allProjects bool     // "latest" is the store's newest, not this project's
	extra       []string // the agent's own arguments, after --
	target      string
	budget      string
	dryRun      bool
	native      nativeOptions // --native and its flags (nativecmd.go)
}

func newLaunchCmd(a *app) *cobra.Command {
	var opts launchOptions
	cmd := &cobra.Command{
		Use:   "launch --target " + agents.Choices(targets.StartNames()) + " [ID|latest] [--budget N] [--dry-run] [-- AGENT-ARGS…]\n  launch --target " + agents.Choices(native.Names()) + " --native [SESSION|latest] [--from AGENT | --handoff ID [--force]] [--no-start] [--dry-run] [--json]",
		Short: "start an agent on a handoff (Claude Code, Codex CLI, Gemini CLI)",
		Long: `Renders the handoff as a prompt for the target, writes it to a private
file (mode 0600, in a new mode-0700 directory under $TMPDIR), and starts
the agent in the current directory with a short first message that names
the file and asks it to read it and continue:

  claude-code   claude [AGENT-ARGS…] "Read the handoff in FILE and continue the work it describes."
  codex         codex [AGENT-ARGS…] "Read the handoff in FILE …"
  gemini        gemini [AGENT-ARGS…] --include-directories DIR -i "Read the handoff in FILE …"

The handoff itself never goes on the command line (the kernel caps one
argument at 128 KiB); any argument over 32 KiB is refused. session-handoff
replaces itself with the agent, which gets the terminal, the environment
and the exit status. Arguments after -- go to the agent, before ours.

When the agent is not on PATH, launch says so, prints the command to run
once it is installed, and exits 1; the prompt file stays. --dry-run writes
the prompt file and prints it and the command, and starts nothing.

--native switches agents with the whole conversation instead: it reads a
session of another agent on this machine (--from, default any other
agent; SESSION an id or prefix, default the newest of this directory),
writes it as a session of the target's own (user and assistant turns in
order, tool calls with their commands and outputs, cut where marked, the
plan, todos and compaction summary; private reasoning dropped, secrets
redacted), its first turn saying where it came from, reads it back
through session-handoff's reader for the target, and starts the target's
own resume command on it (--no-start only writes it and prints the
command; --dry-run prints what it would write, and writes nothing). --handoff ID carries over the
transcript a handoff carries instead (capture --attach-transcript), from
your other machine or a colleague: only a handoff vouched for (made here,
or signed by a key you trust) unless --force, and then the first turn says
it is not. Before it writes, it runs the target's --version: when that is
newer than the versions the writer was checked against, a session that
does not read back is refused, naming launch with a briefing as the
fallback, and one that does is written with a note. Sources: every agent
session-handoff reads. Targets: ` + strings.Join(native.Names(), ", ") + ` (docs/TRANSCRIPTS.md).`,
		Example: `  session-handoff launch --target claude-code
  session-handoff launch --target codex 01JD8 --budget 8000 -- --model o3
  session-handoff launch --target gemini --dry-run
  session-handoff launch --target codex --native --from claude-code
  session-handoff launch --target codex --native latest --no-start --json`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: a.completeIDs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.extra = nil
			if n := cmd.ArgsLenAtDash(); n >= 0 {
				args, opts.extra = args[:n], args[n:]
			}
			if len(args) > 1 {
				return usagef("takes at most one id (pass the agent's own arguments after --)")
			}
			opts.ref = "latest"
			if len(args) == 1 {
				opts.ref = args[0]
			}
			return runLaunch(a, &opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.allProjects, "all-projects", false, allProjectsUsage)
	f.StringVar(&opts.target, "target", "", "the agent: "+strings.Join(targets.StartNames(), ", "))
	f.StringVar(&opts.budget, "budget", "", "size limit: tokens (8000) or bytes (32KiB); default none")
	f.BoolVar(&opts.dryRun, "dry-run", false, "write the prompt file, print it and the command, start nothing")
	f.BoolVar(&opts.native.native, "native", false, "write another agent's session as the target's own and resume it")
	f.StringVar(&opts.native.from, "from", "", "with --native: the agent whose session to carry over (default: any other)")
	f.BoolVar(&opts.native.noStart, "no-start", false, "with --native: write the session, print its id and resume command, start nothing")
	f.BoolVar(&opts.native.json, "json", false, "with --native: print what was written as JSON")
	f.StringVar(&opts.native.handoff, "handoff", "", "with --native: carry over the transcript this handoff carries (ID or latest) instead of a session of this machine")
	f.BoolVar(&opts.native.force, "force", false, "with --native --handoff: convert a handoff not vouched for, its first turn saying so")
	completeTargets(cmd, targets.StartNames)
	return cmd
}

func runLaunch(a *app, opts *launchOptions) error {
	if opts.target == "" {
		return usagef("--target is required: %s", strings.Join(targets.StartNames(), ", "))
	}
	if opts.native.native {
		return runLaunchNative(a, opts)
	}
	if opts.native.from != "" || opts.native.noStart || opts.native.json || opts.native.handoff != "" || opts.native.force {
		return usagef("--from, --handoff, --force, --no-start and --json go with --native")
	}
	p, err := targets.Lookup(opts.target)
	if err != nil {
		return usageError{err}
	}
	// Refuse a target or arguments launch cannot use before anything is
	// read or written.
	if _, err := p.StartCommand("/", opts.extra); err != nil {
		return usageError{err}
	}
	b, err := render.ParseBudget(opts.budget)
	if err != nil {
		return usageError{err}
	}
	_, rec, err := a.openRecord(opts.ref, opts.allProjects)
	if err != nil {
		return err
	}
	pr, err := p.PrepareStart(rec, b, opts.extra)
	if err != nil {
		return err
	}
	a.noteLeftOut(pr.Result, b)
	path, lookErr := exec.LookPath(pr.Start.Program)
	if opts.dryRun {
		fmt.Fprintf(a.stdout, "prompt file: %s (%d bytes, ~%d tokens)\n", pr.File, len(pr.Result.Text), render.Tokens(len(pr.Result.Text)))
		fmt.Fprintf(a.stdout, "command: %s\n", pr.Start)
		if lookErr != nil {
			a.warn("%s is not on PATH", pr.Start.Program)
		}
		return nil
	}
	if lookErr != nil {
		fmt.Fprintf(a.stderr, "session-handoff: launch: %s (%s) is not on PATH\n", pr.Start.Program, p.Agent)
		fmt.Fprintf(a.stderr, "hint: install it, then run (the prompt file %s stays):\n  %s\n", pr.File, pr.Start)
		return exitError{code: exitFailure}
	}
	fmt.Fprintf(a.stderr, "session-handoff: starting %s on handoff %s (%s)\n", p.Agent, rec.ID, pr.File)
	if err := execAgent(path, pr.Start.Argv()); err != nil {
		return withHint(fmt.Errorf("start %s: %w", path, err), "run it yourself: "+pr.Start.String())
	}
	return nil
}

// execAgent replaces this process with the agent, so that it owns the
// terminal, gets our environment and ends with its own exit status. It
// returns only when exec failed.
var execAgent = func(path string, argv []string) error {
	return syscall.Exec(path, argv, os.Environ())
}
