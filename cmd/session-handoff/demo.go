package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/proc"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// demoOptions are demo's flags.
type demoOptions struct {
	keep bool
}

func newDemoCmd(a *app) *cobra.Command {
	var opts demoOptions
	cmd := &cobra.Command{
		Use:   "demo [--keep]",
		Short: "run a full round trip in a throwaway directory",
		Long: `Shows what session-handoff does, on its built-in defaults, without
touching your files: in a temporary directory it makes a scratch git
repository and two users, alice and bob, each with their own
SESSION_HANDOFF_HOME. Alice makes keys, saves a handoff and exports it as a
signed bundle encrypted to bob; bob trusts her key, verifies the bundle,
imports it and reads it. Each command is printed before its output. The directory is
removed at the end unless --keep is given.`,
		Example: "  session-handoff demo",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runDemo(a, opts) },
	}
	cmd.Flags().BoolVar(&opts.keep, "keep", false, "keep the temporary directory and print its path")
	return cmd
}

func runDemo(a *app, opts demoOptions) error {
	dir, err := os.MkdirTemp("", "session-handoff-demo-")
	if err != nil {
		return err
	}
	if opts.keep {
		defer fmt.Fprintf(a.stdout, "\nkept %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	return a.demo(dir)
}

// demo runs the round trip inside dir.
// demoRepo makes the demo's project under dir: a git repository with one
// commit and one uncommitted file.
func (a *app) demoRepo(dir string) (string, error) {
	repo := filepath.Join(dir, "app")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(repo, "auth.go"), []byte("package auth\n\nfunc ParseToken(s string) error { return nil }\n"), 0o644); err != nil {
		return "", err
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "auth.go"},
		{"-c", "user.name=Demo", "-c", "user.email=demo@example.invalid", "commit", "-q", "-m", "Extract token parser"},
	} {
		cmd := proc.Command(a.ctx, "git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("git %s: %s", args[0], untrusted.OneLine(string(out), maxLine))
		}
	}
	return repo, os.WriteFile(filepath.Join(repo, "auth_test.go"), []byte("package auth\n"), 0o644)
}

func (a *app) demo(dir string) error {
	repo, err := a.demoRepo(dir)
	if err != nil {
		return err
	}
	// Two people on one machine: alice hands her session over to bob.
	alice, bob := filepath.Join(dir, "alice"), filepath.Join(dir, "bob")
	as := func(home string) *app {
		// Each person's app: the demo's streams (stderr joins stdout, so the
		// transcript reads in order) and an environment naming their home.
		return &app{ctx: a.ctx, stdin: a.stdin, stdout: a.stdout, stderr: a.stdout, stdinTTY: a.stdinTTY, getenv: func(k string) string {
			switch k {
			case paths.HomeEnv:
				return home
			case passphraseEnv, keyPassphraseEnv:
				return ""
			}
			return a.getenv(k)
		}}
	}
	bundlePath := filepath.Join(dir, "auth.handoff")
	type step struct {
		who  string
		home string
		args []string
	}
	steps := []step{
		{"alice", alice, []string{"keygen", "--name", "alice@laptop", "--no-passphrase"}},
		{"bob", bob, []string{"keygen", "--name", "bob@desk", "--no-passphrase"}},
		{"alice", alice, []string{"save", "--tool", agents.Codex, "--project", repo, "--title", "Refactor auth middleware",
			"--summary", "Extracted token parser; refresh tests still failing",
			"--next", "Fix refresh test matrix", "--next", "Run race tests",
			"--decision", "Keep JWT, drop sessions table", "--tag", "auth"}},
		{"alice", alice, []string{"list"}},
		{"alice", alice, []string{"export", "latest", "--to-file", filepath.Join(bob, "recipient.txt"), "--attach", filepath.Join(repo, "auth.go"), "-o", bundlePath}},
		{"bob", bob, []string{"trust", "add", paths.ConfigDir(filepath.Join(alice, "config")).SigningPublicKey()}},
		{"bob", bob, []string{"verify", bundlePath}},
		{"bob", bob, []string{"import", bundlePath}},
		{"bob", bob, []string{"show", "latest"}},
		{"bob", bob, []string{"render", "latest", "--target", agents.ClaudeCode, "--sections", "task,decisions,next"}},
		{"bob", bob, []string{"store", "check"}},
	}
	fmt.Fprintf(a.stdout, "# alice and bob each have a SESSION_HANDOFF_HOME under %s, and work in %s\n", dir, repo)
	// The commands run in the demo's project, as a user's would: "latest"
	// is that project's latest handoff, not the newest of a store that
	// has none for the directory the demo was started in.
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := os.Chdir(repo); err != nil {
		return err
	}
	defer os.Chdir(wd)
	for i, st := range steps {
		fmt.Fprintf(a.stdout, "\n%s:app$ session-handoff %s\n", st.who, quoteArgs(st.args))
		if code := as(st.home).execute(st.args); code != exitOK {
			return fmt.Errorf("step %q failed with exit code %d", st.args[0], code)
		}
		if i == 1 {
			// Bob gives alice his age recipient (here: a file).
			info, err := exchange.Keyring{Dir: filepath.Join(bob, "config")}.Info()
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(bob, "recipient.txt"), []byte(info.AgeRecipient+"\n"), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func quoteArgs(args []string) string {
	out := make([]string, len(args))
	for i, s := range args {
		if strings.ContainsAny(s, " ;'\"$") {
			s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		out[i] = s
	}
	return strings.Join(out, " ")
}
