package main

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/remote"
)

func init() {
	register(&command{
		name:    "remote",
		summary: "manage the git remotes used as inboxes",
		usage:   "remote add NAME URL [--branch B] | remote list [--json] | remote rm NAME [--force]",
		help: `A remote is a git repository that holds bundles for their recipients,
on one branch (default "handoffs"). It needs no trust: bundles are
encrypted to their recipients and signed, and its paths and commits show
only hashes of public keys and random bundle ids. 'send' pushes to it,
'receive' imports what it holds for me, 'inbox' lists it.

The list of remotes is kept in the keys directory; each remote's local
clone under the data directory. 'remote rm' forgets both; it refuses while
a send is still waiting to be pushed, unless --force. Credentials in a URL
are never printed.`,
		example: `  session-handoff remote add team git@github.com:team/handoffs.git
  session-handoff remote add lab https://git.example.com/lab/inbox.git --branch inbox
  session-handoff remote list
  session-handoff remote rm lab`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			keysFlag(fs, a)
			storeFlag(fs, a)
			branch := fs.String("branch", remote.DefaultBranch, "the branch that holds the inbox (with add)")
			force := fs.Bool("force", false, "remove even if sends are waiting to be pushed (with rm; they are lost)")
			asJSON := fs.Bool("json", false, "print as JSON (with list)")
			return func(args []string) error {
				if len(args) == 0 {
					return usagef("want 'remote add', 'remote list' or 'remote rm'")
				}
				kr, err := a.keyring()
				if err != nil {
					return err
				}
				switch args[0] {
				case "add":
					if len(args) != 3 {
						return usagef("remote add takes a name and a URL")
					}
					r := remote.Remote{Name: args[1], URL: args[2], Branch: *branch}
					if err := r.Check(); err != nil {
						return usageError{err}
					}
					err := remote.UpdateConfig(kr.Dir, func(c *remote.Config) error { return c.Add(r) })
					if errors.Is(err, remote.ErrRemoteExists) {
						return withHint(err, "'session-handoff remote rm "+r.Name+"' first to change it")
					}
					if err != nil {
						return err
					}
					fmt.Fprintf(a.stdout, "added remote %s: %s, branch %s\n", r.Name, r.DisplayURL(), *branch)
					return nil
				case "list":
					if len(args) != 1 {
						return usagef("remote list takes no arguments")
					}
					c, err := remote.LoadConfig(kr.Dir)
					if err != nil {
						return err
					}
					dataDir, err := a.dataDir()
					if err != nil {
						return err
					}
					type row struct {
						Name   string        `json:"name"`
						URL    string        `json:"url"`
						Branch string        `json:"branch"`
						Unsent []remote.Sent `json:"unsent"`
					}
					rows := []row{}
					for _, r := range c.List() {
						st, err := remote.State(dataDir, r.Name)
						if err != nil {
							return err
						}
						rows = append(rows, row{r.Name, r.DisplayURL(), r.Branch, append([]remote.Sent{}, st.Unsent...)})
					}
					if *asJSON {
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
				case "rm":
					if len(args) != 2 {
						return usagef("remote rm takes one name")
					}
					name := args[1]
					dataDir, err := a.dataDir()
					if err != nil {
						return err
					}
					c, err := remote.LoadConfig(kr.Dir)
					if err != nil {
						return err
					}
					if _, err := c.Get(name); err != nil {
						return withHint(err, "'session-handoff remote list' shows the remotes")
					}
					st, err := remote.State(dataDir, name)
					if err != nil {
						return err
					}
					if n := len(st.Unsent); n > 0 && !*force {
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
				return usagef("unknown remote command %q", handoff.Shorten(args[0], 40))
			}
		},
	})
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
