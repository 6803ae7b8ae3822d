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
// filter or diff driver that cannot be switched off from the command line,
// so that reading the worktree could run a program it names.
var ErrUnsafeConfig = errors.New("repository configuration cannot be made safe to read")

// maxDrivers bounds how many filter and diff drivers a repository may
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
//   - Diff drivers and external diff: gitattributes(5) "diff" names
//     diff.<driver>.command and diff.<driver>.textconv; diff.external
//     (git-config(1)) runs for every diff. diff and log get --no-ext-diff
//     and --no-textconv (git-diff(1)), and each listed diff driver gets
//     -c diff.<d>.command= -c diff.<d>.textconv= besides. GIT_EXTERNAL_DIFF
//     is not passed on.
//   - core.fsmonitor (git-config(1)) runs a hook on every status and
//     diff: -c core.fsmonitor=false.
//   - Hooks, in .git/hooks or core.hooksPath (githooks(5)): reads run
//     none, but an index written back (post-index-change) could; -c
//     core.hooksPath=/dev/null leaves no hook to find, and
//     GIT_OPTIONAL_LOCKS=0 (git(1)) keeps status from writing the index.
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
//   - Submodules: git status and git diff run git status inside each
//     submodule to see whether it is dirty (git-status(1)
//     --ignore-submodules), under the submodule's own configuration, whose
//     drivers were not listed: --ignore-submodules=dirty compares only
//     the commit a submodule has checked out, which runs nothing.
//   - Another repository or configuration chosen by the environment
//     (GIT_DIR, GIT_CONFIG_PARAMETERS, …): not passed on (cleanEnv, for
//     every Runner).
//
// The system and global configuration (the user's and the machine's
// own) are read as usual: they may hold safe.directory, and their drivers
// are listed and switched off like the repository's.

// fixedGuard are the global options of every untrusted call.
var fixedGuard = []string{
	"--no-pager",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "core.pager=cat",
	"-c", "log.showSignature=false",
	"-c", "protocol.allow=never",
}

// untrustedEnv is added to the environment of every untrusted call.
var untrustedEnv = []string{"GIT_ALLOW_PROTOCOL="}

// Untrusted returns a copy of r for reading the worktree at r.Dir, which
// we did not create: no call through it runs a program that the
// repository's configuration or attributes name. It lists the filter and
// diff drivers the configuration defines (running nothing) and switches
// each off; status, diff and log calls get the options that keep them from
// running external diffs, text conversions, signature checks and
// submodule statuses. The error wraps ErrUnsafeConfig when a driver cannot
// be switched off, and ErrNoGit when git cannot be found.
func (r Runner) Untrusted(ctx context.Context) (Runner, error) {
	r.untrusted = true
	guard := append([]string(nil), fixedGuard...)
	out, err := r.run(ctx, guard, []string{"config", "--null", "--name-only", "--get-regexp", `^(filter|diff)\.`})
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
			// filter.<variable> with no driver: nothing an attribute names.
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
			return Runner{}, fmt.Errorf("%s: over %d filter and diff drivers: %w", r.Dir, maxDrivers, ErrUnsafeConfig)
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
