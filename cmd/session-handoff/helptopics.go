package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// newHelpTopics are the help topics: commands with no run function that
// 'session-handoff help TOPIC' prints and the overview lists.
func newHelpTopics() []*cobra.Command {
	return []*cobra.Command{
		{Use: "exit-codes", Short: "what each exit status means", Long: exitCodesHelp},
		{Use: "environment", Short: "the environment variables session-handoff reads", Long: environmentHelp},
		{Use: "files", Short: "what lives in the data and configuration directories", Long: filesHelp},
	}
}

const exitCodesHelp = `Every command:
  0  done
  1  failed: the one-line error names the file and the cause
  2  usage error: an unknown command or flag, a missing or bad argument

Some commands say more (see their --help):
  verify          0 verified by a trusted key, 3 valid signature by an
                  untrusted key, 4 unsigned, 5 invalid, 1 could not check
  handover check  0 no run was ever started here, 1 a run needs resuming
                  (or is running now), 2 the last run completed
  handover run    6 the work was stopped by a PAUSE file (see pause)
  receive         1 when a bundle was refused or rejected by this receive,
                  a remote could not be read, or --drop named no refused
                  bundle; 0 when everything it could import is imported
                  and what is left is still refused since an earlier
                  receive, unchanged (inbox shows it; --drop drops it)
  doctor          1 when any check failed (warnings alone exit 0)
  hook            0 whatever happens once its arguments are right: a
                  hook never stops the agent
  launch          the agent's own exit status once it has started`

const environmentHelp = `SESSION_HANDOFF_HOME
    relocates everything: data in $SESSION_HANDOFF_HOME/data, keys and
    configuration in $SESSION_HANDOFF_HOME/config
XDG_DATA_HOME, XDG_CONFIG_HOME
    otherwise data lives in $XDG_DATA_HOME/session-handoff (default
    ~/.local/share) and configuration in $XDG_CONFIG_HOME/session-handoff
    (default ~/.config)
HOME
    the default for the above, the agents' user settings, and ~ in paths
SESSION_HANDOFF_KEY_PASSPHRASE, SESSION_HANDOFF_PASSPHRASE
    the signing key's passphrase for work that must not prompt (handover
    runs, hooks); the first one set is used
SESSION_HANDOFF_WITH_CHANGES
    1 makes --with-changes the default of save, capture and export, and
    of what sync sends
SESSION_HANDOFF_SYNC_WAIT
    1 makes the hooks wait for the sync they start (for tests and
    scripts; by default it runs in the background)
SESSION_HANDOFF_NO_PULL_WAIT
    1 makes a session start never wait for the sync pull it starts (by
    default it waits at most 150 ms, through a remote that answered that
    fast last time, so that what another device sent just before is in
    this briefing)
CLAUDE_CONFIG_DIR
    where Claude Code keeps its sessions and settings (default ~/.claude)
CODEX_HOME
    where Codex CLI keeps its sessions (default ~/.codex)
GEMINI_CLI_HOME
    the home Gemini CLI keeps .gemini in (default $HOME)
GIT_SSH_COMMAND, GIT_SSH
    how git reaches a remote over ssh (remote, send, receive)
TMPDIR
    where launch writes its private prompt files and demo its directory
PATH
    where git and the agents (claude, codex, gemini) are found
NO_COLOR, TERM
    NO_COLOR set (to anything) or TERM=dumb turns colour off on a terminal;
    --color=always|never overrides both`

const filesHelp = `The data directory ($SESSION_HANDOFF_HOME/data, else
$XDG_DATA_HOME/session-handoff; --store names another):
  records/        one file per stored handoff, and their attachments
  index, lock     the store's index (rebuilt from records/ when damaged)
                  and the lock writers take
  hooks.log       what went wrong in an agent hook (hooks.log.1: the one
                  before, past 1 MiB)
  integrations/   what integrate changed in the agents' settings, so that
                  --remove can restore them
  inbox-ledger    the bundles receive has imported, rejected or dropped
  inbox-refused   the bundles receive refused for their signer, so that
                  it does not read them again while nothing changed
  sync-state      the sends sync was asked for and has not delivered,
                  and why the last push failed
  sync-pull-time  how long the last sync pull took: a session start waits
                  for its pull (150 ms at most) only when that is within it
  sync-push-REMOTE.lock, sync-pull.lock   held by a running sync push or pull
  handover/       the state of a handover run, to resume it

The configuration directory ($SESSION_HANDOFF_HOME/config, else
$XDG_CONFIG_HOME/session-handoff; --keys names another):
  signing_key, signing_key.pub   the signing key pair (keygen)
  age_identity.txt               the age identity bundles are encrypted to
  allowed_signers                the trust store (trust add)
  people                         the people you send handoffs to
  devices                        my other machines (devices add)
  sync                           the projects kept in step with them (sync on)
  remotes                        the git remotes of send and receive
  handover.toml                  your handover configuration
  handover-approved              the project handover.toml files you allowed
  redact-patterns                your own patterns of secrets to redact
  PAUSE                          stops automated writes everywhere (pause)

In a project: handover.toml (used once approved), PAUSE (stops the
project's automated writes), memory/ with SOUL.md and MEMORY.md (resume),
and the instruction file 'render --write' puts a block into.`

// manOptions are man's argument.
type manOptions struct {
	dir string
}

func newManCmd(a *app) *cobra.Command {
	var opts manOptions
	return &cobra.Command{
		Use:     "man DIR",
		Short:   "write a man page for every command into DIR",
		Long:    `Writes one roff page a command (session-handoff.1, session-handoff-save.1, …) into DIR, which must exist.`,
		Example: "  session-handoff man ~/.local/share/man/man1",
		Args:    exactArgs(1, "one directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = args[0]
			// Every command's page, whatever tree ran this one
			// (newRootCmdFor makes the man command alone). Binding the
			// new tree's flags resets the global ones, which man
			// does not use.
			return runMan(a, newRootCmd(a), opts)
		},
	}
}

func runMan(a *app, root *cobra.Command, opts manOptions) error {
	info, err := os.Stat(opts.dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s does not exist", opts.dir)
		}
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", opts.dir)
	}
	if err := writeManTree(root, opts.dir); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wrote the man pages into %s\n", opts.dir)
	return nil
}

// writeManTree writes cmd's page and its subcommands' into dir, each
// atomically and starting with a comment line that says where it came
// from.
func writeManTree(cmd *cobra.Command, dir string) error {
	for _, c := range cmd.Commands() {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := writeManTree(c, dir); err != nil {
			return err
		}
	}
	name := strings.ReplaceAll(cmd.CommandPath(), " ", "-") + ".1"
	path := filepath.Join(dir, name)
	err := safefile.Write(path, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, manPage(cmd, name))
		return err
	})
	if err != nil {
		return fmt.Errorf("write man page %s: %w", path, err)
	}
	return nil
}
