package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// ErrUnsafeConfig is wrapped when a repository's configuration defines a
// filter, diff or merge driver that cannot be switched off from the command line,
// so that reading the worktree could run a program it names.
var ErrUnsafeConfig = errors.New("repository configuration cannot be made safe to read")

// maxDrivers bounds how many filter, diff and merge drivers and hooks a repository may
// define before reading it is refused (each becomes options of every call).
const maxDrivers = 200

// How a worktree we did not create is read without running any program
// its configuration (.git/config, the files it includes, the worktree's
// config.worktree) or its attributes (.gitattributes, .git/info/attributes)
// name. Each mechanism, the git documentation that describes it, and what
// switches it off:
//
//   - Filter drivers: gitattributes(5) "filter" runs filter.<driver>.clean
//     (or .process) on a worktree file whenever git hashes it, which
//     git status and git diff do for every file whose stat data changed;
//     core.fsmonitor=false does not stop it. An attribute can only name a
//     driver the configuration defines, and git-config(1) says a driver
//     with no command is no filter ("filter.<driver>.clean: the command…";
//     convert.c skips an empty one), and required=false keeps git from
//     failing for want of one. So the names of every defined driver are
//     listed first, with `git config --null --name-only --get-regexp
//     '^(filter|diff)\.'` (or, when no configuration file git reads
//     could define one, UntrustedQuick finds that without starting
//     git), and each gets -c filter.<d>.clean= -c
//     filter.<d>.smudge= -c filter.<d>.process= -c
//     filter.<d>.required=false. The listing runs no program: reading
//     configuration only reads files, and the includes it follows
//     (include.path, includeIf "gitdir:", "onbranch:", "hasconfig:") are
//     conditions on files and names (git-config(1) "Includes"), so a
//     driver defined in an included file is listed as git status would
//     see it. Options given with -c are read last and win over every
//     file (git(1) "-c"). A driver name with "=" cannot be given to -c
//     (git splits at the first "="): reading such a repository fails
//     with ErrUnsafeConfig. With the filters off, a stat-dirty filtered
//     file is compared as its raw bytes: it shows as modified when those
//     differ from what is committed, as git would say without the filter
//     (this holds for git-lfs files too, whose filter is switched off as
//     well: a touched LFS file reads as modified).
//   - Merge drivers: gitattributes(5) "merge" names merge.<driver>.driver,
//     a command git runs for a three-way merge of the file (git apply
//     --3way, git stash apply, git merge…), and merge.default names the
//     driver of a file with no such attribute. A configured driver is
//     found before the built-in ones of the same name, and its command
//     cannot be unset from the command line (an empty one fails the
//     merge). So each merge driver the listing finds gets -c
//     merge.<d>.driver="git merge-file -L ours -L base -L theirs
//     --marker-size=%L %A %O %B" (mergeFile): git's own three-way merge of the
//     three files git hands a driver (git-merge-file(1)), which writes the
//     result in place and exits non-zero on a conflict, as the built-in
//     text driver would merge, with the labels git apply gives it. That
//     runs sh and git, ours, and nothing the repository names; its
//     merge.<d>.recursive names a driver, which is listed too or is
//     built in.
//   - Diff drivers and external diff: gitattributes(5) "diff" names
//     diff.<driver>.command and diff.<driver>.textconv; diff.external
//     (git-config(1)) runs for every diff. diff and log get --no-ext-diff
//     and --no-textconv (git-diff(1)), and each listed diff driver gets
//     -c diff.<d>.command= -c diff.<d>.textconv= besides. GIT_EXTERNAL_DIFF
//     is not passed on.
//   - core.fsmonitor (git-config(1)) runs a hook on every status and
//     diff: -c core.fsmonitor=false.
//   - Hooks, in .git/hooks or core.hooksPath (githooks(5)): reads run
//     none, but an index written back (post-index-change) could, and a
//     write (switch, stash, reset) runs post-checkout and
//     reference-transaction; -c core.hooksPath=/dev/null leaves no hook
//     to find, and GIT_OPTIONAL_LOCKS=0 (git(1)) keeps status from
//     writing the index. Git 2.54 and later also run hooks the
//     configuration names (hook.<name>.command, on hook.<name>.event),
//     which core.hooksPath does not reach; git-config(1) turns one off
//     by its name, hook.<name>.enabled=false: each hook name the listing
//     finds gets that (an older git reads no hook.* setting at all).
//   - Pagers: core.pager and pager.<cmd> (git-config(1)): --no-pager, and
//     core.pager=cat; GIT_PAGER and PAGER are not passed on.
//   - Signatures: log.showSignature (git-config(1)) makes log run
//     gpg.program: -c log.showSignature=false, and --no-show-signature
//     on log.
//   - Transports: a read of a partial clone can fetch a missing object
//     (git 2.44 and later obey GIT_NO_LAZY_FETCH=1; older ones do not),
//     running core.sshCommand, core.gitProxy, remote.<name>.uploadpack or
//     an ext:: URL. GIT_ALLOW_PROTOCOL set to the empty list (git(1):
//     "behave as if protocol.allow is set to never… overriding any
//     existing configuration") lets no transport start at all.
//     uploadpack.packObjectsHook runs only when serving a fetch, which no
//     read does (and git ignores it in repository config).
//   - Credentials and prompts: credential.helper, core.askPass and
//     core.sshCommand run only for a transport, which none starts; they
//     are emptied besides (an empty credential.helper resets the list).
//     Editors: core.editor and sequence.editor give way to GIT_EDITOR
//     and GIT_SEQUENCE_EDITOR, set to ":", git's "no editor".
//   - Signing: commit.gpgSign=false and tag.gpgSign=false, so that no
//     commit or tag made through the Runner runs gpg.program.
//   - Background work: gc.auto=0 and maintenance.auto=false, so that no
//     call leaves a git gc running after it (and its pre-auto-gc hook).
//   - Submodules: git status and git diff run git status inside each
//     submodule to see whether it is dirty (git-status(1)
//     --ignore-submodules), under the submodule's own configuration, whose
//     drivers were not listed: --ignore-submodules=dirty compares only
//     the commit a submodule has checked out, which runs nothing;
//     submodule.recurse=false keeps checkout, reset and switch out of
//     them, status.submoduleSummary=false keeps status from running git
//     submodule summary, and stash apply and pop get --quiet, without
//     which they start a git status of their own.
//   - Another repository or configuration chosen by the environment
//     (GIT_DIR, GIT_CONFIG_PARAMETERS, …): not passed on (cleanEnv, for
//     every Runner).
//
// The system and global configuration (the user's and the machine's
// own) are read as usual: they may hold safe.directory, and their drivers
// are listed and switched off like the repository's.

// mergeFile is the command every configured merge driver is replaced
// with: git's own three-way text merge of the files git hands a driver
// (%O the base, %A ours, written in place, %B theirs; %L the marker
// size), exiting non-zero on a conflict as a driver must.
const mergeFile = "git merge-file -L ours -L base -L theirs --marker-size=%L %A %O %B"

// fixedGuard are the global options of every untrusted call: each
// switches off a program, or a process, that configuration could start
// whatever the attributes say (see above).
var fixedGuard = []string{
	"--no-pager",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "core.pager=cat",
	"-c", "log.showSignature=false",
	"-c", "protocol.allow=never",
	// An empty diff.external makes a diff that would run one fail
	// rather than run the repository's (diff and log also get
	// --no-ext-diff, which wins).
	"-c", "diff.external=",
	// No helper, no askpass program: an empty credential.helper resets
	// the list (git-config(1)), an empty core.askPass leaves only the
	// terminal prompt, which GIT_TERMINAL_PROMPT=0 refuses.
	"-c", "credential.helper=",
	"-c", "core.askPass=",
	"-c", "core.sshCommand=",
	// Nothing signs: a commit or tag made here runs no gpg.program.
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	// No submodule is entered: checkout, reset and switch stay in this
	// repository, whose drivers were listed, and status shows no
	// submodule summary (git submodule summary in each).
	"-c", "submodule.recurse=false",
	"-c", "status.submoduleSummary=false",
	// No background git gc or maintenance is left running after a call.
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
}

// untrustedEnv is added to the environment of every untrusted call: no
// transport at all, and ":" for the editors, which git takes for "no
// editor" (a command that would open one gets no program of the
// repository's core.editor or sequence.editor; the environment wins
// over both).
var untrustedEnv = []string{"GIT_ALLOW_PROTOCOL=", "GIT_EDITOR=:", "GIT_SEQUENCE_EDITOR=:"}

// Untrusted returns a copy of r for reading the worktree at r.Dir, which
// we did not create: no call through it runs a program that the
// repository's configuration or attributes name. It lists the filter,
// diff and merge drivers and the hooks the configuration defines (running
// nothing) and switches each off; status, diff and log calls get the options that keep them from
// running external diffs, text conversions, signature checks and
// submodule statuses. The error wraps ErrUnsafeConfig when a driver cannot
// be switched off, and ErrNoGit when git cannot be found.
func (r Runner) Untrusted(ctx context.Context) (Runner, error) {
	r.untrusted = true
	guard := append([]string(nil), fixedGuard...)
	out, err := r.run(ctx, guard, []string{"config", "--null", "--name-only", "--get-regexp", `^(filter|diff|merge|hook)\.`})
	var ee *exitError
	if errors.As(err, &ee) && ee.code == 1 {
		// git config --get-regexp exits 1 when nothing matches.
		out, err = nil, nil
	}
	if err != nil {
		return Runner{}, err
	}
	seen := map[string]bool{}
	for _, key := range bytes.Split(out, []byte{0}) {
		k := string(key)
		section, rest, ok := strings.Cut(k, ".")
		dot := strings.LastIndexByte(rest, '.')
		if !ok || dot < 0 {
			// filter.<variable> (merge.default, diff.external…) with no
			// driver: nothing an attribute names; fixedGuard sees to
			// those that run a program.
			continue
		}
		name := rest[:dot]
		if seen[section+"."+name] {
			continue
		}
		seen[section+"."+name] = true
		if strings.ContainsAny(name, "=\n\x00") {
			return Runner{}, fmt.Errorf("%s: %s driver %s: %w", r.Dir, section, untrusted.Quote(name, 80), ErrUnsafeConfig)
		}
		if len(seen) > maxDrivers {
			return Runner{}, fmt.Errorf("%s: over %d filter, diff and merge drivers and hooks: %w", r.Dir, maxDrivers, ErrUnsafeConfig)
		}
		switch section {
		case "filter":
			guard = append(guard,
				"-c", "filter."+name+".clean=",
				"-c", "filter."+name+".smudge=",
				"-c", "filter."+name+".process=",
				"-c", "filter."+name+".required=false")
		case "diff":
			guard = append(guard,
				"-c", "diff."+name+".command=",
				"-c", "diff."+name+".textconv=")
		case "merge":
			guard = append(guard, "-c", "merge."+name+".driver="+mergeFile)
		case "hook":
			guard = append(guard, "-c", "hook."+name+".enabled=false")
		}
	}
	r.guard = guard
	return r, nil
}

// harden adds, to an untrusted call of status, diff or log, the options
// that keep it from running a program (see above). Other calls, and every
// call of a trusted Runner, are left as they are.
func (r Runner) harden(args []string) []string {
	if !r.untrusted || len(args) == 0 {
		return args
	}
	var extra []string
	switch args[0] {
	case "status":
		extra = []string{"--ignore-submodules=dirty"}
	case "diff":
		extra = []string{"--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty"}
	case "log":
		extra = []string{"--no-ext-diff", "--no-textconv", "--no-show-signature"}
	case "stash":
		// stash apply and pop start a git status of their own (with our
		// -c options but not --ignore-submodules), unless quiet.
		if len(args) > 1 && (args[1] == "apply" || args[1] == "pop") {
			out := append([]string{args[0], args[1], "--quiet"}, args[2:]...)
			return out
		}
		return args
	default:
		return args
	}
	out := make([]string, 0, len(args)+len(extra))
	out = append(out, args[0])
	out = append(out, extra...)
	return append(out, args[1:]...)
}

// UntrustedBeside is Untrusted with one rev-parse run at the same time,
// under the fixed guard alone: rev-parse reads the configuration and the
// repository's files but hashes no worktree file, so it runs no filter or
// diff driver, the only programs the driver listing exists to switch off.
// One round of two git processes instead of two rounds, on the path every
// agent session starts with. args must be a rev-parse.
func (r Runner) UntrustedBeside(ctx context.Context, args ...string) (u Runner, uerr error, out []byte, err error) {
	if len(args) == 0 || args[0] != "rev-parse" {
		refused := fmt.Errorf("UntrustedBeside runs only rev-parse, not %q", args)
		return Runner{}, refused, nil, refused
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		u, uerr = r.Untrusted(ctx)
	}()
	fixed := r
	fixed.untrusted = true
	fixed.guard = append([]string(nil), fixedGuard...)
	out, err = fixed.Run(ctx, args...)
	<-done
	return u, uerr, out, err
}
