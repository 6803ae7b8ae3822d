package main

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/remote"
)

func newRemoteCmd(a *app) *cobra.Command {
	return newParentCmd("remote add|list|rm|migrate|gc", "manage the git remotes used as inboxes",
		`A remote is a git repository that holds bundles for their recipients,
one branch per recipient (refs/heads/inbox/<hash>, beside a branch,
default "handoffs", that marks the inbox). It needs no trust: bundles are
encrypted to their recipients and signed, and its refs, paths and commits
show only hashes of public keys and random bundle ids. 'send' pushes to
it, 'receive' imports what it holds for me and removes it, 'inbox' lists
it. The host must allow many branches and force-pushes to the inbox
refs (no branch protection there).

'remote migrate' moves an inbox of the earlier layout (one branch for
everyone) to this one; the first send does it too. 'remote gc' compacts
the local clone: git's automatic gc never runs in the way of a command.

The list of remotes is kept in the keys directory; each remote's local
clone under the data directory. 'remote rm' forgets both; it refuses while
a send is still waiting to be pushed, unless --force. Credentials in a URL
are never printed.`,
		`  session-handoff remote add team git@github.com:team/handoffs.git
  session-handoff remote add lab https://git.example.com/lab/inbox.git --branch inbox
  session-handoff remote list
  session-handoff remote rm lab
  session-handoff remote migrate team
  session-handoff remote gc team`,
		newRemoteAddCmd(a), newRemoteListCmd(a), newRemoteRmCmd(a), newRemoteMigrateCmd(a), newRemoteGCCmd(a))
}

// remoteAddOptions are the arguments and flags of 'remote add'.
type remoteAddOptions struct {
	name, url string
	branch    string
}

func newRemoteAddCmd(a *app) *cobra.Command {
	var opts remoteAddOptions
	cmd := &cobra.Command{
		Use:     "add NAME URL [--branch B]",
		Short:   "add a git remote to send through and receive from",
		Example: "  session-handoff remote add team git@github.com:team/handoffs.git",
		Args:    exactArgs(2, "a name and a URL"),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.name, opts.url = args[0], args[1]
			return runRemoteAdd(a, opts)
		},
	}
	cmd.Flags().StringVar(&opts.branch, "branch", remote.DefaultBranch, "the branch that holds the inbox")
	return cmd
}

func runRemoteAdd(a *app, opts remoteAddOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	r := remote.Remote{Name: opts.name, URL: opts.url, Branch: opts.branch}
	if err := r.Check(); err != nil {
		return usageError{err}
	}
	err = remote.UpdateConfig(kr.Dir, func(c *remote.Config) error { return c.Add(r) })
	if errors.Is(err, remote.ErrRemoteExists) {
		return withHint(err, "'session-handoff remote rm "+r.Name+"' first to change it")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "added remote %s: %s, branch %s\n", r.Name, r.DisplayURL(), opts.branch)
	return nil
}

// remoteListOptions are the flags of 'remote list'.
type remoteListOptions struct {
	json bool
}

func newRemoteListCmd(a *app) *cobra.Command {
	var opts remoteListOptions
	cmd := &cobra.Command{
		Use:     "list [--json]",
		Short:   "list the remotes, with the sends not yet pushed to each",
		Example: "  session-handoff remote list --json",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runRemoteList(a, opts) },
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print as JSON")
	return cmd
}

// remoteRow is one remote in 'remote list'.
type remoteRow struct {
	Name   string        `json:"name"`
	URL    string        `json:"url"`
	Branch string        `json:"branch"`
	Unsent []remote.Sent `json:"unsent"`
}

func runRemoteList(a *app, opts remoteListOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	c, err := remote.LoadConfig(kr.Dir)
	if err != nil {
		return err
	}
	dataDir, err := a.dataDir()
	if err != nil {
		return err
	}
	rows := []remoteRow{}
	for _, r := range c.List() {
		st, err := remote.State(dataDir, r.Name)
		if err != nil {
			return err
		}
		rows = append(rows, remoteRow{r.Name, r.DisplayURL(), r.Branch, append([]remote.Sent{}, st.Unsent...)})
	}
	if opts.json {
		return a.writeJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(a.stderr, "no remotes yet: add one with 'session-handoff remote add NAME URL'")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tURL\tBRANCH\tUNSENT")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", r.Name, cell(r.URL, 80), r.Branch, len(r.Unsent))
	}
	return tw.Flush()
}

// remoteRmOptions are the argument and flag of 'remote rm'.
type remoteRmOptions struct {
	name  string
	force bool
}

func newRemoteRmCmd(a *app) *cobra.Command {
	var opts remoteRmOptions
	cmd := &cobra.Command{
		Use:               "rm NAME [--force]",
		Short:             "forget a remote and its local clone",
		Example:           "  session-handoff remote rm lab",
		Args:              exactArgs(1, "one name"),
		ValidArgsFunction: a.completeRemoteArg,
		RunE: func(_ *cobra.Command, args []string) error {
			opts.name = args[0]
			return runRemoteRm(a, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.force, "force", false, "remove even if sends are waiting to be pushed (they are lost)")
	return cmd
}

func runRemoteRm(a *app, opts remoteRmOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	dataDir, err := a.dataDir()
	if err != nil {
		return err
	}
	c, err := remote.LoadConfig(kr.Dir)
	if err != nil {
		return err
	}
	name := opts.name
	if _, err := c.Get(name); err != nil {
		return withHint(err, "'session-handoff remote list' shows the remotes")
	}
	st, err := remote.State(dataDir, name)
	if err != nil {
		return err
	}
	if n := len(st.Unsent); n > 0 && !opts.force {
		return withHint(fmt.Errorf("%s: %d bundle%s not yet pushed", name, n, pluralS(n)),
			"'session-handoff send --pending --remote "+name+"' pushes them; --force drops them")
	}
	if err := remote.UpdateConfig(kr.Dir, func(c *remote.Config) error { return c.Remove(name) }); err != nil {
		return err
	}
	if err := remote.Forget(dataDir, name); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "removed remote %s\n", name)
	return nil
}

// completeRemotes completes a remote's name for the shell, from the
// remotes file, each with its URL (credentials removed) as description.
func (a *app) completeRemotes(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	kr, err := a.keyring()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	c, err := remote.LoadConfig(kr.Dir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, r := range c.List() {
		out = append(out, r.Name+"\t"+cell(r.DisplayURL(), 60))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeRemoteArg completes the first argument only, with completeRemotes.
func (a *app) completeRemoteArg(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return a.completeRemotes(cmd, args, toComplete)
}

// remoteHint adds what a user needs to the errors of choosing a remote.
func remoteHint(err error) error {
	var several *remote.SeveralError
	switch {
	case errors.Is(err, remote.ErrNoRemote):
		return withHint(err, "'session-handoff remote list' shows the remotes")
	case errors.Is(err, remote.ErrNoRemotes):
		return withHint(err, "add one: session-handoff remote add team git@host:team/handoffs.git")
	case errors.As(err, &several):
		return usagef("%v: pass --remote NAME", err)
	}
	return err
}

// dataDir is the data directory: --store, or the default location.
func (a *app) dataDir() (string, error) {
	if a.global.storeDir != "" {
		return a.global.storeDir, nil
	}
	return paths.Data(a.getenv)
}

// pluralS is "s" unless n is 1.
func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func newRemoteMigrateCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:               "migrate NAME",
		Short:             "move a remote's inbox from the earlier one-branch layout to one ref per recipient",
		Example:           "  session-handoff remote migrate team",
		Args:              exactArgs(1, "a remote name"),
		ValidArgsFunction: a.completeRemoteArg,
		RunE: func(_ *cobra.Command, args []string) error {
			r, dataDir, err := a.remoteAndData(args[0])
			if err != nil {
				return err
			}
			v, err := remote.Migrate(a.ctx, dataDir, r)
			if err != nil {
				return err
			}
			switch v {
			case 1:
				fmt.Fprintf(a.stdout, "%s: moved to one ref per recipient\n", r.Name)
			case 0:
				fmt.Fprintf(a.stdout, "%s: no inbox yet; the first send makes one in the current layout\n", r.Name)
			default:
				fmt.Fprintf(a.stdout, "%s: already one ref per recipient\n", r.Name)
			}
			return nil
		},
	}
}

func newRemoteGCCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:               "gc NAME",
		Short:             "compact the local clone of a remote",
		Example:           "  session-handoff remote gc team",
		Args:              exactArgs(1, "a remote name"),
		ValidArgsFunction: a.completeRemoteArg,
		RunE: func(_ *cobra.Command, args []string) error {
			r, dataDir, err := a.remoteAndData(args[0])
			if err != nil {
				return err
			}
			before, after, err := remote.Maintain(a.ctx, dataDir, r)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s: clone objects %d KiB -> %d KiB\n", r.Name, (before+1023)/1024, (after+1023)/1024)
			return nil
		},
	}
}

// remoteAndData looks a configured remote up by name, and returns it with
// the data directory that holds its clone.
func (a *app) remoteAndData(name string) (remote.Remote, string, error) {
	list, err := a.inboxRemotes(name)
	if err != nil {
		return remote.Remote{}, "", err
	}
	dataDir, err := a.dataDir()
	if err != nil {
		return remote.Remote{}, "", err
	}
	return list[0], dataDir, nil
}
