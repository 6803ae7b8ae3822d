// Package remote shares bundles through a git remote used as an inbox.
//
// The remote needs no trust: every bundle in it is encrypted to its
// recipients and signed, and its paths and commit messages hold only
// hashes of public keys and random bundle ids (docs/FORMAT.md §10 is the
// layout). A sender's bundle goes, in one commit, into one directory per
// recipient (named by the hash the bundle's signed manifest lists for that
// recipient) and one line of the sender's append-only log.
//
// Send exports a stored handoff and pushes it; a push rejected because
// someone else pushed first is rebuilt on the new tip and retried, and a
// send that could not push is kept and pushed, never duplicated, by the
// next send. Receive fetches and imports, through exchange.Import, every
// new bundle in my own directories, and never reads anyone else's; a
// ledger in the data directory makes each bundle count once. Inbox lists
// what is waiting.
//
// Configuration (the list of remotes) lives in the configuration
// directory; each remote's clone, its unsent bundles and the ledger in the
// data directory. Every git command runs through git.Runner.Run: bounded
// in time (15 s for local work, git.NetworkTimeout for fetch, ls-remote
// and push) and in output, never prompting, credentials removed from
// errors.
package remote
