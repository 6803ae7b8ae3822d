package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/targets"
)

func init() {
	register(&command{
		name:    "launch",
		summary: "start an agent on a handoff (Claude Code, Codex CLI, Gemini CLI)",
		usage:   "launch --target claude-code|codex|gemini [ID|latest] [--budget N] [--dry-run] [-- AGENT-ARGS…]",
		help: `Renders the handoff as a prompt for the target, writes it to a private
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
the prompt file and prints it and the command, and starts nothing.`,
		example: `  session-handoff launch --target claude-code
  session-handoff launch --target codex 01JD8 --budget 8000 -- --model o3
  session-handoff launch --target gemini --dry-run`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeDir := storeFlag(fs, a)
			target := fs.String("target", "", "the agent: "+strings.Join(targets.StartNames(), ", "))
			budget := fs.String("budget", "", "size limit: tokens (8000) or bytes (32KiB); default none")
			dryRun := fs.Bool("dry-run", false, "write the prompt file, print it and the command, start nothing")
			return func(args []string) error {
				var extra []string
				if n := fs.ArgsLenAtDash(); n >= 0 {
					args, extra = args[:n], args[n:]
				}
				if len(args) > 1 {
					return usagef("takes at most one id (pass the agent's own arguments after --)")
				}
				if *target == "" {
					return usagef("--target is required: %s", strings.Join(targets.StartNames(), ", "))
				}
				p, err := targets.Lookup(*target)
				if err != nil {
					return usageError{err}
				}
				// Refuse a target or arguments launch cannot use before
				// anything is written.
				if _, err := p.StartCommand("/", extra); err != nil {
					return usageError{err}
				}
				b, err := render.ParseBudget(*budget)
				if err != nil {
					return usageError{err}
				}
				ref := "latest"
				if len(args) == 1 {
					ref = args[0]
				}
				rec, err := a.loadRecord(*storeDir, ref)
				if err != nil {
					return err
				}
				opts := render.Options{Mode: render.Prompt, Style: p.Style, Budget: b}
				res, err := render.Render(rec, opts)
				if err != nil {
					return err
				}
				file, err := writePromptFile(rec.ID, res.Text)
				if err != nil {
					return err
				}
				a.noteLeftOut(res, b)
				start, err := p.StartCommand(file, extra)
				if err != nil {
					return err
				}
				path, lookErr := exec.LookPath(start.Program)
				if *dryRun {
					fmt.Fprintf(a.stdout, "prompt file: %s (%d bytes, ~%d tokens)\n", file, len(res.Text), render.Tokens(len(res.Text)))
					fmt.Fprintf(a.stdout, "command: %s\n", start)
					if lookErr != nil {
						a.warn("%s is not on PATH", start.Program)
					}
					return nil
				}
				if lookErr != nil {
					fmt.Fprintf(a.stderr, "session-handoff: launch: %s (%s) is not on PATH\n", start.Program, p.Agent)
					fmt.Fprintf(a.stderr, "hint: install it, then run (the prompt file %s stays):\n  %s\n", file, start)
					return exitError{code: exitFailure}
				}
				fmt.Fprintf(a.stderr, "session-handoff: starting %s on handoff %s (%s)\n", p.Agent, rec.ID, file)
				if err := execAgent(path, start.Argv()); err != nil {
					return withHint(fmt.Errorf("start %s: %w", path, err), "run it yourself: "+start.String())
				}
				return nil
			}
		},
	})
}

// writePromptFile writes a rendered handoff to a new private file: mode
// 0600 in a fresh mode-0700 directory under the temporary directory, so
// no other user can read it or put a file in its place. It stays after
// the agent starts (the agent reads it later).
func writePromptFile(id handoff.ID, text string) (string, error) {
	dir, err := os.MkdirTemp("", "session-handoff-launch-")
	if err != nil {
		return "", fmt.Errorf("create the prompt file's directory: %w", err)
	}
	// MkdirTemp makes it 0700 already; say so in case of an odd umask.
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(filepath.Join(dir, "handoff-"+string(id)+".md"))
	if err != nil {
		return "", err
	}
	if err := safefile.Create(abs, []byte(text), 0o600); err != nil {
		if errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("prompt file %s exists already", abs)
		}
		return "", fmt.Errorf("write prompt file %s: %w", abs, err)
	}
	return abs, nil
}

// execAgent replaces this process with the agent, so that it owns the
// terminal, gets our environment and ends with its own exit status. It
// returns only when exec failed.
var execAgent = func(path string, argv []string) error {
	return syscall.Exec(path, argv, os.Environ())
}
