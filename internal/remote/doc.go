// Package remote shares bundles through a git remote used as an inbox.
//
// The remote needs no trust: every bundle in it is encrypted to its
// recipients and signed, and its refs, paths and commit messages hold
// only hashes of public keys and random bundle ids (docs/FORMAT.md §10 is
// the layout). Each recipient has a ref of their own, one commit without
// parent whose tree holds the bundles waiting for them; the inbox branch
// holds only a marker naming the layout.
//
// Send exports a stored handoff and pushes it into each recipient's ref in
// one atomic push, leased on what it built on; a push that lost a race is
// rebuilt on what the remote then holds and pushed again, and a send that
// could not push is kept and pushed, never duplicated, by the next send.
// Receive fetches only my refs, imports, through exchange.ImportMany,
// every new bundle in them, and never reads anyone else's; a ledger in the data
// directory makes each bundle count once, and what it records is then
// removed from my refs, by a leased rewrite. Inbox lists what is waiting.
// An inbox of layout 1 (one branch for everyone) is read as it is and
// moved to layout 2 by the first send or Migrate.
//
// Configuration (the list of remotes) lives in the configuration
// directory; each remote's clone, its unsent bundles and the ledger in the
// data directory. Every git command runs through git.Runner.Run: bounded
// in time (15 s for local work, git.NetworkTimeout for fetch, ls-remote
// and push) and in output, never prompting, credentials removed from
// errors, with automatic gc and reflogs off (Maintain compacts a clone).
package remote
