package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/changes"
	"github.com/session-handoff/session-handoff/internal/devices"
	"github.com/session-handoff/session-handoff/internal/devsync"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/hooks"
	"github.com/session-handoff/session-handoff/internal/proc"
	"github.com/session-handoff/session-handoff/internal/remote"
	"github.com/session-handoff/session-handoff/store"
)

// syncWaitEnv makes the hooks wait for the sync they start (for tests and
// scripts); by default they never do.
const syncWaitEnv = "SESSION_HANDOFF_SYNC_WAIT"

// noPullWaitEnv, set to 1, makes a session start never wait for its pull.
const noPullWaitEnv = "SESSION_HANDOFF_NO_PULL_WAIT"

func newSyncCmd(a *app) *cobra.Command {
	cmd := newParentCmd(`sync on|off [--global] | sync status | sync push [ID] | sync pull`,
		"keep my machines in step: each session's handoff goes to my other devices",
		`With sync on, the agents' hooks ('integrate') keep my paired machines
('devices') in step: after a session's capture (at a compaction and at its
end) the handoff is sent, signed by this machine and encrypted to my other
devices alone, through a git remote ('remote add'); at a session's start
the briefing is made from what has arrived, and a receive for next time
starts. Both run in the background: no hook waits on the network. A send
that fails (the remote cannot be reached, the signing key needs a
passphrase no one is there to type) stays pending, 'sync status', 'doctor'
and the next session's briefing say why, and it goes with the next one.

'sync on' turns it on for this project (by its root on this machine), or
with --global for every project; 'sync off' the same ('sync off' in a
project overrides a global 'on'). --with-changes carries the worktree's
uncommitted changes along, as 'save --with-changes' does. 'sync push' and
'sync pull' do now, in the foreground, what the hooks start; 'sync' alone
is 'sync status'. Only bundles signed by a paired device are imported; a
PAUSE file stops the hooks' syncs as it stops their captures; failures go
to hooks.log, and 'doctor' says what keeps sync from working.`,
		`  session-handoff sync on
  session-handoff sync on --global --remote mine --with-changes
  session-handoff sync status
  session-handoff sync pull`,
		newSyncSetCmd(a, true), newSyncSetCmd(a, false), newSyncStatusCmd(a), newSyncPushCmd(a), newSyncPullCmd(a))
	// 'sync' alone says where things stand, as 'sync status' does.
	parent := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return runSyncStatus(a, false)
		}
		return parent(c, args)
	}
	return cmd
}

// syncSetOptions are the flags of sync on and sync off.
type syncSetOptions struct {
	on, global, withChanges bool
	remote                  string
}

func newSyncSetCmd(a *app, on bool) *cobra.Command {
	opts := syncSetOptions{on: on}
	cmd := &cobra.Command{
		Use:     "off [--global]",
		Short:   "stop syncing this project (or, with --global, every project)",
		Example: "  session-handoff sync off",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runSyncSet(a, opts) },
	}
	cmd.Flags().BoolVar(&opts.global, "global", false, "every project, not only this one")
	if on {
		cmd.Use, cmd.Short, cmd.Example = "on [--global] [--remote NAME] [--with-changes]",
			"sync this project (or, with --global, every project) with my other devices", "  session-handoff sync on --remote mine"
		cmd.Flags().StringVar(&opts.remote, "remote", "", "the remote to sync through (default: the only one)")
		cmd.Flags().BoolVar(&opts.withChanges, "with-changes", false, "carry the worktree's uncommitted changes along")
		_ = cmd.RegisterFlagCompletionFunc("remote", a.completeRemotes)
	}
	return cmd
}

func runSyncSet(a *app, opts syncSetOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	set := devsync.Setting{Scope: devsync.Global, On: opts.on, Remote: opts.remote, WithChanges: opts.withChanges}
	where := "every project"
	if !opts.global {
		if set.Scope, err = capture.ProjectRoot(a.ctx, "."); err != nil {
			return withHint(err, "run it in the project, or pass --global")
		}
		where = clean(set.Scope)
	}
	var via string
	if opts.on {
		if via, err = a.syncRemoteName(kr.Dir, opts.remote); err != nil {
			return err
		}
	}
	if err := devsync.Set(kr.Dir, set); err != nil {
		return err
	}
	if !opts.on {
		fmt.Fprintf(a.stdout, "sync off for %s\n", where)
		return nil
	}
	fmt.Fprintf(a.stdout, "sync on for %s, through %s\n", where, via)
	if info, err := kr.Info(); err == nil && info.Encrypted {
		// The hooks' sends run with no one there to type it.
		a.warn("the signing key is passphrase-protected: sync's background sends cannot sign with it, and keep each handoff pending (sync status, doctor and the next briefing say so)")
		fmt.Fprintln(a.stderr, "hint: "+syncPassphraseFix)
	} else if errors.Is(err, exchange.ErrNoKeys) {
		a.warn("no signing key yet: 'session-handoff keygen --no-passphrase' (sync's background sends cannot ask for a passphrase)")
	}
	if l, err := devices.Load(kr.Dir); err == nil && len(l.All()) == 0 {
		a.warn("no other machine is paired yet: 'session-handoff devices add' here and there")
	}
	return nil
}

// syncPassphraseFix says how sync's background sends can sign when the
// signing key is passphrase-protected.
const syncPassphraseFix = "keep this machine's key without a passphrase: 'session-handoff key passphrase --remove' (SECURITY.md says what that means); or send by hand, in a terminal: 'session-handoff sync push'"

// syncRemoteName checks that the remote named (or the only one) exists.
func (a *app) syncRemoteName(dir, name string) (string, error) {
	r, err := syncRemote(dir, name)
	if err != nil {
		return "", err
	}
	return r.Name, nil
}

// syncRemote is the remote a setting names, or the only one.
func syncRemote(dir, name string) (remote.Remote, error) {
	c, err := remote.LoadConfig(dir)
	if err != nil {
		return remote.Remote{}, err
	}
	r, err := c.Pick(name)
	if err != nil {
		return remote.Remote{}, remoteHint(err)
	}
	return r, nil
}

func newSyncStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "status [--json]",
		Short:   "say whether this project syncs, with which devices, and what is pending",
		Example: "  session-handoff sync status",
		Args:    noArgs,
		RunE:    func(*cobra.Command, []string) error { return runSyncStatus(a, asJSON) },
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

// syncStatus is what sync status reports.
type syncStatus struct {
	Project  string            `json:"project,omitempty"`
	On       bool              `json:"on"`
	Settings []devsync.Setting `json:"settings"`
	Devices  []string          `json:"devices"`
	Pending  int               `json:"pending"`
	// Failure is why the last push failed; nil when it went through.
	Failure *devsync.Failure `json:"failure,omitempty"`
}

func runSyncStatus(a *app, asJSON bool) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	c, err := devsync.Load(kr.Dir)
	if err != nil {
		return err
	}
	l, err := devices.Load(kr.Dir)
	if err != nil {
		return err
	}
	st := syncStatus{Settings: append([]devsync.Setting{}, c.All()...), Devices: []string{}}
	for _, d := range l.All() {
		st.Devices = append(st.Devices, d.Name)
	}
	set := c.For("")
	if root, err := capture.ProjectRoot(a.ctx, "."); err == nil {
		st.Project, set = root, c.For(root)
	}
	st.On = set.On
	if dataDir, err := a.dataDir(); err == nil && set.On {
		if r, err := syncRemote(kr.Dir, set.Remote); err == nil {
			st.Pending, st.Failure, _ = devsync.PendingThrough(dataDir, r.Name)
		}
	}
	if asJSON {
		return a.writeJSON(st)
	}
	a.printSyncStatus(st)
	return nil
}

func (a *app) printSyncStatus(st syncStatus) {
	if st.Project != "" {
		fmt.Fprintf(a.stdout, "this project (%s): sync %s\n", cell(st.Project, 200), devsync.Setting{On: st.On}.State())
	}
	if len(st.Devices) == 0 {
		fmt.Fprintln(a.stdout, "devices: none paired ('session-handoff devices add')")
	} else {
		fmt.Fprintf(a.stdout, "devices: %s\n", cellList(st.Devices))
	}
	if st.Pending > 0 {
		fmt.Fprintf(a.stdout, "pending: %d bundle%s not yet pushed (they go with the next sync, or 'session-handoff sync push')\n", st.Pending, pluralS(st.Pending))
	}
	if f := st.Failure; f != nil {
		fmt.Fprintf(a.stdout, "last send failed (%s): %s\n", f.Time.Local().Format("2006-01-02 15:04"), clean(f.Reason))
		if f.Fix != "" {
			fmt.Fprintf(a.stdout, "fix: %s\n", clean(f.Fix))
		}
	}
	if len(st.Settings) == 0 {
		return
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCOPE\tSYNC\tREMOTE\tCHANGES")
	for _, s := range st.Settings {
		r, ch := "(the only one)", "-"
		if s.Remote != "" {
			r = s.Remote
		}
		if s.WithChanges {
			ch = "with changes"
		}
		scope := s.Scope
		if scope == devsync.Global {
			scope = "every project"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cell(scope, 120), s.State(), r, ch)
	}
	tw.Flush()
}

// syncRunOptions are the argument and flags of sync push and sync pull.
type syncRunOptions struct {
	ref     string // push: the record to send; "" pushes only what is pending
	project string // the project whose setting applies (default: here)
	quiet   bool   // print nothing: failures go to hooks.log
	// importedFD (pull, hidden: the session start's) is a file
	// descriptor closed once what arrived is stored, before the
	// delivered bundles are removed from the remote (startPull).
	importedFD int
}

func newSyncPushCmd(a *app) *cobra.Command {
	var opts syncRunOptions
	cmd := &cobra.Command{
		Use:   "push [ID] [--project DIR] [--quiet]",
		Short: "send a handoff (or only what is pending) to my other devices now",
		Long: `Sends the handoff ID to every paired device, through the project's sync
remote, and pushes what earlier syncs left pending; without ID, only what
is pending. The hooks start 'sync push ID --quiet' after each capture.
One push per remote runs at a time: this one waits for a running one;
with --quiet it leaves what it asks for to it. With --quiet nothing is
printed and a failure is logged to hooks.log; every failure also keeps
the handoff pending, with its reason ('sync status').`,
		Example: "  session-handoff sync push",
		Args:    rangeArgs(0, 1, "at most one id"),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ref = args[0]
			}
			return a.quietly("push", opts.quiet, func() error { return runSyncPush(a, opts) })
		},
	}
	opts.bind(cmd)
	return cmd
}

func (o *syncRunOptions) bind(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.project, "project", "", "the project whose sync setting applies (default: the one here)")
	cmd.Flags().BoolVar(&o.quiet, "quiet", false, "print nothing; log a failure to hooks.log")
}

// syncSetting is the sync setting, in the configuration directory dir, of
// the project holding the directory project (default: here; outside any
// project, the global setting), and the remote it names.
func (a *app) syncSetting(dir, project string) (devsync.Setting, remote.Remote, error) {
	c, err := devsync.Load(dir)
	if err != nil {
		return devsync.Setting{}, remote.Remote{}, err
	}
	// The setting is by the project's root: a directory inside it, or a
	// relative one, names the same.
	project, _ = capture.ProjectRoot(a.ctx, cmp.Or(project, "."))
	set := c.For(project)
	set.Scope = project
	rc, err := remote.LoadConfig(dir)
	if err != nil {
		return set, remote.Remote{}, err
	}
	r, err := rc.Pick(set.Remote)
	var several *remote.SeveralError
	if errors.As(err, &several) {
		// The setting names the remote, not a flag of push or pull.
		return set, r, withHint(err, "name the one to sync through: session-handoff sync on --remote NAME (or --global)")
	}
	if err != nil {
		return set, r, remoteHint(err)
	}
	return set, r, nil
}

func runSyncPush(a *app, opts syncRunOptions) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	set, r, err := a.syncSetting(kr.Dir, opts.project)
	if err != nil {
		return err
	}
	po := devsync.PushOptions{ConfigDir: kr.Dir, Remote: r, Store: s, Project: set.Scope, Producer: producer(), Now: time.Now(),
		// The hooks' pushes leave their request to one running; a
		// push typed waits for it.
		Wait: !opts.quiet}
	if opts.ref != "" {
		id, err := resolve(s, opts.ref)
		if err != nil {
			return err
		}
		po.ID = handoff.ID(id)
	}
	withChanges := a.getenv(withChangesEnv) == "1"
	po.Prepare = func(rec *handoff.Record, project string) error {
		if project == "" {
			return nil
		}
		// The setting of the project the record was asked for in.
		c, err := devsync.Load(kr.Dir)
		if err != nil {
			return err
		}
		if !c.For(project).WithChanges && !withChanges {
			return nil
		}
		return a.syncChanges(s, rec, project)
	}
	po.SigningKey = func() (*crypto.SigningKey, error) {
		sk, err := a.signingKey("", "run 'session-handoff keygen' first")
		if info, ierr := kr.Info(); err != nil && ierr == nil && info.Encrypted {
			// The fix for a send with no one there to type it.
			return nil, withHint(err, syncPassphraseFix)
		}
		return sk, err
	}
	res, err := devsync.Push(a.ctx, po)
	switch {
	case errors.Is(err, remote.ErrNothingToSend):
		fmt.Fprintf(a.stderr, "nothing waiting to be sent to %s\n", r.Name)
		return nil
	case errors.Is(err, devsync.ErrNoDevices):
		return withHint(err, "pair one: 'session-handoff devices add'")
	case err != nil:
		var h interface{ Hint() string }
		if errors.As(err, &h) {
			return withHint(err, h.Hint()+"; what could not be sent is kept, and goes with the next sync ('session-handoff sync push')")
		}
		return withHint(err, "what could not be sent is kept, and goes with the next sync ('session-handoff sync push')")
	case res.Coalesced:
		fmt.Fprintf(a.stderr, "a sync push to %s is running: it sends this too\n", r.Name)
		return nil
	}
	seen := map[string]bool{}
	for _, b := range res.Sent {
		if !seen[b.BundleID] {
			seen[b.BundleID] = true
			fmt.Fprintf(a.stdout, "sent %s to %d device%s via %s\n", b.HandoffID, len(b.Recipients), pluralS(len(b.Recipients)), r.Name)
		}
	}
	return nil
}

// syncChanges attaches the worktree's uncommitted changes at root to rec,
// in place of any it carried, and stores rec so: the bundle is made from
// the store.
func (a *app) syncChanges(s *store.Store, rec *handoff.Record, root string) error {
	m, err := a.makeChanges(root, changesFlags{})
	if err != nil || m == nil {
		return err
	}
	defer m.Close()
	rec.Attachments = slices.DeleteFunc(rec.Attachments, func(at handoff.Attachment) bool { return at.Name == changes.Name })
	if err := attachChanges(s, rec, m); err != nil {
		return err
	}
	_, err = s.Put(rec, true)
	return err
}

func newSyncPullCmd(a *app) *cobra.Command {
	var opts syncRunOptions
	cmd := &cobra.Command{
		Use:   "pull [--project DIR] [--quiet]",
		Short: "receive what my other devices sent, now",
		Long: `Receives, through the project's sync remote, the handoffs my paired
devices sent me. Only bundles signed by one of them are imported; others
stay for 'receive'. What earlier pushes could not deliver is pushed first.
A newer version of a record replaces the one stored;
an older one, or one received before, changes nothing. The session-start
hook starts 'sync pull --quiet'; when one is running, another returns.`,
		Example: "  session-handoff sync pull",
		Args:    noArgs,
		RunE: func(*cobra.Command, []string) error {
			return a.quietly("pull", opts.quiet, func() error { return runSyncPull(a, opts) })
		},
	}
	opts.bind(cmd)
	cmd.Flags().IntVar(&opts.importedFD, "imported-fd", 0, "a descriptor to close once what arrived is stored (for the session start)")
	cmd.Flags().MarkHidden("imported-fd")
	return cmd
}

func runSyncPull(a *app, opts syncRunOptions) error {
	kr, ropts, err := a.readOptions(readerOptions{})
	if err != nil {
		return err
	}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	_, r, err := a.syncSetting(kr.Dir, opts.project)
	if err != nil {
		return err
	}
	// What an earlier push could not deliver goes first: the remote is
	// reachable again, perhaps (or the key can sign now).
	if n, _, _ := devsync.PendingThrough(s.Dir(), r.Name); n > 0 {
		if err := runSyncPush(a, syncRunOptions{project: opts.project, quiet: opts.quiet}); err != nil {
			a.warn("%v", err)
		}
	}
	var imported func()
	if signal := inheritedPipe(opts.importedFD); signal != nil {
		defer signal.Close()
		imported = func() { signal.Close() }
	}
	res, err := devsync.Pull(a.ctx, devsync.PullOptions{Remote: r, Store: s, Keys: kr, Read: ropts, Now: time.Now(), Imported: imported})
	switch {
	case errors.Is(err, devsync.ErrBusy):
		fmt.Fprintln(a.stderr, "another sync pull is running")
		return nil
	case errors.Is(err, devsync.ErrNoDevices):
		return withHint(err, "pair one: 'session-handoff devices add'")
	case err != nil:
		return err
	}
	a.printReceive(res)
	return nil
}

// quietly runs fn; with quiet, its output goes nowhere and a failure is
// logged to hooks.log in the data directory (it runs in the background,
// started by a hook).
func (a *app) quietly(what string, quiet bool, fn func() error) error {
	if !quiet {
		return fn()
	}
	a.stdout, a.stderr = discard{}, discard{}
	err := fn()
	if err != nil {
		dir, _ := a.dataDir()
		hooks.Log(discard{}, dir, "sync", what, err, time.Now())
		return exitError{exitFailure, nil}
	}
	return nil
}

// discard is an io.Writer that keeps nothing.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// startSync starts 'session-handoff sync push ID' (or 'sync pull' when id
// is empty) for root in a process of its own, in a session of its own (the
// agent's exit does not stop it), with this one's store and keys, and
// returns without waiting, unless $SESSION_HANDOFF_SYNC_WAIT is
// 1. Its output goes nowhere; a failure is logged to hooks.log.
func (a *app) startSync(root string, id handoff.ID) error {
	cmd, err := a.syncProcess(root, id, nil)
	if err != nil || cmd == nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the sync: %w", err)
	}
	yieldCPU(cmd.Process.Pid)
	return cmd.Process.Release()
}

// startPull is startSync's pull, returning a channel closed when what it
// brings is stored (or it has ended), for the session start that waits
// for it (hooks.Options.PullWait): the pull closes the write end of a pipe
// it inherits (--imported-fd) before it removes the delivered bundles
// from the remote, and its exit closes it too.
func (a *app) startPull(root string) (<-chan struct{}, error) {
	done := make(chan struct{})
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start the sync: %w", err)
	}
	defer w.Close()
	cmd, err := a.syncProcess(root, "", w)
	if err != nil || cmd == nil {
		r.Close()
		close(done)
		return done, err
	}
	if err := cmd.Start(); err != nil {
		r.Close()
		return nil, fmt.Errorf("start the sync: %w", err)
	}
	go func() {
		// The hook may end first: the pull goes on, its own session's.
		io.Copy(io.Discard, r)
		r.Close()
		close(done)
	}()
	return done, cmd.Process.Release()
}

// syncProcess is the process startSync starts; nil when it was run
// already (SESSION_HANDOFF_SYNC_WAIT, or a test's a.start).
// With imported, the pull is given it as descriptor 3, to close once what
// it brings is stored.
func (a *app) syncProcess(root string, id handoff.ID, imported *os.File) (*exec.Cmd, error) {
	if id != "" {
		// The send is asked for before the process that makes it
		// starts: killed at any point, it is made by the next push.
		if err := a.askSync(root, id); err != nil {
			return nil, fmt.Errorf("start the sync: %w", err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("start the sync: %w", err)
	}
	args := []string{"sync", "pull", "--quiet", "--project", root}
	if id != "" {
		args = []string{"sync", "push", string(id), "--quiet", "--project", root}
	}
	if imported != nil && canPassPipes {
		args = append(args, "--imported-fd", "3")
	}
	// The child runs in root: a relative --store or --keys is made
	// absolute first.
	args, err = a.childArgs(args...)
	if err != nil {
		return nil, fmt.Errorf("start the sync: %w", err)
	}
	cmd := proc.Detached(exe, args...)
	// Named as the program is, whatever the file: the test binary
	// dispatches on it.
	cmd.Args[0] = "session-handoff"
	cmd.Dir = root
	if imported != nil && canPassPipes {
		cmd.ExtraFiles = []*os.File{imported} // descriptor 3
	}
	if a.getenv(syncWaitEnv) == "1" {
		// Its exit status is in hooks.log: a hook never fails for it.
		_ = cmd.Run()
		return nil, nil
	}
	if a.start != nil {
		return nil, a.start(cmd)
	}
	return cmd, nil
}

// askSync records, in the sync state, that the record id made in the
// project at root is to be sent through the remote of root's setting.
func (a *app) askSync(root string, id handoff.ID) error {
	kr, err := a.keyring()
	if err != nil {
		return err
	}
	dataDir, err := a.dataDir()
	if err != nil {
		return err
	}
	set, r, err := a.syncSetting(kr.Dir, root)
	if err != nil {
		return err
	}
	return devsync.Want(dataDir, r.Name, id, set.Scope, time.Now())
}

// syncAfterHandover starts the sync push of the handoff a handover run
// made in root, when sync is on there; what goes wrong is a warning.
func (a *app) syncAfterHandover(configDir, root string, id handoff.ID) {
	if id == "" {
		return
	}
	if _, on, err := devsync.Enabled(configDir, root); err != nil || !on {
		return
	}
	if err := a.startSync(root, id); err != nil {
		a.warn("sync not started: %v", err)
	}
}
