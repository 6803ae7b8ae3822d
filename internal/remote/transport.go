package remote

import (
	"context"
	"strings"
)

// A remote that is a path on this machine (a shared folder, an NFS mount,
// a synced directory) or a file:// URL is reached through git's local
// transport: git starts the remote side's program, receive-pack for a
// push and upload-pack for a fetch or ls-remote, here, as the local user,
// in the remote repository, and that program reads the remote
// repository's own configuration. Left to itself it would run the hooks
// of whoever can write that repository (git-receive-pack(1) "pre-receive",
// "update", "post-receive", "post-update"; githooks(5)
// "reference-transaction", "proc-receive", "push-to-checkout"), the
// program its core.alternateRefsCommand names for every alternate it
// lists (git-config(1)), and, on a non-bare repository with
// receive.denyCurrentBranch=updateInstead, a checkout of its work tree
// with the filters and fsmonitor its configuration chooses.
//
// So every talk with a local remote names the remote side's program
// itself (--receive-pack, --upload-pack): git's own, started with options
// given on its command line, which git reads after every configuration
// file (git(1) "-c"):
//
//   - core.hooksPath=/dev/null: every hook is looked up under a path that
//     is not a directory, so none is found and none runs; a ref that the
//     remote's receive.procReceiveRefs hands to the (missing) proc-receive
//     hook is refused, never given to a program.
//   - core.alternateRefsCommand=true: the alternates' refs are listed by
//     a program that prints nothing (an empty value would be an error).
//   - receive.denyCurrentBranch=refuse, receive.denyDeleteCurrent=refuse:
//     a push never touches a work tree of the remote (no push-to-deploy,
//     no checkout, no filter).
//   - core.fsmonitor=false, receive.autogc=false, gc.auto=0,
//     maintenance.auto=false: no monitor, no housekeeping started by the
//     push on the remote repository.
//
// upload-pack runs no hook, and the one program its configuration could
// name (uploadpack.packObjectsHook) is read from the user's own
// configuration files only, never the repository's (git-config(1)); it
// gets the same options all the same. Options in the environment would
// not do: git clears GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT for the
// program it starts on a local repository.
//
// A remote reached over ssh, https or git:// runs its programs on its own
// host, not here; its URL gets no option (a hosting service would refuse
// a command it does not know). transport_test.go plants each hook and
// program in a local remote and checks that none runs on send, receive
// (with its removal push), inbox, and a receive with nothing new.
const (
	serveOptions = "-c core.hooksPath=/dev/null -c core.alternateRefsCommand=true -c core.fsmonitor=false " +
		"-c receive.denyCurrentBranch=refuse -c receive.denyDeleteCurrent=refuse -c receive.autogc=false " +
		"-c gc.auto=0 -c maintenance.auto=false"
	receivePack = "git " + serveOptions + " receive-pack"
	uploadPack  = "git " + serveOptions + " upload-pack"
)

// localURL reports whether git reaches url through its local transport:
// a file:// URL, or a path (git's rule in url_is_local_not_ssh: no ':'
// before the first '/', or a drive letter such as C:\).
func localURL(url string) bool {
	if scheme, _, ok := strings.Cut(url, "://"); ok && !strings.ContainsAny(scheme, "/:") {
		return strings.EqualFold(scheme, "file")
	}
	if strings.Contains(url, "::") {
		// <transport>::<address>: a remote helper of the user's choosing.
		return false
	}
	colon, slash := strings.IndexByte(url, ':'), strings.IndexAny(url, `/\`)
	if colon < 0 || slash >= 0 && slash < colon {
		return true
	}
	return colon == 1 && isLetter(url[0]) && len(url) > 2 && (url[2] == '/' || url[2] == '\\')
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// talk runs a git command that talks to the remote (fetch, ls-remote or
// push) with the network time limit; for a local remote, with the remote
// side's program started with none of the remote's hooks or programs
// (see serveOptions). Every command that reaches the remote goes through
// here.
func (c *clone) talk(ctx context.Context, args ...string) ([]byte, error) {
	if localURL(c.remote.URL) {
		opt := "--upload-pack=" + uploadPack
		if args[0] == "push" {
			opt = "--receive-pack=" + receivePack
		}
		args = append([]string{args[0], opt}, args[1:]...)
	}
	return c.net.Run(ctx, args...)
}
